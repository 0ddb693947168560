/* Single-precision matrix product C = A * B (+ C), cache-blocked with a 4 x 16
 * register tile. The core of Conv (after im2col), Gemm and MatMul.
 *
 * With OpenBLAS (LF_HAVE_BLAS) each tile of C is one single-threaded
 * cblas_sgemm call instead; OpenBLAS packs and sums with its own kernel
 * (fused multiply-adds), about 5-10x faster than the loop below.
 *
 * Determinism: tiles are fixed by the matrix sizes and handed to threads
 * whole, so the thread count changes who computes an element, never how.
 * In the fallback every element of C is one accumulator that adds its K
 * products in the order k = 0..K-1 (blocks of K only pause the sum in C). */
#include "planner/exec/kernels.h"

#ifdef LF_HAVE_BLAS
#include <cblas.h>
#include <pthread.h>

/* Tiles of C handed to threads when OpenBLAS computes them: big enough that
 * each call runs near the library's full speed, small enough that the late
 * stages of a CNN (512 x 49 outputs) still give two threads work. */
#define LF__BLAS_MB 128
#define LF__BLAS_NB 512
#endif

#ifndef LF_HAVE_BLAS
#define LF__MR 4
#define LF__NR 16
#define LF__MB 64   /* rows of C per parallel tile */
#define LF__NB 256  /* columns of C per parallel tile */
#define LF__KB 256  /* products summed per pass over a tile */

/* With GCC on x86-64 the register tile is also compiled for AVX2 and picked
 * at load time. Both clones do the same IEEE multiplies and adds in the same
 * order (no FMA contraction in ISO C mode), so results do not depend on it. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define LF__VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LF__VECTOR_CLONES
#endif

/* Full 4 x 16 tile: written with fixed trip counts so the compiler keeps the
 * accumulators in vector registers. */
LF__VECTOR_CLONES static void lf__tile_full(int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb,
                          float *C, int64_t ldc, int load)
{
    float acc[LF__MR][LF__NR];
    for (int i = 0; i < LF__MR; i++)
        for (int j = 0; j < LF__NR; j++)
            acc[i][j] = load ? C[i * ldc + j] : 0.0f;
    const float *a0 = A, *a1 = A + lda, *a2 = A + 2 * lda, *a3 = A + 3 * lda;
    for (int64_t k = 0; k < K; k++) {
        const float *b = B + k * ldb;
        float x0 = a0[k], x1 = a1[k], x2 = a2[k], x3 = a3[k];
        for (int j = 0; j < LF__NR; j++) {
            float bj = b[j];
            acc[0][j] += x0 * bj;
            acc[1][j] += x1 * bj;
            acc[2][j] += x2 * bj;
            acc[3][j] += x3 * bj;
        }
    }
    for (int i = 0; i < LF__MR; i++)
        for (int j = 0; j < LF__NR; j++)
            C[i * ldc + j] = acc[i][j];
}

/* Edge tile of mr x nr (< 4 x 16): the same sums, element by element. */
static void lf__tile_edge(int64_t mr, int64_t nr, int64_t K, const float *A, int64_t lda,
                          const float *B, int64_t ldb, float *C, int64_t ldc, int load)
{
    for (int64_t i = 0; i < mr; i++)
        for (int64_t j = 0; j < nr; j++) {
            float s = load ? C[i * ldc + j] : 0.0f;
            for (int64_t k = 0; k < K; k++)
                s += A[i * lda + k] * B[k * ldb + j];
            C[i * ldc + j] = s;
        }
}

#endif

typedef struct lf__sgemm_job {
    int64_t M, N, K, lda, ldb, ldc, ntl;
    const float *A, *B;
    float *C;
    int accumulate;
} lf__sgemm_job;

#ifdef LF_HAVE_BLAS
/* One tile is one single-threaded BLAS call with the whole K: the same call
 * for the same tile whatever the thread count. */
static void lf__tiles_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__sgemm_job *j = ctx;
    for (int64_t t = lo; t < hi; t++) {
        int64_t m0 = (t / j->ntl) * LF__BLAS_MB, n0 = (t % j->ntl) * LF__BLAS_NB;
        int64_t mb = j->M - m0 < LF__BLAS_MB ? j->M - m0 : LF__BLAS_MB;
        int64_t nb = j->N - n0 < LF__BLAS_NB ? j->N - n0 : LF__BLAS_NB;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)mb, (blasint)nb, (blasint)j->K,
                    1.0f, j->A + m0 * j->lda, (blasint)j->lda, j->B + n0, (blasint)j->ldb,
                    j->accumulate ? 1.0f : 0.0f, j->C + m0 * j->ldc + n0, (blasint)j->ldc);
    }
}

static pthread_once_t lf__blas_once = PTHREAD_ONCE_INIT;
/* A threaded OpenBLAS build would split a call among its own threads, which
 * spin and may change the order of sums; the serial one ignores this. */
static void lf__blas_serial(void) { openblas_set_num_threads(1); }
/* Debian's serial OpenBLAS is built without USE_LOCKING: two threads inside
 * it at once may share its work buffers. Every product (all its tiles, one
 * after another on the calling thread) holds this lock, so concurrent
 * executors (the optimizer's checks, Python threads) stay correct. The
 * pthread build would not need it, but it starts threads when loaded and
 * hangs at exit where they cannot be made (a memory limit). */
static pthread_mutex_t lf__blas_lock = PTHREAD_MUTEX_INITIALIZER;
#else
static void lf__tiles_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__sgemm_job *j = ctx;
    int64_t M = j->M, N = j->N, K = j->K, lda = j->lda, ldb = j->ldb, ldc = j->ldc;
    const float *A = j->A, *B = j->B;
    float *C = j->C;
    for (int64_t t = lo; t < hi; t++) {
        int64_t m0 = (t / j->ntl) * LF__MB, n0 = (t % j->ntl) * LF__NB;
        int64_t m1 = m0 + LF__MB < M ? m0 + LF__MB : M, n1 = n0 + LF__NB < N ? n0 + LF__NB : N;
        for (int64_t k0 = 0; k0 < K; k0 += LF__KB) {
            int64_t kb = K - k0 < LF__KB ? K - k0 : LF__KB;
            int load = j->accumulate || k0 > 0;
            for (int64_t jj = n0; jj < n1; jj += LF__NR) {
                int64_t nr = n1 - jj < LF__NR ? n1 - jj : LF__NR;
                for (int64_t i = m0; i < m1; i += LF__MR) {
                    int64_t mr = m1 - i < LF__MR ? m1 - i : LF__MR;
                    const float *a = A + i * lda + k0;
                    const float *b = B + k0 * ldb + jj;
                    float *c = C + i * ldc + jj;
                    if (mr == LF__MR && nr == LF__NR)
                        lf__tile_full(kb, a, lda, b, ldb, c, ldc, load);
                    else
                        lf__tile_edge(mr, nr, kb, a, lda, b, ldb, c, ldc, load);
                }
            }
        }
    }
}
#endif

void lf__sgemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B,
               int64_t ldb, float *C, int64_t ldc, int accumulate, int nt)
{
    if (M <= 0 || N <= 0)
        return;
    if (K <= 0) {
        if (!accumulate)
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++)
                    C[i * ldc + j] = 0.0f;
        return;
    }
#ifdef LF_HAVE_BLAS
    pthread_once(&lf__blas_once, lf__blas_serial);
    int64_t mt = (M + LF__BLAS_MB - 1) / LF__BLAS_MB, ntl = (N + LF__BLAS_NB - 1) / LF__BLAS_NB;
#else
    int64_t mt = (M + LF__MB - 1) / LF__MB, ntl = (N + LF__NB - 1) / LF__NB;
#endif
    lf__sgemm_job j = {M, N, K, lda, ldb, ldc, ntl, A, B, C, accumulate};
#ifdef LF_HAVE_BLAS
    (void)nt;
    pthread_mutex_lock(&lf__blas_lock);
    lf__tiles_range(&j, 0, mt * ntl);
    pthread_mutex_unlock(&lf__blas_lock);
#else
    lf__parallel(mt * ntl, lf__threads_for(M * N * K, nt), lf__tiles_range, &j);
#endif
}

/* Single-precision matrix product C = op(A) * op(B) (+ C), cache-blocked with a
 * 4 x 16 register tile. The core of Conv (after im2col), Gemm and MatMul.
 *
 * With OpenBLAS (LF_HAVE_BLAS) each product is one single-threaded
 * cblas_sgemm call instead, with the transposes and leading dimensions
 * passed through (no copies); OpenBLAS packs and sums with its own kernel
 * (fused multiply-adds), about 5-10x faster than the loop below. OpenBLAS
 * picks its kernel for the CPU when loaded (AVX-512 ones where the CPU has
 * them) unless OPENBLAS_CORETYPE names one: on a machine whose environment
 * sets OPENBLAS_CORETYPE=Haswell, products run 1.6-1.8x slower.
 *
 * Determinism: with OpenBLAS a product is the same call whatever the thread
 * count. In the fallback, tiles are fixed by the matrix sizes and handed to
 * threads whole, so the thread count changes who computes an element, never
 * how: every element of C is one accumulator that adds its K products in the
 * order k = 0..K-1 (blocks of K only pause the sum in C). */
#include <stdlib.h>

#include "planner/exec/kernels.h"

#ifdef LF_HAVE_BLAS
#include <cblas.h>
#include <pthread.h>
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
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(LF_NO_VECTOR_CLONES)
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

static pthread_once_t lf__blas_once = PTHREAD_ONCE_INIT;
/* A threaded OpenBLAS build would split a call among its own threads, which
 * spin and may change the order of sums; the serial one ignores this. */
static void lf__blas_serial(void) { openblas_set_num_threads(1); }
/* Debian's serial OpenBLAS is built without USE_LOCKING: two threads inside
 * it at once may share its work buffers. Every product (one call on the
 * calling thread) holds this lock, so concurrent
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

#ifndef LF_HAVE_BLAS
/* rows x cols (row stride ld) -> cols x rows, packed. */
static float *lf__transposed(const float *x, int64_t rows, int64_t cols, int64_t ld)
{
    float *t = malloc((size_t)(rows * cols) * sizeof *t);
    if (t)
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++)
                t[j * rows + i] = x[i * ld + j];
    return t;
}
#endif

lf_status lf__sgemm_t(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, int trans_a,
                      const float *B, int64_t ldb, int trans_b, float *C, int64_t ldc, int accumulate, int nt)
{
    if (M <= 0 || N <= 0)
        return LF_OK;
    if (K <= 0) {
        if (!accumulate)
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++)
                    C[i * ldc + j] = 0.0f;
        return LF_OK;
    }
#ifdef LF_HAVE_BLAS
    (void)nt;
    pthread_once(&lf__blas_once, lf__blas_serial);
    pthread_mutex_lock(&lf__blas_lock);
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                (blasint)M, (blasint)N, (blasint)K, 1.0f, A, (blasint)lda, B, (blasint)ldb,
                accumulate ? 1.0f : 0.0f, C, (blasint)ldc);
    pthread_mutex_unlock(&lf__blas_lock);
    return LF_OK;
#else
    float *ta = NULL, *tb = NULL;
    if (trans_a && !(ta = lf__transposed(A, K, M, lda)))
        return lf_set_error(LF_ENOMEM, "out of memory transposing a %lldx%lld matrix operand",
                            (long long)K, (long long)M);
    if (trans_b && !(tb = lf__transposed(B, N, K, ldb))) {
        free(ta);
        return lf_set_error(LF_ENOMEM, "out of memory transposing a %lldx%lld matrix operand",
                            (long long)N, (long long)K);
    }
    int64_t mt = (M + LF__MB - 1) / LF__MB, ntl = (N + LF__NB - 1) / LF__NB;
    lf__sgemm_job j = {M, N, K, ta ? K : lda, tb ? N : ldb, ldc, ntl, ta ? ta : A, tb ? tb : B, C, accumulate};
    lf__parallel(mt * ntl, lf__threads_for(M * N * K, nt), lf__tiles_range, &j);
    free(ta);
    free(tb);
    return LF_OK;
#endif
}

void lf__sgemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B,
               int64_t ldb, float *C, int64_t ldc, int accumulate, int nt)
{
    (void)lf__sgemm_t(M, N, K, A, lda, 0, B, ldb, 0, C, ldc, accumulate, nt);
}

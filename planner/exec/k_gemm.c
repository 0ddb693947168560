/* Single-precision matrix product C = A * B (+ C), cache-blocked with a 4 x 16
 * register tile. The core of Conv (after im2col), Gemm and MatMul.
 *
 * Determinism: every element of C is one accumulator that adds its K products
 * in the order k = 0..K-1 (blocks of K only pause the sum in C). Tiles are
 * fixed by the matrix sizes and handed to threads whole, so the thread count
 * changes who computes an element, never how. */
#include "planner/exec/kernels.h"

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
    int64_t mt = (M + LF__MB - 1) / LF__MB, ntl = (N + LF__NB - 1) / LF__NB;
    int64_t tiles = mt * ntl;
    nt = lf__threads_for(M * N * K, nt);
    if (nt > tiles)
        nt = (int)tiles;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
    for (int64_t t = 0; t < tiles; t++) {
        int64_t m0 = (t / ntl) * LF__MB, n0 = (t % ntl) * LF__NB;
        int64_t m1 = m0 + LF__MB < M ? m0 + LF__MB : M, n1 = n0 + LF__NB < N ? n0 + LF__NB : N;
        for (int64_t k0 = 0; k0 < K; k0 += LF__KB) {
            int64_t kb = K - k0 < LF__KB ? K - k0 : LF__KB;
            int load = accumulate || k0 > 0;
            for (int64_t j = n0; j < n1; j += LF__NR) {
                int64_t nr = n1 - j < LF__NR ? n1 - j : LF__NR;
                for (int64_t i = m0; i < m1; i += LF__MR) {
                    int64_t mr = m1 - i < LF__MR ? m1 - i : LF__MR;
                    const float *a = A + i * lda + k0;
                    const float *b = B + k0 * ldb + j;
                    float *c = C + i * ldc + j;
                    if (mr == LF__MR && nr == LF__NR)
                        lf__tile_full(kb, a, lda, b, ldb, c, ldc, load);
                    else
                        lf__tile_edge(mr, nr, kb, a, lda, b, ldb, c, ldc, load);
                }
            }
        }
    }
}

/* Small dense kernels for the GNN. The matrices are at most a few hundred
 * rows by 128 columns, so a plain loop order whose innermost loop runs along
 * contiguous rows (and vectorizes) is enough; no BLAS. Zero entries of the
 * left operand are skipped: after a ReLU about half of them are zero, and
 * skipping an exact zero does not change the result. Every kernel sums in a
 * fixed order, which the training's determinism relies on. */
#include "explain/layers.h"

#include <stdlib.h>
#include <string.h>

/* An AVX2 copy of each kernel next to the baseline one, picked at load time
 * where the CPU has it. Only the vector width differs: every element is
 * still one multiply and one add in the same order (ISO C mode keeps the
 * compiler from fusing them, and the AVX2 target has no FMA), so both copies
 * give bit-identical results. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define LF_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef LF_VECTOR_CLONES
#define LF_VECTOR_CLONES
#endif

LF_VECTOR_CLONES
void lf_mm_nn(int32_t m, int32_t n, int32_t k, const float *a, const float *b, float *c,
              int accumulate)
{
    if (!accumulate)
        memset(c, 0, sizeof(float) * (size_t)m * (size_t)n);
    for (int32_t i = 0; i < m; i++) {
        float *ci = c + (int64_t)i * n;
        const float *ai = a + (int64_t)i * k;
        for (int32_t p = 0; p < k; p++) {
            float s = ai[p];
            if (s == 0.0f)
                continue;
            const float *bp = b + (int64_t)p * n;
            for (int32_t j = 0; j < n; j++)
                ci[j] += s * bp[j];
        }
    }
}

LF_VECTOR_CLONES
void lf_mm_tn_acc(int32_t m, int32_t n, int32_t k, const float *a, const float *b, float *c)
{
    for (int32_t i = 0; i < m; i++) {
        const float *ai = a + (int64_t)i * k;
        const float *bi = b + (int64_t)i * n;
        for (int32_t p = 0; p < k; p++) {
            float s = ai[p];
            if (s == 0.0f)
                continue;
            float *cp = c + (int64_t)p * n;
            for (int32_t j = 0; j < n; j++)
                cp[j] += s * bi[j];
        }
    }
}

/* In square tiles: a plain element loop writes (or reads) with a stride of
 * a whole row, one cache line per element, and would cost more than the
 * product it prepares when the left operand has few rows (a small group). */
void lf_mm_transpose(int32_t rows, int32_t cols, const float *b, float *bt)
{
    enum { TILE = 16 };
    for (int32_t p0 = 0; p0 < rows; p0 += TILE) {
        int32_t p1 = p0 + TILE < rows ? p0 + TILE : rows;
        for (int32_t j0 = 0; j0 < cols; j0 += TILE) {
            int32_t j1 = j0 + TILE < cols ? j0 + TILE : cols;
            for (int32_t p = p0; p < p1; p++)
                for (int32_t j = j0; j < j1; j++)
                    bt[(int64_t)j * rows + p] = b[(int64_t)p * cols + j];
        }
    }
}

LF_VECTOR_CLONES
void lf_mm_nt(int32_t m, int32_t n, int32_t k, const float *a, const float *b, float *c)
{
    /* c[i][p] = sum_j a[i][j] b[p][j], summed over j in ascending order, as
     * row updates c[i][:] += a[i][j] * b^T[j][:]: contiguous, vectorizable,
     * and zero entries of a (half of a gradient after a ReLU) are skipped.
     * b^T is built once per call; without memory the same sums read b with
     * a stride, so the result is the same either way. */
    float *bt = malloc(sizeof(float) * (size_t)n * (size_t)k);
    if (bt)
        lf_mm_transpose(k, n, b, bt);
    for (int32_t i = 0; i < m; i++) {
        const float *ai = a + (int64_t)i * n;
        float *ci = c + (int64_t)i * k;
        memset(ci, 0, sizeof(float) * (size_t)k);
        for (int32_t j = 0; j < n; j++) {
            float s = ai[j];
            if (s == 0.0f)
                continue;
            if (bt) {
                const float *bj = bt + (int64_t)j * k;
                for (int32_t p = 0; p < k; p++)
                    ci[p] += s * bj[p];
            } else {
                for (int32_t p = 0; p < k; p++)
                    ci[p] += s * b[(int64_t)p * n + j];
            }
        }
    }
    free(bt);
}

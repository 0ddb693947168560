/* Small dense kernels for the GNN. The matrices are at most a few hundred
 * rows by 128 columns, so a plain loop order whose innermost loop runs along
 * contiguous rows (and vectorizes) is enough; no BLAS. Zero entries of the
 * left operand are skipped: after a ReLU about half of them are zero, and
 * skipping an exact zero does not change the result. Every kernel sums in a
 * fixed order, which the training's determinism relies on. */
#include "explain/layers.h"

#include <string.h>

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

void lf_mm_nt(int32_t m, int32_t n, int32_t k, const float *a, const float *b, float *c)
{
    for (int32_t i = 0; i < m; i++) {
        const float *ai = a + (int64_t)i * n;
        for (int32_t p = 0; p < k; p++) {
            const float *bp = b + (int64_t)p * n;
            /* Four partial sums give the compiler independent chains without
             * -ffast-math; the order is fixed, so results stay reproducible. */
            float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            int32_t j = 0;
            for (; j + 4 <= n; j += 4) {
                s0 += ai[j] * bp[j];
                s1 += ai[j + 1] * bp[j + 1];
                s2 += ai[j + 2] * bp[j + 2];
                s3 += ai[j + 3] * bp[j + 3];
            }
            for (; j < n; j++)
                s0 += ai[j] * bp[j];
            c[(int64_t)i * k + p] = (s0 + s1) + (s2 + s3);
        }
    }
}

/* RMSNormalization (ONNX opset 23; Llama's RMSNorm): per position of the
 * axes outside the mask, y = x / sqrt(mean(x^2) + eps), then * scale with
 * broadcasting. The mean of squares is accumulated in double, in index order,
 * by the thread that owns the row (as LayerNorm in k_norm.c), so results do
 * not depend on the thread count. NaN and infinity follow ONNX's reference
 * (x * reciprocal(sqrt(mean(x^2) + eps))): a NaN in a row makes the whole row
 * NaN, an infinite element makes the mean infinite, its reciprocal square
 * root 0, so the infinite element gives NaN (inf * 0) and the row's finite
 * elements give 0. */
#include <math.h>
#include <stdlib.h>

#include "planner/exec/kernels.h"

typedef struct lf__rms_job {
    const float *x;
    float *y;
    double eps;
    const int64_t *outer, *inner;
    int64_t ni;
} lf__rms_job;

static void lf__rmsnorm_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__rms_job *j = ctx;
    const int64_t *inner = j->inner, ni = j->ni;
    for (int64_t o = lo; o < hi; o++) {
        const float *xr = j->x + j->outer[o];
        float *yr = j->y + j->outer[o];
        double sq = 0.0;
        for (int64_t i = 0; i < ni; i++)
            sq += (double)xr[inner[i]] * (double)xr[inner[i]];
        double inv = 1.0 / sqrt(sq / (double)ni + j->eps);
        for (int64_t i = 0; i < ni; i++)
            yr[inner[i]] = (float)((double)xr[inner[i]] * inv);
    }
}

lf_status lf__rmsnorm(const float *x, lf__dims xd, unsigned mask, float eps, const float *scale,
                      lf__dims sd, float *y, int nt)
{
    int64_t *outer, *inner, no, ni;
    lf_status st = lf__mask_offsets(xd, mask, &outer, &no, &inner, &ni);
    if (st)
        return st;
    lf__rms_job j = {.x = x, .y = y, .eps = eps, .outer = outer, .inner = inner, .ni = ni};
    lf__parallel(no, lf__threads_for(no * ni * 3, nt), lf__rmsnorm_range, &j);
    free(outer);
    free(inner);
    if (scale)
        st = lf__binary(LF__B_MUL, y, xd, scale, sd, y, xd, nt);
    return st;
}

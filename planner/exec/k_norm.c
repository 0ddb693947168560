/* BatchNormalization (inference form) and LayerNormalization. Statistics are
 * accumulated in double, in index order, by the thread that owns the row. */
#include <math.h>
#include <stdlib.h>

#include "planner/exec/kernels.h"

typedef struct lf__norm_job {
    const float *x;
    float *y;
    const float *scale, *bias, *mean, *var;
    float eps;
    int64_t C, P;
    const int64_t *outer, *inner;
    int64_t ni;
} lf__norm_job;

static void lf__batchnorm_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__norm_job *j = ctx;
    int64_t P = j->P;
    for (int64_t r = lo; r < hi; r++) {
        int64_t c = r % j->C;
        float m = j->mean[c], s = sqrtf(j->var[c] + j->eps), g = j->scale[c], b = j->bias[c];
        const float *xr = j->x + r * P;
        float *yr = j->y + r * P;
        for (int64_t i = 0; i < P; i++)
            yr[i] = (xr[i] - m) / s * g + b;
    }
}

/* Normalises rows lo..hi-1 over the masked axes (no scale or bias yet). */
static void lf__layernorm_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__norm_job *j = ctx;
    const int64_t *inner = j->inner, ni = j->ni;
    for (int64_t o = lo; o < hi; o++) {
        const float *xr = j->x + j->outer[o];
        float *yr = j->y + j->outer[o];
        double sum = 0.0;
        for (int64_t i = 0; i < ni; i++)
            sum += xr[inner[i]];
        double mean = sum / (double)ni, sq = 0.0;
        for (int64_t i = 0; i < ni; i++)
            sq += ((double)xr[inner[i]] - mean) * ((double)xr[inner[i]] - mean);
        double inv = 1.0 / sqrt(sq / (double)ni + (double)j->eps);
        for (int64_t i = 0; i < ni; i++)
            yr[inner[i]] = (float)(((double)xr[inner[i]] - mean) * inv);
    }
}

void lf__batchnorm(const float *x, lf__dims xd, const float *scale, const float *bias,
                   const float *mean, const float *var, float eps, float *y, int nt)
{
    int64_t C = xd.d[1], P = xd.d[2] * xd.d[3], rows = xd.d[0] * C;
    lf__norm_job j = {.x = x, .y = y, .scale = scale, .bias = bias, .mean = mean, .var = var,
                      .eps = eps, .C = C, .P = P};
    lf__parallel(rows, lf__threads_for(rows * P, nt), lf__batchnorm_range, &j);
}

lf_status lf__layernorm(const float *x, lf__dims xd, unsigned mask, float eps, const float *scale,
                        lf__dims sd, const float *bias, lf__dims bd, float *y, int nt)
{
    int64_t *outer, *inner, no, ni;
    lf_status st = lf__mask_offsets(xd, mask, &outer, &no, &inner, &ni);
    if (st)
        return st;
    lf__norm_job j = {.x = x, .y = y, .eps = eps, .outer = outer, .inner = inner, .ni = ni};
    lf__parallel(no, lf__threads_for(no * ni * 4, nt), lf__layernorm_range, &j);
    free(outer);
    free(inner);
    if (scale)
        st = lf__binary(LF__B_MUL, y, xd, scale, sd, y, xd, nt);
    if (!st && bias)
        st = lf__binary(LF__B_ADD, y, xd, bias, bd, y, xd, nt);
    return st;
}

/* BatchNormalization (inference form) and LayerNormalization. Statistics are
 * accumulated in double, in index order, by the thread that owns the row. */
#include <math.h>

#include "planner/exec/kernels.h"

void lf__batchnorm(const float *x, lf__dims xd, const float *scale, const float *bias,
                   const float *mean, const float *var, float eps, float *y, int nt)
{
    int64_t C = xd.d[1], P = xd.d[2] * xd.d[3], rows = xd.d[0] * C;
    nt = lf__threads_for(rows * P, nt);
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
    for (int64_t r = 0; r < rows; r++) {
        int64_t c = r % C;
        float m = mean[c], s = sqrtf(var[c] + eps), g = scale[c], b = bias[c];
        const float *xr = x + r * P;
        float *yr = y + r * P;
        for (int64_t i = 0; i < P; i++)
            yr[i] = (xr[i] - m) / s * g + b;
    }
}

lf_status lf__layernorm(const float *x, lf__dims xd, int axis, float eps, const float *scale,
                        lf__dims sd, const float *bias, lf__dims bd, float *y, int nt)
{
    if (axis < 0 || axis > 3)
        return lf_set_error(LF_EGRAPH, "LayerNormalization axis %d outside the 4 axes", axis);
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < 4; i++)
        *(i < axis ? &outer : &inner) *= xd.d[i];
    int t = lf__threads_for(outer * inner * 4, nt);
#ifdef _OPENMP
#pragma omp parallel for num_threads(t) schedule(static)
#endif
    for (int64_t r = 0; r < outer; r++) {
        const float *xr = x + r * inner;
        float *yr = y + r * inner;
        double sum = 0.0;
        for (int64_t i = 0; i < inner; i++)
            sum += xr[i];
        double mean = sum / (double)inner, sq = 0.0;
        for (int64_t i = 0; i < inner; i++)
            sq += ((double)xr[i] - mean) * ((double)xr[i] - mean);
        double inv = 1.0 / sqrt(sq / (double)inner + (double)eps);
        for (int64_t i = 0; i < inner; i++)
            yr[i] = (float)(((double)xr[i] - mean) * inv);
    }
    lf_status st = LF_OK;
    if (scale)
        st = lf__binary(LF__B_MUL, y, xd, scale, sd, y, xd, nt);
    if (!st && bias)
        st = lf__binary(LF__B_ADD, y, xd, bias, bd, y, xd, nt);
    return st;
}

/* BatchNormalization (inference form) and LayerNormalization. Statistics are
 * accumulated in double, in index order, by the thread that owns the row. */
#include <math.h>
#include <stdlib.h>

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

lf_status lf__layernorm(const float *x, lf__dims xd, unsigned mask, float eps, const float *scale,
                        lf__dims sd, const float *bias, lf__dims bd, float *y, int nt)
{
    int64_t *outer, *inner, no, ni;
    lf_status st = lf__mask_offsets(xd, mask, &outer, &no, &inner, &ni);
    if (st)
        return st;
    int t = lf__threads_for(no * ni * 4, nt);
    (void)t; /* read only by the OpenMP pragma */
#ifdef _OPENMP
#pragma omp parallel for num_threads(t) schedule(static)
#endif
    for (int64_t o = 0; o < no; o++) {
        const float *xr = x + outer[o];
        float *yr = y + outer[o];
        double sum = 0.0;
        for (int64_t i = 0; i < ni; i++)
            sum += xr[inner[i]];
        double mean = sum / (double)ni, sq = 0.0;
        for (int64_t i = 0; i < ni; i++)
            sq += ((double)xr[inner[i]] - mean) * ((double)xr[inner[i]] - mean);
        double inv = 1.0 / sqrt(sq / (double)ni + (double)eps);
        for (int64_t i = 0; i < ni; i++)
            yr[inner[i]] = (float)(((double)xr[inner[i]] - mean) * inv);
    }
    free(outer);
    free(inner);
    if (scale)
        st = lf__binary(LF__B_MUL, y, xd, scale, sd, y, xd, nt);
    if (!st && bias)
        st = lf__binary(LF__B_ADD, y, xd, bias, bd, y, xd, nt);
    return st;
}

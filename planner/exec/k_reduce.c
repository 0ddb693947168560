/* Softmax / LogSoftmax along an axis, and the Reduce* family. Each output
 * element (or softmax row) is owned by one thread and accumulated in index
 * order in double. */
#include <math.h>

#include "planner/exec/kernels.h"

void lf__softmax(const float *x, lf__dims xd, int axis, int flatten_tail, int log_softmax, float *y,
                 int nt)
{
    int64_t outer = 1, len = xd.d[axis], inner = 1;
    for (int i = 0; i < axis; i++)
        outer *= xd.d[i];
    for (int i = axis + 1; i < 4; i++)
        inner *= xd.d[i];
    if (flatten_tail) {
        len *= inner;
        inner = 1;
    }
    nt = lf__threads_for(outer * inner * len * 8, nt);
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
    for (int64_t r = 0; r < outer * inner; r++) {
        const float *xr = x + (r / inner) * len * inner + r % inner;
        float *yr = y + (r / inner) * len * inner + r % inner;
        float m = -INFINITY;
        for (int64_t i = 0; i < len; i++)
            if (xr[i * inner] > m)
                m = xr[i * inner];
        double sum = 0.0;
        for (int64_t i = 0; i < len; i++)
            sum += exp((double)xr[i * inner] - m);
        if (log_softmax) {
            double ls = log(sum);
            for (int64_t i = 0; i < len; i++)
                yr[i * inner] = (float)((double)xr[i * inner] - m - ls);
        } else {
            for (int64_t i = 0; i < len; i++)
                yr[i * inner] = (float)(exp((double)xr[i * inner] - m) / sum);
        }
    }
}

void lf__reduce(lf__reduce_kind k, const float *x, lf__dims xd, unsigned axes_mask, float *y, int nt)
{
    int64_t yd[4], xs[4], rd[4], count = 1;
    xs[3] = 1;
    for (int i = 2; i >= 0; i--)
        xs[i] = xs[i + 1] * xd.d[i + 1];
    for (int i = 0; i < 4; i++) {
        int red = (axes_mask >> i) & 1u;
        yd[i] = red ? 1 : xd.d[i];
        rd[i] = red ? xd.d[i] : 1;
        count *= rd[i];
    }
    int64_t outs = yd[0] * yd[1] * yd[2] * yd[3];
    nt = lf__threads_for(outs * count, nt);
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
    for (int64_t o = 0; o < outs; o++) {
        int64_t i3 = o % yd[3], i2 = (o / yd[3]) % yd[2], i1 = (o / (yd[3] * yd[2])) % yd[1];
        int64_t i0 = o / (yd[3] * yd[2] * yd[1]);
        const float *base = x + i0 * xs[0] + i1 * xs[1] + i2 * xs[2] + i3 * xs[3];
        double acc = k == LF__R_PROD ? 1.0 : (k == LF__R_MAX ? -INFINITY : (k == LF__R_MIN ? INFINITY : 0.0));
        for (int64_t a = 0; a < rd[0]; a++)
            for (int64_t b = 0; b < rd[1]; b++)
                for (int64_t c = 0; c < rd[2]; c++)
                    for (int64_t d = 0; d < rd[3]; d++) {
                        double v = base[a * xs[0] + b * xs[1] + c * xs[2] + d * xs[3]];
                        switch (k) {
                        case LF__R_MAX:
                            acc = v > acc || isnan(v) ? v : acc;
                            break;
                        case LF__R_MIN:
                            acc = v < acc || isnan(v) ? v : acc;
                            break;
                        case LF__R_PROD:
                            acc *= v;
                            break;
                        case LF__R_SUMSQUARE:
                        case LF__R_L2:
                            acc += v * v;
                            break;
                        default:
                            acc += v;
                            break;
                        }
                    }
        if (k == LF__R_MEAN)
            acc = count ? acc / (double)count : NAN;
        else if (k == LF__R_L2)
            acc = sqrt(acc);
        y[o] = (float)acc;
    }
}

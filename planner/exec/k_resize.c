/* Resize (ONNX opset 10-19 semantics, also Upsample): nearest, linear and
 * cubic over any of the four axes, with the coordinate transformation and
 * nearest rounding modes. Interpolation is separable: per axis a table of
 * taps (input index, weight), combined outermost axis last, like ONNX's
 * reference implementation. */
#include <math.h>
#include <stdlib.h>

#include "planner/exec/kernels.h"

#define LF__MAX_TAPS 4

typedef struct lf__axis_taps {
    int n;                /* taps per output index */
    int64_t *idx;         /* out x n input indices */
    float *w;             /* out x n weights */
} lf__axis_taps;

static double lf__source_coord(const lf__resize *p, int64_t o, int64_t in, double scale)
{
    double out_f = scale * (double)in; /* ONNX uses the unrounded output length here */
    switch (p->coord) {
    case LF__COORD_ALIGN_CORNERS:
        return out_f == 1.0 ? 0.0 : (double)o * (double)(in - 1) / (out_f - 1.0);
    case LF__COORD_ASYMMETRIC:
        return (double)o / scale;
    case LF__COORD_PYTORCH_HALF_PIXEL:
        return out_f == 1.0 ? -0.5 : ((double)o + 0.5) / scale - 0.5;
    case LF__COORD_TF_HALF_PIXEL_FOR_NN:
        return ((double)o + 0.5) / scale;
    default:
        return ((double)o + 0.5) / scale - 0.5;
    }
}

static int64_t lf__clamp(int64_t i, int64_t n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

static void lf__cubic_coeffs(double r, double A, double c[4])
{
    double s = 1.0 + r, t = 1.0 - r, u = 2.0 - r;
    c[0] = ((A * s - 5 * A) * s + 8 * A) * s - 4 * A;
    c[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
    c[2] = ((A + 2) * t - (A + 3)) * t * t + 1;
    c[3] = ((A * u - 5 * A) * u + 8 * A) * u - 4 * A;
}

static lf_status lf__make_taps(const lf__resize *p, int64_t in, int64_t out, double scale,
                               lf__axis_taps *t)
{
    int identity = in == out && scale == 1.0;
    t->n = identity || p->mode == LF__RESIZE_NEAREST ? 1 : (p->mode == LF__RESIZE_LINEAR ? 2 : 4);
    t->idx = malloc((size_t)(out * t->n) * sizeof *t->idx);
    t->w = malloc((size_t)(out * t->n) * sizeof *t->w);
    if (!t->idx || !t->w)
        return lf_set_error(LF_ENOMEM, "Resize: out of memory");
    for (int64_t o = 0; o < out; o++) {
        int64_t *ix = t->idx + o * t->n;
        float *w = t->w + o * t->n;
        if (identity) {
            ix[0] = o;
            w[0] = 1.0f;
            continue;
        }
        double x = lf__source_coord(p, o, in, scale), f = floor(x), r = x - f;
        if (p->mode == LF__RESIZE_NEAREST) {
            double v;
            switch (p->nearest) {
            case LF__NEAREST_FLOOR:
                v = f;
                break;
            case LF__NEAREST_CEIL:
                v = ceil(x);
                break;
            case LF__NEAREST_ROUND_PREFER_CEIL:
                v = r >= 0.5 ? f + 1 : f;
                break;
            default:
                v = r > 0.5 ? f + 1 : f;
                break;
            }
            ix[0] = lf__clamp((int64_t)v, in);
            w[0] = 1.0f;
        } else if (p->mode == LF__RESIZE_LINEAR) {
            ix[0] = lf__clamp((int64_t)f, in);
            ix[1] = lf__clamp((int64_t)f + 1, in);
            w[0] = (float)(1.0 - r);
            w[1] = (float)r;
        } else {
            double c[4], sum = 0.0;
            lf__cubic_coeffs(r, p->cubic_a, c);
            for (int k = 0; k < 4; k++) {
                int64_t i = (int64_t)f - 1 + k;
                if (p->exclude_outside && (i < 0 || i >= in))
                    c[k] = 0.0;
                sum += c[k];
                ix[k] = lf__clamp(i, in);
            }
            for (int k = 0; k < 4; k++)
                w[k] = (float)(p->exclude_outside && sum != 0.0 ? c[k] / sum : c[k]);
        }
    }
    return LF_OK;
}

typedef struct lf__resize_job {
    const float *x;
    float *y;
    lf__dims yd;
    const lf__axis_taps *t;
    int64_t X1;
    int64_t X2;
    int64_t X3;
    int64_t W;
} lf__resize_job;

/* Output rows lo..hi-1: separable taps summed axis by axis. */
static void lf__resize_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__resize_job *j = ctx;
    const float *x = j->x;
    float *y = j->y;
    lf__dims yd = j->yd;
    const lf__axis_taps *t = j->t;
    int64_t X1 = j->X1;
    int64_t X2 = j->X2;
    int64_t X3 = j->X3;
    int64_t W = j->W;
    for (int64_t r = lo; r < hi; r++) {
            int64_t o2 = r % yd.d[2], o1 = (r / yd.d[2]) % yd.d[1], o0 = r / (yd.d[2] * yd.d[1]);
            for (int64_t o3 = 0; o3 < W; o3++) {
                float s0 = 0.0f;
                for (int k0 = 0; k0 < t[0].n; k0++) {
                    int64_t i0 = t[0].idx[o0 * t[0].n + k0];
                    float s1 = 0.0f;
                    for (int k1 = 0; k1 < t[1].n; k1++) {
                        int64_t i1 = t[1].idx[o1 * t[1].n + k1];
                        float s2 = 0.0f;
                        for (int k2 = 0; k2 < t[2].n; k2++) {
                            int64_t i2 = t[2].idx[o2 * t[2].n + k2];
                            const float *xr = x + ((i0 * X1 + i1) * X2 + i2) * X3;
                            float s3 = 0.0f;
                            for (int k3 = 0; k3 < t[3].n; k3++)
                                s3 += t[3].w[o3 * t[3].n + k3] * xr[t[3].idx[o3 * t[3].n + k3]];
                            s2 += t[2].w[o2 * t[2].n + k2] * s3;
                        }
                        s1 += t[1].w[o1 * t[1].n + k1] * s2;
                    }
                    s0 += t[0].w[o0 * t[0].n + k0] * s1;
                }
                y[r * W + o3] = s0;
            }
        }
}

lf_status lf__resize_run(const float *x, lf__dims xd, float *y, lf__dims yd, const lf__resize *p,
                         int nt)
{
    lf__axis_taps t[4] = {{0, NULL, NULL}, {0, NULL, NULL}, {0, NULL, NULL}, {0, NULL, NULL}};
    lf_status st = LF_OK;
    for (int a = 0; a < 4 && !st; a++) {
        if (xd.d[a] <= 0 && yd.d[a] > 0)
            st = lf_set_error(LF_EGRAPH, "Resize: axis %d is empty", a);
        else if (!(p->scale[a] > 0.0))
            st = lf_set_error(LF_EGRAPH, "Resize: scale %g of axis %d is not positive", p->scale[a], a);
        else
            st = lf__make_taps(p, xd.d[a], yd.d[a], p->scale[a], &t[a]);
    }
    if (!st) {
        int64_t X1 = xd.d[1], X2 = xd.d[2], X3 = xd.d[3];
        int64_t rows = yd.d[0] * yd.d[1] * yd.d[2], W = yd.d[3];
        int64_t taps = (int64_t)t[0].n * t[1].n * t[2].n * t[3].n;
        lf__resize_job j = {x, y, yd, t, X1, X2, X3, W};
        lf__parallel(rows, lf__threads_for(rows * W * taps, nt), lf__resize_range, &j);
    }
    for (int a = 0; a < 4; a++) {
        free(t[a].idx);
        free(t[a].w);
    }
    return st;
}

/* MaxPool, AveragePool (pads, strides, dilations, ceil mode through the
 * output size, count_include_pad) and the global pools.
 *
 * Max pooling skips NaN as onnxruntime does: its MLAS kernel reduces with
 * std::max(running, x), which never takes a NaN. A window of NaN only (or
 * with no tap inside the input) gives -inf, ONNX's max of nothing. */
#include <math.h>

#include "planner/exec/kernels.h"

static int lf__one(int32_t v) { return v > 0 ? v : 1; }

typedef struct lf__pool_job {
    const float *x;
    lf__dims xd;
    float *y;
    lf__dims yd;
    const lf__pool *p;
    int is_max;
} lf__pool_job;

static void lf__maxpool_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__pool_job *jb = ctx;
    const float *x = jb->x;
    float *y = jb->y;
    lf__dims xd = jb->xd, yd = jb->yd;
    const lf__pool *p = jb->p;
    int64_t H = xd.d[2], W = xd.d[3], OH = yd.d[2], OW = yd.d[3];
    int64_t kh = lf__one(p->kh), kw = lf__one(p->kw), sh = lf__one(p->sh), sw = lf__one(p->sw);
    int64_t dh = lf__one(p->dh), dw = lf__one(p->dw);
    (void)kh; (void)kw; (void)sh; (void)sw; (void)dh; (void)dw;
    for (int64_t pl = lo; pl < hi; pl++) {
        const float *xp = x + pl * H * W;
        float *yp = y + pl * OH * OW;
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                float m = -INFINITY;
                for (int64_t i = 0; i < kh; i++) {
                    int64_t ih = oh * sh - p->pad_top + i * dh;
                    if (ih < 0 || ih >= H)
                        continue;
                    for (int64_t j = 0; j < kw; j++) {
                        int64_t iw = ow * sw - p->pad_left + j * dw;
                        if (iw >= 0 && iw < W) {
                            float v = xp[ih * W + iw];
                            if (v > m)
                                m = v;
                        }
                    }
                }
                yp[oh * OW + ow] = m;
            }
    }
}

void lf__maxpool(const float *x, lf__dims xd, float *y, lf__dims yd, const lf__pool *p, int nt)
{
    int64_t OH = yd.d[2], OW = yd.d[3], planes = yd.d[0] * yd.d[1];
    int64_t kh = lf__one(p->kh), kw = lf__one(p->kw);
    lf__pool_job jb = {x, xd, y, yd, p, 0};
    lf__parallel(planes, lf__threads_for(planes * OH * OW * kh * kw, nt), lf__maxpool_range, &jb);
}

/* Taps of a window along one axis that fall inside [lo, hi). */
static int64_t lf__taps_inside(int64_t start, int64_t k, int64_t d, int64_t lo, int64_t hi)
{
    int64_t n = 0;
    for (int64_t i = 0; i < k; i++)
        n += start + i * d >= lo && start + i * d < hi;
    return n;
}

static void lf__avgpool_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__pool_job *jb = ctx;
    const float *x = jb->x;
    float *y = jb->y;
    lf__dims xd = jb->xd, yd = jb->yd;
    const lf__pool *p = jb->p;
    int64_t H = xd.d[2], W = xd.d[3], OH = yd.d[2], OW = yd.d[3];
    int64_t kh = lf__one(p->kh), kw = lf__one(p->kw), sh = lf__one(p->sh), sw = lf__one(p->sw);
    int64_t dh = lf__one(p->dh), dw = lf__one(p->dw);
    (void)kh; (void)kw; (void)sh; (void)sw; (void)dh; (void)dw;
    for (int64_t pl = lo; pl < hi; pl++) {
        const float *xp = x + pl * H * W;
        float *yp = y + pl * OH * OW;
        for (int64_t oh = 0; oh < OH; oh++) {
            int64_t h0 = oh * sh - p->pad_top;
            /* The divisor counts taps inside the input, or with
             * count_include_pad inside the padded input (never the part
             * of a ceil-mode window that hangs past the padding). */
            int64_t rows = p->count_include_pad ? lf__taps_inside(h0, kh, dh, -p->pad_top, H + p->pad_bottom)
                                                : lf__taps_inside(h0, kh, dh, 0, H);
            int row_inside = h0 >= 0 && h0 + (kh - 1) * dh < H;
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t w0 = ow * sw - p->pad_left;
                int64_t cols = p->count_include_pad
                                   ? lf__taps_inside(w0, kw, dw, -p->pad_left, W + p->pad_right)
                                   : lf__taps_inside(w0, kw, dw, 0, W);
                float s = 0.0f;
                if (row_inside && w0 >= 0 && w0 + (kw - 1) * dw < W) {
                    /* The whole window inside: the same sums in the same
                     * order without a bounds test per tap. */
                    const float *xw = xp + h0 * W + w0;
                    for (int64_t i = 0; i < kh; i++)
                        for (int64_t j = 0; j < kw; j++)
                            s += xw[i * dh * W + j * dw];
                } else {
                    for (int64_t i = 0; i < kh; i++) {
                        int64_t ih = h0 + i * dh;
                        if (ih < 0 || ih >= H)
                            continue;
                        for (int64_t j = 0; j < kw; j++) {
                            int64_t iw = w0 + j * dw;
                            if (iw >= 0 && iw < W)
                                s += xp[ih * W + iw];
                        }
                    }
                }
                yp[oh * OW + ow] = rows * cols > 0 ? s / (float)(rows * cols) : 0.0f;
            }
        }
    }
}

void lf__avgpool(const float *x, lf__dims xd, float *y, lf__dims yd, const lf__pool *p, int nt)
{
    int64_t OH = yd.d[2], OW = yd.d[3], planes = yd.d[0] * yd.d[1];
    int64_t kh = lf__one(p->kh), kw = lf__one(p->kw);
    lf__pool_job jb = {x, xd, y, yd, p, 0};
    lf__parallel(planes, lf__threads_for(planes * OH * OW * kh * kw, nt), lf__avgpool_range, &jb);
}

static void lf__global_pool_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__pool_job *jb = ctx;
    const float *x = jb->x;
    float *y = jb->y;
    int is_max = jb->is_max;
    int64_t P = jb->xd.d[2] * jb->xd.d[3];
    for (int64_t pl = lo; pl < hi; pl++) {
        const float *xp = x + pl * P;
        if (is_max) {
            float m = -INFINITY;
            for (int64_t i = 0; i < P; i++)
                if (xp[i] > m)
                    m = xp[i];
            y[pl] = m;
        } else {
            double s = 0.0;
            for (int64_t i = 0; i < P; i++)
                s += xp[i];
            y[pl] = (float)(s / (double)P);
        }
    }
}

void lf__global_pool(const float *x, lf__dims xd, float *y, int is_max, int nt)
{
    int64_t P = xd.d[2] * xd.d[3], planes = xd.d[0] * xd.d[1];
    lf__pool_job jb = {x, xd, y, xd, NULL, is_max};
    lf__parallel(planes, lf__threads_for(planes * P, nt), lf__global_pool_range, &jb);
}

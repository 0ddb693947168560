/* Conv (ONNX semantics: pads, strides, dilations, groups) with a bias and a
 * fused activation: im2col then lf__sgemm per group, a direct loop for
 * depthwise convs, and no copy at all for 1x1 stride-1 unpadded convs. */
#include <stdlib.h>
#include <string.h>

#include "planner/exec/kernels.h"

static int lf__one(int32_t v) { return v > 0 ? v : 1; }

typedef struct lf__conv_job {
    const float *x, *w, *b;
    float *y;
    int64_t C, H, W, M, OH, OW, P;
    const lf__conv *p;
} lf__conv_job;

/* col[(c*kh + i)*kw + j][oh*OW + ow] = x[c][oh*sh - pt + i*dh][ow*sw - pl + j*dw] or 0,
 * rows lo..hi-1 of it. */
static void lf__im2col_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__conv_job *jb = ctx;
    const lf__conv *p = jb->p;
    int kh = lf__one(p->kh), kw = lf__one(p->kw), sh = lf__one(p->sh), sw = lf__one(p->sw);
    int dh = lf__one(p->dh), dw = lf__one(p->dw);
    int64_t H = jb->H, W = jb->W, OH = jb->OH, OW = jb->OW, P = OH * OW;
    for (int64_t r = lo; r < hi; r++) {
        int64_t c = r / (kh * kw), i = (r / kw) % kh, j = r % kw;
        const float *xc = jb->x + c * H * W;
        float *out = jb->y + r * P;
        for (int64_t oh = 0; oh < OH; oh++) {
            int64_t ih = oh * sh - p->pad_top + i * dh;
            float *o = out + oh * OW;
            if (ih < 0 || ih >= H) {
                for (int64_t ow = 0; ow < OW; ow++)
                    o[ow] = 0.0f;
                continue;
            }
            const float *xr = xc + ih * W;
            int64_t off = j * dw - p->pad_left;
            /* Columns ow in [lo, hi) read inside the row (iw = ow*sw + off in
             * [0, W)); the padding on either side is zeros. The middle is a
             * plain (for stride 1: contiguous) copy without a test per value. */
            int64_t lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
            int64_t hi = W - off <= 0 ? 0 : (W - off + sw - 1) / sw;
            if (hi > OW)
                hi = OW;
            if (lo > hi)
                lo = hi;
            for (int64_t ow = 0; ow < lo; ow++)
                o[ow] = 0.0f;
            if (sw == 1)
                memcpy(o + lo, xr + lo + off, (size_t)(hi - lo) * sizeof *o);
            else
                for (int64_t ow = lo; ow < hi; ow++)
                    o[ow] = xr[ow * sw + off];
            for (int64_t ow = hi; ow < OW; ow++)
                o[ow] = 0.0f;
        }
    }
}

static void lf__im2col(const float *x, int64_t C, int64_t H, int64_t W, const lf__conv *p,
                       int64_t OH, int64_t OW, float *col, int nt)
{
    int64_t rows = C * lf__one(p->kh) * lf__one(p->kw);
    lf__conv_job jb = {.x = x, .y = col, .C = C, .H = H, .W = W, .OH = OH, .OW = OW, .p = p};
    lf__parallel(rows, lf__threads_for(rows * OH * OW, nt), lf__im2col_range, &jb);
}

/* One output channel of a depthwise conv: the kernel's taps summed in the
 * same (i, j) order as the im2col path. */
static void lf__depthwise_channel(const float *x, int64_t H, int64_t W, const float *w,
                                  const lf__conv *p, float *y, int64_t OH, int64_t OW)
{
    int kh = lf__one(p->kh), kw = lf__one(p->kw), sh = lf__one(p->sh), sw = lf__one(p->sw);
    int dh = lf__one(p->dh), dw = lf__one(p->dw);
    for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++) {
            float s = 0.0f;
            for (int i = 0; i < kh; i++) {
                int64_t ih = oh * sh - p->pad_top + (int64_t)i * dh;
                for (int j = 0; j < kw; j++) {
                    int64_t iw = ow * sw - p->pad_left + (int64_t)j * dw;
                    float v = ih >= 0 && ih < H && iw >= 0 && iw < W ? x[ih * W + iw] : 0.0f;
                    s += w[i * kw + j] * v;
                }
            }
            y[oh * OW + ow] = s;
        }
}

/* Depthwise planes lo..hi-1 (of N*M). */
static void lf__depthwise_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__conv_job *j = ctx;
    int64_t khw = (int64_t)lf__one(j->p->kh) * lf__one(j->p->kw);
    for (int64_t r = lo; r < hi; r++)
        lf__depthwise_channel(j->x + r * j->H * j->W, j->H, j->W, j->w + (r % j->M) * khw, j->p,
                              j->y + r * j->P, j->OH, j->OW);
}

/* y[n][m] = act(y[n][m] + b[m]) over planes lo..hi-1 (of N*M) of P values. */
static void lf__bias_act_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__conv_job *j = ctx;
    const lf__unary *act = &j->p->act;
    int64_t P = j->P;
    for (int64_t r = lo; r < hi; r++) {
        float *row = j->y + r * P;
        if (j->b) {
            float bv = j->b[r % j->M];
            for (int64_t i = 0; i < P; i++)
                row[i] += bv;
        }
        if (act->kind != LF__U_IDENTITY)
            lf__unary_apply(act, row, row, P, 1);
    }
}

static void lf__bias_act(float *y, int64_t N, int64_t M, int64_t P, const float *b,
                         const lf__conv *p, int nt)
{
    if (!b && p->act.kind == LF__U_IDENTITY)
        return;
    lf__conv_job j = {.b = b, .y = y, .M = M, .P = P, .p = p};
    lf__parallel(N * M, lf__threads_for(N * M * P, nt), lf__bias_act_range, &j);
}

lf_status lf__conv2d(const float *x, lf__dims xd, const float *w, const float *b, float *y,
                     lf__dims yd, const lf__conv *p, int nt)
{
    int64_t N = xd.d[0], C = xd.d[1], H = xd.d[2], W = xd.d[3];
    int64_t M = yd.d[1], OH = yd.d[2], OW = yd.d[3], P = OH * OW;
    int64_t G = lf__one(p->groups);
    if (C % G || M % G)
        return lf_set_error(LF_EGRAPH, "Conv: %lld input or %lld output channels not divisible by %lld groups",
                            (long long)C, (long long)M, (long long)G);
    int64_t Cg = C / G, Mg = M / G, kh = lf__one(p->kh), kw = lf__one(p->kw);
    int64_t K = Cg * kh * kw;
    if (Cg == 1 && Mg == 1) {
        lf__conv_job j = {.x = x, .w = w, .y = y, .H = H, .W = W, .M = M, .OH = OH, .OW = OW, .P = P, .p = p};
        lf__parallel(N * M, lf__threads_for(N * M * P * kh * kw, nt), lf__depthwise_range, &j);
        lf__bias_act(y, N, M, P, b, p, nt);
        return LF_OK;
    }
    int direct = kh == 1 && kw == 1 && lf__one(p->sh) == 1 && lf__one(p->sw) == 1 && !p->pad_top &&
                 !p->pad_left && OH == H && OW == W;
    float *col = NULL;
    if (!direct && !(col = malloc((size_t)(K * P) * sizeof *col)))
        return lf_set_error(LF_ENOMEM, "Conv: out of memory for a %lldx%lld im2col buffer",
                            (long long)K, (long long)P);
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++) {
            const float *xg = x + (n * C + g * Cg) * H * W;
            const float *bmat = xg;
            if (!direct) {
                lf__im2col(xg, Cg, H, W, p, OH, OW, col, nt);
                bmat = col;
            }
            lf__sgemm(Mg, P, K, w + g * Mg * K, K, bmat, P, y + (n * M + g * Mg) * P, P, 0, nt);
        }
    free(col);
    lf__bias_act(y, N, M, P, b, p, nt);
    return LF_OK;
}

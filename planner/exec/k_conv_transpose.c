/* ConvTranspose (ONNX semantics): per group, the columns W^T * x by
 * lf__sgemm, then scattered into the output (col2im). Each output channel
 * is owned by one thread and gathers its taps in a fixed order. */
#include <stdlib.h>

#include "planner/exec/kernels.h"

static int lf__one(int32_t v) { return v > 0 ? v : 1; }

typedef struct lf__convt_job {
    const float *col, *b;
    float *y;
    const lf__conv *p;
    int64_t n, g, M, Mg, H, W, OH, OW, P;
} lf__convt_job;

/* Output channels lo..hi-1 of group g, image n: bias, then the taps gathered
 * from the columns in a fixed order, then the activation. */
static void lf__col2im_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__convt_job *c = ctx;
    const lf__conv *p = c->p;
    int64_t kh = lf__one(p->kh), kw = lf__one(p->kw);
    int64_t sh = lf__one(p->sh), sw = lf__one(p->sw), dh = lf__one(p->dh), dw = lf__one(p->dw);
    int64_t H = c->H, W = c->W, OH = c->OH, OW = c->OW, P = c->P;
    for (int64_t m = lo; m < hi; m++) {
        float *ym = c->y + (c->n * c->M + c->g * c->Mg + m) * OH * OW;
        float bv = c->b ? c->b[c->g * c->Mg + m] : 0.0f;
        for (int64_t i = 0; i < OH * OW; i++)
            ym[i] = bv;
        for (int64_t i = 0; i < kh; i++)
            for (int64_t j = 0; j < kw; j++) {
                const float *cr = c->col + ((m * kh + i) * kw + j) * P;
                for (int64_t ih = 0; ih < H; ih++) {
                    int64_t oh = ih * sh - p->pad_top + i * dh;
                    if (oh < 0 || oh >= OH)
                        continue;
                    for (int64_t iw = 0; iw < W; iw++) {
                        int64_t ow = iw * sw - p->pad_left + j * dw;
                        if (ow >= 0 && ow < OW)
                            ym[oh * OW + ow] += cr[ih * W + iw];
                    }
                }
            }
        if (p->act.kind != LF__U_IDENTITY)
            lf__unary_apply(&p->act, ym, ym, OH * OW, 1);
    }
}

lf_status lf__conv_transpose2d(const float *x, lf__dims xd, const float *w, const float *b,
                               float *y, lf__dims yd, const lf__conv *p, int nt)
{
    int64_t N = xd.d[0], C = xd.d[1], H = xd.d[2], W = xd.d[3];
    int64_t M = yd.d[1], OH = yd.d[2], OW = yd.d[3];
    int64_t G = lf__one(p->groups), kh = lf__one(p->kh), kw = lf__one(p->kw);
    if (C % G || M % G)
        return lf_set_error(LF_EGRAPH, "ConvTranspose: %lld input or %lld output channels not divisible by %lld groups",
                            (long long)C, (long long)M, (long long)G);
    int64_t Cg = C / G, Mg = M / G, R = Mg * kh * kw, P = H * W;
    /* wt[g] = (w[g*Cg .. (g+1)*Cg) viewed Cg x R)^T, an R x Cg matrix. */
    float *wt = malloc((size_t)(C * R) * sizeof *wt);
    float *col = malloc((size_t)(R * P) * sizeof *col);
    if (!wt || !col) {
        free(wt);
        free(col);
        return lf_set_error(LF_ENOMEM, "ConvTranspose: out of memory for %lldx%lld columns",
                            (long long)R, (long long)P);
    }
    for (int64_t g = 0; g < G; g++)
        for (int64_t c = 0; c < Cg; c++)
            for (int64_t r = 0; r < R; r++)
                wt[g * R * Cg + r * Cg + c] = w[(g * Cg + c) * R + r];
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++) {
            lf__sgemm(R, P, Cg, wt + g * R * Cg, Cg, x + (n * C + g * Cg) * P, P, col, P, 0, nt);
            lf__convt_job j = {col, b, y, p, n, g, M, Mg, H, W, OH, OW, P};
            lf__parallel(Mg, lf__threads_for(R * P, nt), lf__col2im_range, &j);
        }
    free(wt);
    free(col);
    return LF_OK;
}

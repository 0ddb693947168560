/* GraphConv (k-GNN) layer with a per-edge weight, forward and backward
 * (reference/gnn-and-explainers.md §1.1, §1.6). The edge weight w_e is the
 * hook every explainer uses, so its gradient is computed here too. */
#include "explain/layers.h"

#include <string.h>

static float lf__ew(const lf_gconv_edges *e, int32_t k)
{
    return e->w ? e->w[k] : 1.0f;
}

void lf_gconv_aggregate(const lf_gconv_edges *e, int32_t in, const float *h, float *agg)
{
    memset(agg, 0, sizeof(float) * (size_t)e->n_nodes * (size_t)in);
    /* Edges are summed in their stored order: a fixed order keeps float sums
     * reproducible. */
    for (int32_t k = 0; k < e->n_edges; k++) {
        float w = lf__ew(e, k);
        const float *hs = h + (int64_t)e->src[k] * in;
        float *ad = agg + (int64_t)e->dst[k] * in;
        for (int32_t c = 0; c < in; c++)
            ad[c] += w * hs[c];
        if (e->undirected) {
            const float *hd = h + (int64_t)e->dst[k] * in;
            float *as = agg + (int64_t)e->src[k] * in;
            for (int32_t c = 0; c < in; c++)
                as[c] += w * hd[c];
        }
    }
}

void lf_gconv_forward(const lf_gconv *L, int32_t n, const float *h, const float *agg, float *z)
{
    for (int32_t i = 0; i < n; i++)
        memcpy(z + (int64_t)i * L->out, L->b, sizeof(float) * (size_t)L->out);
    lf_mm_nn(n, L->out, L->in, h, L->w_root, z, 1);
    lf_mm_nn(n, L->out, L->in, agg, L->w_rel, z, 1);
}

static float lf__dot(const float *a, const float *b, int32_t n)
{
    float s = 0;
    for (int32_t c = 0; c < n; c++)
        s += a[c] * b[c];
    return s;
}

void lf_gconv_backward(const lf_gconv *L, const lf_gconv *grad, const lf_gconv_edges *e,
                       const float *h, const float *agg, const float *dz, float *dh, float *dew,
                       float *tmp)
{
    int32_t n = e->n_nodes, in = L->in, out = L->out;
    if (grad) {
        lf_mm_tn_acc(n, out, in, h, dz, grad->w_root);
        lf_mm_tn_acc(n, out, in, agg, dz, grad->w_rel);
        for (int32_t i = 0; i < n; i++)
            for (int32_t c = 0; c < out; c++)
                grad->b[c] += dz[(int64_t)i * out + c];
    }
    if (!dh && !dew)
        return;
    /* tmp = A: dL/dagg_i = dz_i W_rel^T; it flows back along every edge into
     * the source node (scaled by w_e) and into w_e (dotted with h_src). */
    if (L->w_rel_t)
        lf_mm_nn(n, in, out, dz, L->w_rel_t, tmp, 0);
    else
        lf_mm_nt(n, out, in, dz, L->w_rel, tmp);
    if (dh && L->w_root_t)
        lf_mm_nn(n, in, out, dz, L->w_root_t, dh, 0);
    else if (dh)
        lf_mm_nt(n, out, in, dz, L->w_root, dh);
    for (int32_t k = 0; k < e->n_edges; k++) {
        int32_t s = e->src[k], d = e->dst[k];
        float w = lf__ew(e, k);
        const float *as = tmp + (int64_t)s * in, *ad = tmp + (int64_t)d * in;
        const float *hs = h + (int64_t)s * in, *hd = h + (int64_t)d * in;
        if (dh) {
            float *gs = dh + (int64_t)s * in;
            for (int32_t c = 0; c < in; c++)
                gs[c] += w * ad[c];
            if (e->undirected) {
                float *gd = dh + (int64_t)d * in;
                for (int32_t c = 0; c < in; c++)
                    gd[c] += w * as[c];
            }
        }
        if (dew) {
            float g = lf__dot(ad, hs, in);
            if (e->undirected)
                g += lf__dot(as, hd, in);
            dew[k] += g;
        }
    }
}

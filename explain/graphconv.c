/* GraphConv (k-GNN) layer with a per-edge weight, forward and backward
 * (reference/gnn-and-explainers.md §1.1, §1.6). The edge weight w_e is the
 * hook every explainer uses, so its gradient is computed here too. */
#include "explain/layers.h"
#include "explain/vector_clones.h"

#include <string.h>

static float lf__ew(const lf_gconv_edges *e, int32_t k)
{
    return e->w ? e->w[k] : 1.0f;
}

LF_VECTOR_CLONES
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

void lf_gconv_forward_root(const lf_gconv *L, int32_t n, const float *h, float *z)
{
    lf_mm_nn_bias(n, L->out, L->in, h, L->w_root, L->b, z);
}

void lf_gconv_forward_rel(const lf_gconv *L, int32_t n, const float *agg, float *z)
{
    lf_mm_nn(n, L->out, L->in, agg, L->w_rel, z, 1);
}

void lf_gconv_forward(const lf_gconv *L, int32_t n, const float *h, const float *agg, float *z)
{
    lf_gconv_forward_root(L, n, h, z);
    lf_gconv_forward_rel(L, n, agg, z);
}

#define LF__INLINE __attribute__((always_inline)) static inline

/* (Inlined into the AVX2 copies of their callers, which is where they run.) */
LF__INLINE float lf__dot(const float *a, const float *b, int32_t n)
{
    float s = 0;
    for (int32_t c = 0; c < n; c++)
        s += a[c] * b[c];
    return s;
}

/* Four of lf__dot at once: s[r] = a[r] . b[r], each summed in ascending c as
 * lf__dot does (the same bits), but as four independent chains, so the
 * additions overlap instead of each waiting for the one before. */
LF__INLINE void lf__dot4(const float *const a[4], const float *const b[4], int32_t n, float s[4])
{
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    const float *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3];
    const float *b0 = b[0], *b1 = b[1], *b2 = b[2], *b3 = b[3];
    for (int32_t c = 0; c < n; c++) {
        s0 += a0[c] * b0[c];
        s1 += a1[c] * b1[c];
        s2 += a2[c] * b2[c];
        s3 += a3[c] * b3[c];
    }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
}

/* dew[k] += tmp_dst . h_src (+ tmp_src . h_dst when undirected) for every
 * edge: two edges' dots per lf__dot4. */
LF__INLINE void lf__edge_grads(const lf_gconv_edges *e, int32_t in, const float *h,
                               const float *tmp, float *dew)
{
    int32_t k = 0;
    if (e->undirected) {
        for (; k + 2 <= e->n_edges; k += 2) {
            const float *a[4], *b[4];
            for (int32_t r = 0; r < 2; r++) {
                int64_t s = e->src[k + r], d = e->dst[k + r];
                a[2 * r] = tmp + d * in;
                b[2 * r] = h + s * in;
                a[2 * r + 1] = tmp + s * in;
                b[2 * r + 1] = h + d * in;
            }
            float g[4];
            lf__dot4(a, b, in, g);
            dew[k] += g[0] + g[1];
            dew[k + 1] += g[2] + g[3];
        }
    } else {
        for (; k + 4 <= e->n_edges; k += 4) {
            const float *a[4], *b[4];
            for (int32_t r = 0; r < 4; r++) {
                a[r] = tmp + (int64_t)e->dst[k + r] * in;
                b[r] = h + (int64_t)e->src[k + r] * in;
            }
            float g[4];
            lf__dot4(a, b, in, g);
            for (int32_t r = 0; r < 4; r++)
                dew[k + r] += g[r];
        }
    }
    for (; k < e->n_edges; k++) {
        int32_t s = e->src[k], d = e->dst[k];
        float g = lf__dot(tmp + (int64_t)d * in, h + (int64_t)s * in, in);
        if (e->undirected)
            g += lf__dot(tmp + (int64_t)s * in, h + (int64_t)d * in, in);
        dew[k] += g;
    }
}

/* tmp = dz W_rel^T and, when asked for, dh = dz W_root^T, without both
 * transposes at hand. */
static void lf__backward_products(const lf_gconv *L, int32_t n, const float *dz, float *dh,
                                  float *tmp)
{
    int32_t in = L->in, out = L->out;
    if (L->w_rel_t)
        lf_mm_nn(n, in, out, dz, L->w_rel_t, tmp, 0);
    else
        lf_mm_nt(n, out, in, dz, L->w_rel, tmp);
    if (dh && L->w_root_t)
        lf_mm_nn(n, in, out, dz, L->w_root_t, dh, 0);
    else if (dh)
        lf_mm_nt(n, out, in, dz, L->w_root, dh);
}

LF_VECTOR_CLONES
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
    if (dh && L->w_rel_t && L->w_root_t)
        lf_mm_nn_pair(n, out, dz, in, L->w_rel_t, tmp, in, L->w_root_t, dh);
    else
        lf__backward_products(L, n, dz, dh, tmp);
    for (int32_t k = 0; dh && k < e->n_edges; k++) {
        int32_t s = e->src[k], d = e->dst[k];
        float w = lf__ew(e, k);
        const float *as = tmp + (int64_t)s * in, *ad = tmp + (int64_t)d * in;
        float *gs = dh + (int64_t)s * in;
        for (int32_t c = 0; c < in; c++)
            gs[c] += w * ad[c];
        if (e->undirected) {
            float *gd = dh + (int64_t)d * in;
            for (int32_t c = 0; c < in; c++)
                gd[c] += w * as[c];
        }
    }
    if (dew)
        lf__edge_grads(e, in, h, tmp, dew);
}

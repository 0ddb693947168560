/* The per-rule models of the GSO filter: forward and backward passes of the
 * two-layer GCN with a per-node sigmoid head and of the logistic-regression
 * baseline (gso.h). The dense kernels, ReLU and the logistic function are
 * explain/'s; every sum runs in a fixed order, so training is reproducible. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain/layers.h"
#include "search/subst/gso/gso_internal.h"

#define F LF_GSO_FEAT_DIM
#define H1 LF_GSO_H1
#define H2 LF_GSO_H2

static const char *const lf__kind_names[] = {"gso", "lr", "none"};

const char *lf_gso_kind_name(lf_gso_kind k)
{
    return (int)k >= 0 && k <= LF_GSO_NONE ? lf__kind_names[k] : "?";
}

lf_gso_kind lf_gso_kind_from_name(const char *s)
{
    for (int k = 0; k <= LF_GSO_NONE; k++)
        if (s && strcmp(s, lf__kind_names[k]) == 0)
            return (lf_gso_kind)k;
    if (s && strcmp(s, "gcn") == 0)
        return LF_GSO_GCN;
    return (lf_gso_kind)(LF_GSO_NONE + 1);
}

int64_t lf_gso_n_params(lf_gso_kind k)
{
    if (k == LF_GSO_GCN)
        return (int64_t)F * H1 + H1 + (int64_t)H1 * H2 + H2 + H2 + 1;
    if (k == LF_GSO_LR)
        return F + 1;
    return 0;
}

int64_t lf_gso_ws_floats(int32_t n)
{
    return (int64_t)(n > 0 ? n : 1) * (5 * H1 + 4 * H2 + 4) + 64;
}

/* Views into a flat parameter (or gradient) vector. */
typedef struct lf__gcn_view {
    float *w1, *b1, *w2, *b2, *w3, *b3;
} lf__gcn_view;

static lf__gcn_view lf__view(const float *p)
{
    lf__gcn_view v;
    v.w1 = (float *)p;
    v.b1 = v.w1 + F * H1;
    v.w2 = v.b1 + H1;
    v.b2 = v.w2 + H1 * H2;
    v.w3 = v.b2 + H2;
    v.b3 = v.w3 + H2;
    return v;
}

/* Workspace of one pass over n nodes. */
typedef struct lf__ws {
    float *z1, *h1, *m2, *z2, *h2, *o, *dh2, *dm2, *dh1, *dz1, *dz2, *d_o;
} lf__ws;

static lf__ws lf__carve(float *ws, int32_t n)
{
    lf__ws w;
    int64_t N = n > 0 ? n : 1;
    w.z1 = ws;
    w.h1 = w.z1 + N * H1;
    w.m2 = w.h1 + N * H1;
    w.dm2 = w.m2 + N * H1;
    w.dh1 = w.dm2 + N * H1; /* also dz1 */
    w.dz1 = w.dh1;
    w.z2 = w.dh1 + N * H1;
    w.h2 = w.z2 + N * H2;
    w.dh2 = w.h2 + N * H2; /* also dz2 */
    w.dz2 = w.dh2;
    w.o = w.dh2 + N * H2 + N * H2;
    w.d_o = w.o + N;
    return w;
}

static void lf__add_bias(int32_t n, int32_t d, const float *b, float *z)
{
    for (int32_t i = 0; i < n; i++)
        for (int32_t c = 0; c < d; c++)
            z[(int64_t)i * d + c] += b[c];
}

/* h = relu(z) * keep (keep: stride `ks`, offset into each row; NULL: 1). */
static void lf__relu_drop(int32_t n, int32_t d, const float *z, const float *keep, int32_t ks, float *h)
{
    lf_relu_forward((int64_t)n * d, z, h);
    if (!keep)
        return;
    for (int32_t i = 0; i < n; i++)
        for (int32_t c = 0; c < d; c++)
            h[(int64_t)i * d + c] *= keep[(int64_t)i * ks + c];
}

/* dz = dh * keep * 1[z > 0], in place in dh. */
static void lf__relu_drop_back(int32_t n, int32_t d, const float *z, const float *keep, int32_t ks, float *dh)
{
    if (keep)
        for (int32_t i = 0; i < n; i++)
            for (int32_t c = 0; c < d; c++)
                dh[(int64_t)i * d + c] *= keep[(int64_t)i * ks + c];
    lf_relu_backward((int64_t)n * d, z, dh, dh);
}

static void lf__colsum_acc(int32_t n, int32_t d, const float *dz, float *gb)
{
    for (int32_t i = 0; i < n; i++)
        for (int32_t c = 0; c < d; c++)
            gb[c] += dz[(int64_t)i * d + c];
}

/* Logits o[n] of the model; fills the workspace for the backward pass. */
static void lf__forward(lf_gso_kind k, const float *params, const lf_gso_graph *gg, const float *keep,
                        lf__ws *w)
{
    int32_t n = gg->n;
    if (k == LF_GSO_LR) {
        lf_mm_nn(n, 1, F, gg->x, params, w->o, 0);
        for (int32_t i = 0; i < n; i++)
            w->o[i] += params[F];
        return;
    }
    lf__gcn_view p = lf__view(params);
    lf_mm_nn(n, H1, F, gg->px, p.w1, w->z1, 0); /* (P X) W1 */
    lf__add_bias(n, H1, p.b1, w->z1);
    lf__relu_drop(n, H1, w->z1, keep, H1 + H2, w->h1);
    lf_gso_propagate(gg, H1, w->h1, w->m2);
    lf_mm_nn(n, H2, H1, w->m2, p.w2, w->z2, 0);
    lf__add_bias(n, H2, p.b2, w->z2);
    lf__relu_drop(n, H2, w->z2, keep ? keep + H1 : NULL, H1 + H2, w->h2);
    lf_mm_nn(n, 1, H2, w->h2, p.w3, w->o, 0);
    for (int32_t i = 0; i < n; i++)
        w->o[i] += p.b3[0];
}

void lf_gso_predict(lf_gso_kind k, const float *params, const lf_gso_graph *gg, float *ws, float *prob)
{
    lf__ws w = lf__carve(ws, gg->n);
    lf__forward(k, params, gg, NULL, &w);
    for (int32_t i = 0; i < gg->n; i++)
        prob[i] = (float)lf_sigmoid(w.o[i]);
}

double lf_gso_loss_grad(lf_gso_kind k, const float *params, const lf_gso_graph *gg,
                        const uint8_t *labels, double pos_weight, const float *drop_mask,
                        float *grad, float *ws)
{
    int32_t n = gg->n;
    if (n == 0)
        return 0;
    lf__ws w = lf__carve(ws, n);
    lf__forward(k, params, gg, k == LF_GSO_GCN ? drop_mask : NULL, &w);
    double loss = 0;
    for (int32_t i = 0; i < n; i++) {
        double o = w.o[i], y = labels[i] ? 1.0 : 0.0, wt = labels[i] ? pos_weight : 1.0;
        /* softplus(o) - y o, computed stably */
        loss += wt * ((o > 0 ? o : 0) - o * y + log1p(exp(-fabs(o))));
        w.d_o[i] = (float)(wt * (lf_sigmoid(o) - y) / n);
    }
    loss /= n;
    if (!grad)
        return loss;
    if (k == LF_GSO_LR) {
        lf_mm_tn_acc(n, 1, F, gg->x, w.d_o, grad);
        lf__colsum_acc(n, 1, w.d_o, grad + F);
        return loss;
    }
    lf__gcn_view p = lf__view(params), g = lf__view(grad);
    lf_mm_tn_acc(n, 1, H2, w.h2, w.d_o, g.w3);
    lf__colsum_acc(n, 1, w.d_o, g.b3);
    lf_mm_nt(n, 1, H2, w.d_o, p.w3, w.dh2);
    lf__relu_drop_back(n, H2, w.z2, drop_mask ? drop_mask + H1 : NULL, H1 + H2, w.dh2);
    lf_mm_tn_acc(n, H2, H1, w.m2, w.dz2, g.w2);
    lf__colsum_acc(n, H2, w.dz2, g.b2);
    lf_mm_nt(n, H2, H1, w.dz2, p.w2, w.dm2);
    lf_gso_propagate(gg, H1, w.dm2, w.dh1); /* P is symmetric: P^T dM = P dM */
    lf__relu_drop_back(n, H1, w.z1, drop_mask, H1 + H2, w.dh1);
    lf_mm_tn_acc(n, H1, F, gg->px, w.dz1, g.w1);
    lf__colsum_acc(n, H1, w.dz1, g.b1);
    return loss;
}

/* ---- sets of models ------------------------------------------------------------ */

lf_status lf_gso_set_init(lf_gso_set *s, lf_gso_kind kind, int32_t n, const char *const *names)
{
    memset(s, 0, sizeof *s);
    if (kind != LF_GSO_GCN && kind != LF_GSO_LR)
        return lf_set_error(LF_EINVAL, "gso: no models of kind '%s'", lf_gso_kind_name(kind));
    s->kind = kind;
    int64_t np = lf_gso_n_params(kind);
    size_t nn = (size_t)(n > 0 ? n : 1);
    s->names = calloc(nn, sizeof *s->names);
    s->params = calloc(nn * (size_t)np, sizeof(float));
    s->positives = calloc(nn, sizeof *s->positives);
    if (!s->names || !s->params || !s->positives) {
        lf_gso_set_destroy(s);
        return lf_set_error(LF_ENOMEM, "gso: out of memory for %d models", (int)n);
    }
    s->n = n;
    for (int32_t i = 0; i < n; i++) {
        size_t len = strlen(names[i]);
        if (!(s->names[i] = malloc(len + 1))) {
            lf_gso_set_destroy(s);
            return lf_set_error(LF_ENOMEM, "gso: out of memory for %d models", (int)n);
        }
        memcpy(s->names[i], names[i], len + 1);
    }
    return LF_OK;
}

void lf_gso_set_destroy(lf_gso_set *s)
{
    if (!s)
        return;
    for (int32_t i = 0; s->names && i < s->n; i++)
        free(s->names[i]);
    free(s->names);
    free(s->params);
    free(s->positives);
    memset(s, 0, sizeof *s);
}

float *lf_gso_set_params(const lf_gso_set *s, int32_t i)
{
    return s->params + (int64_t)i * lf_gso_n_params(s->kind);
}

int32_t lf_gso_set_find(const lf_gso_set *s, const char *name)
{
    for (int32_t i = 0; i < s->n; i++)
        if (strcmp(s->names[i], name) == 0)
            return i;
    return -1;
}

void lf__gso_never(lf_gso_kind k, float *p)
{
    int64_t np = lf_gso_n_params(k);
    memset(p, 0, (size_t)np * sizeof *p);
    p[np - 1] = -8.0f;
}

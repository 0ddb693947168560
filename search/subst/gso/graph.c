/* GSO node features and the GCN's normalized adjacency (see gso.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/features.h"
#include "explain/layers.h"
#include "planner/optable.h"
#include "planner/util/hashmap.h"
#include "search/subst/gso/gso.h"

_Static_assert(LF_FEAT_N_TYPES + 7 == LF_GSO_FEAT_DIM, "the GSO schema is 23 op types + 7 attributes");

static const char *const lf__attr_names[7] = {"kernel", "stride", "pad", "out_c", "readers", "same_pad", "fused_act"};

const char *lf_gso_feat_name(int32_t col)
{
    if (col < 0 || col >= LF_GSO_FEAT_DIM)
        return NULL;
    if (col < LF_FEAT_N_TYPES)
        return lf_feat_name(col);
    return lf__attr_names[col - LF_FEAT_N_TYPES];
}

uint64_t lf_gso_schema_hash(void)
{
    char buf[64];
    snprintf(buf, sizeof buf, "lf-gso-features-v1/%d", LF_GSO_FEAT_DIM);
    uint64_t h = lf_hash_string(buf);
    for (int32_t c = 0; c < LF_GSO_FEAT_DIM; c++) {
        const char *n = lf_gso_feat_name(c);
        h = lf_hash_bytes(n, strlen(n) + 1, h);
    }
    return h;
}

static float lf__log2p(double v)
{
    return (float)log2(1.0 + (v > 0 ? v : 0));
}

/* Raw features of op v into row. */
static void lf__features(const lf_graph *g, int32_t v, float *row)
{
    const lf_op *op = &g->ops[v];
    memset(row, 0, sizeof(float) * LF_GSO_FEAT_DIM);
    if (op->type == LF_OP_INPUT) { /* no type column: the all-zero one-hot */
        row[LF_FEAT_N_TYPES + 3] = lf__log2p((double)op->out.c);
        row[LF_FEAT_N_TYPES + 4] = lf__log2p((double)op->n_consumers);
        return;
    }
    row[lf_feat_type_column(op->type)] = 1.0f;
    int windowed = lf_op_has(op->type, LF_OPF_SLIDING_WINDOW);
    float *a = row + LF_FEAT_N_TYPES;
    if (windowed) {
        a[0] = lf__log2p((double)lf_subst_field_of(g, v, LF_SF_KH));
        a[1] = lf__log2p((double)lf_subst_field_of(g, v, LF_SF_SH));
        a[2] = lf__log2p((double)lf_subst_field_of(g, v, LF_SF_PAD_T));
        a[5] = (float)(lf_subst_field_of(g, v, LF_SF_SAME_PAD) != 0);
    }
    a[3] = lf__log2p((double)op->out.c);
    a[4] = lf__log2p((double)op->n_consumers);
    a[6] = (float)(op->attr.act != LF_ACT_NONE);
}

void lf_gso_graph_destroy(lf_gso_graph *gg)
{
    if (!gg)
        return;
    free(gg->x);
    free(gg->src);
    free(gg->dst);
    free(gg->ew);
    free(gg->self);
    free(gg->px);
    memset(gg, 0, sizeof *gg);
}

static int lf__cmp_edge(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return *x < *y ? -1 : *x > *y;
}

lf_status lf_gso_graph_from(lf_gso_graph *gg, int32_t n, const float *x, int32_t n_edges,
                            const int32_t *src, const int32_t *dst)
{
    memset(gg, 0, sizeof *gg);
    if (n < 0 || n_edges < 0)
        return lf_set_error(LF_EINVAL, "gso: negative node or edge count");
    size_t nn = (size_t)(n ? n : 1), ne = (size_t)(n_edges ? n_edges : 1);
    int64_t *key = malloc(ne * sizeof *key);
    gg->x = malloc(nn * LF_GSO_FEAT_DIM * sizeof(float));
    gg->px = malloc(nn * LF_GSO_FEAT_DIM * sizeof(float));
    gg->self = malloc(nn * sizeof(float));
    gg->src = malloc(ne * sizeof(int32_t));
    gg->dst = malloc(ne * sizeof(int32_t));
    gg->ew = malloc(ne * sizeof(float));
    int32_t *deg = calloc(nn, sizeof *deg);
    if (!key || !gg->x || !gg->px || !gg->self || !gg->src || !gg->dst || !gg->ew || !deg) {
        free(key);
        free(deg);
        lf_gso_graph_destroy(gg);
        return lf_set_error(LF_ENOMEM, "gso: out of memory for a %d-node graph", (int)n);
    }
    gg->n = n;
    memcpy(gg->x, x, (size_t)n * LF_GSO_FEAT_DIM * sizeof(float));
    /* distinct unordered pairs, in a fixed (sorted) order */
    int32_t m = 0;
    for (int32_t e = 0; e < n_edges; e++) {
        int32_t a = src[e], b = dst[e];
        if (a < 0 || b < 0 || a >= n || b >= n) {
            free(key);
            free(deg);
            lf_gso_graph_destroy(gg);
            return lf_set_error(LF_EINVAL, "gso: edge %d (%d -> %d) outside the %d nodes", (int)e, (int)a,
                                (int)b, (int)n);
        }
        if (a == b)
            continue;
        int32_t lo = a < b ? a : b, hi = a < b ? b : a;
        key[m++] = (int64_t)lo * n + hi;
    }
    qsort(key, (size_t)m, sizeof *key, lf__cmp_edge);
    int32_t k = 0;
    for (int32_t e = 0; e < m; e++) {
        if (e > 0 && key[e] == key[e - 1])
            continue;
        gg->src[k] = (int32_t)(key[e] / n);
        gg->dst[k] = (int32_t)(key[e] % n);
        deg[gg->src[k]]++;
        deg[gg->dst[k]]++;
        k++;
    }
    gg->n_edges = k;
    for (int32_t i = 0; i < n; i++)
        gg->self[i] = 1.0f / (float)(1 + deg[i]);
    for (int32_t e = 0; e < k; e++)
        gg->ew[e] = (float)(1.0 / sqrt((double)(1 + deg[gg->src[e]]) * (double)(1 + deg[gg->dst[e]])));
    free(key);
    free(deg);
    lf_gso_propagate(gg, LF_GSO_FEAT_DIM, gg->x, gg->px);
    return LF_OK;
}

lf_status lf_gso_graph_init(lf_gso_graph *gg, const lf_graph *g)
{
    memset(gg, 0, sizeof *gg);
    int32_t n = g->n_ops, ne = 0;
    for (int32_t v = 0; v < n; v++)
        ne += g->ops[v].n_inputs;
    float *x = malloc((size_t)(n > 0 ? n : 1) * LF_GSO_FEAT_DIM * sizeof *x);
    int32_t *src = malloc((size_t)(ne > 0 ? ne : 1) * sizeof *src), *dst = malloc((size_t)(ne > 0 ? ne : 1) * sizeof *dst);
    lf_status st = LF_OK;
    if (!x || !src || !dst) {
        st = lf_set_error(LF_ENOMEM, "gso: out of memory for features of '%s'", g->name);
    } else {
        int32_t e = 0;
        for (int32_t v = 0; v < n; v++) {
            lf__features(g, v, x + (int64_t)v * LF_GSO_FEAT_DIM);
            for (int32_t i = 0; i < g->ops[v].n_inputs; i++) {
                src[e] = g->ops[v].inputs[i];
                dst[e++] = v;
            }
        }
        st = lf_gso_graph_from(gg, n, x, ne, src, dst);
    }
    free(x);
    free(src);
    free(dst);
    return st;
}

void lf_gso_propagate(const lf_gso_graph *gg, int32_t d, const float *h, float *out)
{
    lf_gconv_edges e = {gg->n, gg->n_edges, gg->src, gg->dst, gg->ew, 1};
    lf_gconv_aggregate(&e, d, h, out);
    for (int32_t i = 0; i < gg->n; i++) {
        float s = gg->self[i];
        const float *hi = h + (int64_t)i * d;
        float *oi = out + (int64_t)i * d;
        for (int32_t c = 0; c < d; c++)
            oi[c] += s * hi[c];
    }
}

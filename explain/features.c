/* Node features of fusion groups (see features.h for the column list). */
#include "explain/features.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "planner/optable.h"
#include "planner/util/hashmap.h"

static const char *const lf__numeric_names[] = {
    "log2_in_c", "log2_in_h", "log2_in_w", "log2_out_c", "log2_out_h", "log2_out_w",
    "log2_kernel", "log2_stride", "log2_weight_bytes", "log2_beta", "out_leaves", "reads_outside",
};

const char *lf_feat_name(int32_t col)
{
    if (col < 0 || col >= LF_FEAT_DIM)
        return NULL;
    if (col < LF_FEAT_N_TYPES)
        return lf_op_info_of((lf_op_type)(col + 1))->name;
    return lf__numeric_names[col - LF_FEAT_N_TYPES];
}

/* Types after Identity share a v1 column: the op table's features_as
 * (0 for a v1 type, which has its own). test_optable checks that every type
 * lands on a v1 column. */
int32_t lf_feat_type_column(lf_op_type t)
{
    const lf_op_info *info = lf_op_info_of(t);
    lf_op_type like = info && info->features_as != LF_OP_INPUT ? info->features_as : t;
    return (int32_t)like - 1;
}

int lf_feat_is_numeric(int32_t col)
{
    return col >= LF_FEAT_IN_C && col <= LF_FEAT_BETA;
}

uint64_t lf_feat_schema_hash(void)
{
    char buf[64];
    snprintf(buf, sizeof buf, "lf-features-v%d/%d", LF_FEAT_VERSION, LF_FEAT_DIM);
    uint64_t h = lf_hash_string(buf);
    for (int32_t c = 0; c < LF_FEAT_DIM; c++) {
        const char *n = lf_feat_name(c);
        h = lf_hash_bytes(n, strlen(n) + 1, h);
    }
    return h;
}

static float lf__log2p(double v)
{
    return (float)log2(1.0 + (v > 0 ? v : 0));
}

void lf_feat_set_beta(float *x, int32_t n, int64_t beta)
{
    for (int32_t i = 0; i < n; i++)
        x[(int64_t)i * LF_FEAT_DIM + LF_FEAT_BETA] = lf__log2p((double)beta);
}

lf_status lf_feat_group(const lf_graph *g, const lf_bitset *group, int32_t weight_bytes,
                        int64_t beta, float *x)
{
    int32_t row = 0;
    for (int32_t v = lf_bitset_next(group, 0); v >= 0; v = lf_bitset_next(group, v + 1), row++) {
        if (v >= g->n_ops)
            return lf_set_error(LF_EINVAL, "group holds op %d of a %d-op graph", (int)v,
                                (int)g->n_ops);
        const lf_op *op = &g->ops[v];
        if (op->type == LF_OP_INPUT)
            return lf_set_error(LF_EINVAL, "group holds graph input '%s'", op->name);
        float *r = x + (int64_t)row * LF_FEAT_DIM;
        memset(r, 0, sizeof(float) * LF_FEAT_DIM);
        r[lf_feat_type_column(op->type)] = 1.0f;
        /* The largest input carries the feature map the group must window;
         * the second operand of a broadcast Mul is a C x 1 x 1 vector. */
        const lf_shape *in = NULL;
        int reads_outside = 0;
        for (int32_t k = 0; k < op->n_inputs; k++) {
            const lf_shape *s = &g->ops[op->inputs[k]].out;
            if (!in || s->c * s->h * s->w > in->c * in->h * in->w)
                in = s;
            if (!lf_bitset_test(group, op->inputs[k]))
                reads_outside = 1;
        }
        if (in) {
            r[LF_FEAT_IN_C] = lf__log2p((double)in->c);
            r[LF_FEAT_IN_H] = lf__log2p((double)in->h);
            r[LF_FEAT_IN_W] = lf__log2p((double)in->w);
        }
        r[LF_FEAT_OUT_C] = lf__log2p((double)op->out.c);
        r[LF_FEAT_OUT_H] = lf__log2p((double)op->out.h);
        r[LF_FEAT_OUT_W] = lf__log2p((double)op->out.w);
        int32_t k = 1, s = 1, p = 0;
        lf_op_row_window(op, &k, &s, &p);
        r[LF_FEAT_KERNEL] = lf__log2p((double)k);
        r[LF_FEAT_STRIDE] = lf__log2p((double)s);
        r[LF_FEAT_WEIGHT_BYTES] = lf__log2p((double)lf_weight_bytes(g, v, weight_bytes));
        r[LF_FEAT_BETA] = lf__log2p((double)beta);
        int leaves = op->is_output;
        for (int32_t c = 0; c < op->n_consumers && !leaves; c++)
            if (!lf_bitset_test(group, op->consumers[c]))
                leaves = 1;
        r[LF_FEAT_OUT_LEAVES] = (float)leaves;
        r[LF_FEAT_READS_OUTSIDE] = (float)reads_outside;
    }
    return LF_OK;
}

int32_t lf_feat_group_edges(const lf_graph *g, const lf_bitset *group, int32_t *src, int32_t *dst,
                            int32_t cap)
{
    /* Local index of op v = number of group members below v; computed by a
     * running count since members are visited in ascending order. */
    int32_t n_edges = 0, local = 0;
    int32_t n = lf_bitset_count(group);
    int32_t ids_small[64];
    int32_t *ids = ids_small;
    if (n > 64) {
        ids = malloc(sizeof(int32_t) * (size_t)n);
        if (!ids)
            return lf_set_error(LF_ENOMEM, "out of memory listing group edges");
    }
    lf_bitset_to_list(group, ids);
    for (int32_t v = lf_bitset_next(group, 0); v >= 0; v = lf_bitset_next(group, v + 1), local++) {
        const lf_op *op = &g->ops[v];
        for (int32_t k = 0; k < op->n_inputs; k++) {
            int32_t u = op->inputs[k];
            if (!lf_bitset_test(group, u))
                continue;
            int dup = 0;
            for (int32_t j = 0; j < k; j++)
                if (op->inputs[j] == u)
                    dup = 1;
            if (dup)
                continue;
            /* binary search for u's local index */
            int32_t lo = 0, hi = n - 1;
            while (lo < hi) {
                int32_t mid = (lo + hi) / 2;
                if (ids[mid] < u)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (n_edges < cap) {
                src[n_edges] = lo;
                dst[n_edges] = local;
            }
            n_edges++;
        }
    }
    if (ids != ids_small)
        free(ids);
    return n_edges;
}

void lf_feat_norm_identity(lf_feat_norm *nm)
{
    for (int32_t c = 0; c < LF_FEAT_DIM; c++) {
        nm->mean[c] = 0.0f;
        nm->std[c] = 1.0f;
    }
}

void lf_feat_norm_fit(lf_feat_norm *nm, const float *x, int64_t n)
{
    lf_feat_norm_identity(nm);
    if (n <= 0)
        return;
    for (int32_t c = 0; c < LF_FEAT_DIM; c++) {
        if (!lf_feat_is_numeric(c))
            continue;
        double s = 0, s2 = 0;
        for (int64_t i = 0; i < n; i++)
            s += x[i * LF_FEAT_DIM + c];
        double mean = s / (double)n;
        for (int64_t i = 0; i < n; i++) {
            double d = x[i * LF_FEAT_DIM + c] - mean;
            s2 += d * d;
        }
        double sd = sqrt(s2 / (double)n);
        nm->mean[c] = (float)mean;
        nm->std[c] = sd < 1e-6 ? 1.0f : (float)sd;
    }
}

void lf_feat_norm_apply(const lf_feat_norm *nm, float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        for (int32_t c = 0; c < LF_FEAT_DIM; c++)
            x[i * LF_FEAT_DIM + c] = (x[i * LF_FEAT_DIM + c] - nm->mean[c]) / nm->std[c];
}

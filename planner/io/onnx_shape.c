/* One shape rule per supported ONNX op (any rank up to 8). Opset
 * differences (attributes that became inputs: Split, Slice, Squeeze,
 * Unsqueeze, Pad, ReduceMean, Resize/Upsample) are resolved here. */
#include <math.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_ops.h"
#include "planner/util/checked.h"

static void lf__set(lf__ox_graph *g, const lf__ox_node *n, int32_t k, const int64_t *dims, int32_t rank,
                    int32_t elem)
{
    if (k >= n->n_out || n->out[k] < 0)
        return;
    lf__ox_value *v = &g->values[n->out[k]];
    v->rank = rank;
    memcpy(v->dims, dims, (size_t)rank * sizeof *dims);
    v->elem_type = elem;
}

/* Squeeze/Unsqueeze/Reduce* axes from the attribute (old opsets) or input 1. */
static int lf__axes(const lf__ox_graph *g, const lf__ox_node *n, int64_t *axes, int32_t *cnt)
{
    return lf__ox_int_list(g, n, "axes", 1, axes, LF__OX_MAX_RANK, cnt);
}

lf_status lf__ox_shape_node(lf__ox_graph *g, int32_t i)
{
    lf__ox_node *n = &g->nodes[i];
    const char *op = n->op;
    const lf__ox_op_rule *rule = lf__ox_op_rule_of(op);
    if (!rule)
        return lf__ox_fail(g, i, LF_EUNSUPPORTED, "op type %s is not supported", op);
    if (n->n_in < rule->min_in || (rule->max_in >= 0 && n->n_in > rule->max_in))
        return lf__ox_fail(g, i, LF_EPARSE, "%d inputs (expected %d to %d)", (int)n->n_in, (int)rule->min_in,
                           (int)rule->max_in);
    for (int32_t k = 0; k < rule->min_in; k++)
        if (n->in[k] < 0)
            return lf__ox_fail(g, i, LF_EPARSE, "required input %d is empty", (int)k);
    if (n->n_out < 1 || n->out[0] < 0)
        return lf__ox_fail(g, i, LF_EPARSE, "no output");
    const lf__ox_value *x = &g->values[n->in[0] >= 0 ? n->in[0] : 0];
    int32_t r = x->rank, cnt = 0;
    int64_t d[LF__OX_MAX_RANK], buf[64];
    memcpy(d, x->dims, sizeof d);
    int32_t et = x->elem_type ? x->elem_type : LF__OX_FLOAT;
    switch (rule->shape) {
    case LF__OX_SH_SAME:
        for (int32_t k = 0; k < n->n_out; k++)
            lf__set(g, n, k, d, r, et);
        if (strcmp(op, "LayerNormalization") == 0 && n->n_out > 1) { /* Mean, InvStdDev: normalised axes 1 */
            int32_t a = lf__ox_axis(lf__ox_attr_int(n, "axis", -1), r);
            for (int32_t k = a < 0 ? r : a; k < r; k++)
                d[k] = 1;
            for (int32_t k = 1; k < n->n_out; k++)
                lf__set(g, n, k, d, r, LF__OX_FLOAT);
        }
        return LF_OK;
    case LF__OX_SH_EINSUM:
        return lf__ox_einsum_shape(g, i);
    case LF__OX_SH_ATTENTION:
        return lf__ox_attention_shape(g, i);
    case LF__OX_SH_DEPTH_SPACE:
        return lf__ox_depth_space_shape(g, i);
    case LF__OX_SH_BROADCAST:
        for (int32_t k = 1; k < n->n_in; k++) {
            const lf__ox_value *y = &g->values[n->in[k]];
            int64_t o[LF__OX_MAX_RANK];
            int32_t ro;
            if (!lf__ox_broadcast(d, r, y->dims, y->rank, o, &ro))
                return lf__ox_fail(g, i, LF_EGRAPH, "input %d does not broadcast with input 0", (int)k);
            memcpy(d, o, sizeof o);
            r = ro;
        }
        if (strcmp(op, "Where") == 0)
            et = g->values[n->in[1]].elem_type;
        if (strcmp(op, "Equal") == 0 || strcmp(op, "Less") == 0 || strcmp(op, "Greater") == 0)
            et = LF__OX_BOOL;
        lf__set(g, n, 0, d, r, et);
        return LF_OK;
    case LF__OX_SH_RANGE: {
        /* max(ceil((limit - start) / delta), 0) elements; only constant
         * operands can be shaped (and the node is then folded) */
        double v[3];
        for (int32_t k = 0; k < 3; k++) {
            const lf__ox_data *c = lf__ox_const_of(g, n, k);
            if (!c || c->count != 1)
                return lf__ox_fail(g, i, LF_EUNSUPPORTED, "start, limit and delta must be constant scalars");
            v[k] = c->i ? (double)c->i[0] : (double)c->f[0];
        }
        if (v[2] == 0 || v[2] != v[2])
            return lf__ox_fail(g, i, LF_EGRAPH, "delta is zero");
        double len = ceil((v[1] - v[0]) / v[2]);
        if (!(len < 2147483648.0))
            return lf__ox_fail(g, i, LF_ERANGE, "the range is too long");
        int64_t dims1[1] = {len > 0 ? (int64_t)len : 0};
        lf__set(g, n, 0, dims1, 1, et);
        return LF_OK;
    }
    case LF__OX_SH_EXPAND: {
        /* numpy broadcast of the input against the constant target shape */
        int64_t o[LF__OX_MAX_RANK];
        int32_t ro;
        if (lf__ox_int_list(g, n, NULL, 1, buf, LF__OX_MAX_RANK, &cnt) != 1)
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "the target shape is not constant");
        for (int32_t k = 0; k < cnt; k++)
            if (buf[k] < 0)
                return lf__ox_fail(g, i, LF_EGRAPH, "target shape has a negative dimension");
        if (!lf__ox_broadcast(d, r, buf, cnt, o, &ro))
            return lf__ox_fail(g, i, LF_EGRAPH, "input does not broadcast to the target shape");
        if (lf__ox_count(o, ro) < 0)
            return lf__ox_fail(g, i, LF_ERANGE, "the expanded tensor is too large");
        lf__set(g, n, 0, o, ro, et);
        return LF_OK;
    }
    case LF__OX_SH_WINDOW: {
        lf__ox_window_geom w;
        int is_t = strcmp(op, "ConvTranspose") == 0;
        lf_status st = lf__ox_window(g, i, x->dims, r, is_t, &w);
        if (st != LF_OK)
            return st;
        if (strcmp(op, "Conv") == 0 || is_t) {
            const lf__ox_value *wt = &g->values[n->in[1]];
            int64_t groups = lf__ox_attr_int(n, "group", 1);
            if (wt->rank != r || groups <= 0 || x->dims[1] % groups)
                return lf__ox_fail(g, i, LF_EGRAPH, "weight of rank %d or group %lld does not fit the input",
                                   (int)wt->rank, (long long)groups);
            int64_t grouped; /* weight channels times groups: both come from the file */
            if (!lf_mul_i64(wt->dims[1], groups, &grouped))
                return lf__ox_fail(g, i, LF_ERANGE, "weight channels %lld times group %lld overflow",
                                   (long long)wt->dims[1], (long long)groups);
            if (!is_t && grouped != x->dims[1])
                return lf__ox_fail(g, i, LF_EGRAPH, "weight expects %lld input channels, the input has %lld",
                                   (long long)grouped, (long long)x->dims[1]);
            if (is_t && wt->dims[0] != x->dims[1])
                return lf__ox_fail(g, i, LF_EGRAPH, "weight expects %lld input channels, the input has %lld",
                                   (long long)wt->dims[0], (long long)x->dims[1]);
            d[1] = is_t ? grouped : wt->dims[0];
        }
        for (int32_t k = 0; k < w.spatial; k++)
            d[k + 2] = w.out[k];
        for (int32_t k = 0; k < n->n_out; k++)
            lf__set(g, n, k, d, r, et);
        return LF_OK;
    }
    case LF__OX_SH_GLOBAL_POOL:
        if (r < 3)
            return lf__ox_fail(g, i, LF_EGRAPH, "input of rank %d (at least 3)", (int)r);
        for (int32_t k = 2; k < r; k++)
            d[k] = 1;
        lf__set(g, n, 0, d, r, et);
        return LF_OK;
    case LF__OX_SH_GEMM: {
        const lf__ox_value *b = &g->values[n->in[1]];
        if (r != 2 || b->rank != 2)
            return lf__ox_fail(g, i, LF_EGRAPH, "Gemm needs two matrices, got ranks %d and %d", (int)r,
                               (int)b->rank);
        int ta = lf__ox_attr_int(n, "transA", 0) != 0, tb = lf__ox_attr_int(n, "transB", 0) != 0;
        int64_t m = x->dims[ta], ka = x->dims[1 - ta], kb = b->dims[tb], nn = b->dims[1 - tb];
        if (ka != kb)
            return lf__ox_fail(g, i, LF_EGRAPH, "inner dimensions %lld and %lld differ", (long long)ka,
                               (long long)kb);
        int64_t o[2] = {m, nn};
        lf__set(g, n, 0, o, 2, et);
        return LF_OK;
    }
    case LF__OX_SH_MATMUL: {
        const lf__ox_value *b = &g->values[n->in[1]];
        if (r < 1 || b->rank < 1)
            return lf__ox_fail(g, i, LF_EGRAPH, "MatMul of scalars");
        int64_t a2[LF__OX_MAX_RANK + 1], b2[LF__OX_MAX_RANK + 1], o[LF__OX_MAX_RANK];
        int32_t ra = r, rb = b->rank, ro;
        memcpy(a2, x->dims, sizeof x->dims);
        memcpy(b2, b->dims, sizeof b->dims);
        if (ra == 1) { a2[1] = a2[0]; a2[0] = 1; ra = 2; }
        if (rb == 1) { b2[1] = 1; rb = 2; }
        if (a2[ra - 1] != b2[rb - 2])
            return lf__ox_fail(g, i, LF_EGRAPH, "inner dimensions %lld and %lld differ",
                               (long long)a2[ra - 1], (long long)b2[rb - 2]);
        if (!lf__ox_broadcast(a2, ra - 2, b2, rb - 2, o, &ro))
            return lf__ox_fail(g, i, LF_EGRAPH, "batch dimensions do not broadcast");
        if (x->rank > 1)
            o[ro++] = a2[ra - 2];
        if (b->rank > 1)
            o[ro++] = b2[rb - 1];
        lf__set(g, n, 0, o, ro, et);
        return LF_OK;
    }
    case LF__OX_SH_FLATTEN: {
        int64_t axis = lf__ox_attr_int(n, "axis", 1);
        if (axis < 0)
            axis += r;
        if (axis < 0 || axis > r)
            return lf__ox_fail(g, i, LF_EPARSE, "axis %lld out of range", (long long)axis);
        int64_t o[2] = {lf__ox_count(d, (int32_t)axis), lf__ox_count(d + axis, r - (int32_t)axis)};
        lf__set(g, n, 0, o, 2, et);
        return LF_OK;
    }
    case LF__OX_SH_RESHAPE: {
        int64_t t[LF__OX_MAX_RANK];
        if (lf__ox_int_list(g, n, "shape", 1, t, LF__OX_MAX_RANK, &cnt) != 1)
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "the target shape is not a constant (static shapes only)");
        int64_t total = lf__ox_count(d, r), known = 1;
        int32_t infer = -1;
        int allowzero = lf__ox_attr_int(n, "allowzero", 0) != 0;
        for (int32_t k = 0; k < cnt; k++) {
            if (t[k] == 0 && !allowzero) {
                if (k >= r)
                    return lf__ox_fail(g, i, LF_EGRAPH, "target dimension %d copies a missing input dimension", (int)k);
                t[k] = d[k];
            }
            if (t[k] == -1) {
                if (infer >= 0)
                    return lf__ox_fail(g, i, LF_EGRAPH, "two inferred (-1) dimensions");
                infer = k;
            } else if (t[k] < 0) {
                return lf__ox_fail(g, i, LF_EGRAPH, "negative target dimension %lld", (long long)t[k]);
            } else {
                if (t[k] && known > INT64_MAX / t[k])
                    return lf__ox_fail(g, i, LF_ERANGE, "target shape overflows");
                known *= t[k];
            }
        }
        if (infer >= 0)
            t[infer] = known ? total / known : 0;
        if (lf__ox_count(t, cnt) != total)
            return lf__ox_fail(g, i, LF_EGRAPH, "cannot reshape %lld elements to %lld", (long long)total,
                               (long long)lf__ox_count(t, cnt));
        lf__set(g, n, 0, t, cnt, et);
        return LF_OK;
    }
    case LF__OX_SH_TRANSPOSE: {
        int64_t perm[LF__OX_MAX_RANK], o[LF__OX_MAX_RANK];
        int seen[LF__OX_MAX_RANK] = {0};
        if (lf__ox_int_list(g, n, "perm", -1, perm, LF__OX_MAX_RANK, &cnt) != 1) {
            cnt = r;
            for (int32_t k = 0; k < r; k++)
                perm[k] = r - 1 - k;
        }
        if (cnt != r)
            return lf__ox_fail(g, i, LF_EGRAPH, "perm of length %d for rank %d", (int)cnt, (int)r);
        for (int32_t k = 0; k < r; k++) {
            if (perm[k] < 0 || perm[k] >= r || seen[perm[k]]++)
                return lf__ox_fail(g, i, LF_EGRAPH, "perm is not a permutation");
            o[k] = d[perm[k]];
        }
        lf__set(g, n, 0, o, r, et);
        return LF_OK;
    }
    case LF__OX_SH_CONCAT: {
        int32_t axis = lf__ox_axis(lf__ox_attr_int(n, "axis", 1), r);
        if (axis < 0)
            return lf__ox_fail(g, i, LF_EPARSE, "axis out of range");
        for (int32_t k = 1; k < n->n_in; k++) {
            const lf__ox_value *y = &g->values[n->in[k]];
            if (y->rank != r)
                return lf__ox_fail(g, i, LF_EGRAPH, "input %d has rank %d, input 0 rank %d", (int)k,
                                   (int)y->rank, (int)r);
            for (int32_t q = 0; q < r; q++)
                if (q != axis && y->dims[q] != x->dims[q])
                    return lf__ox_fail(g, i, LF_EGRAPH, "input %d differs from input 0 in dimension %d", (int)k,
                                       (int)q);
            if (y->dims[axis] > INT64_MAX - d[axis])
                return lf__ox_fail(g, i, LF_ERANGE, "concatenated dimension overflows");
            d[axis] += y->dims[axis];
        }
        lf__set(g, n, 0, d, r, et);
        return LF_OK;
    }
    case LF__OX_SH_SPLIT: {
        int32_t axis = lf__ox_axis(lf__ox_attr_int(n, "axis", 0), r);
        if (axis < 0)
            return lf__ox_fail(g, i, LF_EPARSE, "axis out of range");
        int got = lf__ox_int_list(g, n, "split", 1, buf, 64, &cnt);
        if (got < 0)
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "split sizes are not constant");
        if (got == 0) {
            if (n->n_out > 64)
                return lf__ox_fail(g, i, LF_ERANGE, "more than 64 outputs");
            int64_t parts = n->n_out, each = lf_ceil_div_i64(d[axis], parts), done;
            for (int32_t k = 0; k < n->n_out; k++) {
                int64_t left = lf_mul_i64(k, each, &done) && done < d[axis] ? d[axis] - done : 0;
                buf[k] = left < each ? left : each;
            }
            cnt = n->n_out;
        }
        /* Each size is checked against the axis before adding, so a hostile file with sizes
           near INT64_MAX cannot overflow the sum. */
        int64_t sum = 0;
        for (int32_t k = 0; k < cnt && sum >= 0; k++)
            sum = buf[k] >= 0 && buf[k] <= d[axis] - sum ? sum + buf[k] : -1;
        if (cnt != n->n_out || sum != d[axis])
            return lf__ox_fail(g, i, LF_EGRAPH, "split sizes do not add up to %lld over %d outputs",
                               (long long)d[axis], (int)n->n_out);
        for (int32_t k = 0; k < cnt; k++) {
            int64_t o[LF__OX_MAX_RANK];
            memcpy(o, d, sizeof o);
            o[axis] = buf[k];
            lf__set(g, n, k, o, r, et);
        }
        return LF_OK;
    }
    case LF__OX_SH_SLICE: {
        lf__ox_slice sl;
        lf_status st = lf__ox_slice_params(g, i, &sl);
        if (st != LF_OK)
            return st;
        for (int32_t k = 0; k < r; k++)
            d[k] = sl.len[k];
        lf__set(g, n, 0, d, r, et);
        return LF_OK;
    }
    case LF__OX_SH_SQUEEZE: {
        int64_t axes[LF__OX_MAX_RANK], o[LF__OX_MAX_RANK];
        int drop[LF__OX_MAX_RANK] = {0};
        int32_t ro = 0;
        if (lf__axes(g, n, axes, &cnt) < 0)
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "axes are not constant");
        for (int32_t k = 0; k < cnt; k++) {
            int32_t a = lf__ox_axis(axes[k], r);
            if (a < 0 || d[a] != 1)
                return lf__ox_fail(g, i, LF_EGRAPH, "axis %lld is not a dimension of size 1", (long long)axes[k]);
            drop[a] = 1;
        }
        for (int32_t k = 0; k < r; k++)
            if (!(cnt ? drop[k] : d[k] == 1))
                o[ro++] = d[k];
        lf__set(g, n, 0, o, ro, et);
        return LF_OK;
    }
    case LF__OX_SH_UNSQUEEZE: {
        int64_t axes[LF__OX_MAX_RANK], o[LF__OX_MAX_RANK];
        int add[LF__OX_MAX_RANK] = {0};
        if (lf__axes(g, n, axes, &cnt) != 1 || r + cnt > LF__OX_MAX_RANK)
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "axes missing, not constant or rank above %d",
                               LF__OX_MAX_RANK);
        int32_t ro = r + cnt;
        for (int32_t k = 0; k < cnt; k++) {
            int32_t a = lf__ox_axis(axes[k], ro);
            if (a < 0 || add[a]++)
                return lf__ox_fail(g, i, LF_EGRAPH, "axis %lld out of range or repeated", (long long)axes[k]);
        }
        for (int32_t k = 0, q = 0; k < ro; k++)
            o[k] = add[k] ? 1 : d[q++];
        lf__set(g, n, 0, o, ro, et);
        return LF_OK;
    }
    case LF__OX_SH_PAD: {
        int64_t pads[2 * LF__OX_MAX_RANK];
        if (lf__ox_int_list(g, n, "pads", 1, pads, 2 * LF__OX_MAX_RANK, &cnt) != 1 || cnt != 2 * r)
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "pads missing, not constant or of the wrong length");
        if (n->n_in > 3 && n->in[3] >= 0)
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "the axes input is not supported");
        for (int32_t k = 0; k < r; k++) {
            /* the range first: pads of 2^62 once overflowed the sum */
            if (pads[k] < -LF__OX_MAX_WINDOW || pads[k] > LF__OX_MAX_WINDOW ||
                pads[k + r] < -LF__OX_MAX_WINDOW || pads[k + r] > LF__OX_MAX_WINDOW ||
                !lf_add_i64(d[k], pads[k] + pads[k + r], &d[k]) || d[k] <= 0)
                return lf__ox_fail(g, i, LF_ERANGE, "padding out of range");
        }
        lf__set(g, n, 0, d, r, et);
        return LF_OK;
    }
    case LF__OX_SH_RESIZE: {
        double scales[LF__OX_MAX_RANK];
        int64_t sizes[LF__OX_MAX_RANK];
        lf_status st = lf__ox_resize_params(g, i, scales, sizes);
        if (st != LF_OK)
            return st;
        lf__set(g, n, 0, sizes, r, et);
        return LF_OK;
    }
    case LF__OX_SH_SHAPE: {
        int64_t start = lf__ox_attr_int(n, "start", 0), end = lf__ox_attr_int(n, "end", r);
        if (start < 0) start += r;
        if (end < 0) end += r;
        if (start < 0) start = 0;
        if (end > r) end = r;
        int64_t o[1] = {end > start ? end - start : 0};
        lf__set(g, n, 0, o, strcmp(op, "Size") == 0 ? 0 : 1, LF__OX_INT64); /* Size: a scalar */
        return LF_OK;
    }
    case LF__OX_SH_GATHER: {
        const lf__ox_value *ix = &g->values[n->in[1]];
        int32_t axis = lf__ox_axis(lf__ox_attr_int(n, "axis", 0), r);
        if (axis < 0 || r - 1 + ix->rank > LF__OX_MAX_RANK)
            return lf__ox_fail(g, i, LF_EPARSE, "axis out of range");
        int64_t o[LF__OX_MAX_RANK];
        int32_t ro = 0;
        for (int32_t k = 0; k < axis; k++)
            o[ro++] = d[k];
        for (int32_t k = 0; k < ix->rank; k++)
            o[ro++] = ix->dims[k];
        for (int32_t k = axis + 1; k < r; k++)
            o[ro++] = d[k];
        lf__set(g, n, 0, o, ro, et);
        return LF_OK;
    }
    case LF__OX_SH_CONSTANT_OF_SHAPE: {
        int64_t t[LF__OX_MAX_RANK];
        if (lf__ox_int_list(g, n, NULL, 0, t, LF__OX_MAX_RANK, &cnt) != 1)
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "shape is not constant");
        lf__set(g, n, 0, t, cnt, LF__OX_FLOAT);
        return LF_OK;
    }
    case LF__OX_SH_REDUCE: {
        int64_t axes[LF__OX_MAX_RANK], o[LF__OX_MAX_RANK];
        int red[LF__OX_MAX_RANK] = {0};
        int32_t ro = 0;
        int keep = lf__ox_attr_int(n, "keepdims", 1) != 0;
        if (lf__axes(g, n, axes, &cnt) < 0)
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "axes are not constant");
        if (cnt == 0 && lf__ox_attr_int(n, "noop_with_empty_axes", 0))
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "noop_with_empty_axes is not supported");
        for (int32_t k = 0; k < cnt; k++) {
            int32_t a = lf__ox_axis(axes[k], r);
            if (a < 0)
                return lf__ox_fail(g, i, LF_EGRAPH, "axis %lld out of range", (long long)axes[k]);
            red[a] = 1;
        }
        for (int32_t k = 0; k < r; k++) {
            if (cnt == 0 || red[k]) {
                if (keep)
                    o[ro++] = 1;
            } else {
                o[ro++] = d[k];
            }
        }
        lf__set(g, n, 0, o, ro, et);
        return LF_OK;
    }
    }
    return lf__ox_fail(g, i, LF_EUNSUPPORTED, "op type %s is not supported", op);
}

/* Constant folding: a node whose inputs are all constants with values (for
 * Shape: whose input has a known shape) is evaluated here once and its
 * outputs become constants, so shape chains (Shape -> Gather/Slice -> Concat
 * -> Reshape/Resize) and weight preprocessing never reach the IR. Values are
 * float32 or int64, as onnx_tensor.c reads them. */
#include <math.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_ops.h"

/* Offset into a tensor of dims (rank r, right-aligned against the output's
 * rank ro) for output multi-index idx, with size-1 axes broadcast. */
static int64_t lf__bcast_offset(const int64_t *idx, int32_t ro, const int64_t *dims, int32_t r)
{
    int64_t off = 0;
    for (int32_t k = 0; k < r; k++) {
        int64_t ik = idx[ro - r + k];
        off = off * dims[k] + (dims[k] == 1 ? 0 : ik);
    }
    return off;
}

static void lf__next_index(int64_t *idx, const int64_t *dims, int32_t r)
{
    for (int32_t k = r - 1; k >= 0; k--) {
        if (++idx[k] < dims[k])
            return;
        idx[k] = 0;
    }
}

static double lf__get(const lf__ox_data *d, int64_t k) { return d->f ? (double)d->f[k] : (double)d->i[k]; }

/* Integer Div as ONNX defines it (truncating); a zero divisor gives 0 and
 * INT64_MIN / -1 saturates instead of trapping. */
static double lf__ox_int_div(double a, double b)
{
    int64_t x = lf__ox_f2i(a), y = lf__ox_f2i(b);
    if (y == 0)
        return 0;
    if (y == -1)
        return x == INT64_MIN ? (double)INT64_MAX : (double)-x;
    return (double)(x / y);
}

/* ONNX Mod: fmod = 1 is C's fmod (sign of the dividend); fmod = 0, the
 * integer form torch writes for %, takes the sign of the divisor. A zero
 * divisor gives 0 rather than a trap. */
static double lf__mod(double a, double b, int c_fmod)
{
    if (b == 0)
        return 0;
    double r = fmod(a, b);
    if (!c_fmod && r != 0 && (r < 0) != (b < 0))
        r += b;
    return r;
}

static double lf__binary(const char *op, double a, double b)
{
    switch (op[0]) {
    case 'A': return a + b;
    case 'S': return a - b;
    case 'M': return op[1] == 'u' ? a * b : op[1] == 'a' ? (a > b ? a : b) : (a < b ? a : b);
    case 'D': return a / b;
    case 'P': return pow(a, b);
    case 'E': return a == b;
    default: return 0;
    }
}

static double lf__unary(const char *op, double a)
{
    if (!strcmp(op, "Relu")) return a > 0 ? a : 0;
    if (!strcmp(op, "Sigmoid")) return 1 / (1 + exp(-a));
    if (!strcmp(op, "Tanh")) return tanh(a);
    if (!strcmp(op, "Erf")) return erf(a);
    if (!strcmp(op, "Exp")) return exp(a);
    if (!strcmp(op, "Sqrt")) return sqrt(a);
    if (!strcmp(op, "Neg")) return -a;
    if (!strcmp(op, "Reciprocal")) return 1 / a;
    if (!strcmp(op, "Floor")) return floor(a);
    if (!strcmp(op, "Ceil")) return ceil(a);
    if (!strcmp(op, "Abs")) return fabs(a);
    if (!strcmp(op, "Not")) return a == 0;
    return a; /* Identity, Cast, Flatten, Reshape, Squeeze, Unsqueeze */
}

static int lf__int_type(int32_t t) { return t != LF__OX_FLOAT && t != LF__OX_DOUBLE && t != LF__OX_FLOAT16; }

lf_status lf__ox_fold_node(lf__ox_graph *g, int32_t i)
{
    lf__ox_node *n = &g->nodes[i];
    const lf__ox_op_rule *rule = lf__ox_op_rule_of(n->op);
    if (!rule || !rule->foldable || n->n_out != 1 || n->out[0] < 0)
        return LF_OK;
    const char *op = n->op;
    int is_shape = strcmp(op, "Shape") == 0 || strcmp(op, "Size") == 0;
    int any_float = 0;
    for (int32_t k = 0; k < n->n_in; k++) {
        if (n->in[k] < 0)
            continue;
        if (!is_shape && !lf__ox_const_of(g, n, k))
            return LF_OK;
        if (!is_shape && g->values[n->in[k]].data.f && !(strcmp(op, "Where") == 0 && k == 0) &&
            !(rule->shape == LF__OX_SH_EXPAND && k == 1))
            any_float = 1;
    }
    lf__ox_value *out = &g->values[n->out[0]];
    if (out->is_output && !g->const_graph)
        return LF_OK; /* a graph output stays computed by its node */
    int is_int = !any_float;
    if (strcmp(op, "Cast") == 0)
        is_int = lf__int_type((int32_t)lf__ox_attr_int(n, "to", LF__OX_FLOAT));
    if (strcmp(op, "Equal") == 0 || strcmp(op, "Not") == 0 || is_shape)
        is_int = 1;
    if (strcmp(op, "ConstantOfShape") == 0) {
        const lf__ox_attr *va = lf__ox_attr_get(n, "value");
        is_int = va && va->tensor >= 0 && g->values[va->tensor].data.i;
    }
    lf__ox_data d;
    lf_status st = lf__ox_data_alloc(g, &d, is_int, out->rank, out->dims);
    if (st != LF_OK)
        return lf__ox_fail(g, i, st, "folding: %s", lf_last_error());
    const lf__ox_data *a = n->in[0] >= 0 ? &g->values[n->in[0]].data : NULL;
    int64_t idx[LF__OX_MAX_RANK] = {0};
#define LF__PUT(k, v) (is_int ? (void)(d.i[k] = lf__ox_f2i(v)) : (void)(d.f[k] = (float)(v)))
    if (is_shape && strcmp(op, "Size") == 0) {
        d.i[0] = lf__ox_count(g->values[n->in[0]].dims, g->values[n->in[0]].rank);
    } else if (is_shape) {
        const lf__ox_value *x = &g->values[n->in[0]];
        int64_t start = lf__ox_attr_int(n, "start", 0);
        if (start < 0)
            start += x->rank;
        if (start < 0)
            start = 0;
        for (int64_t k = 0; k < d.count; k++)
            d.i[k] = x->dims[start + k];
    } else if (rule->shape == LF__OX_SH_BROADCAST) {
        for (int64_t k = 0; k < d.count; k++, lf__next_index(idx, out->dims, out->rank)) {
            double acc = 0;
            for (int32_t q = 0; q < n->n_in; q++) {
                const lf__ox_data *x = &g->values[n->in[q]].data;
                double v = lf__get(x, lf__bcast_offset(idx, out->rank, x->dims, x->rank));
                if (strcmp(op, "Where") == 0) {
                    if (q == 0) {
                        const lf__ox_data *y = &g->values[n->in[v != 0 ? 1 : 2]].data;
                        acc = lf__get(y, lf__bcast_offset(idx, out->rank, y->dims, y->rank));
                        break;
                    }
                } else if (q == 0) {
                    acc = v;
                } else if (strcmp(op, "Mod") == 0) {
                    acc = lf__mod(acc, v, lf__ox_attr_int(n, "fmod", 0) != 0);
                } else if (is_int && op[0] == 'D') {
                    acc = lf__ox_int_div(acc, v);
                } else {
                    acc = lf__binary(op, acc, v);
                }
            }
            LF__PUT(k, acc);
        }
    } else if (rule->shape == LF__OX_SH_TRANSPOSE) {
        int64_t perm[LF__OX_MAX_RANK], strides[LF__OX_MAX_RANK];
        int32_t cnt, r = a->rank;
        if (lf__ox_int_list(g, n, "perm", -1, perm, LF__OX_MAX_RANK, &cnt) != 1)
            for (int32_t k = 0; k < r; k++)
                perm[k] = r - 1 - k;
        int64_t stride = 1;
        for (int32_t k = r - 1; k >= 0; stride *= a->dims[k], k--)
            strides[k] = stride;
        for (int64_t k = 0; k < d.count; k++, lf__next_index(idx, out->dims, out->rank)) {
            int64_t off = 0;
            for (int32_t q = 0; q < r; q++)
                off += idx[q] * strides[perm[q]];
            LF__PUT(k, lf__get(a, off));
        }
    } else if (rule->shape == LF__OX_SH_CONCAT) {
        int32_t axis = lf__ox_axis(lf__ox_attr_int(n, "axis", 1), out->rank);
        int64_t outer = lf__ox_count(out->dims, axis), k = 0;
        for (int64_t o = 0; o < outer; o++)
            for (int32_t q = 0; q < n->n_in; q++) {
                const lf__ox_data *x = &g->values[n->in[q]].data;
                int64_t inner = lf__ox_count(x->dims + axis, x->rank - axis);
                for (int64_t e = 0; e < inner; e++, k++)
                    LF__PUT(k, lf__get(x, o * inner + e));
            }
    } else if (rule->shape == LF__OX_SH_SLICE) {
        lf__ox_slice sl;
        if ((st = lf__ox_slice_params(g, i, &sl)) != LF_OK) {
            lf__ox_data_free(&d);
            return st;
        }
        for (int64_t k = 0; k < d.count; k++, lf__next_index(idx, out->dims, out->rank)) {
            int64_t off = 0;
            for (int32_t q = 0; q < a->rank; q++)
                off = off * a->dims[q] + sl.start[q] + idx[q] * sl.step[q];
            LF__PUT(k, lf__get(a, off));
        }
    } else if (rule->shape == LF__OX_SH_GATHER) {
        const lf__ox_data *ix = &g->values[n->in[1]].data;
        int32_t axis = lf__ox_axis(lf__ox_attr_int(n, "axis", 0), a->rank);
        int64_t outer = lf__ox_count(a->dims, axis), inner = lf__ox_count(a->dims + axis + 1, a->rank - axis - 1);
        int64_t k = 0;
        for (int64_t o = 0; o < outer; o++)
            for (int64_t j = 0; j < ix->count; j++) {
                int64_t at = lf__ox_f2i(lf__get(ix, j));
                if (at < 0)
                    at += a->dims[axis];
                if (at < 0 || at >= a->dims[axis]) {
                    lf__ox_data_free(&d);
                    return lf__ox_fail(g, i, LF_EGRAPH, "index %lld out of range", (long long)at);
                }
                for (int64_t e = 0; e < inner; e++, k++)
                    LF__PUT(k, lf__get(a, (o * a->dims[axis] + at) * inner + e));
            }
    } else if (strcmp(op, "ScatterND") == 0) {
        /* a copy of data with the slices that indices name replaced by updates */
        const lf__ox_value *ixv = &g->values[n->in[1]], *up = &g->values[n->in[2]];
        const lf__ox_data *ix = &ixv->data, *u = &up->data;
        int32_t kk = ixv->rank > 0 ? (int32_t)ixv->dims[ixv->rank - 1] : -1;
        const char *red = lf__ox_attr_str(n, "reduction", "none");
        if (kk < 1 || kk > a->rank || strcmp(red, "none") != 0) {
            lf__ox_data_free(&d);
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "indices of last dimension %d (rank %d) or reduction %s",
                               (int)kk, (int)a->rank, red);
        }
        int64_t slice = lf__ox_count(a->dims + kk, a->rank - kk), tuples = ix->count / kk;
        if (slice < 0 || u->count != tuples * slice) {
            lf__ox_data_free(&d);
            return lf__ox_fail(g, i, LF_EGRAPH, "updates hold %lld values, indices and data ask for %lld",
                               (long long)u->count, (long long)(tuples * slice));
        }
        for (int64_t k = 0; k < d.count; k++)
            LF__PUT(k, lf__get(a, k));
        for (int64_t j = 0; j < tuples; j++) {
            int64_t at = 0;
            for (int32_t t = 0; t < kk; t++) {
                int64_t q = lf__ox_f2i(lf__get(ix, j * kk + t));
                if (q < 0)
                    q += a->dims[t];
                if (q < 0 || q >= a->dims[t]) {
                    lf__ox_data_free(&d);
                    return lf__ox_fail(g, i, LF_EGRAPH, "index %lld out of range on axis %d", (long long)q, (int)t);
                }
                at = at * a->dims[t] + q;
            }
            for (int64_t e = 0; e < slice; e++)
                LF__PUT(at * slice + e, lf__get(u, j * slice + e));
        }
    } else if (rule->shape == LF__OX_SH_RANGE) {
        double start = lf__get(a, 0), delta = lf__get(&g->values[n->in[2]].data, 0);
        for (int64_t k = 0; k < d.count; k++)
            LF__PUT(k, start + (double)k * delta);
    } else if (rule->shape == LF__OX_SH_EXPAND) {
        const lf__ox_value *x = &g->values[n->in[0]];
        for (int64_t k = 0; k < d.count; k++, lf__next_index(idx, out->dims, out->rank))
            LF__PUT(k, lf__get(a, lf__bcast_offset(idx, out->rank, x->dims, x->rank)));
    } else if (strcmp(op, "Trilu") == 0) {
        /* a causal mask built from constants (torch.triu / tril on int64
         * ones): element (row, col) of the last two axes kept where
         * col - row >= k (upper) or <= k (lower), else 0 */
        const lf__ox_value *x = &g->values[n->in[0]];
        const lf__ox_data *kd = n->n_in > 1 && n->in[1] >= 0 ? &g->values[n->in[1]].data : NULL;
        int64_t k = kd && kd->count == 1 ? lf__ox_f2i(lf__get(kd, 0)) : 0;
        int upper = lf__ox_attr_int(n, "upper", 1) != 0;
        if (x->rank < 2 || (kd && kd->count != 1)) {
            lf__ox_data_free(&d);
            return lf__ox_fail(g, i, LF_EGRAPH, "input of rank %d (at least 2) or k not a scalar", (int)x->rank);
        }
        for (int64_t e = 0; e < d.count; e++, lf__next_index(idx, out->dims, out->rank)) {
            int64_t diff = idx[x->rank - 1] - idx[x->rank - 2];
            int keep = upper ? diff >= k : diff <= k;
            LF__PUT(e, keep ? lf__get(a, e) : 0.0);
        }
    } else if (rule->shape == LF__OX_SH_CONSTANT_OF_SHAPE) {
        const lf__ox_attr *va = lf__ox_attr_get(n, "value");
        double v = va && va->tensor >= 0 && g->values[va->tensor].data.count > 0
                       ? lf__get(&g->values[va->tensor].data, 0) : 0.0;
        for (int64_t k = 0; k < d.count; k++)
            LF__PUT(k, v);
    } else {
        /* unary element-wise and pure reshapes: same element order */
        for (int64_t k = 0; k < d.count; k++)
            LF__PUT(k, lf__unary(op, lf__get(a, k)));
    }
#undef LF__PUT
    lf__ox_set_const(g, n->out[0], &d);
    out->producer = -1;
    n->dead = 1;
    lf__ox_note(g, LF_ONNX_FOLD_CONSTANTS, i, "all inputs constant, evaluated once");
    return LF_OK;
}

/* The table of ONNX ops the importer reads, and the decoding of Slice and
 * Resize parameters across opsets. */
#include <math.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_ops.h"

static const lf__ox_op_rule lf__rules[] = {
    /* element-wise and shape-preserving */
    {"Relu", 1, 1, LF__OX_SH_SAME, 1},          {"Sigmoid", 1, 1, LF__OX_SH_SAME, 1},
    {"HardSigmoid", 1, 1, LF__OX_SH_SAME, 0},   {"HardSwish", 1, 1, LF__OX_SH_SAME, 0},
    {"Tanh", 1, 1, LF__OX_SH_SAME, 1},          {"Erf", 1, 1, LF__OX_SH_SAME, 1},
    {"Exp", 1, 1, LF__OX_SH_SAME, 1},           {"Sqrt", 1, 1, LF__OX_SH_SAME, 1},
    {"Neg", 1, 1, LF__OX_SH_SAME, 1},           {"Reciprocal", 1, 1, LF__OX_SH_SAME, 1},
    {"Floor", 1, 1, LF__OX_SH_SAME, 1},         {"Ceil", 1, 1, LF__OX_SH_SAME, 1},
    {"Abs", 1, 1, LF__OX_SH_SAME, 1},           {"Identity", 1, 1, LF__OX_SH_SAME, 1},
    {"Dropout", 1, 3, LF__OX_SH_SAME, 0},       {"Clip", 1, 3, LF__OX_SH_SAME, 0},
    {"LeakyRelu", 1, 1, LF__OX_SH_SAME, 0},     {"Gelu", 1, 1, LF__OX_SH_SAME, 0},
    {"Softmax", 1, 1, LF__OX_SH_SAME, 0},       {"LayerNormalization", 2, 3, LF__OX_SH_SAME, 0},
    {"BatchNormalization", 5, 5, LF__OX_SH_SAME, 0}, {"Cast", 1, 1, LF__OX_SH_SAME, 1},
    {"PRelu", 2, 2, LF__OX_SH_SAME, 0},         {"Log", 1, 1, LF__OX_SH_SAME, 0},
    {"Softplus", 1, 1, LF__OX_SH_SAME, 0},      {"Elu", 1, 1, LF__OX_SH_SAME, 0},
    {"LogSoftmax", 1, 1, LF__OX_SH_SAME, 0},
    /* broadcasting */
    {"Add", 2, 2, LF__OX_SH_BROADCAST, 1},      {"Sub", 2, 2, LF__OX_SH_BROADCAST, 1},
    {"Mul", 2, 2, LF__OX_SH_BROADCAST, 1},      {"Div", 2, 2, LF__OX_SH_BROADCAST, 1},
    {"Pow", 2, 2, LF__OX_SH_BROADCAST, 1},      {"Max", 1, -1, LF__OX_SH_BROADCAST, 1},
    {"Min", 1, -1, LF__OX_SH_BROADCAST, 1},     {"Sum", 1, -1, LF__OX_SH_BROADCAST, 0},
    {"Equal", 2, 2, LF__OX_SH_BROADCAST, 1},    {"Where", 3, 3, LF__OX_SH_BROADCAST, 1},
    {"Mod", 2, 2, LF__OX_SH_BROADCAST, 1},     {"Range", 3, 3, LF__OX_SH_RANGE, 1},
    {"ScatterND", 3, 3, LF__OX_SH_SAME, 1},     {"Not", 1, 1, LF__OX_SH_SAME, 1},
    /* windows and matrices */
    {"Conv", 2, 3, LF__OX_SH_WINDOW, 0},        {"ConvTranspose", 2, 3, LF__OX_SH_WINDOW, 0},
    {"MaxPool", 1, 1, LF__OX_SH_WINDOW, 0},     {"AveragePool", 1, 1, LF__OX_SH_WINDOW, 0},
    {"GlobalAveragePool", 1, 1, LF__OX_SH_GLOBAL_POOL, 0},
    {"GlobalMaxPool", 1, 1, LF__OX_SH_GLOBAL_POOL, 0},
    {"Gemm", 2, 3, LF__OX_SH_GEMM, 0},          {"MatMul", 2, 2, LF__OX_SH_MATMUL, 0},
    /* layout */
    {"Flatten", 1, 1, LF__OX_SH_FLATTEN, 1},    {"Reshape", 1, 2, LF__OX_SH_RESHAPE, 1},
    {"Transpose", 1, 1, LF__OX_SH_TRANSPOSE, 1}, {"Concat", 1, -1, LF__OX_SH_CONCAT, 1},
    {"Split", 1, 2, LF__OX_SH_SPLIT, 0},        {"Slice", 1, 5, LF__OX_SH_SLICE, 1},
    {"Squeeze", 1, 2, LF__OX_SH_SQUEEZE, 1},    {"Unsqueeze", 1, 2, LF__OX_SH_UNSQUEEZE, 1},
    {"Pad", 1, 4, LF__OX_SH_PAD, 0},            {"Resize", 1, 4, LF__OX_SH_RESIZE, 0},
    {"Upsample", 1, 2, LF__OX_SH_RESIZE, 0},     {"Expand", 2, 2, LF__OX_SH_EXPAND, 1},
    {"Trilu", 1, 2, LF__OX_SH_SAME, 1},         {"RMSNormalization", 2, 2, LF__OX_SH_SAME, 0},         {"Einsum", 1, -1, LF__OX_SH_EINSUM, 0},
    /* opset 23's attention ops, lowered by onnx_attention.c and onnx_rotary.c */
    {"Attention", 3, 7, LF__OX_SH_ATTENTION, 0},
    {"RotaryEmbedding", 3, 4, LF__OX_SH_SAME, 0},
    /* written with the IR's ops by onnx_rewrite_reduce.c */
    {"ReduceL1", 1, 2, LF__OX_SH_REDUCE, 0},    {"ReduceLogSum", 1, 2, LF__OX_SH_REDUCE, 0},
    {"ReduceLogSumExp", 1, 2, LF__OX_SH_REDUCE, 0},
    {"Mean", 1, -1, LF__OX_SH_BROADCAST, 0},    {"Celu", 1, 1, LF__OX_SH_SAME, 0},
    /* Reshape, Transpose, Reshape (onnx_depth_space.c) */
    {"DepthToSpace", 1, 1, LF__OX_SH_DEPTH_SPACE, 0},
    {"SpaceToDepth", 1, 1, LF__OX_SH_DEPTH_SPACE, 0},
    /* shape computations (folded away) */
    {"Shape", 1, 1, LF__OX_SH_SHAPE, 1},        {"Gather", 2, 2, LF__OX_SH_GATHER, 1},
    {"Size", 1, 1, LF__OX_SH_SHAPE, 1},
    {"ConstantOfShape", 1, 1, LF__OX_SH_CONSTANT_OF_SHAPE, 1},
    {"ReduceMean", 1, 2, LF__OX_SH_REDUCE, 0},  {"ReduceSum", 1, 2, LF__OX_SH_REDUCE, 0},
    {"ReduceMax", 1, 2, LF__OX_SH_REDUCE, 0},   {"ReduceMin", 1, 2, LF__OX_SH_REDUCE, 0},
    {"ReduceProd", 1, 2, LF__OX_SH_REDUCE, 0},  {"ReduceSumSquare", 1, 2, LF__OX_SH_REDUCE, 0},
    {"ReduceL2", 1, 2, LF__OX_SH_REDUCE, 0},
};

const lf__ox_op_rule *lf__ox_op_rule_of(const char *op)
{
    for (size_t k = 0; k < sizeof lf__rules / sizeof lf__rules[0]; k++)
        if (strcmp(lf__rules[k].name, op) == 0)
            return &lf__rules[k];
    return NULL;
}

lf_status lf__ox_slice_params(lf__ox_graph *g, int32_t i, lf__ox_slice *s)
{
    const lf__ox_node *n = &g->nodes[i];
    const lf__ox_value *x = &g->values[n->in[0]];
    int32_t r = x->rank, ns, ne, na = 0, nst = 0;
    int64_t starts[LF__OX_MAX_RANK], ends[LF__OX_MAX_RANK], axes[LF__OX_MAX_RANK], steps[LF__OX_MAX_RANK];
    int old = g->opset < 10;
    /* Attributes before opset 10 (and on the Slices the split rewrite makes). */
    if (lf__ox_int_list(g, n, "starts", old ? -1 : 1, starts, LF__OX_MAX_RANK, &ns) != 1 ||
        lf__ox_int_list(g, n, "ends", old ? -1 : 2, ends, LF__OX_MAX_RANK, &ne) != 1 ||
        lf__ox_int_list(g, n, "axes", old ? -1 : 3, axes, LF__OX_MAX_RANK, &na) < 0 ||
        lf__ox_int_list(g, n, "steps", old ? -1 : 4, steps, LF__OX_MAX_RANK, &nst) < 0)
        return lf__ox_fail(g, i, LF_EUNSUPPORTED, "starts, ends, axes or steps are missing or not constant");
    if (ns != ne || (na && na != ns) || (nst && nst != ns))
        return lf__ox_fail(g, i, LF_EGRAPH, "starts, ends, axes and steps differ in length");
    for (int32_t k = 0; k < r; k++) {
        s->start[k] = 0;
        s->step[k] = 1;
        s->len[k] = x->dims[k];
    }
    int seen[LF__OX_MAX_RANK] = {0};
    for (int32_t k = 0; k < ns; k++) {
        int32_t a = lf__ox_axis(na ? axes[k] : k, r);
        int64_t step = nst ? steps[k] : 1, dim = x->dims[a >= 0 ? a : 0];
        if (a < 0 || seen[a]++ || step == 0)
            return lf__ox_fail(g, i, LF_EGRAPH, "axis %lld out of range or repeated, or step 0",
                               (long long)(na ? axes[k] : k));
        int64_t b = starts[k], e = ends[k];
        if (b < 0) b += dim;
        if (e < 0) e += dim;
        if (step > 0) {
            b = b < 0 ? 0 : b > dim ? dim : b;
            e = e < 0 ? 0 : e > dim ? dim : e;
        } else {
            b = b < 0 ? 0 : b > dim - 1 ? dim - 1 : b;
            e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
        }
        /* b and e are clamped to [-1, dim], so their difference fits; the
         * step may be anything but 0 (INT64_MIN has no negation). */
        int64_t span = step > 0 ? e - b : b - e;
        int64_t mag = step == INT64_MIN ? INT64_MAX : step > 0 ? step : -step;
        int64_t len = span <= 0 || dim == 0 ? 0 : (span - 1) / mag + 1; /* dim 0: b = 0 > e = -1 */
        s->start[a] = b;
        s->step[a] = step;
        s->len[a] = len;
    }
    return LF_OK;
}

lf_status lf__ox_resize_params(lf__ox_graph *g, int32_t i, double *scales, int64_t *sizes)
{
    const lf__ox_node *n = &g->nodes[i];
    const lf__ox_value *x = &g->values[n->in[0]];
    int32_t r = x->rank;
    const lf__ox_data *sc = NULL, *sz = NULL;
    const lf__ox_attr *as = lf__ox_attr_get(n, "scales");
    if (lf__ox_attr_get(n, "axes"))
        return lf__ox_fail(g, i, LF_EUNSUPPORTED, "the axes attribute is not supported");
    if (strcmp(n->op, "Upsample") == 0 || g->opset < 11) {
        if (!as)
            sc = lf__ox_const_of(g, n, 1);
    } else {
        if (n->n_in > 3 && n->in[3] >= 0)
            sz = lf__ox_const_of(g, n, 3);
        if (n->n_in > 2 && n->in[2] >= 0 && g->values[n->in[2]].rank == 1 && g->values[n->in[2]].dims[0] > 0)
            sc = lf__ox_const_of(g, n, 2);
        if (n->n_in > 3 && n->in[3] >= 0 && !sz)
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "sizes are not constant");
    }
    for (int32_t k = 0; k < r; k++) {
        double s;
        if (sz) {
            if (sz->count != r)
                return lf__ox_fail(g, i, LF_EGRAPH, "sizes has %lld entries for rank %d", (long long)sz->count, (int)r);
            sizes[k] = sz->i ? sz->i[k] : lf__ox_f2i(sz->f[k]);
            scales[k] = x->dims[k] ? (double)sizes[k] / (double)x->dims[k] : 1.0;
            if (sizes[k] <= 0 || sizes[k] > ((int64_t)1 << 31))
                return lf__ox_fail(g, i, LF_ERANGE, "output size %lld out of range", (long long)sizes[k]);
            continue;
        }
        if (as && as->type == 6 && as->n == r)
            s = as->floats[k];
        else if (sc && sc->count == r)
            s = sc->f ? sc->f[k] : (double)sc->i[k];
        else
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "scales or sizes must be constant with one entry per axis");
        if (!(s > 0) || s > LF__OX_MAX_WINDOW)
            return lf__ox_fail(g, i, LF_ERANGE, "scale %g out of range", s);
        scales[k] = s;
        double size = floor((double)x->dims[k] * s); /* converted only once known to fit */
        if (!(size <= (double)((int64_t)1 << 31)))
            return lf__ox_fail(g, i, LF_ERANGE, "output size %g out of range", size);
        sizes[k] = (int64_t)size;
        if (sizes[k] <= 0)
            return lf__ox_fail(g, i, LF_EGRAPH, "empty output along axis %d", (int)k);
    }
    return LF_OK;
}

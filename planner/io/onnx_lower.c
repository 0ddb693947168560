/* The importer's graph -> the project's IR (lf_graph). Tensors of rank up
 * to 4 map to N x C x H x W by appending size-1 axes, which keeps the
 * row-major element order and every axis index (rank-2 [N, F] becomes
 * N x F x 1 x 1, as the IR's Gemm output). Each ONNX op maps to one op type
 * of the op table; anything the IR cannot express is one error naming the
 * node, its op type and the model file. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_ops.h"
#include "planner/optable.h"

typedef struct lf__lower {
    lf__ox_graph *g;
    lf_graph_builder *b;
    const char **name_of; /* value id -> IR op name producing it (NULL: constant / none) */
    lf_strmap used;
} lf__lower;

static lf_status lf__unsupported(lf__lower *L, int32_t i, const char *why)
{
    return lf__ox_fail(L->g, i, LF_EUNSUPPORTED, "%s", why);
}

/* A unique IR name for node i (or an input value when i < 0). */
static const char *lf__unique(lf__lower *L, const char *want)
{
    char buf[320];
    snprintf(buf, sizeof buf, "%s", want);
    void *v;
    for (int k = 1; lf_strmap_get(&L->used, buf, &v); k++)
        snprintf(buf, sizeof buf, "%s_%d", want, k);
    const char *s = lf_arena_strdup(&L->g->arena, buf);
    if (!s || lf_strmap_put(&L->used, s, (void *)1) != LF_OK)
        return NULL;
    return s;
}

static lf_shape lf__shape4(const lf__ox_value *v)
{
    int64_t d[4] = {1, 1, 1, 1};
    for (int32_t k = 0; k < v->rank && k < 4; k++)
        d[k] = v->dims[k];
    return (lf_shape){d[0], d[1], d[2], d[3]};
}

/* Activation input k of node i: must be computed (not a constant). */
static lf_status lf__act_input(lf__lower *L, int32_t i, int32_t k, const char **name)
{
    const lf__ox_node *n = &L->g->nodes[i];
    int32_t v = n->in[k];
    if (v < 0 || !L->name_of[v]) {
        if (v >= 0 && L->g->values[v].is_const)
            return lf__unsupported(L, i, "a constant operand where the IR needs a computed tensor");
        return lf__ox_fail(L->g, i, LF_EGRAPH, "input %d is not available", (int)k);
    }
    *name = L->name_of[v];
    return LF_OK;
}

static int32_t lf__i32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v; }

static lf_status lf__window_attrs(lf__lower *L, int32_t i, lf_attrs *a)
{
    lf__ox_node *n = &L->g->nodes[i];
    const lf__ox_value *x = &L->g->values[n->in[0]];
    if (x->rank != 4)
        return lf__unsupported(L, i, "only 2-D windows (rank-4 inputs) are supported");
    lf__ox_window_geom w;
    lf_status st = lf__ox_window(L->g, i, x->dims, 4, 0, &w);
    if (st != LF_OK)
        return st;
    a->kh = lf__i32(w.k[0]);
    a->kw = lf__i32(w.k[1]);
    a->sh = lf__i32(w.s[0]);
    a->sw = lf__i32(w.s[1]);
    a->dh = lf__i32(w.d[0]);
    a->dw = lf__i32(w.d[1]);
    a->pad_top = lf__i32(w.pads[0]);
    a->pad_left = lf__i32(w.pads[1]);
    a->pad_bottom = lf__i32(w.pads[2]);
    a->pad_right = lf__i32(w.pads[3]);
    a->ceil_mode = w.ceil_mode;
    return LF_OK;
}

/* Fills type and attrs of node i; inputs (activation operands) into in[]. */
static lf_status lf__map(lf__lower *L, int32_t i, lf_op_type *type, lf_attrs *a, const char **in,
                         int32_t *n_in)
{
    lf__ox_graph *g = L->g;
    lf__ox_node *n = &g->nodes[i];
    const char *op = n->op;
    const lf__ox_value *y = &g->values[n->out[0]];
    lf_status st;
    memset(a, 0, sizeof *a);
    *n_in = 1;
    if ((st = lf__act_input(L, i, 0, &in[0])) != LF_OK)
        return st;
    const lf__ox_value *x = &g->values[n->in[0]];
    if (x->rank > 4 || y->rank > 4)
        return lf__unsupported(L, i, "tensors of rank above 4 are not supported");
    static const struct { const char *onnx; lf_op_type t; } unary[] = {
        {"Relu", LF_OP_RELU},           {"Sigmoid", LF_OP_SIGMOID}, {"HardSwish", LF_OP_HARDSWISH},
        {"SiLU", LF_OP_SILU},           {"Identity", LF_OP_IDENTITY},
        {"GlobalAveragePool", LF_OP_GLOBALAVGPOOL},
    };
    for (size_t k = 0; k < sizeof unary / sizeof unary[0]; k++)
        if (strcmp(op, unary[k].onnx) == 0) {
            *type = unary[k].t;
            return LF_OK;
        }
    if (strcmp(op, "HardSigmoid") == 0) {
        if (fabsf(lf__ox_attr_float(n, "alpha", 0.2f) - 1.0f / 6) > 1e-6f || lf__ox_attr_float(n, "beta", 0.5f) != 0.5f)
            return lf__unsupported(L, i, "HardSigmoid other than alpha 1/6, beta 1/2 is not supported by the IR");
        *type = LF_OP_HARDSIGMOID;
        return LF_OK;
    }
    if (strcmp(op, "Clip") == 0) {
        *type = LF_OP_CLIP;
        a->clip_min = n->clip_min;
        a->clip_max = n->clip_max;
        return LF_OK;
    }
    if (strcmp(op, "Conv") == 0) {
        const lf__ox_value *w = &g->values[n->in[1]];
        if (!w->is_const)
            return lf__unsupported(L, i, "a Conv weight that is not a constant");
        *type = LF_OP_CONV;
        if ((st = lf__window_attrs(L, i, a)) != LF_OK)
            return st;
        a->out_channels = lf__i32(w->dims[0]);
        a->groups = lf__i32(lf__ox_attr_int(n, "group", 1));
        int has_b = n->n_in > 2 && n->in[2] >= 0;
        a->folded_bn = n->folded_bn;
        a->has_bias = has_b && !n->folded_bn;
        if (n->folded_bn && !has_b)
            return lf__ox_fail(g, i, LF_EGRAPH, "folded BatchNormalization without a bias");
        return LF_OK;
    }
    if (strcmp(op, "Gemm") == 0 || strcmp(op, "MatMul") == 0) {
        int gemm = op[0] == 'G';
        const lf__ox_value *w = &g->values[n->in[1]];
        if (!w->is_const || w->rank != 2 || x->rank != 2)
            return lf__unsupported(L, i, "only [N, K] x constant [K, M] products are supported by the IR");
        if (gemm && (lf__ox_attr_int(n, "transA", 0) || lf__ox_attr_float(n, "alpha", 1) != 1 ||
                     lf__ox_attr_float(n, "beta", 1) != 1))
            return lf__unsupported(L, i, "Gemm with transA, alpha or beta other than 1");
        int transb = gemm && lf__ox_attr_int(n, "transB", 0);
        *type = gemm ? LF_OP_GEMM : LF_OP_MATMUL;
        a->out_channels = lf__i32(w->dims[transb ? 0 : 1]);
        int has_c = gemm && n->n_in > 2 && n->in[2] >= 0;
        if (has_c && lf__ox_count(g->values[n->in[2]].dims, g->values[n->in[2]].rank) != a->out_channels)
            return lf__unsupported(L, i, "a Gemm bias that is not one value per output");
        a->folded_bn = n->folded_bn;
        a->has_bias = has_c && !n->folded_bn;
        return LF_OK;
    }
    if (strcmp(op, "BatchNormalization") == 0) {
        *type = LF_OP_BATCHNORM;
        return LF_OK;
    }
    if (strcmp(op, "Add") == 0 || strcmp(op, "Mul") == 0) {
        *type = op[0] == 'A' ? LF_OP_ADD : LF_OP_MUL;
        *n_in = 2;
        return lf__act_input(L, i, 1, &in[1]);
    }
    if (strcmp(op, "Concat") == 0) {
        if (lf__ox_axis(lf__ox_attr_int(n, "axis", 1), x->rank) != 1)
            return lf__unsupported(L, i, "Concat along an axis other than channels (1)");
        if (n->n_in > 64)
            return lf__unsupported(L, i, "Concat of more than 64 inputs");
        *type = LF_OP_CONCAT;
        *n_in = n->n_in;
        for (int32_t k = 1; k < n->n_in; k++)
            if ((st = lf__act_input(L, i, k, &in[k])) != LF_OK)
                return st;
        return LF_OK;
    }
    if (strcmp(op, "Slice") == 0) {
        lf__ox_slice sl;
        if ((st = lf__ox_slice_params(g, i, &sl)) != LF_OK)
            return st;
        for (int32_t k = 0; k < x->rank; k++)
            if (k != 1 && (sl.start[k] != 0 || sl.step[k] != 1 || sl.len[k] != x->dims[k]))
                return lf__unsupported(L, i, "Slice other than a channel range");
        if (sl.step[1] != 1)
            return lf__unsupported(L, i, "Slice with a step");
        *type = LF_OP_SLICE;
        a->slice_begin = lf__i32(sl.start[1]);
        a->slice_end = lf__i32(sl.start[1] + sl.len[1]);
        return LF_OK;
    }
    if (strcmp(op, "MaxPool") == 0 || strcmp(op, "AveragePool") == 0) {
        if (n->n_out > 1 && n->out[1] >= 0 && g->values[n->out[1]].n_uses)
            return lf__unsupported(L, i, "MaxPool indices output");
        *type = op[0] == 'M' ? LF_OP_MAXPOOL : LF_OP_AVGPOOL;
        if ((st = lf__window_attrs(L, i, a)) != LF_OK)
            return st;
        if (a->dh > 1 || a->dw > 1)
            return lf__unsupported(L, i, "dilated pooling");
        a->dh = a->dw = 0; /* pools carry no dilation in the IR (as the built-in networks) */
        a->count_include_pad = (int32_t)lf__ox_attr_int(n, "count_include_pad", 0);
        return LF_OK;
    }
    if (strcmp(op, "Pad") == 0) {
        int64_t pads[8];
        int32_t cnt;
        if (x->rank != 4 || strcmp(lf__ox_attr_str(n, "mode", "constant"), "constant") != 0 ||
            lf__ox_int_list(g, n, "pads", 1, pads, 8, &cnt) != 1 || cnt != 8 || pads[0] || pads[1] ||
            pads[4] || pads[5])
            return lf__unsupported(L, i, "Pad other than constant spatial padding of a rank-4 tensor");
        *type = LF_OP_PAD;
        a->pad_top = lf__i32(pads[2]);
        a->pad_left = lf__i32(pads[3]);
        a->pad_bottom = lf__i32(pads[6]);
        a->pad_right = lf__i32(pads[7]);
        return LF_OK;
    }
    if (strcmp(op, "Resize") == 0 || strcmp(op, "Upsample") == 0) {
        const char *mode = lf__ox_attr_str(n, "mode", "nearest");
        if (x->rank != 4 || y->dims[0] != x->dims[0] || y->dims[1] != x->dims[1])
            return lf__unsupported(L, i, "Resize other than over the spatial axes of a rank-4 tensor");
        if (strcmp(mode, "nearest") != 0 && strcmp(mode, "linear") != 0 && strcmp(mode, "bilinear") != 0)
            return lf__unsupported(L, i, "Resize mode other than nearest or linear");
        *type = LF_OP_RESIZE;
        a->out_h = lf__i32(y->dims[2]);
        a->out_w = lf__i32(y->dims[3]);
        a->linear = mode[0] != 'n';
        return LF_OK;
    }
    if (strcmp(op, "Flatten") == 0) {
        if (y->dims[0] != x->dims[0])
            return lf__unsupported(L, i, "Flatten that does not keep the batch axis");
        *type = LF_OP_FLATTEN;
        return LF_OK;
    }
    if (strcmp(op, "Reshape") == 0) {
        lf_shape s = lf__shape4(y);
        if (y->dims[0] != x->dims[0] || y->rank < 1)
            return lf__unsupported(L, i, "Reshape that does not keep the batch axis");
        *type = LF_OP_RESHAPE;
        a->shape_c = lf__i32(s.c);
        a->shape_h = lf__i32(s.h);
        a->shape_w = lf__i32(s.w);
        return LF_OK;
    }
    if (strcmp(op, "ReduceMean") == 0) {
        /* The mean over both spatial axes of a rank-4 tensor is a global
         * average pool; with keepdims 0 its [N, C] output is the same
         * N x C x 1 x 1 tensor in the IR. */
        int64_t axes[LF__OX_MAX_RANK];
        int32_t cnt;
        int got = lf__ox_int_list(g, n, "axes", 1, axes, LF__OX_MAX_RANK, &cnt);
        int32_t a0 = got == 1 && cnt == 2 ? lf__ox_axis(axes[0], 4) : -1;
        int32_t a1 = got == 1 && cnt == 2 ? lf__ox_axis(axes[1], 4) : -1;
        if (x->rank != 4 || !((a0 == 2 && a1 == 3) || (a0 == 3 && a1 == 2)))
            return lf__unsupported(L, i, "ReduceMean other than over the two spatial axes of a rank-4 tensor");
        *type = LF_OP_GLOBALAVGPOOL;
        return LF_OK;
    }
    if (strcmp(op, "Softmax") == 0) {
        int32_t axis = lf__ox_axis(lf__ox_attr_int(n, "axis", g->opset < 13 ? 1 : -1), x->rank);
        if (axis != 1 || (g->opset >= 13 && x->rank > 2))
            return lf__unsupported(L, i, "Softmax other than over the channels of [N, C]");
        *type = LF_OP_SOFTMAX;
        return LF_OK;
    }
    char why[160];
    snprintf(why, sizeof why, "op type %s is not supported by fusionplan's IR", op);
    return lf__unsupported(L, i, why);
}

lf_status lf__ox_lower(lf__ox_graph *g, lf_graph **out)
{
    lf__lower L = {g, NULL, NULL, {0}};
    *out = NULL;
    const char *gname = strrchr(g->path, '/') ? strrchr(g->path, '/') + 1 : g->path;
    char name[256];
    snprintf(name, sizeof name, "%s", gname);
    char *dot = strrchr(name, '.');
    if (dot && strcmp(dot, ".onnx") == 0)
        *dot = '\0';
    lf_status st = lf_graph_builder_create(&L.b, name);
    if (st != LF_OK)
        return st;
    L.name_of = calloc((size_t)g->n_values + 1, sizeof *L.name_of);
    if (!L.name_of || lf_strmap_init(&L.used, 256) != LF_OK) {
        st = lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
        goto done;
    }
    /* Graph inputs first, in declaration order of their values. */
    for (int32_t v = 0; v < g->n_values && st == LF_OK; v++) {
        const lf__ox_value *val = &g->values[v];
        if (!val->is_input || val->is_const || !val->n_uses)
            continue;
        if (val->rank > 4 || val->rank < 1)
            st = lf__ox_fail(g, -1, LF_EUNSUPPORTED, "graph input '%s' has rank %d (1 to 4 are supported)",
                             val->name, (int)val->rank);
        lf_shape s = lf__shape4(val);
        lf_attrs a = {0};
        if (s.n > INT32_MAX || s.c > INT32_MAX || s.h > INT32_MAX || s.w > INT32_MAX)
            st = lf__ox_fail(g, -1, LF_ERANGE, "graph input '%s' is too large", val->name);
        a.batch = (int32_t)s.n;
        a.in_c = (int32_t)s.c;
        a.in_h = (int32_t)s.h;
        a.in_w = (int32_t)s.w;
        const char *nm = st == LF_OK ? lf__unique(&L, val->name) : NULL;
        if (st == LF_OK && !nm)
            st = lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
        int32_t id = st == LF_OK ? lf_graph_builder_add(L.b, LF_OP_INPUT, nm, &a, NULL, 0) : 0;
        if (id < 0)
            st = lf__ox_fail(g, -1, (lf_status)id, "graph input '%s': %s", val->name, lf_last_error());
        L.name_of[v] = nm;
    }
    /* Nodes in file order (the builder keeps insertion order wherever it is
     * topological, so op ids follow the exporter's order). */
    for (int32_t i = 0; i < g->n_nodes && st == LF_OK; i++) {
        lf__ox_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        lf_op_type type = LF_OP_IDENTITY;
        lf_attrs a;
        const char *in[64];
        int32_t n_in;
        if ((st = lf__map(&L, i, &type, &a, in, &n_in)) != LF_OK)
            break;
        const char *nm = lf__unique(&L, n->name);
        if (!nm) {
            st = lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
            break;
        }
        int32_t id = lf_graph_builder_add(L.b, type, nm, &a, in, n_in);
        if (id < 0) {
            st = lf__ox_fail(g, i, (lf_status)id, "%s", lf_last_error());
            break;
        }
        L.name_of[n->out[0]] = nm;
        if (g->values[n->out[0]].is_output && (st = lf_graph_builder_mark_output(L.b, nm)) != LF_OK)
            break;
    }
    if (st == LF_OK) {
        lf_graph *graph = NULL;
        if ((st = lf_graph_builder_build(L.b, &graph)) != LF_OK)
            st = lf__ox_fail(g, -1, st, "%s", lf_last_error());
        *out = graph;
    }
done:
    lf_strmap_destroy(&L.used);
    free(L.name_of);
    lf_graph_builder_free(L.b);
    return st;
}

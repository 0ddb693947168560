/* One mapping per ONNX op into the op table: type, attributes and operands
 * (activations by name, constants in the IR frame). Weight layouts follow
 * the IR: Conv W {out, in/g, kh, kw} and B {1, out, 1, 1}; Gemm W {out, in,
 * 1, 1} (transB layout; a Gemm without transB or a MatMul by a constant gets
 * its matrix transposed here); an unfolded BatchNormalization becomes
 * y = x * scale + shift with scale = gamma / sqrt(var + eps). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_lower.h"
#include "planner/io/onnx_ops.h"
#include "planner/util/checked.h"

static int32_t lf__i32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v; }

static lf_status lf__window_attrs(lf__lower *L, int32_t i, lf_attrs *a, int is_t)
{
    lf__ox_node *n = &L->g->nodes[i];
    const lf__ox_value *x = &L->g->values[n->in[0]];
    if (x->rank != 4)
        return lf__unsupported(L, i, "only 2-D windows (rank-4 inputs) are supported");
    lf__ox_window_geom w;
    lf_status st = lf__ox_window(L->g, i, x->dims, 4, is_t, &w);
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

/* ONNX's unidirectional broadcast of v to x: rank at most x's, each dim
 * (right-aligned) 1 or x's (a norm's scale or bias: [1], [1, D], [T, 1]). */
static int lf__broadcasts_to_x(const lf__ox_value *v, const lf__ox_value *x)
{
    if (v->rank > x->rank)
        return 0;
    for (int32_t q = 0; q < v->rank; q++)
        if (v->dims[q] != 1 && v->dims[q] != x->dims[x->rank - v->rank + q])
            return 0;
    return 1;
}

/* "scale 'w' of shape [5] does not broadcast to X's shape [2, 4, 6]" for
 * input k of norm node i. */
static lf_status lf__norm_shape_error(lf__lower *L, int32_t i, int32_t k)
{
    const lf__ox_node *n = &L->g->nodes[i];
    const lf__ox_value *v = &L->g->values[n->in[k]], *x = &L->g->values[n->in[0]];
    char s[2][200];
    for (int32_t t = 0; t < 2; t++) {
        const lf__ox_value *u = t ? x : v;
        size_t len = 0;
        s[t][0] = '\0';
        for (int32_t q = 0; q < u->rank && len < sizeof s[t] - 24; q++)
            len += (size_t)snprintf(s[t] + len, sizeof s[t] - len, "%s%lld", q ? ", " : "", (long long)u->dims[q]);
    }
    return lf__unsupported(L, i, "%s '%s' of shape [%s] does not broadcast to X's shape [%s]",
                           k == 1 ? "scale" : "bias", v->name, s[0], s[1]);
}

/* Data of constant input k as floats (NULL when not a constant with values). */
static const lf__ox_data *lf__cdata(lf__lower *L, int32_t i, int32_t k)
{
    const lf__ox_data *d = lf__ox_const_of(L->g, &L->g->nodes[i], k);
    return d && d->f ? d : NULL;
}

/* A constant matrix [rows, cols] (or its transpose) as an IR Gemm weight {out, in, 1, 1}. */
static lf_status lf__gemm_weight(lf__lower *L, int32_t i, int32_t k, int transpose, lf__lowered *o)
{
    const lf__ox_value *w = &L->g->values[L->g->nodes[i].in[k]];
    const lf__ox_data *d = lf__cdata(L, i, k);
    int64_t rows = w->dims[0], cols = w->dims[1];
    int64_t out = transpose ? cols : rows, in = transpose ? rows : cols;
    float *t = NULL;
    if (d) {
        /* huge pages from 2 MiB on: a classifier's matrix (8 MB in resnet50)
         * written to fresh small pages cost a fault every 4 KiB */
        t = lf__ox_weights_alloc((size_t)(rows * cols > 0 ? rows * cols : 1) * sizeof *t);
        if (!t)
            return lf_set_error(LF_ENOMEM, "out of memory importing %s", L->g->path);
        for (int64_t r = 0; r < rows; r++)
            for (int64_t c = 0; c < cols; c++)
                t[transpose ? c * rows + r : r * cols + c] = d->f[r * cols + c];
    }
    return lf__operand_new_const(L, w->name, (lf_shape){out, in, 1, 1}, t, o);
}

static lf_status lf__batchnorm(lf__lower *L, int32_t i, lf__lowered *o)
{
    const lf__ox_node *n = &L->g->nodes[i];
    const lf__ox_data *gamma = lf__cdata(L, i, 1), *beta = lf__cdata(L, i, 2), *mean = lf__cdata(L, i, 3),
                      *var = lf__cdata(L, i, 4);
    int64_t c = L->g->values[n->in[0]].rank > 1 ? L->g->values[n->in[0]].dims[1] : 0;
    if (!gamma || !beta || !mean || !var || gamma->count != c || beta->count != c || mean->count != c ||
        var->count != c)
        return lf__unsupported(L, i, "BatchNormalization parameters must be constants of one value per channel");
    double eps = lf__ox_attr_float(n, "epsilon", 1e-5f);
    float *scale = malloc((size_t)(c ? c : 1) * sizeof *scale), *shift = malloc((size_t)(c ? c : 1) * sizeof *shift);
    if (!scale || !shift) {
        free(scale);
        free(shift);
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", L->g->path);
    }
    for (int64_t k = 0; k < c; k++) {
        double s = gamma->f[k] / sqrt((double)var->f[k] + eps);
        scale[k] = (float)s;
        shift[k] = (float)(beta->f[k] - mean->f[k] * s);
    }
    char base[300];
    snprintf(base, sizeof base, "%s.scale", n->name);
    lf_status st = lf__operand_new_const(L, base, (lf_shape){1, c, 1, 1}, scale, o);
    snprintf(base, sizeof base, "%s.shift", n->name);
    if (st != LF_OK) {
        free(shift);
        return st;
    }
    return lf__operand_new_const(L, base, (lf_shape){1, c, 1, 1}, shift, o);
}

/* Axis mask (LF_AXES) of ONNX axes over a rank-r tensor; -1 when out of range. */
static int32_t lf__mask(const int64_t *axes, int32_t cnt, int32_t r)
{
    int32_t m = 0;
    for (int32_t k = 0; k < cnt; k++) {
        int32_t a = lf__ox_axis(axes[k], r);
        if (a < 0)
            return -1;
        m |= LF_AXES(lf__frame_dim(a, r));
    }
    return m;
}

static const struct {
    const char *onnx;
    lf_op_type t;
} lf__unary[] = {
    {"Relu", LF_OP_RELU},       {"Sigmoid", LF_OP_SIGMOID},   {"HardSwish", LF_OP_HARDSWISH},
    {"SiLU", LF_OP_SILU},       {"Identity", LF_OP_IDENTITY}, {"Sqrt", LF_OP_SQRT},
    {"Exp", LF_OP_EXP},         {"Erf", LF_OP_ERF},           {"Tanh", LF_OP_TANH},
    {"Neg", LF_OP_NEG},         {"Log", LF_OP_LOG},           {"Abs", LF_OP_ABS},
    {"Reciprocal", LF_OP_RECIPROCAL}, {"Floor", LF_OP_FLOOR}, {"Ceil", LF_OP_CEIL},
    {"Softplus", LF_OP_SOFTPLUS}, {"GlobalAveragePool", LF_OP_GLOBALAVGPOOL},
    {"GlobalMaxPool", LF_OP_GLOBALMAXPOOL},
};

static const struct {
    const char *onnx;
    lf_op_type t;
} lf__elementwise[] = {
    {"Add", LF_OP_ADD}, {"Mul", LF_OP_MUL}, {"Sub", LF_OP_SUB}, {"Div", LF_OP_DIV}, {"Pow", LF_OP_POW},
    {"Max", LF_OP_MAX}, {"Min", LF_OP_MIN}, {"PRelu", LF_OP_PRELU}, {"Sum", LF_OP_ADD},
};

static const struct {
    const char *onnx;
    lf_op_type t;
} lf__reduce[] = {
    {"ReduceMean", LF_OP_REDUCEMEAN}, {"ReduceSum", LF_OP_REDUCESUM}, {"ReduceMax", LF_OP_REDUCEMAX},
    {"ReduceMin", LF_OP_REDUCEMIN},   {"ReduceProd", LF_OP_REDUCEPROD},
    {"ReduceSumSquare", LF_OP_REDUCESUMSQUARE}, {"ReduceL2", LF_OP_REDUCEL2},
};

lf_status lf__lower_node(lf__lower *L, int32_t i, lf__lowered *o)
{
    lf__ox_graph *g = L->g;
    lf__ox_node *n = &g->nodes[i];
    const char *op = n->op;
    const lf__ox_value *x = &g->values[n->in[0]], *y = &g->values[n->out[0]];
    lf_attrs *a = &o->a;
    int32_t r = x->rank, yr = y->rank;
    lf_status st;
    if (r > 4)
        return lf__unsupported(L, i, "input of rank %d (tensors of rank above 4 are not supported)", (int)r);
    for (size_t k = 0; k < sizeof lf__unary / sizeof lf__unary[0]; k++)
        if (strcmp(op, lf__unary[k].onnx) == 0) {
            o->type = lf__unary[k].t;
            return lf__operand(L, i, 0, yr, o);
        }
    for (size_t k = 0; k < sizeof lf__elementwise / sizeof lf__elementwise[0]; k++)
        if (strcmp(op, lf__elementwise[k].onnx) == 0) {
            o->type = lf__elementwise[k].t;
            for (int32_t q = 0; q < n->n_in; q++)
                if ((st = lf__operand(L, i, q, yr, o)) != LF_OK)
                    return st;
            if (o->n == 1 && (o->type == LF_OP_ADD))
                o->type = LF_OP_IDENTITY; /* Sum of one input */
            return LF_OK;
        }
    for (size_t k = 0; k < sizeof lf__reduce / sizeof lf__reduce[0]; k++)
        if (strcmp(op, lf__reduce[k].onnx) == 0) {
            int64_t axes[LF__OX_MAX_RANK];
            int32_t cnt = 0;
            if (lf__ox_int_list(g, n, "axes", 1, axes, LF__OX_MAX_RANK, &cnt) < 0)
                return lf__unsupported(L, i, "axes are not constant");
            if (cnt == 0)
                for (cnt = 0; cnt < r; cnt++)
                    axes[cnt] = cnt;
            int32_t m = lf__mask(axes, cnt, r);
            if (m < 0)
                return lf__unsupported(L, i, "axes out of range");
            /* Over both spatial axes of an image this is a global average pool. */
            o->type = (lf__reduce[k].t == LF_OP_REDUCEMEAN && r == 4 && m == (LF_AXES(LF_DIM_H) | LF_AXES(LF_DIM_W)))
                          ? LF_OP_GLOBALAVGPOOL : lf__reduce[k].t;
            if (o->type != LF_OP_GLOBALAVGPOOL)
                a->axes = m;
            return lf__operand(L, i, 0, r, o);
        }
    if (strcmp(op, "HardSigmoid") == 0 || strcmp(op, "LeakyRelu") == 0 || strcmp(op, "Elu") == 0) {
        float alpha = lf__ox_attr_float(n, "alpha", op[0] == 'H' ? 0.2f : op[0] == 'L' ? 0.01f : 1.0f);
        float beta = lf__ox_attr_float(n, "beta", 0.5f);
        o->type = op[0] == 'H' ? LF_OP_HARDSIGMOID : op[0] == 'L' ? LF_OP_LEAKYRELU : LF_OP_ELU;
        if (op[0] == 'H' && !(fabsf(alpha - 1.0f / 6) < 1e-7f && beta == 0.5f)) { /* 0 = torch's */
            a->alpha = alpha;
            a->beta = beta;
        } else if (op[0] != 'H') {
            a->alpha = alpha;
        }
        return lf__operand(L, i, 0, yr, o);
    }
    if (strcmp(op, "Cast") == 0 && lf__ox_attr_int(n, "to", 0) == LF__OX_FLOAT &&
        (x->elem_type == LF__OX_FLOAT || x->elem_type == 0)) { /* float to float (a stash type) */
        o->type = LF_OP_IDENTITY;
        return lf__operand(L, i, 0, yr, o);
    }
    if (strcmp(op, "Gather") == 0 && n->n_in == 2 && x->is_const && !g->values[n->in[1]].is_const) {
        /* An embedding lookup: rows of a constant [V, D] table by the ids of
         * an activation (the ids' elem type may be integer: the IR carries
         * them as exact floats, docs/ir.md). Constant ids were folded, one id
         * of an activation became a Slice (gather-slice). */
        if (r != 2 || lf__ox_axis(lf__ox_attr_int(n, "axis", 0), r) != 0)
            return lf__unsupported(L, i, "Gather of a constant other than rows of a 2-D table (axis 0)");
        if (g->values[n->in[1]].rank > 3)
            return lf__unsupported(L, i, "ids of rank %d (at most 3)", (int)g->values[n->in[1]].rank);
        o->type = LF_OP_GATHER;
        const lf__ox_value *ids = &g->values[n->in[1]];
        if ((st = lf__operand(L, i, 0, 4, o)) != LF_OK || (st = lf__operand(L, i, 1, ids->rank, o)) != LF_OK)
            return st;
        if (ids->is_input && (ids->elem_type == LF__OX_INT64 || ids->elem_type == LF__OX_INT32))
            o->shape[1] = lf__ids_frame(ids->dims, ids->rank); /* as lf__add_input made it */
        return LF_OK;
    }
    if (strcmp(op, "Gelu") == 0) {
        o->type = LF_OP_GELU;
        a->approximate = strcmp(lf__ox_attr_str(n, "approximate", "none"), "tanh") == 0;
        return lf__operand(L, i, 0, yr, o);
    }
    if (strcmp(op, "Clip") == 0) {
        o->type = LF_OP_CLIP;
        a->clip_min = n->clip_known ? n->clip_min : -FLT_MAX;
        a->clip_max = n->clip_known ? n->clip_max : FLT_MAX;
        return lf__operand(L, i, 0, yr, o);
    }
    if (strcmp(op, "Conv") == 0 || strcmp(op, "ConvTranspose") == 0) {
        int is_t = op[4] == 'T';
        const lf__ox_value *w = &g->values[n->in[1]];
        if (!w->is_const)
            return lf__unsupported(L, i, "the weight is not a constant");
        o->type = is_t ? LF_OP_CONVTRANSPOSE : LF_OP_CONV;
        if ((st = lf__window_attrs(L, i, a, is_t)) != LF_OK)
            return st;
        a->groups = lf__i32(lf__ox_attr_int(n, "group", 1));
        /* groups may have been clamped to int32: the product is checked again */
        int64_t grouped = w->dims[0];
        if (is_t && !lf_mul_i64(w->dims[1], a->groups, &grouped))
            grouped = INT64_MAX;
        a->out_channels = lf__i32(grouped);
        if (is_t) {
            int64_t op_[2] = {0, 0};
            int32_t cnt;
            lf__ox_int_list(g, n, "output_padding", -1, op_, 2, &cnt);
            a->out_pad_h = lf__i32(op_[0]);
            a->out_pad_w = lf__i32(op_[1]);
        }
        int has_b = n->n_in > 2 && n->in[2] >= 0;
        a->folded_bn = n->folded_bn;
        a->has_bias = has_b && !n->folded_bn;
        if ((st = lf__operand(L, i, 0, 4, o)) != LF_OK || (st = lf__operand(L, i, 1, 4, o)) != LF_OK)
            return st;
        return has_b ? lf__operand(L, i, 2, 1, o) : LF_OK;
    }
    if (strcmp(op, "Gemm") == 0 || (strcmp(op, "MatMul") == 0 && r == 2 && g->values[n->in[1]].is_const &&
                                    g->values[n->in[1]].rank == 2)) {
        int gemm = op[0] == 'G';
        const lf__ox_value *w = &g->values[n->in[1]];
        if (!w->is_const || w->rank != 2 || r != 2)
            return lf__unsupported(L, i, "only [N, K] x constant [K, M] products map to the IR's Gemm");
        if (gemm && (lf__ox_attr_int(n, "transA", 0) || lf__ox_attr_float(n, "alpha", 1) != 1 ||
                     lf__ox_attr_float(n, "beta", 1) != 1))
            return lf__unsupported(L, i, "Gemm with transA, alpha or beta other than 1");
        int transb = gemm && lf__ox_attr_int(n, "transB", 0);
        o->type = LF_OP_GEMM;
        a->out_channels = lf__i32(w->dims[transb ? 0 : 1]);
        int has_c = gemm && n->n_in > 2 && n->in[2] >= 0;
        if (has_c && lf__ox_count(g->values[n->in[2]].dims, g->values[n->in[2]].rank) != a->out_channels)
            return lf__unsupported(L, i, "a Gemm bias that is not one value per output");
        a->folded_bn = n->folded_bn;
        a->has_bias = has_c && !n->folded_bn;
        if ((st = lf__operand(L, i, 0, 2, o)) != LF_OK || (st = lf__gemm_weight(L, i, 1, !transb, o)) != LF_OK)
            return st;
        if (has_c) {
            /* any [M] or [1, M] bias is {1, M, 1, 1} */
            const lf__ox_value *c = &g->values[n->in[2]];
            const lf__ox_data *d = lf__cdata(L, i, 2);
            float *b = NULL;
            if (d && (b = malloc((size_t)a->out_channels * sizeof *b)))
                memcpy(b, d->f, (size_t)a->out_channels * sizeof *b);
            return lf__operand_new_const(L, c->name, (lf_shape){1, a->out_channels, 1, 1}, b, o);
        }
        return LF_OK;
    }
    if (strcmp(op, "MatMul") == 0) {
        const lf__ox_value *b = &g->values[n->in[1]];
        if (r < 3 && !(r == 2 && b->rank >= 3))
            return lf__unsupported(L, i, "MatMul of rank %d by rank %d", (int)r, (int)b->rank);
        o->type = LF_OP_MATMUL;
        a->trans_a = n->ir_trans_a; /* fusionplan's export (onnx_ir_parts.c) */
        a->trans_b = n->ir_trans_b;
        int32_t out = yr > 2 ? yr : 3;
        if ((st = lf__operand(L, i, 0, r == 2 ? 3 : out, o)) != LF_OK)
            return st;
        return lf__operand(L, i, 1, b->rank == 2 ? 3 : out, o);
    }
    if (strcmp(op, "BatchNormalization") == 0) {
        if (lf__ox_attr_int(n, "training_mode", 0))
            return lf__unsupported(L, i, "training_mode 1 (statistics of the batch) is not inference");
        o->type = LF_OP_BATCHNORM;
        if ((st = lf__operand(L, i, 0, r, o)) != LF_OK)
            return st;
        return lf__batchnorm(L, i, o);
    }
    if (strcmp(op, "LayerNormalization") == 0 || strcmp(op, "RMSNormalization") == 0) {
        int32_t axis = lf__ox_axis(lf__ox_attr_int(n, "axis", -1), r);
        if (axis < 0)
            return lf__unsupported(L, i, "axis out of range");
        int64_t axes[LF__OX_MAX_RANK];
        int32_t cnt = 0;
        for (int32_t q = axis; q < r; q++)
            axes[cnt++] = q;
        /* Trailing axes of size 1 change nothing: left out, one mask for [N, D]
         * and for the [N, D, 1, 1] that the export writes it as. */
        while (cnt > 1 && x->dims[axes[cnt - 1]] == 1)
            cnt--;
        o->type = op[0] == 'L' ? LF_OP_LAYERNORM : LF_OP_RMSNORM;
        for (int32_t q = 1; q < n->n_in; q++)
            if (n->in[q] >= 0 && !lf__broadcasts_to_x(&g->values[n->in[q]], x))
                return lf__norm_shape_error(L, i, q);
        a->axes = lf__mask(axes, cnt, r);
        a->epsilon = lf__ox_attr_float(n, "epsilon", 1e-5f);
        a->has_bias = o->type == LF_OP_LAYERNORM && n->n_in > 2 && n->in[2] >= 0;
        for (int32_t q = 0; q < n->n_in; q++)
            if (n->in[q] >= 0 && (st = lf__operand(L, i, q, r, o)) != LF_OK)
                return st;
        return LF_OK;
    }
    if (strcmp(op, "Concat") == 0) {
        int32_t axis = lf__ox_axis(lf__ox_attr_int(n, "axis", 1), r);
        if (axis < 0 || n->n_in > 64)
            return lf__unsupported(L, i, "axis out of range or more than 64 inputs");
        o->type = LF_OP_CONCAT;
        int32_t d = lf__frame_dim(axis, r);
        a->axes = d == LF_DIM_C ? 0 : LF_AXES(d);
        for (int32_t q = 0; q < n->n_in; q++)
            if ((st = lf__operand(L, i, q, r, o)) != LF_OK)
                return st;
        return LF_OK;
    }
    if (strcmp(op, "Slice") == 0) {
        lf__ox_slice sl;
        if ((st = lf__ox_slice_params(g, i, &sl)) != LF_OK)
            return st;
        int32_t axis = -1;
        for (int32_t k = 0; k < r; k++)
            if (sl.start[k] != 0 || sl.step[k] != 1 || sl.len[k] != x->dims[k]) {
                if (axis >= 0)
                    return lf__unsupported(L, i, "Slice along more than one axis");
                axis = k;
            }
        if (axis < 0)
            axis = r > 1 ? 1 : 0;
        if (sl.step[axis] < 1)
            return lf__unsupported(L, i, "Slice with a negative step");
        o->type = LF_OP_SLICE;
        int32_t d = lf__frame_dim(axis, r);
        a->axes = d == LF_DIM_C ? 0 : LF_AXES(d);
        a->slice_begin = lf__i32(sl.start[axis]);
        a->slice_end = lf__i32(sl.start[axis] + (sl.len[axis] - 1) * sl.step[axis] + 1);
        a->slice_step = sl.step[axis] == 1 ? 0 : lf__i32(sl.step[axis]);
        return lf__operand(L, i, 0, r, o);
    }
    if (strcmp(op, "MaxPool") == 0 || strcmp(op, "AveragePool") == 0) {
        if (n->n_out > 1 && n->out[1] >= 0 && g->values[n->out[1]].n_uses)
            return lf__unsupported(L, i, "the Indices output of MaxPool");
        o->type = op[0] == 'M' ? LF_OP_MAXPOOL : LF_OP_AVGPOOL;
        if ((st = lf__window_attrs(L, i, a, 0)) != LF_OK)
            return st;
        if (a->dh == 1 && a->dw == 1)
            a->dh = a->dw = 0; /* as the built-in networks */
        a->count_include_pad = (int32_t)lf__ox_attr_int(n, "count_include_pad", 0);
        if (!a->pad_top && !a->pad_left && !a->pad_bottom && !a->pad_right && o->type == LF_OP_AVGPOOL)
            a->count_include_pad = 1; /* no padding: the flag means nothing; one canonical form */
        if (o->type == LF_OP_MAXPOOL)
            a->count_include_pad = 0;
        return lf__operand(L, i, 0, 4, o);
    }
    if (strcmp(op, "Pad") == 0) {
        int64_t pads[8];
        int32_t cnt;
        const char *mode = lf__ox_attr_str(n, "mode", "constant");
        if (r != 4 || lf__ox_int_list(g, n, "pads", 1, pads, 8, &cnt) != 1 || cnt != 8 || pads[0] || pads[1] ||
            pads[4] || pads[5])
            return lf__unsupported(L, i, "Pad other than of the spatial axes of a rank-4 tensor");
        o->type = LF_OP_PAD;
        a->pad_top = lf__i32(pads[2]);
        a->pad_left = lf__i32(pads[3]);
        a->pad_bottom = lf__i32(pads[6]);
        a->pad_right = lf__i32(pads[7]);
        a->pad_mode = strcmp(mode, "reflect") == 0 ? LF_PAD_REFLECT : strcmp(mode, "edge") == 0 ? LF_PAD_EDGE : LF_PAD_CONSTANT;
        double v = g->opset < 11 ? lf__ox_attr_float(n, "value", 0) : 0;
        const lf__ox_data *pv = n->n_in > 2 && n->in[2] >= 0 ? lf__ox_const_of(g, n, 2) : NULL;
        if (pv && pv->count == 1)
            v = pv->f ? pv->f[0] : (double)pv->i[0];
        a->pad_value = (float)v;
        return lf__operand(L, i, 0, 4, o);
    }
    if (strcmp(op, "Resize") == 0 || strcmp(op, "Upsample") == 0) {
        const char *mode = lf__ox_attr_str(n, "mode", "nearest");
        const char *coord = lf__ox_attr_str(n, "coordinate_transformation_mode", "half_pixel");
        const char *nm = lf__ox_attr_str(n, "nearest_mode", "round_prefer_floor");
        if (r != 4 || y->dims[0] != x->dims[0] || y->dims[1] != x->dims[1])
            return lf__unsupported(L, i, "Resize other than over the spatial axes of a rank-4 tensor");
        o->type = LF_OP_RESIZE;
        a->out_h = lf__i32(y->dims[2]);
        a->out_w = lf__i32(y->dims[3]);
        a->linear = mode[0] == 'n' ? 0 : mode[0] == 'c' ? 2 : 1;
        if (strcmp(op, "Upsample") == 0 || g->opset < 11) {
            coord = "asymmetric"; /* Upsample and Resize-10: out index / scale, floored for nearest */
            nm = "floor";
        }
        double scales[LF__OX_MAX_RANK];
        int64_t sizes[LF__OX_MAX_RANK];
        if ((st = lf__ox_resize_params(g, i, scales, sizes)) != LF_OK)
            return st;
        for (int32_t k = 2; k < 4; k++)
            if (fabs(scales[k] * (double)x->dims[k] - (double)y->dims[k]) > 1e-9 * (double)y->dims[k])
                return lf__unsupported(L, i, "scale %g on an axis of %lld does not give a whole size (the IR keeps "
                                       "sizes, ONNX maps coordinates with the scale)", scales[k], (long long)x->dims[k]);
        if (strcmp(coord, "asymmetric") == 0) a->coord_mode = LF_COORD_ASYMMETRIC;
        else if (strcmp(coord, "align_corners") == 0) a->coord_mode = LF_COORD_ALIGN_CORNERS;
        else if (strcmp(coord, "pytorch_half_pixel") == 0) a->coord_mode = LF_COORD_PYTORCH_HALF_PIXEL;
        else if (strcmp(coord, "half_pixel") != 0)
            return lf__unsupported(L, i, "coordinate_transformation_mode %s", coord);
        if (a->linear != 0)
            nm = "round_prefer_floor"; /* only nearest reads it (torch writes "floor" on every Resize) */
        if (strcmp(nm, "round_prefer_ceil") == 0) a->nearest_mode = LF_NEAREST_ROUND_PREFER_CEIL;
        else if (strcmp(nm, "floor") == 0) a->nearest_mode = LF_NEAREST_FLOOR;
        else if (strcmp(nm, "ceil") == 0) a->nearest_mode = LF_NEAREST_CEIL;
        a->alpha = lf__ox_attr_float(n, "cubic_coeff_a", -0.75f);
        if (a->linear != 2)
            a->alpha = 0;
        if (lf__ox_attr_int(n, "exclude_outside", 0))
            return lf__unsupported(L, i, "exclude_outside");
        return lf__operand(L, i, 0, 4, o);
    }
    if (strcmp(op, "Flatten") == 0 || strcmp(op, "Reshape") == 0 || strcmp(op, "Squeeze") == 0 ||
        strcmp(op, "Unsqueeze") == 0) {
        lf_shape s = lf__frame(y->dims, yr);
        lf_shape in = lf__frame(x->dims, r);
        if (strcmp(op, "Flatten") == 0 && yr == 2 && y->dims[0] == x->dims[0] && s.n == in.n) {
            o->type = LF_OP_FLATTEN;
        } else {
            o->type = LF_OP_RESHAPE;
            a->shape_n = s.n == in.n ? 0 : lf__i32(s.n);
            a->shape_c = lf__i32(s.c);
            a->shape_h = lf__i32(s.h);
            a->shape_w = lf__i32(s.w);
        }
        return lf__operand(L, i, 0, r, o);
    }
    if (strcmp(op, "Transpose") == 0) {
        int64_t perm[LF__OX_MAX_RANK];
        int32_t cnt;
        if (lf__ox_int_list(g, n, "perm", -1, perm, LF__OX_MAX_RANK, &cnt) != 1)
            for (cnt = 0; cnt < r; cnt++)
                perm[cnt] = r - 1 - cnt;
        /* Output ONNX axis k reads input axis perm[k]; in frame dims (a matrix
         * [N, F] is N x F x 1 x 1: its transpose swaps N and C). */
        int32_t p4[4] = {0, 1, 2, 3};
        for (int32_t k = 0; k < r; k++)
            p4[lf__frame_dim(k, r)] = lf__frame_dim((int32_t)perm[k], r);
        o->type = LF_OP_TRANSPOSE;
        memcpy(a->perm, p4, sizeof p4);
        return lf__operand(L, i, 0, r, o);
    }
    if (strcmp(op, "Softmax") == 0 || strcmp(op, "LogSoftmax") == 0) {
        int old = g->opset < 13;
        int32_t axis = lf__ox_axis(lf__ox_attr_int(n, "axis", old ? 1 : -1), r);
        if (axis < 0)
            return lf__unsupported(L, i, "axis out of range");
        int64_t axes[LF__OX_MAX_RANK];
        int32_t cnt = 0;
        for (int32_t q = axis; q < (old ? r : axis + 1); q++) /* before opset 13: all axes from axis on */
            axes[cnt++] = q;
        o->type = op[0] == 'S' ? LF_OP_SOFTMAX : LF_OP_LOGSOFTMAX;
        a->axes = lf__mask(axes, cnt, r);
        if (a->axes == LF_AXES(LF_DIM_C))
            a->axes = 0;
        a->causal = n->ir_causal; /* fusionplan's export (onnx_ir_parts.c) */
        return lf__operand(L, i, 0, r, o);
    }
    if (strcmp(op, "ChannelShuffle") == 0) { /* made by the channel-shuffle rewrite */
        o->type = LF_OP_CHANNELSHUFFLE;
        a->groups = lf__i32(lf__ox_attr_int(n, "groups", 1));
        return lf__operand(L, i, 0, r, o);
    }
    if (strcmp(op, "Expand") == 0) {
        lf_shape s = lf__frame(y->dims, yr);
        o->type = LF_OP_EXPAND;
        a->shape_n = lf__i32(s.n);
        a->shape_c = lf__i32(s.c);
        a->shape_h = lf__i32(s.h);
        a->shape_w = lf__i32(s.w);
        return lf__operand(L, i, 0, yr, o);
    }
    return lf__unsupported(L, i, "op type %s is not supported by fusionplan's IR", op);
}

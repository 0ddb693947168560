/* lf_graph -> ONNX ModelProto: the inverse of the importer's lowering
 * (onnx_lower_ops.c), written so that the importer reads the file back to
 * the same IR graph, hash included (DESIGN §10, §13):
 *
 * - every IR op becomes one node named like the op, whose output tensor is
 *   named like the op too, in the graph's topological order (op ids survive);
 * - a Conv or Gemm with a folded BatchNorm is written unfused (no bias) and
 *   followed by a BatchNormalization (gamma 1, beta the bias, mean 0, var 1,
 *   epsilon 0) that the importer's fold-bn puts back exactly;
 * - SiLU is Sigmoid(x) * x and ChannelShuffle Reshape-Transpose-Reshape (the
 *   importer's rewrites fold them back into one op named like the last node
 *   or the first Reshape);
 * - the IR's "0 means 1" fields (kernel, stride, dilation, groups) must be
 *   spelled 1 in ONNX: the ones the IR left 0 are listed in the node's
 *   `fusionplan.ir_zero` metadata, which the importer reads back;
 * - a Concat or Identity carries `fusionplan.ir_keep` so that the importer
 *   neither merges nested Concats nor drops the Identity;
 * - tensors are rank 4 [N, C, H, W], except the outputs of Flatten and Gemm
 *   and what element-wise ops compute from them ([N, C]);
 * - constants are initializers in the layout the importer expects (Conv W
 *   [out, in/g, kh, kw], bias [out], Gemm W [out, in] with transB), with
 *   their values or, when the graph holds only shapes, the reference
 *   executor's values for the seed.
 * An op type with no ONNX form here (MatMul, Gelu, ...) is LF_EUNSUPPORTED
 * naming the op. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/exec/exec.h"
#include "planner/io/onnx_internal.h"
#include "planner/io/onnx_write_internal.h"
#include "planner/optable.h"
#include "planner/util/fileio.h"
#include "planner/util/hashmap.h"

#define LF__OW_MAX_IN 260

typedef struct lf__ow {
    const lf_graph *g;
    const lf__ox_annotations *ann;
    lf_exec *ex;               /* values of constants without data */
    lf_arena arena;
    lf_strmap names;           /* every value and node name used */
    int8_t *rank;              /* per op: ONNX rank of its output (2 or 4) */
    const char **tensor;       /* per op: its output tensor's name */
    uint8_t *const_written;    /* per constant: initializer written */
    Onnx__NodeProto **nodes;
    size_t n_nodes, cap_nodes;
    Onnx__TensorProto **inits;
    size_t n_inits, cap_inits;
    int32_t op;                /* the IR op being written (for annotations) */
} lf__ow;

static lf_status lf__oom(void) { return lf_set_error(LF_ENOMEM, "out of memory writing ONNX"); }

/* name, or name with a numeric suffix when already used. */
static const char *lf__ow_unique(lf__ow *w, const char *want)
{
    char buf[400];
    snprintf(buf, sizeof buf, "%.360s", want);
    void *v;
    for (int k = 1; lf_strmap_get(&w->names, buf, &v); k++)
        snprintf(buf, sizeof buf, "%.360s_%d", want, k);
    char *s = lf_arena_strdup(&w->arena, buf);
    if (!s || lf_strmap_put(&w->names, s, (void *)1) != LF_OK)
        return NULL;
    return s;
}

static int lf__ow_push(void ***arr, size_t *n, size_t *cap, void *item)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        void **p = realloc(*arr, c * sizeof *p);
        if (!p)
            return 0;
        *arr = p;
        *cap = c;
    }
    (*arr)[(*n)++] = item;
    return 1;
}

/* A new node of the current op with the given inputs and one output. */
static Onnx__NodeProto *lf__ow_node(lf__ow *w, const char *name, const char *op_type, const char *const *in,
                                    int32_t n_in, const char *out)
{
    Onnx__NodeProto *n = lf_arena_alloc(&w->arena, sizeof *n);
    char **ins = lf_arena_alloc(&w->arena, (size_t)(n_in ? n_in : 1) * sizeof *ins);
    char **outs = lf_arena_alloc(&w->arena, sizeof *outs);
    if (!n || !ins || !outs)
        return NULL;
    onnx__node_proto__init(n);
    for (int32_t k = 0; k < n_in; k++)
        ins[k] = (char *)in[k];
    outs[0] = (char *)out;
    n->n_input = (size_t)n_in;
    n->input = ins;
    n->n_output = 1;
    n->output = outs;
    n->name = (char *)name;
    n->op_type = (char *)op_type;
    n->domain = (char *)"";
    if (w->ann && w->ann->op && w->op >= 0 && w->ann->op[w->op] &&
        lf__ox_node_meta_add(&w->arena, n, w->ann->op[w->op], w->ann->n_op[w->op]) != LF_OK)
        return NULL;
    if (!lf__ow_push((void ***)&w->nodes, &w->n_nodes, &w->cap_nodes, n))
        return NULL;
    return n;
}

static lf_status lf__ow_attr(lf__ow *w, Onnx__NodeProto *n, const char *name, int type, int64_t i, float f,
                             const char *s, const int64_t *ints, int32_t n_ints)
{
    Onnx__AttributeProto *a = lf_arena_alloc(&w->arena, sizeof *a);
    Onnx__AttributeProto **list = lf_arena_alloc(&w->arena, (n->n_attribute + 1) * sizeof *list);
    if (!a || !list)
        return lf__oom();
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = 1;
    a->type = (Onnx__AttributeProto__AttributeType)type;
    if (type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT) {
        a->has_i = 1;
        a->i = i;
    } else if (type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT) {
        a->has_f = 1;
        a->f = f;
    } else if (type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING) {
        a->has_s = 1;
        a->s.data = (uint8_t *)s;
        a->s.len = strlen(s);
    } else {
        int64_t *c = lf_arena_alloc(&w->arena, (size_t)(n_ints ? n_ints : 1) * sizeof *c);
        if (!c)
            return lf__oom();
        if (n_ints)
            memcpy(c, ints, (size_t)n_ints * sizeof *c);
        a->n_ints = (size_t)n_ints;
        a->ints = c;
    }
    if (n->n_attribute)
        memcpy(list, n->attribute, n->n_attribute * sizeof *list);
    list[n->n_attribute++] = a;
    n->attribute = list;
    return LF_OK;
}

static lf_status lf__ow_int(lf__ow *w, Onnx__NodeProto *n, const char *name, int64_t v)
{
    return lf__ow_attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, v, 0, NULL, NULL, 0);
}
static lf_status lf__ow_float(lf__ow *w, Onnx__NodeProto *n, const char *name, float v)
{
    return lf__ow_attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, 0, v, NULL, NULL, 0);
}
static lf_status lf__ow_str(lf__ow *w, Onnx__NodeProto *n, const char *name, const char *v)
{
    return lf__ow_attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING, 0, 0, v, NULL, 0);
}
static lf_status lf__ow_ints(lf__ow *w, Onnx__NodeProto *n, const char *name, const int64_t *v, int32_t cnt)
{
    return lf__ow_attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, 0, 0, NULL, v, cnt);
}

/* An initializer: float data (not copied: it must outlive the packing) or
 * int64 data (copied). Returns its (unique) name or NULL. */
static const char *lf__ow_init_as(lf__ow *w, const char *name, const int64_t *dims, int32_t rank, const float *f,
                                  const int64_t *i64, int64_t count)
{
    Onnx__TensorProto *t = lf_arena_alloc(&w->arena, sizeof *t);
    int64_t *d = lf_arena_alloc(&w->arena, (size_t)(rank ? rank : 1) * sizeof *d);
    if (!name || !t || !d)
        return NULL;
    onnx__tensor_proto__init(t);
    if (rank)
        memcpy(d, dims, (size_t)rank * sizeof *d);
    t->n_dims = (size_t)rank;
    t->dims = d;
    t->name = (char *)name;
    t->has_data_type = 1;
    t->has_raw_data = 1;
    if (f) {
        t->data_type = LF__OX_FLOAT;
        t->raw_data.data = (uint8_t *)f;
        t->raw_data.len = (size_t)count * sizeof(float);
    } else {
        int64_t *c = lf_arena_alloc(&w->arena, (size_t)(count ? count : 1) * sizeof *c);
        if (!c)
            return NULL;
        if (count && i64)
            memcpy(c, i64, (size_t)count * sizeof *c);
        t->data_type = LF__OX_INT64;
        t->raw_data.data = (uint8_t *)c;
        t->raw_data.len = (size_t)count * sizeof(int64_t);
    }
    if (!lf__ow_push((void ***)&w->inits, &w->n_inits, &w->cap_inits, t))
        return NULL;
    return name;
}

/* The same under a new unique name derived from want. */
static const char *lf__ow_init(lf__ow *w, const char *want, const int64_t *dims, int32_t rank, const float *f,
                               const int64_t *i64, int64_t count)
{
    const char *name = lf__ow_unique(w, want);
    return name ? lf__ow_init_as(w, name, dims, rank, f, i64, count) : NULL;
}

static const char *lf__ow_ints_init(lf__ow *w, const char *op, const char *what, const int64_t *v, int32_t n)
{
    char want[400];
    snprintf(want, sizeof want, "%.300s.%s", op, what);
    int64_t dims[1] = {n};
    return lf__ow_init(w, want, dims, 1, NULL, v, n);
}

static const char *lf__ow_scalar(lf__ow *w, const char *op, const char *what, float v)
{
    char want[400];
    snprintf(want, sizeof want, "%.300s.%s", op, what);
    float *p = lf_arena_alloc(&w->arena, sizeof *p);
    if (!p)
        return NULL;
    *p = v;
    return lf__ow_init(w, want, NULL, 0, p, NULL, 1);
}

/* The values of operand pos of op v (a constant). */
static const float *lf__ow_values(lf__ow *w, int32_t v, int32_t pos, const lf_const **c)
{
    *c = lf_op_const(w->g, v, pos);
    if (!*c)
        return NULL;
    if ((*c)->data)
        return (*c)->data;
    return lf_exec_const_values(w->ex, w->g->ops[v].operands[pos].id);
}

/* Constant operand pos of op v as an initializer of the given ONNX dims
 * (same element count as the IR constant); written once per constant. */
static const char *lf__ow_const(lf__ow *w, int32_t v, int32_t pos, const int64_t *dims, int32_t rank)
{
    const lf_const *c;
    const float *f = lf__ow_values(w, v, pos, &c);
    if (!c || !f)
        return NULL;
    int32_t id = w->g->ops[v].operands[pos].id;
    if (w->const_written[id])
        return c->name;
    w->const_written[id] = 1;
    return lf__ow_init_as(w, c->name, dims, rank, f, NULL, lf_const_elems(c)); /* name claimed up front */
}

/* Constant operand pos in the frame of a rank-r tensor: [N, C, H, W] or [N, C]. */
static const char *lf__ow_const_frame(lf__ow *w, int32_t v, int32_t pos, int32_t r)
{
    const lf_const *c = lf_op_const(w->g, v, pos);
    if (!c)
        return NULL;
    int64_t d4[4] = {c->shape.n, c->shape.c, c->shape.h, c->shape.w};
    if (r == 2 && c->shape.h == 1 && c->shape.w == 1)
        return lf__ow_const(w, v, pos, d4, 2);
    return lf__ow_const(w, v, pos, d4, 4);
}

/* Activation operand: op u's tensor, as a rank-r tensor (a Flatten or a
 * Reshape is inserted when u was written with another rank). */
static const char *lf__ow_act(lf__ow *w, int32_t v, int32_t u, int32_t r)
{
    if (w->rank[u] == r)
        return w->tensor[u];
    char want[400];
    snprintf(want, sizeof want, "%.300s/rank%d", w->g->ops[v].name, (int)r);
    const char *name = lf__ow_unique(w, want);
    if (!name)
        return NULL;
    Onnx__NodeProto *n;
    if (r == 2) {
        const char *in[1] = {w->tensor[u]};
        if (!(n = lf__ow_node(w, name, "Flatten", in, 1, name)) || lf__ow_int(w, n, "axis", 1) != LF_OK)
            return NULL;
    } else {
        lf_shape s = w->g->ops[u].out;
        int64_t d[4] = {s.n, s.c, s.h, s.w};
        const char *shape = lf__ow_ints_init(w, name, "shape", d, 4);
        const char *in[2] = {w->tensor[u], shape};
        if (!shape || !(n = lf__ow_node(w, name, "Reshape", in, 2, name)))
            return NULL;
    }
    return name;
}

static lf_status lf__ow_fail(const lf__ow *w, int32_t v, const char *why)
{
    const lf_op *op = &w->g->ops[v];
    return lf_set_error(LF_EUNSUPPORTED, "ONNX export of '%s': op '%s' (%s): %s", w->g->name, op->name,
                        lf_op_info_of(op->type)->name, why);
}

/* The ONNX rank an op writes: Flatten and Gemm give [N, C]; ops that keep
 * their input's layout follow their first activation input; the rest are
 * images. */
static int8_t lf__ow_rank_of(const lf__ow *w, int32_t v)
{
    const lf_op *op = &w->g->ops[v];
    switch (op->type) {
    case LF_OP_FLATTEN:
    case LF_OP_GEMM:
        return 2;
    case LF_OP_INPUT: case LF_OP_CONV: case LF_OP_CONVTRANSPOSE: case LF_OP_MAXPOOL: case LF_OP_AVGPOOL:
    case LF_OP_GLOBALAVGPOOL: case LF_OP_GLOBALMAXPOOL: case LF_OP_RESIZE: case LF_OP_PAD:
    case LF_OP_TRANSPOSE: case LF_OP_RESHAPE: case LF_OP_EXPAND: case LF_OP_CHANNELSHUFFLE:
    case LF_OP_SLICE:
        return 4;
    default:
        break;
    }
    int8_t r = 4;
    for (int32_t k = 0; k < op->n_inputs; k++) {
        int32_t u = op->inputs[k];
        if (k == 0 || w->rank[u] == 4)
            r = w->rank[u];
    }
    /* [N, C] only when the IR shape is that. */
    return r == 2 && op->out.h == 1 && op->out.w == 1 ? 2 : 4;
}

/* ONNX axis of IR dim d in a rank-r tensor. */
static int64_t lf__ow_axis(int32_t d, int32_t r) { return r == 2 ? (d > 1 ? -1 : d) : d; }

/* The single dim of an axes mask (0 means channels), or -1. */
static int32_t lf__ow_single_dim(int32_t mask)
{
    if (mask == 0)
        return LF_DIM_C;
    for (int32_t d = 0; d < 4; d++)
        if (mask == LF_AXES(d))
            return d;
    return -1;
}

static lf_status lf__ow_window(lf__ow *w, Onnx__NodeProto *n, const lf_attrs *a, int conv, int pool_dil)
{
    int64_t k[2] = {a->kh ? a->kh : 1, a->kw ? a->kw : 1}, s[2] = {a->sh ? a->sh : 1, a->sw ? a->sw : 1};
    int64_t d[2] = {a->dh ? a->dh : 1, a->dw ? a->dw : 1};
    int64_t p[4] = {a->pad_top, a->pad_left, a->pad_bottom, a->pad_right};
    lf_status st;
    if ((st = lf__ow_ints(w, n, "kernel_shape", k, 2)) != LF_OK || (st = lf__ow_ints(w, n, "strides", s, 2)) != LF_OK ||
        (st = lf__ow_ints(w, n, "pads", p, 4)) != LF_OK)
        return st;
    if ((conv || (pool_dil && (d[0] != 1 || d[1] != 1))) && (st = lf__ow_ints(w, n, "dilations", d, 2)) != LF_OK)
        return st;
    /* The fields the IR left 0 ("means 1"), for the importer to restore. */
    char zero[64] = "";
    const struct {
        const char *name;
        int32_t v;
    } f[] = {{"kh", a->kh}, {"kw", a->kw}, {"sh", a->sh}, {"sw", a->sw}, {"dh", a->dh}, {"dw", a->dw},
             {"groups", a->groups}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].v == 0 && (conv || i < 6)) {
            if (zero[0])
                strcat(zero, ",");
            strcat(zero, f[i].name);
        }
    if (zero[0]) {
        lf__ox_prop pr = {"fusionplan.ir_zero", lf_arena_strdup(&w->arena, zero)};
        if (!pr.value)
            return lf__oom();
        return lf__ox_node_meta_add(&w->arena, n, &pr, 1);
    }
    return LF_OK;
}

/* Marks a node the importer's rewrites must leave alone (a Concat feeding a
 * Concat is two IR ops; an Identity is an op). */
static lf_status lf__ow_keep(lf__ow *w, Onnx__NodeProto *n)
{
    lf__ox_prop pr = {"fusionplan.ir_keep", "1"};
    return lf__ox_node_meta_add(&w->arena, n, &pr, 1);
}

/* The fused activation of a Conv/Gemm (optimized graphs) as its own node. */
static const char *lf__ow_act_node(lf__ow *w, int32_t v, lf_act act, const char *x, const char *out)
{
    const char *nm = w->g->ops[v].name;
    char want[400];
    snprintf(want, sizeof want, "%.300s/act", nm);
    const char *name = lf__ow_unique(w, want);
    if (!name)
        return NULL;
    Onnx__NodeProto *n = NULL;
    const char *in[3] = {x, NULL, NULL};
    switch (act) {
    case LF_ACT_RELU: n = lf__ow_node(w, name, "Relu", in, 1, out); break;
    case LF_ACT_SIGMOID: n = lf__ow_node(w, name, "Sigmoid", in, 1, out); break;
    case LF_ACT_HARDSWISH: n = lf__ow_node(w, name, "HardSwish", in, 1, out); break;
    case LF_ACT_HARDSIGMOID:
        if ((n = lf__ow_node(w, name, "HardSigmoid", in, 1, out)) &&
            (lf__ow_float(w, n, "alpha", 1.0f / 6) != LF_OK || lf__ow_float(w, n, "beta", 0.5f) != LF_OK))
            n = NULL;
        break;
    case LF_ACT_RELU6:
        in[1] = lf__ow_scalar(w, name, "min", 0.0f);
        in[2] = lf__ow_scalar(w, name, "max", 6.0f);
        n = in[1] && in[2] ? lf__ow_node(w, name, "Clip", in, 3, out) : NULL;
        break;
    case LF_ACT_SILU: {
        char sw[400];
        snprintf(sw, sizeof sw, "%.300s/sigmoid", name);
        const char *sg = lf__ow_unique(w, sw);
        in[1] = sg;
        n = sg && lf__ow_node(w, sg, "Sigmoid", in, 1, sg) ? lf__ow_node(w, name, "Mul", in, 2, out) : NULL;
        break;
    }
    default:
        break;
    }
    return n ? out : NULL;
}

/* Conv / ConvTranspose / Gemm with bias, folded BatchNorm and activation. */
static lf_status lf__ow_linear(lf__ow *w, int32_t v, const char *x)
{
    const lf_op *op = &w->g->ops[v];
    const lf_attrs *a = &op->attr;
    int gemm = op->type == LF_OP_GEMM, ct = op->type == LF_OP_CONVTRANSPOSE;
    int32_t oc = a->out_channels;
    const lf_const *wc = lf_op_const(w->g, v, op->n_inputs);
    if (!wc)
        return lf__ow_fail(w, v, "its weight is not a constant");
    const char *wt;
    if (gemm) {
        int64_t d[2] = {wc->shape.n, wc->shape.c};
        wt = lf__ow_const(w, v, op->n_inputs, d, 2);
    } else {
        int64_t d[4] = {wc->shape.n, wc->shape.c, wc->shape.h, wc->shape.w};
        wt = lf__ow_const(w, v, op->n_inputs, d, 4);
    }
    const lf_const *bc = op->n_operands > op->n_inputs + 1 ? lf_op_const(w->g, v, op->n_inputs + 1) : NULL;
    const char *bias = NULL;
    if (bc) {
        int64_t d[1] = {lf_const_elems(bc)};
        bias = lf__ow_const(w, v, op->n_inputs + 1, d, 1);
        if (!bias)
            return lf__oom();
    }
    if (!wt)
        return lf__oom();
    int bn = a->folded_bn && bc, act = a->act != LF_ACT_NONE;
    /* Node chain: linear [-> BatchNormalization] [-> activation]; the last
     * one writes the op's tensor. */
    const char *out = w->tensor[v], *lin_out = out, *bn_out = out;
    char want[400];
    if (bn || act) {
        snprintf(want, sizeof want, "%.300s/%s", op->name, gemm ? "gemm" : "conv");
        if (!(lin_out = lf__ow_unique(w, want)))
            return lf__oom();
    }
    if (bn && act) {
        snprintf(want, sizeof want, "%.300s/bn", op->name);
        if (!(bn_out = lf__ow_unique(w, want)))
            return lf__oom();
    }
    const char *in[3] = {x, wt, bn ? NULL : bias};
    Onnx__NodeProto *n = lf__ow_node(w, op->name, gemm ? "Gemm" : ct ? "ConvTranspose" : "Conv", in,
                                     in[2] ? 3 : 2, lin_out);
    if (!n)
        return lf__oom();
    lf_status st;
    if (gemm) {
        if ((st = lf__ow_int(w, n, "transB", 1)) != LF_OK)
            return st;
    } else {
        if ((st = lf__ow_window(w, n, a, 1, 0)) != LF_OK || (st = lf__ow_int(w, n, "group", a->groups ? a->groups : 1)) != LF_OK)
            return st;
        if (ct && (a->out_pad_h || a->out_pad_w)) {
            int64_t opad[2] = {a->out_pad_h, a->out_pad_w};
            if ((st = lf__ow_ints(w, n, "output_padding", opad, 2)) != LF_OK)
                return st;
        }
    }
    if (bn) {
        /* gamma 1, beta the bias, mean 0, var 1, epsilon 0: the fold gives
         * back the weights and the bias bit for bit. */
        float *ones = lf_arena_alloc(&w->arena, (size_t)oc * sizeof *ones);
        float *zeros = lf_arena_alloc(&w->arena, (size_t)oc * sizeof *zeros);
        if (!ones || !zeros)
            return lf__oom();
        for (int32_t k = 0; k < oc; k++)
            ones[k] = 1.0f;
        int64_t d[1] = {oc};
        snprintf(want, sizeof want, "%.300s/bn", op->name);
        const char *bname = lf__ow_unique(w, want);
        char pw[400];
        snprintf(pw, sizeof pw, "%.300s.gamma", bname ? bname : "");
        const char *gm = bname ? lf__ow_init(w, pw, d, 1, ones, NULL, oc) : NULL;
        snprintf(pw, sizeof pw, "%.300s.mean", bname ? bname : "");
        const char *mn = gm ? lf__ow_init(w, pw, d, 1, zeros, NULL, oc) : NULL;
        snprintf(pw, sizeof pw, "%.300s.var", bname ? bname : "");
        const char *vr = mn ? lf__ow_init(w, pw, d, 1, ones, NULL, oc) : NULL;
        const char *bin[5] = {lin_out, gm, bias, mn, vr};
        Onnx__NodeProto *b = vr ? lf__ow_node(w, bname, "BatchNormalization", bin, 5, bn_out) : NULL;
        if (!b || (st = lf__ow_float(w, b, "epsilon", 0.0f)) != LF_OK)
            return b ? st : lf__oom();
    } else {
        bn_out = lin_out;
    }
    if (act && !lf__ow_act_node(w, v, a->act, bn_out, out))
        return a->act >= LF_ACT_COUNT ? lf__ow_fail(w, v, "unknown activation") : lf__oom();
    return LF_OK;
}

static const char *lf__ow_simple_name(lf_op_type t)
{
    switch (t) {
    case LF_OP_RELU: return "Relu";
    case LF_OP_SIGMOID: return "Sigmoid";
    case LF_OP_HARDSWISH: return "HardSwish";
    case LF_OP_IDENTITY: return "Identity";
    case LF_OP_SQRT: return "Sqrt";
    case LF_OP_EXP: return "Exp";
    case LF_OP_ERF: return "Erf";
    case LF_OP_TANH: return "Tanh";
    case LF_OP_NEG: return "Neg";
    case LF_OP_LOG: return "Log";
    case LF_OP_ABS: return "Abs";
    case LF_OP_RECIPROCAL: return "Reciprocal";
    case LF_OP_FLOOR: return "Floor";
    case LF_OP_CEIL: return "Ceil";
    case LF_OP_SOFTPLUS: return "Softplus";
    case LF_OP_GLOBALAVGPOOL: return "GlobalAveragePool";
    case LF_OP_GLOBALMAXPOOL: return "GlobalMaxPool";
    case LF_OP_ADD: return "Add";
    case LF_OP_MUL: return "Mul";
    case LF_OP_SUB: return "Sub";
    case LF_OP_DIV: return "Div";
    case LF_OP_POW: return "Pow";
    case LF_OP_MAX: return "Max";
    case LF_OP_MIN: return "Min";
    case LF_OP_PRELU: return "PRelu";
    default: return NULL;
    }
}

static const char *lf__ow_reduce_name(lf_op_type t)
{
    switch (t) {
    case LF_OP_REDUCEMEAN: return "ReduceMean";
    case LF_OP_REDUCESUM: return "ReduceSum";
    case LF_OP_REDUCEMAX: return "ReduceMax";
    case LF_OP_REDUCEMIN: return "ReduceMin";
    case LF_OP_REDUCEPROD: return "ReduceProd";
    case LF_OP_REDUCESUMSQUARE: return "ReduceSumSquare";
    case LF_OP_REDUCEL2: return "ReduceL2";
    default: return NULL;
    }
}

/* Operands of op v in order: activations as rank-r tensors, constants in
 * the rank-r frame. */
static lf_status lf__ow_operands(lf__ow *w, int32_t v, int32_t r, const char **in, int32_t *n_in)
{
    const lf_op *op = &w->g->ops[v];
    if (op->n_operands > LF__OW_MAX_IN)
        return lf__ow_fail(w, v, "too many operands");
    for (int32_t k = 0; k < op->n_operands; k++) {
        const lf_operand *o = &op->operands[k];
        in[k] = o->kind == LF_OPND_TENSOR ? lf__ow_act(w, v, o->id, r) : lf__ow_const_frame(w, v, k, r);
        if (!in[k])
            return lf__oom();
    }
    *n_in = op->n_operands;
    return LF_OK;
}

static lf_status lf__ow_op(lf__ow *w, int32_t v)
{
    const lf_op *op = &w->g->ops[v];
    const lf_attrs *a = &op->attr;
    int32_t r = w->rank[v];
    const char *in[LF__OW_MAX_IN + 2];
    int32_t n_in = 0;
    const char *out = w->tensor[v];
    Onnx__NodeProto *n = NULL;
    lf_status st = LF_OK;
    const char *simple = lf__ow_simple_name(op->type), *reduce = lf__ow_reduce_name(op->type);
    if (simple) {
        if ((st = lf__ow_operands(w, v, r, in, &n_in)) != LF_OK)
            return st;
        if (!(n = lf__ow_node(w, op->name, simple, in, n_in, out)))
            return lf__oom();
        return op->type == LF_OP_IDENTITY ? lf__ow_keep(w, n) : LF_OK;
    }
    if (reduce) {
        if ((st = lf__ow_operands(w, v, r, in, &n_in)) != LF_OK)
            return st;
        int64_t axes[4];
        int32_t cnt = 0;
        int32_t mask = a->axes ? a->axes : LF_AXES(LF_DIM_C);
        for (int32_t d = 0; d < 4; d++)
            if (mask & LF_AXES(d))
                axes[cnt++] = lf__ow_axis(d, r);
        if (op->type == LF_OP_REDUCESUM) { /* axes an input from opset 13 */
            if (!(in[n_in++] = lf__ow_ints_init(w, op->name, "axes", axes, cnt)))
                return lf__oom();
            n = lf__ow_node(w, op->name, reduce, in, n_in, out);
        } else if ((n = lf__ow_node(w, op->name, reduce, in, n_in, out)) != NULL) {
            st = lf__ow_ints(w, n, "axes", axes, cnt);
        }
        return !n ? lf__oom() : st != LF_OK ? st : lf__ow_int(w, n, "keepdims", 1);
    }
    switch (op->type) {
    case LF_OP_CONV:
    case LF_OP_CONVTRANSPOSE:
        return lf__ow_linear(w, v, lf__ow_act(w, v, op->inputs[0], 4));
    case LF_OP_GEMM:
        return lf__ow_linear(w, v, lf__ow_act(w, v, op->inputs[0], 2));
    case LF_OP_SILU: {
        char want[400];
        snprintf(want, sizeof want, "%.300s/sigmoid", op->name);
        const char *sg = lf__ow_unique(w, want), *x = lf__ow_act(w, v, op->inputs[0], r);
        const char *sin[2] = {x, sg};
        if (!sg || !x || !lf__ow_node(w, sg, "Sigmoid", sin, 1, sg) || !lf__ow_node(w, op->name, "Mul", sin, 2, out))
            return lf__oom();
        return LF_OK;
    }
    case LF_OP_HARDSIGMOID:
    case LF_OP_LEAKYRELU:
    case LF_OP_ELU: {
        const char *x = lf__ow_act(w, v, op->inputs[0], r);
        const char *t = op->type == LF_OP_HARDSIGMOID ? "HardSigmoid" : op->type == LF_OP_LEAKYRELU ? "LeakyRelu" : "Elu";
        if (!x || !(n = lf__ow_node(w, op->name, t, &x, 1, out)))
            return lf__oom();
        if (op->type == LF_OP_HARDSIGMOID) {
            int torch = a->alpha == 0.0f;
            if ((st = lf__ow_float(w, n, "alpha", torch ? 1.0f / 6 : a->alpha)) != LF_OK)
                return st;
            return lf__ow_float(w, n, "beta", torch ? 0.5f : a->beta);
        }
        return lf__ow_float(w, n, "alpha", a->alpha != 0.0f ? a->alpha : op->type == LF_OP_LEAKYRELU ? 0.01f : 1.0f);
    }
    case LF_OP_CLIP: {
        in[0] = lf__ow_act(w, v, op->inputs[0], r);
        in[1] = lf__ow_scalar(w, op->name, "min", a->clip_min);
        in[2] = lf__ow_scalar(w, op->name, "max", a->clip_max);
        return in[0] && in[1] && in[2] && lf__ow_node(w, op->name, "Clip", in, 3, out) ? LF_OK : lf__oom();
    }
    case LF_OP_BATCHNORM: {
        if ((st = lf__ow_operands(w, v, r, in, &n_in)) != LF_OK)
            return st;
        if (n_in == 3) {
            /* x * scale + shift: BatchNormalization with mean 0, var 1, epsilon 0 */
            int64_t c = op->out.c, d[1] = {c};
            float *ones = lf_arena_alloc(&w->arena, (size_t)c * sizeof *ones);
            float *zeros = lf_arena_alloc(&w->arena, (size_t)c * sizeof *zeros);
            const lf_const *sc, *sh;
            const float *sv = lf__ow_values(w, v, 1, &sc), *hv = lf__ow_values(w, v, 2, &sh);
            if (!ones || !zeros || !sv || !hv)
                return lf__oom();
            for (int64_t k = 0; k < c; k++)
                ones[k] = 1.0f;
            /* the constants again, as vectors */
            char want[400];
            snprintf(want, sizeof want, "%.300s.bn_scale", op->name);
            in[1] = lf__ow_init(w, want, d, 1, sv, NULL, c);
            snprintf(want, sizeof want, "%.300s.bn_shift", op->name);
            in[2] = lf__ow_init(w, want, d, 1, hv, NULL, c);
            snprintf(want, sizeof want, "%.300s.bn_mean", op->name);
            in[3] = lf__ow_init(w, want, d, 1, zeros, NULL, c);
            snprintf(want, sizeof want, "%.300s.bn_var", op->name);
            in[4] = lf__ow_init(w, want, d, 1, ones, NULL, c);
            n_in = 5;
            if (!in[1] || !in[2] || !in[3] || !in[4])
                return lf__oom();
        }
        if (!(n = lf__ow_node(w, op->name, "BatchNormalization", in, n_in, out)))
            return lf__oom();
        return lf__ow_float(w, n, "epsilon", n_in == 5 && op->n_operands == 3 ? 0.0f : a->epsilon ? a->epsilon : 1e-5f);
    }
    case LF_OP_CONCAT: {
        int32_t d = lf__ow_single_dim(a->axes);
        if (d < 0)
            return lf__ow_fail(w, v, "axes other than one dim");
        if ((st = lf__ow_operands(w, v, r, in, &n_in)) != LF_OK)
            return st;
        if (!(n = lf__ow_node(w, op->name, "Concat", in, n_in, out)) || lf__ow_keep(w, n) != LF_OK)
            return lf__oom();
        return lf__ow_int(w, n, "axis", lf__ow_axis(d, r));
    }
    case LF_OP_SLICE: {
        int32_t d = lf__ow_single_dim(a->axes);
        if (d < 0)
            return lf__ow_fail(w, v, "axes other than one dim");
        int64_t s = a->slice_begin, e = a->slice_end, ax = d, st1 = a->slice_step ? a->slice_step : 1;
        in[0] = lf__ow_act(w, v, op->inputs[0], 4);
        in[1] = lf__ow_ints_init(w, op->name, "starts", &s, 1);
        in[2] = lf__ow_ints_init(w, op->name, "ends", &e, 1);
        in[3] = lf__ow_ints_init(w, op->name, "axes", &ax, 1);
        in[4] = lf__ow_ints_init(w, op->name, "steps", &st1, 1);
        for (int k = 0; k < 5; k++)
            if (!in[k])
                return lf__oom();
        return lf__ow_node(w, op->name, "Slice", in, 5, out) ? LF_OK : lf__oom();
    }
    case LF_OP_MAXPOOL:
    case LF_OP_AVGPOOL: {
        const char *x = lf__ow_act(w, v, op->inputs[0], 4);
        if (!x || !(n = lf__ow_node(w, op->name, op->type == LF_OP_MAXPOOL ? "MaxPool" : "AveragePool", &x, 1, out)))
            return lf__oom();
        if (op->type == LF_OP_AVGPOOL && ((a->dh && a->dh != 1) || (a->dw && a->dw != 1)))
            return lf__ow_fail(w, v, "a dilated AveragePool (opset 19)");
        if ((st = lf__ow_window(w, n, a, 0, op->type == LF_OP_MAXPOOL)) != LF_OK)
            return st;
        if (a->ceil_mode && (st = lf__ow_int(w, n, "ceil_mode", 1)) != LF_OK)
            return st;
        if (op->type == LF_OP_AVGPOOL && a->count_include_pad)
            return lf__ow_int(w, n, "count_include_pad", 1);
        return LF_OK;
    }
    case LF_OP_PAD: {
        int64_t p[8] = {0, 0, a->pad_top, a->pad_left, 0, 0, a->pad_bottom, a->pad_right};
        in[0] = lf__ow_act(w, v, op->inputs[0], 4);
        in[1] = lf__ow_ints_init(w, op->name, "pads", p, 8);
        in[2] = lf__ow_scalar(w, op->name, "value", a->pad_value);
        if (!in[0] || !in[1] || !in[2] || !(n = lf__ow_node(w, op->name, "Pad", in, 3, out)))
            return lf__oom();
        return lf__ow_str(w, n, "mode", a->pad_mode == LF_PAD_REFLECT ? "reflect" : a->pad_mode == LF_PAD_EDGE ? "edge" : "constant");
    }
    case LF_OP_RESIZE: {
        static const char *coords[] = {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
                                       "tf_half_pixel_for_nn"};
        static const char *nearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
        int64_t sz[4] = {op->out.n, op->out.c, op->out.h, op->out.w};
        in[0] = lf__ow_act(w, v, op->inputs[0], 4);
        in[1] = "";
        in[2] = "";
        in[3] = lf__ow_ints_init(w, op->name, "sizes", sz, 4);
        if (!in[0] || !in[3] || !(n = lf__ow_node(w, op->name, "Resize", in, 4, out)))
            return lf__oom();
        if (a->coord_mode < 0 || a->coord_mode > 4 || a->nearest_mode < 0 || a->nearest_mode > 3)
            return lf__ow_fail(w, v, "unknown coordinate or nearest mode");
        if ((st = lf__ow_str(w, n, "mode", a->linear == 0 ? "nearest" : a->linear == 2 ? "cubic" : "linear")) != LF_OK ||
            (st = lf__ow_str(w, n, "coordinate_transformation_mode", coords[a->coord_mode])) != LF_OK)
            return st;
        if (a->linear == 0)
            return lf__ow_str(w, n, "nearest_mode", nearest[a->nearest_mode]);
        if (a->linear == 2)
            return lf__ow_float(w, n, "cubic_coeff_a", a->alpha != 0.0f ? a->alpha : -0.75f);
        return LF_OK;
    }
    case LF_OP_FLATTEN: {
        const char *x = lf__ow_act(w, v, op->inputs[0], w->rank[op->inputs[0]]);
        if (!x || !(n = lf__ow_node(w, op->name, "Flatten", &x, 1, out)))
            return lf__oom();
        return lf__ow_int(w, n, "axis", 1);
    }
    case LF_OP_RESHAPE:
    case LF_OP_EXPAND: {
        int64_t sz[4] = {op->out.n, op->out.c, op->out.h, op->out.w};
        in[0] = lf__ow_act(w, v, op->inputs[0], w->rank[op->inputs[0]]);
        in[1] = lf__ow_ints_init(w, op->name, "shape", sz, 4);
        if (!in[0] || !in[1])
            return lf__oom();
        return lf__ow_node(w, op->name, op->type == LF_OP_RESHAPE ? "Reshape" : "Expand", in, 2, out) ? LF_OK : lf__oom();
    }
    case LF_OP_TRANSPOSE: {
        int64_t perm[4];
        for (int k = 0; k < 4; k++)
            perm[k] = a->perm[k];
        const char *x = lf__ow_act(w, v, op->inputs[0], 4);
        if (!x || !(n = lf__ow_node(w, op->name, "Transpose", &x, 1, out)))
            return lf__oom();
        return lf__ow_ints(w, n, "perm", perm, 4);
    }
    case LF_OP_SOFTMAX:
    case LF_OP_LOGSOFTMAX: {
        int32_t d = lf__ow_single_dim(a->axes);
        if (d < 0)
            return lf__ow_fail(w, v, "over more than one dim");
        const char *x = lf__ow_act(w, v, op->inputs[0], r);
        if (!x || !(n = lf__ow_node(w, op->name, op->type == LF_OP_SOFTMAX ? "Softmax" : "LogSoftmax", &x, 1, out)))
            return lf__oom();
        return lf__ow_int(w, n, "axis", lf__ow_axis(d, r));
    }
    case LF_OP_LAYERNORM: {
        int32_t lo = -1;
        for (int32_t d = 0; d < 4 && lo < 0; d++)
            if (a->axes & LF_AXES(d))
                lo = d;
        if (lo < 0 || a->axes != ((LF_AXES(4) - 1) & ~(LF_AXES(lo) - 1)))
            return lf__ow_fail(w, v, "not over the trailing dims");
        in[0] = lf__ow_act(w, v, op->inputs[0], 4);
        n_in = 1;
        for (int32_t k = 1; k < op->n_operands; k++) {
            const lf_const *c = lf_op_const(w->g, v, k);
            if (!c)
                return lf__ow_fail(w, v, "scale or bias is not a constant");
            int64_t all[4] = {c->shape.n, c->shape.c, c->shape.h, c->shape.w};
            if (!(in[n_in++] = lf__ow_const(w, v, k, all + lo, 4 - lo)))
                return lf__oom();
        }
        if (!in[0] || !(n = lf__ow_node(w, op->name, "LayerNormalization", in, n_in, out)))
            return lf__oom();
        if ((st = lf__ow_int(w, n, "axis", lo)) != LF_OK)
            return st;
        return lf__ow_float(w, n, "epsilon", a->epsilon != 0.0f ? a->epsilon : 1e-5f);
    }
    case LF_OP_CHANNELSHUFFLE: {
        lf_shape s = op->out;
        int64_t g = a->groups ? a->groups : 1;
        int64_t d5[5] = {s.n, g, s.c / g, s.h, s.w}, d4[4] = {s.n, s.c, s.h, s.w}, perm[5] = {0, 2, 1, 3, 4};
        char want[400];
        snprintf(want, sizeof want, "%.300s/grouped", op->name);
        const char *t1 = lf__ow_unique(w, want);
        snprintf(want, sizeof want, "%.300s/transpose", op->name);
        const char *t2 = lf__ow_unique(w, want);
        snprintf(want, sizeof want, "%.300s/reshape", op->name);
        const char *n3 = lf__ow_unique(w, want);
        in[0] = lf__ow_act(w, v, op->inputs[0], 4);
        in[1] = lf__ow_ints_init(w, op->name, "shape5", d5, 5);
        const char *in3[2] = {t2, lf__ow_ints_init(w, op->name, "shape4", d4, 4)};
        if (!t1 || !t2 || !n3 || !in[0] || !in[1] || !in3[1] || !lf__ow_node(w, op->name, "Reshape", in, 2, t1) ||
            !(n = lf__ow_node(w, t2, "Transpose", &t1, 1, t2)) || lf__ow_ints(w, n, "perm", perm, 5) != LF_OK ||
            !lf__ow_node(w, n3, "Reshape", in3, 2, out))
            return lf__oom();
        return LF_OK;
    }
    default:
        return lf__ow_fail(w, v, "no ONNX form in the exporter");
    }
}

static Onnx__ValueInfoProto *lf__ow_value_info(lf__ow *w, const char *name, const int64_t *dims, int32_t rank)
{
    Onnx__ValueInfoProto *vi = lf_arena_alloc(&w->arena, sizeof *vi);
    Onnx__TypeProto *tp = lf_arena_alloc(&w->arena, sizeof *tp);
    Onnx__TypeProto__Tensor *tt = lf_arena_alloc(&w->arena, sizeof *tt);
    Onnx__TensorShapeProto *sp = lf_arena_alloc(&w->arena, sizeof *sp);
    Onnx__TensorShapeProto__Dimension **dl = lf_arena_alloc(&w->arena, 4 * sizeof *dl);
    if (!vi || !tp || !tt || !sp || !dl)
        return NULL;
    onnx__value_info_proto__init(vi);
    onnx__type_proto__init(tp);
    onnx__type_proto__tensor__init(tt);
    onnx__tensor_shape_proto__init(sp);
    for (int32_t k = 0; k < rank; k++) {
        Onnx__TensorShapeProto__Dimension *d = lf_arena_alloc(&w->arena, sizeof *d);
        if (!d)
            return NULL;
        onnx__tensor_shape_proto__dimension__init(d);
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        d->dim_value = dims[k];
        dl[k] = d;
    }
    sp->n_dim = (size_t)rank;
    sp->dim = dl;
    tt->has_elem_type = 1;
    tt->elem_type = LF__OX_FLOAT;
    tt->shape = sp;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    vi->name = (char *)name;
    vi->type = tp;
    return vi;
}

static lf_status lf__ow_build(lf__ow *w, uint64_t seed, uint8_t **out, size_t *len)
{
    const lf_graph *g = w->g;
    lf_exec_options eo = {0};
    eo.seed = seed;
    eo.threads = 1;
    lf_status st = lf_exec_create(&w->ex, g, &eo);
    if (st != LF_OK)
        return st;
    w->rank = calloc((size_t)g->n_ops + 1, sizeof *w->rank);
    w->tensor = calloc((size_t)g->n_ops + 1, sizeof *w->tensor);
    w->const_written = calloc((size_t)g->n_consts + 1, 1);
    Onnx__ValueInfoProto **inputs = calloc((size_t)g->n_ops + 1, sizeof *inputs);
    Onnx__ValueInfoProto **outputs = calloc((size_t)g->n_ops + 1, sizeof *outputs);
    size_t n_inputs = 0, n_outputs = 0;
    if (!w->rank || !w->tensor || !w->const_written || !inputs || !outputs)
        st = lf__oom();
    /* Every op and constant name is taken first, so helper names never
     * take one of them. */
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++)
        if (!(w->tensor[v] = lf__ow_unique(w, g->ops[v].name)))
            st = lf__oom();
    for (int32_t j = 0; j < g->n_consts && st == LF_OK; j++) {
        void *x;
        if (!lf_strmap_get(&w->names, g->consts[j].name, &x) && !lf__ow_unique(w, g->consts[j].name))
            st = lf__oom();
    }
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
        const lf_op *op = &g->ops[v];
        w->rank[v] = lf__ow_rank_of(w, v);
        w->op = v;
        if (op->type == LF_OP_INPUT) {
            int64_t d[4] = {op->out.n, op->out.c, op->out.h, op->out.w};
            if (!(inputs[n_inputs++] = lf__ow_value_info(w, w->tensor[v], d, 4)))
                st = lf__oom();
            continue;
        }
        st = lf__ow_op(w, v);
        if (st == LF_OK && op->is_output) {
            int64_t d[4] = {op->out.n, op->out.c, op->out.h, op->out.w};
            if (w->rank[v] == 2)
                d[1] = op->out.c;
            if (!(outputs[n_outputs++] = lf__ow_value_info(w, w->tensor[v], d, w->rank[v])))
                st = lf__oom();
        }
    }
    if (st == LF_OK) {
        Onnx__GraphProto gp = ONNX__GRAPH_PROTO__INIT;
        gp.name = g->name;
        gp.n_node = w->n_nodes;
        gp.node = w->nodes;
        gp.n_initializer = w->n_inits;
        gp.initializer = w->inits;
        gp.n_input = n_inputs;
        gp.input = inputs;
        gp.n_output = n_outputs;
        gp.output = outputs;
        Onnx__OperatorSetIdProto ops = ONNX__OPERATOR_SET_ID_PROTO__INIT, *opsp = &ops;
        ops.domain = (char *)"";
        ops.has_version = 1;
        ops.version = LF__OW_OPSET;
        Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
        m.has_ir_version = 1;
        m.ir_version = LF__OW_IR_VERSION;
        m.n_opset_import = 1;
        m.opset_import = &opsp;
        m.producer_name = (char *)"fusionplan";
        m.producer_version = (char *)LF_VERSION;
        m.graph = &gp;
        if (w->ann)
            st = lf__ox_model_meta_add(&w->arena, &m, w->ann->model, w->ann->n_model);
        if (st == LF_OK) {
            *len = onnx__model_proto__get_packed_size(&m);
            if (!(*out = malloc(*len ? *len : 1)))
                st = lf__oom();
            else
                onnx__model_proto__pack(&m, *out);
        }
    }
    free(inputs);
    free(outputs);
    return st;
}

lf_status lf__onnx_pack_graph(const lf_graph *g, uint64_t seed, const lf__ox_annotations *ann, uint8_t **out,
                              size_t *len)
{
    *out = NULL;
    *len = 0;
    lf__ow w;
    memset(&w, 0, sizeof w);
    w.g = g;
    w.ann = ann;
    w.op = -1;
    lf_arena_init(&w.arena);
    lf_status st = lf_strmap_init(&w.names, 1024);
    if (st == LF_OK)
        st = lf__ow_build(&w, seed, out, len);
    lf_strmap_destroy(&w.names);
    lf_arena_destroy(&w.arena);
    lf_exec_free(w.ex);
    free(w.rank);
    free(w.tensor);
    free(w.const_written);
    free(w.nodes);
    free(w.inits);
    return st;
}

lf_status lf_onnx_write_graph(const char *path, const lf_graph *g, uint64_t seed)
{
    if (!path || !g)
        return lf_set_error(LF_EINVAL, "lf_onnx_write_graph needs a path and a graph");
    uint8_t *buf = NULL;
    size_t len = 0;
    lf_status st = lf__onnx_pack_graph(g, seed, NULL, &buf, &len);
    if (st != LF_OK)
        return st;
    lf_atomic_file af;
    if ((st = lf_atomic_open(&af, path)) == LF_OK) {
        if (fwrite(buf, 1, len, af.f) != len) {
            lf_atomic_abort(&af);
            st = lf_set_error(LF_EIO, "%s: write failed", path);
        } else {
            st = lf_atomic_commit(&af);
        }
    }
    free(buf);
    return st;
}

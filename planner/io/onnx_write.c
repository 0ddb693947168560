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
 * - tensors are rank 4 [N, C, H, W], except the outputs of Flatten and Gemm,
 *   a Reshape to [N, C, 1, 1] read only by Gemms, and what element-wise ops
 *   compute from them ([N, C]);
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

#include "planner/io/onnx_write_state.h"
#include "planner/optable.h"
#include "planner/util/fileio.h"
#include "planner/util/hashmap.h"

/* The ONNX rank an op writes: Flatten and Gemm give [N, C]; ops that keep
 * their input's layout follow their first activation input; the rest are
 * images. */
int8_t lf__ow_rank_of(const lf__ow *w, int32_t v)
{
    const lf_op *op = &w->g->ops[v];
    switch (op->type) {
    case LF_OP_FLATTEN:
    case LF_OP_GEMM:
        return 2;
    case LF_OP_RESHAPE: {
        /* [N, C] when only Gemms read it (a vision transformer's token rows
         * into nn.MultiheadAttention's out_proj, torch's reshape before the
         * head), as the importer reads a rank-2 Reshape back */
        int gemms = op->n_consumers > 0 && op->out.h == 1 && op->out.w == 1 && !op->is_output;
        for (int32_t k = 0; k < op->n_consumers && gemms; k++)
            gemms = w->g->ops[op->consumers[k]].type == LF_OP_GEMM;
        return gemms ? 2 : 4;
    }
    case LF_OP_INPUT: case LF_OP_CONV: case LF_OP_CONVTRANSPOSE: case LF_OP_MAXPOOL: case LF_OP_AVGPOOL:
    case LF_OP_GLOBALAVGPOOL: case LF_OP_GLOBALMAXPOOL: case LF_OP_RESIZE: case LF_OP_PAD:
    case LF_OP_TRANSPOSE: case LF_OP_EXPAND: case LF_OP_CHANNELSHUFFLE:
    case LF_OP_SLICE: case LF_OP_MATMUL: case LF_OP_GATHER:
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

/* value_info for the tensors the nodes of op v (w->nodes[first..]) make,
 * but a graph output: Stream's ONNX reader (and any reader without shape
 * inference) needs a shape for each. A helper node's output has the op's
 * shape (Conv before its BatchNormalization, SiLU's Sigmoid, the steps of a
 * written-out Gelu, a causal mask's Add); helpers that change the shape
 * (the 5-D tensors inside ChannelShuffle's Reshape-Transpose-Reshape, a
 * MatMul operand's Transpose, a rank change's Flatten or Reshape) are left
 * to shape inference. */
static lf_status lf__ow_inner_shapes(lf__ow *w, int32_t v, size_t first, void ***arr, size_t *n, size_t *cap)
{
    const lf_op *op = &w->g->ops[v];
    int64_t d[4] = {op->out.n, op->out.c, op->out.h, op->out.w};
    for (size_t k = first; k < w->n_nodes; k++) {
        const Onnx__NodeProto *nd = w->nodes[k];
        int helper_5d = k + 1 < w->n_nodes && nd->op_type &&
                        (strcmp(nd->op_type, "Transpose") == 0 || strcmp(nd->op_type, "Reshape") == 0 ||
                         strcmp(nd->op_type, "Flatten") == 0);
        for (size_t o = 0; o < nd->n_output; o++) {
            const char *t = nd->output[o];
            int mine = t && strcmp(t, w->tensor[v]) == 0;
            if (!t || !*t || (mine && op->is_output) || (!mine && helper_5d))
                continue;
            int64_t dr[4] = {d[0], d[1], d[2], d[3]};
            for (int32_t q = 0; q < w->n_reduced && !mine; q++)
                if (strcmp(t, w->reduced[q]) == 0)
                    for (int32_t k2 = 0; k2 < 4; k2++)
                        dr[k2] = (w->reduced_mask & LF_AXES(k2)) ? 1 : dr[k2];
            Onnx__ValueInfoProto *vi = lf__ow_value_info(w, t, dr, w->rank[v]);
            if (!vi || !lf__ow_push(arr, n, cap, vi))
                return lf__ow_oom();
        }
    }
    return LF_OK;
}

static lf_status lf__ow_build(lf__ow *w, uint64_t seed, uint8_t **out, size_t *len)
{
    const lf_graph *g = w->g;
    /* One protobuf message holds at most 2 GB (ONNX keeps bigger weights as
     * external data, which this writer does not write): refused before the
     * weights are drawn. */
    double bytes = 0;
    for (int32_t j = 0; j < g->n_consts; j++)
        bytes += 4.0 * (double)lf_const_elems(&g->consts[j]);
    if (bytes >= 2147483648.0)
        return lf_set_error(LF_EUNSUPPORTED,
                            "ONNX export of '%s': %.2f GB of weights, over protobuf's 2 GB limit for one "
                            "ONNX file (weights as external data are not written)",
                            g->name, bytes / 1e9);
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
    Onnx__ValueInfoProto **inner = NULL; /* value_info: every intermediate tensor */
    size_t n_inputs = 0, n_outputs = 0, n_inner = 0, cap_inner = 0;
    if (!w->rank || !w->tensor || !w->const_written || !inputs || !outputs)
        st = lf__ow_oom();
    /* Every op and constant name is taken first, so helper names never
     * take one of them. */
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++)
        if (!(w->tensor[v] = lf__ow_unique(w, g->ops[v].name)))
            st = lf__ow_oom();
    for (int32_t j = 0; j < g->n_consts && st == LF_OK; j++) {
        void *x;
        if (!lf_strmap_get(&w->names, g->consts[j].name, &x) && !lf__ow_unique(w, g->consts[j].name))
            st = lf__ow_oom();
    }
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
        const lf_op *op = &g->ops[v];
        w->rank[v] = lf__ow_rank_of(w, v);
        w->op = v;
        w->n_reduced = 0;
        if (op->type == LF_OP_INPUT) {
            int64_t d[4] = {op->out.n, op->out.c, op->out.h, op->out.w};
            int ids = lf__ow_ids_input(g, v); /* token ids: int64 [N, 1, T], as ONNX's Gather wants */
            if (!(inputs[n_inputs++] = lf__ow_value_info(w, w->tensor[v], d, ids ? 3 : 4)))
                st = lf__ow_oom();
            else if (ids)
                inputs[n_inputs - 1]->type->tensor_type->elem_type = LF__OX_INT64;
            continue;
        }
        size_t first = w->n_nodes;
        st = lf__ow_op(w, v);
        if (st == LF_OK)
            st = lf__ow_inner_shapes(w, v, first, (void ***)&inner, &n_inner, &cap_inner);
        if (st == LF_OK && op->is_output) {
            int64_t d[4] = {op->out.n, op->out.c, op->out.h, op->out.w};
            if (w->rank[v] == 2)
                d[1] = op->out.c;
            if (!(outputs[n_outputs++] = lf__ow_value_info(w, w->tensor[v], d, w->rank[v])))
                st = lf__ow_oom();
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
        gp.n_value_info = n_inner;
        gp.value_info = inner;
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
                st = lf__ow_oom();
            else
                onnx__model_proto__pack(&m, *out);
        }
    }
    free(inputs);
    free(outputs);
    free(inner);
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

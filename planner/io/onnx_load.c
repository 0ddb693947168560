/* ModelProto -> the importer's graph: opset check, graph inputs with their
 * declared shapes, initializers and Constant nodes as constants, nodes with
 * their attributes. Nothing here interprets an op; that is onnx_infer.c. */
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_functions.h"
#include "planner/io/onnx_ops.h"
#include "planner/io/onnx_proto.h"
#include "planner/io/onnx_write_internal.h"

static int lf__default_domain(const char *d) { return !d || !*d || strcmp(d, "ai.onnx") == 0; }

/* A graph input's declared type and shape; free dims stay -1 with their name. */
static lf_status lf__load_input(lf__ox_graph *g, const Onnx__ValueInfoProto *vi)
{
    if (!vi->name || !*vi->name)
        return lf__ox_fail(g, -1, LF_EPARSE, "a graph input has no name");
    int32_t id = lf__ox_value_id(g, vi->name);
    if (id < 0)
        return (lf_status)id;
    lf__ox_value *v = &g->values[id];
    if (v->is_const)
        return LF_OK; /* an initializer listed as input (IR version < 4): a constant */
    v->is_input = 1;
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "graph input '%s' is not a tensor", vi->name);
    v->elem_type = tp->tensor_type->has_elem_type ? tp->tensor_type->elem_type : 0;
    const Onnx__TensorShapeProto *sh = tp->tensor_type->shape;
    if (!sh)
        return LF_OK; /* rank unknown: --input-shape must give it */
    if (sh->n_dim > LF__OX_MAX_RANK)
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "graph input '%s' has rank %zu (at most %d)", vi->name,
                           sh->n_dim, LF__OX_MAX_RANK);
    v->rank = (int32_t)sh->n_dim;
    for (size_t k = 0; k < sh->n_dim; k++) {
        const Onnx__TensorShapeProto__Dimension *d = sh->dim[k];
        v->dims[k] = -1;
        if (d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value >= 0)
            v->dims[k] = d->dim_value; /* 0: an empty tensor (refused in onnx_infer.c) */
        else if (d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param)
            v->dim_param[k] = lf_arena_strdup(&g->arena, d->dim_param);
    }
    return LF_OK;
}

static lf_status lf__load_const(lf__ox_graph *g, const char *name, const Onnx__TensorProto *t,
                                const char *base_dir, int32_t *id_out)
{
    int32_t id = lf__ox_value_id(g, name);
    if (id < 0)
        return (lf_status)id;
    if (g->values[id].is_const || g->values[id].producer >= 0)
        return lf__ox_fail(g, -1, LF_EGRAPH, "value '%s' is defined twice", name);
    lf__ox_data d;
    lf_status st = lf__ox_tensor_read(g, t, base_dir, &d);
    if (st != LF_OK)
        return st;
    lf__ox_set_const(g, id, &d);
    if (id_out)
        *id_out = id;
    return LF_OK;
}

/* Constant node: its one output becomes a constant, no node is kept. */
static lf_status lf__load_constant_node(lf__ox_graph *g, const Onnx__NodeProto *n, int32_t index,
                                        const char *base_dir)
{
    const char *what = n->name && *n->name ? n->name : "Constant";
    if (n->n_output != 1 || !n->output[0] || !*n->output[0] || n->n_attribute != 1)
        return lf__ox_fail(g, -1, LF_EPARSE, "node '%s' (Constant) #%d needs one output and one value "
                           "attribute", what, (int)index);
    const Onnx__AttributeProto *a = n->attribute[0];
    const char *out = n->output[0];
    if (a->name && strcmp(a->name, "value") == 0 && a->t)
        return lf__load_const(g, out, a->t, base_dir, NULL);
    int32_t id = lf__ox_value_id(g, out);
    if (id < 0)
        return (lf_status)id;
    if (g->values[id].is_const || g->values[id].producer >= 0)
        return lf__ox_fail(g, -1, LF_EGRAPH, "value '%s' is defined twice", out);
    lf__ox_data d;
    int64_t dims[1];
    lf_status st;
    const char *an = a->name ? a->name : "";
    if (strcmp(an, "value_float") == 0 || strcmp(an, "value_int") == 0) {
        int is_int = an[6] == 'i';
        if ((st = lf__ox_data_alloc(g, &d, is_int, 0, dims)) != LF_OK)
            return st;
        if (is_int)
            d.i[0] = a->i;
        else
            d.f[0] = a->f;
    } else if (strcmp(an, "value_floats") == 0 || strcmp(an, "value_ints") == 0) {
        int is_int = an[6] == 'i';
        dims[0] = (int64_t)(is_int ? a->n_ints : a->n_floats);
        if ((st = lf__ox_data_alloc(g, &d, is_int, 1, dims)) != LF_OK)
            return st;
        for (int64_t k = 0; k < dims[0]; k++) {
            if (is_int)
                d.i[k] = a->ints[k];
            else
                d.f[k] = a->floats[k];
        }
    } else {
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "node '%s' (Constant): attribute '%s' is not supported "
                           "(value, value_float(s), value_int(s) are)", what, an);
    }
    lf__ox_set_const(g, id, &d);
    return LF_OK;
}

static lf_status lf__load_attrs(lf__ox_graph *g, lf__ox_node *node, const Onnx__NodeProto *n,
                                const char *base_dir)
{
    node->n_attr = (int32_t)n->n_attribute;
    node->attr = lf_arena_alloc(&g->arena, (n->n_attribute ? n->n_attribute : 1) * sizeof *node->attr);
    if (!node->attr)
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    for (size_t k = 0; k < n->n_attribute; k++) {
        const Onnx__AttributeProto *a = n->attribute[k];
        lf__ox_attr *d = &node->attr[k];
        d->name = lf_arena_strdup(&g->arena, a->name ? a->name : "");
        d->type = a->has_type ? (int32_t)a->type : 0;
        d->tensor = -1;
        d->f = a->f;
        d->i = a->i;
        if (a->has_s || a->s.data) {
            char *s = lf_arena_alloc(&g->arena, a->s.len + 1);
            if (!s)
                return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
            if (a->s.len)
                memcpy(s, a->s.data, a->s.len);
            d->s = s;
        }
        if (a->n_ints) {
            d->ints = lf_arena_alloc(&g->arena, a->n_ints * sizeof *d->ints);
            if (!d->ints)
                return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
            memcpy(d->ints, a->ints, a->n_ints * sizeof *d->ints);
            d->n = (int32_t)a->n_ints;
        } else if (a->n_floats) {
            d->floats = lf_arena_alloc(&g->arena, a->n_floats * sizeof *d->floats);
            if (!d->floats)
                return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
            memcpy(d->floats, a->floats, a->n_floats * sizeof *d->floats);
            d->n = (int32_t)a->n_floats;
        }
        if (d->type == 0) /* IR version 1 files leave the type out */
            d->type = a->t ? 4 : a->n_ints ? 7 : a->n_floats ? 6 : a->has_s ? 3 : a->has_f ? 1 : 2;
        if (a->t) {
            char cname[300];
            snprintf(cname, sizeof cname, "%s:%s", node->name, d->name);
            int32_t id = -1;
            lf_status st = lf__load_const(g, cname, a->t, base_dir, &id);
            if (st != LF_OK)
                return st;
            d->tensor = id;
        }
    }
    return LF_OK;
}

/* fusionplan's export names the IR fields it had to spell 1 but the IR left
 * 0 ("0 means 1": kernel, stride, dilation, groups) in the node's metadata
 * fusionplan.ir_zero, so that the graph re-imports with the same hash. */
static lf_status lf__load_ir_zero(lf__ox_graph *g, int32_t id, const Onnx__NodeProto *n)
{
    lf_status st = LF_OK;
    char *z = lf__ox_node_meta_get(n, "fusionplan.ir_zero", &st);
    if (st != LF_OK)
        return lf__ox_fail(g, id, LF_EPARSE, "%s", lf_last_error());
    static const char *names[] = LF__OX_IR_ZERO_NAMES;
    char *save = NULL;
    for (char *tok = z ? strtok_r(z, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
        size_t k = 0;
        while (k < sizeof names / sizeof names[0] && strcmp(names[k], tok) != 0)
            k++;
        if (k == sizeof names / sizeof names[0]) {
            st = lf__ox_fail(g, id, LF_EPARSE, "metadata fusionplan.ir_zero: unknown field '%s'", tok);
            break;
        }
        g->nodes[id].ir_zero |= 1u << k;
    }
    free(z);
    if (st != LF_OK)
        return st;
    char *keep = lf__ox_node_meta_get(n, "fusionplan.ir_keep", &st);
    if (st != LF_OK)
        return lf__ox_fail(g, id, LF_EPARSE, "%s", lf_last_error());
    g->nodes[id].ir_keep = keep && strcmp(keep, "1") == 0;
    free(keep);
    char *set = lf__ox_node_meta_get(n, "fusionplan.ir_set", &st);
    if (st != LF_OK)
        return lf__ox_fail(g, id, LF_EPARSE, "%s", lf_last_error());
    if (set && strcmp(set, "shape_n") == 0)
        g->nodes[id].ir_zero |= LF__OX_IR_SET_SHAPE_N;
    else if (set)
        st = lf__ox_fail(g, id, LF_EPARSE, "metadata fusionplan.ir_set: unknown field '%.40s'", set);
    free(set);
    if (st != LF_OK)
        return st;
    char *part = lf__ox_node_meta_get(n, "fusionplan.ir_part", &st);
    if (st != LF_OK)
        return lf__ox_fail(g, id, LF_EPARSE, "%s", lf_last_error());
    if (part) {
        char *end = NULL;
        long cg = strncmp(part, "causal:", 7) == 0 ? strtol(part + 7, &end, 10) : 0;
        if (strcmp(part, "trans_a") == 0)
            g->nodes[id].ir_part = LF__OX_PART_TRANS_A;
        else if (strcmp(part, "trans_b") == 0)
            g->nodes[id].ir_part = LF__OX_PART_TRANS_B;
        else if (end && !*end && cg >= 1 && cg <= 65536)
            g->nodes[id].ir_part = LF__OX_PART_CAUSAL + (int32_t)cg;
        else
            st = lf__ox_fail(g, id, LF_EPARSE, "metadata fusionplan.ir_part: unknown value '%.40s'", part);
        free(part);
    }
    return st;
}

static lf_status lf__load_node(lf__ox_graph *g, const Onnx__NodeProto *n, int32_t index,
                               const char *base_dir)
{
    if (!n->op_type || !*n->op_type)
        return lf__ox_fail(g, -1, LF_EPARSE, "node #%d has no op_type", (int)index);
    char name[300];
    if (n->name && *n->name)
        snprintf(name, sizeof name, "%s", n->name);
    else
        snprintf(name, sizeof name, "%s_%d", n->op_type, (int)index);
    if (!lf__default_domain(n->domain))
        return lf_set_error(LF_EUNSUPPORTED, "%s: node '%s' (%s): operator domain '%s' is not supported",
                            g->path, name, n->op_type, n->domain);
    if (strcmp(n->op_type, "Constant") == 0)
        return lf__load_constant_node(g, n, index, base_dir);
    if (!lf__ox_op_rule_of(n->op_type))
        return lf_set_error(LF_EUNSUPPORTED, "%s: node '%s' (%s): op type %s is not supported", g->path, name,
                            n->op_type, n->op_type);
    if (n->n_input > 4096 || n->n_output > 4096)
        return lf_set_error(LF_ERANGE, "%s: node '%s' (%s): %zu inputs and %zu outputs", g->path, name,
                            n->op_type, n->n_input, n->n_output);
    int32_t in[4096], out[4096];
    for (size_t k = 0; k < n->n_input; k++) {
        in[k] = -1;
        if (n->input[k] && *n->input[k] && (in[k] = lf__ox_value_id(g, n->input[k])) < 0)
            return (lf_status)in[k];
    }
    for (size_t k = 0; k < n->n_output; k++) {
        out[k] = -1;
        if (n->output[k] && *n->output[k] && (out[k] = lf__ox_value_id(g, n->output[k])) < 0)
            return (lf_status)out[k];
    }
    int32_t id = lf__ox_add_node(g, name, n->op_type, in, (int32_t)n->n_input, out, (int32_t)n->n_output);
    if (id < 0)
        return (lf_status)id;
    for (size_t k = 0; k < n->n_output; k++) {
        if (out[k] < 0)
            continue;
        lf__ox_value *v = &g->values[out[k]];
        if (v->producer >= 0 || v->is_const || v->is_input)
            return lf__ox_fail(g, id, LF_EGRAPH, "output '%s' is already defined elsewhere", v->name);
        v->producer = id;
    }
    lf_status st = lf__load_ir_zero(g, id, n);
    if (st != LF_OK)
        return st;
    return lf__load_attrs(g, &g->nodes[id], n, base_dir);
}

/* The graph's initializers, left in the file by lf__ox_strip_initializers:
 * each unpacked on its own with its raw_data read in place, converted into
 * the importer's constants, then the file's pages under it given back. */
typedef struct lf__lazy_inits {
    const uint8_t *bytes;
    const lf__ox_span *span;
    size_t n;
    ProtobufCAllocator *al;
} lf__lazy_inits;

static lf_status lf__load_lazy_inits(lf__ox_graph *g, const lf__lazy_inits *li, const char *base_dir)
{
    for (size_t k = 0; k < li->n; k++) {
        const uint8_t *tb = li->bytes + li->span[k].off;
        Onnx__TensorProto *t = lf__ox_tensor_unpack_lazy(li->al, tb, li->span[k].len);
        if (!t)
            return lf__ox_fail(g, -1, LF_EPARSE, "initializer #%zu is not a valid TensorProto (at byte %zu)", k,
                               li->span[k].off);
        lf_status st = LF_OK;
        if (!t->name || !*t->name)
            st = lf__ox_fail(g, -1, LF_EPARSE, "initializer #%zu has no name", k);
        else
            st = lf__load_const(g, t->name, t, base_dir, NULL);
        if (g->bytes_mapped && t->has_raw_data)
            lf__ox_file_drop_pages(t->raw_data.data, t->raw_data.len);
        lf__ox_tensor_free_lazy(li->al, t);
        if (st != LF_OK)
            return st;
    }
    return LF_OK;
}

static lf_status lf__load_model(lf__ox_graph *g, const Onnx__ModelProto *m, const char *base_dir,
                                const lf__lazy_inits *li)
{
    const Onnx__GraphProto *gp = m->graph;
    if (!gp)
        return lf__ox_fail(g, -1, LF_EPARSE, "not an ONNX model (no graph)");
    int64_t opset = -1;
    for (size_t k = 0; k < m->n_opset_import; k++)
        if (m->opset_import[k] && lf__default_domain(m->opset_import[k]->domain))
            opset = m->opset_import[k]->version;
    if (opset < 0 && m->has_ir_version && m->ir_version < 3)
        opset = 1;
    if (opset < 0) /* no ai.onnx entry: ONNX requires one, there is no default to assume */
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "the model has no opset import for the default "
                           "domain (ai.onnx); opsets 7 to 23 are supported");
    if (opset < 7 || opset > 23)
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "opset %lld is not supported (7 to 23 are)",
                           (long long)opset);
    g->opset = opset;
    g->name = lf_arena_strdup(&g->arena, gp->name ? gp->name : "");
    if (gp->n_sparse_initializer)
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "sparse initializers are not supported");
    if (gp->n_node > (size_t)g->opt.max_nodes)
        return lf__ox_fail(g, -1, LF_ERANGE, "%zu nodes exceed the limit of %d", gp->n_node,
                           (int)g->opt.max_nodes);
    lf_status st;
    for (size_t k = 0; k < gp->n_initializer; k++) {
        const Onnx__TensorProto *t = gp->initializer[k];
        if (!t->name || !*t->name)
            return lf__ox_fail(g, -1, LF_EPARSE, "initializer #%zu has no name", k);
        if ((st = lf__load_const(g, t->name, t, base_dir, NULL)) != LF_OK)
            return st;
    }
    if ((st = lf__load_lazy_inits(g, li, base_dir)) != LF_OK)
        return st;
    for (size_t k = 0; k < gp->n_input; k++)
        if ((st = lf__load_input(g, gp->input[k])) != LF_OK)
            return st;
    for (size_t k = 0; k < gp->n_node; k++)
        if ((st = lf__load_node(g, gp->node[k], (int32_t)k, base_dir)) != LF_OK)
            return st;
    if (gp->n_output == 0)
        return lf__ox_fail(g, -1, LF_EGRAPH, "the graph has no outputs");
    for (size_t k = 0; k < gp->n_output; k++) {
        const char *name = gp->output[k]->name;
        int32_t id = name ? lf__ox_find(g, name) : -1;
        if (id < 0)
            return lf__ox_fail(g, -1, LF_EGRAPH, "graph output '%s' is not produced by any node",
                               name ? name : "");
        g->values[id].is_output = 1;
    }
    return LF_OK;
}

lf_status lf__ox_load(lf__ox_graph *g, const void *bytes, size_t len, const char *base_dir)
{
    if ((int64_t)len > g->opt.max_file_bytes)
        return lf__ox_fail(g, -1, LF_ERANGE, "file of %zu bytes exceeds the limit of %lld", len,
                           (long long)g->opt.max_file_bytes);
    /* Before unpacking: protobuf-c recurses once per nested message. */
    lf_status st = lf__ox_wire_check(bytes, len, &onnx__model_proto__descriptor, g->path, "ONNX model");
    if (st != LF_OK)
        return st;
    lf__ox_alloc al;
    int64_t cap = (int64_t)64 << 20;
    if (cap < 16 * (int64_t)len)
        cap = 16 * (int64_t)len;
    lf__ox_alloc_init(&al, cap);
    /* Unpacked without the initializers, which are read from the bytes in
     * place one by one (onnx_strip.c): their weights are copied once. */
    uint8_t *shell;
    size_t shell_len, n_inits;
    lf__ox_span *inits;
    if ((st = lf__ox_strip_initializers(bytes, len, &shell, &shell_len, &inits, &n_inits)) != LF_OK)
        return lf__ox_fail(g, -1, st, "%s", lf_last_error());
    Onnx__ModelProto *m = onnx__model_proto__unpack(&al.base, shell_len, shell);
    free(shell);
    if (!m) {
        free(inits);
        if (al.used + 4096 >= al.cap)
            return lf__ox_fail(g, -1, LF_ERANGE, "the protobuf expands beyond %lld bytes in memory",
                               (long long)cap);
        return lf__ox_fail(g, -1, LF_EPARSE, "not a valid ONNX model (truncated or corrupt protobuf)");
    }
    lf__lazy_inits li = {bytes, inits, n_inits, &al.base};
    /* Calls of model-local functions become their bodies (onnx_functions.c). */
    lf_arena fa;
    lf_arena_init(&fa);
    Onnx__NodeProto **nodes = NULL;
    size_t n_nodes = 0;
    st = lf__ox_functions_inline(m, g->path, g->opt.max_nodes, &fa, &nodes, &n_nodes);
    if (st == LF_OK && m->graph) {
        Onnx__NodeProto **own = m->graph->node;
        size_t n_own = m->graph->n_node;
        m->graph->node = nodes;
        m->graph->n_node = n_nodes;
        st = lf__load_model(g, m, base_dir, &li);
        m->graph->node = own; /* protobuf-c frees its own list */
        m->graph->n_node = n_own;
    } else if (st == LF_OK) {
        st = lf__load_model(g, m, base_dir, &li);
    }
    lf_arena_destroy(&fa);
    free(inits);
    onnx__model_proto__free_unpacked(m, &al.base);
    if (g->bytes_mapped) /* what is left of the file's pages: nodes and names */
        lf__ox_file_drop_pages(bytes, len);
    return st;
}

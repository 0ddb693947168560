/* The ONNX writer's building blocks (onnx_write_state.h): unique names,
 * nodes and attributes, initializers (the graph's constants, with their
 * values or the executor's), operand names and ranks. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_write_state.h"
#include "planner/optable.h"

lf_status lf__ow_oom(void) { return lf_set_error(LF_ENOMEM, "out of memory writing ONNX"); }

/* name, or name with a numeric suffix when already used. */
const char *lf__ow_unique(lf__ow *w, const char *want)
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

int lf__ow_push(void ***arr, size_t *n, size_t *cap, void *item)
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
Onnx__NodeProto *lf__ow_node(lf__ow *w, const char *name, const char *op_type, const char *const *in,
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

lf_status lf__ow_attr(lf__ow *w, Onnx__NodeProto *n, const char *name, int type, int64_t i, float f,
                             const char *s, const int64_t *ints, int32_t n_ints)
{
    Onnx__AttributeProto *a = lf_arena_alloc(&w->arena, sizeof *a);
    Onnx__AttributeProto **list = lf_arena_alloc(&w->arena, (n->n_attribute + 1) * sizeof *list);
    if (!a || !list)
        return lf__ow_oom();
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
            return lf__ow_oom();
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

lf_status lf__ow_int(lf__ow *w, Onnx__NodeProto *n, const char *name, int64_t v)
{
    return lf__ow_attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, v, 0, NULL, NULL, 0);
}
lf_status lf__ow_float(lf__ow *w, Onnx__NodeProto *n, const char *name, float v)
{
    return lf__ow_attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, 0, v, NULL, NULL, 0);
}
lf_status lf__ow_str(lf__ow *w, Onnx__NodeProto *n, const char *name, const char *v)
{
    return lf__ow_attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING, 0, 0, v, NULL, 0);
}
lf_status lf__ow_ints(lf__ow *w, Onnx__NodeProto *n, const char *name, const int64_t *v, int32_t cnt)
{
    return lf__ow_attr(w, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, 0, 0, NULL, v, cnt);
}

/* An initializer: float data (not copied: it must outlive the packing) or
 * int64 data (copied). Returns its (unique) name or NULL. */
const char *lf__ow_init_as(lf__ow *w, const char *name, const int64_t *dims, int32_t rank, const float *f,
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
const char *lf__ow_init(lf__ow *w, const char *want, const int64_t *dims, int32_t rank, const float *f,
                        const int64_t *i64, int64_t count)
{
    const char *name = lf__ow_unique(w, want);
    return name ? lf__ow_init_as(w, name, dims, rank, f, i64, count) : NULL;
}

const char *lf__ow_ints_init(lf__ow *w, const char *op, const char *what, const int64_t *v, int32_t n)
{
    char want[400];
    snprintf(want, sizeof want, "%.300s.%s", op, what);
    int64_t dims[1] = {n};
    return lf__ow_init(w, want, dims, 1, NULL, v, n);
}

const char *lf__ow_scalar(lf__ow *w, const char *op, const char *what, float v)
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
const float *lf__ow_values(lf__ow *w, int32_t v, int32_t pos, const lf_const **c)
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
const char *lf__ow_const(lf__ow *w, int32_t v, int32_t pos, const int64_t *dims, int32_t rank)
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
const char *lf__ow_const_frame(lf__ow *w, int32_t v, int32_t pos, int32_t r)
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
const char *lf__ow_act(lf__ow *w, int32_t v, int32_t u, int32_t r)
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

lf_status lf__ow_fail(const lf__ow *w, int32_t v, const char *why)
{
    const lf_op *op = &w->g->ops[v];
    return lf_set_error(LF_EUNSUPPORTED, "ONNX export of '%s': op '%s' (%s): %s", w->g->name, op->name,
                        lf_op_info_of(op->type)->name, why);
}

int lf__ow_ids_input(const lf_graph *g, int32_t u)
{
    const lf_op *op = &g->ops[u];
    if (op->type != LF_OP_INPUT || op->n_consumers == 0 || op->out.c != 1 || op->out.w != 1)
        return 0;
    for (int32_t k = 0; k < op->n_consumers; k++) {
        const lf_op *c = &g->ops[op->consumers[k]];
        if (c->type != LF_OP_GATHER || c->n_operands != 2 || c->operands[1].kind != LF_OPND_TENSOR ||
            c->operands[1].id != u || c->operands[0].kind != LF_OPND_CONST)
            return 0;
    }
    return 1;
}

/* The lowering's shared helpers, used by the driver (onnx_lower.c) and by
 * every node's lowering (onnx_lower_ops.c): the N x C x H x W frame of an
 * ONNX shape, unique IR names, the one "unsupported" error, and operands
 * (activations, or constants laid out in the reading op's frame). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_lower.h"
#include "planner/optable.h"

lf_shape lf__frame(const int64_t *dims, int32_t rank)
{
    switch (rank) {
    case 0: return (lf_shape){1, 1, 1, 1};
    case 1: return (lf_shape){1, dims[0], 1, 1};
    case 2: return (lf_shape){dims[0], dims[1], 1, 1};
    case 3: return (lf_shape){1, dims[0], dims[1], dims[2]};
    default: return (lf_shape){dims[0], dims[1], dims[2], dims[3]};
    }
}

lf_shape lf__ids_frame(const int64_t *dims, int32_t rank)
{
    int64_t rest = 1;
    for (int32_t k = 1; k < rank; k++)
        rest *= dims[k];
    return (lf_shape){rank > 0 ? dims[0] : 1, 1, rest, 1};
}

int32_t lf__frame_dim(int32_t axis, int32_t rank)
{
    switch (rank) {
    case 1: return LF_DIM_C;
    case 3: return axis + 1;
    default: return axis;
    }
}

lf_status lf__unsupported(lf__lower *L, int32_t i, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return lf__ox_fail(L->g, i, LF_EUNSUPPORTED, "%s", msg);
}

/* A unique IR name derived from want. */
const char *lf__lower_unique(lf__lower *L, const char *want)
{
    char buf[340];
    snprintf(buf, sizeof buf, "%.300s", want);
    void *v;
    for (int k = 1; lf_strmap_get(&L->used, buf, &v); k++)
        snprintf(buf, sizeof buf, "%.300s_%d", want, k);
    const char *s = lf_arena_strdup(&L->g->arena, buf);
    if (!s || lf_strmap_put(&L->used, s, (void *)1) != LF_OK)
        return NULL;
    return s;
}

static lf_status lf__push(lf__lower *L, int32_t i, lf__lowered *o, const char *name, lf_shape s)
{
    if (o->n == LF__LOWER_MAX_OPERANDS)
        return lf__unsupported(L, i, "more than %d operands", LF__LOWER_MAX_OPERANDS);
    o->operand[o->n] = name;
    o->shape[o->n++] = s;
    return LF_OK;
}

/* borrowed: data lies in the weight block the builder adopts (onnx_weights.c). */
static lf_status lf__new_const(lf__lower *L, const char *base, lf_shape shape, float *data, int borrowed,
                               lf__lowered *o)
{
    const char *nm = lf__lower_unique(L, base);
    if (!nm) {
        if (!borrowed)
            free(data);
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", L->g->path);
    }
    int32_t id = borrowed ? lf_graph_builder_add_const_in(L->b, nm, shape, data)
                          : lf_graph_builder_add_const_owned(L->b, nm, shape, data);
    if (id < 0)
        return lf__ox_fail(L->g, -1, (lf_status)id, "constant '%s': %s", nm, lf_last_error());
    return lf__push(L, -1, o, nm, shape);
}

lf_status lf__operand_new_const(lf__lower *L, const char *base, lf_shape shape, float *data, lf__lowered *o)
{
    return lf__new_const(L, base, shape, data, 0, o);
}

/* Whether exactly one input slot of one live node reads value v. */
static int lf__read_once(const lf__ox_graph *g, int32_t v)
{
    if (g->values[v].is_output)
        return 0;
    int reads = 0;
    for (int32_t i = 0; i < g->n_nodes && reads < 2; i++) {
        const lf__ox_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int32_t k = 0; k < n->n_in; k++)
            reads += n->in[k] == v;
        for (int32_t k = 0; k < n->n_attr; k++)
            reads += n->attr[k].tensor == v;
    }
    return reads == 1;
}

lf_status lf__operand(lf__lower *L, int32_t i, int32_t k, int32_t out_rank, lf__lowered *o)
{
    lf__ox_graph *g = L->g;
    const lf__ox_node *n = &g->nodes[i];
    int32_t v = k < n->n_in ? n->in[k] : -1;
    if (v < 0)
        return lf__ox_fail(g, i, LF_EGRAPH, "operand %d is missing", (int)k);
    const lf__ox_value *val = &g->values[v];
    if (!val->is_const) {
        if (!L->name_of[v])
            return lf__ox_fail(g, i, LF_EGRAPH, "input '%s' is not available", val->name);
        lf_shape own = lf__frame(val->dims, val->rank);
        if (val->rank >= out_rank || out_rank > 4)
            return lf__push(L, i, o, L->name_of[v], own);
        /* A lower-rank activation broadcast against the op's rank: ONNX aligns
         * it right, which is another frame; a Reshape view moves it there. */
        int64_t dims[4];
        for (int32_t q = 0; q < out_rank; q++)
            dims[q] = q < out_rank - val->rank ? 1 : val->dims[q - (out_rank - val->rank)];
        lf_shape s = lf__frame(dims, out_rank);
        if (s.n == own.n && s.c == own.c && s.h == own.h && s.w == own.w)
            return lf__push(L, i, o, L->name_of[v], own);
        char rn[340];
        snprintf(rn, sizeof rn, "%.300s/rank%d", L->name_of[v], (int)out_rank);
        void *have;
        if (lf_strmap_get(&L->used, rn, &have))
            return lf__push(L, i, o, lf_arena_strdup(&g->arena, rn), s);
        const char *nm = lf__lower_unique(L, rn);
        lf_attrs ra = {0};
        ra.shape_n = (int32_t)s.n;
        ra.shape_c = (int32_t)s.c;
        ra.shape_h = (int32_t)s.h;
        ra.shape_w = (int32_t)s.w;
        int32_t id = nm ? lf_graph_builder_add_op(L->b, LF_OP_RESHAPE, nm, &ra, &L->name_of[v], 1) : LF_ENOMEM;
        if (id < 0)
            return lf__ox_fail(g, i, (lf_status)id, "%s", lf_last_error());
        return lf__push(L, i, o, nm, s);
    }
    /* A constant: right-align to the op's rank, then take that rank's frame. */
    int64_t dims[LF__OX_MAX_RANK];
    int32_t r = val->rank > out_rank ? val->rank : out_rank;
    if (r > 4)
        return lf__unsupported(L, i, "constant '%s' of rank %d (at most 4)", val->name, (int)val->rank);
    for (int32_t q = 0; q < r; q++)
        dims[q] = q < r - val->rank ? 1 : val->dims[q - (r - val->rank)];
    lf_shape s = lf__frame(dims, r);
    char key[400];
    snprintf(key, sizeof key, "%s|%lld,%lld,%lld,%lld", val->name, (long long)s.n, (long long)s.c,
             (long long)s.h, (long long)s.w);
    void *have;
    if (lf_strmap_get(&L->consts, key, &have))
        return lf__push(L, i, o, (const char *)have, s);
    int64_t count = val->data.count;
    float *data = NULL;
    int borrowed = 0;
    if (val->data.f && !val->data_lent && lf__read_once(g, v)) {
        /* Its only reader: the lowered graph takes the values themselves
         * (the layout is the same in any frame), no second copy. */
        data = val->data.f;
        borrowed = val->data.in_block;
        g->values[v].data_lent = 1;
    } else if (val->data.f || val->data.i) {
        data = malloc((size_t)(count > 0 ? count : 1) * sizeof *data);
        if (!data)
            return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
        for (int64_t e = 0; e < count; e++)
            data[e] = val->data.f ? val->data.f[e] : (float)val->data.i[e];
    }
    lf_status st = lf__new_const(L, val->name, s, data, borrowed, o);
    if (st == LF_OK && lf_strmap_put(&L->consts, key, (void *)o->operand[o->n - 1]) != LF_OK)
        st = lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    return st;
}

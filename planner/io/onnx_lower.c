/* The importer's graph -> the project's IR (lf_graph), with constants as
 * values. Tensors of rank <= 4 map to the IR's N x C x H x W frame
 * (lf__frame); constants are laid out in the frame of the op that reads them.
 * Each node becomes one IR op (onnx_lower_ops.c); when the IR's shape of the
 * result differs from the frame of the ONNX output (a reduction without
 * keepdims, a rank change), a Reshape view reconciles them, so every
 * activation's IR shape is the frame of its ONNX shape. Anything the IR
 * cannot express is one error naming the node, its op type and the file. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_lower.h"
#include "planner/io/onnx_report.h"
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
static const char *lf__unique(lf__lower *L, const char *want)
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

lf_status lf__operand_new_const(lf__lower *L, const char *base, lf_shape shape, float *data, lf__lowered *o)
{
    const char *nm = lf__unique(L, base);
    if (!nm) {
        free(data);
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", L->g->path);
    }
    int32_t id = lf_graph_builder_add_const_owned(L->b, nm, shape, data);
    if (id < 0)
        return lf__ox_fail(L->g, -1, (lf_status)id, "constant '%s': %s", nm, lf_last_error());
    return lf__push(L, -1, o, nm, shape);
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
        const char *nm = lf__unique(L, rn);
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
    if (val->data.f || val->data.i) {
        data = malloc((size_t)(count > 0 ? count : 1) * sizeof *data);
        if (!data)
            return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
        for (int64_t e = 0; e < count; e++)
            data[e] = val->data.f ? val->data.f[e] : (float)val->data.i[e];
    }
    lf_status st = lf__operand_new_const(L, val->name, s, data, o);
    if (st == LF_OK && lf_strmap_put(&L->consts, key, (void *)o->operand[o->n - 1]) != LF_OK)
        st = lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    return st;
}

static int lf__same_shape(lf_shape a, lf_shape b) { return a.n == b.n && a.c == b.c && a.h == b.h && a.w == b.w; }

static lf_status lf__add_node(lf__lower *L, int32_t i)
{
    lf__ox_graph *g = L->g;
    lf__ox_node *n = &g->nodes[i];
    const lf__ox_value *y = &g->values[n->out[0]];
    if (y->rank > 4)
        return lf__unsupported(L, i, "output of rank %d (tensors of rank above 4 are not supported)", (int)y->rank);
    if (lf__ox_count(y->dims, y->rank) == 0)
        return lf__unsupported(L, i, "an empty output tensor");
    for (int32_t k = 1; k < n->n_out; k++)
        if (n->out[k] >= 0 && (g->values[n->out[k]].is_output || g->values[n->out[k]].n_uses))
            return lf__unsupported(L, i, "output %d ('%s') is used; the IR has one output per op", (int)k,
                                   g->values[n->out[k]].name);
    lf__lowered o;
    memset(&o, 0, sizeof o);
    lf_status st = lf__lower_node(L, i, &o);
    if (st != LF_OK)
        return st;
    lf_shape want = lf__frame(y->dims, y->rank), got;
    char err[256] = "";
    if ((st = lf_op_infer(o.type, &o.a, o.shape, o.n, &got, err, sizeof err)) != LF_OK)
        return lf__ox_fail(g, i, st, "%s", err);
    const char *nm = lf__unique(L, n->name);
    if (!nm)
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    int32_t id = lf_graph_builder_add_op(L->b, o.type, nm, &o.a, o.operand, o.n);
    if (id < 0)
        return lf__ox_fail(g, i, (lf_status)id, "%s", lf_last_error());
    if (!lf__same_shape(got, want)) {
        /* Same elements in the same order, another frame: a Reshape view. */
        if (got.n * got.c * got.h * got.w != want.n * want.c * want.h * want.w)
            return lf__ox_fail(g, i, LF_EGRAPH, "IR shape %lldx%lldx%lldx%lld does not hold the output",
                               (long long)got.n, (long long)got.c, (long long)got.h, (long long)got.w);
        char rn[320];
        snprintf(rn, sizeof rn, "%s/frame", n->name);
        const char *rname = lf__unique(L, rn);
        lf_attrs ra = {0};
        ra.shape_n = (int32_t)want.n;
        ra.shape_c = (int32_t)want.c;
        ra.shape_h = (int32_t)want.h;
        ra.shape_w = (int32_t)want.w;
        if (!rname || (id = lf_graph_builder_add_op(L->b, LF_OP_RESHAPE, rname, &ra, &nm, 1)) < 0)
            return lf__ox_fail(g, i, rname ? (lf_status)id : LF_ENOMEM, "%s", lf_last_error());
        nm = rname;
    }
    L->name_of[n->out[0]] = nm;
    if (y->is_output) {
        if ((st = lf_graph_builder_mark_output(L->b, nm)) != LF_OK)
            return st;
        lf__onnx_report_output(g->report, y->name, nm);
    }
    return LF_OK;
}

static lf_status lf__add_input(lf__lower *L, int32_t v)
{
    lf__ox_graph *g = L->g;
    const lf__ox_value *val = &g->values[v];
    if (val->rank > 4)
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "graph input '%s' has rank %d (at most 4)", val->name,
                           (int)val->rank);
    if (val->elem_type && val->elem_type != 1 && val->elem_type != 10 && val->elem_type != 11)
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "graph input '%s' has element type %d (the IR is float32)",
                           val->name, (int)val->elem_type);
    lf_shape s = lf__frame(val->dims, val->rank);
    if (s.n > INT32_MAX || s.c > INT32_MAX || s.h > INT32_MAX || s.w > INT32_MAX)
        return lf__ox_fail(g, -1, LF_ERANGE, "graph input '%s' is too large", val->name);
    lf_attrs a = {0};
    a.batch = (int32_t)s.n;
    a.in_c = (int32_t)s.c;
    a.in_h = (int32_t)s.h;
    a.in_w = (int32_t)s.w;
    const char *nm = lf__unique(L, val->name);
    if (!nm)
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    int32_t id = lf_graph_builder_add(L->b, LF_OP_INPUT, nm, &a, NULL, 0);
    if (id < 0)
        return lf__ox_fail(g, -1, (lf_status)id, "graph input '%s': %s", val->name, lf_last_error());
    L->name_of[v] = nm;
    return LF_OK;
}

/* Depth first from each node in file order to its producers not yet
 * lowered, with an explicit stack (a file may list nodes in any order, and
 * recursion would follow it to any depth). Equals file order wherever file
 * order is topological; the graph has no cycle (checked by the sort). */
static lf_status lf__add_nodes_in_file_order(lf__lower *L)
{
    lf__ox_graph *g = L->g;
    int32_t n = g->n_nodes, sp = 0;
    unsigned char *state = calloc((size_t)(n ? n : 1), 1); /* 1 on the stack, 2 lowered */
    int32_t *stack = malloc((size_t)(n ? n : 1) * sizeof *stack);
    lf_status st = LF_OK;
    if (!state || !stack)
        st = lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    for (int32_t i = 0; i < n && st == LF_OK; i++) {
        if (g->nodes[i].dead || state[i])
            continue;
        stack[sp++] = i;
        state[i] = 1;
        while (sp > 0 && st == LF_OK) {
            int32_t top = stack[sp - 1], need = -1;
            const lf__ox_node *nd = &g->nodes[top];
            for (int32_t k = 0; k < nd->n_in && need < 0; k++) {
                int32_t p = nd->in[k] >= 0 ? g->values[nd->in[k]].producer : -1;
                if (p >= 0 && !g->nodes[p].dead && state[p] == 0)
                    need = p;
            }
            if (need >= 0) {
                stack[sp++] = need;
                state[need] = 1;
                continue;
            }
            sp--;
            state[top] = 2;
            st = lf__add_node(L, top);
        }
    }
    free(state);
    free(stack);
    return st;
}

lf_status lf__ox_lower(lf__ox_graph *g, lf_graph **out)
{
    lf__lower L;
    memset(&L, 0, sizeof L);
    L.g = g;
    *out = NULL;
    const char *base = strrchr(g->path, '/') ? strrchr(g->path, '/') + 1 : g->path;
    char name[256];
    snprintf(name, sizeof name, "%s", base);
    char *dot = strrchr(name, '.');
    if (dot && strcmp(dot, ".onnx") == 0)
        *dot = '\0';
    lf_status st = lf_graph_builder_create(&L.b, name);
    if (st != LF_OK)
        return st;
    if (g->opt.folder)
        lf_graph_builder_set_folder(L.b, g->opt.folder, g->opt.folder_ctx);
    L.name_of = calloc((size_t)g->n_values + 1, sizeof *L.name_of);
    if (!L.name_of || lf_strmap_init(&L.used, 256) != LF_OK || lf_strmap_init(&L.consts, 256) != LF_OK) {
        st = lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
        goto done;
    }
    for (int32_t v = 0; v < g->n_values && st == LF_OK; v++) {
        if (g->values[v].is_output && g->values[v].is_const)
            st = lf__ox_fail(g, -1, LF_EUNSUPPORTED, "graph output '%s' is a constant (the IR computes outputs "
                             "with ops)", g->values[v].name);
        else if (g->values[v].is_input && !g->values[v].is_const && g->values[v].n_uses)
            st = lf__add_input(&L, v);
    }
    /* Nodes in file order (the builder keeps insertion order wherever it is
     * topological, so op ids follow the exporter's order); a node whose
     * producers come later (those the rewrites append) is lowered right
     * before its first reader. */
    if (st == LF_OK)
        st = lf__add_nodes_in_file_order(&L);
    if (st == LF_OK) {
        lf_graph *graph = NULL;
        if ((st = lf_graph_builder_build(L.b, &graph)) != LF_OK)
            st = lf__ox_fail(g, -1, st, "%s", lf_last_error());
        *out = graph;
    }
done:
    lf_strmap_destroy(&L.consts);
    lf_strmap_destroy(&L.used);
    free(L.name_of);
    lf_graph_builder_free(L.b);
    return st;
}

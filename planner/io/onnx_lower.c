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
    if (n->ir_zero) {
        /* fusionplan's export: fields the IR had left 0 ("means 1") */
        int32_t *f[] = {&o.a.kh, &o.a.kw, &o.a.sh, &o.a.sw, &o.a.dh, &o.a.dw, &o.a.groups};
        for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
            if ((n->ir_zero & (1u << k)) && *f[k] == 1)
                *f[k] = 0;
        if ((n->ir_zero & LF__OX_IR_ZERO_EPSILON) && o.a.epsilon == 1e-5f)
            o.a.epsilon = 0.0f;
        if ((n->ir_zero & LF__OX_IR_SET_SHAPE_N) && o.type == LF_OP_RESHAPE && o.a.shape_n == 0)
            o.a.shape_n = (int32_t)lf__frame(y->dims, y->rank).n;
    }
    lf_shape want = lf__frame(y->dims, y->rank), got;
    char err[256] = "";
    if ((st = lf_op_infer(o.type, &o.a, o.shape, o.n, &got, err, sizeof err)) != LF_OK)
        return lf__ox_fail(g, i, st, "%s", err);
    const char *nm = lf__lower_unique(L, n->name);
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
        const char *rname = lf__lower_unique(L, rn);
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

/* 1 when graph input v holds integers read only as the ids of Gathers of a
 * constant table (token ids): the IR carries them as exact floats. */
static int lf__ids_only(const lf__ox_graph *g, int32_t v)
{
    int et = g->values[v].elem_type, used = 0;
    if (et != LF__OX_INT64 && et != LF__OX_INT32)
        return 0;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const lf__ox_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int32_t k = 0; k < n->n_in; k++)
            if (n->in[k] == v) {
                if (strcmp(n->op, "Gather") != 0 || k != 1 || !g->values[n->in[0]].is_const)
                    return 0;
                used = 1;
            }
    }
    return used;
}

static lf_status lf__add_input(lf__lower *L, int32_t v)
{
    lf__ox_graph *g = L->g;
    const lf__ox_value *val = &g->values[v];
    if (val->rank > 4)
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "graph input '%s' has rank %d (at most 4)", val->name,
                           (int)val->rank);
    if (val->elem_type && val->elem_type != 1 && val->elem_type != 10 && val->elem_type != 11 &&
        !lf__ids_only(g, v))
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "graph input '%s' has element type %d (the IR is float32)",
                           val->name, (int)val->elem_type);
    lf_shape s = lf__ids_only(g, v) ? lf__ids_frame(val->dims, val->rank) : lf__frame(val->dims, val->rank);
    if (s.n > INT32_MAX || s.c > INT32_MAX || s.h > INT32_MAX || s.w > INT32_MAX)
        return lf__ox_fail(g, -1, LF_ERANGE, "graph input '%s' is too large", val->name);
    lf_attrs a = {0};
    a.batch = (int32_t)s.n;
    a.in_c = (int32_t)s.c;
    a.in_h = (int32_t)s.h;
    a.in_w = (int32_t)s.w;
    const char *nm = lf__lower_unique(L, val->name);
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

/* The importer's weight block (onnx_weights.c) goes to the builder, and
 * with it to the built graph, which frees it in lf_graph_free. */
static lf_status lf__block_hand_over(lf__ox_graph *g, lf_graph_builder *b)
{
    if (!g->block)
        return LF_OK;
    /* Values the lowered graph did not take are dropped now: the block is
     * the graph's from here, and may be freed with it before the importer
     * is destroyed. */
    for (int32_t v = 0; v < g->n_values; v++)
        if (g->values[v].data.in_block && !g->values[v].data_lent)
            lf__ox_data_free(&g->values[v].data);
    uint8_t *block = g->block;
    g->block = NULL;
    return lf_graph_builder_adopt(b, block); /* freed by it when it fails */
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
    if (st == LF_OK && (st = lf__block_hand_over(g, L.b)) != LF_OK)
        st = lf__ox_fail(g, -1, st, "%s", lf_last_error());
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

/* The model a Stream export names, read back node by node (DESIGN §17,
 * docs/exports.md), and what each Stream version can run of the plan.
 *
 * The Stream mappings are written from the annotated ONNX export itself
 * (its bytes unpacked again), not from the IR: that file is the one the
 * mapping names, so node names, helper nodes (a folded BatchNorm is a
 * BatchNormalization node of its own, SiLU a Sigmoid and a Mul) and their
 * order are exactly what Stream parses. Stream numbers ONNX nodes from 0 in
 * file order; its 1.13 release splits the workload into groups along its
 * topological order (ties by file position, so for a topologically sorted
 * file: the file order), cutting after each group's last layer and at every
 * layout op (Flatten, Reshape, Transpose, Squeeze, Unsqueeze). A plan group
 * whose nodes are not consecutive there, or that holds a layout op, is cut
 * into pieces: that is the closest plan Stream runs, and a note says so. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_proto.h"
#include "planner/io/onnx_write_internal.h"
#include "planner/io/plan_stream_internal.h"

/* Stream 1.13.14's parsers (stream/parser/onnx/model.py): layout ops, then
 * the ops with a compute node. Anything else raises NotImplementedError. */
static const char *const lf__layout[] = {"Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze", NULL};
static const char *const lf__compute[] = {"Conv",  "Gemm",  "MatMul", "MaxPool", "GlobalAveragePool", "BatchNormalization",
                                          "Softmax", "LpNormalization", "LayerNormalization", "Slice", "Gather",
                                          "Add",   "Sub",   "Mul",    "Div",     "Pow",     "Relu",   "Silu",
                                          "Gelu",  "Sigmoid", "Tanh", NULL};

static int lf__in(const char *const *list, const char *t)
{
    for (; *list; list++)
        if (strcmp(*list, t) == 0)
            return 1;
    return 0;
}

int lf__stream_layout_op(const char *t)
{
    return lf__in(lf__layout, t) ? 1 : lf__in(lf__compute, t) ? 0 : 2;
}

int lf__stream_conv_or_pool(const char *t)
{
    return strcmp(t, "Conv") == 0 || strstr(t, "Pool") != NULL;
}

static char *lf__dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Appends one note line. */
static lf_status lf__note(lf__smodel *sm, const char *fmt, ...)
{
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t old = sm->notes ? strlen(sm->notes) : 0, add = strlen(line);
    char *n = realloc(sm->notes, old + add + 2);
    if (!n)
        return lf_set_error(LF_ENOMEM, "out of memory writing the Stream mapping");
    memcpy(n + old, line, add);
    n[old + add] = '\n';
    n[old + add + 1] = '\0';
    sm->notes = n;
    sm->n_notes++;
    return LF_OK;
}

static int64_t lf__int_meta(const Onnx__NodeProto *nd, const char *key, int64_t dflt)
{
    char *v = lf__ox_node_meta_get(nd, key, NULL);
    int64_t r = dflt;
    if (v) {
        char *end;
        long long x = strtoll(v, &end, 10);
        if (end != v && *end == '\0')
            r = x;
        free(v);
    }
    return r;
}

static lf_status lf__read_nodes(lf__smodel *sm, const Onnx__GraphProto *gp, const lf_graph *g)
{
    sm->node = calloc(gp->n_node + 1, sizeof *sm->node);
    if (!sm->node)
        return lf_set_error(LF_ENOMEM, "out of memory writing the Stream mapping");
    int32_t unnamed = 0;
    for (size_t k = 0; k < gp->n_node; k++) {
        const Onnx__NodeProto *nd = gp->node[k];
        lf__snode *s = &sm->node[k];
        sm->n_nodes = (int32_t)k + 1;
        char buf[32];
        if (!(nd->name && *nd->name))
            snprintf(buf, sizeof buf, "Op%d", (int)unnamed++); /* Stream 1.13's name for it */
        s->name = lf__dup(nd->name && *nd->name ? nd->name : buf);
        s->type = lf__dup(nd->op_type ? nd->op_type : "");
        if (!s->name || !s->type)
            return lf_set_error(LF_ENOMEM, "out of memory writing the Stream mapping");
        s->group = (int32_t)lf__int_meta(nd, "fusionplan.group", -1);
        s->tile_rows = (int32_t)lf__int_meta(nd, "fusionplan.tile_rows", 1);
        s->piece = -1;
        char *op = lf__ox_node_meta_get(nd, "fusionplan.op", NULL);
        int32_t v = op ? lf_graph_find(g, op) : -1;
        free(op);
        s->rows = v >= 0 ? g->ops[v].out.h : 0;
    }
    return LF_OK;
}

/* Stream 1.13's groups: runs of consecutive nodes of one plan group, cut at
 * layout ops; a node outside every group is a group of its own. */
static lf_status lf__pieces(lf__smodel *sm, int32_t n_groups)
{
    int32_t *runs = calloc((size_t)n_groups + 1, sizeof *runs);
    int32_t *cut_by = malloc(((size_t)n_groups + 1) * sizeof *cut_by);
    if (!runs || !cut_by) {
        free(runs);
        free(cut_by);
        return lf_set_error(LF_ENOMEM, "out of memory writing the Stream mapping");
    }
    for (int32_t k = 0; k <= n_groups; k++)
        cut_by[k] = -1;
    int32_t cur = -2, piece = -1;
    for (int32_t k = 0; k < sm->n_nodes; k++) {
        lf__snode *s = &sm->node[k];
        if (lf__stream_layout_op(s->type) == 1) {
            if (s->group >= 0 && s->group < n_groups && cut_by[s->group] < 0)
                cut_by[s->group] = k;
            cur = -2;
            continue;
        }
        if (s->group < 0 || s->group != cur) {
            piece++;
            if (s->group >= 0 && s->group < n_groups) {
                if (runs[s->group]++ && cut_by[s->group] < 0)
                    cut_by[s->group] = k > 0 ? k - 1 : 0; /* a node of another group came between */
            }
        }
        cur = s->group;
        s->piece = piece;
    }
    sm->n_pieces = piece + 1;
    lf_status st = LF_OK;
    for (int32_t k = 0; k < n_groups && st == LF_OK; k++)
        if (runs[k] > 1) {
            const lf__snode *c = &sm->node[cut_by[k]];
            st = lf__note(sm, "Stream 1.13 runs group %d as %d groups: %s node '%s' (%s) %s", (int)k, (int)runs[k],
                          lf__stream_layout_op(c->type) == 1 ? "its" : "the", c->name, c->type,
                          lf__stream_layout_op(c->type) == 1 ? "is a layout op, always a boundary there"
                                                             : "comes between its nodes in the ONNX file");
        }
    free(runs);
    free(cut_by);
    return st;
}

/* One note per op type the version cannot parse: count and first node. */
static lf_status lf__unparsed(lf__smodel *sm, int legacy)
{
    lf_status st = LF_OK;
    for (int32_t k = 0; k < sm->n_nodes && st == LF_OK; k++) {
        const char *t = sm->node[k].type;
        int bad = legacy ? strcmp(t, "Concat") == 0 : lf__stream_layout_op(t) == 2;
        int first = 1;
        for (int32_t j = 0; j < k && first; j++)
            first = strcmp(sm->node[j].type, t) != 0;
        if (!bad || !first)
            continue;
        int32_t n = 0;
        for (int32_t j = k; j < sm->n_nodes; j++)
            n += strcmp(sm->node[j].type, t) == 0;
        st = legacy ? lf__note(sm, "Stream 303f9dc1 parses Concat only with a constant second input: %d node%s "
                                   "('%s' first) stop its ONNX reader",
                               (int)n, n == 1 ? "" : "s", sm->node[k].name)
                    : lf__note(sm, "Stream 1.13 has no parser for %s: %d node%s ('%s' first)", t, (int)n,
                               n == 1 ? "" : "s", sm->node[k].name);
    }
    return st;
}

static int64_t lf__gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Tiles of `group` for Stream 303f9dc1: the group's last output in tile_rows
 * rows, as a count that divides every conv and pool's rows of the group
 * (Stream pads a layer whose rows it does not divide); 0 = "all". `why`
 * (may be NULL) gets the node whose rows forced a smaller count. */
static int32_t lf__legacy_tiles(const lf__smodel *sm, int32_t group, int32_t *want, int32_t *why)
{
    int64_t last_rows = 0, g = 0;
    int32_t tile_rows = 1, first_bad = -1;
    for (int32_t k = 0; k < sm->n_nodes; k++) {
        const lf__snode *s = &sm->node[k];
        if (s->group != group)
            continue;
        last_rows = s->rows;
        tile_rows = s->tile_rows;
        if (lf__stream_conv_or_pool(s->type) && s->rows > 0)
            g = lf__gcd(g, s->rows);
    }
    if (want)
        *want = 0;
    if (tile_rows <= 1 || last_rows <= tile_rows)
        return tile_rows <= 1 ? 0 : 1;
    int32_t n = (int32_t)((last_rows + tile_rows - 1) / tile_rows);
    if (want)
        *want = n;
    int32_t d = n;
    while (d > 1 && g > 0 && g % d != 0)
        d--;
    if (d != n)
        for (int32_t k = 0; k < sm->n_nodes && first_bad < 0; k++)
            if (sm->node[k].group == group && lf__stream_conv_or_pool(sm->node[k].type) && sm->node[k].rows % n != 0)
                first_bad = k;
    if (why)
        *why = first_bad;
    return d;
}

int32_t lf__stream_legacy_tiles(const lf__smodel *sm, int32_t group)
{
    return lf__legacy_tiles(sm, group, NULL, NULL);
}

static lf_status lf__legacy_notes(lf__smodel *sm, int32_t n_groups)
{
    lf_status st = LF_OK;
    for (int32_t k = 0; k < n_groups && st == LF_OK; k++) {
        int32_t want = 0, why = -1;
        int32_t d = lf__legacy_tiles(sm, k, &want, &why);
        if (want > 0 && d != want && why >= 0)
            st = lf__note(sm, "Stream 303f9dc1 runs group %d in %d row tiles, not %d: %d does not divide the %" PRId64
                              " rows of '%s' (%s)",
                          (int)k, (int)d, (int)want, (int)want, sm->node[why].rows, sm->node[why].name,
                          sm->node[why].type);
    }
    return st;
}

lf_status lf__smodel_init(lf__smodel *sm, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta, int legacy)
{
    memset(sm, 0, sizeof *sm);
    lf_arena arena;
    lf_arena_init(&arena);
    uint8_t *buf = NULL;
    size_t len = 0;
    lf_status st = lf__plan_onnx_bytes(p, cm, meta, &arena, &buf, &len);
    Onnx__ModelProto *m = NULL;
    if (st == LF_OK && (!(m = onnx__model_proto__unpack(NULL, len, buf)) || !m->graph))
        st = lf_set_error(LF_EPARSE, "the annotated ONNX export does not read back");
    if (st == LF_OK)
        st = lf__read_nodes(sm, m->graph, lf_cost_graph(cm));
    if (st == LF_OK)
        st = lf__unparsed(sm, legacy);
    if (st == LF_OK)
        st = legacy ? lf__legacy_notes(sm, p->n_groups) : lf__pieces(sm, p->n_groups);
    if (m)
        onnx__model_proto__free_unpacked(m, NULL);
    free(buf);
    lf_arena_destroy(&arena);
    return st;
}

void lf__smodel_destroy(lf__smodel *sm)
{
    for (int32_t k = 0; sm->node && k < sm->n_nodes; k++) {
        free(sm->node[k].name);
        free(sm->node[k].type);
    }
    free(sm->node);
    free(sm->notes);
    memset(sm, 0, sizeof *sm);
}

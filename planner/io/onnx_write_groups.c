/* The annotated ONNX export with every fusion group as one ONNX function
 * (`--format onnx-groups`, DESIGN §17, docs/exports.md): Netron shows a
 * group as one node that opens onto its ops.
 *
 * It is the flat annotated export (onnx_write_plan.c) regrouped: the nodes
 * carrying the same fusionplan.group become the body of a model-local
 * FunctionProto `group_K` (domain fusionplan.groups), and the graph calls it
 * with one node of that name, placed in a topological order of the calls and
 * the remaining nodes (ties by file position). A function's inputs are the
 * tensors its nodes read from outside (activations and initializers: a
 * function holds no initializers), its outputs those read outside or graph
 * outputs; tensor names are the flat export's, so a function's body reads
 * like the flat file. The call node carries the group's annotations and the
 * model the plan (fusionplan.plan), as in the flat export. Nodes in no group
 * (the ones the importer folds away) stay in the graph. value_info is kept
 * for the tensors the graph still shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_write_internal.h"
#include "planner/io/plan_export.h"
#include "planner/util/hashmap.h"

#define LF__GROUP_DOMAIN "fusionplan.groups"

static lf_status lf__oom(void) { return lf_set_error(LF_ENOMEM, "out of memory writing the grouped ONNX plan"); }

/* A growable list of strings, each once. */
typedef struct lf__names {
    const char **s;
    size_t n, cap;
} lf__names;

static int lf__names_add(lf__names *l, const char *s)
{
    for (size_t k = 0; k < l->n; k++)
        if (strcmp(l->s[k], s) == 0)
            return 1;
    if (l->n == l->cap) {
        size_t c = l->cap ? 2 * l->cap : 8;
        const char **p = realloc(l->s, c * sizeof *p);
        if (!p)
            return 0;
        l->s = p;
        l->cap = c;
    }
    l->s[l->n++] = s;
    return 1;
}

typedef struct lf__regroup {
    Onnx__ModelProto *m;
    lf_arena *arena;
    size_t n;            /* nodes of the flat graph */
    int32_t *unit;       /* per node: its unit (a group's, or its own) */
    int32_t n_units;
    int32_t *group_of_unit; /* per unit: group id, or -1 for a plain node */
    int32_t *first_node;    /* per unit: its first node (file position) */
    lf_strmap producer;     /* tensor -> node + 1 */
} lf__regroup;

/* Group id of node k from its annotations, or -1. */
static lf_status lf__group_of(const Onnx__NodeProto *nd, int32_t *g)
{
    lf_status st = LF_OK;
    char *s = lf__ox_node_meta_get(nd, "fusionplan.group", &st);
    *g = -1;
    if (st != LF_OK)
        return st;
    if (s) {
        char *end = NULL;
        long v = strtol(s, &end, 10);
        if (*s && !*end && v >= 0 && v < INT32_MAX)
            *g = (int32_t)v;
        free(s);
    }
    return LF_OK;
}

static int lf__is_graph_output(const Onnx__GraphProto *gp, const char *t)
{
    for (size_t k = 0; k < gp->n_output; k++)
        if (gp->output[k]->name && strcmp(gp->output[k]->name, t) == 0)
            return 1;
    return 0;
}

/* Inputs and outputs of unit u (its nodes' reads from outside, its writes
 * read outside). */
static lf_status lf__unit_io(lf__regroup *R, int32_t u, lf__names *in, lf__names *out)
{
    const Onnx__GraphProto *gp = R->m->graph;
    for (size_t k = 0; k < R->n; k++) {
        if (R->unit[k] != u)
            continue;
        const Onnx__NodeProto *nd = gp->node[k];
        for (size_t i = 0; i < nd->n_input; i++) {
            void *x;
            const char *t = nd->input[i];
            if (!t || !*t)
                continue;
            int inside = lf_strmap_get(&R->producer, t, &x) && R->unit[(intptr_t)x - 1] == u;
            if (!inside && !lf__names_add(in, t))
                return lf__oom();
        }
        for (size_t o = 0; o < nd->n_output; o++) {
            const char *t = nd->output[o];
            if (!t || !*t)
                continue;
            int outside = lf__is_graph_output(gp, t);
            for (size_t j = 0; j < R->n && !outside; j++) {
                if (R->unit[j] == u)
                    continue;
                for (size_t i = 0; i < gp->node[j]->n_input && !outside; i++)
                    outside = gp->node[j]->input[i] && strcmp(gp->node[j]->input[i], t) == 0;
            }
            if (outside && !lf__names_add(out, t))
                return lf__oom();
        }
    }
    return LF_OK;
}

static char **lf__dup_list(lf_arena *a, const lf__names *l)
{
    char **p = lf_arena_alloc(a, (l->n ? l->n : 1) * sizeof *p);
    if (p)
        for (size_t k = 0; k < l->n; k++)
            p[k] = (char *)l->s[k];
    return p;
}

/* Units in a topological order, ties by their first node's position. */
static lf_status lf__order_units(lf__regroup *R, int32_t *order)
{
    const Onnx__GraphProto *gp = R->m->graph;
    int32_t nu = R->n_units;
    int32_t *indeg = calloc((size_t)nu + 1, sizeof *indeg);
    uint8_t *done = calloc((size_t)nu + 1, 1);
    uint8_t *edge = calloc((size_t)nu * (size_t)nu + 1, 1); /* edge[a * nu + b]: a before b */
    if (!indeg || !done || !edge) {
        free(indeg);
        free(done);
        free(edge);
        return lf__oom();
    }
    for (size_t k = 0; k < R->n; k++)
        for (size_t i = 0; i < gp->node[k]->n_input; i++) {
            void *x;
            const char *t = gp->node[k]->input[i];
            if (!t || !*t || !lf_strmap_get(&R->producer, t, &x))
                continue;
            int32_t a = R->unit[(intptr_t)x - 1], b = R->unit[k];
            if (a != b && !edge[(size_t)a * (size_t)nu + (size_t)b]) {
                edge[(size_t)a * (size_t)nu + (size_t)b] = 1;
                indeg[b]++;
            }
        }
    lf_status st = LF_OK;
    for (int32_t step = 0; step < nu && st == LF_OK; step++) {
        int32_t best = -1;
        for (int32_t u = 0; u < nu; u++)
            if (!done[u] && indeg[u] == 0 && (best < 0 || R->first_node[u] < R->first_node[best]))
                best = u;
        if (best < 0) {
            st = lf_set_error(LF_EGRAPH, "grouped ONNX: the groups of the plan are not convex "
                                         "(a group's calls would form a cycle)");
            break;
        }
        done[best] = 1;
        order[step] = best;
        for (int32_t u = 0; u < nu; u++)
            if (edge[(size_t)best * (size_t)nu + (size_t)u])
                indeg[u]--;
    }
    free(indeg);
    free(done);
    free(edge);
    return st;
}

/* Copies the group annotations of a member node onto the call node. */
static lf_status lf__call_meta(lf_arena *a, Onnx__NodeProto *call, const Onnx__NodeProto *member)
{
    static const char *keys[] = {"fusionplan.group", "fusionplan.f_beta", "fusionplan.f_d", "fusionplan.tile_rows",
                                 "fusionplan.weight_reads"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        lf_status st = LF_OK;
        char *v = lf__ox_node_meta_get(member, keys[i], &st);
        if (st != LF_OK)
            return st;
        if (!v)
            continue;
        lf__ox_prop pr = {keys[i], lf_arena_strdup(a, v)};
        free(v);
        if (!pr.value)
            return lf__oom();
        if ((st = lf__ox_node_meta_add(a, call, &pr, 1)) != LF_OK)
            return st;
    }
    return LF_OK;
}

static lf_status lf__regroup_build(lf__regroup *R, Onnx__NodeProto ***new_nodes, size_t *n_new,
                                   Onnx__FunctionProto ***funcs, size_t *n_funcs)
{
    Onnx__GraphProto *gp = R->m->graph;
    lf_arena *a = R->arena;
    int32_t *order = calloc((size_t)R->n_units + 1, sizeof *order);
    *new_nodes = lf_arena_alloc(a, ((size_t)R->n_units + 1) * sizeof **new_nodes);
    *funcs = lf_arena_alloc(a, ((size_t)R->n_units + 1) * sizeof **funcs);
    *n_new = *n_funcs = 0;
    lf_status st = order && *new_nodes && *funcs ? lf__order_units(R, order) : lf__oom();
    for (int32_t s = 0; s < R->n_units && st == LF_OK; s++) {
        int32_t u = order[s], gid = R->group_of_unit[u];
        if (gid < 0) {
            (*new_nodes)[(*n_new)++] = gp->node[R->first_node[u]];
            continue;
        }
        lf__names in = {0}, out = {0};
        size_t members = 0;
        st = lf__unit_io(R, u, &in, &out);
        for (size_t k = 0; k < R->n; k++)
            members += R->unit[k] == u;
        char name[48];
        snprintf(name, sizeof name, "group_%d", (int)gid);
        Onnx__FunctionProto *f = lf_arena_alloc(a, sizeof *f);
        Onnx__NodeProto *call = lf_arena_alloc(a, sizeof *call);
        Onnx__NodeProto **body = lf_arena_alloc(a, (members ? members : 1) * sizeof *body);
        char *nm = lf_arena_strdup(a, name);
        char **fin = lf__dup_list(a, &in), **fout = lf__dup_list(a, &out);
        if (st == LF_OK && (!f || !call || !body || !nm || !fin || !fout))
            st = lf__oom();
        if (st == LF_OK) {
            onnx__function_proto__init(f);
            size_t nb = 0;
            for (size_t k = 0; k < R->n; k++)
                if (R->unit[k] == u)
                    body[nb++] = gp->node[k];
            f->name = nm;
            f->domain = (char *)LF__GROUP_DOMAIN;
            f->n_input = in.n;
            f->input = fin;
            f->n_output = out.n;
            f->output = fout;
            f->n_node = nb;
            f->node = body;
            f->n_opset_import = R->m->n_opset_import; /* the model's default-domain opset */
            f->opset_import = R->m->opset_import;
            onnx__node_proto__init(call);
            call->name = nm;
            call->op_type = nm;
            call->domain = (char *)LF__GROUP_DOMAIN;
            call->n_input = in.n;
            call->input = fin;
            call->n_output = out.n;
            call->output = fout;
            st = lf__call_meta(a, call, body[0]);
            (*funcs)[(*n_funcs)++] = f;
            (*new_nodes)[(*n_new)++] = call;
        }
        free(in.s);
        free(out.s);
    }
    free(order);
    return st;
}

lf_status lf_plan_write_onnx_groups(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta)
{
    if (!f || !p || !cm)
        return lf_set_error(LF_EINVAL, "lf_plan_write_onnx_groups needs a stream, a plan and a cost model");
    lf_arena arena;
    lf_arena_init(&arena);
    uint8_t *flat = NULL;
    size_t len = 0;
    lf_status st = lf__plan_onnx_bytes(p, cm, meta, &arena, &flat, &len);
    Onnx__ModelProto *m = st == LF_OK ? onnx__model_proto__unpack(NULL, len, flat) : NULL;
    free(flat);
    if (st == LF_OK && (!m || !m->graph))
        st = lf_set_error(LF_EPARSE, "grouped ONNX: the flat export does not read back");
    lf__regroup R;
    memset(&R, 0, sizeof R);
    int have_map = 0;
    if (st == LF_OK) {
        R.m = m;
        R.arena = &arena;
        R.n = m->graph->n_node;
        R.unit = calloc(R.n + 1, sizeof *R.unit);
        R.group_of_unit = calloc(R.n + 1, sizeof *R.group_of_unit);
        R.first_node = calloc(R.n + 1, sizeof *R.first_node);
        if (!R.unit || !R.group_of_unit || !R.first_node || lf_strmap_init(&R.producer, R.n * 2 + 16) != LF_OK)
            st = lf__oom();
        else
            have_map = 1;
    }
    /* Every node records its flat position (fusionplan.pos): the importer
     * puts the inlined bodies back in the flat order (onnx_functions.c), so
     * the grouped file imports with the flat file's op ids and graph hash. */
    size_t *old_nu = st == LF_OK ? calloc(R.n + 1, sizeof *old_nu) : NULL;
    ProtobufCMessageUnknownField **old_u = st == LF_OK ? calloc(R.n + 1, sizeof *old_u) : NULL;
    size_t n_saved = 0;
    if (st == LF_OK && (!old_nu || !old_u))
        st = lf__oom();
    for (size_t k = 0; k < R.n && st == LF_OK; k++) {
        Onnx__NodeProto *nd = m->graph->node[k];
        old_nu[k] = nd->base.n_unknown_fields;
        old_u[k] = nd->base.unknown_fields;
        n_saved = k + 1;
        char pos[24];
        snprintf(pos, sizeof pos, "%zu", k);
        lf__ox_prop pr = {"fusionplan.pos", lf_arena_strdup(&arena, pos)};
        st = pr.value ? lf__ox_node_meta_add(&arena, nd, &pr, 1) : lf__oom();
    }
    /* units: one per group (in order of first appearance), one per other node */
    lf_strmap gunit;
    int have_g = st == LF_OK && lf_strmap_init(&gunit, 64) == LF_OK;
    if (st == LF_OK && !have_g)
        st = lf__oom();
    for (size_t k = 0; k < R.n && st == LF_OK; k++) {
        const Onnx__NodeProto *nd = m->graph->node[k];
        int32_t gid;
        if ((st = lf__group_of(nd, &gid)) != LF_OK)
            break;
        char key[24];
        snprintf(key, sizeof key, "%d", (int)gid);
        void *x;
        if (gid >= 0 && lf_strmap_get(&gunit, key, &x)) {
            R.unit[k] = (int32_t)(intptr_t)x - 1;
        } else {
            R.unit[k] = R.n_units;
            R.group_of_unit[R.n_units] = gid;
            R.first_node[R.n_units] = (int32_t)k;
            char *kd = lf_arena_strdup(&arena, key);
            if (gid >= 0 && (!kd || lf_strmap_put(&gunit, kd, (void *)(intptr_t)(R.n_units + 1)) != LF_OK))
                st = lf__oom();
            R.n_units++;
        }
        for (size_t o = 0; o < nd->n_output && st == LF_OK; o++)
            if (nd->output[o] && *nd->output[o])
                st = lf_strmap_put(&R.producer, nd->output[o], (void *)(intptr_t)(k + 1));
    }
    Onnx__NodeProto **nodes = NULL;
    Onnx__FunctionProto **funcs = NULL;
    size_t n_nodes = 0, n_funcs = 0;
    if (st == LF_OK)
        st = lf__regroup_build(&R, &nodes, &n_nodes, &funcs, &n_funcs);
    if (st == LF_OK) {
        /* value_info of the tensors still in the graph; the opset of the groups */
        Onnx__GraphProto *gp = m->graph;
        Onnx__NodeProto **old_nodes = gp->node;
        size_t old_n = gp->n_node, old_vi_n = gp->n_value_info, old_ops_n = m->n_opset_import;
        Onnx__ValueInfoProto **old_vi = gp->value_info;
        Onnx__OperatorSetIdProto **old_ops = m->opset_import;
        int64_t old_ir = m->ir_version;
        Onnx__ValueInfoProto **vi = lf_arena_alloc(&arena, (old_vi_n + 1) * sizeof *vi);
        Onnx__OperatorSetIdProto **ops = lf_arena_alloc(&arena, (old_ops_n + 1) * sizeof *ops);
        Onnx__OperatorSetIdProto *gop = lf_arena_alloc(&arena, sizeof *gop);
        size_t n_vi = 0;
        if (!vi || !ops || !gop)
            st = lf__oom();
        for (size_t k = 0; k < old_vi_n && st == LF_OK; k++) {
            const char *t = old_vi[k]->name;
            int shown = 0;
            for (size_t j = 0; j < n_nodes && !shown; j++)
                for (size_t o = 0; o < nodes[j]->n_output && !shown; o++)
                    shown = t && nodes[j]->output[o] && strcmp(nodes[j]->output[o], t) == 0;
            if (shown)
                vi[n_vi++] = old_vi[k];
        }
        if (st == LF_OK) {
            memcpy(ops, old_ops, old_ops_n * sizeof *ops);
            onnx__operator_set_id_proto__init(gop);
            gop->domain = (char *)LF__GROUP_DOMAIN;
            gop->has_version = 1;
            gop->version = 1;
            ops[old_ops_n] = gop;
            gp->node = nodes;
            gp->n_node = n_nodes;
            gp->value_info = vi;
            gp->n_value_info = n_vi;
            m->opset_import = ops;
            m->n_opset_import = old_ops_n + 1;
            m->functions = funcs;
            m->n_functions = n_funcs;
            if (m->ir_version < 8) /* model-local functions: IR 8 */
                m->ir_version = 8;
            size_t out_len = onnx__model_proto__get_packed_size(m);
            uint8_t *buf = malloc(out_len ? out_len : 1);
            if (!buf)
                st = lf__oom();
            else {
                onnx__model_proto__pack(m, buf);
                if (fwrite(buf, 1, out_len, f) != out_len)
                    st = lf_set_error(LF_EIO, "write failed (grouped ONNX plan)");
                free(buf);
            }
        }
        /* hand protobuf-c back what it owns */
        gp->node = old_nodes;
        gp->n_node = old_n;
        gp->value_info = old_vi;
        gp->n_value_info = old_vi_n;
        m->opset_import = old_ops;
        m->n_opset_import = old_ops_n;
        m->functions = NULL;
        m->n_functions = 0;
        m->ir_version = old_ir;
    }
    if (have_g)
        lf_strmap_destroy(&gunit);
    if (have_map)
        lf_strmap_destroy(&R.producer);
    free(R.unit);
    free(R.group_of_unit);
    free(R.first_node);
    for (size_t k = 0; k < n_saved; k++) {
        m->graph->node[k]->base.n_unknown_fields = old_nu[k];
        m->graph->node[k]->base.unknown_fields = old_u[k];
    }
    free(old_nu);
    free(old_u);
    if (m)
        onnx__model_proto__free_unpacked(m, NULL);
    lf_arena_destroy(&arena);
    return st;
}

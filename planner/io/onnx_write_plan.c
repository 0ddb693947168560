/* The annotated-ONNX plan export (DESIGN §13, docs/exports.md) and its
 * reader for `fusionplan validate PLAN.onnx`.
 *
 * Every node written for an op carries metadata_props fusionplan.op (the IR
 * op), fusionplan.group (the canonical group id of the JSON export),
 * fusionplan.f_beta, fusionplan.f_d, fusionplan.tile_rows and
 * fusionplan.weight_reads (the group's figures); the model carries
 * fusionplan.version, .model, .graph_hash, .scheme, .beta, .dram_fusable,
 * .dram_all, .optimal and .plan (the whole JSON export). The model is the
 * input ONNX file with annotations added (meta->onnx_source) or the graph
 * written by lf__onnx_pack_graph with the executor's weights for seed 0.
 *
 * The reader takes the JSON of fusionplan.plan and checks every node's
 * annotations against it (group and figures), so a file whose annotations
 * were edited or damaged is one line naming the node and the key. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_functions.h"
#include "planner/io/onnx_proto.h"
#include "planner/io/onnx_write_internal.h"
#include "planner/io/plan_read_internal.h"
#include "planner/io/plan_view_internal.h"
#include "planner/util/fileio.h"
#include "planner/util/hashmap.h"

#define LF__OP_PROPS 6

static lf_status lf__oom(void) { return lf_set_error(LF_ENOMEM, "out of memory writing the ONNX plan"); }

static char *lf__fmt(lf_arena *a, const char *fmt, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, fmt, v);
    return lf_arena_strdup(a, buf);
}

/* The IR name the importer gives node k (onnx_load.c). */
static void lf__node_ir_name(const Onnx__NodeProto *n, size_t k, char *out, size_t len)
{
    if (n->name && *n->name)
        snprintf(out, len, "%s", n->name);
    else
        snprintf(out, len, "%s_%d", n->op_type ? n->op_type : "", (int)k);
}

/* Nodes the importer folds into the op that produces their input (fold-bn,
 * drop-identity): they carry that op's annotations. */
static int lf__folded_into_producer(const Onnx__NodeProto *n)
{
    return n->op_type && (strcmp(n->op_type, "BatchNormalization") == 0 || strcmp(n->op_type, "Identity") == 0 ||
                          strcmp(n->op_type, "Dropout") == 0);
}

/* The input model with annotations added, packed into *out: nodes matched
 * to IR ops by the importer's naming (onnx_load.c), and nodes folded into
 * their producer given the producer's. */
static lf_status lf__annotate_file(const char *path, const lf_graph *g, const lf__ox_annotations *ann, lf_arena *arena,
                                   uint8_t **out, size_t *len)
{
    char *data = NULL;
    long n = 0;
    lf_status st = lf_read_file_capped(path, (int64_t)2 << 30, "ONNX model", &data, &n);
    if (st != LF_OK)
        return st;
    if ((st = lf__ox_wire_check((const uint8_t *)data, (size_t)n, &onnx__model_proto__descriptor, path,
                                "ONNX model")) != LF_OK) {
        free(data);
        return st;
    }
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, (size_t)n, (const uint8_t *)data);
    free(data);
    if (!m || !m->graph)
        st = lf_set_error(LF_EPARSE, "%s: not a valid ONNX model", path);
    lf_strmap ops, made; /* IR op names; tensors made by annotated nodes -> op + 1 */
    int have_map = 0;
    if (st == LF_OK && (st = lf_strmap_init(&ops, (size_t)g->n_ops * 2 + 16)) == LF_OK) {
        have_map = 1;
        if ((st = lf_strmap_init(&made, (size_t)g->n_ops * 2 + 16)) != LF_OK) {
            lf_strmap_destroy(&ops);
            have_map = 0;
        }
    }
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++)
        st = lf_strmap_put(&ops, g->ops[v].name, (void *)(intptr_t)(v + 1));
    /* Remember what protobuf-c owns, to hand it back before freeing. */
    size_t n_nodes = st == LF_OK ? m->graph->n_node : 0;
    size_t *old_n = calloc(n_nodes + 1, sizeof *old_n);
    ProtobufCMessageUnknownField **old_u = calloc(n_nodes + 1, sizeof *old_u);
    size_t old_meta_n = m ? m->n_metadata_props : 0;
    Onnx__StringStringEntryProto **old_meta = m ? m->metadata_props : NULL;
    if (!old_n || !old_u)
        st = lf__oom();
    for (size_t k = 0; k < n_nodes && st == LF_OK; k++) {
        Onnx__NodeProto *nd = m->graph->node[k];
        old_n[k] = nd->base.n_unknown_fields;
        old_u[k] = nd->base.unknown_fields;
        char name[400];
        lf__node_ir_name(nd, k, name, sizeof name);
        void *x;
        int32_t v = -1;
        if (lf_strmap_get(&ops, name, &x))
            v = (int32_t)(intptr_t)x - 1;
        else if (lf__folded_into_producer(nd) && nd->n_input > 0 && nd->input[0] && lf_strmap_get(&made, nd->input[0], &x))
            v = (int32_t)(intptr_t)x - 1; /* a BatchNormalization folded into its Conv: the Conv's op */
        if (v < 0 || !ann->op[v])
            continue;
        st = lf__ox_node_meta_add(arena, nd, ann->op[v], ann->n_op[v]);
        for (size_t o = 0; o < nd->n_output && st == LF_OK; o++)
            if (nd->output[o] && *nd->output[o])
                st = lf_strmap_put(&made, nd->output[o], (void *)(intptr_t)(v + 1));
    }
    if (st == LF_OK)
        st = lf__ox_model_meta_add(arena, m, ann->model, ann->n_model);
    if (st == LF_OK) {
        *len = onnx__model_proto__get_packed_size(m);
        if (!(*out = malloc(*len ? *len : 1)))
            st = lf__oom();
        else
            onnx__model_proto__pack(m, *out);
    }
    for (size_t k = 0; k < n_nodes; k++) {
        if (!old_n || !old_u)
            break;
        m->graph->node[k]->base.n_unknown_fields = old_n[k];
        m->graph->node[k]->base.unknown_fields = old_u[k];
    }
    if (have_map) { /* before the model: "made" points into its strings */
        lf_strmap_destroy(&ops);
        lf_strmap_destroy(&made);
    }
    if (m) {
        m->n_metadata_props = old_meta_n;
        m->metadata_props = old_meta;
        onnx__model_proto__free_unpacked(m, NULL);
    }
    free(old_n);
    free(old_u);
    return st;
}

lf_status lf__plan_onnx_bytes(const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta, lf_arena *arena,
                              uint8_t **out, size_t *len)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf__plan_view pv;
    lf_status st = lf__plan_view_init(&pv, p, cm);
    char *json = NULL;
    size_t json_len = 0;
    lf__ox_prop **op = calloc((size_t)g->n_ops + 1, sizeof *op);
    int32_t *n_op = calloc((size_t)g->n_ops + 1, sizeof *n_op);
    if (!op || !n_op)
        st = st == LF_OK ? lf__oom() : st;
    if (st == LF_OK) {
        FILE *f = open_memstream(&json, &json_len);
        if (!f)
            st = lf__oom();
        else {
            st = lf_plan_write_json(f, p, cm, meta);
            if (fclose(f) != 0 && st == LF_OK)
                st = lf__oom();
        }
    }
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
        int32_t k = pv.plan.group_of[v];
        if (k < 0)
            continue;
        const lf_group_cost *c = &pv.cost[k];
        lf__ox_prop *pr = lf_arena_alloc(arena, LF__OP_PROPS * sizeof *pr);
        if (!pr)
            st = lf__oom();
        else {
            pr[0] = (lf__ox_prop){"fusionplan.op", g->ops[v].name};
            pr[1] = (lf__ox_prop){"fusionplan.group", lf__fmt(arena, "%" PRId64, k)};
            pr[2] = (lf__ox_prop){"fusionplan.f_beta", lf__fmt(arena, "%" PRId64, c->f_beta)};
            pr[3] = (lf__ox_prop){"fusionplan.f_d", lf__fmt(arena, "%" PRId64, c->f_d)};
            pr[4] = (lf__ox_prop){"fusionplan.tile_rows", lf__fmt(arena, "%" PRId64, c->tile_rows)};
            pr[5] = (lf__ox_prop){"fusionplan.weight_reads", lf__fmt(arena, "%" PRId64, c->weight_reads)};
            for (int i = 1; i < LF__OP_PROPS; i++)
                if (!pr[i].value)
                    st = lf__oom();
            op[v] = pr;
            n_op[v] = LF__OP_PROPS;
        }
    }
    if (st == LF_OK) {
        char hash[17];
        lf_graph_hash_hex(g, hash);
        int optimal = meta && meta->search && strcmp(meta->search, "exact") == 0;
        lf__ox_prop model[] = {
            {"fusionplan.version", LF_VERSION},
            {"fusionplan.model", meta && meta->model ? meta->model : g->name},
            {"fusionplan.graph_hash", lf_arena_strdup(arena, hash)},
            {"fusionplan.scheme", lf_cost_scheme_name(cm)},
            {"fusionplan.beta", lf__fmt(arena, "%" PRId64, lf_cost_beta(cm))},
            {"fusionplan.dram_fusable", lf__fmt(arena, "%" PRId64, pv.metrics.dram_fusable)},
            {"fusionplan.dram_all", lf__fmt(arena, "%" PRId64, pv.metrics.dram_all)},
            {"fusionplan.optimal", optimal ? "true" : "false"},
            {"fusionplan.plan", json},
        };
        for (size_t i = 0; i < sizeof model / sizeof model[0]; i++)
            if (!model[i].value)
                st = lf__oom();
        lf__ox_annotations ann = {model, (int32_t)(sizeof model / sizeof model[0]), (const lf__ox_prop *const *)op,
                                  n_op};
        if (st == LF_OK)
            st = meta && meta->onnx_source ? lf__annotate_file(meta->onnx_source, g, &ann, arena, out, len)
                                           : lf__onnx_pack_graph(g, 0, &ann, out, len);
    }
    free(json);
    free(op);
    free(n_op);
    lf__plan_view_destroy(&pv);
    return st;
}

lf_status lf_plan_write_onnx(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta)
{
    if (!f || !p || !cm)
        return lf_set_error(LF_EINVAL, "lf_plan_write_onnx needs a stream, a plan and a cost model");
    lf_arena arena;
    lf_arena_init(&arena);
    uint8_t *buf = NULL;
    size_t len = 0;
    lf_status st = lf__plan_onnx_bytes(p, cm, meta, &arena, &buf, &len);
    if (st == LF_OK && fwrite(buf, 1, len, f) != len)
        st = lf_set_error(LF_EIO, "write failed (ONNX plan)");
    free(buf);
    lf_arena_destroy(&arena);
    return st;
}

/* ---- reading it back ---------------------------------------------------- */

/* What the JSON says about op `name`: group id and figures. */
typedef struct lf__op_fig {
    int64_t group, f_beta, f_d, tile_rows, weight_reads;
    int has_rows; /* groups of fusable ops give all; unfusable ops f_beta only */
} lf__op_fig;

static lf_status lf__check_node(const char *origin, const Onnx__NodeProto *n, size_t k, const lf_strmap *figs)
{
    static const char *keys[] = {"fusionplan.group", "fusionplan.f_beta", "fusionplan.f_d", "fusionplan.tile_rows",
                                 "fusionplan.weight_reads"};
    char nname[400];
    lf__node_ir_name(n, k, nname, sizeof nname);
    lf_status st = LF_OK;
    char *opname = lf__ox_node_meta_get(n, "fusionplan.op", &st);
    if (st != LF_OK)
        return lf_set_error(LF_EPARSE, "%s: node '%s': %s", origin, nname, lf_last_error());
    if (!opname)
        return LF_OK; /* a node the importer folds away, or not part of the plan */
    void *x = NULL;
    if (!lf_strmap_get(figs, opname, &x)) {
        st = lf_set_error(LF_EPARSE, "%s: node '%s': metadata fusionplan.op: '%s' is in no group of the plan", origin,
                          nname, opname);
        free(opname);
        return st;
    }
    free(opname);
    const lf__op_fig *fg = x;
    const int64_t want[5] = {fg->group, fg->f_beta, fg->f_d, fg->tile_rows, fg->weight_reads};
    for (int i = 0; i < 5 && st == LF_OK; i++) {
        char *s = lf__ox_node_meta_get(n, keys[i], &st);
        if (st != LF_OK)
            return lf_set_error(LF_EPARSE, "%s: node '%s': %s", origin, nname, lf_last_error());
        char *end = NULL;
        long long got = s ? strtoll(s, &end, 10) : 0;
        if (!s || !*s || *end)
            st = lf_set_error(LF_EPARSE, "%s: node '%s': metadata %s: expected an integer, got '%.40s'", origin, nname,
                              keys[i], s ? s : "(missing)");
        else if ((i <= 1 || fg->has_rows) && got != want[i])
            st = lf_set_error(LF_EPARSE, "%s: node '%s': metadata %s is %lld but the plan says %lld", origin, nname,
                              keys[i], got, (long long)want[i]);
        free(s);
    }
    return st;
}

static lf_status lf__collect_figs(const char *origin, json_t *root, lf_strmap *figs, lf__op_fig **store, size_t *n_store)
{
    json_t *groups = json_object_get(root, "groups"), *unf = json_object_get(root, "unfusable");
    size_t total = 0, i, j;
    json_t *e;
    json_array_foreach(groups, i, e) total += json_array_size(json_object_get(e, "names"));
    total += json_array_size(unf);
    *store = calloc(total + 1, sizeof **store);
    *n_store = 0;
    if (!*store)
        return lf__oom();
    json_array_foreach(groups, i, e) {
        json_t *names = json_object_get(e, "names"), *nm;
        json_array_foreach(names, j, nm) {
            lf__op_fig *f = &(*store)[(*n_store)++];
            f->group = json_integer_value(json_object_get(e, "id"));
            f->f_beta = json_integer_value(json_object_get(e, "f_beta"));
            f->f_d = json_integer_value(json_object_get(e, "f_d"));
            f->tile_rows = json_integer_value(json_object_get(e, "tile_rows"));
            f->weight_reads = json_integer_value(json_object_get(e, "weight_reads"));
            f->has_rows = 1;
            if (!json_is_string(nm) || lf_strmap_put(figs, json_string_value(nm), f) != LF_OK)
                return lf_set_error(LF_EPARSE, "%s: metadata fusionplan.plan: groups[%zu].names[%zu] is not a name",
                                    origin, i, j);
        }
    }
    json_array_foreach(unf, i, e) {
        lf__op_fig *f = &(*store)[(*n_store)++];
        f->group = json_integer_value(json_object_get(e, "group"));
        f->f_beta = json_integer_value(json_object_get(e, "f_beta"));
        json_t *nm = json_object_get(e, "name");
        if (!json_is_string(nm) || lf_strmap_put(figs, json_string_value(nm), f) != LF_OK)
            return lf_set_error(LF_EPARSE, "%s: metadata fusionplan.plan: unfusable[%zu].name is not a name", origin, i);
    }
    return LF_OK;
}

/* Each call of a group function (domain fusionplan.groups) carries the
 * fusionplan.group of every annotated node of its body. */
static lf_status lf__check_calls(const char *origin, const Onnx__ModelProto *m)
{
    lf_status st = LF_OK;
    for (size_t k = 0; k < m->graph->n_node && st == LF_OK; k++) {
        const Onnx__NodeProto *c = m->graph->node[k];
        if (!c->domain || strcmp(c->domain, "fusionplan.groups") != 0)
            continue;
        char *want = lf__ox_node_meta_get(c, "fusionplan.group", &st);
        for (size_t f = 0; f < m->n_functions && st == LF_OK && want; f++) {
            const Onnx__FunctionProto *fp = m->functions[f];
            if (!fp->name || !c->op_type || strcmp(fp->name, c->op_type) != 0 || !fp->domain ||
                strcmp(fp->domain, c->domain) != 0)
                continue;
            for (size_t j = 0; j < fp->n_node && st == LF_OK; j++) {
                char *got = lf__ox_node_meta_get(fp->node[j], "fusionplan.group", &st);
                if (st != LF_OK)
                    st = lf_set_error(LF_EPARSE, "%s: function '%s': node '%s': %s", origin, fp->name,
                                      fp->node[j]->name ? fp->node[j]->name : "", lf_last_error());
                else if (got && strcmp(got, want) != 0)
                    st = lf_set_error(LF_EPARSE, "%s: node '%s': metadata fusionplan.group is %.20s but its "
                                      "function's node '%s' says %.20s", origin, c->name ? c->name : "", want,
                                      fp->node[j]->name ? fp->node[j]->name : "", got);
                free(got);
            }
        }
        if (st != LF_OK && !want)
            st = lf_set_error(LF_EPARSE, "%s: node '%s': %s", origin, c->name ? c->name : "", lf_last_error());
        free(want);
    }
    return st;
}

lf_status lf__plan_onnx_to_json(const void *data, size_t len, const char *origin, json_t **out)
{
    *out = NULL;
    /* Capped like the importer's, so a small hostile file cannot make
     * unpacking allocate without bound. */
    lf__ox_alloc al;
    int64_t cap = (int64_t)64 << 20;
    if (cap < 16 * (int64_t)len)
        cap = 16 * (int64_t)len;
    lf__ox_alloc_init(&al, cap);
    lf_status wst = lf__ox_wire_check(data, len, &onnx__model_proto__descriptor, origin, "ONNX model");
    if (wst != LF_OK)
        return wst;
    Onnx__ModelProto *m = onnx__model_proto__unpack(&al.base, len, data);
    if (!m || !m->graph) {
        if (m)
            onnx__model_proto__free_unpacked(m, &al.base);
        return lf_set_error(LF_EPARSE, "%s: not a valid ONNX model (truncated or corrupt protobuf)", origin);
    }
    const char *plan = NULL;
    for (size_t k = 0; k < m->n_metadata_props; k++)
        if (m->metadata_props[k]->key && strcmp(m->metadata_props[k]->key, "fusionplan.plan") == 0)
            plan = m->metadata_props[k]->value;
    lf_status st = LF_OK;
    json_t *root = NULL;
    if (!plan) {
        st = lf_set_error(LF_EPARSE, "%s: no metadata fusionplan.plan (not an ONNX plan written by fusionplan)", origin);
    } else {
        json_error_t err;
        root = json_loads(plan, JSON_REJECT_DUPLICATES, &err);
        if (!root || !json_is_object(root))
            st = lf_set_error(LF_EPARSE, "%s: metadata fusionplan.plan:%d:%d: not a JSON plan: %s", origin, err.line,
                              err.column, root ? "not an object" : err.text);
    }
    lf_strmap figs;
    lf__op_fig *store = NULL;
    size_t n_store = 0;
    int have = 0;
    if (st == LF_OK && (st = lf_strmap_init(&figs, 256)) == LF_OK)
        have = 1;
    if (st == LF_OK)
        st = lf__collect_figs(origin, root, &figs, &store, &n_store);
    /* A grouped export (--format onnx-groups): its calls' group ids are
     * their bodies', and the bodies are read inlined, as the importer does. */
    lf_arena fa;
    lf_arena_init(&fa);
    Onnx__NodeProto **nodes = NULL;
    size_t n_nodes = 0;
    if (st == LF_OK)
        st = lf__check_calls(origin, m);
    if (st == LF_OK)
        st = lf__ox_functions_inline(m, origin, 1000000, &fa, &nodes, &n_nodes);
    for (size_t k = 0; st == LF_OK && k < n_nodes; k++)
        st = lf__check_node(origin, nodes[k], k, &figs);
    lf_arena_destroy(&fa);
    if (have)
        lf_strmap_destroy(&figs);
    free(store);
    onnx__model_proto__free_unpacked(m, &al.base);
    if (st != LF_OK) {
        json_decref(root);
        return st;
    }
    *out = root;
    return LF_OK;
}

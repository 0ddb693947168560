/* The plan as mappings for Stream (KULeuven-MICAS/stream; DESIGN §17,
 * docs/exports.md), written from the annotated ONNX export's nodes
 * (plan_stream_model.c), the model the mapping names:
 *
 *   "stream"         Stream 1.13: `layers` (one entry per ONNX node, by
 *                    name, core_allocation a list of lists) and
 *                    `fused_groups` (the plan's groups in Stream's cut order,
 *                    covering the network; intra_core_tiling
 *                    {dim: "<node>.D2", tile: rows per tile});
 *   "stream-stacks"  Stream's layer_stacks API (303f9dc1, 2025): the layer
 *                    list alone (per node: row tiling "OY, N" for conv and
 *                    pools, "D, all" for the rest) and, in a comment line
 *                    that is a Python literal, the stacks as Stream's node
 *                    ids (ONNX nodes from 0 in file order).
 *
 * What Stream cannot express (an op it has no parser for, a group it would
 * cut, tiles that do not divide the rows) is a comment line each, and the
 * same lines come from lf_plan_stream_notes for the CLI's warnings. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/plan_stream_internal.h"

/* A YAML plain scalar when safe, a double-quoted one otherwise. */
static void lf__yaml_str(FILE *f, const char *s)
{
    int plain = *s != '\0' && strchr("-?:,[]{}#&*!|>'\"%@` ", *s) == NULL;
    for (const char *p = s; *p && plain; p++)
        plain = (unsigned char)*p > 0x20 && *p != ':' && *p != '#' && *p != ',' && *p != '[' && *p != ']' &&
                *p != '{' && *p != '}' && *p != '"' && *p != '\'' && (unsigned char)*p < 0x7f;
    if (plain) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void lf__header(FILE *f, const lf__smodel *sm, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta,
                       const char *what)
{
    const lf_graph *g = lf_cost_graph(cm);
    fprintf(f, "# %s written by fusionplan %s (docs/exports.md)\n", what, LF_VERSION);
    fprintf(f, "# model ");
    lf__yaml_str(f, meta && meta->model ? meta->model : g->name);
    fprintf(f, ", scheme %s, buffer %" PRId64 " B, %d groups\n", lf_cost_scheme_name(cm), lf_cost_beta(cm),
            (int)p->n_groups);
    if (meta && meta->onnx_source)
        fprintf(f, "# layers are the nodes of the ONNX file %s (the annotated export of this plan, -o PLAN.onnx, "
                   "has the same nodes)\n", meta->onnx_source);
    else
        fprintf(f, "# layers are the nodes of the ONNX model `fusionplan plan ... -o PLAN.onnx` writes for this plan\n");
    for (const char *l = sm->notes; l && *l;) {
        const char *e = strchr(l, '\n');
        fprintf(f, "# cannot express: %.*s\n", (int)(e - l), l);
        l = e + 1;
    }
}

/* The node a Stream 1.13 group's row tiling names: its last node with rows
 * in D2 (conv, pools, element-wise ops and BatchNormalization on images). */
static int lf__has_rows(const lf__snode *s)
{
    static const char *const t[] = {"Conv", "MaxPool", "BatchNormalization", "Relu", "Add", "Mul", "Sub",
                                    "Div", "Sigmoid", "Tanh", "Silu", "Gelu", NULL};
    for (int i = 0; t[i]; i++)
        if (strcmp(s->type, t[i]) == 0)
            return s->rows > 1;
    return 0;
}

static lf_status lf__write_fused(FILE *f, const lf__smodel *sm, const lf_plan *p, lf_cost_model *cm,
                                 const lf_plan_meta *meta)
{
    lf__header(f, sm, p, cm, meta, "Stream 1.13 mapping (fused_groups)");
    fputs("layers:\n  - name: default\n    core_allocation: [[0]]\n", f);
    for (int32_t k = 0; k < sm->n_nodes; k++) {
        if (sm->node[k].piece < 0)
            continue; /* a layout op: no compute, no mapping */
        fputs("  - name: ", f);
        lf__yaml_str(f, sm->node[k].name);
        fputs("\n    core_allocation: [[0]]\n", f);
    }
    fputs("fused_groups:\n", f);
    int32_t k = 0;
    for (int32_t piece = 0; piece < sm->n_pieces; piece++) {
        while (k < sm->n_nodes && sm->node[k].piece != piece)
            k++;
        int32_t first = k, last = k, ref = -1;
        for (int32_t j = k; j < sm->n_nodes && (sm->node[j].piece == piece || sm->node[j].piece < 0); j++)
            if (sm->node[j].piece == piece) {
                last = j;
                if (lf__has_rows(&sm->node[j]))
                    ref = j;
            }
        const lf__snode *s0 = &sm->node[first];
        int32_t n_runs = 0, run = 0;
        for (int32_t j = 0; j < sm->n_nodes && s0->group >= 0; j++)
            if (sm->node[j].group == s0->group && sm->node[j].piece >= 0 &&
                (j == 0 || sm->node[j - 1].piece != sm->node[j].piece)) {
                if (sm->node[j].piece == piece)
                    run = n_runs;
                n_runs++;
            }
        if (s0->group < 0)
            fprintf(f, "  - name: node_%d\n", (int)first);
        else if (n_runs > 1)
            fprintf(f, "  - name: group_%d_%d\n", (int)s0->group, (int)run);
        else
            fprintf(f, "  - name: group_%d\n", (int)s0->group);
        fputs("    layers: [", f);
        for (int32_t j = first, i = 0; j <= last; j++)
            if (sm->node[j].piece == piece) {
                fputs(i++ ? ", " : "", f);
                lf__yaml_str(f, sm->node[j].name);
            }
        fputs("]\n    intra_core_tiling:\n      - {dim: ", f);
        if (ref >= 0) {
            int64_t tile = s0->tile_rows < 1 ? 1 : s0->tile_rows;
            if (tile > sm->node[ref].rows)
                tile = sm->node[ref].rows;
            char d[600];
            snprintf(d, sizeof d, "%s.D2", sm->node[ref].name);
            lf__yaml_str(f, d);
            fprintf(f, ", tile: %" PRId64 "}\n", tile);
        } else { /* no rows (Gemm, global pools): the whole layer, batch 1 */
            char d[600];
            snprintf(d, sizeof d, "%s.D0", s0->name);
            lf__yaml_str(f, d);
            fputs(", tile: 1}\n", f);
        }
        k = last + 1;
    }
    if (sm->n_pieces == 0)
        fputs("  []\n", f);
    return LF_OK;
}

static lf_status lf__write_stacks(FILE *f, const lf__smodel *sm, const lf_plan *p, lf_cost_model *cm,
                                  const lf_plan_meta *meta)
{
    lf__header(f, sm, p, cm, meta, "Stream layer-stacks mapping (Stream 303f9dc1 API)");
    /* stacks: the plan's groups in order of their first node, then nodes in no group */
    fputs("# pass the next line's list as layer_stacks (Stream's node ids: ONNX nodes from 0 in file order)\n"
          "# layer_stacks: [", f);
    uint8_t *done = calloc((size_t)p->n_groups + 1, 1);
    if (!done)
        return lf_set_error(LF_ENOMEM, "out of memory writing the Stream mapping");
    int first_stack = 1;
    for (int32_t k = 0; k < sm->n_nodes; k++) {
        int32_t grp = sm->node[k].group;
        if (grp >= 0 && grp < p->n_groups && done[grp])
            continue;
        fputs(first_stack ? "(" : ", (", f);
        first_stack = 0;
        int32_t n = 0;
        for (int32_t j = k; j < sm->n_nodes; j++)
            if (j == k || (grp >= 0 && sm->node[j].group == grp)) {
                fprintf(f, "%s%d", n ? ", " : "", (int)j);
                n++;
            }
        fputs(n == 1 ? ",)" : ")", f);
        if (grp >= 0 && grp < p->n_groups)
            done[grp] = 1;
    }
    free(done);
    fputs("]\n- name: default\n  core_allocation: [0]\n  intra_core_tiling:\n    - D, all\n", f);
    for (int32_t k = 0; k < sm->n_nodes; k++) {
        const lf__snode *s = &sm->node[k];
        fputs("- name: ", f);
        lf__yaml_str(f, s->name);
        fputs("\n  core_allocation: [0]\n  intra_core_tiling:\n", f);
        if (!lf__stream_conv_or_pool(s->type) || s->group < 0)
            fputs("    - D, all\n", f);
        else {
            int32_t n = lf__stream_legacy_tiles(sm, s->group);
            if (n > 0)
                fprintf(f, "    - OY, %d\n", (int)n);
            else
                fputs("    - OY, all\n", f);
        }
    }
    return LF_OK;
}

static lf_status lf__write(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta, int legacy)
{
    if (!f || !p || !cm)
        return lf_set_error(LF_EINVAL, "the Stream mapping writer needs a stream, a plan and a cost model");
    lf__smodel sm;
    lf_status st = lf__smodel_init(&sm, p, cm, meta, legacy);
    if (st == LF_OK)
        st = legacy ? lf__write_stacks(f, &sm, p, cm, meta) : lf__write_fused(f, &sm, p, cm, meta);
    lf__smodel_destroy(&sm);
    if (st == LF_OK && ferror(f))
        st = lf_set_error(LF_EIO, "write failed (Stream mapping)");
    return st;
}

lf_status lf_plan_write_stream(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta)
{
    return lf__write(f, p, cm, meta, 0);
}

lf_status lf_plan_write_stream_stacks(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta)
{
    return lf__write(f, p, cm, meta, 1);
}

int32_t lf_plan_stream_notes(const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta, const char *format,
                             char *out, size_t len)
{
    if (len)
        out[0] = '\0';
    if (!p || !cm || !format)
        return -1;
    lf__smodel sm;
    int32_t n = -1;
    if (lf__smodel_init(&sm, p, cm, meta, strcmp(format, "stream-stacks") == 0) == LF_OK) {
        n = sm.n_notes;
        if (len && sm.notes)
            snprintf(out, len, "%s", sm.notes);
    }
    lf__smodel_destroy(&sm);
    return n;
}

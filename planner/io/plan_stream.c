/* The plan as a mapping for Stream (KULeuven-MICAS/stream; docs/exports.md):
 *
 *   fused_groups   the current release's form: one entry per group of
 *                  fusable ops, its layers by ONNX node name (the names the
 *                  ONNX export gives the nodes: the IR op names) and its
 *                  intra-core row tiling ("OY, all" for one row per step,
 *                  "OY, N" for N tiles of tile_rows rows);
 *   layers         a catch-all entry per op type of the graph (and
 *                  "default"), each on core 0 with row tiling, as Stream's
 *                  mapping files have them;
 *   layer_stacks   the earlier release's list of fused layer stacks, op ids
 *                  as in the JSON export (groups[].ops).
 *
 * Groups are in the canonical order of the JSON export; unfusable ops are
 * stacks of one. Op types Stream's ONNX reader rejects are named in a
 * comment (and by lf_plan_stream_rejected for the CLI's warning). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "planner/io/plan_view_internal.h"
#include "planner/optable.h"

/* ONNX op types Stream's ONNX parser has no node class for. */
static const char *const lf__stream_rejects[] = {"Concat", "AveragePool", "Clip", "HardSwish", "Pad", "Resize"};

static lf_op_type lf__reject_type(size_t k)
{
    static const lf_op_type t[] = {LF_OP_CONCAT, LF_OP_AVGPOOL, LF_OP_CLIP, LF_OP_HARDSWISH, LF_OP_PAD, LF_OP_RESIZE};
    return t[k];
}

int32_t lf_plan_stream_rejected(const lf_graph *g, char *out, size_t len)
{
    int32_t total = 0;
    size_t used = 0;
    if (len)
        out[0] = '\0';
    for (size_t k = 0; k < sizeof lf__stream_rejects / sizeof lf__stream_rejects[0]; k++) {
        int32_t n = 0;
        for (int32_t v = 0; v < g->n_ops; v++)
            n += g->ops[v].type == lf__reject_type(k);
        if (!n)
            continue;
        total += n;
        if (len > used) {
            int w = snprintf(out + used, len - used, "%s%s (%d)", used ? ", " : "", lf__stream_rejects[k], (int)n);
            used += w > 0 ? (size_t)w : 0;
            if (used >= len)
                used = len - 1;
        }
    }
    return total;
}

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

static void lf__tiling(FILE *f, const char *indent, int32_t rows, int32_t tile_rows)
{
    fprintf(f, "%sintra_core_tiling:\n", indent);
    if (tile_rows <= 1 || rows <= 1)
        fprintf(f, "%s  - OY, all\n", indent);
    else
        fprintf(f, "%s  - OY, %d\n", indent, (int)((rows + tile_rows - 1) / tile_rows));
}

lf_status lf_plan_write_stream(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta)
{
    if (!f || !p || !cm)
        return lf_set_error(LF_EINVAL, "lf_plan_write_stream needs a stream, a plan and a cost model");
    const lf_graph *g = lf_cost_graph(cm);
    lf__plan_view pv;
    lf_status st = lf__plan_view_init(&pv, p, cm);
    if (st != LF_OK)
        return st;
    char rejected[512];
    lf_plan_stream_rejected(g, rejected, sizeof rejected);
    fprintf(f, "# Stream mapping written by fusionplan %s (docs/exports.md)\n", LF_VERSION);
    fprintf(f, "# model ");
    lf__yaml_str(f, meta && meta->model ? meta->model : g->name);
    fprintf(f, ", scheme %s, buffer %" PRId64 " B: %d groups of fusable ops, %d unfusable, DRAM %" PRId64
               " B over fusable ops\n",
            lf_cost_scheme_name(cm), lf_cost_beta(cm), (int)pv.metrics.n_groups, (int)pv.metrics.n_unfusable,
            pv.metrics.dram_fusable);
    if (rejected[0])
        fprintf(f, "# Stream's ONNX reader rejects: %s\n", rejected);
    fputs("fused_groups:\n", f);
    for (int32_t k = 0; k < pv.plan.n_groups; k++) {
        if (pv.lone_unfusable[k])
            continue;
        const int32_t *mem = pv.member + pv.start[k];
        int32_t n = pv.start[k + 1] - pv.start[k];
        fprintf(f, "  - name: group_%d\n    layers: [", (int)k);
        for (int32_t i = 0; i < n; i++) {
            if (i)
                fputs(", ", f);
            lf__yaml_str(f, g->ops[mem[i]].name);
        }
        fputs("]\n", f);
        lf__tiling(f, "    ", (int32_t)g->ops[mem[n - 1]].out.h, pv.cost[k].tile_rows);
    }
    if (pv.metrics.n_groups == 0)
        fputs("  []\n", f);
    /* catch-all entries: default, then each op type of the graph once */
    fputs("layers:\n  - name: default\n    core_allocation: [0]\n", f);
    lf__tiling(f, "    ", 1, 1);
    uint8_t seen[LF_OP_TYPE_COUNT] = {0};
    for (int32_t v = 0; v < g->n_ops; v++) {
        const lf_op_info *info = lf_op_info_of(g->ops[v].type);
        if (g->ops[v].type == LF_OP_INPUT || seen[g->ops[v].type] || !info->onnx_name)
            continue;
        seen[g->ops[v].type] = 1;
        fputs("  - name: ", f);
        lf__yaml_str(f, info->onnx_name);
        fputs("\n    core_allocation: [0]\n", f);
        lf__tiling(f, "    ", 1, 1);
    }
    fputs("layer_stacks:\n", f);
    for (int32_t k = 0; k < pv.plan.n_groups; k++) {
        const int32_t *mem = pv.member + pv.start[k];
        int32_t n = pv.start[k + 1] - pv.start[k];
        fputs("  - [", f);
        for (int32_t i = 0; i < n; i++)
            fprintf(f, "%s%d", i ? ", " : "", (int)mem[i]);
        fputs("]\n", f);
    }
    if (pv.plan.n_groups == 0)
        fputs("  []\n", f);
    lf__plan_view_destroy(&pv);
    return ferror(f) ? lf_set_error(LF_EIO, "write failed (Stream mapping)") : LF_OK;
}

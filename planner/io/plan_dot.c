/* Plan as a Graphviz digraph: one cluster per group labelled with its costs,
 * the graph's edges, unfusable ops gray and dashed, ops of invalid groups red,
 * graph inputs as plain ellipses outside every cluster. */
#include <inttypes.h>

#include "planner/io/dot_text.h"
#include "planner/io/plan_view_internal.h"
#include "planner/optable.h"

/* "475136 B (464.0 KB)": exact bytes for tools, KB for people (1 KB = 1024 B). */
static void lf__dot_bytes(FILE *f, int64_t bytes)
{
    fprintf(f, "%" PRId64 " B (%.1f KB)", bytes, (double)bytes / 1024.0);
}

static void lf__dot_node(FILE *f, const lf_graph *g, int32_t v, const char *indent, const char *extra)
{
    const lf_op *op = &g->ops[v];
    fprintf(f, "%sn%d [label=\"", indent, (int)v);
    lf_dot_text(f, op->name);
    fprintf(f, "\\n%s\\n%" PRId64 "x%" PRId64 "x%" PRId64 "\"%s];\n", lf_op_info_of(op->type)->name,
            op->out.c, op->out.h, op->out.w, extra);
}

/* heat: valid groups of fusable ops filled by F_beta / beta, light green
 * (empty buffer) to orange (full), for the rendered pictures. */
static void lf__dot_cluster(FILE *f, const lf__plan_view *pv, lf_cost_model *cm, int32_t k, int heat)
{
    const lf_graph *g = lf_cost_graph(cm);
    const lf_group_cost *c = &pv->cost[k];
    int32_t n = pv->start[k + 1] - pv->start[k];
    fprintf(f, "  subgraph cluster_%d {\n    label=\"group %d (%d op%s)", (int)k, (int)k, (int)n,
            n == 1 ? "" : "s");
    if (pv->lone_unfusable[k])
        fputs(": unfusable", f);
    else if (!c->valid)
        fputs(": INVALID", f);
    fputs("\\nF_beta = ", f);
    lf__dot_bytes(f, c->f_beta);
    fputs("\\nF_D = ", f);
    lf__dot_bytes(f, c->f_d);
    if (pv->lone_unfusable[k]) {
        fputs("\\nDRAM charged = ", f);
        lf__dot_bytes(f, pv->unfusable_dram[k]);
    }
    fputs("\";\n", f);
    if (pv->lone_unfusable[k])
        fputs("    style=dashed; color=gray50;\n", f);
    else if (!c->valid)
        fputs("    color=red; fontcolor=red; penwidth=2;\n", f);
    else if (heat) {
        double t = (double)c->f_beta / (double)lf_cost_beta(cm);
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        fprintf(f, "    style=filled; fillcolor=\"#%02x%02x%02x\";\n", (int)(0xe0 + t * (0xff - 0xe0)),
                (int)(0xf5 + t * (0xa0 - 0xf5)), (int)(0xe0 + t * (0x50 - 0xe0)));
    }
    for (int32_t i = pv->start[k]; i < pv->start[k + 1]; i++) {
        int32_t v = pv->member[i];
        /* An unfusable op is marked wherever it sits: alone, or (in a plan that
         * breaks the rules) inside a larger group, which is then invalid too. */
        const char *extra = "";
        if (!lf_cost_fusable(cm, v))
            extra = c->valid || pv->lone_unfusable[k]
                        ? ", style=\"filled,dashed\", fillcolor=gray85"
                        : ", style=\"filled,dashed\", fillcolor=gray85, color=red, fontcolor=red";
        else if (!c->valid)
            extra = ", fillcolor=\"#ffd0d0\", color=red, fontcolor=red";
        lf__dot_node(f, g, v, "    ", extra);
    }
    fputs("  }\n", f);
}

lf_status lf__plan_write_dot_heat(FILE *f, const lf_plan *p, lf_cost_model *cm,
                                  const lf_plan_meta *meta, int heat)
{
    if (!f || !p || !cm)
        return lf_set_error(LF_EINVAL, "lf_plan_write_dot needs a stream, a plan and a cost model");
    const lf_graph *g = lf_cost_graph(cm);
    lf__plan_view pv;
    lf_status st = lf__plan_view_init(&pv, p, cm);
    if (st != LF_OK)
        return st;
    const char *model = meta && meta->model ? meta->model : g->name;
    const lf_plan_metrics *m = &pv.metrics;
    fputs("digraph \"", f);
    lf_dot_text(f, model);
    fputs("\" {\n  graph [labelloc=t, fontname=\"Helvetica\", label=\"", f);
    lf_dot_text(f, model);
    fprintf(f, ": %s, beta = ", lf_cost_scheme_name(cm));
    lf__dot_bytes(f, lf_cost_beta(cm));
    if (meta && meta->search) {
        fputs(", search ", f);
        lf_dot_text(f, meta->search);
    }
    fputs("\\nDRAM (fusable ops) = ", f);
    lf__dot_bytes(f, m->dram_fusable);
    fputs(", DRAM (all ops) = ", f);
    lf__dot_bytes(f, m->dram_all);
    fprintf(f, "\\ngroups: %d, unfusable: %d, invalid: %d%s\"];\n", (int)m->n_groups,
            (int)m->n_unfusable, (int)m->n_invalid,
            heat ? "\\ngroup fill: F_beta / beta, light green (low) to orange (full); unfusable ops "
                   "gray and dashed; invalid groups red"
                 : "");
    fputs("  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\"];\n"
          "  edge [color=gray30];\n",
          f);
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].type == LF_OP_INPUT)
            lf__dot_node(f, g, v, "  ", ", shape=ellipse, style=solid");
    for (int32_t k = 0; k < pv.plan.n_groups; k++)
        lf__dot_cluster(f, &pv, cm, k, heat);
    /* One edge per distinct producer -> consumer pair; edges that cross a
     * group boundary carry a tensor through DRAM and are drawn dashed. */
    for (int32_t v = 0; v < g->n_ops; v++) {
        const lf_op *op = &g->ops[v];
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t u = op->inputs[j], dup = 0;
            for (int32_t i = 0; i < j && !dup; i++)
                dup = op->inputs[i] == u;
            if (dup)
                continue;
            int cross = pv.plan.group_of[u] != pv.plan.group_of[v];
            fprintf(f, "  n%d -> n%d%s;\n", (int)u, (int)v, cross ? " [style=dashed]" : "");
        }
    }
    fputs("}\n", f);
    lf__plan_view_destroy(&pv);
    return ferror(f) ? lf_set_error(LF_EIO, "error writing plan DOT") : LF_OK;
}

lf_status lf_plan_write_dot(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta)
{
    return lf__plan_write_dot_heat(f, p, cm, meta, 0);
}

/* Plan export: JSON (docs/plan-format.md, docs/plan.schema.json) and Graphviz
 * DOT, written to a stream or atomically to a file.
 *
 * Output depends only on the plan, the cost model and the metadata: groups are
 * written in canonical order (renumbered by smallest op id) and there are no
 * timestamps, timings, thread counts or addresses, so the same plan always
 * gives byte-identical files. */
#ifndef LF_PLAN_EXPORT_H
#define LF_PLAN_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "planner/plan.h"

/* What produced the plan. Every field may be left zero/NULL; pass NULL for no
 * metadata at all (the model name then defaults to the graph's name). */
typedef struct lf_plan_meta {
    const char *model;     /* model or file name */
    const char *search;    /* "layer", "greedy", "nsga2", ... */
    uint64_t seed;
    int64_t budget;        /* -1 when not applicable */
    int32_t n_pareto;      /* optional Pareto front (NSGA-II), 0 when none */
    const lf_plan *pareto;
} lf_plan_meta;

/* The plan must cover cm's graph: graph inputs in no group, every compute op
 * in a group index in [0, n_groups). Invalid groups, cycles or disconnected
 * groups are written as they are (and marked), so that bad plans can be
 * inspected; anything structurally unusable gives LF_EPLAN. Write errors give
 * LF_EIO. */
lf_status lf_plan_write_json(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta);
lf_status lf_plan_write_dot(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta);
/* The JSON content as XML, valid under planner/io/plan.xsd (docs/plan-format.md). */
lf_status lf_plan_write_xml(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta);
/* The plan drawn by Graphviz (format "svg" or "png"): the DOT export with
 * groups filled by F_beta / beta, run through `dot` found on PATH, into f.
 * LF_ENOSYS with one line when
 * Graphviz is not installed, LF_EIO when dot fails. */
lf_status lf_plan_write_image(FILE *f, const char *format, const lf_plan *p, lf_cost_model *cm,
                              const lf_plan_meta *meta);

/* format "json", "dot", "xml", "svg" or "png", or NULL to pick by the
 * path's extension (.json, .dot or .gv, .xml, .svg, .png, any case); other extensions or formats give LF_EINVAL. Written atomically
 * (temporary file + rename): on any error nothing is left behind. */
lf_status lf_plan_save(const char *path, const char *format, const lf_plan *p, lf_cost_model *cm,
                       const lf_plan_meta *meta);

/* ---- internal: shared by plan_json.c and plan_dot.c (not API) ---------- */

/* A plan prepared for writing: a canonical copy, its groups' members and
 * costs, and the plan metrics. */
typedef struct lf__plan_view {
    lf_plan plan;           /* canonical copy */
    int32_t *start;         /* group k's members are member[start[k] .. start[k+1]) */
    int32_t *member;        /* op ids, ascending within each group */
    lf_group_cost *cost;    /* per group, under the model's scheme */
    uint8_t *lone_unfusable; /* 1 when group k is a single unfusable op */
    int64_t *unfusable_dram; /* per group: DRAM charged to a lone unfusable op, else 0 */
    lf_plan_metrics metrics;
} lf__plan_view;

lf_status lf__plan_view_init(lf__plan_view *pv, const lf_plan *p, lf_cost_model *cm);
void lf__plan_view_destroy(lf__plan_view *pv); /* safe after a failed init */

/* lf_plan_write_dot, with heat: valid groups filled by F_beta / beta. */
lf_status lf__plan_write_dot_heat(FILE *f, const lf_plan *p, lf_cost_model *cm,
                                  const lf_plan_meta *meta, int heat);

/* In(G): distinct tensors produced outside group k and read inside, in op id
 * order; `list` needs room for every operand slot of the group. */
int32_t lf__plan_group_inputs(const lf__plan_view *pv, const lf_graph *g, int32_t k, int32_t *list);
/* Out(G): 1 when member v is read outside its group or is a graph output. */
int lf__plan_leaves_group(const lf__plan_view *pv, const lf_graph *g, int32_t v);

#endif

/* Internal to planner/io (not API): a plan prepared for writing, shared by
 * the JSON, XML and DOT writers (plan_json.c, plan_xml.c, plan_dot.c); built by
 * plan_view.c. */
#ifndef LF_PLAN_VIEW_INTERNAL_H
#define LF_PLAN_VIEW_INTERNAL_H

#include "planner/io/plan_export.h"

/* A plan prepared for writing: a canonical copy, its groups' members and
 * costs, and the plan metrics. */
typedef struct lf__plan_view {
    lf_plan plan;           /* canonical copy */
    int32_t *start;         /* group k's members are member[start[k] .. start[k+1]) */
    int32_t *member;        /* op ids, ascending within each group */
    lf_group_cost *cost;    /* per group, under the model's scheme */
    uint8_t *lone_unfusable; /* 1 when group k is a single unfusable op */
    int64_t *unfusable_dram; /* per group: DRAM charged to a lone unfusable op, else 0 */
    lf_group_perf *perf;     /* per group: energy and latency (planner/cost/energy.h) */
    lf_plan_metrics metrics;
} lf__plan_view;

lf_status lf__plan_view_init(lf__plan_view *pv, const lf_plan *p, lf_cost_model *cm);
void lf__plan_view_destroy(lf__plan_view *pv); /* safe after a failed init */

/* In(G): distinct tensors produced outside group k and read inside, in op id
 * order; `list` needs room for every operand slot of the group. */
int32_t lf__plan_group_inputs(const lf__plan_view *pv, const lf_graph *g, int32_t k, int32_t *list);
/* Out(G): 1 when member v is read outside its group or is a graph output. */
int lf__plan_leaves_group(const lf__plan_view *pv, const lf_graph *g, int32_t v);

/* lf_plan_write_dot, with heat: valid groups filled by F_beta / beta
 * (plan_dot.c; the picture writer uses it). */
lf_status lf__plan_write_dot_heat(FILE *f, const lf_plan *p, lf_cost_model *cm,
                                  const lf_plan_meta *meta, int heat);

#endif

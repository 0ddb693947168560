/* The planners' objective (see objective.h): one integer figure per group,
 * summed over a plan. Energy and latency come from energy.c, so the figure a
 * planner minimises is the one `plan` and `cost` report, rounded. */
#include "planner/cost/objective.h"

#include <math.h>
#include <string.h>

#include "planner/cost/cost_internal.h"
#include "planner/cost/energy.h"

static const char *const lf__names[LF_PLAN_OBJ_COUNT] = {"dram", "energy", "latency"};
static const char *const lf__units[LF_PLAN_OBJ_COUNT] = {"B", "fJ", "fs"};

const char *lf_plan_objective_name(lf_plan_objective o)
{
    return (int)o >= 0 && o < LF_PLAN_OBJ_COUNT ? lf__names[o] : "?";
}

const char *lf_plan_objective_unit(lf_plan_objective o)
{
    return (int)o >= 0 && o < LF_PLAN_OBJ_COUNT ? lf__units[o] : "?";
}

lf_plan_objective lf_plan_objective_from_name(const char *name)
{
    if (!name)
        return LF_PLAN_OBJ_DRAM;
    for (int i = 0; i < LF_PLAN_OBJ_COUNT; i++)
        if (strcmp(name, lf__names[i]) == 0)
            return (lf_plan_objective)i;
    return LF_PLAN_OBJ_COUNT;
}

lf_status lf_cost_set_objective(lf_cost_model *cm, lf_plan_objective o)
{
    if (!cm || (int)o < 0 || o >= LF_PLAN_OBJ_COUNT)
        return lf_set_error(LF_EINVAL, "unknown objective %d (use dram, energy or latency)", (int)o);
    cm->objective = (int32_t)o;
    return LF_OK;
}

lf_plan_objective lf_cost_objective(const lf_cost_model *cm)
{
    return cm ? (lf_plan_objective)cm->objective : LF_PLAN_OBJ_DRAM;
}

/* fJ or fs from pJ or s, rounded to the nearest: llround is monotone, so a
 * floor of the figure rounds to a floor of the value. */
static int64_t lf__figure(const lf_cost_model *cm, const lf_group_perf *p)
{
    double x = cm->objective == LF_PLAN_OBJ_ENERGY ? p->total_pj * 1e3 : p->latency_s * 1e15;
    return x > 0 ? (int64_t)llround(x) : 0;
}

int64_t lf_cost_objective_value(lf_cost_model *cm, const int32_t *members, int32_t n,
                                const lf_group_cost *c)
{
    if (cm->objective == LF_PLAN_OBJ_DRAM)
        return c->f_d;
    lf_group_perf p;
    if (lf_group_perf_ops(cm, members, n, c, &p) != LF_OK)
        return INT64_MAX;
    return lf__figure(cm, &p);
}

int64_t lf_cost_objective_of(lf_cost_model *cm, const lf_bitset *group, const lf_group_cost *c)
{
    if (cm->objective == LF_PLAN_OBJ_DRAM)
        return c->f_d;
    lf_group_perf p;
    if (lf_group_perf_eval(cm, group, c, &p) != LF_OK)
        return INT64_MAX;
    return lf__figure(cm, &p);
}

int64_t lf_cost_objective_floor(lf_cost_model *cm, const int32_t *members, int32_t n,
                                const uint8_t *in_group, uint8_t *seen)
{
    int64_t fd = lf_cost_fd_floor(cm, members, n, in_group, seen);
    if (cm->objective == LF_PLAN_OBJ_DRAM)
        return fd;
    /* F_D at its floor, one row step, row tiles (a column-block schedule
     * reads its input once per block and its weights once per row: no
     * less). Energy and latency only grow with each of these. The members'
     * sums are what lf_group_perf_ops adds at one step, read directly
     * (every grown group of a staircase asks this). */
    lf_obj_sums s = {0, 0, 0};
    for (int32_t i = 0; i < n; i++)
        lf_obj_sums_add_op(cm, members[i], &s);
    return lf_cost_objective_sums(cm, &s, fd, 1);
}

int64_t lf_cost_objective_unfusable(lf_cost_model *cm, int32_t v, int64_t dram)
{
    if (cm->objective == LF_PLAN_OBJ_DRAM)
        return dram;
    lf_group_perf p;
    if (lf_unfusable_perf(cm, v, dram, &p) != LF_OK)
        return INT64_MAX;
    return lf__figure(cm, &p);
}

void lf_obj_sums_add_op(const lf_cost_model *cm, int32_t v, lf_obj_sums *s)
{
    /* Fields read directly: staircases add this per member of every group. */
    s->macs += cm->g->ops[v].macs;
    s->act += cm->ops[v].act_traffic;
    s->weights += cm->ops[v].weight_bytes;
}

void lf_obj_sums_add(lf_obj_sums *a, const lf_obj_sums *b)
{
    a->macs += b->macs;
    a->act += b->act;
    a->weights += b->weights;
}

int64_t lf_cost_objective_sums(const lf_cost_model *cm, const lf_obj_sums *s, int64_t f_d, int64_t steps)
{
    if (cm->objective == LF_PLAN_OBJ_DRAM)
        return f_d;
    lf_group_perf p;
    lf_group_perf_from_sums(cm, s->macs, s->act, s->weights * (steps > 1 ? steps : 1), f_d, &p);
    return lf__figure(cm, &p);
}

int64_t lf_cost_objective_part_floor(const lf_cost_model *cm, const lf_obj_sums *s, int64_t fd, int first)
{
    if (cm->objective == LF_PLAN_OBJ_DRAM)
        return fd;
    lf_group_perf p;
    lf_group_perf_from_sums(cm, s->macs, s->act, s->weights, fd, &p);
    if (cm->objective == LF_PLAN_OBJ_LATENCY && !first)
        p.latency_s = p.compute_s < p.memory_s ? p.compute_s : p.memory_s;
    int64_t f = lf__figure(cm, &p) - 2;
    return f > 0 ? f : 0;
}

int64_t lf_cost_objective_dram_floor(const lf_cost_model *cm, int64_t dram, const lf_obj_sums *s, int64_t groups)
{
    if (cm->objective == LF_PLAN_OBJ_DRAM)
        return dram;
    /* One group of the sums, F_D dram, one step (objective.h has the proof):
     * lf_group_perf_from_sums prices energy linearly and latency as
     * max(MACs / peak, dram / bandwidth). */
    lf_group_perf p;
    lf_group_perf_from_sums(cm, s->macs, s->act, s->weights, dram > 0 ? dram : 0, &p);
    int64_t f = lf__figure(cm, &p) - 2 * groups;
    return f > 0 ? f : 0;
}

void lf_obj_sums_fusable(const lf_cost_model *cm, lf_obj_sums *s, int64_t *n)
{
    const lf_graph *g = lf_cost_graph(cm);
    memset(s, 0, sizeof *s);
    *n = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].type != LF_OP_INPUT && lf_cost_fusable(cm, v)) {
            lf_obj_sums_add_op(cm, v, s);
            (*n)++;
        }
}

int64_t lf_cost_objective_plan_floor(const lf_cost_model *cm, int64_t dram)
{
    if (cm->objective == LF_PLAN_OBJ_DRAM)
        return dram;
    lf_obj_sums s;
    int64_t n;
    lf_obj_sums_fusable(cm, &s, &n);
    return lf_cost_objective_dram_floor(cm, dram, &s, n);
}

int64_t lf_cost_objective_fd_limit(const lf_cost_model *cm, const lf_obj_sums *s, int64_t steps, int64_t limit)
{
    if (cm->objective == LF_PLAN_OBJ_DRAM || limit == INT64_MAX)
        return limit;
    int64_t f0 = lf_cost_objective_sums(cm, s, 0, steps);
    if (f0 > limit)
        return -1;
    const lf_hw *hw = lf_cost_hw(cm);
    /* fJ or fs per byte of F_D (the figure's slope; 0: it does not grow) */
    double slope = cm->objective == LF_PLAN_OBJ_ENERGY
                       ? (cm->energy.dram_pj_per_byte + cm->energy.sram_pj_per_byte) * 1e3
                       : (hw->dram_bandwidth > 0 ? 1e15 / hw->dram_bandwidth : 0.0);
    if (!(slope > 0))
        return INT64_MAX;
    /* Latency: from the memory term alone (the compute term is flat). */
    double est = cm->objective == LF_PLAN_OBJ_ENERGY ? (double)(limit - f0) / slope : (double)limit / slope;
    if (!(est < 4e18))
        return INT64_MAX;
    int64_t g = est > 0 ? (int64_t)est : 0;
    /* The estimate may fall short by rounding: move on until one byte more
     * exceeds the limit (it rarely moves at all). */
    for (int i = 0; i < 64 && lf_cost_objective_sums(cm, s, g + 1, steps) <= limit; i++) {
        int64_t d = g >> 20;
        g += d > 1 ? d : 1;
    }
    return lf_cost_objective_sums(cm, s, g + 1, steps) <= limit ? INT64_MAX : g;
}

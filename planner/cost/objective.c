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
     * less). Energy and latency only grow with each of these. */
    lf_group_cost c;
    memset(&c, 0, sizeof c);
    c.f_d = fd;
    c.steps = 1;
    lf_group_perf p;
    if (lf_group_perf_ops(cm, members, n, &c, &p) != LF_OK)
        return 0;
    return lf__figure(cm, &p);
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

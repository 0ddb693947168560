/* The exact planner's public entry (exact.h): the DP over the whole graph
 * (exact.c), with the frontier's lower bound (frontier.c) and, for a run
 * stopped at a limit, a plan completed from its best reached state
 * (complete.c). Its own file so that the DP, which the completion calls,
 * does not call back into it. */
#include "planner/exact/exact.h"

#include <stdio.h>

#include "planner/cost/objective.h"
#include "planner/exact/complete.h"
#include "planner/exact/downsets.h"
#include "planner/exact/frontier.h"
#include "planner/exact/solve.h"

/* The share of the time limit a stopped run spends completing its best
 * reached state into a plan (lf__exact_complete). */
#define LF__COMPLETE_SHARE 0.1

lf_status lf_exact_plan(lf_cost_model *cm, const lf_exact_config *cfg, lf_plan *out,
                        lf_exact_stats *stats)
{
    lf__exact x;
    int64_t dram = 0;
    if (cfg && cfg->upper_bound < 0)
        return lf_set_error(LF_EINVAL, "exact planner: upper bound %lld is negative (0: none)",
                            (long long)cfg->upper_bound);
    lf_status st = lf__dp_setup(&x, cm, NULL, cfg);
    /* Half the memory limit for the memo, the other half for the states. */
    int64_t memo_before =
        x.cfg.memory_limit > 0 ? lf_cost_memo_limit(cm, x.cfg.memory_limit / 2) : -1;
    /* The frontier's floors are bytes, priced under energy and latency
     * (frontier.c); branch and bound prunes with them, so a known plan's
     * figure sets the frontier up too. */
    int64_t ub = x.cfg.upper_bound;
    if (st == LF_OK && (x.cfg.lower_bound || ub > 0))
        st = lf__frontier_create(&x);
    if (st == LF_OK)
        st = lf__exact_run(&x, out, &dram);
    /* Past the bound: every plan at most ub keeps all of its states (frontier.c),
     * so a goal reached above ub, or not at all once states were pruned, means
     * none exists, and the plan reached is not proven optimal: not returned. */
    int over = ub > 0 && ((st == LF_OK && dram > ub) || (st == LF_EPLAN && x.st.pruned > 0));
    if (over) {
        if (st == LF_OK)
            lf_plan_destroy(out);
        lf_plan_objective o = lf_cost_objective(cm);
        st = lf_set_error(LF_EPLAN, "exact planner: no plan of '%s' has %s over fusable ops at most the "
                                    "upper bound %lld %s (the optimum is at least %lld %s)",
                          x.g->name, o == LF_PLAN_OBJ_DRAM ? "DRAM" : lf_plan_objective_name(o),
                          (long long)ub, lf_plan_objective_unit(o), (long long)ub + 1,
                          lf_plan_objective_unit(o));
    }
    char why[512];
    snprintf(why, sizeof why, "%s", st == LF_ELIMIT ? lf_last_error() : "");
    /* Proven optimal: the bound is the optimum itself; proven past the upper
     * bound: the next integer. */
    x.st.lower = st == LF_OK ? dram : over ? ub + 1 : lf__frontier_lower(&x);
    /* Stopped: a plan from the best reached state, within a tenth of the
     * limit (the caller's deadline is past; its next steps take what is
     * left of the whole). */
    if (st == LF_ELIMIT && x.front && x.cfg.upper_plan) {
        double secs = x.named_limit_s > 0 ? LF__COMPLETE_SHARE * x.named_limit_s : 0;
        int64_t up = 0;
        lf_status cs = lf__exact_complete(&x, secs, x.cfg.upper_plan, &up);
        if (cs == LF_OK)
            x.st.upper = up;
        lf_set_error(LF_ELIMIT, "%s", why);
    }
    lf__frontier_free(&x);
    if (memo_before >= 0)
        lf_cost_memo_limit(cm, memo_before);
    if (stats)
        *stats = x.st;
    lf__dp_teardown(&x);
    return st;
}

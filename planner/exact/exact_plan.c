/* The exact planner's public entry (exact.h): the DP over the whole graph
 * (exact.c), with the frontier's lower bound (frontier.c) and, for a run
 * stopped at a limit, a plan completed from its best reached state
 * (complete.c). Its own file so that the DP, which the completion calls,
 * does not call back into it. */
#include "planner/exact/exact.h"

#include <stdio.h>

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
    lf_status st = lf__dp_setup(&x, cm, NULL, cfg);
    /* Half the memory limit for the memo, the other half for the states. */
    int64_t memo_before =
        x.cfg.memory_limit > 0 ? lf_cost_memo_limit(cm, x.cfg.memory_limit / 2) : -1;
    /* The frontier's floors are bytes, priced under energy and latency
     * (frontier.c). */
    if (st == LF_OK && x.cfg.lower_bound)
        st = lf__frontier_create(&x);
    if (st == LF_OK)
        st = lf__exact_run(&x, out, &dram);
    char why[512];
    snprintf(why, sizeof why, "%s", st == LF_ELIMIT ? lf_last_error() : "");
    /* Proven optimal: the bound is the optimum itself. */
    x.st.lower = st == LF_OK ? dram : lf__frontier_lower(&x);
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

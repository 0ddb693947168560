/* A BRR plan's polish windows chosen and priced under LBDF (issue 46).
 * Under BRR weights stream, so far more groups are valid and a wide
 * window's exact solve enumerates far more candidate sets than under LBDF,
 * where a group keeps its whole weights on chip; a group valid under LBDF
 * reads each weight once under BRR as well. PP-OCRv4 detection at 256 KB:
 * 44-op windows over the 16,661,545 B plan reach 16,584,793 B in 1.35 s of
 * CPU priced under LBDF against 3.83 s under BRR (the same three windows
 * improve; docs/results/exact.md, branch brrlbdf). The LBDF pass runs on a
 * copy; its plan is kept only when it passes lf_plan_check under the BRR
 * model and its BRR figure, recomputed there, is lower: the plan stays a
 * real BRR plan at its real figure, whatever LBDF made of it. */
#include <string.h>

#include "planner/cost/objective.h"
#include "planner/exact/separators.h"

lf_status lf__polish_lbdf(lf_cost_model *cm, const lf_polish_config *cfg, lf_plan *plan, int64_t *figure,
                          int32_t *improved)
{
    *improved = 0;
    const char *scheme = lf_cost_scheme_name(cm);
    if (!scheme || strcmp(scheme, "brr") != 0 || lf_cost_objective(cm) != LF_PLAN_OBJ_DRAM)
        return LF_OK;
    lf_cost_model *lbdf = NULL;
    lf_status st = lf_cost_model_create(&lbdf, lf_cost_graph(cm), lf_cost_hw(cm), "lbdf");
    if (st != LF_OK)
        return st == LF_ENOMEM ? st : LF_OK; /* no LBDF model: nothing to try */
    lf_plan cand;
    if ((st = lf_plan_copy(&cand, plan)) != LF_OK) {
        lf_cost_model_free(lbdf);
        return st;
    }
    lf_polish_stats ps;
    st = lf_exact_polish(lbdf, cfg, &cand, &ps);
    lf_plan_metrics m;
    if (st == LF_OK && ps.improved > 0 && lf_plan_check(&cand, cm) == LF_OK &&
        lf_plan_metrics_compute(&cand, cm, &m) == LF_OK && m.n_invalid == 0 && m.objective < *figure) {
        lf_plan_destroy(plan);
        *plan = cand;
        *figure = m.objective;
        *improved = 1;
    } else {
        lf_plan_destroy(&cand);
    }
    lf_cost_model_free(lbdf);
    /* Only running out of memory stops the caller: a window LBDF cannot
     * price leaves the plan as it was. */
    return st == LF_ENOMEM ? st : LF_OK;
}

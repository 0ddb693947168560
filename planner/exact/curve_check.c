/* A staircase checked against the single-buffer planner (see curve.h): the
 * staircase claims the optimum at every buffer of its range, and a step
 * that starts one byte too early or too late, or a DRAM a byte off, shows
 * at the step's buffer or one byte below it. */
#include <string.h>

#include "planner/cost/cost.h"
#include "planner/cost/objective.h"
#include "planner/exact/curve.h"

void lf_curve_fix_sram(lf_hw *hw)
{
    if (hw->sram_pj_per_byte <= 0)
        hw->sram_pj_per_byte = lf_hw_sram_pj_model(hw->buffer_bytes);
}

/* The optimum over all ops at beta, by lf_exact_plan under cfg. */
static lf_status lf__optimum_at(const lf_graph *g, const lf_hw *hw, const char *scheme, int64_t beta,
                                const lf_exact_config *cfg, int64_t *dram_all)
{
    lf_hw h = *hw;
    if (cfg && cfg->objective != 0) /* energy: one SRAM figure (curve.h) */
        lf_curve_fix_sram(&h);
    h.buffer_bytes = beta;
    lf_cost_model *cm = NULL;
    lf_status st = lf_cost_model_create(&cm, g, &h, scheme);
    if (st == LF_OK)
        st = lf_cost_set_objective(cm, (lf_plan_objective)(cfg ? cfg->objective : 0));
    lf_plan p;
    memset(&p, 0, sizeof p);
    if (st == LF_OK)
        st = lf_exact_plan(cm, cfg, &p, NULL);
    lf_plan_metrics m;
    if (st == LF_OK && (st = lf_plan_metrics_compute(&p, cm, &m)) == LF_OK)
        *dram_all = m.objective_all; /* dram_all under the default objective */
    if (p.group_of)
        lf_plan_destroy(&p);
    lf_cost_model_free(cm);
    return st;
}

lf_status lf_curve_check(const lf_graph *g, const lf_hw *hw, const char *scheme, const lf_curve *c,
                         const lf_exact_config *cfg, int32_t *checked)
{
    *checked = 0;
    if (c->n < 1)
        return lf_set_error(LF_EINVAL, "curve check: the staircase has no step");
    for (int32_t k = 0; k <= c->n; k++) {
        /* Step k's buffer and one byte below it; past the last step, the
         * largest buffer of the range (the last step holds up to there). */
        int64_t at[2] = {k < c->n ? c->points[k].beta : c->beta_max,
                         k < c->n ? c->points[k].beta - 1 : -1};
        for (int i = 0; i < 2; i++) {
            int64_t beta = at[i];
            if (beta < c->beta_min || beta > c->beta_max)
                continue;
            if (k == c->n && c->points[c->n - 1].beta == beta)
                continue; /* already checked as the last step's buffer */
            int32_t want = i == 0 ? (k < c->n ? k : c->n - 1) : k - 1;
            if (want < 0)
                return lf_set_error(LF_EPLAN, "curve check: no step holds at %lld B, inside the "
                                              "range from %lld B",
                                    (long long)beta, (long long)c->beta_min);
            int64_t d = 0;
            lf_status st = lf__optimum_at(g, hw, scheme, beta, cfg, &d);
            if (st != LF_OK)
                return st;
            ++*checked;
            /* in the objective's unit: B, fJ or fs */
            const char *u = lf_plan_objective_unit((lf_plan_objective)(cfg ? cfg->objective : 0));
            if (d != c->points[want].dram_all)
                return lf_set_error(LF_EPLAN,
                                    "curve check: at %lld B the single-buffer optimum is %lld %s over "
                                    "all ops, the staircase says %lld %s",
                                    (long long)beta, (long long)d, u,
                                    (long long)c->points[want].dram_all, u);
        }
    }
    return LF_OK;
}

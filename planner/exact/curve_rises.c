/* The buffers where a lone op's price rises as the buffer grows (see
 * curve_rises.h): where it becomes fusable, where BRR starts to fit it,
 * and where one of its own DRAM steps raises its energy or latency. */
#include "planner/exact/curve_rises.h"

#include "planner/cost/cost.h"
#include "planner/cost/objective.h"
#include "planner/exact/curve.h"

/* The buffers above t (v's smallest buffer alone) inside (beta_min,
 * beta_max] where v's figure alone rises at a step of its DRAM (at most
 * LF_COST_MAX_STEPS of them), appended to cuts. */
static lf_status lf__scheme_rises(lf_cost_model *cm, int32_t v, int64_t t, int64_t beta_min,
                                  int64_t beta_max, int64_t *cuts, int32_t *n_cuts)
{
    lf_cost_step steps[LF_COST_MAX_STEPS];
    int32_t n = 0;
    lf_bitset one;
    lf_status st = lf_bitset_init(&one, lf_cost_graph(cm)->n_ops);
    if (st != LF_OK)
        return st;
    lf_bitset_set(&one, v);
    st = lf_cost_steps(cm, &one, beta_max, steps, LF_COST_MAX_STEPS, &n);
    lf_bitset_destroy(&one);
    for (int32_t k = 0; k < n && st == LF_OK; k++) {
        int64_t at = steps[k].need + 1;
        if (at <= t || at <= beta_min || at > beta_max)
            continue;
        lf_group_cost below, above;
        if ((st = lf_cost_eval_at(cm, &v, 1, at - 1, &below)) != LF_OK ||
            (st = lf_cost_eval_at(cm, &v, 1, at, &above)) != LF_OK)
            break;
        if (below.valid && above.valid &&
            lf_cost_objective_value(cm, &v, 1, &above) > lf_cost_objective_value(cm, &v, 1, &below))
            cuts[(*n_cuts)++] = at;
    }
    return st;
}

/* Under energy or latency an op alone can cost more once it is fusable
 * than charged as unfusable just below (LBDF reads a group's weights from
 * the buffer once per row step; the unfusable charge streams them once),
 * so its figure is not a step function that only falls, which the Pareto
 * DP assumes. Under DRAM too (lf_cost_singleton_rises): a weight MatMul
 * just above BRR's threshold re-reads its input per output channel, dearer
 * than its charge below it. The buffers where that happens (an op's F_beta
 * alone + 1) are collected into cuts (ascending, n_cuts of them inside
 * (beta_min, beta_max]). */
lf_status lf__curve_rising_cuts(const lf_graph *g, const lf_hw *hw, const char *scheme, int64_t beta_min,
                                int64_t beta_max, const lf_exact_config *cfg, int64_t *cuts, int32_t *n_cuts)
{
    lf_hw h = *hw;
    lf_curve_fix_sram(&h);
    h.buffer_bytes = beta_max;
    lf_cost_model *cm = NULL;
    lf_status st = lf_cost_model_create(&cm, g, &h, scheme);
    if (st == LF_OK)
        st = lf_cost_set_objective(cm, (lf_plan_objective)cfg->objective);
    *n_cuts = 0;
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
        if (g->ops[v].type == LF_OP_INPUT)
            continue;
        int32_t m = *n_cuts;
        if ((st = lf_cost_singleton_rises(cm, v, beta_min, beta_max, cuts, n_cuts)) != LF_OK ||
            cfg->objective == LF_PLAN_OBJ_DRAM)
            continue;
        lf_group_cost alone, above;
        if ((st = lf_cost_eval_at(cm, &v, 1, beta_max, &alone)) != LF_OK)
            break;
        int64_t t = alone.valid ? alone.f_beta + 1 : INT64_MAX; /* the smallest buffer where v is fusable */
        /* Below t, v is charged as unfusable on both sides of a DRAM rise:
         * a cut where its figure rises too. From t on, the figures decide. */
        int32_t w = m;
        for (int32_t i = m; i < *n_cuts && st == LF_OK; i++) {
            int64_t below = 0, at = 0;
            if (cuts[i] >= t || (st = lf_cost_singleton_at(cm, v, cuts[i] - 1, &below)) != LF_OK ||
                (st = lf_cost_singleton_at(cm, v, cuts[i], &at)) != LF_OK)
                continue;
            if (lf_cost_objective_unfusable(cm, v, at) > lf_cost_objective_unfusable(cm, v, below))
                cuts[w++] = cuts[i];
        }
        *n_cuts = w;
        /* Above t, a step of the scheme's own that lowers v's DRAM may raise
         * its figure (BRR's column blocks of a weight MatMul re-read its
         * input per block): a cut there too. */
        if (st == LF_OK && t != INT64_MAX)
            st = lf__scheme_rises(cm, v, t, beta_min, beta_max, cuts, n_cuts);
        if (st != LF_OK || t <= beta_min || t > beta_max)
            continue;
        int64_t d = 0; /* the unfusable charge at buffer t - 1 */
        if ((st = lf_cost_singleton_at(cm, v, t - 1, &d)) != LF_OK ||
            (st = lf_cost_eval_at(cm, &v, 1, t, &above)) != LF_OK)
            break;
        if (lf_cost_objective_value(cm, &v, 1, &above) > lf_cost_objective_unfusable(cm, v, d))
            cuts[(*n_cuts)++] = t;
    }
    lf_cost_model_free(cm);
    /* ascending, each once */
    for (int32_t i = 1; i < *n_cuts; i++)
        for (int32_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            int64_t x = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = x;
        }
    int32_t m = 0;
    for (int32_t i = 0; i < *n_cuts; i++)
        if (m == 0 || cuts[m - 1] != cuts[i])
            cuts[m++] = cuts[i];
    *n_cuts = m;
    return st;
}

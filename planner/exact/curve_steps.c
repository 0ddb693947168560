/* A group's steps in the figure of energy or latency (curve.c's
 * staircase): each step priced at its own buffer, attention groups at every
 * buffer of the range. */
#include "planner/exact/curve_steps.h"

#include <stdlib.h>
#include <string.h>

#include "planner/cost/objective.h"

/* An attention group's steps under energy or latency: its price at every
 * buffer of [lo, hi] (lf_cost_attn_prices, which sees the schedules
 * whose row steps fall where F_D does not), a piece no cheaper than the one
 * before it dropped as below, after the `kept` steps already there (a lone
 * op's unfusable charges). */
static lf_status lf__steps_attention(lf_cost_model *cm, const int32_t *members, int32_t n_members, int64_t lo,
                                     int64_t hi, lf_cost_step *steps, int32_t kept, int32_t *n)
{
    lf_cost_sched *sc = NULL;
    int32_t ns = 0;
    lf_status st = lf_cost_attn_prices(cm, members, n_members, lo, hi, &sc, &ns);
    /* Only F_D and the row steps change from piece to piece: the members'
     * sums are taken once (lf_cost_objective_sums gives the same figure). */
    lf_obj_sums sums = {0, 0, 0};
    for (int32_t i = 0; i < n_members; i++)
        lf_obj_sums_add_op(cm, members[i], &sums);
    for (int32_t k = 0; k < ns && st == LF_OK; k++) {
        if (!sc[k].valid)
            continue;
        int64_t v = lf_cost_objective_sums(cm, &sums, sc[k].f_d, sc[k].steps);
        if (v == INT64_MAX || (kept > 0 && v >= steps[kept - 1].f_d))
            continue;
        if (kept == LF_COST_MAX_STEPS)
            st = lf_set_error(LF_ERANGE, "a group's %s has more than %d buffer steps",
                              lf_plan_objective_name(lf_cost_objective(cm)), LF_COST_MAX_STEPS);
        else
            steps[kept++] = (lf_cost_step){sc[k].at - 1, v};
    }
    free(sc);
    *n = kept;
    return st;
}

lf_status lf__steps_attention_group(lf_cost_model *cm, const int32_t *members, int32_t n_members, int64_t lo,
                                    int64_t hi, lf_cost_step *steps, int32_t *n)
{
    return lf__steps_attention(cm, members, n_members, lo, hi, steps, 0, n);
}

/* Under energy or latency (cfg.objective) the steps carry the objective's
 * figure instead of F_D: each step priced at its own buffer (need + 1), so
 * with the row steps and blocks of the schedule the model takes there, and
 * a step no cheaper than the one before it (more need) dropped, so that the
 * figures descend as lf__extend_from assumes. For op v alone (op >= 0),
 * steps needing less than its F_beta alone (fb1) are its unfusable charges
 * (lf_cost_singleton_steps) and the others the scheme's own (lf_cost_steps),
 * kept apart because F_D alone may rank them otherwise; an op valid at the
 * range's smallest buffer lo keeps none of its unfusable charges: no buffer
 * of the range prices it so (lf_curve_compute splits the range where an
 * op's figure rises as it becomes fusable). An attention group's figure
 * may also fall where its F_D does not (larger query tiles, fewer row
 * steps): it is priced at every buffer of [lo, hi] instead
 * (lf__steps_attention). So each step's figure is the group's price from
 * its need + 1 to the next step's, but where the price rises (a dropped
 * step: the staircase's plans are checked for those and the range cut
 * there, lf__curve_plan_rises).
 *
 * lf__step_figures puts each step's figure into its f_d (INT64_MAX where
 * it is no price in the range), from at[k] where the step walk priced it
 * (lf_cost_steps_priced) or else lf_cost_eval_at; it stops at the first
 * step priced as an attention group, *attn_at (n where none), whose steps
 * from there on are left at INT64_MAX for lf__steps_attention. */
lf_status lf__step_figures(lf_cost_model *cm, const int32_t *members, int32_t n_members,
                                  int32_t op, int64_t fb1, int64_t lo, lf_cost_step *steps,
                                  const lf_group_cost *at, int32_t n, int32_t *attn_at)
{
    *attn_at = n;
    /* An attention group prices as one at every step: known from its ops,
     * where pricing a step to find out took a third of GPT-2's staircase. */
    int attn = lf_cost_group_attn(cm, members, n_members);
    /* A group of several ops prices every step from its members' sums
     * (lf_cost_objective_sums: what lf_cost_objective_value adds member by
     * member, weights once per row step), taken once: per step, they were
     * a tenth of Llama 3's BRR energy staircase. A lone op may run by
     * column blocks (another schedule): priced by lf_cost_objective_value. */
    lf_obj_sums sums = {0, 0, 0};
    int by_sums = n_members > 1 && !attn;
    for (int32_t i = 0; by_sums && i < n_members; i++)
        lf_obj_sums_add_op(cm, members[i], &sums);
    for (int32_t k = 0; k < n; k++) {
        int64_t v = INT64_MAX;
        /* A step that another below lo replaces is no price in the range:
         * if its figure were kept, a cheaper one would hide the price at lo
         * (the figure need not fall where the DRAM does: lf__scheme_rises). */
        if (k + 1 < n && steps[k + 1].need < lo) {
        } else if (op >= 0 && steps[k].need < fb1) {
            if (fb1 >= lo)
                v = lf_cost_objective_unfusable(cm, op, steps[k].f_d);
        } else if (attn) { /* the first step it runs as a group: all of them */
            *attn_at = k;
            for (int32_t j = k; j < n; j++)
                steps[j].f_d = INT64_MAX;
            return LF_OK;
        } else {
            lf_group_cost gc;
            if (at) /* priced by the step walk (lf_cost_steps_priced) */
                gc = at[k];
            else {
                lf_status st = lf_cost_eval_at(cm, members, n_members, steps[k].need + 1, &gc);
                if (st != LF_OK)
                    return st;
            }
            v = !gc.valid ? INT64_MAX
                : by_sums ? lf_cost_objective_sums(cm, &sums, gc.f_d, gc.steps)
                          : lf_cost_objective_value(cm, members, n_members, &gc);
        }
        steps[k].f_d = v;
    }
    return LF_OK;
}

/* The figures of steps[0..n) kept as a staircase from lo on: a step that
 * another below lo replaces, one valid nowhere (INT64_MAX) and one no
 * cheaper than the one kept before it are dropped. */
int32_t lf__step_keep(lf_cost_step *steps, int32_t n, int64_t lo)
{
    int32_t kept = 0;
    for (int32_t k = 0; k < n; k++) {
        int64_t v = steps[k].f_d;
        if ((k + 1 < n && steps[k + 1].need < lo) || v == INT64_MAX ||
            (kept > 0 && v >= steps[kept - 1].f_d))
            continue;
        steps[kept++] = (lf_cost_step){steps[k].need, v};
    }
    return kept;
}

lf_status lf__steps_objective(lf_cost_model *cm, const int32_t *members, int32_t n_members,
                                     int32_t op, int64_t fb1, int64_t lo, int64_t hi,
                                     lf_cost_step *steps, const lf_group_cost *at, int32_t *n)
{
    if (lf_cost_objective(cm) == LF_PLAN_OBJ_DRAM)
        return LF_OK;
    int32_t attn_at = *n;
    lf_status st = lf__step_figures(cm, members, n_members, op, fb1, lo, steps, at, *n, &attn_at);
    if (st != LF_OK)
        return st;
    /* The steps before an attention group's first are kept as they would
     * be without it (those from it on are INT64_MAX, dropped). */
    int32_t kept = lf__step_keep(steps, *n, lo);
    if (attn_at < *n)
        return lf__steps_attention(cm, members, n_members, lo, hi, steps, kept, n);
    *n = kept;
    return LF_OK;
}

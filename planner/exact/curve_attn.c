/* An attention group's steps for one part of the staircase's range, from
 * its prices over the whole range, priced once (see curve_run.h).
 *
 * Under energy and latency each part [lo, hi] of the range asked every
 * attention group for its F_D steps below hi (the step walk) and its
 * prices at every buffer of [lo, hi] (lf_cost_attn_prices): nine tenths of
 * a part's time (bert_base BRR), the same groups in every part. Both are
 * the whole range's, cut to the part:
 *  - an attention group is priced as one at every buffer (lf__attn_price
 *    fills its attention fields whatever the buffer), so the first step the
 *    part prices is an attention step, the steps before it are replaced
 *    below lo, and its steps are its prices from lo on alone
 *    (lf__steps_objective), or none where it has no step below hi: its
 *    least need below the range's largest buffer says which (the walk
 *    below hi gives the steps below range_max that need less than hi);
 *  - lf_cost_attn_prices gives the price at each buffer b from the
 *    configurations whose need is below b, whatever lo and `below` are,
 *    so the pieces of [lo, hi] are those of the whole range from the one
 *    holding lo to the last starting at hi or below. */
#include <stdlib.h>
#include <string.h>

#include "planner/cost/objective.h"
#include "planner/exact/curve_run.h"

lf_status lf__attn_range_prices(lf_cost_model *cm, const int32_t *members, int32_t n_members,
                                int64_t range_min, int64_t range_max, lf_cost_step *pieces, int32_t *n)
{
    lf_cost_sched *sc = NULL;
    int32_t ns = 0;
    *n = 0;
    lf_status st = lf_cost_attn_prices(cm, members, n_members, range_min, range_max, &sc, &ns);
    if (st != LF_OK)
        return st;
    /* Only F_D and the row steps change from piece to piece: the members'
     * sums are taken once (as lf__steps_attention does). */
    lf_obj_sums sums = {0, 0, 0};
    for (int32_t i = 0; i < n_members; i++)
        lf_obj_sums_add_op(cm, members[i], &sums);
    int32_t m = 0;
    for (int32_t k = 0; k < ns; k++) {
        int64_t v = sc[k].valid ? lf_cost_objective_sums(cm, &sums, sc[k].f_d, sc[k].steps) : INT64_MAX;
        if (m > 0 && pieces[m - 1].f_d == v)
            continue; /* a part keeps neither of two equal figures in a row but the first */
        if (m == LF__ATTN_PIECES) {
            m = 0;
            break;
        }
        pieces[m++] = (lf_cost_step){sc[k].at, v};
    }
    free(sc);
    *n = m;
    return LF_OK;
}

lf_status lf__attn_part_steps(const lf_cost_model *cm, const lf_cost_step *pieces, int32_t np,
                              int64_t first_need, int64_t lo, int64_t hi, lf_cost_step *steps, int32_t *n)
{
    *n = 0;
    if (first_need >= hi)
        return LF_OK; /* no step below hi */
    /* As lf__steps_attention keeps them: from the piece holding lo (the
     * last whose need is lo or less, else the first; needs ascend, so a
     * search halves the pieces: a walk from the first was an eighth of the
     * passes after the first, bert_base BRR energy, hundreds of pieces
     * below a part near 2.5 MB), each one cheaper than the last kept. */
    int32_t k = 0, top = np - 1;
    while (k < top) {
        int32_t mid = k + (top - k + 1) / 2;
        if (pieces[mid].need <= lo)
            k = mid;
        else
            top = mid - 1;
    }
    for (; k < np && pieces[k].need <= hi; k++) {
        int64_t at = pieces[k].need > lo ? pieces[k].need : lo, v = pieces[k].f_d;
        if (v == INT64_MAX || (*n > 0 && v >= steps[*n - 1].f_d))
            continue;
        if (*n == LF_COST_MAX_STEPS)
            return lf_set_error(LF_ERANGE, "a group's %s has more than %d buffer steps",
                                lf_plan_objective_name(lf_cost_objective(cm)), LF_COST_MAX_STEPS);
        steps[(*n)++] = (lf_cost_step){at - 1, v};
    }
    return LF_OK;
}

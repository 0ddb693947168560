/* A part's points outside the stretches where its plans price above their
 * charge (lf__curve_keep_clean, curve_rises.h). Only those stretches are
 * solved again (curve_ranges.c): before, the whole part from its first cut
 * on was, and the parts cut off (most of bert_base's front points, LBDF
 * energy, docs/results/energy.md) were solved only to be dropped. */
#include "planner/exact/curve_rises.h"

#include <stdlib.h>

lf_status lf__curve_keep_clean(lf_curve *part, const lf__stretches *d, int64_t top)
{
    if (d->n == 0)
        return LF_OK;
    lf_curve_point *np = malloc(((size_t)part->n + (size_t)d->n + 1) * sizeof *np);
    if (!np)
        return lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    lf_status st = LF_OK;
    int32_t m = 0, i = 0;
    for (int32_t k = 0; k < part->n; k++) {
        lf_curve_point *p = &part->points[k];
        int64_t end = k + 1 < part->n ? part->points[k + 1].beta - 1 : top;
        if (end > top)
            end = top;
        int moved = 0;
        for (int64_t u = p->beta; u <= end && st == LF_OK;) {
            while (i < d->n && d->at[i][1] < u)
                i++;
            if (i < d->n && d->at[i][0] <= u) {
                u = d->at[i][1] + 1; /* solved again */
                continue;
            }
            /* clean up to the next stretch or the point's end: the point
             * stands from u (its plan is the first stand's, copied after) */
            np[m].beta = u;
            np[m].dram_all = p->dram_all;
            if (!moved) {
                np[m].plan = p->plan;
                moved = 1;
            } else if ((st = lf_plan_copy(&np[m].plan, &p->plan)) != LF_OK) {
                break;
            }
            m++;
            u = i < d->n && d->at[i][0] - 1 < end ? d->at[i][0] : end + 1;
        }
        if (!moved)
            lf_plan_destroy(&p->plan);
    }
    free(part->points);
    part->points = np;
    part->n = m;
    return st;
}

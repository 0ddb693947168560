/* The staircase's points, one per change of figure (docs/search.md "The
 * whole staircase"): a point whose figure equals the point before's is no
 * step. lf_curve_compute solves the range in parts, and a part's first
 * point stands at its lower bound whatever its figure, so without this
 * rule the points would show where the parts were cut, which depends on
 * how the range was solved, not on the staircase. */
#include "planner/exact/curve_run.h"

void lf__curve_canon(lf_curve *c)
{
    int32_t m = 0;
    for (int32_t k = 0; k < c->n; k++) {
        if (m > 0 && c->points[k].dram_all == c->points[m - 1].dram_all) {
            /* the point before's plan reaches the same figure from its
             * smaller buffer on, so it holds here too */
            lf_plan_destroy(&c->points[k].plan);
            continue;
        }
        c->points[m++] = c->points[k];
    }
    c->n = m;
}

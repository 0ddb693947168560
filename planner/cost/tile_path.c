/* The tile floor of an op whose groups would need a lower reference height
 * than its own (tile_floor.c; docs/search.md "Certified bounds").
 *
 * Op v's own floor (tile_floor.c, lf__op_floor) lets the sinks' reference
 * height H be as small as the lowest op below v: at H = 7, say, a 28-row op
 * scales its rows by sigma >= 4, but its own two windows are all the floor
 * sees, so a group of NasNet-A's stage-1 squeeze conv alone reads its
 * weights 5 times while the floor says 4. Such a group cannot be v and its
 * neighbours alone. H is the tallest sink's height; when H is below v's
 * effective height hv, v is no sink, so the group holds one of v's
 * consumers, and following consumers inside the group ends at a sink s
 * whose effective height is at most H < hv. The first op on that path that
 * is lower than v or a vector (whose height the group decides: treated as
 * lower) ends a path P from v that lies in the group, every op of it
 * fusable. In any group holding P, at h sink rows per step, every member u
 * holds at least min(H_u, 1 + (h - 1) sigma_u) rows of its output (no view,
 * read or an output) and v at least min(H_x, K + (h - 1) s sigma_v) rows of
 * its input x, with sigma_u H >= scaled_u (lf_cost_tiles_of_set's terms:
 * the tensors are distinct along a path, the terms only fewer), and all of
 * it beside one weight block of v or more: so if h fits, the least such sum
 * over every path P fits, and the largest h whose least sum fits bounds h*.
 * The least sum is a shortest path on the DAG (ids are topological), one
 * pass per h tried. So at height H < hv the group reads its weights at least
 * ceil(H / h) times, h the largest within budget (none fits: no such group),
 * and v's floor is the least of this over H < hv and of its own formula
 * over H >= hv. */
#include <math.h>
#include <stdlib.h>

#include "planner/cost/cost_internal.h"

/* One term: min(height, span + u * scaled) rows of row_bytes. */
static double lf__path_term(int64_t height, int64_t row_bytes, double span, double scaled, double u)
{
    double rows = span + u * scaled;
    return (rows < (double)height ? rows : (double)height) * (double)row_bytes;
}

/* Whether some path from v, at u = (h - 1) / H, fits within budget. */
static int lf__path_fits(const lf_cost_model *cm, const lf__tile_path *p, int32_t v, double u, double budget,
                         double *dist)
{
    const lf_graph *g = cm->g;
    const lf__op_cost *oc = cm->ops;
    int64_t hv = p->fhv[v];
    double own = lf__path_term(oc[v].h, oc[v].row_bytes, 1, (double)p->scaled[v], u) +
                 lf__path_term(p->hx, p->rbx, (double)oc[v].k, (double)(p->scaled[v] * oc[v].stride), u);
    if (own > budget)
        return 0;
    for (int32_t w = v; w < g->n_ops; w++)
        dist[w] = INFINITY;
    dist[v] = own;
    for (int32_t w = v + 1; w < g->n_ops; w++) {
        const lf_op *op = &g->ops[w];
        if (!cm->fusable[w])
            continue;
        double best = INFINITY;
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t q = op->inputs[j];
            /* a path goes on only through ops neither lower nor vectors */
            if (q >= v && dist[q] < best && (q == v || (p->fhv[q] > 0 && p->fhv[q] >= hv)))
                best = dist[q];
        }
        if (best == INFINITY)
            continue;
        if (oc[w].kind != LF_ROWS_VIEW && (op->n_consumers > 0 || op->is_output))
            best += lf__path_term(oc[w].h, oc[w].row_bytes, 1, (double)p->scaled[w], u);
        dist[w] = best;
        if ((p->fhv[w] == 0 || p->fhv[w] < hv) && best <= budget)
            return 1;
    }
    return 0;
}

int64_t lf__tile_path_floor(const lf_cost_model *cm, const lf__tile_path *p, int32_t v, int64_t hmin,
                            double *dist)
{
    int64_t hv = p->fhv[v], fewest = INT64_MAX;
    double budget = (double)(lf_cost_beta(cm) - 1 - cm->ops[v].wblk);
    for (int64_t H = hmin; H < hv; H++) {
        /* the largest h in [1, H] with a path within budget, by bisection */
        int64_t lo = 0, hi = H;
        while (lo < hi) {
            int64_t h = lo + (hi - lo + 1) / 2;
            if (lf__path_fits(cm, p, v, (double)(h - 1) / (double)H, budget, dist))
                lo = h;
            else
                hi = h - 1;
        }
        if (lo > 0 && (H + lo - 1) / lo < fewest)
            fewest = (H + lo - 1) / lo;
    }
    return fewest;
}

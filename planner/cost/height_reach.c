/* The cheapest path from each op down to a lower one, for the set heights
 * of tile_floor.c (lf__set_height).
 *
 * lf__set_height follows consumers from a set's tallest member v and stops
 * at the first fusable op it reaches within `left` bytes whose fixed height
 * is no more than `useless` (a vector: 0): the set's own height proves
 * nothing more there. A step onto op w costs w's row (no view, read or an
 * output), or nothing when w's tensor is among the set's terms already.
 * So where the same path costs at most `left` with every row counted, the
 * search would stop there too: this table answers that without the search,
 * which on NasNet-A at 256 KB under BRR walks 65 ops per set on average
 * (a 56 x 56 cell's ops reach the 28-row ones only past the reduction cell),
 * most of them to stop at such an op.
 *
 * cost[v * n_heights + i] is the least sum of rows over the paths of
 * fusable ops from v (v's own row not counted) to the first op whose
 * fixed height is at most heights[i], the distinct fixed heights sorted
 * (the first 0: vectors); a backward pass per height over ids, which are
 * topological. Graphs with more than LF__REACH_HEIGHTS distinct heights
 * get no table (n_heights 0; also without memory): the search runs alone. */
#include <stdlib.h>

#include "planner/cost/cost_internal.h"

#define LF__REACH_HEIGHTS 32

static int lf__cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* What a step onto w costs with every row counted (lf__set_height's). */
static double lf__step(const lf_cost_model *cm, int32_t w)
{
    const lf_op *op = &cm->g->ops[w];
    return cm->ops[w].kind != LF_ROWS_VIEW && (op->n_consumers > 0 || op->is_output) ? (double)cm->ops[w].row_bytes
                                                                                      : 0;
}

void lf__height_reach_build(const lf_cost_model *cm, const int64_t *fhv, lf__height_reach *r)
{
    const lf_graph *g = cm->g;
    int32_t n = g->n_ops, k = 0;
    r->n_heights = 0;
    r->heights = malloc(((size_t)n + 1) * sizeof *r->heights);
    r->cost = NULL;
    if (!r->heights)
        return;
    r->heights[k++] = 0;
    for (int32_t v = 0; v < n; v++)
        r->heights[k++] = fhv[v];
    qsort(r->heights, (size_t)k, sizeof *r->heights, lf__cmp_i64);
    int32_t d = 0;
    for (int32_t i = 0; i < k; i++)
        if (i == 0 || r->heights[i] != r->heights[d - 1])
            r->heights[d++] = r->heights[i];
    r->cost = d <= LF__REACH_HEIGHTS ? malloc(((size_t)n + 1) * (size_t)d * sizeof *r->cost) : NULL;
    if (!r->cost)
        return;
    for (int32_t i = 0; i < d; i++)
        for (int32_t v = n - 1; v >= 0; v--) {
            const lf_op *op = &g->ops[v];
            double best = 1e300; /* none */
            for (int32_t j = 0; j < op->n_consumers; j++) {
                int32_t c = op->consumers[j];
                if (!cm->fusable[c])
                    continue;
                double via = lf__step(cm, c) + (fhv[c] <= r->heights[i] ? 0 : r->cost[(size_t)c * d + i]);
                best = via < best ? via : best;
            }
            r->cost[(size_t)v * d + i] = best;
        }
    r->n_heights = d;
}

double lf__height_reach_cost(const lf__height_reach *r, int32_t v, int64_t useless)
{
    int32_t i = -1;
    for (int32_t j = 0; j < r->n_heights && r->heights[j] <= useless; j++)
        i = j;
    return i < 0 ? 1e300 : r->cost[(size_t)v * r->n_heights + i];
}

int64_t lf__height_reach_least(const lf__height_reach *r, int32_t v, double left)
{
    if (r->n_heights == 0)
        return -1;
    for (int32_t i = 0; i < r->n_heights; i++)
        if (r->cost[(size_t)v * r->n_heights + i] <= left)
            return r->heights[i];
    return INT64_MAX;
}

void lf__height_reach_free(lf__height_reach *r)
{
    free(r->heights);
    free(r->cost);
    r->heights = NULL;
    r->cost = NULL;
    r->n_heights = 0;
}

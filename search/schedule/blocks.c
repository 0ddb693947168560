/* Block decomposition: the units every path of the unit DAG passes through.
 *
 * With units in a topological order, unit v lies on every path from a
 * source to a sink exactly when no edge jumps over it (u < v < w), no unit
 * before it is a sink and no unit after it is a source: then everything
 * before v reaches v and everything after is reached from it, and any path
 * crosses v's position. Blocks are the maximal runs of cut units and the
 * runs between them; they are scheduled one after another (DOS and IOS
 * schedule blocks alone). A stage holding a cut v has only v's chain in it
 * (every other unit of the stage would be v's ancestor or descendant, so on
 * a path through v inside the stage) and no merge holds a cut, so under the
 * analytic model, where one chain costs what its units cost as stages of
 * their own, nothing is lost; keeping a run of cuts (a plain chain) in one
 * block lets other backends group it too. */
#include <stdlib.h>

#include "search/schedule/schedule_internal.h"

int32_t lf__sched_blocks(const lf__sched *x, uint8_t *cut, int32_t *start)
{
    int32_t n = x->n;
    /* jump[v] = edges (u, w) with u < v < w, by a difference array */
    int32_t *jump = calloc((size_t)n + 1, sizeof *jump);
    int32_t nb = 0;
    if (!jump) { /* no decomposition: one block */
        for (int32_t v = 0; v < n; v++)
            cut[v] = 0;
        start[0] = 0, start[1] = n;
        return 1;
    }
    for (int32_t u = 0; u < n; u++)
        for (int32_t k = x->succ_start[u]; k < x->succ_start[u + 1]; k++) {
            int32_t w = x->succ[k];
            if (w > u + 1) {
                jump[u + 1]++;
                jump[w]--;
            }
        }
    int32_t open = 0, sink_before = 0;
    int32_t *source_after = calloc((size_t)n + 1, sizeof *source_after);
    if (source_after)
        for (int32_t v = n - 1; v >= 0; v--)
            source_after[v] = source_after[v + 1] + (x->pred_start[v] == x->pred_start[v + 1]);
    for (int32_t v = 0; v < n; v++) {
        open += jump[v];
        cut[v] = source_after && open == 0 && !sink_before && source_after[v + 1] == 0;
        sink_before |= x->succ_start[v] == x->succ_start[v + 1];
    }
    free(jump);
    free(source_after);
    for (int32_t v = 0; v < n; v++)
        if (v == 0 || cut[v] != cut[v - 1])
            start[nb++] = v;
    start[nb] = n;
    x->stats->blocks = nb;
    return nb;
}

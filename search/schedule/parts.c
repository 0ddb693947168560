/* Parts: a block too large for one DP (more than max_part_ops units, or
 * more downsets or endings than the limits) is scheduled as a sequence of
 * parts, each solved alone (IOS's max_part_size). A part is a run of a
 * topological order; the order used is by level (the longest path from the
 * block's start, then the unit id), so that units that can run side by
 * side, which share a level, land in the same part, and parts are cut at
 * level boundaries wherever a level fits. The result is optimal within
 * each part, not across parts. */
#include <stdlib.h>

#include "search/schedule/schedule_internal.h"

/* Index in list[0..m) where a part of at most cap units should end: the
 * last level boundary within cap, or cap itself when the first level is
 * wider. */
static int32_t lf__cut(const int32_t *level, const int32_t *list, int32_t m, int32_t cap)
{
    if (m <= cap)
        return m;
    int32_t best = 0;
    for (int32_t i = 1; i <= cap; i++)
        if (level[list[i]] != level[list[i - 1]])
            best = i;
    return best ? best : cap;
}

static lf_status lf__solve_list(lf__sched *x, const int32_t *level, const int32_t *list, int32_t m, lf__sbuf *b)
{
    while (m > 0) {
        int32_t k = lf__cut(level, list, m, x->o.max_part_ops);
        lf_status s = lf__dos_part(x, list, k, b);
        if (s == LF_ELIMIT && k > 1) {
            lf_clear_error();
            /* halve: the level boundary nearest the middle, or the middle */
            int32_t h = lf__cut(level, list, k, k / 2);
            s = lf__solve_list(x, level, list, h, b);
            if (!s)
                s = lf__solve_list(x, level, list + h, k - h, b);
        } else if (!s) {
            x->stats->parts++;
            if (k > x->stats->largest_part)
                x->stats->largest_part = k;
        }
        if (s)
            return s;
        list += k;
        m -= k;
    }
    return LF_OK;
}

lf_status lf__dos_block(lf__sched *x, int32_t lo, int32_t hi, lf__sbuf *b)
{
    int32_t m = hi - lo;
    int32_t *level = malloc(sizeof *level * (size_t)x->n), *list = malloc(sizeof *list * (size_t)m);
    int32_t *count = calloc((size_t)m + 1, sizeof *count);
    if (!level || !list || !count) {
        free(level);
        free(list);
        free(count);
        return lf_set_error(LF_ENOMEM, "schedule: out of memory");
    }
    int32_t top = 0;
    for (int32_t u = lo; u < hi; u++) { /* unit ids are topological */
        int32_t l = 0;
        for (int32_t k = x->pred_start[u]; k < x->pred_start[u + 1]; k++)
            if (x->pred[k] >= lo && level[x->pred[k]] + 1 > l)
                l = level[x->pred[k]] + 1;
        level[u] = l;
        count[l + 1]++;
        top = l > top ? l : top;
    }
    for (int32_t l = 1; l <= top + 1; l++) /* counting sort by level, ids ascending within */
        count[l] += count[l - 1];
    for (int32_t u = lo; u < hi; u++)
        list[count[level[u]]++] = u;
    lf_status s = lf__solve_list(x, level, list, m, b);
    free(level);
    free(list);
    free(count);
    return s;
}

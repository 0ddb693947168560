/* Exhaustive enumeration to length K (the ENU baseline of OCGGS): every
 * distinct graph reachable in at most K rewrites, level by level; the best
 * one wins. Graphs reached again by another order of the same rewrites are
 * counted once (canonical hash). `budget` caps the expansions. */
#include "search/subst/search_internal.h"

lf_status lf__enumerate(lf__search *s, int32_t max_len, int64_t budget)
{
    int32_t lo = 0, hi = s->n;
    lf_status st = LF_OK;
    for (int32_t d = 0; d < max_len && lo < hi && !st; d++) {
        for (int32_t i = lo; i < hi && !st; i++) {
            if (s->expanded >= budget)
                break;
            int32_t first = 0;
            st = lf__search_expand(s, i, &first);
            lf__search_drop(s, i);
        }
        lo = hi;
        hi = s->n;
    }
    for (int32_t i = lo; i < s->n; i++)
        lf__search_drop(s, i);
    return st;
}

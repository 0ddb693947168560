/* Exhaustive enumeration to length K (the ENU baseline of OCGGS, MetaFlow's
 * exhaustive search when K is unbounded): every distinct graph reachable in
 * at most K rewrites; the best one wins. Depth first, so only the graphs on
 * the current path and their unexpanded siblings are held (a breadth-first
 * level of Inception-E holds tens of thousands). A graph reached again is
 * skipped unless this path reaches it in fewer steps (then its subtree may go
 * deeper within K). `budget` caps the expansions. */
#include <stdlib.h>

#include "search/subst/search_internal.h"

lf_status lf__enumerate(lf__search *s, int32_t max_len, int64_t budget)
{
    int32_t cap = 1024, n = 0;
    int32_t *stack = malloc((size_t)cap * sizeof *stack);
    if (!stack)
        return lf_set_error(LF_ENOMEM, "enum: out of memory");
    s->by_depth = 1;
    stack[n++] = 0;
    lf_status st = LF_OK;
    while (n > 0 && !st) {
        if (lf__search_expired(s)) { /* a partial enumeration proves nothing: no result */
            st = lf_set_error(LF_ELIMIT, "enum: no result within the time limit of %g s%s (%lld graphs expanded)",
                              s->o->time_limit_s, s->o->time_limit_cpu ? " of CPU time" : "",
                              (long long)s->expanded);
            break;
        }
        int32_t i = stack[--n];
        if (s->st[i].depth < max_len && s->expanded < budget) {
            int32_t first = 0;
            st = lf__search_expand(s, i, &first);
            if (!st && n + (s->n - first) > cap) {
                cap = 2 * (n + (s->n - first));
                int32_t *p = realloc(stack, (size_t)cap * sizeof *p);
                if (!p)
                    st = lf_set_error(LF_ENOMEM, "enum: out of memory");
                else
                    stack = p;
            }
            /* children in reverse, so the first match is expanded first */
            for (int32_t c = s->n - 1; c >= first && !st; c--)
                stack[n++] = c;
        }
        lf__search_drop(s, i);
    }
    for (int32_t k = 0; k < n; k++)
        lf__search_drop(s, stack[k]);
    s->by_depth = 0;
    free(stack);
    return st;
}

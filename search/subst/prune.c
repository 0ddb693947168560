/* OCGGS's Algorithm 1 (Pruning): exact search over substitution sequences
 * of at most K steps that keeps only ordered sequences (the pruning rule of
 * labels.c). Depth first, so only the graphs on the current path are held
 * (the paper's O(K) graphs); no deduplication by graph hash (the labels of
 * two equal graphs reached by different sequences differ, and so do their
 * ordered continuations). Each node re-matches every rule on its graph. At
 * the time cap the search stops and reports no result (LF_ELIMIT): a
 * partial exhaustive search proves nothing. */
#include <stdlib.h>

#include "search/subst/ocggs_internal.h"

static lf_status lf__rec(lf__oc *x, lf__opath *path, int32_t depth, const lf_graph *g, const lf__label *lab,
                         lf__label last)
{
    if (depth == x->K)
        return LF_OK;
    lf__ocands cs = {NULL, 0, 0};
    lf_status st = lf__oc_matches(x, g, lab, NULL, &cs);
    for (int32_t j = 0; j < cs.n && !st; j++) {
        const lf__ocand *c = &cs.c[j];
        if (!lf__ordered(last, c->lab))
            continue; /* an unordered sequence: its ordered twin is searched instead */
        if (lf__oc_expired(x)) {
            st = lf__oc_no_result(x, "prune");
            break;
        }
        lf_graph *child = NULL;
        lf__label *clab = NULL;
        int32_t *created = NULL, n_created = 0;
        st = lf__oc_step(x, path, depth, g, lab, c, &child, &clab, &created, &n_created);
        if (!st && child && depth + 1 < x->K)
            st = lf__rec(x, path, depth + 1, child, clab, c->lab);
        free(clab);
        free(created);
        lf_graph_free(child);
    }
    lf__ocands_free(&cs);
    return st;
}

lf_status lf__prune(lf__oc *x, const lf_graph *start)
{
    lf__opath *path = malloc((size_t)x->K * sizeof *path);
    lf__label *lab = NULL;
    lf_subst_costs k;
    double v = 0;
    lf_status st = path ? lf__labels_root(start, &lab) : lf_set_error(LF_ENOMEM, "prune: out of memory");
    if (!st)
        st = lf__oc_cost(x, start, &k, &v);
    if (!st)
        st = lf__oc_offer(x, start, &k, v, NULL, 0, NULL, NULL);
    if (!st)
        st = lf__rec(x, path, 0, start, lab, LF__NO_STEP);
    free(lab);
    free(path);
    return st;
}

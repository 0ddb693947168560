/* OCGGS's Algorithm 2 (DP with pruning, DPP): the search tree of Pruning,
 * but a node's child substitution set is built from its parent's (Theorem
 * 6): the parent's candidates that come after the last step in the order and
 * share no op with it are carried over by op names and re-checked on the new
 * graph without matching again, and only matches rooted within the rules'
 * pattern diameter (plus one edge) of the ops the last step created are
 * searched anew. The root's set is matched on the whole graph. Exact to K
 * like Pruning, and it returns the same optimum; depth first, holding the
 * graphs and candidate sets of the current path. At the time cap: no
 * result (LF_ELIMIT). */
#include <stdlib.h>

#include "search/subst/ocggs_internal.h"

/* Explores every child of the node (g, lab) whose candidate set is cs. */
static lf_status lf__rec(lf__oc *x, lf__opath *path, int32_t depth, const lf_graph *g, const lf__label *lab,
                         const lf__ocands *cs)
{
    lf_status st = LF_OK;
    for (int32_t j = 0; j < cs->n && !st; j++) {
        const lf__ocand *c = &cs->c[j];
        if (lf__oc_expired(x)) {
            st = lf__oc_no_result(x, "dpp");
            break;
        }
        lf_graph *child = NULL;
        lf__label *clab = NULL;
        int32_t *created = NULL, n_created = 0;
        lf__ocands next = {NULL, 0, 0};
        st = lf__oc_step(x, path, depth, g, lab, c, &child, &clab, &created, &n_created);
        if (!st && child && depth + 1 < x->K)
            st = lf__oc_child_cands(x, g, cs, j, child, clab, created, n_created, 1, &next);
        if (!st && child && depth + 1 < x->K)
            st = lf__rec(x, path, depth + 1, child, clab, &next);
        lf__ocands_free(&next);
        free(clab);
        free(created);
        lf_graph_free(child);
    }
    return st;
}

lf_status lf__dpp(lf__oc *x, const lf_graph *start)
{
    lf__opath *path = malloc((size_t)x->K * sizeof *path);
    lf__label *lab = NULL;
    lf__ocands cs = {NULL, 0, 0};
    lf_subst_costs k;
    double v = 0;
    lf_status st = path ? lf__labels_root(start, &lab) : lf_set_error(LF_ENOMEM, "dpp: out of memory");
    if (!st)
        st = lf__oc_cost(x, start, &k, &v);
    if (!st)
        st = lf__oc_offer(x, start, &k, v, NULL, 0, NULL, NULL);
    if (!st)
        st = lf__oc_matches(x, start, lab, NULL, &cs);
    if (!st)
        st = lf__rec(x, path, 0, start, lab, &cs);
    lf__ocands_free(&cs);
    free(lab);
    free(path);
    return st;
}

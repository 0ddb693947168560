/* Deterministic repair of a cyclic quotient.
 *
 * Groups made of fused edges are weakly connected but can form a cycle in
 * the quotient: the classic case is a residual block whose first conv and
 * Add share a group while the second conv sits in another (G -> H -> G).
 * The repair finds the strongly connected components (SCCs) of the group
 * quotient and, for each SCC of several groups, splits one group by
 * topological position:
 *
 *   Call an op of group G in SCC S an *entry* when it reads from another
 *   group of S and an *exit* when another group of S reads from it. The
 *   candidate cut of S is the smallest op e (topological order = op id) that
 *   is an entry of its group G while some earlier op of G is an exit. G is
 *   split into its ops before e and its ops from e on (then each side into
 *   its weakly connected pieces).
 *
 * Such an e always exists: follow a cycle G_1 -> ... -> G_m -> G_1 of the
 * quotient, entering G_i at e_i and leaving it at x_i. Edges go forward in
 * op order, so x_i < e_(i+1). If every group had e_i <= x_i, then
 * x_1 < e_2 <= x_2 < ... <= x_m < e_1 <= x_1, a contradiction; so some group
 * leaves the cycle before it re-enters it (x_i < e_i), and cutting it between
 * the two removes that route: no edge can go back from its later part to its
 * earlier one. For the residual example the cut falls exactly at the Add.
 *
 * Every pass splits at least one group, so passes end (ops alone are always
 * acyclic); one pass is O(ops + edges) and handles every SCC at once, and in
 * practice a plan needs one or two passes. Nothing here depends on
 * randomness or on the order in which groups were built, only on the
 * partition itself. */
#include <string.h>

#include "planner/util/scc.h"
#include "search/partition/genome.h"

/* Quotient arcs of the current groups in CSR form (one arc per graph edge
 * crossing groups; duplicates are harmless for the SCCs). */
static void lf__quotient(lf_decoder *d)
{
    const lf_graph *g = d->g;
    int32_t ng = d->ng;
    for (int32_t k = 0; k <= ng; k++)
        d->qstart[k] = 0;
    for (int32_t v = 0; v < d->n; v++) {
        int32_t b = d->gof[v];
        if (b < 0)
            continue;
        for (int32_t j = 0; j < g->ops[v].n_inputs; j++) {
            int32_t a = d->gof[g->ops[v].inputs[j]];
            if (a >= 0 && a != b)
                d->qstart[a + 1]++;
        }
    }
    for (int32_t k = 0; k < ng; k++)
        d->qstart[k + 1] += d->qstart[k];
    for (int32_t v = 0; v < d->n; v++) {
        int32_t b = d->gof[v];
        if (b < 0)
            continue;
        for (int32_t j = 0; j < g->ops[v].n_inputs; j++) {
            int32_t a = d->gof[g->ops[v].inputs[j]];
            if (a >= 0 && a != b)
                d->qsucc[d->qstart[a]++] = b;
        }
    }
    for (int32_t k = ng; k > 0; k--)
        d->qstart[k] = d->qstart[k - 1];
    d->qstart[0] = 0;
}

/* 1 when op v reads from (dir 0) or is read by (dir 1) another group of the
 * SCC that v's group belongs to. */
static int lf__crosses(const lf_decoder *d, int32_t v, int dir)
{
    const lf_op *op = &d->g->ops[v];
    int32_t gv = d->gof[v], c = d->comp[gv];
    int32_t n = dir ? op->n_consumers : op->n_inputs;
    const int32_t *nb = dir ? op->consumers : op->inputs;
    for (int32_t j = 0; j < n; j++) {
        int32_t k = d->gof[nb[j]];
        if (k >= 0 && k != gv && d->comp[k] == c)
            return 1;
    }
    return 0;
}

/* Fallback that the argument above rules out, kept so that a bug elsewhere
 * cannot turn into an endless loop: the middle op of the SCC's largest group
 * (ties: the group with the smaller id). Returns -1 when no group of the SCC
 * has two ops, which cannot happen for a cycle. */
static int32_t lf__fallback_cut(lf_decoder *d, int32_t c)
{
    int32_t best = -1, best_size = 1;
    for (int32_t k = 0; k < d->ng; k++) {
        d->fresh[k] = 0;
    }
    for (int32_t v = 0; v < d->n; v++)
        if (d->gof[v] >= 0)
            d->fresh[d->gof[v]]++;
    for (int32_t k = 0; k < d->ng; k++)
        if (d->comp[k] == c && d->fresh[k] > best_size) {
            best = k;
            best_size = d->fresh[k];
        }
    if (best < 0)
        return -1;
    int32_t seen = 0;
    for (int32_t v = 0; v < d->n; v++)
        if (d->gof[v] == best && seen++ == best_size / 2)
            return v;
    return -1;
}

void lf__decoder_repair(lf_decoder *d, int32_t *splits)
{
    int32_t total = 0;
    for (;;) {
        int32_t ng = d->ng;
        lf__quotient(d);
        int32_t nc = lf__scc(ng, d->qstart, d->qsucc, d->comp, d->work);
        for (int32_t c = 0; c < nc; c++) {
            d->csize[c] = 0;
            d->best[c] = -1;
        }
        int cyclic = 0;
        for (int32_t k = 0; k < ng; k++)
            cyclic |= ++d->csize[d->comp[k]] > 1;
        if (!cyclic)
            break;
        for (int32_t k = 0; k < ng; k++) {
            d->seen_exit[k] = 0;
            d->cut_at[k] = -1;
        }
        /* One ascending sweep finds, per SCC, the smallest entry that follows
         * an exit of its own group. The entry test runs before the op's own
         * exit mark, so x < e holds strictly. */
        for (int32_t v = 0; v < d->n; v++) {
            int32_t k = d->gof[v];
            if (k < 0 || d->csize[d->comp[k]] < 2)
                continue;
            int32_t c = d->comp[k];
            if (d->best[c] < 0 && d->seen_exit[k] && lf__crosses(d, v, 0))
                d->best[c] = v;
            if (!d->seen_exit[k] && lf__crosses(d, v, 1))
                d->seen_exit[k] = 1;
        }
        int32_t cuts = 0;
        for (int32_t c = 0; c < nc; c++) {
            if (d->csize[c] < 2)
                continue;
            int32_t e = d->best[c] >= 0 ? d->best[c] : lf__fallback_cut(d, c);
            if (e >= 0 && d->cut_at[d->gof[e]] < 0) {
                d->cut_at[d->gof[e]] = e;
                cuts++;
            }
        }
        if (cuts == 0)
            break; /* unreachable: every cycle holds a group of two ops */
        for (int32_t k = 0; k < ng; k++)
            d->fresh[k] = -1;
        for (int32_t v = 0; v < d->n; v++) {
            int32_t k = d->gof[v];
            if (k < 0 || d->cut_at[k] < 0 || v < d->cut_at[k])
                continue;
            if (d->fresh[k] < 0)
                d->fresh[k] = d->ng++;
            d->gof[v] = d->fresh[k];
        }
        total += cuts;
        /* Either side of a cut may fall apart: back to the connected pieces
         * of the fused edges that remain inside groups. */
        lf_genome_from_groups(d->m, d->gof, d->bits);
        lf__decoder_components(d);
    }
    d->st.splits += total;
    d->st.repair_splits += total;
    *splits = total;
}

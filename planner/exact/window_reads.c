/* Reads per group in the windows' connected charge (window_bound.c's (b),
 * window_join.c): a tensor cut from several groups is read by each of them,
 * where the connected charge pays one read however many groups read it
 * (NasNet-A: a cell's squeeze output feeds four or five branches, each
 * often a group of its own; docs/results/exact.md, "nasin" and "nasbound").
 *
 * The connected charge's parts are the components of G n U for the groups
 * G of a valid plan (U: the window's universe, ghosts included), in an
 * order the plan's group order allows. A component P with no edge (input
 * or reader) to a fusable op outside U is all of its group: G is weakly
 * connected, so an op of G outside P would be joined to P by an edge of G,
 * which can neither stay in U (that op would be in P's component) nor leave
 * it (no such edge reaches a fusable op, and groups hold fusable ops only).
 * Call such a P closed.
 *
 * Take an internal tensor t of op p and the parts D_1 .. D_m, in order,
 * holding its fusable readers other than p's part C. No D_i is p's group:
 * an edge p -> r inside U joins r to p's component. The connected charge
 * pays C one read of t (when m >= 1). Charge a closed D_i one read more when
 * p is placed before it (p is not in D_i) and a fusable reader of t is
 * still to come after it: such D_i are whole groups, distinct from each
 * other, and none holds that later reader, which lies in D_j (j > i, not C:
 * C is placed before D_i). So at least (the closed D_i charged) + 1 groups
 * other than p's read t, each once (a group reads its inputs once), and
 * the charges add up to no more.
 *
 * Readers apart (lf__win_reads_apart). Every fusable reader r of an
 * internal tensor t outside p's component C lies in U (t is internal), so
 * not in p's group either (the edge p -> r would join r to C). Readers of t
 * that no valid group holds together (cut_bound.c's hull test, computed
 * once per bound) lie in distinct groups: a clique K of pairwise apart
 * readers outside C is |K| groups other than p's, each reading t once. So
 * C pays a write and max(1, |K|) reads. On such a tensor a closed part's
 * read above is not added (both counts could name the same group); the
 * larger of the two is not needed where the readers are apart, since their
 * groups are then as many as the clique, closed or not. NasNet-A at 256 KB
 * under LBDF: stage 0's normal3 concat (2.0 MB) is read by normal4's
 * squeeze conv and the reduction's fit conv, whose weights (82 + 164 KB)
 * keep them apart; its window charged it the forced cuts' write and one
 * read, as if its group could hold one reader for free, where holding
 * either leaves out the adds that the concat's group holds (docs/results/
 * exact.md, branch naslb: the windows of ops 0-140, 32.13 -> 33.74 MB). */
#include "planner/exact/window_reads.h"

/* Flags of lf__win_open_ops. */
#define LF__WR_OPEN 1  /* an edge to a fusable op outside U */
#define LF__WR_MULTI 2 /* reads an internal tensor that two fusable ops of U read */

void lf__win_open_ops(const lf__exact *x, const uint8_t *internal, uint8_t *open)
{
    /* x->fusable is 0 outside U: the cost model's word counts there. */
    for (int32_t v = x->u_lo; v < x->u_hi; v++) {
        if (!x->in_u[v])
            continue;
        const lf_op *op = &x->g->ops[v];
        uint8_t f = 0;
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t p = op->inputs[j];
            if (!x->in_u[p] && lf_cost_fusable(x->cm, p))
                f |= LF__WR_OPEN;
            int32_t readers = 0;
            for (int32_t k = 0; internal[p] && k < x->g->ops[p].n_consumers; k++)
                readers += x->fusable[x->g->ops[p].consumers[k]];
            if (readers >= 2)
                f |= LF__WR_MULTI;
        }
        for (int32_t j = 0; j < op->n_consumers; j++)
            if (!x->in_u[op->consumers[j]] && lf_cost_fusable(x->cm, op->consumers[j]))
                f |= LF__WR_OPEN;
        open[v] = f;
    }
}

/* 1 when a fusable reader of p is neither placed nor in the set. */
static int lf__reader_to_come(const lf__exact *x, int32_t p)
{
    const lf_op *op = &x->g->ops[p];
    for (int32_t j = 0; j < op->n_consumers; j++) {
        int32_t c = op->consumers[j];
        if (x->in_u[c] && x->fusable[c] && !x->in_d[c] && !x->in_s[c])
            return 1;
    }
    return 0;
}

int64_t lf__win_closed_reads(const lf__exact *x, const uint8_t *open, const uint8_t *internal,
                             const uint8_t *apart, const int64_t *bytes, int64_t *seen, int64_t stamp)
{
    uint8_t any = 0;
    for (int32_t i = 0; i < x->n_sub; i++) {
        if (open[x->sub[i]] & LF__WR_OPEN)
            return 0;
        any |= open[x->sub[i]];
    }
    if (!(any & LF__WR_MULTI))
        return 0;
    int64_t d = 0;
    for (int32_t i = 0; i < x->n_sub; i++) {
        if (!(open[x->sub[i]] & LF__WR_MULTI))
            continue;
        const lf_op *op = &x->g->ops[x->sub[i]];
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t p = op->inputs[j];
            if (!internal[p] || x->in_s[p] || seen[p] == stamp || (apart && apart[p]))
                continue;
            seen[p] = stamp;
            if (x->in_d[p] && lf__reader_to_come(x, p))
                d += bytes[p];
        }
    }
    return d;
}

int lf__win_closed_component(const lf__exact *x, const uint8_t *open, int64_t *seen, int64_t stamp,
                             int32_t *stack)
{
    for (int32_t i = 0; i < x->n_sub; i++) {
        int32_t s = x->sub[i], top = 0, closed = 1;
        if (seen[s] == stamp)
            continue;
        seen[s] = stamp;
        stack[top++] = s;
        while (top > 0) {
            int32_t v = stack[--top];
            closed &= !(open[v] & LF__WR_OPEN);
            for (int32_t k = x->adj_start[v]; k < x->adj_start[v + 1]; k++) {
                int32_t u = x->adj[k];
                if (x->in_s[u] && seen[u] != stamp) {
                    seen[u] = stamp;
                    stack[top++] = u;
                }
            }
        }
        if (closed)
            return 1;
    }
    return 0;
}

int32_t lf__win_reads_apart(const lf__exact *x, const lf__reader_apart *ra, int32_t p)
{
    if (!ra || !ra->any || !ra->any[p])
        return 1;
    const lf_op *op = &x->g->ops[p];
    uint32_t cand = 0;
    for (int32_t j = 0; j < op->n_consumers && j < 32; j++)
        if (!x->in_s[op->consumers[j]] && x->fusable[op->consumers[j]])
            cand |= 1u << j;
    int32_t k = lf__reader_apart_clique(ra, p, cand);
    return k > 1 ? k : 1;
}

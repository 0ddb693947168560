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
 * Closed for p. Plans are convex (plan.c: no path leaves a group and comes
 * back). A part D_i holding a reader r of t (p in C, placed before) is not
 * in p's group, so its group holds no ancestor a of p either: a -> .. ->
 * p -> r would put p in it. So where every edge of D_i to a fusable op
 * outside U reaches an ancestor of p, no edge of its group leaves D_i, and
 * D_i is its whole group as a closed part is (the rule above, for t). The
 * windows of a cell open through the previous cell's concat, the input of
 * the cell's squeeze conv and the fit conv's of the cell after: an
 * ancestor of both relus, where the fit conv's own input (the concat two
 * cells back) is an ancestor of the squeeze relu (NasNet-A).
 *
 * Readers cut from the part. The count above needs of a charged D_i only
 * that its group G_i holds no reader of t placed after D_i (then charged
 * parts are distinct groups, and the last reader's is another). Take r, a
 * reader still to come. If a path inside U leads from D_i to r, G_i does
 * not hold r: convexity would put the path in G_i, joining r to D_i's
 * component. Otherwise, were r in G_i, r's part D_r (placed later, so made
 * of ops neither placed nor in D_i, none reached from D_i by the same
 * argument, connected among the fusable ops of U) would be another
 * component of G_i n U, joined to D_i through an edge of D_r to a fusable
 * op outside U that G_i holds, so no ancestor of p. So D_i pays when every
 * reader to come is reached from it, or lies in a component of the free
 * ops (fusable, of U, unplaced, outside D_i and what it reaches) whose
 * edges out of U reach ancestors of p only. NasNet-A at 256 KB under
 * LBDF: a cell's squeeze conv reads the previous cell's concat from the
 * window before, so the part holding the squeeze relu's branches is open;
 * the fit relu's readers in the concat's part come later, but the concat is
 * reached from the squeeze relu inside the cell (branches -> adds ->
 * concat): the fit relu's second read (docs/results/exact.md, branch
 * naslb2: ops 0-140's windows 33.74 -> 34.14 MB).
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

#include <stdlib.h>

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

void lf__win_out_ops(const lf__exact *x, uint64_t *outs)
{
    /* The ops outside U the universe touches, numbered in op order. */
    int32_t lo = x->u_hi, hi = x->u_lo, n_out = 0;
    for (int32_t v = x->u_lo; v < x->u_hi; v++) {
        if (!x->in_u[v])
            continue;
        outs[2 * v] = 0;
        const lf_op *op = &x->g->ops[v];
        for (int32_t j = 0; j < op->n_inputs + op->n_consumers; j++) {
            int32_t y = j < op->n_inputs ? op->inputs[j] : op->consumers[j - op->n_inputs];
            if (x->in_u[y] || !lf_cost_fusable(x->cm, y))
                continue;
            lo = y < lo ? y : lo;
            hi = y + 1 > hi ? y + 1 : hi;
        }
    }
    /* outs[2y + 1] of an op y outside U: its own bit, numbered in op order
     * (bit 63: every later one, no op's ancestor). */
    for (int32_t y = lo; y < hi; y++)
        outs[2 * y + 1] = 0;
    for (int32_t v = x->u_lo; v < x->u_hi; v++) {
        if (!x->in_u[v])
            continue;
        const lf_op *op = &x->g->ops[v];
        for (int32_t j = 0; j < op->n_inputs + op->n_consumers; j++) {
            int32_t y = j < op->n_inputs ? op->inputs[j] : op->consumers[j - op->n_inputs];
            if (!x->in_u[y] && lf_cost_fusable(x->cm, y) && outs[2 * y + 1] == 0)
                outs[2 * y + 1] = 1; /* marked; numbered below */
        }
    }
    for (int32_t y = lo; y < hi; y++)
        if (outs[2 * y + 1])
            outs[2 * y + 1] = n_out < 63 ? (uint64_t)1 << n_out++ : (uint64_t)1 << 63;
    for (int32_t v = x->u_lo; v < x->u_hi; v++) {
        if (!x->in_u[v])
            continue;
        const lf_op *op = &x->g->ops[v];
        for (int32_t j = 0; j < op->n_inputs + op->n_consumers; j++) {
            int32_t y = j < op->n_inputs ? op->inputs[j] : op->consumers[j - op->n_inputs];
            if (!x->in_u[y] && lf_cost_fusable(x->cm, y))
                outs[2 * v] |= outs[2 * y + 1];
        }
    }
    /* Ancestors, in topological order from the first of them: an op's are
     * its inputs' and (outside U) its own bit. Bit 63 is never an ancestor's.
     * Every op of U is set: the entries hold another window's values. */
    for (int32_t v = lo < x->u_lo ? lo : x->u_lo; v < x->u_hi; v++) {
        int own = !x->in_u[v] && v < hi && lf_cost_fusable(x->cm, v);
        uint64_t a = own ? outs[2 * v + 1] & ~((uint64_t)1 << 63) : 0;
        if (!own && !x->in_u[v]) {
            outs[2 * v + 1] = 0; /* scratch of an op between */
        }
        const lf_op *op = &x->g->ops[v];
        for (int32_t j = 0; j < op->n_inputs; j++)
            if (op->inputs[j] >= lo)
                a |= outs[2 * op->inputs[j] + 1];
        outs[2 * v + 1] = a;
    }
}

lf_status lf__win_reach_init(lf__win_reach *r, int32_t n_ops)
{
    size_t n = (size_t)n_ops + 1;
    r->outs = calloc(2 * n, sizeof *r->outs);
    r->rmark = malloc(n * sizeof *r->rmark);
    r->cmark = malloc(n * sizeof *r->cmark);
    r->cid = malloc(n * sizeof *r->cid);
    r->stack = malloc(n * sizeof *r->stack);
    r->cmask = malloc(n * sizeof *r->cmask);
    r->stamp = 0;
    if (!r->outs || !r->rmark || !r->cmark || !r->cid || !r->stack || !r->cmask)
        return lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    for (size_t v = 0; v < n; v++)
        r->rmark[v] = r->cmark[v] = INT64_MIN;
    return LF_OK;
}

void lf__win_reach_free(lf__win_reach *r)
{
    free(r->outs);
    free(r->rmark);
    free(r->cmark);
    free(r->cid);
    free(r->stack);
    free(r->cmask);
}

/* Marks (rmark = r->stamp) the ops of U the set reaches by paths inside U,
 * itself left out. */
static void lf__reach_from_set(const lf__exact *x, lf__win_reach *r)
{
    int32_t top = 0;
    for (int32_t i = 0; i < x->n_sub; i++)
        r->stack[top++] = x->sub[i];
    while (top > 0) {
        int32_t v = r->stack[--top];
        for (int32_t k = x->succ_start[v]; k < x->succ_start[v + 1]; k++) {
            int32_t u = x->succ[k];
            if (!x->in_s[u] && r->rmark[u] != r->stamp) {
                r->rmark[u] = r->stamp;
                r->stack[top++] = u;
            }
        }
    }
}

/* The edges out of U of the component of op v among the fusable ops of U
 * neither placed, in the set, nor reached from it (lf__reach_from_set):
 * found once per set (cmark, cid, cmask; *n_comp components so far). */
static uint64_t lf__free_component(const lf__exact *x, lf__win_reach *r, int32_t v, int32_t *n_comp)
{
    if (r->cmark[v] == r->stamp)
        return r->cmask[r->cid[v]];
    int32_t c = (*n_comp)++, top = 0;
    uint64_t m = 0;
    r->cmark[v] = r->stamp;
    r->stack[top++] = v;
    while (top > 0) {
        int32_t w = r->stack[--top];
        r->cid[w] = c;
        m |= r->outs[2 * w];
        for (int32_t k = x->adj_start[w]; k < x->adj_start[w + 1]; k++) {
            int32_t u = x->adj[k];
            if (!x->in_d[u] && !x->in_s[u] && r->rmark[u] != r->stamp && r->cmark[u] != r->stamp) {
                r->cmark[u] = r->stamp;
                r->stack[top++] = u;
            }
        }
    }
    r->cmask[c] = m;
    return m;
}

/* 1 when no fusable reader of p neither placed nor in the set can share
 * the set's group (see the top): each is reached from the set inside U, or
 * its free component has no edge out of U but to ancestors of p. */
static int lf__readers_cut(const lf__exact *x, lf__win_reach *r, int32_t p, int *found, int32_t *n_comp)
{
    if (!*found) {
        lf__reach_from_set(x, r);
        *found = 1;
    }
    const lf_op *op = &x->g->ops[p];
    for (int32_t j = 0; j < op->n_consumers; j++) {
        int32_t c = op->consumers[j];
        if (!x->in_u[c] || !x->fusable[c] || x->in_d[c] || x->in_s[c] || r->rmark[c] == r->stamp)
            continue;
        if (lf__free_component(x, r, c, n_comp) & ~r->outs[2 * p + 1])
            return 0;
    }
    return 1;
}

int64_t lf__win_closed_reads(const lf__exact *x, const uint8_t *open, lf__win_reach *reach, const uint8_t *internal,
                             const uint8_t *apart, const int64_t *bytes, int64_t *seen, int64_t stamp)
{
    uint8_t any = 0;
    uint64_t out = 0;
    for (int32_t i = 0; i < x->n_sub; i++) {
        if ((open[x->sub[i]] & LF__WR_OPEN) && !reach)
            return 0;
        any |= open[x->sub[i]];
        out |= reach ? reach->outs[2 * x->sub[i]] : 0;
    }
    if (!(any & LF__WR_MULTI))
        return 0;
    int64_t d = 0;
    int found = 0;
    int32_t n_comp = 0;
    if (reach)
        reach->stamp++;
    for (int32_t i = 0; i < x->n_sub; i++) {
        if (!(open[x->sub[i]] & LF__WR_MULTI))
            continue;
        const lf_op *op = &x->g->ops[x->sub[i]];
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t p = op->inputs[j];
            if (!internal[p] || x->in_s[p] || seen[p] == stamp || (apart && apart[p]))
                continue;
            seen[p] = stamp;
            if (!x->in_d[p] || !lf__reader_to_come(x, p))
                continue;
            if ((out & ~(reach ? reach->outs[2 * p + 1] : 0)) == 0 ||
                (reach && lf__readers_cut(x, reach, p, &found, &n_comp)))
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

/* MetaFlow's cost-based backtracking search (TASO's too): a priority queue of
 * graphs by cost; the cheapest is expanded by every applicable rewrite, and a
 * new graph is queued when its cost is below alpha times the best so far
 * (alpha > 1 lets the search pass through slightly worse graphs, e.g. an
 * enlarged kernel that a merge then pays for). Stops after `budget`
 * expansions or when the queue is empty. The threshold alpha * best is taken
 * when a graph leaves the queue. The queue is bounded: past its
 * capacity the worse half is dropped, which keeps memory to a few hundred
 * graphs on networks with hundreds of matches per graph. With bt_max_steps,
 * graphs that many steps from the start are not expanded (OCGGS bounds the
 * sequence length of its baselines by K too). */
#include <stdlib.h>
#include <string.h>

#include "search/subst/search_internal.h"

#define LF__QUEUE_CAP 512

typedef struct lf__heap {
    int32_t *v;
    int32_t n;
    const lf__search *s;
} lf__heap;

/* Orders by cost, then by creation (older first): deterministic. */
static int lf__less(const lf__heap *h, int32_t a, int32_t b)
{
    double x = h->s->st[a].cost, y = h->s->st[b].cost;
    return x < y || (x == y && a < b);
}

static void lf__up(lf__heap *h, int32_t i)
{
    while (i > 0) {
        int32_t p = (i - 1) / 2;
        if (!lf__less(h, h->v[i], h->v[p]))
            break;
        int32_t t = h->v[i];
        h->v[i] = h->v[p];
        h->v[p] = t;
        i = p;
    }
}

static void lf__down(lf__heap *h, int32_t i)
{
    for (;;) {
        int32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && lf__less(h, h->v[l], h->v[m]))
            m = l;
        if (r < h->n && lf__less(h, h->v[r], h->v[m]))
            m = r;
        if (m == i)
            return;
        int32_t t = h->v[i];
        h->v[i] = h->v[m];
        h->v[m] = t;
        i = m;
    }
}

/* Keeps the better half of a full queue: pops it in order (no global state,
 * so searches may run on several threads) and drops the rest. */
static void lf__trim(lf__heap *h, lf__search *s)
{
    int32_t keep[LF__QUEUE_CAP / 2];
    for (int32_t k = 0; k < LF__QUEUE_CAP / 2; k++) {
        keep[k] = h->v[0];
        h->v[0] = h->v[--h->n];
        lf__down(h, 0);
    }
    for (int32_t i = 0; i < h->n; i++)
        lf__search_drop(s, h->v[i]);
    h->n = LF__QUEUE_CAP / 2;
    memcpy(h->v, keep, sizeof keep); /* ascending order is a heap */
}

lf_status lf__backtrack(lf__search *s, int64_t budget)
{
    lf__heap h = {malloc((LF__QUEUE_CAP + 1) * sizeof(int32_t)), 0, s};
    if (!h.v)
        return lf_set_error(LF_ENOMEM, "backtrack: out of memory");
    h.v[h.n++] = 0;
    lf_status st = LF_OK;
    double alpha = s->o->alpha > 0 ? s->o->alpha : 1.05;
    /* at the time cap: the best so far (OCGGS reports MF's and TS's that way) */
    for (int64_t e = 0; e < budget && h.n > 0 && !st && !lf__search_expired(s); e++) {
        int32_t i = h.v[0];
        h.v[0] = h.v[--h.n];
        lf__down(&h, 0);
        if (s->o->bt_max_steps > 0 && s->st[i].depth >= s->o->bt_max_steps) {
            lf__search_drop(s, i); /* a sequence of the longest length: nothing to append */
            e--;
            continue;
        }
        /* The threshold is the best cost when the graph is taken from the
         * queue (TASO's GraphXfer::run), so with alpha = 1 every strictly
         * better child is still queued after it became the best. */
        double threshold = alpha * s->st[s->best].cost;
        int32_t first = 0;
        st = lf__search_expand(s, i, &first);
        for (int32_t c = first; c < s->n && !st; c++) {
            if (s->st[c].cost < threshold) {
                if (h.n == LF__QUEUE_CAP)
                    lf__trim(&h, s);
                h.v[h.n++] = c;
                lf__up(&h, h.n - 1);
            } else {
                lf__search_drop(s, c);
            }
        }
        lf__search_drop(s, i);
    }
    free(h.v);
    return st;
}

/* DOS: the dynamic program over downsets (DESIGN §12, the DOS paper's
 * Algorithm 1 with IOS's endings).
 *
 * On one part (m <= 64 units, as bit masks over their list) the states are
 * the downsets S still to run; cost[∅] = 0 and
 *     cost[S] = min over endings T of S of cost[S \ T] + latency(T),
 * an ending being a non-empty set of S with no edge from it to the rest of S
 * (the last stage). Endings tried:
 *  - concurrent: chains, one per chosen sink of S, each running back from
 *    its sink through ops whose only successor in S is the chain's next op,
 *    at most r units long, at most s chains. Chains ending at different
 *    sinks are disjoint and unconnected, so every such choice is a stage
 *    whose groups are exactly its chains;
 *  - merged: two or more sinks of S that pass the merge rule (merge.c).
 * The states are memoised in the project's hash map keyed by the mask, and
 * stage latencies in two more (concurrent and merged) keyed by the stage's
 * mask, so a backend prices each distinct stage once. Ties keep the first
 * ending found; the order of the search is fixed, so the result is
 * deterministic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/schedule/schedule_internal.h"

#define LF__MAX_MERGE_CLASS 16 /* larger classes of mergeable sinks only try merging them all */

typedef struct lf__dp {
    lf__sched *x;
    const int32_t *units; /* local index -> unit */
    int32_t m;
    int64_t endings;      /* priced in this part, against max_endings */
    uint64_t pred[64], succ[64];
    uint8_t mcand[64];
    uint64_t mkey[64];
    lf_hashmap states, memo_conc, memo_merge;
    double *cost, *stage_lat;
    uint64_t *choice;
    uint8_t *strategy;
    int64_t n_states, cap_states;
    double *lat;
    int64_t n_lat, cap_lat;
    uint64_t *stack; /* chain options of the states being expanded, as a stack */
    int64_t top, cap_stack;
    lf_status status;
} lf__dp;

static int lf__fail(lf__dp *d, lf_status s)
{
    if (!d->status)
        d->status = s;
    return -1;
}

static int lf__push(lf__dp *d, uint64_t v)
{
    if (d->top == d->cap_stack) {
        int64_t c = d->cap_stack ? 2 * d->cap_stack : 1024;
        uint64_t *p = realloc(d->stack, sizeof *p * (size_t)c);
        if (!p)
            return lf__fail(d, lf_set_error(LF_ENOMEM, "schedule: out of memory"));
        d->stack = p;
        d->cap_stack = c;
    }
    d->stack[d->top++] = v;
    return 0;
}

/* The groups of a concurrent stage T: its chains, in order of their first
 * unit, each in execution order (global unit ids into units/start). */
static int32_t lf__chains(const lf__dp *d, uint64_t t, int32_t *units, int32_t *start)
{
    int32_t ng = 0, k = 0;
    for (int32_t i = 0; i < d->m; i++) {
        if (!((t >> i) & 1) || (d->pred[i] & t))
            continue;
        start[ng++] = k;
        for (int32_t j = i;;) {
            units[k++] = d->units[j];
            uint64_t nx = d->succ[j] & t;
            if (!nx)
                break;
            j = __builtin_ctzll(nx);
        }
    }
    start[ng] = k;
    return ng;
}

/* Latency of stage t under a strategy, memoised; NAN for a merge that the
 * rule forbids. */
static double lf__latency(lf__dp *d, uint64_t t, lf_sched_strategy st)
{
    lf_hashmap *memo = st == LF_SCHED_MERGE ? &d->memo_merge : &d->memo_conc;
    void *hit;
    if (lf_hashmap_get(memo, t, &hit))
        return d->lat[(intptr_t)hit - 1];
    int32_t units[64], start[65], ng = 0;
    double v = NAN;
    if (st == LF_SCHED_MERGE) {
        for (int32_t i = 0; i < d->m; i++)
            if ((t >> i) & 1)
                start[ng] = ng, units[ng++] = d->units[i];
        start[ng] = ng;
        if (!lf__merge_ok(d->x, units, ng))
            ng = 0;
    } else {
        ng = lf__chains(d, t, units, start);
    }
    if (ng > 0) {
        lf_status s = lf__stage_latency(d->x, st, units, start, ng, &v);
        if (s) {
            lf__fail(d, s);
            return NAN;
        }
    }
    if (d->n_lat == d->cap_lat) {
        int64_t c = d->cap_lat ? 2 * d->cap_lat : 256;
        double *p = realloc(d->lat, sizeof *p * (size_t)c);
        if (!p) {
            lf__fail(d, lf_set_error(LF_ENOMEM, "schedule: out of memory"));
            return NAN;
        }
        d->lat = p;
        d->cap_lat = c;
    }
    d->lat[d->n_lat++] = v;
    if (lf_hashmap_put(memo, t, (void *)(intptr_t)d->n_lat)) {
        lf__fail(d, LF_ENOMEM);
        return NAN;
    }
    return v;
}

static int64_t lf__solve(lf__dp *d, uint64_t s);

/* Tries ending t of state s (index idx). */
static void lf__try(lf__dp *d, int64_t idx, uint64_t s, uint64_t t, lf_sched_strategy st)
{
    double lat = lf__latency(d, t, st);
    if (d->status || isnan(lat))
        return;
    int64_t child = lf__solve(d, s & ~t);
    if (child < 0)
        return;
    d->x->stats->endings++;
    if (++d->endings > d->x->o.max_endings) {
        lf__fail(d, lf_set_error(LF_ELIMIT, "schedule: more than %lld endings in a part",
                                 (long long)d->x->o.max_endings));
        return;
    }
    double c = d->cost[child] + lat;
    if (c < d->cost[idx]) {
        d->cost[idx] = c;
        d->choice[idx] = t;
        d->strategy[idx] = (uint8_t)st;
        d->stage_lat[idx] = lat;
    }
}

/* Concurrent endings: for sinks j.. of the state (options on the stack from
 * base, sink j's from opt[j] to opt[j + 1]), none or one chain each. */
static void lf__conc(lf__dp *d, int64_t idx, uint64_t s, const int64_t *opt, int32_t ns, int32_t j, uint64_t t,
                     int32_t groups)
{
    if (d->status)
        return;
    if (j == ns) {
        if (t)
            lf__try(d, idx, s, t, LF_SCHED_CONCURRENT);
        return;
    }
    lf__conc(d, idx, s, opt, ns, j + 1, t, groups);
    if (groups == d->x->o.max_groups || (!d->x->o.concurrent && groups == 1))
        return;
    for (int64_t k = opt[j]; k < opt[j + 1]; k++) {
        uint64_t c = d->stack[k];
        if (!d->x->o.concurrent && (c & (c - 1)))
            continue; /* without concurrent stages: single units only */
        lf__conc(d, idx, s, opt, ns, j + 1, t | c, groups + 1);
    }
}

/* Chains ending at sink t of s: extends chain c (head h, n units) backwards. */
static void lf__chain_options(lf__dp *d, uint64_t s, uint64_t c, int32_t h, int32_t n)
{
    if (lf__push(d, c))
        return;
    if (n == d->x->o.max_group_ops)
        return;
    uint64_t p = d->pred[h] & s;
    while (p) {
        int32_t q = __builtin_ctzll(p);
        p &= p - 1;
        if ((d->succ[q] & s) == ((uint64_t)1 << h))
            lf__chain_options(d, s, c | ((uint64_t)1 << q), q, n + 1);
    }
}

static int64_t lf__new_state(lf__dp *d, uint64_t s)
{
    if (d->n_states >= d->x->o.max_states)
        return lf__fail(d, lf_set_error(LF_ELIMIT, "schedule: more than %lld downsets in a part",
                                        (long long)d->x->o.max_states));
    if (d->n_states == d->cap_states) {
        int64_t c = d->cap_states ? 2 * d->cap_states : 1024;
        double *cost = realloc(d->cost, sizeof *cost * (size_t)c);
        if (cost)
            d->cost = cost;
        double *sl = realloc(d->stage_lat, sizeof *sl * (size_t)c);
        if (sl)
            d->stage_lat = sl;
        uint64_t *ch = realloc(d->choice, sizeof *ch * (size_t)c);
        if (ch)
            d->choice = ch;
        uint8_t *st = realloc(d->strategy, (size_t)c);
        if (st)
            d->strategy = st;
        if (!cost || !sl || !ch || !st)
            return lf__fail(d, lf_set_error(LF_ENOMEM, "schedule: out of memory for %lld states",
                                            (long long)c));
        d->cap_states = c;
    }
    int64_t i = d->n_states++;
    d->cost[i] = s ? INFINITY : 0.0;
    d->choice[i] = 0;
    d->strategy[i] = 0;
    d->stage_lat[i] = 0.0;
    if (lf_hashmap_put(&d->states, s, (void *)(intptr_t)(i + 1)))
        return lf__fail(d, LF_ENOMEM);
    d->x->stats->states++;
    return i;
}

static int64_t lf__solve(lf__dp *d, uint64_t s)
{
    void *hit;
    if (lf_hashmap_get(&d->states, s, &hit))
        return (int64_t)(intptr_t)hit - 1;
    int64_t idx = lf__new_state(d, s);
    if (idx < 0 || !s)
        return idx;
    int32_t sinks[64], ns = 0;
    for (int32_t i = 0; i < d->m; i++)
        if (((s >> i) & 1) && !(d->succ[i] & s))
            sinks[ns++] = i;
    /* chain options per sink, on the stack */
    int64_t base = d->top, opt[65];
    for (int32_t j = 0; j < ns; j++) {
        opt[j] = d->top;
        lf__chain_options(d, s, (uint64_t)1 << sinks[j], sinks[j], 1);
    }
    opt[ns] = d->top;
    if (!d->status)
        lf__conc(d, idx, s, opt, ns, 0, 0, 0);
    d->top = base;
    /* merged endings: subsets (two or more) of each class of mergeable sinks */
    if (d->x->o.merge)
        for (int32_t j = 0; j < ns && !d->status; j++) {
            int32_t a = sinks[j];
            if (!d->mcand[a])
                continue;
            int32_t cls[64], nc = 0, first = 1;
            for (int32_t k = 0; k < ns; k++) {
                int32_t b = sinks[k];
                if (d->mcand[b] && d->mkey[b] == d->mkey[a]) {
                    if (k < j)
                        first = 0; /* the class was done from its first sink */
                    cls[nc++] = b;
                }
            }
            if (!first || nc < 2)
                continue;
            if (nc > LF__MAX_MERGE_CLASS) {
                uint64_t t = 0;
                for (int32_t k = 0; k < nc; k++)
                    t |= (uint64_t)1 << cls[k];
                lf__try(d, idx, s, t, LF_SCHED_MERGE);
                continue;
            }
            for (uint32_t sub = 1; sub < (1u << nc) && !d->status; sub++) {
                if (!(sub & (sub - 1)))
                    continue;
                uint64_t t = 0;
                for (int32_t k = 0; k < nc; k++)
                    if ((sub >> k) & 1)
                        t |= (uint64_t)1 << cls[k];
                lf__try(d, idx, s, t, LF_SCHED_MERGE);
            }
        }
    return d->status ? -1 : idx;
}

static void lf__dp_free(lf__dp *d)
{
    lf_hashmap_destroy(&d->states);
    lf_hashmap_destroy(&d->memo_conc);
    lf_hashmap_destroy(&d->memo_merge);
    free(d->cost);
    free(d->stage_lat);
    free(d->choice);
    free(d->strategy);
    free(d->lat);
    free(d->stack);
}

lf_status lf__dos_part(lf__sched *x, const int32_t *list, int32_t m, lf__sbuf *b)
{
    lf__dp d;
    memset(&d, 0, sizeof d);
    d.x = x, d.units = list, d.m = m;
    if (m < 1 || m > 64)
        return lf_set_error(LF_EINVAL, "schedule: a part of %d units (1 to 64)", (int)m);
    for (int32_t i = 0; i < m; i++)
        x->local[list[i]] = i;
    for (int32_t i = 0; i < m; i++) {
        int32_t u = list[i];
        for (int32_t k = x->pred_start[u]; k < x->pred_start[u + 1]; k++)
            if (x->local[x->pred[k]] >= 0)
                d.pred[i] |= (uint64_t)1 << x->local[x->pred[k]];
        for (int32_t k = x->succ_start[u]; k < x->succ_start[u + 1]; k++)
            if (x->local[x->succ[k]] >= 0)
                d.succ[i] |= (uint64_t)1 << x->local[x->succ[k]];
        d.mcand[i] = (uint8_t)lf__merge_candidate(x, u);
        d.mkey[i] = d.mcand[i] ? lf__merge_key(x, u) : 0;
    }
    for (int32_t i = 0; i < m; i++)
        x->local[list[i]] = -1;
    lf_status s = lf_hashmap_init(&d.states, 1024);
    if (!s)
        s = lf_hashmap_init(&d.memo_conc, 256);
    if (!s)
        s = lf_hashmap_init(&d.memo_merge, 64);
    uint64_t full = d.m == 64 ? ~(uint64_t)0 : (((uint64_t)1 << d.m) - 1);
    int64_t root = s ? -1 : lf__solve(&d, full);
    if (!s && root < 0)
        s = d.status ? d.status : LF_EINVAL;
    if (!s && !isfinite(d.cost[root]))
        s = lf_set_error(LF_EINVAL, "schedule: no schedule found for a part of %d units", (int)m);
    /* the stages, last first, then appended in order */
    uint64_t stages[64];
    int64_t idx[64];
    int32_t n = 0;
    for (uint64_t cur = full; !s && cur; n++) {
        void *hit;
        lf_hashmap_get(&d.states, cur, &hit);
        idx[n] = (int64_t)(intptr_t)hit - 1;
        stages[n] = d.choice[idx[n]];
        cur &= ~stages[n];
    }
    for (int32_t k = n - 1; !s && k >= 0; k--) {
        uint64_t t = stages[k];
        lf_sched_strategy st = (lf_sched_strategy)d.strategy[idx[k]];
        s = lf__sbuf_stage(b, st, d.stage_lat[idx[k]]);
        int32_t units[64], start[65], ng = 0;
        if (st == LF_SCHED_MERGE) {
            for (int32_t i = 0; i < d.m; i++)
                if ((t >> i) & 1)
                    start[ng] = ng, units[ng++] = list[i];
            start[ng] = ng;
        } else {
            ng = lf__chains(&d, t, units, start);
        }
        for (int32_t gi = 0; !s && gi < ng; gi++) {
            s = lf__sbuf_group(b);
            for (int32_t k2 = start[gi]; !s && k2 < start[gi + 1]; k2++)
                s = lf__sbuf_unit(b, x, units[k2]);
        }
    }
    lf__dp_free(&d);
    return s;
}

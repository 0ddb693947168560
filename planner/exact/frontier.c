/* A certified lower bound from an exact run stopped at a limit: the
 * frontier of the downset DP (issue 46).
 *
 * The DP expands states by increasing size. Once every state of size <= s is
 * expanded, take any plan and its chain of downsets from the empty set to U:
 * its first state D_j of size > s has a predecessor D_{j-1} that was
 * expanded, so D_j was relaxed with a DRAM no larger than the chain's prefix
 * (or the step is a group joined across a cut op c whose state, all ops up
 * to c, is not expanded yet: cut_join.c prices it only then). The rest of
 * the plan costs at least h(D_j), a floor that holds for every way to place
 * the ops outside D_j:
 *
 *     h(D) = sum over ops v of U outside D of phi(v),
 *     phi(v) = v's tensor's forced-cut floor (cut_bound.c: bytes it moves in
 *              every valid plan; all of it is paid by groups outside D, which
 *              hold v and its readers)
 *            + for a fusable v, its weight bytes times the reads every group
 *              holding v needs (lf_cost_tile_floors where v's weights and
 *              rows alone already reach beta; else 1, and 1 under LBDF).
 *
 * So the optimum is at least the smallest dram + h over the states of size
 * > s reached so far and, for each cut op whose state is larger than s,
 * over the states that offered a tail of it (each tail's plan pays at least
 * h of its state after that state's DRAM). That is this file's bound at the
 * boundary s; the run keeps the largest over the boundaries it passed, so a
 * longer run (more time, more states) never ends with a smaller one, and the
 * boundaries do not depend on the clock, so neither do the values.
 *
 * Once the DP has reached enough states, h also takes the per-state
 * estimate of togo.c (the windows' bound split by state) where it is the
 * larger: both are floors of the rest of every plan through D. With a known
 * plan's DRAM the same h prunes states (branch and bound), and a stopped run
 * completes its best state into a plan (complete.c).
 *
 * Under energy or latency dram[] holds that objective's figure, and h is
 * priced: the rest of a plan through D is a set of groups holding the
 * fusable ops of U outside D, at most one group per op, whose F_D add up to
 * at least h in bytes, so lf_cost_objective_dram_floor (objective.h, with
 * its proof) of that byte floor and those ops' sums is a floor of the rest's
 * figure. Every step above holds for any figure summed over groups. */
#include "planner/exact/frontier.h"

#include <stdlib.h>

#include "planner/cost/objective.h"
#include "planner/exact/solve.h"
#include "planner/plan.h"
#include "planner/exact/togo.h"
#include "planner/util/clock.h"

/* The per-state estimate (togo.c): built at the first boundary once this
 * many states are reached (lf_exact_config.estimate_after 0), with windows
 * of LF__TOGO_WINDOW ops in at most LF__TOGO_SHARE of the DP's time limit.
 * Runs that finish before never pay for it (every built-in CNN but
 * Inception-v3 under BRR reaches fewer than 10,000 states). */
#define LF__TOGO_AFTER 20000
#define LF__TOGO_WINDOW 64
#define LF__TOGO_SHARE 0.5
#define LF__TOGO_NEXT 3
#define LF__TOGO_MAX_UNTIMED 24 /* without a time limit: one pass of this size */

static int lf__frontier_fill(lf__exact *x);
static void lf__frontier_estimate(lf__exact *x);
static int lf__frontier_prune(lf__exact *x, int32_t s);

struct lf__frontier {
    int64_t *phi;      /* per op of U; 0 elsewhere */
    int64_t h_all;     /* h of the empty state */
    int64_t *h;        /* per state, filled up to n_h */
    int64_t n_h, cap_h;
    int64_t *tail_min; /* per cut op: smallest dram + h over the states that offered a tail */
    int64_t lower;     /* the largest bound over the boundaries passed */
    int32_t arg;       /* the reached state that set the last boundary's bound (-1: none) */
    lf__togo *togo;    /* the per-state estimate (NULL: not built) */
    int togo_tried;
    /* Energy or latency: h in bytes priced (lf_cost_objective_dram_floor). */
    int priced;
    lf_obj_sums *sums; /* per fusable op of U: its sums; zero elsewhere */
    lf_obj_sums sums_all;
    int64_t n_all;     /* fusable ops of U */
};

lf_status lf__frontier_create(lf__exact *x)
{
    lf__frontier *f = calloc(1, sizeof *f);
    size_t n = (size_t)x->n;
    int32_t *tiles = malloc((n + 1) * sizeof *tiles);
    if (!f || !tiles || !(f->phi = calloc(n + 1, sizeof *f->phi)) ||
        !(f->tail_min = malloc((n + 1) * sizeof *f->tail_min))) {
        free(tiles);
        if (f) {
            free(f->phi);
            free(f);
        }
        return lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
    }
    lf_status st = lf__cut_tensor_floors(x->cm, f->phi);
    if (st == LF_OK)
        st = lf_cost_tile_floors(x->cm, tiles);
    for (int32_t v = 0; v < x->n && st == LF_OK; v++) {
        f->tail_min[v] = INT64_MAX;
        if (!x->in_u[v]) {
            /* Inputs and ops outside U: placed from the start, and their
             * tensors' reads are paid before or after any state alike. */
            f->phi[v] = 0;
            continue;
        }
        if (x->fusable[v]) {
            /* The tile floor holds for groups whose weights do not all fit
             * beside their windows: certain for every group holding v when
             * v's weights and the monotone floor of v's own rows already
             * reach beta (both only grow with the group); else once. */
            int64_t w = lf_cost_weight_bytes(x->cm, v), reads = 1;
            if (tiles[v] > 1 && w > 0) {
                int64_t rows = lf__dp_floor_of(x, &v, 1, INT64_MAX) - x->wterm[v] - x->wblk[v];
                if (w + rows >= x->beta)
                    reads = tiles[v];
            }
            f->phi[v] += reads * w;
        }
        f->h_all += f->phi[v];
    }
    free(tiles);
    f->priced = lf_cost_objective(x->cm) != LF_PLAN_OBJ_DRAM;
    if (st == LF_OK && f->priced && !(f->sums = calloc((size_t)x->n + 1, sizeof *f->sums)))
        st = lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
    for (int32_t v = 0; v < x->n && st == LF_OK && f->priced; v++)
        if (x->in_u[v] && x->fusable[v]) {
            lf_obj_sums_add_op(x->cm, v, &f->sums[v]);
            lf_obj_sums_add(&f->sums_all, &f->sums[v]);
            f->n_all++;
        }
    f->lower = 0;
    f->arg = -1;
    x->front = f;
    x->on_size_done = lf__frontier_boundary;
    if (x->cfg.upper_bound > 0)
        x->prune = lf__frontier_prune;
    return st;
}

void lf__frontier_free(lf__exact *x)
{
    lf__frontier *f = x->front;
    if (!f)
        return;
    free(f->phi);
    free(f->h);
    free(f->tail_min);
    free(f->sums);
    lf__togo_free(f->togo);
    free(f);
    x->front = NULL;
    x->on_size_done = NULL;
    x->prune = NULL;
}

/* h of every state created since the last call. */
static int lf__frontier_fill(lf__exact *x)
{
    lf__frontier *f = x->front;
    if (x->n_states > f->cap_h) {
        int64_t cap = f->cap_h ? f->cap_h : 1024;
        while (cap < x->n_states)
            cap *= 2;
        int64_t *h = realloc(f->h, (size_t)cap * sizeof *h);
        if (!h)
            return 0;
        x->extra_bytes += (cap - f->cap_h) * (int64_t)sizeof *h;
        f->h = h;
        f->cap_h = cap;
    }
    for (; f->n_h < x->n_states; f->n_h++) {
        const uint64_t *w = x->words + (size_t)f->n_h * x->nwords;
        int64_t h = f->h_all;
        for (int32_t i = 0; i < x->nwords; i++)
            for (uint64_t b = w[i]; b; b &= b - 1)
                h -= f->phi[i * 64 + __builtin_ctzll(b)];
        /* Both are floors of the rest: the larger counts. */
        if (f->togo) {
            int64_t t = lf__togo_h(f->togo, w);
            h = t > h ? t : h;
        }
        if (f->priced) {
            /* The rest's fusable ops: U's less those in the state. */
            lf_obj_sums rest = f->sums_all;
            int64_t n_rest = f->n_all;
            for (int32_t i = 0; i < x->nwords; i++)
                for (uint64_t b = w[i]; b; b &= b - 1) {
                    int32_t v = i * 64 + __builtin_ctzll(b);
                    const lf_obj_sums *o = &f->sums[v];
                    rest.macs -= o->macs;
                    rest.act -= o->act;
                    rest.weights -= o->weights;
                    n_rest -= x->in_u[v] && x->fusable[v];
                }
            h = lf_cost_objective_dram_floor(x->cm, h, &rest, n_rest);
        }
        f->h[f->n_h] = h;
    }
    return 1;
}

/* Branch and bound: a state whose DRAM plus h exceeds a known plan's DRAM
 * lies on no plan as good as that one, so neither on the optimum nor on any
 * plan tied with it in DESIGN §4's order (all of their states have DRAM + h
 * at most the optimum: h is a floor of every plan's rest). Every state of
 * those plans is still expanded, with all of their steps, so the DP returns
 * the same plan. The frontier bound stays a floor: the optimum's chain of
 * states holds no pruned state. */
static int lf__frontier_prune(lf__exact *x, int32_t s)
{
    lf__frontier *f = x->front;
    lf__frontier_estimate(x);
    if (!lf__frontier_fill(x))
        return 0;
    return x->dram[s] > x->cfg.upper_bound - f->h[s];
}

void lf__frontier_tail(lf__exact *x, int32_t c)
{
    lf__frontier *f = x->front;
    if (!lf__frontier_fill(x)) {
        /* Without h the tail counts as the empty state's floor: smaller,
         * still a bound. */
        f->tail_min[c] = 0;
        return;
    }
    int64_t v = x->dram[x->cur] + f->h[x->cur];
    if (v < f->tail_min[c])
        f->tail_min[c] = v;
}

/* Builds the per-state estimate once enough states are reached, then
 * charges every state with it: the boundaries' values from then on are
 * larger, and those before stay valid (the running maximum keeps them). The
 * threshold counts states, not seconds, so a longer run passes the same
 * boundaries with the same values first. */
static void lf__frontier_estimate(lf__exact *x)
{
    lf__frontier *f = x->front;
    int64_t after = x->cfg.estimate_after != 0 ? x->cfg.estimate_after : LF__TOGO_AFTER;
    if (f->togo_tried || after < 0 || x->n_states < after)
        return;
    f->togo_tried = 1;
    double seconds = 0;
    if (x->cfg.time_limit_s > 0) {
        double left = x->cfg.time_limit_s - (lf_now_seconds() - x->t0);
        seconds = LF__TOGO_SHARE * x->cfg.time_limit_s;
        seconds = left < seconds ? left : seconds;
        if (seconds <= 1e-3)
            return;
    }
    /* Windows grow by half while time is left, as window_bound.c's passes
     * (PP-OCRv4 detection at 256 KB, LBDF: h of the empty state 2.2 MB with
     * windows of 16 ops, 3.9 with 32, 7.4 with 64); the pass with the
     * largest h of the empty state is kept (each is a floor), and the next
     * starts only with LF__TOGO_NEXT times the last one's time left. */
    uint64_t *empty = calloc((size_t)x->nwords, 8);
    double end = seconds > 0 ? lf_now_seconds() + seconds : 0;
    int64_t best_h = -1;
    for (int32_t size = end > 0 ? LF__TOGO_WINDOW : LF__TOGO_MAX_UNTIMED; empty; size += size / 2) {
        double start = lf_now_seconds();
        if (end > 0 && end - start <= 1e-3)
            break;
        lf__togo *t = NULL;
        if (lf__togo_create(x->cm, size, end > 0 ? end - start : 0, &t) != LF_OK) {
            lf_clear_error(); /* no estimate from this pass */
            break;
        }
        int64_t h = lf__togo_h(t, empty);
        if (h > best_h) {
            lf__togo_free(f->togo);
            f->togo = t;
            best_h = h;
        } else {
            lf__togo_free(t);
        }
        double now = lf_now_seconds();
        if (size >= x->n || (end > 0 && end - now < LF__TOGO_NEXT * (now - start)) ||
            (end == 0 && size >= LF__TOGO_MAX_UNTIMED))
            break;
    }
    free(empty);
    if (!f->togo)
        return;
    int32_t windows, solved;
    int64_t bytes;
    lf__togo_stats(f->togo, &windows, &solved, &bytes);
    x->extra_bytes += bytes;
    f->n_h = 0; /* every state again, with the estimate */
}

void lf__frontier_boundary(lf__exact *x, int32_t s)
{
    lf__frontier *f = x->front;
    lf__frontier_estimate(x);
    if (!lf__frontier_fill(x))
        return; /* no new bound: the last one stays valid */
    int64_t best = INT64_MAX;
    int32_t arg = -1;
    for (int32_t t = s + 1; t <= x->n; t++)
        for (int32_t k = 0; k < x->bucket_n[t]; k++) {
            int32_t d = x->bucket[t][k];
            if (x->dram[d] != INT64_MAX && x->dram[d] + f->h[d] < best) {
                best = x->dram[d] + f->h[d];
                arg = d;
            }
        }
    if (arg >= 0)
        f->arg = arg;
    for (int32_t c = 0; c < x->n; c++)
        if (x->is_cut[c] && x->u_before[c] + 1 > s && f->tail_min[c] < best)
            best = f->tail_min[c];
    /* Branch and bound: a plan through a pruned state costs more than the
     * upper bound, so the optimum is at least the smaller of this bound and
     * the next integer past it (all states pruned: that integer). */
    if (x->prune && best > x->cfg.upper_bound)
        best = x->cfg.upper_bound + 1;
    /* No reached state beyond s and no pending tail: the goal was reached
     * (its DRAM is then the optimum, given by the caller). */
    if (best != INT64_MAX && best > f->lower)
        f->lower = best;

}

/* The reached state behind the last boundary's bound (-1: none). */
int32_t lf__frontier_best_state(const lf__exact *x)
{
    return x->front ? x->front->arg : -1;
}

int64_t lf__frontier_lower(const lf__exact *x)
{
    return x->front ? x->front->lower : 0;
}

/* The staircase of optimal DRAM against the buffer size by a Pareto DP over
 * downsets (see curve.h). States and candidate groups come from downsets.c,
 * enumerated once under the largest buffer; each state keeps the Pareto front
 * of (DRAM over all ops, largest need) of the plans of its ops, and a
 * group with steps (need_k, F_D_k) extends every point of the front it leaves
 * by every step. */
#include "planner/exact/curve.h"

#include <stdlib.h>
#include <string.h>

#include "planner/cost/objective.h"
#include "planner/exact/curve_run.h"
#include "planner/exact/curve_steps.h"
#include "planner/exact/cut_join.h"
#include "planner/exact/downsets.h"
#include "planner/util/pool.h"

/* A front point as dominance sees it, and how its plan was reached: two
 * arrays, since the walks over a front (nearly all of the staircase's time)
 * read only the first. */
typedef struct lf__fpoint {
    int64_t dram, need;
} lf__fpoint;

typedef struct lf__fback {
    int32_t prev_state, prev_idx; /* the point this one extends; -1 at the empty set */
    int32_t groups;               /* of its plan (ties: fewer first, DESIGN §4) */
} lf__fback;

typedef struct lf__front {
    lf__fpoint *p;
    lf__fback *b;
    int32_t n, cap;
} lf__front;

typedef struct lf__curve_dp {
    lf__front *fronts; /* by state */
    int64_t n_fronts;
    int64_t beta_min, beta_max;
    int64_t *fb1;      /* per op: the buffer it needs alone to be fusable (F_beta) */
    lf_cost_step **single; /* per op: its steps alone (lf_cost_singleton_steps) */
    int32_t *n_single;
    lf_cost_step steps[LF_COST_MAX_STEPS];
    lf_group_cost at[LF_COST_MAX_STEPS]; /* each step's cost at its buffer (energy, latency) */
    lf_steps_store *keep; /* energy, latency: each group's figures for every part of the range */
    int64_t range_min, range_max; /* the whole range (keep's steps are below its largest buffer) */
    lf_cost_step *pieces; /* scratch: a group's figures as keep holds them */
    lf_bitset key;        /* scratch: a group's canonical copy, its key in keep */
    int32_t *members;  /* scratch: the ops of a group priced whole from its bitset */
} lf__curve_dp;

static lf__front *lf__front_of(lf__exact *x, int32_t s)
{
    lf__curve_dp *c = x->user;
    if (s >= c->n_fronts) {
        int64_t n = c->n_fronts ? c->n_fronts : 1024;
        while (n <= s)
            n *= 2;
        lf__front *f = realloc(c->fronts, (size_t)n * sizeof *f);
        if (!f) {
            x->status = lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
            return NULL;
        }
        memset(f + c->n_fronts, 0, (size_t)(n - c->n_fronts) * sizeof *f);
        x->extra_bytes += (n - c->n_fronts) * (int64_t)sizeof *f;
        c->fronts = f;
        c->n_fronts = n;
    }
    return &c->fronts[s];
}

/* The first point of front f needing more than `need` (needs ascend). A
 * caller offering points by ascending need says where the last one went
 * (from, a point needing no more): the search gallops on from there, so
 * one group's points cost one walk over the front, where a search from
 * scratch would miss the cache at every probe. */
static int32_t lf__front_find(const lf__front *f, int64_t need, int32_t from)
{
    int32_t lo = from < f->n ? from : f->n, j = f->n, step = 1;
    /* Nine answers in ten lie fewer than eight points on (Inception-v3 BRR):
     * counted without a branch, where galloping mispredicts at every probe
     * (needs ascend, so the points needing no more are a prefix). */
    if (lo + 8 < f->n) {
        int32_t c = 0;
        for (int32_t k = 0; k < 8; k++)
            c += f->p[lo + k].need <= need;
        if (c < 8)
            return lo + c;
        lo += 7;
    }
    while (lo + step < f->n && f->p[lo + step].need <= need) {
        lo += step;
        step *= 2;
    }
    if (lo + step < f->n)
        j = lo + step;
    while (lo < j) {
        int32_t mid = lo + (j - lo) / 2;
        if (f->p[mid].need > need)
            j = mid;
        else
            lo = mid + 1;
    }
    return j;
}

/* 1 when the point before j (the last needing no more) keeps its place
 * against (dram, need) of `groups` groups: less DRAM, or the same DRAM and
 * (at the same need) no more groups (DESIGN §4; then the one found first:
 * the enumeration order is fixed, so the result is deterministic). */
static int lf__front_beats(const lf__front *f, int32_t j, int64_t dram, int64_t need, int32_t groups)
{
    const lf__fpoint *q = j > 0 ? &f->p[j - 1] : NULL;
    return q && (q->dram < dram ||
                 (q->dram == dram && (q->need < need || f->b[j - 1].groups <= groups)));
}

/* Puts (dram, need) in front f before j (lf__front_find; not beaten there)
 * and drops the points it beats. Returns where it went; memory taken and a
 * failure go to acc. */
static int32_t lf__front_insert(lf__join_acc *acc, lf__front *f, int32_t j, int64_t dram, int64_t need,
                                int32_t groups, int32_t ps, int32_t pi)
{
    /* Needs ascend and DRAM descends along the front, so the points the new
     * one beats (more need, no less DRAM) are the d right after it. */
    int32_t at = j > 0 && f->p[j - 1].need == need ? j - 1 : j; /* same need: replaced in place */
    int32_t d = 0;
    while (j + d < f->n && f->p[j + d].dram >= dram)
        d++;
    int32_t grow = (at == j) - d; /* net points added: 1 - d, or -d when replacing */
    if (f->n + grow > f->cap) {
        int32_t cap = f->cap ? f->cap * 2 : 4;
        lf__fpoint *p = realloc(f->p, (size_t)cap * sizeof *p);
        if (p)
            f->p = p;
        lf__fback *b = p ? realloc(f->b, (size_t)cap * sizeof *b) : NULL;
        if (!b) {
            lf__join_acc_fail(acc, lf_set_error(LF_ENOMEM, "out of memory in the curve planner"));
            return 0;
        }
        acc->bytes += (int64_t)(cap - f->cap) * (int64_t)(sizeof *p + sizeof *b);
        f->b = b;
        f->cap = cap;
    }
    if (at + 1 != j + d) {
        memmove(f->p + at + 1, f->p + j + d, (size_t)(f->n - j - d) * sizeof *f->p);
        memmove(f->b + at + 1, f->b + j + d, (size_t)(f->n - j - d) * sizeof *f->b);
    }
    f->p[at] = (lf__fpoint){dram, need};
    f->b[at] = (lf__fback){ps, pi, groups};
    f->n += grow;
    return at;
}

/* Adds (dram, need) of a plan of `groups` groups to front f unless a point
 * there beats it (lf__front_beats), dropping the points it beats; `from` as
 * in lf__front_find. Returns a point needing no more than `need` (where it
 * went, or the point that beat it). */
static int32_t lf__front_add(lf__join_acc *acc, lf__front *f, int64_t dram, int64_t need,
                             int32_t groups, int32_t ps, int32_t pi, int32_t from)
{
    int32_t j = lf__front_find(f, need, from);
    if (lf__front_beats(f, j, dram, need, groups))
        return j - 1;
    return lf__front_insert(acc, f, j, dram, need, groups, ps, pi);
}

/* A step's need where needs below lo all count as lo. */
static inline int64_t lf__step_need(const lf_cost_step *s, int64_t lo)
{
    return s->need > lo ? s->need : lo;
}

/* 1 when none of what points a..b-1 of a front p of n points (a block
 * lf__extend_from walks) offer could enter front `to`: each offered point
 * needs at least the first's need (and first_need) and costs at least the
 * last point's DRAM plus the cheapest step the block can use (one needing
 * less than the point after it), so a point of `to` needing no more than
 * that and with less DRAM beats them all. Steps k0.. are those used;
 * *l is the first needing the point after the block or more (a cursor:
 * blocks move little from one test to the next). Moves *at on as
 * lf__front_find's hint. */
static int lf__block_beaten(const lf__front *to, const lf__fpoint *p, int32_t a, int32_t b,
                            int32_t n, const lf_cost_step *steps, int32_t k0, int32_t n_steps,
                            int64_t lo, int64_t first_need, int32_t *l, int32_t *at)
{
    int64_t next_need = b < n ? p[b].need : INT64_MAX;
    while (*l < n_steps && lf__step_need(&steps[*l], lo) < next_need)
        ++*l;
    while (*l > k0 && lf__step_need(&steps[*l - 1], lo) >= next_need)
        --*l;
    if (*l == k0) /* every offer would need the next point's need or more */
        return 1;
    int64_t need = p[a].need > first_need ? p[a].need : first_need;
    int32_t j = lf__front_find(to, need, *at);
    if (j == 0)
        return 0;
    *at = j - 1;
    return to->p[j - 1].dram < p[b - 1].dram + steps[*l - 1].f_d;
}

/* Extends every point of the front of state `from` by every step of a
 * group into the front of state t (both fronts exist); what it adds goes to
 * acc. Needs below the curve's minimum count as the minimum, where they all
 * apply alike. Touches no other front, so extensions into different states
 * may run at once (cut_join.c). */
static void lf__extend_from(const lf__exact *x, lf__join_acc *acc, int32_t from, int32_t t,
                            const lf_cost_step *steps, int32_t n_steps, int64_t floor)
{
    const lf__curve_dp *c = x->user;
    int64_t lo = c->beta_min - 1 > floor ? c->beta_min - 1 : floor;
    /* Only the last step at or below the floor matters there. */
    int32_t k0 = 0;
    while (k0 + 1 < n_steps && steps[k0 + 1].need <= lo)
        k0++;
    /* Point i and step k give (dram_i + f_k, max(need_i, need_k)). With needs
     * ascending and DRAM descending along both the front and the steps, the
     * only pairs not beaten outright by another pair are, for each step, the
     * last point needing no more than it, and for each point, the last step
     * needing no more than the point: every other pair has the need of one of
     * these and more DRAM. Those are added in the order of the loop over
     * every (i, k) (i outer), so ties go to the same pair as there. */
    const lf__fpoint *src = c->fronts[from].p; /* t != from: inserting never moves it */
    const lf__fback *src_b = c->fronts[from].b;
    int32_t n = c->fronts[from].n;
    int32_t kk = k0; /* steps k0..kk-1 need no more than the point */
    int32_t at = 0;  /* where the last point offered went (they come by ascending need) */
    lf__front *to = &c->fronts[t];
    /* Points below the last one needing less than the first step offer
     * nothing (no step below them, none between them and the next): most
     * of a long front, skipped by a binary search. */
    int64_t first_need = lf__step_need(&steps[k0], lo);
    int32_t i0 = 0, hi = n;
    while (i0 + 1 < hi) {
        int32_t mid = i0 + (hi - i0) / 2;
        if (src[mid].need < first_need)
            i0 = mid;
        else
            hi = mid;
    }
    /* Nearly every point offered is beaten where it would go (Inception-v3
     * BRR, 64 KB - 1 MB: 1.4 billion offered, 4.4 million kept), mostly in
     * runs: blocks beaten as a whole are skipped, their length doubling
     * while they are and halving when not. A skipped point would have been
     * beaten later too (fronts only improve), so the result is the same. */
    int32_t w = 2, l = k0;
    for (int32_t i = i0; i < n && acc->status == LF_OK;) {
        if (w > 1) {
            int32_t b = n - i > w ? i + w : n;
            if (lf__block_beaten(to, src, i, b, n, steps, k0, n_steps, lo, first_need, &l, &at)) {
                i = b;
                w *= 2;
            } else {
                w /= 2;
            }
            continue;
        }
        lf__fpoint p = src[i];
        int32_t groups = src_b[i].groups + 1;
        int64_t next_need = i + 1 < n ? src[i + 1].need : INT64_MAX;
        while (kk < n_steps && lf__step_need(&steps[kk], lo) <= p.need)
            kk++;
        /* (i, k) for the last step below the point, and for each step
         * above the point whose last point below it is i: the steps needing
         * less than the next point (needs ascend, so a run from kk). */
        for (int32_t k = kk > k0 ? kk - 1 : kk; k < n_steps && acc->status == LF_OK; k++) {
            int64_t need_k = k < kk ? p.need : lf__step_need(&steps[k], lo);
            if (need_k >= next_need)
                break;
            /* Most points offered are beaten where they would go. */
            int64_t dram = p.dram + steps[k].f_d;
            int32_t j = lf__front_find(to, need_k, at);
            at = lf__front_beats(to, j, dram, need_k, groups)
                     ? j - 1
                     : lf__front_insert(acc, to, j, dram, need_k, groups, from, i);
        }
        i++;
        w = 2;
    }
}

/* The figures of a group at each of its steps below the whole range's
 * largest buffer, from the store kept across the range's parts (c->keep)
 * or priced and put there: a group is priced once for all parts, each
 * part's cost model prices it alike (the buffer plays no part in a price
 * at a given beta, and the SRAM figure is the range's: lf_curve_fix_sram).
 * 0 in *found where it cannot say (no store, or a walk over the whole
 * range that fails where the part's own might not). An attention group is
 * kept as a step at need -1 (no group's need) holding -1 (its invalid
 * buffers are priced INT64_MAX, so no least need is walked for), followed
 * by its prices over the whole range (lf__attn_range_prices; none
 * where they are too many: each part prices it then), from which each part
 * takes its steps (lf__attn_part_steps). */
static lf_status lf__kept_figures(lf_cost_model *cm, lf__curve_dp *c, const lf_bitset *set,
                                  const int32_t *members, int32_t n_members, int32_t *n, int *found)
{
    *found = 0;
    if (!c->keep)
        return LF_OK;
    /* Copies of a group one repeated block apart are priced alike: kept
     * once, under their canonical copy (a transformer's layers). */
    lf_cost_canonical(cm, set, &c->key);
    lf_cost_step *kept = c->pieces; /* LF__ATTN_PIECES + 1 */
    int32_t nk = 0;
    lf_status st = LF_OK;
    if (!lf_steps_store_get(c->keep, &c->key, c->range_max, kept, LF_COST_MAX_STEPS, &nk)) {
        int attn = lf_cost_group_attn(cm, members, n_members);
        if (attn && lf_steps_store_full(c->keep))
            return LF_OK; /* not kept: the part prices it over its own range alone */
        if (attn) {
            /* An attention group (known from its ops): its prices over the
             * whole range, each invalid buffer's figure INT64_MAX, so no
             * DRAM step of it is walked; -1: no need below which a part
             * has none of its steps (lf__attn_part_steps). */
            kept[0] = (lf_cost_step){-1, -1};
            st = lf__attn_range_prices(cm, members, n_members, c->range_min, c->range_max, kept + 1, &nk);
            nk++;
        } else {
            int priced = 0;
            if (lf_cost_steps_priced(cm, set, c->range_max, 0, c->steps, c->at, LF_COST_MAX_STEPS, n,
                                     &priced) != LF_OK)
                return LF_OK; /* the part's own walk says what went wrong */
            int32_t attn_at; /* *n: no step of a group without attention is priced as one */
            st = lf__step_figures(cm, members, n_members, -1, 0, 0, c->steps, priced ? c->at : NULL, *n, &attn_at);
            if (st == LF_OK) {
                memcpy(kept, c->steps, (size_t)*n * sizeof *kept);
                nk = *n;
            }
        }
        if (st == LF_OK)
            st = lf_steps_store_put(c->keep, &c->key, c->range_max, kept, LF_COST_MAX_STEPS, nk);
        if (st != LF_OK)
            return st;
    }
    if (nk >= 1 && kept[0].need < 0) { /* an attention group */
        *found = nk > 1;
        return nk > 1 ? lf__attn_part_steps(cm, kept + 1, nk - 1, kept[0].f_d, c->beta_min, c->beta_max,
                                            c->steps, n)
                      : LF_OK;
    }
    /* Steps from the part's largest buffer on are not its (lf_cost_steps
     * leaves them out, and none of them replaces one below it). */
    *n = nk;
    while (*n > 0 && kept[*n - 1].need >= c->beta_max)
        (*n)--;
    memcpy(c->steps, kept, (size_t)*n * sizeof *kept);
    *found = 1;
    return LF_OK;
}

/* The steps of group `set` (members: its ops) below beta_max in the
 * objective's figure: lf_cost_steps, then lf__steps_objective, which reads
 * each step's schedule from the walk that found the step where it can. */
static lf_status lf__group_steps(lf_cost_model *cm, lf__curve_dp *c, const lf_bitset *set,
                                 const int32_t *members, int32_t n_members, int32_t *n)
{
    if (lf_cost_objective(cm) == LF_PLAN_OBJ_DRAM)
        return lf_cost_steps(cm, set, c->beta_max, c->steps, LF_COST_MAX_STEPS, n);
    int found = 0;
    lf_status st = lf__kept_figures(cm, c, set, members, n_members, n, &found);
    if (st != LF_OK || found) {
        if (st == LF_OK)
            *n = lf__step_keep(c->steps, *n, c->beta_min);
        return st;
    }
    /* An attention group not kept across parts is priced at every buffer of
     * the part: its DRAM steps would only be walked to be dropped. */
    if (lf_cost_group_attn(cm, members, n_members))
        return lf__steps_attention_group(cm, members, n_members, c->beta_min, c->beta_max, c->steps, n);
    int priced = 0;
    st = lf_cost_steps_priced(cm, set, c->beta_max, c->beta_min, c->steps, c->at,
                              LF_COST_MAX_STEPS, n, &priced);
    if (st != LF_OK)
        return st;
    return lf__steps_objective(cm, members, n_members, -1, 0, c->beta_min, c->beta_max, c->steps,
                               priced ? c->at : NULL, n);
}

/* lf__extend_from the current state on the DP's thread. */
static void lf__extend_to(lf__exact *x, int32_t t, const lf_cost_step *steps, int32_t n_steps,
                          int64_t floor)
{
    if (n_steps == 0 || t < 0 || !lf__front_of(x, t) || !lf__front_of(x, x->cur))
        return;
    /* Only what lf__extend_from writes: this runs for every group, and the
     * message (hundreds of bytes) is filled only on a failure. */
    lf__join_acc acc;
    acc.bytes = 0;
    acc.status = LF_OK;
    lf__extend_from(x, &acc, x->cur, t, steps, n_steps, floor);
    x->extra_bytes += acc.bytes;
    if (acc.status != LF_OK && x->status == LF_OK)
        x->status = acc.status; /* the message is this thread's */
}

/* The same for the set S (n ops) into the front of D u S. */
static void lf__extend(lf__exact *x, const lf_bitset *s, int32_t n, const lf_cost_step *steps,
                       int32_t n_steps, int64_t floor)
{
    if (n_steps > 0)
        lf__extend_to(x, lf__dp_target(x, s, n), steps, n_steps, floor);
}

static void lf__curve_forced(lf__exact *x, int32_t v)
{
    lf__curve_dp *c = x->user;
    lf_bitset_set(&x->sbits, v);
    lf__extend(x, &x->sbits, 1, c->single[v], c->n_single[v], 0);
    lf_bitset_reset(&x->sbits, v);
}

/* 1 when every point a group from state `from` could add to the front of
 * state t is already beaten there, given that each of its steps needs at
 * least `need` and costs at least `floor`: a point with no more need and
 * less DRAM is one that lf__front_add drops. Fronts only improve, so the
 * answer holds later. */
static int lf__front_dominated(lf__exact *x, int32_t from_state, int32_t t, int64_t need,
                               int64_t floor)
{
    lf__curve_dp *c = x->user;
    if (t < 0 || t >= c->n_fronts || c->fronts[t].n == 0 || from_state >= c->n_fronts)
        return 0;
    if (need < c->beta_min - 1)
        need = c->beta_min - 1;
    const lf__front *from = &c->fronts[from_state], *to = &c->fronts[t];
    /* The points of `from` needing no more than `need` all land at `need`,
     * and the last of them has the least DRAM: the others need no look. */
    int32_t i0 = 0, hi = from->n;
    while (i0 + 1 < hi) {
        int32_t mid = i0 + (hi - i0) / 2;
        if (from->p[mid].need <= need)
            i0 = mid;
        else
            hi = mid;
    }
    /* Both fronts are sorted by need, so one walk finds, for each point, the
     * last point of `to` with no more need: it holds the least DRAM of those. */
    int32_t j = 0;
    for (int32_t i = i0; i < from->n; i++) {
        int64_t nd = from->p[i].need > need ? from->p[i].need : need;
        while (j < to->n && to->p[j].need <= nd)
            j++;
        /* A point of as much DRAM could still win on fewer groups. */
        if (j == 0 || to->p[j - 1].dram >= from->p[i].dram + floor)
            return 0;
    }
    return 1;
}

/* The largest need of a member of the set being grown alone. */
static int64_t lf__members_need(const lf__exact *x)
{
    const lf__curve_dp *c = x->user;
    int64_t need = 0;
    for (int32_t i = 0; i < x->n_sub; i++)
        if (c->fb1[x->sub[i]] > need)
            need = c->fb1[x->sub[i]];
    return need;
}

/* The set being grown, against its target's front: each step's F_D is at
 * least the floor (inputs, outputs and weights once) and each need at least
 * the enumeration's lower bound of F_beta and every member's need alone. */
static int lf__curve_dominated(lf__exact *x)
{
    int32_t t = lf__dp_target_find(x, &x->sbits);
    int64_t need = lf__dp_set_need_floor(x), alone = lf__members_need(x);
    return lf__front_dominated(x, x->cur, t, need > alone ? need : alone,
                               lf_cost_objective_floor(x->cm, x->sub, x->n_sub, x->in_s, x->seen));
}

/* Extends by the steps of group `set` below the largest buffer (none: it
 * is valid nowhere in the range), usable from its smallest step's need and
 * where every member alone fits (aux). For a group priced once (one that
 * holds a cut op, so no memo helps) this is all of lf__curve_price's work
 * from one view of the group, where pricing it first would build two. */
static void lf__curve_price_steps(lf__exact *x, const lf_bitset *set, int32_t n_ops, int64_t aux,
                                  int32_t t)
{
    lf__curve_dp *c = x->user;
    int32_t n = 0;
    /* The group's own members: a pair joined at a cut op and priced whole
     * (cut_join.c) is not the set being grown. */
    const int32_t *members = x->sub;
    int32_t n_members = x->n_sub;
    if (set != &x->sbits && lf_cost_objective(x->cm) != LF_PLAN_OBJ_DRAM) {
        /* Only the objective's steps read them: bert_large BRR prices most
         * of its pairs here under DRAM, where listing the members, one call
         * per member, was a tenth of the staircase's time. */
        n_members = lf_bitset_to_list(set, c->members);
        members = c->members;
    }
    lf_status st = lf__group_steps(x->cm, c, set, members, n_members, &n);
    if (st != LF_OK) {
        x->status = st;
        return;
    }
    int64_t thr = n > 0 && c->steps[0].need > aux ? c->steps[0].need : aux;
    if (n == 0 || thr >= c->beta_max)
        return;
    int64_t floor = thr > c->beta_min - 1 ? thr : c->beta_min - 1;
    if (t < 0)
        lf__extend(x, set, n_ops, c->steps, n, floor);
    else
        lf__extend_to(x, t, c->steps, n, floor);
}

/* Prices the group `set` (its members alone need up to aux) and extends
 * the current state's front by its steps into state t (-1: D u set, of n
 * ops). */
static void lf__curve_price(lf__exact *x, const lf_bitset *set, int32_t n_ops, int64_t aux,
                            int32_t t, int once)
{
    lf__curve_dp *c = x->user;
    if (once) {
        lf__curve_price_steps(x, set, n_ops, aux, t);
        return;
    }
    lf_group_cost gc;
    lf_status st = lf_cost_eval(x->cm, set, &gc);
    if (st != LF_OK) {
        x->status = st;
        return;
    }
    if (!gc.valid)
        return;
    /* Every member must be fusable at the buffer where the group is used. */
    int64_t thr = gc.f_beta > aux ? gc.f_beta : aux;
    if (thr >= c->beta_max)
        return;
    int64_t floor = thr > c->beta_min - 1 ? thr : c->beta_min - 1;
    int32_t n = 0;
    if (!gc.wait_resident && gc.reread_bytes == 0 && !gc.attn &&
        (x->resident || gc.weights + gc.features <= floor)) {
        /* One step: a scheme that keeps every weight resident (LBDF), or one
         * that streams them (BRR) with every weight resident wherever the
         * group is valid (gc, priced at the largest buffer, says how much).
         * A group with a squeeze-and-excite wait has a step for each way
         * through it (lf_cost_steps), and so has an attention group, whose
         * K/V are resident or read again per query tile by the buffer. */
        c->steps[0] = (lf_cost_step){thr, lf_cost_objective_value(x->cm, x->sub, x->n_sub, &gc)};
        n = 1;
    } else if ((st = lf__group_steps(x->cm, c, set, x->sub, x->n_sub, &n)) != LF_OK) {
        x->status = st;
        return;
    } else if (n > 0 && c->steps[0].need < gc.f_beta) {
        /* A group with a squeeze-and-excite wait is usable from its
         * smallest step: reading the wait's tensors again needs less than
         * keeping them, the way gc took at the largest buffer (so its F_beta
         * is the keeping way's, and the steps below it are the other's). */
        thr = c->steps[0].need > aux ? c->steps[0].need : aux;
        floor = thr > c->beta_min - 1 ? thr : c->beta_min - 1;
    }
    if (t < 0)
        lf__extend(x, set, n_ops, c->steps, n, floor);
    else
        lf__extend_to(x, t, c->steps, n, floor);
}

static void lf__curve_group(lf__exact *x)
{
    lf__curve_dp *c = x->user;
    if (x->n_sub == 1) {
        lf__extend(x, &x->sbits, 1, c->single[x->sub[0]], c->n_single[x->sub[0]], 0);
        return;
    }
    if (lf__curve_dominated(x)) {
        x->st.groups_skipped++;
        return;
    }
    lf__curve_price(x, &x->sbits, x->n_sub, lf__members_need(x), -1, lf__dp_set_holds_cut(x));
}

/* A group joined at a cut op (cut_join.c): its steps, valid from where
 * every member is fusable too. */
static void lf__curve_join_extend(const lf__exact *x, lf__join_acc *acc, int32_t from,
                                  const lf_cost_step *steps, int32_t n, int64_t aux, int32_t target)
{
    const lf__curve_dp *c = x->user;
    int64_t thr = steps[0].need > aux ? steps[0].need : aux;
    if (thr >= c->beta_max)
        return;
    lf__extend_from(x, acc, from, target, steps, n, thr > c->beta_min - 1 ? thr : c->beta_min - 1);
}

/* A joined group whose sides do not separate: priced whole. */
static void lf__curve_join_whole(lf__exact *x, const lf_bitset *set, int64_t aux, int32_t target)
{
    lf__curve_price(x, set, 0, aux, target, 1);
}

static const lf__join_staircase lf__curve_join = {lf__front_dominated, lf__curve_join_extend,
                                                  lf__curve_join_whole};

static void lf__curve_tail(lf__exact *x, int32_t c)
{
    lf__curve_dp *cd = x->user;
    if (x->cur < cd->n_fronts && cd->fronts[x->cur].n > 0)
        lf__join_tail(x, c, lf__members_need(x), x->resident);
}

/* Joins the heads waiting from the current state with their tails; every
 * front they touch exists first (on several threads, none may grow the
 * array of fronts). */
static void lf__curve_flush(lf__exact *x)
{
    if (x->join && x->n_states > 0 && lf__front_of(x, (int32_t)x->n_states - 1))
        lf__join_flush_steps(x, &lf__curve_join);
}

static void lf__curve_head(lf__exact *x, int32_t c)
{
    lf__curve_dp *cd = x->user;
    lf__join_head_steps(x, c, cd->beta_max, lf__members_need(x));
    /* Where weights stay resident a head is joined as it is grown: the
     * dominance walk (lf__curve_join.dominated) reads the enumeration's
     * scratch of the head. */
    if (x->resident)
        lf__curve_flush(x);
}

static void lf__curve_free(lf__curve_dp *c, int32_t n_ops)
{
    for (int64_t s = 0; s < c->n_fronts; s++) {
        free(c->fronts[s].p);
        free(c->fronts[s].b);
    }
    free(c->fronts);
    if (c->single)
        for (int32_t v = 0; v < n_ops; v++)
            free(c->single[v]);
    free(c->single);
    free(c->n_single);
    free(c->fb1);
    free(c->members);
    free(c->pieces);
    lf_bitset_destroy(&c->key);
}

/* Per-op constants: F_beta alone, and the steps of the op alone. */
static lf_status lf__curve_prepare(lf__curve_dp *c, lf_cost_model *cm)
{
    const lf_graph *g = lf_cost_graph(cm);
    c->fb1 = calloc((size_t)g->n_ops, sizeof *c->fb1);
    c->single = calloc((size_t)g->n_ops, sizeof *c->single);
    c->n_single = calloc((size_t)g->n_ops, sizeof *c->n_single);
    c->members = calloc((size_t)g->n_ops + 1, sizeof *c->members);
    if (c->keep && lf_bitset_init(&c->key, g->n_ops) == LF_OK)
        c->pieces = malloc((LF__ATTN_PIECES + 1) * sizeof *c->pieces);
    if (!c->fb1 || !c->single || !c->n_single || !c->members || (c->keep && !c->pieces))
        return lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    lf_bitset one;
    lf_status st = lf_bitset_init(&one, g->n_ops);
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
        if (g->ops[v].type == LF_OP_INPUT)
            continue;
        lf_group_cost gc;
        lf_bitset_set(&one, v);
        st = lf_cost_eval(cm, &one, &gc);
        lf_bitset_reset(&one, v);
        if (st != LF_OK)
            break;
        c->fb1[v] = gc.f_beta;
        int32_t n = 0;
        st = lf_cost_singleton_steps(cm, v, c->beta_min, c->beta_max, c->steps, LF_COST_MAX_STEPS, &n);
        if (st == LF_OK && lf_cost_objective(cm) != LF_PLAN_OBJ_DRAM) {
            /* the unfusable charges, then the scheme's own steps (above) */
            int64_t fb1 = gc.valid ? gc.f_beta : INT64_MAX;
            int32_t m = 0, more = 0;
            while (m < n && c->steps[m].need < fb1)
                m++;
            int priced = 0; /* c->at holds the walk's prices */
            lf_bitset_set(&one, v);
            /* A lone MatMul tiled by columns: every schedule, since its
             * figure can fall where its F_D does not (lf_cost_op_schedules). */
            if (gc.valid && lf_cost_column_tiled(cm, v))
                st = lf_cost_op_schedules(cm, v, c->beta_max, c->steps + m, LF_COST_MAX_STEPS - m, &more);
            else if (gc.valid)
                st = lf_cost_steps_priced(cm, &one, c->beta_max, c->beta_min, c->steps + m,
                                          c->at + m, LF_COST_MAX_STEPS - m, &more, &priced);
            lf_bitset_reset(&one, v);
            n = m + more;
            if (st == LF_OK)
                st = lf__steps_objective(cm, &v, 1, v, fb1, c->beta_min, c->beta_max, c->steps,
                                         priced ? c->at : NULL, &n);
        }
        if (st == LF_OK && !(c->single[v] = malloc((size_t)(n ? n : 1) * sizeof(lf_cost_step))))
            st = lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
        if (st == LF_OK) {
            memcpy(c->single[v], c->steps, (size_t)n * sizeof(lf_cost_step));
            c->n_single[v] = n;
        }
    }
    lf_bitset_destroy(&one);
    return st;
}

/* The plan of front point (s, i): each step back is one group. */
static lf_status lf__curve_plan(lf__exact *x, int32_t s, int32_t i, lf_plan *out)
{
    lf__curve_dp *c = x->user;
    lf_status st = lf_plan_init(out, x->n);
    if (st != LF_OK)
        return st;
    int32_t gi = 0;
    while (s >= 0 && c->fronts[s].b[i].prev_state >= 0) {
        lf__fback p = c->fronts[s].b[i];
        const uint64_t *a = x->words + (size_t)s * x->nwords;
        const uint64_t *b = x->words + (size_t)p.prev_state * x->nwords;
        for (int32_t v = 0; v < x->n; v++)
            if (((a[v >> 6] & ~b[v >> 6]) >> (v & 63)) & 1u)
                out->group_of[v] = gi;
        gi++;
        s = p.prev_state;
        i = p.prev_idx;
    }
    out->n_groups = gi;
    lf_plan_canonicalize(out);
    return LF_OK;
}

lf_status lf__curve_run(const lf_graph *g, const lf_hw *hw, const char *scheme, int64_t beta_min,
                        int64_t beta_max, const lf_exact_config *cfg, lf_steps_store *keep, int64_t range_min,
                        int64_t range_max, lf_curve *out)
{
    memset(out, 0, sizeof *out);
    out->beta_min = beta_min;
    out->beta_max = beta_max;
    if (beta_min < 1 || beta_max <= beta_min)
        return lf_set_error(LF_EINVAL, "curve: the buffer range [%lld, %lld] B is empty",
                            (long long)beta_min, (long long)beta_max);
    lf_hw h = *hw;
    if (cfg && cfg->objective != 0) /* energy: one SRAM figure (curve.h) */
        lf_curve_fix_sram(&h);
    h.buffer_bytes = beta_max;
    lf_cost_model *cm = NULL;
    lf_status st = lf_cost_model_create(&cm, g, &h, scheme);
    if (st == LF_OK)
        st = lf_cost_set_objective(cm, (lf_plan_objective)(cfg ? cfg->objective : 0));
    if (st != LF_OK) {
        lf_cost_model_free(cm);
        return st;
    }
    lf__curve_dp c;
    memset(&c, 0, sizeof c);
    c.beta_min = beta_min;
    c.beta_max = beta_max;
    c.keep = keep;
    c.range_min = range_min;
    c.range_max = range_max;
    lf__exact x;
    st = lf__dp_setup(&x, cm, NULL, cfg);
    if (st == LF_OK && x.cfg.memory_limit > 0)
        lf_cost_memo_limit(cm, x.cfg.memory_limit / 2);
    if (st == LF_OK)
        st = lf__curve_prepare(&c, cm);
    int32_t goal = -1;
    if (st == LF_OK) {
        x.user = &c;
        x.on_group = lf__curve_group;
        x.on_forced = lf__curve_forced;
        x.on_tail = lf__curve_tail;
        x.on_head = lf__curve_head;
        x.on_expanded = lf__curve_flush;
        /* Joins at cut ops (cut_join.c), under any objective. */
        x.join_cuts = x.n_cuts > 0;
        if (x.join_cuts && (st = lf__join_create(&x)) != LF_OK)
            x.status = st;
        /* Workers for the joined pairs, which are nearly all of the time
         * where weights stream (BRR); same result with any count. */
        int32_t nt = lf_pool_default_threads(x.cfg.threads);
        if (x.status == LF_OK && x.join_cuts && !x.resident && nt > 1 &&
            (st = lf_pool_create(&x.pool, nt)) != LF_OK)
            x.status = st;
        /* The empty set's one point: no DRAM, feasible from the minimum on. */
        uint64_t *empty = calloc((size_t)x.nwords, 8);
        int32_t start = empty ? lf__dp_state(&x, empty, 0) : -1;
        free(empty);
        lf__front *f = start >= 0 ? lf__front_of(&x, start) : NULL;
        lf__join_acc acc = {0};
        if (f)
            lf__front_add(&acc, f, 0, beta_min - 1, 0, -1, -1, 0);
        if (acc.status != LF_OK)
            x.status = acc.status;
        else if (!f && x.status == LF_OK)
            x.status = lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
        if (x.status == LF_OK)
            goal = lf__dp_run(&x);
        lf__join_free(&x);
        out->threads = x.pool ? lf_pool_threads(x.pool) : 1;
        if (x.pool) {
            lf_pool_stats ps;
            lf_pool_get_stats(x.pool, &ps);
            out->batches = ps.batches;
            out->parallel_batches = ps.parallel_batches;
        }
        lf_pool_free(x.pool);
        x.pool = NULL;
        st = x.status;
    }
    if (st == LF_OK && (goal < 0 || goal >= c.n_fronts || c.fronts[goal].n == 0))
        st = lf_set_error(LF_EPLAN, "curve: no plan of '%s'", g->name);
    if (st == LF_OK) {
        lf__front *f = &c.fronts[goal];
        out->points = calloc((size_t)f->n, sizeof *out->points);
        if (!out->points)
            st = lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
        for (int32_t i = 0; i < f->n && st == LF_OK; i++) {
            lf_curve_point *p = &out->points[i];
            p->beta = f->p[i].need + 1 > beta_min ? f->p[i].need + 1 : beta_min;
            p->dram_all = f->p[i].dram;
            st = lf__curve_plan(&x, goal, i, &p->plan);
            out->n = i + 1;
        }
    }
    out->stats = x.st;
    for (int64_t s = 0; s < c.n_fronts; s++)
        out->front_points += c.fronts[s].n;
    lf__curve_free(&c, g->n_ops);
    lf__dp_teardown(&x);
    lf_cost_model_free(cm);
    if (st != LF_OK)
        lf_curve_destroy(out);
    return st;
}

void lf_curve_destroy(lf_curve *c)
{
    for (int32_t i = 0; i < c->n; i++)
        lf_plan_destroy(&c->points[i].plan);
    free(c->points);
    c->points = NULL;
    c->n = 0;
}

int64_t lf_curve_dram_at(const lf_curve *c, int64_t beta)
{
    if (beta < c->beta_min || beta > c->beta_max || c->n == 0)
        return -1;
    int32_t k = 0;
    while (k + 1 < c->n && c->points[k + 1].beta <= beta)
        k++;
    return c->points[k].dram_all;
}

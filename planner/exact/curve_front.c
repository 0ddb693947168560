/* The Pareto fronts of the staircase's DP (see curve_front.h): finding,
 * inserting and extending points, and the dominance walk that lets a
 * group go unpriced. */
#include "planner/exact/curve_front.h"

#include <stdlib.h>
#include <string.h>

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

/* Grows the arrays p and b of *cap points to hold at least `need`,
 * doubling from *cap (or `first`); 0 (and acc's failure) when memory runs
 * out, the arrays as they were. */
static int lf__points_room(lf__join_acc *acc, lf__fpoint **p, lf__fback **b, int32_t *cap, int32_t need,
                           int32_t first)
{
    int32_t c = *cap ? *cap : first;
    while (c < need)
        c *= 2;
    lf__fpoint *np = realloc(*p, (size_t)c * sizeof *np);
    if (np)
        *p = np;
    lf__fback *nb = np ? realloc(*b, (size_t)c * sizeof *nb) : NULL;
    if (!nb) {
        lf__join_acc_fail(acc, lf_set_error(LF_ENOMEM, "out of memory in the curve planner"));
        return 0;
    }
    *b = nb;
    *cap = c;
    return 1;
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
        int32_t old = f->cap;
        if (!lf__points_room(acc, &f->p, &f->b, &f->cap, f->n + grow, 4))
            return 0;
        acc->bytes += (int64_t)(f->cap - old) * (int64_t)(sizeof *f->p + sizeof *f->b);
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
int32_t lf__front_add(lf__join_acc *acc, lf__front *f, int64_t dram, int64_t need, int32_t groups,
                      int32_t ps, int32_t pi, int32_t from)
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
 * lf__front_extend walks) offer could enter front `to`: each offered point
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

/* Fronts of fewer points than this take an offer by shifting the points
 * after it. A larger one does so until the offers kept have shifted this
 * many times as many points as it holds, and is then rebuilt by a merge: a
 * merge copies the whole front into new arrays, which costs more where an
 * extension adds a few points near its end (Inception-v3 BRR DRAM), and
 * far less where it adds hundreds (Llama-3-8B); from 4 times, Inception-v3
 * BRR DRAM 64 KB - 1 MB runs as without merges. */
/* Most points offered without a block test after tests in a row fail:
 * 2^LF__BLOCK_WAIT - 1 (lf__front_extend). */
#define LF__BLOCK_WAIT 4

#define LF__MERGE_FROM 64
#define LF__MERGE_AFTER 4

/* A front being rebuilt by one extension from its first point added on:
 * the old points (read from t on) and the offers, both by ascending need,
 * merged into new arrays, so that an offer shifts none of the points after
 * it (an extension adds hundreds of points to fronts of thousands:
 * Llama-3-8B four layers BRR energy added 24.5 million points, each shifting
 * 177 on average). The result is that of adding the offers one by one. */
typedef struct lf__merge {
    lf__fpoint *p;
    lf__fback *b;
    int32_t n, cap;
    int32_t t; /* the next old point to move */
} lf__merge;

/* Makes room for `more` points in m; 0 (and acc's failure) when memory
 * runs out. */
static int lf__merge_room(lf__join_acc *acc, lf__merge *m, int32_t more)
{
    return m->n + more <= m->cap || lf__points_room(acc, &m->p, &m->b, &m->cap, m->n + more, 64);
}

/* Moves the old points t..e-1 to the end of m, as one block. */
static int lf__merge_move(lf__join_acc *acc, const lf__front *to, lf__merge *m, int32_t e)
{
    int32_t k = e - m->t;
    if (k <= 0)
        return 1;
    if (!lf__merge_room(acc, m, k))
        return 0;
    memcpy(m->p + m->n, to->p + m->t, (size_t)k * sizeof *m->p);
    memcpy(m->b + m->n, to->b + m->t, (size_t)k * sizeof *m->b);
    m->n += k;
    m->t = e;
    return 1;
}

/* Offers (dram, need) of a plan of `groups` groups to the merge of front
 * to, by lf__front_add's rules: the old points needing no more go first;
 * the last point then beats it or not; it replaces a point of its need, and
 * drops the old points after it that cost as much or more. */
static void lf__merge_offer(lf__join_acc *acc, const lf__front *to, lf__merge *m, int64_t dram, int64_t need,
                            int32_t groups, int32_t ps, int32_t pi)
{
    int32_t e = m->t;
    while (e < to->n && to->p[e].need <= need)
        e++;
    if (!lf__merge_move(acc, to, m, e))
        return;
    if (m->n > 0) {
        const lf__fpoint *q = &m->p[m->n - 1];
        if (q->dram < dram || (q->dram == dram && (q->need < need || m->b[m->n - 1].groups <= groups)))
            return;
        if (q->need == need)
            m->n--;
    }
    if (!lf__merge_room(acc, m, 1))
        return;
    m->p[m->n] = (lf__fpoint){dram, need};
    m->b[m->n] = (lf__fback){ps, pi, groups};
    m->n++;
    while (m->t < to->n && to->p[m->t].dram >= dram)
        m->t++;
}

/* Ends the merge: the old points left, then the new arrays in place of
 * the old. */
static void lf__merge_end(lf__join_acc *acc, lf__front *to, lf__merge *m)
{
    if (acc->status == LF_OK)
        lf__merge_move(acc, to, m, to->n);
    if (acc->status != LF_OK) {
        free(m->p);
        free(m->b);
        return;
    }
    acc->bytes += (int64_t)(m->cap - to->cap) * (int64_t)(sizeof *m->p + sizeof *m->b);
    free(to->p);
    free(to->b);
    to->p = m->p;
    to->b = m->b;
    to->n = m->n;
    to->cap = m->cap;
}

void lf__front_extend(lf__join_acc *acc, const lf__front *src_front, int32_t from, lf__front *to,
                      const lf_cost_step *steps, int32_t n_steps, int64_t lo)
{
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
    const lf__fpoint *src = src_front->p; /* another front: inserting never moves it */
    const lf__fback *src_b = src_front->b;
    int32_t n = src_front->n;
    int32_t kk = k0; /* steps k0..kk-1 need no more than the point */
    int32_t at = 0;  /* where the last point offered went (they come by ascending need) */
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
     * beaten later too (fronts only improve), so the result is the same,
     * whichever blocks are tried.
     * Where the runs are short a test of two points mostly fails (bert_base
     * LBDF energy: 18.3 million tests, 2.4 million beaten) and costs as
     * much as offering the point: after a test down to one point fails,
     * the next 2^misses - 1 points (misses in a row since the last block
     * beaten, at most LF__BLOCK_WAIT) and the point after one that kept an
     * offer are offered without one (3.9 million tests, 2.7 million more
     * offers). */
    int32_t w = 2, l = k0, wait = 0, misses = 0;
    lf__merge m = {NULL, NULL, 0, 0, 0};
    int merging = 0;
    int64_t shifted = 0; /* points the offers kept in place shifted */
    for (int32_t i = i0; i < n && acc->status == LF_OK;) {
        if (w > 1) {
            int32_t b = n - i > w ? i + w : n;
            if (lf__block_beaten(to, src, i, b, n, steps, k0, n_steps, lo, first_need, &l, &at)) {
                i = b;
                w *= 2;
                misses = 0;
            } else if ((w /= 2) == 1) {
                misses += misses < LF__BLOCK_WAIT;
                wait = (1 << misses) - 1;
            }
            continue;
        }
        lf__fpoint p = src[i];
        int32_t groups = src_b[i].groups + 1;
        int64_t next_need = i + 1 < n ? src[i + 1].need : INT64_MAX;
        while (kk < n_steps && lf__step_need(&steps[kk], lo) <= p.need)
            kk++;
        int kept = 0; /* an offer of this point entered the front */
        /* (i, k) for the last step below the point, and for each step
         * above the point whose last point below it is i: the steps needing
         * less than the next point (needs ascend, so a run from kk). */
        for (int32_t k = kk > k0 ? kk - 1 : kk; k < n_steps && acc->status == LF_OK; k++) {
            int64_t need_k = k < kk ? p.need : lf__step_need(&steps[k], lo);
            if (need_k >= next_need)
                break;
            int64_t dram = p.dram + steps[k].f_d;
            if (merging) {
                lf__merge_offer(acc, to, &m, dram, need_k, groups, from, i);
                kept = 1; /* or not: the merge does not say */
                continue;
            }
            /* Most points offered are beaten where they would go. */
            int32_t j = lf__front_find(to, need_k, at);
            if (lf__front_beats(to, j, dram, need_k, groups)) {
                at = j - 1;
            } else if (to->n < LF__MERGE_FROM || shifted < LF__MERGE_AFTER * (int64_t)to->n) {
                shifted += to->n - j;
                kept = 1;
                at = lf__front_insert(acc, to, j, dram, need_k, groups, from, i);
            } else {
                /* The old front stays as it is while the merge reads it:
                 * the blocks and hints above look at it, and what beats an
                 * offer there beats it in the merge too (a point it drops
                 * is beaten by the one that drops it). */
                merging = lf__merge_room(acc, &m, to->n + 64);
                kept = 1;
                if (merging)
                    lf__merge_offer(acc, to, &m, dram, need_k, groups, from, i);
            }
        }
        i++;
        if (kept && wait == 0)
            wait = 1;
        w = wait > 0 ? 1 : 2;
        wait -= wait > 0;
    }
    if (merging)
        lf__merge_end(acc, to, &m);
}

int lf__front_dominated(const lf__front *from, const lf__front *to, int64_t need, int64_t floor)
{
    if (to->n == 0)
        return 0;
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

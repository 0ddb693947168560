/* Parts of the range solved a pass ahead (see curve_ahead.h).
 *
 * lf_curve_compute solves the range pass by pass: a part's plans are
 * checked once it is solved (lf__curve_plan_rises), and where one of them
 * holds a group priced above the DP's charge, the part is cut at that
 * group's rises and the parts between the cuts are solved in the next
 * pass, one enumeration of every state and group for the pass. bert_base
 * BRR energy 64 KB - 4 MB: its second pass asks for [2,572,289,
 * 2,575,364], a rise of a group that the first pass's check had seen
 * priced above its charge, and a third pass, 1.4 s of 10.1, enumerates the
 * 1.5 million groups again for that one part.
 *
 * Here, with a part asked for, the parts its hints (such rises inside it)
 * would make are solved too, in the same run: for hints h_1 < .. < h_k
 * inside [lo, hi], every [h_i, h_j] and [h_i, hi]. Whatever cuts the part's
 * check asks for among its hints, the parts they make are among these.
 * Each costs its own fronts in a run that enumerates anyway, and none is
 * used but where a later pass asks for exactly its buffers.
 *
 * Why a part solved ahead is the part a later pass would solve: a run
 * gives each part the staircase of its own run (lf__curve_run: every part
 * has its own fronts, priced by its own cost model at its largest buffer,
 * and parts share a run only where they are of one class, so the shared
 * enumeration offers each its groups in the order its own would), whatever
 * the other parts are, overlapping or not. A run whose parts are not of one
 * class solves nothing here, and the parts are solved as ever. */
#include "planner/exact/curve_ahead.h"

#include <stdlib.h>
#include <string.h>

#include "planner/exact/curve_run.h"

int lf__ahead_take(lf__ahead *a, int64_t lo, int64_t hi, lf_curve *out)
{
    for (int32_t i = 0; i < a->n; i++)
        if (a->p[i].lo == lo && a->p[i].hi == hi) {
            *out = a->p[i].curve;
            a->p[i] = a->p[--a->n];
            return 1;
        }
    return 0;
}

void lf__ahead_free(lf__ahead *a)
{
    for (int32_t i = 0; i < a->n; i++)
        lf_curve_destroy(&a->p[i].curve);
    free(a->p);
    memset(a, 0, sizeof *a);
}

static lf_status lf__ahead_put(lf__ahead *a, int64_t lo, int64_t hi, lf_curve *c)
{
    if (a->n == a->cap) {
        int32_t cap = a->cap ? 2 * a->cap : 16;
        lf__ahead_part *p = realloc(a->p, (size_t)cap * sizeof *p);
        if (!p) {
            lf_curve_destroy(c);
            return lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
        }
        a->p = p;
        a->cap = cap;
    }
    a->p[a->n++] = (lf__ahead_part){lo, hi, *c};
    return LF_OK;
}

/* A part of the run: its buffers and where it comes from (>= 0: the asked
 * part; -1: solved ahead). */
typedef struct lf__ahead_run {
    int64_t lo, hi;
    int32_t asked;
} lf__ahead_run;

/* Adds part [lo, hi] to run unless it is there already or there is no
 * room; 0 where there is none. */
static int lf__ahead_add(lf__ahead_run *run, int32_t *n, int64_t lo, int64_t hi, int32_t asked)
{
    for (int32_t i = 0; i < *n; i++)
        if (run[i].lo == lo && run[i].hi == hi)
            return 1;
    if (*n == LF__CURVE_PARTS)
        return 0;
    run[(*n)++] = (lf__ahead_run){lo, hi, asked};
    return 1;
}

/* The largest buffer last (the run enumerates under it), then by the
 * smallest. */
static int lf__ahead_cmp(const void *a, const void *b)
{
    const lf__ahead_run *x = a, *y = b;
    if (x->hi != y->hi)
        return (x->hi > y->hi) - (x->hi < y->hi);
    return (x->lo > y->lo) - (x->lo < y->lo);
}

lf_status lf__ahead_solve(const lf_graph *g, const lf_hw *hw, const char *scheme, const int64_t *bounds,
                          const int64_t *hints, const int32_t *n_hints, int32_t n, const lf_exact_config *cfg,
                          lf_steps_store *keep, int64_t range_min, int64_t range_max, lf__ahead *a,
                          lf_curve *outs, int *solved)
{
    *solved = 0;
    /* Where the store is full, each part prices the attention groups not
     * kept on its own: a part ahead costs about what the pass it may save
     * does (bert_base BRR energy at --memory-limit 200MB: 32.4 s without
     * parts ahead, 34.4 s with). */
    if (keep && lf_steps_store_full(keep))
        return LF_OK;
    lf__ahead_run run[LF__CURVE_PARTS];
    int32_t m = 0;
    for (int32_t k = 0; k < n; k++)
        if (!lf__ahead_add(run, &m, bounds[2 * k], bounds[2 * k + 1], k) || run[m - 1].asked != k)
            return LF_OK; /* asked twice: as ever */
    int ahead = 0;
    for (int32_t k = 0; k < n; k++) {
        const int64_t *h = hints + (size_t)k * LF__AHEAD_HINTS;
        for (int32_t i = 0; i < n_hints[k]; i++)
            for (int32_t j = i + 1; j <= n_hints[k]; j++)
                ahead |= lf__ahead_add(run, &m, h[i], j < n_hints[k] ? h[j] : bounds[2 * k + 1], -1);
    }
    if (!ahead || m == n)
        return LF_OK;
    qsort(run, (size_t)m, sizeof *run, lf__ahead_cmp);
    int64_t b[2 * LF__CURVE_PARTS] = {0};
    int32_t cls[LF__CURVE_PARTS];
    lf_curve *got = malloc((size_t)m * sizeof *got);
    if (!got)
        return LF_OK; /* as ever, with less memory */
    for (int32_t i = 0; i < m; i++) {
        b[2 * i] = run[i].lo;
        b[2 * i + 1] = run[i].hi;
    }
    lf_status st = lf__curve_run(g, hw, scheme, b, m, cfg, keep, range_min, range_max, got, cls);
    int one = st == LF_OK;
    for (int32_t i = 0; i < m && one; i++)
        one = cls[i] == 0;
    if (!one) {
        /* Not one class, or a run with more fronts than the limits allow:
         * nothing solved (got is empty), the parts are solved as ever. */
        free(got);
        lf_clear_error();
        return LF_OK;
    }
    /* The run's figures (the first part's) go with the first part asked,
     * as lf__curve_run gives them. */
    int32_t first = 0;
    while (run[first].asked != 0)
        first++;
    if (first != 0) {
        lf_curve tmp = got[0];
        got[0].stats = got[first].stats;
        got[0].batches = got[first].batches;
        got[0].parallel_batches = got[first].parallel_batches;
        got[first].stats = tmp.stats;
        got[first].batches = tmp.batches;
        got[first].parallel_batches = tmp.parallel_batches;
    }
    for (int32_t i = 0; i < m; i++) {
        if (run[i].asked >= 0)
            outs[run[i].asked] = got[i];
        else if (st == LF_OK)
            st = lf__ahead_put(a, run[i].lo, run[i].hi, &got[i]);
        else
            lf_curve_destroy(&got[i]);
    }
    free(got);
    if (st != LF_OK)
        for (int32_t k = 0; k < n; k++)
            lf_curve_destroy(&outs[k]);
    *solved = st == LF_OK;
    return st;
}

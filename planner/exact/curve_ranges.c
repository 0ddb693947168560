/* The whole staircase (lf_curve_compute): one DP (curve.c) over the range,
 * or over its parts where some price rises inside it (curve_rises.c), the
 * parts of a pass in one run where they can share it, with the parts the
 * next pass may ask for solved ahead (curve_ahead.c), the parts' points
 * in order of their buffers, one per change of figure (curve_canon.c). */
#include "planner/exact/curve.h"

#include <stdlib.h>
#include <string.h>

#include "planner/cost/objective.h"
#include "planner/exact/curve_ahead.h"
#include "planner/exact/curve_rises.h"
#include "planner/exact/curve_run.h"

/* Appends the points of part (solved over a range ending at hi; its points
 * from hi on belong to the next range unless `last`) and its figures to
 * out, and empties part. */
static lf_status lf__curve_append(lf_curve *out, lf_curve *part, int64_t hi, int last)
{
    lf_curve_point *p = realloc(out->points, ((size_t)out->n + (size_t)part->n) * sizeof *p);
    if (!p) {
        lf_curve_destroy(part);
        return lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    }
    out->points = p;
    for (int32_t k = 0; k < part->n; k++) {
        if (!last && part->points[k].beta >= hi) {
            lf_plan_destroy(&part->points[k].plan);
            continue;
        }
        out->points[out->n++] = part->points[k];
    }
    free(part->points);
    part->points = NULL;
    part->n = 0;
    out->stats.states += part->stats.states;
    out->stats.candidates += part->stats.candidates;
    out->stats.groups += part->stats.groups;
    out->stats.groups_skipped += part->stats.groups_skipped;
    out->stats.wall_s += part->stats.wall_s;
    if (part->stats.memory_bytes > out->stats.memory_bytes)
        out->stats.memory_bytes = part->stats.memory_bytes;
    out->front_points += part->front_points;
    out->threads = part->threads > out->threads ? part->threads : out->threads;
    out->batches += part->batches;
    out->parallel_batches += part->parallel_batches;
    return LF_OK;
}

/* Most cuts one range's plans may ask for (lf__curve_plan_rises). */
#define LF__PLAN_CUTS 4096

/* Most hints one range's check gives (lf__curve_plan_rises). */
#define LF__PLAN_HINTS 64

/* A part of the range to solve: [lo, hi], the range's last when `last`
 * (else its points from hi on are the next part's); cap: most cuts its
 * plans may ask for; hint: where its own plans may ask for cuts
 * (curve_ahead.h), n_hint of them. */
typedef struct lf__task {
    int64_t lo, hi;
    int32_t last, cap, n_hint;
    int64_t hint[LF__AHEAD_HINTS];
} lf__task;

/* A part solved: its points below `below` (every one when `last`) stand. */
typedef struct lf__solved {
    lf_curve curve;
    int64_t below;
    int32_t last;
} lf__solved;

typedef struct lf__tasks {
    lf__task *t;
    int32_t n, cap;
} lf__tasks;

/* Adds part [lo, hi]; hints (n of them, ascending): the check's, of which
 * those inside the part are its own (none where they are more than
 * LF__AHEAD_HINTS). */
static lf_status lf__task_push(lf__tasks *ts, int64_t lo, int64_t hi, int32_t last, int32_t cap,
                               const int64_t *hints, int32_t n)
{
    if (hi <= lo) /* no part is a single byte: its buffer is the part before's */
        return LF_OK;
    if (ts->n == ts->cap) {
        int32_t c = ts->cap ? 2 * ts->cap : 16;
        lf__task *t = realloc(ts->t, (size_t)c * sizeof *t);
        if (!t)
            return lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
        ts->t = t;
        ts->cap = c;
    }
    lf__task *t = &ts->t[ts->n++];
    memset(t, 0, sizeof *t);
    t->lo = lo;
    t->hi = hi;
    t->last = last;
    t->cap = cap;
    int32_t in = 0;
    for (int32_t i = 0; i < n; i++)
        in += hints[i] > lo && hints[i] < hi;
    for (int32_t i = 0; i < n && in <= LF__AHEAD_HINTS; i++)
        if (hints[i] > lo && hints[i] < hi)
            t->hint[t->n_hint++] = hints[i];
    return LF_OK;
}

/* Solves parts t[0..n) (at most LF__CURVE_PARTS) into outs: in one run,
 * or one run per class of parts that can share one (lf__curve_run). */
static lf_status lf__solve_parts(const lf_graph *g, const lf_hw *hw, const char *scheme, const lf__task *t,
                                 int32_t n, const lf_exact_config *cfg, lf_steps_store *keep, int64_t range_min,
                                 int64_t range_max, lf_curve *outs)
{
    int64_t bounds[2 * LF__CURVE_PARTS], sub[2 * LF__CURVE_PARTS];
    int32_t cls[LF__CURVE_PARTS], at[LF__CURVE_PARTS], one[LF__CURVE_PARTS];
    lf_curve got[LF__CURVE_PARTS];
    for (int32_t k = 0; k < n; k++) {
        bounds[2 * k] = t[k].lo;
        bounds[2 * k + 1] = t[k].hi;
    }
    lf_status st = lf__curve_run(g, hw, scheme, bounds, n, cfg, keep, range_min, range_max, outs, cls);
    int solved = 1;
    for (int32_t k = 0; k < n; k++)
        solved &= cls[k] == 0;
    for (int32_t r = 0; r < n && st == LF_OK && !solved; r++) {
        if (cls[r] != r)
            continue;
        int32_t m = 0;
        for (int32_t k = r; k < n; k++)
            if (cls[k] == r) {
                sub[2 * m] = bounds[2 * k];
                sub[2 * m + 1] = bounds[2 * k + 1];
                at[m++] = k;
            }
        st = lf__curve_run(g, hw, scheme, sub, m, cfg, keep, range_min, range_max, got, one);
        for (int32_t j = 0; j < m; j++)
            outs[at[j]] = got[j];
    }
    if (st != LF_OK)
        for (int32_t k = 0; k < n; k++)
            lf_curve_destroy(&outs[k]);
    return st;
}

/* Solves parts t[0..n) (at most LF__CURVE_PARTS) into outs: those solved
 * ahead from a, the others with the parts their hints make, solved ahead
 * into a (curve_ahead.c), or as ever (lf__solve_parts). */
static lf_status lf__solve_some(const lf_graph *g, const lf_hw *hw, const char *scheme, const lf__task *t,
                                int32_t n, const lf_exact_config *cfg, lf_steps_store *keep, int64_t range_min,
                                int64_t range_max, lf__ahead *a, lf_curve *outs)
{
    lf__task rest[LF__CURVE_PARTS];
    int64_t bounds[2 * LF__CURVE_PARTS], hints[LF__CURVE_PARTS * LF__AHEAD_HINTS];
    int32_t n_hints[LF__CURVE_PARTS], at[LF__CURVE_PARTS], m = 0;
    for (int32_t k = 0; k < n; k++) {
        if (lf__ahead_take(a, t[k].lo, t[k].hi, &outs[k]))
            continue;
        rest[m] = t[k];
        bounds[2 * m] = t[k].lo;
        bounds[2 * m + 1] = t[k].hi;
        memcpy(hints + (size_t)m * LF__AHEAD_HINTS, t[k].hint, sizeof t[k].hint);
        n_hints[m] = t[k].n_hint;
        at[m++] = k;
    }
    if (m == 0)
        return LF_OK;
    lf_curve got[LF__CURVE_PARTS];
    int solved = 0;
    lf_status st = lf__ahead_solve(g, hw, scheme, bounds, hints, n_hints, m, cfg, keep, range_min, range_max, a,
                                   got, &solved);
    if (st == LF_OK && !solved)
        st = lf__solve_parts(g, hw, scheme, rest, m, cfg, keep, range_min, range_max, got);
    for (int32_t j = 0; j < m; j++)
        outs[at[j]] = st == LF_OK ? got[j] : (lf_curve){0};
    if (st != LF_OK)
        for (int32_t k = 0; k < n; k++)
            lf_curve_destroy(&outs[k]);
    return st;
}

/* Solves each part of `pass_parts`; where a plan of a part's staircase holds a
 * group of several ops whose price rises above its charge while that plan
 * holds, only those dirty stretches (curve_rises.h) are solved again, each
 * cut at the part's cuts inside it into parts for `next`, and the part's
 * points stand elsewhere
 * (lf__curve_keep_clean says why they are exact). Solving again the whole
 * part from its first cut on, as before, solved most of bert_base's front
 * points (LBDF energy) only to drop them. That older way stays for a part
 * whose last stretch starts at its top, which no part of more than one byte
 * can cover: cut at its rises (curve_rises.h) from the first cut c on,
 * those parts to `next`, and below c the points found stand, as a DP over
 * [lo, c] would find them:
 *  - the DP charges a group at each buffer the least of its prices from lo
 *    up to there, whatever the part's top, and a step needing c or more
 *    only makes points needing as much, which beat no point needing less:
 *    the front points needing less than c are the same either way;
 *  - a plan found rises below c only where one of its groups prices above
 *    its charge there, which takes a rise of that group's price below c,
 *    and every rise of such a group is a cut: none is below c, so solved
 *    over [lo, c] no plan would ask for a cut either.
 * The parts of one pass share their runs (lf__curve_run). */
static lf_status lf__solve_pass(const lf_graph *g, const lf_hw *hw, const char *scheme, const lf__tasks *pass_parts,
                                const lf_exact_config *cfg, lf_steps_store *keep, int64_t range_min,
                                int64_t range_max, lf__ahead *ahead, lf__solved *done, int32_t *n_done,
                                lf__tasks *next)
{
    int64_t hints[LF__PLAN_HINTS];
    int32_t n_hints = 0;
    int64_t *cuts = malloc(((2 + LF_COST_MAX_STEPS) * (size_t)g->n_ops + 2 + LF__PLAN_CUTS) * sizeof *cuts);
    lf_curve *outs = malloc(LF__CURVE_PARTS * sizeof *outs);
    lf__stretches dirty = {NULL, 0, 0};
    lf_status st = cuts && outs ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    for (int32_t a = 0; a < pass_parts->n && st == LF_OK; a += LF__CURVE_PARTS) {
        int32_t m = pass_parts->n - a < LF__CURVE_PARTS ? pass_parts->n - a : LF__CURVE_PARTS;
        st = lf__solve_some(g, hw, scheme, pass_parts->t + a, m, cfg, keep, range_min, range_max, ahead, outs);
        for (int32_t k = 0; k < m; k++) {
            const lf__task *t = &pass_parts->t[a + k];
            int32_t n_cuts = 0;
            int64_t top = t->last ? t->hi : t->hi - 1;
            if (st == LF_OK)
                st = lf__curve_plan_rises(g, hw, scheme, cfg, &outs[k], t->lo, t->hi, top, cuts, &n_cuts, t->cap,
                                          hints, &n_hints, LF__PLAN_HINTS, &dirty);
            /* Only the dirty stretches are solved again, each as [x, y + 1]
             * (no part is a single byte), which needs x below hi. */
            int clean = st == LF_OK && n_cuts > 0 && dirty.n > 0 && dirty.at[dirty.n - 1][0] < t->hi;
            if (clean)
                st = lf__curve_keep_clean(&outs[k], &dirty, top);
            if (st != LF_OK) {
                lf_curve_destroy(&outs[k]);
                continue;
            }
            if (clean) {
                done[(*n_done)++] = (lf__solved){outs[k], t->hi, t->last};
                for (int32_t i = 0; i < dirty.n && st == LF_OK; i++) {
                    int64_t y = dirty.at[i][1] + 1, x = dirty.at[i][0];
                    int32_t last = y >= t->hi && t->last;
                    if (y > t->hi)
                        y = t->hi;
                    /* The stretch cut at the part's cuts inside it: solved
                     * whole, its plans price the same groups above their
                     * charge again from their next rise on, and it came back
                     * a rise shorter each pass (bert_base LBDF energy: nine
                     * passes of four stretches, each starting 128 B to
                     * 1.5 KB above the last; docs/results/energy.md). */
                    for (int32_t r = 0; r < n_cuts && st == LF_OK; r++)
                        if (cuts[r] > x && cuts[r] < y) {
                            st = lf__task_push(next, x, cuts[r], 0, LF__PLAN_CUTS, hints, n_hints);
                            x = cuts[r];
                        }
                    if (st == LF_OK)
                        st = lf__task_push(next, x, y, last, LF__PLAN_CUTS, hints, n_hints);
                }
                continue;
            }
            done[(*n_done)++] = (lf__solved){outs[k], n_cuts > 0 ? cuts[0] : t->hi, t->last && n_cuts == 0};
            for (int32_t r = 0; r < n_cuts && st == LF_OK; r++)
                st = lf__task_push(next, cuts[r], r + 1 < n_cuts ? cuts[r + 1] : t->hi, t->last && r + 1 == n_cuts,
                                   LF__PLAN_CUTS, hints, n_hints);
        }
    }
    free(dirty.at);
    free(cuts);
    free(outs);
    return st;
}

static int lf__point_cmp(const void *a, const void *b)
{
    int64_t x = ((const lf_curve_point *)a)->beta, y = ((const lf_curve_point *)b)->beta;
    return (x > y) - (x < y);
}

static int lf__solved_cmp(const void *a, const void *b)
{
    int64_t x = ((const lf__solved *)a)->curve.beta_min, y = ((const lf__solved *)b)->curve.beta_min;
    return (x > y) - (x < y);
}

/* Solves `pass_parts` and the parts their plans ask for, pass after pass, and
 * appends their points to out in the order of their buffers. */
static lf_status lf__solve_all(const lf_graph *g, const lf_hw *hw, const char *scheme, lf__tasks *pass_parts,
                               const lf_exact_config *cfg, lf_steps_store *keep, int64_t range_min,
                               int64_t range_max, lf_curve *out)
{
    lf__solved *done = NULL;
    lf__ahead ahead = {NULL, 0, 0};
    int32_t n_done = 0, cap_done = 0;
    lf_status st = LF_OK;
    while (pass_parts->n > 0 && st == LF_OK) {
        if (n_done + pass_parts->n > cap_done) {
            cap_done = 2 * (n_done + pass_parts->n);
            lf__solved *d = realloc(done, (size_t)cap_done * sizeof *d);
            if (!d) {
                st = lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
                break;
            }
            done = d;
        }
        lf__tasks next = {NULL, 0, 0};
        st = lf__solve_pass(g, hw, scheme, pass_parts, cfg, keep, range_min, range_max, &ahead, done, &n_done,
                            &next);
        free(pass_parts->t);
        *pass_parts = next;
    }
    lf__ahead_free(&ahead);
    /* Parts are apart, but a part's stretches solved again lie between its
     * points: the points, each at a buffer of its own, go by their buffers. */
    if (n_done > 1)
        qsort(done, (size_t)n_done, sizeof *done, lf__solved_cmp);
    for (int32_t k = 0; k < n_done; k++) {
        if (st == LF_OK)
            st = lf__curve_append(out, &done[k].curve, done[k].below, done[k].last);
        else
            lf_curve_destroy(&done[k].curve);
    }
    if (st == LF_OK && out->n > 1)
        qsort(out->points, (size_t)out->n, sizeof *out->points, lf__point_cmp);
    free(done);
    return st;
}

/* The store's share of the memory limit: a quarter (1 GB at the default
 * 4 GB; the cost memo has half, docs/search.md "Limits"), beside what the
 * limit counts; the default's quarter when there is no limit. Its
 * size is the time of the staircases whose groups are mostly distinct:
 * llama3_8b `--layers 2 --seq-len 256` BRR energy 64 KB - 4 MB, whose
 * attention groups filled 256 MB after 673,536 of them and were priced
 * again in every part, 63.8 -> 31.2 s at 1 GB (docs/results/energy.md). */
static int64_t lf__curve_store_bytes(const lf_exact_config *cfg)
{
    int64_t limit = cfg->memory_limit > 0 ? cfg->memory_limit : LF_EXACT_DEFAULT_MEMORY;
    return limit / 4;
}

lf_status lf_curve_compute(const lf_graph *g, const lf_hw *hw, const char *scheme, int64_t beta_min,
                           int64_t beta_max, const lf_exact_config *cfg, lf_curve *out)
{
    int64_t whole[2] = {beta_min, beta_max};
    int32_t cls = 0;
    if (beta_min < 1 || beta_max <= beta_min) {
        lf_status st = lf__curve_run(g, hw, scheme, whole, 1, cfg, NULL, beta_min, beta_max, out, &cls);
        if (st == LF_OK)
            lf__curve_canon(out);
        return st;
    }
    lf_exact_config dram;
    lf_exact_config_default(&dram);
    int32_t big = (2 + LF_COST_MAX_STEPS) * g->n_ops + 2;
    int64_t *cuts = malloc((size_t)big * sizeof *cuts);
    int32_t n_cuts = 0;
    lf_status st = cuts ? lf__curve_rising_cuts(g, hw, scheme, beta_min, beta_max, cfg ? cfg : &dram, cuts, &n_cuts)
                        : lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    /* Energy and latency: a group is priced once for all the parts of the
     * range, those cut at rising prices and those its plans ask for. */
    lf_steps_store *keep = NULL;
    if (st == LF_OK && cfg && cfg->objective != LF_PLAN_OBJ_DRAM)
        st = lf_steps_store_create(&keep, lf__curve_store_bytes(cfg));
    /* The range whole (its plans may ask for as many cuts as there are
     * rises), or one part between each two cuts, each solved over
     * [lo, next cut] so that no part is a single byte. */
    lf__tasks pass_parts = {NULL, 0, 0};
    if (st == LF_OK && n_cuts == 0)
        st = lf__task_push(&pass_parts, beta_min, beta_max, 1, big, NULL, 0);
    for (int32_t r = 0; r < n_cuts + (n_cuts > 0) && st == LF_OK; r++)
        st = lf__task_push(&pass_parts, r == 0 ? beta_min : cuts[r - 1], r < n_cuts ? cuts[r] : beta_max, r == n_cuts,
                           LF__PLAN_CUTS, NULL, 0);
    free(cuts);
    memset(out, 0, sizeof *out);
    out->beta_min = beta_min;
    out->beta_max = beta_max;
    out->threads = 1;
    if (st == LF_OK)
        st = lf__solve_all(g, hw, scheme, &pass_parts, cfg, keep, beta_min, beta_max, out);
    free(pass_parts.t);
    lf_steps_store_free(keep);
    if (st == LF_OK)
        lf__curve_canon(out);
    else
        lf_curve_destroy(out);
    return st;
}

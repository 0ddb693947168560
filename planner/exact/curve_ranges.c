/* The whole staircase (lf_curve_compute): one DP (curve.c) over the range,
 * or one per part where some price rises inside it (curve_rises.c), the
 * parts' points appended in order. */
#include "planner/exact/curve.h"

#include <stdlib.h>
#include <string.h>

#include "planner/cost/objective.h"
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

static lf_status lf__curve_ranges(const lf_graph *g, const lf_hw *hw, const char *scheme, const int64_t *cuts,
                                  int32_t n_cuts, int64_t beta_min, int64_t beta_max, int last,
                                  const lf_exact_config *cfg, lf_steps_store *keep, int64_t range_min,
                                  int64_t range_max,
                                  lf_curve *out);

/* Solves [lo, hi] (the last range when `last`) and appends its points to
 * out; where a plan of the staircase found holds a group of several ops
 * whose price rises while that plan holds, the range is solved again in
 * parts cut at its rises (curve_rises.h) from the first cut c on. Below c
 * the points found stand, as a DP over [lo, c] would find them:
 *  - the DP charges a group at each buffer the least of its prices from lo
 *    up to there, whatever the range's top, and a step needing c or more
 *    only makes points needing as much, which beat no point needing less:
 *    the front points needing less than c are the same either way;
 *  - a plan found rises below c only where one of its groups prices above
 *    its charge there, which takes a rise of that group's price below c,
 *    and every rise of such a group is a cut: none is below c, so solved
 *    over [lo, c] no plan would ask for a cut either.
 * keep, range_min, range_max: as lf__curve_run. */
static lf_status lf__curve_range(const lf_graph *g, const lf_hw *hw, const char *scheme, int64_t lo, int64_t hi,
                                 int last, const lf_exact_config *cfg, lf_steps_store *keep,
                                 int64_t range_min, int64_t range_max, lf_curve *out)
{
    lf_curve part;
    lf_status st = lf__curve_run(g, hw, scheme, lo, hi, cfg, keep, range_min, range_max, &part);
    if (st != LF_OK)
        return st;
    int64_t *cuts = malloc(LF__PLAN_CUTS * sizeof *cuts);
    int32_t n_cuts = 0;
    st = cuts ? lf__curve_plan_rises(g, hw, scheme, cfg, &part, lo, hi, last ? hi : hi - 1, cuts, &n_cuts,
                                     LF__PLAN_CUTS)
              : lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    if (st == LF_OK)
        st = lf__curve_append(out, &part, n_cuts > 0 ? cuts[0] : hi, last && n_cuts == 0);
    else
        lf_curve_destroy(&part);
    if (st == LF_OK && n_cuts > 0)
        st = lf__curve_ranges(g, hw, scheme, cuts + 1, n_cuts - 1, cuts[0], hi, last, cfg, keep, range_min,
                              range_max, out);
    free(cuts);
    return st;
}

/* One DP per range between cuts, each over [lo, next cut] so that no range
 * is a single byte; its points from the next cut on are the next range's.
 * Points are kept where a range starts even at an equal or higher figure:
 * the plan before may not price the same there. */
static lf_status lf__curve_ranges(const lf_graph *g, const lf_hw *hw, const char *scheme, const int64_t *cuts,
                                  int32_t n_cuts, int64_t beta_min, int64_t beta_max, int last,
                                  const lf_exact_config *cfg, lf_steps_store *keep, int64_t range_min,
                                  int64_t range_max,
                                  lf_curve *out)
{
    lf_status st = LF_OK;
    for (int32_t r = 0; r <= n_cuts && st == LF_OK; r++) {
        int64_t lo = r == 0 ? beta_min : cuts[r - 1], hi = r < n_cuts ? cuts[r] : beta_max;
        if (hi > lo)
            st = lf__curve_range(g, hw, scheme, lo, hi, last && r == n_cuts, cfg, keep, range_min, range_max, out);
    }
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
    if (beta_min < 1 || beta_max <= beta_min)
        return lf__curve_run(g, hw, scheme, beta_min, beta_max, cfg, NULL, beta_min, beta_max, out);
    lf_exact_config dram;
    lf_exact_config_default(&dram);
    int64_t *cuts = malloc(((2 + LF_COST_MAX_STEPS) * (size_t)g->n_ops + 2) * sizeof *cuts);
    int32_t n_cuts = 0;
    lf_status st = cuts ? lf__curve_rising_cuts(g, hw, scheme, beta_min, beta_max, cfg ? cfg : &dram, cuts, &n_cuts)
                        : lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    /* Energy and latency: a group is priced once for all the parts of the
     * range, those cut at rising prices and those its plans ask for. */
    lf_steps_store *keep = NULL;
    if (st == LF_OK && cfg && cfg->objective != LF_PLAN_OBJ_DRAM)
        st = lf_steps_store_create(&keep, lf__curve_store_bytes(cfg));
    lf_curve whole; /* the range solved whole, where its plans rise */
    memset(&whole, 0, sizeof whole);
    int32_t first = 0; /* 1: whole holds it, and cuts[0], below which its points stand (lf__curve_range) */
    if (st == LF_OK && n_cuts == 0) {
        /* One range: its staircase as the DP gives it, unless its plans
         * rise (then in parts, as below). */
        st = lf__curve_run(g, hw, scheme, beta_min, beta_max, cfg, keep, beta_min, beta_max, out);
        if (st == LF_OK)
            st = lf__curve_plan_rises(g, hw, scheme, cfg, out, beta_min, beta_max, beta_max, cuts, &n_cuts,
                                      (2 + LF_COST_MAX_STEPS) * g->n_ops + 2);
        if (st != LF_OK || n_cuts == 0) {
            if (st != LF_OK && out->points)
                lf_curve_destroy(out);
            free(cuts);
            lf_steps_store_free(keep);
            return st;
        }
        whole = *out;
        first = 1;
    } else if (st != LF_OK) {
        free(cuts);
        lf_steps_store_free(keep);
        return st;
    }
    memset(out, 0, sizeof *out);
    out->beta_min = beta_min;
    out->beta_max = beta_max;
    out->threads = 1;
    if (first)
        st = lf__curve_append(out, &whole, cuts[0], 0);
    if (st == LF_OK)
        st = lf__curve_ranges(g, hw, scheme, cuts + first, n_cuts - first, first ? cuts[0] : beta_min, beta_max,
                              1, cfg, keep, beta_min, beta_max, out);
    free(cuts);
    lf_steps_store_free(keep);
    if (st != LF_OK)
        lf_curve_destroy(out);
    return st;
}

/* The best-effort staircase (stair.h): the exact staircase on its share of
 * the time, else a grid of single-buffer best-effort solves made monotone. */
#include "planner/app/stair.h"
#include "planner/app/stair_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/app/pipeline.h"
#include "planner/cost/objective.h"
#include "planner/util/clock.h"
#include "search/partition/simple.h"

/* The share of the time limit left unplanned at the end (above). */
#define LF__STAIR_MARGIN 0.04

void lf_stair_grid(int64_t lo, int64_t hi, int32_t n, int64_t *out, int32_t *n_out)
{
    int32_t m = 0;
    double r = log((double)hi / (double)lo);
    for (int32_t i = 0; i < n; i++) {
        /* Integer ends, so that min and max are the range's to the byte. */
        int64_t b = i == 0 ? lo : i == n - 1 ? hi : (int64_t)llround((double)lo * exp(r * i / (n - 1)));
        if (b < lo)
            b = lo;
        if (b > hi)
            b = hi;
        if (m == 0 || b > out[m - 1])
            out[m++] = b;
    }
    *n_out = m;
}

/* g's cost model at beta under the objective (energy: one SRAM figure for
 * the whole range, as the exact staircase prices it: lf_curve_fix_sram). */
static lf_status lf__stair_model(const lf_graph *g, const lf_hw *hw, const char *scheme, int32_t objective,
                                 int64_t beta, lf_cost_model **cm)
{
    lf_hw h = *hw;
    if (objective != 0)
        lf_curve_fix_sram(&h);
    h.buffer_bytes = beta;
    *cm = NULL;
    lf_status st = lf_cost_model_create(cm, g, &h, scheme);
    if (st == LF_OK)
        st = lf_cost_set_objective(*cm, (lf_plan_objective)objective);
    return st;
}

/* The exact staircase's points as steps, each with its plan's figures
 * (one model moved up the buffers: lf_cost_model_rebuffer). */
static lf_status lf__stair_from_curve(lf_stair *s, lf_curve *c, const lf_graph *g, const lf_hw *hw,
                                      const char *scheme)
{
    s->steps = calloc((size_t)c->n, sizeof *s->steps);
    if (!s->steps)
        return lf_set_error(LF_ENOMEM, "out of memory in the best-effort staircase");
    lf_cost_model *cm = NULL;
    lf_status st = LF_OK;
    for (int32_t k = 0; k < c->n && st == LF_OK; k++) {
        lf_stair_step *t = &s->steps[k];
        const lf_curve_point *p = &c->points[k];
        st = cm ? lf_cost_model_rebuffer(cm, p->beta) : lf__stair_model(g, hw, scheme, s->objective, p->beta, &cm);
        if (st == LF_OK)
            st = lf_plan_copy(&t->plan, &p->plan);
        if (st != LF_OK)
            break;
        s->n = k + 1;
        t->beta = t->found_at = t->lower_at = p->beta;
        t->lower = t->upper = p->dram_all;
        t->solved = 1;
        st = lf_plan_metrics_compute(&t->plan, cm, &t->metrics);
    }
    lf_cost_model_free(cm);
    return st;
}

/* One grid buffer: the single-buffer planner with best effort on cm, under
 * ec with time_limit_s `slice` (0: ec's limits only). Past its limits
 * without bounds (the certificate itself stopped), the layer-by-layer plan
 * and the floor of no fusable DRAM. */
static lf_status lf__stair_solve(lf_cost_model *cm, const lf_exact_config *ec, int32_t objective, double slice,
                                 lf_stair_step *t)
{
    lf_planner_config pc;
    lf_planner_config_default(&pc);
    pc.search = "exact";
    pc.best_effort = 1;
    pc.objective = lf_plan_objective_name((lf_plan_objective)objective);
    pc.threads = ec->threads;
    pc.exact = *ec;
    pc.exact.time_limit_s = slice;
    pc.exact.deadline = slice > 0 ? lf_now_seconds() + slice : 0;
    lf_planned r;
    lf_status st = lf_plan_network(cm, &pc, &r);
    if (st == LF_OK) {
        t->plan = r.plan;
        memset(&r.plan, 0, sizeof r.plan);
        t->metrics = r.metrics;
        t->solved = strcmp(r.search, "exact") == 0;
        /* Unfusable ops are charged alike by every plan at one buffer: the
         * figure over all ops is the fusable ops' plus that. */
        int64_t rest = r.metrics.objective_all - r.metrics.objective;
        t->lower = (t->solved ? r.metrics.objective : r.lower_bound) + rest;
    }
    lf_planned_destroy(&r);
    if (st == LF_ELIMIT) {
        if ((st = lf_plan_layer(cm, &t->plan)) == LF_OK)
            st = lf_plan_metrics_compute(&t->plan, cm, &t->metrics);
        t->lower = t->metrics.objective_all - t->metrics.objective;
        t->solved = 0;
    }
    t->upper = t->metrics.objective_all;
    return st;
}

lf_status lf__stair_carry_plan(const lf_stair_step *below, lf_stair_step *t, lf_cost_model *cm)
{
    lf_plan_metrics m;
    if (lf_plan_check(&below->plan, cm) != LF_OK)
        return LF_OK; /* not valid here (the buffer below is not smaller) */
    lf_status st = lf_plan_metrics_compute(&below->plan, cm, &m);
    if (st != LF_OK || m.n_invalid > 0 || m.objective_all >= t->upper)
        return st;
    lf_plan carried;
    if ((st = lf_plan_copy(&carried, &below->plan)) != LF_OK)
        return st;
    lf_plan_destroy(&t->plan);
    t->plan = carried;
    t->metrics = m;
    t->upper = m.objective_all;
    t->found_at = below->found_at;
    return LF_OK;
}

lf_status lf__stair_settle(lf_stair *s)
{
    for (int32_t i = s->n - 2; i >= 0; i--)
        if (s->steps[i + 1].lower > s->steps[i].lower) {
            s->steps[i].lower = s->steps[i + 1].lower;
            s->steps[i].lower_at = s->steps[i + 1].lower_at;
        }
    for (int32_t i = 0; i < s->n; i++)
        if (s->steps[i].lower > s->steps[i].upper)
            return lf_set_error(LF_EPLAN, "best-effort staircase: internal error: at %lld B the lower bound %lld "
                                          "(from %lld B) is above the plan's %lld",
                                (long long)s->steps[i].beta, (long long)s->steps[i].lower,
                                (long long)s->steps[i].lower_at, (long long)s->steps[i].upper);
    return LF_OK;
}

/* The grid's steps: each buffer solved, then the plan found below it kept
 * where it costs less here, then the bounds found above it. */
static lf_status lf__stair_grid(lf_stair *s, const lf_graph *g, const lf_hw *hw, const char *scheme, int32_t points,
                                const lf_exact_config *ec, double deadline)
{
    int64_t *grid = malloc((size_t)points * sizeof *grid);
    s->steps = calloc((size_t)points, sizeof *s->steps);
    if (!grid || !s->steps) {
        free(grid);
        return lf_set_error(LF_ENOMEM, "out of memory in the best-effort staircase");
    }
    int32_t n = 0;
    lf_stair_grid(s->beta_min, s->beta_max, points, grid, &n);
    lf_status st = LF_OK;
    double over = 0; /* the most a solve has run past its share so far */
    for (int32_t i = 0; i < n && st == LF_OK; i++) {
        lf_stair_step *t = &s->steps[i];
        t->beta = t->found_at = t->lower_at = grid[i];
        double t0 = lf_now_seconds();
        lf_cost_model *cm = NULL;
        st = lf__stair_model(g, hw, scheme, s->objective, grid[i], &cm);
        /* An equal share of what is left: a buffer that ends early leaves
         * its time to the larger ones. Less what the solves so far ran past
         * their shares, which grows with the buffer (more to price between
         * two looks at the clock). */
        double slice = 0;
        if (st == LF_OK && deadline > 0) {
            slice = (deadline - over - lf_now_seconds()) / (n - i);
            if (slice < 1e-3)
                slice = 1e-3;
        }
        if (st == LF_OK)
            st = lf__stair_solve(cm, ec, s->objective, slice, t);
        t->wall_s = lf_now_seconds() - t0;
        if (slice > 0 && t->wall_s - slice > over)
            over = t->wall_s - slice;
        if (st == LF_OK || t->plan.group_of)
            s->n = i + 1; /* destroyed with the rest */
        if (st == LF_OK && i > 0)
            st = lf__stair_carry_plan(&s->steps[i - 1], t, cm);
        lf_cost_model_free(cm);
    }
    free(grid);
    return st == LF_OK ? lf__stair_settle(s) : st;
}

lf_status lf_stair_compute(const lf_graph *g, const lf_hw *hw, const char *scheme, int64_t beta_min,
                           int64_t beta_max, int32_t points, const lf_exact_config *ec, lf_stair *out)
{
    memset(out, 0, sizeof *out);
    out->beta_min = beta_min;
    out->beta_max = beta_max;
    if (!ec)
        return lf_set_error(LF_EINVAL, "best-effort staircase: no limits given");
    out->objective = ec->objective;
    if (beta_min < 1 || beta_max <= beta_min)
        return lf_set_error(LF_EINVAL, "best-effort staircase: the buffer range [%lld, %lld] B is empty",
                            (long long)beta_min, (long long)beta_max);
    if (points == 0)
        points = LF_STAIR_DEFAULT_POINTS;
    if (points < 2 || points > LF_STAIR_MAX_POINTS)
        return lf_set_error(LF_EINVAL, "best-effort staircase: %d grid buffers (2 to %d)", (int)points,
                            LF_STAIR_MAX_POINTS);
    /* Under energy and latency the optimum can rise with the buffer (an op
     * turning fusable: curve.h), so a bound found at one buffer says
     * nothing of another. */
    if (ec->objective != LF_PLAN_OBJ_DRAM)
        return lf_set_error(LF_EINVAL, "best-effort staircase: the DRAM objective only (under energy "
                                       "and latency the optimum can rise with the buffer)");
    double t0 = lf_now_seconds();
    double deadline = 0;
    if (ec->time_limit_s > 0)
        deadline = t0 + ec->time_limit_s;
    if (ec->deadline > 0 && (deadline <= 0 || ec->deadline < deadline))
        deadline = ec->deadline;
    lf_exact_config cc = *ec;
    if (deadline > 0) {
        cc.time_limit_s = (deadline - t0) * LF_STAIR_CURVE_SHARE;
        cc.deadline = t0 + cc.time_limit_s;
    }
    lf_curve c;
    memset(&c, 0, sizeof c);
    lf_status st = lf_curve_compute(g, hw, scheme, beta_min, beta_max, &cc, &c);
    out->curve_s = lf_now_seconds() - t0;
    if (st == LF_OK) {
        out->exact = 1;
        st = lf__stair_from_curve(out, &c, g, hw, scheme);
        lf_curve_destroy(&c);
    } else if (st == LF_ELIMIT) {
        snprintf(out->stopped, sizeof out->stopped, "%s", lf_last_error());
        lf_exact_config pc = *ec;
        pc.deadline = 0; /* each grid buffer has its own (lf__stair_grid) */
        /* The grid ends a little early: a solve passes its deadline by
         * what it does between its checks (PP-OCRv4 at 4 MB under load:
         * 11 s past a 300 s limit). */
        double end = deadline > 0 ? deadline - (deadline - t0) * LF__STAIR_MARGIN : 0;
        st = lf__stair_grid(out, g, hw, scheme, points, &pc, end);
    }
    out->wall_s = lf_now_seconds() - t0;
    return st;
}

void lf_stair_destroy(lf_stair *s)
{
    for (int32_t i = 0; s->steps && i < s->n; i++)
        lf_plan_destroy(&s->steps[i].plan);
    free(s->steps);
    memset(s, 0, sizeof *s);
}

double lf_stair_gap(const lf_stair *s, int32_t k)
{
    const lf_stair_step *t = &s->steps[k];
    if (t->upper <= t->lower)
        return 0;
    return t->lower > 0 ? 100.0 * (double)(t->upper - t->lower) / (double)t->lower : INFINITY;
}

double lf_stair_worst_gap(const lf_stair *s, int32_t *at)
{
    double worst = 0;
    *at = -1;
    for (int32_t k = 0; k < s->n; k++)
        if (lf_stair_gap(s, k) > worst) {
            worst = lf_stair_gap(s, k);
            *at = k;
        }
    return worst;
}

int32_t lf_stair_proven(const lf_stair *s)
{
    int32_t n = 0;
    for (int32_t k = 0; k < s->n; k++)
        n += s->steps[k].lower == s->steps[k].upper;
    return n;
}

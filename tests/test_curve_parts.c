/* The parts of a staircase's range solved in one run (planner/exact/curve.c,
 * lf__curve_run: one enumeration, a front per part) against a run of each
 * part's own: the same points and plans, on random DAGs of every family under
 * both schemes and every objective, and on GPT-2's block under BRR energy
 * (attention groups from the store across parts, groups joined at cut ops)
 * on one and two threads; parts that cannot share a run are told apart;
 * parts solved a pass ahead (curve_ahead.c) in the run of the parts asked
 * for, overlapping them, against runs of their own. */
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/cost/cost.h"
#include "planner/cost/objective.h"
#include "planner/exact/curve.h"
#include "planner/exact/curve_ahead.h"
#include "planner/exact/curve_run.h"
#include "random_dags.h"
#include "testlib.h"

/* 1 when two staircases have the same points and plans. */
static int same_curve(const lf_curve *a, const lf_curve *b)
{
    if (a->n != b->n)
        return 0;
    for (int32_t k = 0; k < a->n; k++) {
        const lf_plan *p = &a->points[k].plan, *q = &b->points[k].plan;
        if (a->points[k].beta != b->points[k].beta || a->points[k].dram_all != b->points[k].dram_all ||
            p->n_groups != q->n_groups || p->n_ops != q->n_ops ||
            memcmp(p->group_of, q->group_of, (size_t)p->n_ops * sizeof *p->group_of) != 0)
            return 0;
    }
    return 1;
}

/* Parts bounds[0..2n) of a range solved in one run (one enumeration, a
 * front per part), or one run per class where they cannot share one: each
 * part's staircase is the one its own run gives, points and plans. Counts
 * the runs shared and the sets of parts told apart. */
static void compare_parts(const lf_graph *g, const char *scheme, const lf_exact_config *ec, const int64_t *bounds,
                          int32_t n, int *shared, int *apart)
{
    lf_hw hw;
    lf_hw_default(&hw);
    int64_t lo = bounds[0], hi = bounds[2 * n - 1];
    lf_curve all[8], alone;
    int32_t cls[8], one;
    lf_steps_store *keep = NULL, *keep1 = NULL;
    if (ec->objective != LF_PLAN_OBJ_DRAM) {
        CHECK_OK(lf_steps_store_create(&keep, 64 << 20));
        CHECK_OK(lf_steps_store_create(&keep1, 64 << 20));
    }
    CHECK_OK(lf__curve_run(g, &hw, scheme, bounds, n, ec, keep, lo, hi, all, cls));
    int together = 1;
    for (int32_t k = 0; k < n; k++)
        together &= cls[k] == 0;
    if (together) {
        ++*shared;
    } else {
        /* Each class in a run of its own, as curve_ranges.c solves them. */
        ++*apart;
        for (int32_t r = 0; r < n; r++) {
            int64_t sub[16];
            int32_t at[8], m = 0, cls2[8];
            lf_curve got[8];
            for (int32_t k = r; k < n && cls[r] == r; k++)
                if (cls[k] == r) {
                    sub[2 * m] = bounds[2 * k];
                    sub[2 * m + 1] = bounds[2 * k + 1];
                    at[m++] = k;
                }
            if (m == 0)
                continue;
            CHECK_OK(lf__curve_run(g, &hw, scheme, sub, m, ec, keep, lo, hi, got, cls2));
            for (int32_t j = 0; j < m; j++) {
                CHECK_EQ_I64(cls2[j], 0);
                all[at[j]] = got[j];
            }
        }
    }
    for (int32_t k = 0; k < n; k++) {
        CHECK_OK(lf__curve_run(g, &hw, scheme, bounds + 2 * k, 1, ec, keep1, lo, hi, &alone, &one));
        CHECK(all[k].n >= 1);
        CHECK(same_curve(&all[k], &alone));
        lf_curve_destroy(&alone);
        lf_curve_destroy(&all[k]);
    }
    lf_steps_store_free(keep);
    lf_steps_store_free(keep1);
}

/* The parts of a range share a run (lf__curve_run) and each gets what a
 * run of its own gives: random DAGs of every family under both schemes and
 * every objective, and GPT-2's block at N = 64 under BRR energy (attention
 * groups from the store across parts, groups joined at cut ops), on
 * threads too. Parts where some op is fusable in one and not in another
 * are solved apart (the enumeration would offer them tied plans in another
 * order): both happen here. */
static void test_shared_parts(void)
{
    const char *schemes[] = {"lbdf", "brr"};
    const int64_t bounds[] = {512, 1500, 1500, 3000, 3000, 9000, 9000, 64 * 1024};
    int shared = 0, apart = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 2; seed++) {
            lf_graph *g = rdag_build(seed, fam, 6);
            CHECK(g != NULL);
            for (int si = 0; si < 2 && g; si++)
                for (int o = 0; o < LF_PLAN_OBJ_COUNT; o++) {
                    lf_exact_config ec;
                    lf_exact_config_default(&ec);
                    ec.objective = o;
                    compare_parts(g, schemes[si], &ec, bounds, 4, &shared, &apart);
                    compare_parts(g, schemes[si], &ec, bounds + 4, 2, &shared, &apart);
                }
            lf_graph_free(g);
        }
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    lf_model_seq_options so = {64, 1, LF_PHASE_PREFILL, 0};
    CHECK_OK(lf_model_build_seq("gpt2", &opt, &so, &g));
    if (g) {
        const int64_t tb[] = {16 * 1024, 40 * 1024, 40 * 1024, 64 * 1024, 64 * 1024, 80 * 1024, 80 * 1024, 700 * 1024};
        for (int t = 1; t <= 2; t++) {
            lf_exact_config ec;
            lf_exact_config_default(&ec);
            ec.objective = LF_PLAN_OBJ_ENERGY;
            ec.threads = t;
            compare_parts(g, "brr", &ec, tb, 4, &shared, &apart);
        }
        lf_graph_free(g);
    }
    CHECK(shared > 0);
    CHECK(apart > 0);
}

/* The parts asked for and those their hints make, in one run
 * (lf__ahead_solve): each asked part gets its own run's staircase, each
 * part made ahead ([h_i, h_j] and [h_i, hi] of its part's hints; they
 * overlap the asked parts and each other) is kept and is its own run's
 * too, and only the exact buffers asked for take one. Counts the runs
 * solved ahead. */
static void compare_ahead(const lf_graph *g, const char *scheme, const lf_exact_config *ec, const int64_t *bounds,
                          const int64_t *hints, const int32_t *n_hints, int32_t n, int *solved_runs)
{
    lf_hw hw;
    lf_hw_default(&hw);
    int64_t lo = bounds[0], hi = bounds[2 * n - 1];
    lf_steps_store *keep = NULL, *keep1 = NULL;
    if (ec->objective != LF_PLAN_OBJ_DRAM) {
        CHECK_OK(lf_steps_store_create(&keep, 64 << 20));
        CHECK_OK(lf_steps_store_create(&keep1, 64 << 20));
    }
    lf__ahead a = {NULL, 0, 0};
    lf_curve outs[4], alone;
    int solved = 0;
    int32_t one = 0, made = 0;
    CHECK_OK(lf__ahead_solve(g, &hw, scheme, bounds, hints, n_hints, n, ec, keep, lo, hi, &a, outs, &solved));
    for (int32_t k = 0; k < n; k++)
        made += n_hints[k] * (n_hints[k] + 1) / 2;
    if (solved) {
        ++*solved_runs;
        CHECK_EQ_I64(a.n, made);
        for (int32_t k = 0; k < n; k++) {
            CHECK_OK(lf__curve_run(g, &hw, scheme, bounds + 2 * k, 1, ec, keep1, lo, hi, &alone, &one));
            CHECK(outs[k].n >= 1);
            CHECK(same_curve(&outs[k], &alone));
            lf_curve_destroy(&alone);
            lf_curve_destroy(&outs[k]);
            const int64_t *h = hints + (size_t)k * LF__AHEAD_HINTS;
            for (int32_t i = 0; i < n_hints[k]; i++)
                for (int32_t j = i + 1; j <= n_hints[k]; j++) {
                    int64_t b[2] = {h[i], j < n_hints[k] ? h[j] : bounds[2 * k + 1]};
                    lf_curve got;
                    CHECK(!lf__ahead_take(&a, b[0], b[1] - 1, &got)); /* its buffers exactly */
                    CHECK(lf__ahead_take(&a, b[0], b[1], &got));
                    CHECK(!lf__ahead_take(&a, b[0], b[1], &got)); /* taken once */
                    CHECK_OK(lf__curve_run(g, &hw, scheme, b, 1, ec, keep1, lo, hi, &alone, &one));
                    CHECK(got.n >= 1);
                    CHECK(same_curve(&got, &alone));
                    lf_curve_destroy(&alone);
                    lf_curve_destroy(&got);
                }
        }
        CHECK_EQ_I64(a.n, 0);
    } else {
        CHECK_EQ_I64(a.n, 0); /* nothing solved, nothing kept */
    }
    lf__ahead_free(&a);
    lf_steps_store_free(keep);
    lf_steps_store_free(keep1);
}

/* Parts solved a pass ahead: random DAGs under both schemes and every
 * objective, and GPT-2's block at N = 64 under BRR energy and latency (the
 * staircases whose plans ask for parts pass after pass), one and two
 * threads. */
static void test_ahead_parts(void)
{
    const char *schemes[] = {"lbdf", "brr"};
    const int64_t bounds[] = {1500, 9000, 9000, 64 * 1024};
    const int64_t hints[] = {2000, 3000, 5000, 0, 20000, 0, 0, 0};
    const int32_t n_hints[] = {3, 1};
    int solved = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++) {
        lf_graph *g = rdag_build(7, fam, 6);
        CHECK(g != NULL);
        for (int si = 0; si < 2 && g; si++)
            for (int o = 0; o < LF_PLAN_OBJ_COUNT; o++) {
                lf_exact_config ec;
                lf_exact_config_default(&ec);
                ec.objective = o;
                compare_ahead(g, schemes[si], &ec, bounds, hints, n_hints, 2, &solved);
            }
        lf_graph_free(g);
    }
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    lf_model_seq_options so = {64, 1, LF_PHASE_PREFILL, 0};
    CHECK_OK(lf_model_build_seq("gpt2", &opt, &so, &g));
    if (g) {
        const int64_t tb[] = {40 * 1024, 80 * 1024, 80 * 1024, 700 * 1024};
        const int64_t th[] = {48 * 1024, 64 * 1024, 0, 0, 400 * 1024, 0, 0, 0};
        const int32_t tn[] = {2, 1};
        for (int t = 1; t <= 2; t++)
            for (int o = LF_PLAN_OBJ_ENERGY; o <= LF_PLAN_OBJ_LATENCY; o++) {
                lf_exact_config ec;
                lf_exact_config_default(&ec);
                ec.objective = o;
                ec.threads = t;
                compare_ahead(g, "brr", &ec, tb, th, tn, 2, &solved);
            }
        lf_graph_free(g);
    }
    CHECK(solved > 0);
}

int main(void)
{
    test_shared_parts();
    test_ahead_parts();
    return lf_test_result();
}

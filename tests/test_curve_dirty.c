/* The staircase's points under energy and latency (docs/search.md "The
 * whole staircase"): a point only where the figure changes, never two in a
 * row with the same figure, and each point's figure the single-buffer exact
 * planner's optimum at its buffer and the point before's one byte below
 * (lf_curve_check), on random DAGs of every family under both schemes and
 * on GPT-2's block at N = 64 under LBDF and BRR energy, whose attention
 * groups price above their charge in stretches that are solved again
 * (lf__curve_keep_clean, curve_dirty.c). And the two steps by hand:
 * lf__curve_canon and lf__curve_keep_clean on made-up staircases. */
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/cost/objective.h"
#include "planner/exact/curve.h"
#include "planner/exact/curve_rises.h"
#include "planner/exact/curve_run.h"
#include "random_dags.h"
#include "testlib.h"

/* No two points in a row with the same figure; buffers ascend; every
 * buffer checked against the single-buffer planner. Returns the points. */
static int32_t check_staircase(const lf_graph *g, const lf_hw *hw, const char *scheme, const lf_exact_config *ec,
                               int64_t lo, int64_t hi)
{
    lf_curve c;
    CHECK_OK(lf_curve_compute(g, hw, scheme, lo, hi, ec, &c));
    CHECK(c.n >= 1 && c.points[0].beta == lo);
    for (int32_t k = 1; k < c.n; k++) {
        CHECK(c.points[k].beta > c.points[k - 1].beta);
        CHECK(c.points[k].dram_all != c.points[k - 1].dram_all);
    }
    int32_t checked = 0;
    if (c.n >= 1)
        CHECK_OK(lf_curve_check(g, hw, scheme, &c, ec, &checked));
    int32_t n = c.n;
    lf_curve_destroy(&c);
    return n;
}

static void test_random_dags(void)
{
    const char *schemes[] = {"lbdf", "brr"};
    int32_t points = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 3; seed++) {
            lf_graph *g = rdag_build(seed, fam, 6);
            CHECK(g != NULL);
            for (int si = 0; si < 2 && g; si++)
                for (int o = LF_PLAN_OBJ_ENERGY; o <= LF_PLAN_OBJ_LATENCY; o++) {
                    lf_hw hw;
                    lf_hw_default(&hw);
                    lf_exact_config ec;
                    lf_exact_config_default(&ec);
                    ec.objective = o;
                    points += check_staircase(g, &hw, schemes[si], &ec, 512, 64 * 1024);
                }
            lf_graph_free(g);
        }
    CHECK(points > 3 * RDAG_FAMILIES * 2 * 2 * 2);
}

/* GPT-2 one block at N = 64: LBDF energy over 64 KB - 4 MB (its attention
 * groups rise inside the range, 620-650 KB among others: curve_rises.h),
 * BRR energy over 64 - 80 KB, on one and two threads. */
static void test_gpt2_block(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    lf_model_seq_options so = {64, 1, LF_PHASE_PREFILL, 0};
    CHECK_OK(lf_model_build_seq("gpt2", &opt, &so, &g));
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    for (int t = 1; t <= 2; t++) {
        lf_exact_config ec;
        lf_exact_config_default(&ec);
        ec.objective = LF_PLAN_OBJ_ENERGY;
        ec.threads = t;
        ec.time_limit_s = 0;
        CHECK(check_staircase(g, &hw, "lbdf", &ec, 64 * 1024, 4 * 1024 * 1024) > 100);
        CHECK(check_staircase(g, &hw, "brr", &ec, 64 * 1024, 80 * 1024) >= 2);
    }
    lf_graph_free(g);
}

/* BERT-base, one block, LBDF energy over 64 KB - 4 MB on the LPDDR4 NPU:
 * its dirty stretches hold cuts of their own (rises of the groups priced
 * above their charge), and each stretch is solved cut at them
 * (curve_ranges.c). A stretch's parts below its last cut left unsolved
 * leave buffers where the point before stands with a figure that is not
 * the optimum (lf_curve_check). */
static void test_bert_block(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    lf_model_seq_options so = {0, 1, LF_PHASE_PREFILL, 0};
    CHECK_OK(lf_model_build_seq("bert_base", &opt, &so, &g));
    lf_hw hw;
    CHECK_OK(lf_hw_load(&hw, LF_SOURCE_DIR "/examples/hw/npu-edge-lpddr4.xml"));
    if (!g)
        return;
    lf_exact_config ec;
    lf_exact_config_default(&ec);
    ec.objective = LF_PLAN_OBJ_ENERGY;
    ec.threads = 1;
    ec.time_limit_s = 0;
    CHECK(check_staircase(g, &hw, "lbdf", &ec, 64 * 1024, 4 * 1024 * 1024) > 50);
    lf_graph_free(g);
}

/* A made-up staircase of points at the buffers b with figures f, each
 * plan one op in group 0 tagged by the point's index (group_of[0] = k). */
static void made_up(lf_curve *c, const int64_t *b, const int64_t *f, int32_t n)
{
    memset(c, 0, sizeof *c);
    c->points = calloc((size_t)n, sizeof *c->points);
    CHECK(c->points != NULL);
    for (int32_t k = 0; k < n && c->points; k++) {
        c->points[k].beta = b[k];
        c->points[k].dram_all = f[k];
        CHECK_OK(lf_plan_init(&c->points[k].plan, 1));
        c->points[k].plan.group_of[0] = k;
        c->points[k].plan.n_groups = 1;
    }
    c->n = c->points ? n : 0;
}

static void test_by_hand(void)
{
    /* canon: figures 5, 5, 4, 6, 6, 3 keep the points 0, 2, 3, 5 (a rise
     * is a step; the same figure again is not) */
    const int64_t b[6] = {10, 20, 30, 40, 50, 60}, f[6] = {5, 5, 4, 6, 6, 3};
    lf_curve c;
    made_up(&c, b, f, 6);
    lf__curve_canon(&c);
    const int32_t kept[4] = {0, 2, 3, 5};
    CHECK_EQ_I64(c.n, 4);
    for (int32_t k = 0; k < c.n && k < 4; k++) {
        CHECK_EQ_I64(c.points[k].beta, b[kept[k]]);
        CHECK_EQ_I64(c.points[k].plan.group_of[0], kept[k]);
    }
    lf_curve_destroy(&c);

    /* keep_clean: points at 10 (holding to 19), 20 (to 29), 30 (to top 40);
     * stretches [15, 22], [24, 24], [30, 40]: point 0 keeps 10-14, point 1
     * stands again at 23 and 25, point 2 is gone */
    const int64_t b2[3] = {10, 20, 30}, f2[3] = {9, 8, 7};
    made_up(&c, b2, f2, 3);
    int64_t at[3][2] = {{15, 22}, {24, 24}, {30, 40}};
    lf__stretches d = {at, 3, 3};
    CHECK_OK(lf__curve_keep_clean(&c, &d, 40));
    const int64_t want_b[3] = {10, 23, 25}, want_f[3] = {9, 8, 8}, want_p[3] = {0, 1, 1};
    CHECK_EQ_I64(c.n, 3);
    for (int32_t k = 0; k < c.n && k < 3; k++) {
        CHECK_EQ_I64(c.points[k].beta, want_b[k]);
        CHECK_EQ_I64(c.points[k].dram_all, want_f[k]);
        CHECK_EQ_I64(c.points[k].plan.group_of[0], want_p[k]);
    }
    lf_curve_destroy(&c);
}

int main(void)
{
    test_by_hand();
    test_random_dags();
    test_gpt2_block();
    test_bert_block();
    return lf_test_result();
}

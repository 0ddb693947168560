/* The parts of a staircase's range solved in one run (planner/exact/curve.c,
 * lf__curve_run: one enumeration, a front per part) against a run of each
 * part's own: the same points and plans, on random DAGs of every family under
 * both schemes and every objective, and on GPT-2's block under BRR energy
 * (attention groups from the store across parts, groups joined at cut ops)
 * on one and two threads; parts that cannot share a run are told apart.
 * And a part's lower end in the store path, on a graph whose price rises
 * (test_store_lower_end); parts solved a pass ahead (curve_ahead.c) in the
 * run of the parts asked for, overlapping them, against runs of their own
 * (test_ahead_parts). */
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/cost/cost.h"
#include "planner/cost/objective.h"
#include "planner/exact/curve.h"
#include "planner/exact/curve_ahead.h"
#include "planner/exact/curve_run.h"
#include "fixtures.h"
#include "graphs.h"
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

/* efficientnet_b3's ops 4-22 (its first two MBConv blocks from the first
 * block's depthwise output, 40 x 150 x 150, to the next block's expanding
 * 1x1 conv): squeeze-and-excite maps of 900,000 and 540,000 B, biases as
 * the folded batch norms leave them. */
static lf_graph *effnet_b3_head(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "effnet_b3_head");
    tg_input(b, "x", 40, 150, 150);
    const char *in = "x";
    const int ch[2] = {40, 24}, sq[2] = {10, 6};
    for (int k = 0; k < 2; k++) {
        char n[10][32];
        for (int i = 0; i < 10; i++)
            snprintf(n[i], sizeof n[i], "b%d_%d", k, i);
        if (k == 1)
            tg_conv(b, n[0], in, ch[k], 3, 1, 1, ch[k], 1, LF_ACT_NONE); /* depthwise */
        tg_unary(b, LF_OP_SILU, n[1], k == 1 ? n[0] : in);
        tg_unary(b, LF_OP_GLOBALAVGPOOL, n[2], n[1]);
        tg_conv(b, n[3], n[2], sq[k], 1, 1, 0, 1, 1, LF_ACT_NONE);
        tg_unary(b, LF_OP_SILU, n[4], n[3]);
        tg_conv(b, n[5], n[4], ch[k], 1, 1, 0, 1, 1, LF_ACT_NONE);
        tg_unary(b, LF_OP_SIGMOID, n[6], n[5]);
        tg_binary(b, LF_OP_MUL, n[7], n[1], n[6]);
        tg_conv(b, n[8], n[7], 24, 1, 1, 0, 1, 1, LF_ACT_NONE);
        if (k == 1) {
            tg_binary(b, LF_OP_ADD, n[9], n[8], in);
            in = "b1_9";
        } else {
            in = "b0_8";
        }
    }
    tg_conv(b, "expand", in, 144, 1, 1, 0, 1, 1, LF_ACT_NONE);
    return tf_build(b);
}

/* The store across parts keeps a group's figures at every step from 0 on;
 * each part keeps them as a staircase from its own lower end (curve.c,
 * lf__group_steps: lf__step_keep from beta_min). Where the figures only
 * fall, a lower end set too low changes nothing: the steps it keeps below
 * the part are skipped by the extension, which starts from the last step
 * at or below the part's floor (lf__front_extend). A figure that rises
 * shows it: the whole of effnet_b3_head under BRR energy on the edge NPU
 * costs 555,636,795,644 fJ from 918,733 B and 557,390,691,782 fJ from
 * 1,140,266 B (its squeeze-and-excite maps kept resident at more row
 * tiles), 476,732,270,185 from 1,146,817. In the part from 1,140,266 on,
 * kept from a lower end below it, the cheaper step stays, the dearer one
 * is dropped as no cheaper, and the part took the whole graph as one group
 * at the price it has only below the part (the plan costs
 * 557,390,691,782; the optimum there, 555,636,795,644, is two groups). So
 * each part of a shared run (groups from the store) must be what a run of
 * its own without the store gives (lf__steps_objective from its own lower
 * end), pass --check's single-buffer planner, and cost what its points
 * say. Lower ends of 0, the range's and beta_min - 1 each fail it. */
/* The energy of plan p at buffer beta (every group fusable), each group
 * priced by the cost model there: what a point of the staircase says. */
static int64_t plan_energy(const lf_graph *g, const lf_hw *hw, const lf_plan *p, int64_t beta)
{
    lf_hw h = *hw;
    lf_curve_fix_sram(&h);
    h.buffer_bytes = beta;
    lf_cost_model *cm = NULL;
    lf_bitset set;
    int64_t sum = 0;
    CHECK_OK(lf_cost_model_create(&cm, g, &h, "brr"));
    if (!cm || lf_cost_set_objective(cm, LF_PLAN_OBJ_ENERGY) != LF_OK || lf_bitset_init(&set, g->n_ops) != LF_OK) {
        lf_cost_model_free(cm);
        return -1;
    }
    for (int32_t gi = 0; gi < p->n_groups; gi++) {
        lf_bitset_clear_all(&set);
        for (int32_t v = 0; v < g->n_ops; v++)
            if (p->group_of[v] == gi)
                lf_bitset_set(&set, v);
        lf_group_cost c;
        CHECK_OK(lf_cost_eval(cm, &set, &c));
        CHECK(c.valid);
        sum += lf_cost_objective_of(cm, &set, &c);
    }
    lf_bitset_destroy(&set);
    lf_cost_model_free(cm);
    return sum;
}

static void test_store_lower_end(void)
{
    lf_graph *g = effnet_b3_head();
    lf_hw hw;
    CHECK_OK(lf_hw_load(&hw, LF_SOURCE_DIR "/examples/hw/npu-edge-lpddr4.xml"));
    if (!g)
        return;
    lf_exact_config ec;
    lf_exact_config_default(&ec);
    ec.objective = LF_PLAN_OBJ_ENERGY;
    ec.time_limit_s = 0;
    const int64_t bounds[] = {900000, 1140266, 1140266, 1200000};
    lf_steps_store *keep = NULL;
    CHECK_OK(lf_steps_store_create(&keep, 64 << 20));
    lf_curve all[2], alone;
    int32_t cls[2], one;
    CHECK_OK(lf__curve_run(g, &hw, "brr", bounds, 2, &ec, keep, bounds[0], bounds[3], all, cls));
    CHECK(cls[0] == 0 && cls[1] == 0);
    for (int32_t k = 0; k < 2; k++) {
        CHECK_OK(lf__curve_run(g, &hw, "brr", bounds + 2 * k, 1, &ec, NULL, bounds[2 * k], bounds[2 * k + 1], &alone,
                               &one));
        CHECK(all[k].n >= 2);
        if (!same_curve(&all[k], &alone))
            fprintf(stderr, "  part %d [%lld, %lld]: %d points from the store's run, %d alone; first %lld vs %lld\n",
                    (int)k, (long long)bounds[2 * k], (long long)bounds[2 * k + 1], (int)all[k].n, (int)alone.n,
                    (long long)(all[k].n ? all[k].points[0].dram_all : -1),
                    (long long)(alone.n ? alone.points[0].dram_all : -1));
        CHECK(same_curve(&all[k], &alone));
        int32_t checked = 0;
        CHECK_OK(lf_curve_check(g, &hw, "brr", &all[k], &ec, &checked));
        CHECK(checked > 0);
        for (int32_t i = 0; i < all[k].n; i++)
            CHECK_EQ_I64(plan_energy(g, &hw, &all[k].points[i].plan, all[k].points[i].beta), all[k].points[i].dram_all);
        lf_curve_destroy(&alone);
        lf_curve_destroy(&all[k]);
    }
    lf_steps_store_free(keep);
    lf_graph_free(g);
}

int main(void)
{
    test_shared_parts();
    test_store_lower_end();
    test_ahead_parts();
    return lf_test_result();
}

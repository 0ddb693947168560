/* fusionplan curve (issue 17 item 1): the staircase of optimal DRAM over all
 * ops against the buffer equals the single-buffer exact planner at every
 * breakpoint and one byte below it, and brute force over every plan of small
 * random DAGs on a grid of buffers and at every breakpoint; each point's plan
 * passes the checks at its buffer and costs what the point says. */
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/cost/cost.h"
#include "planner/cost/objective.h"
#include "planner/exact/curve.h"
#include "planner/exact/curve_run.h"
#include "planner/exact/curve_steps.h"
#include "fixtures.h"
#include "random_dags.h"
#include "search/sweep/curve_report.h"
#include "testlib.h"

static int64_t exact_at(const lf_graph *g, const char *scheme, int64_t beta)
{
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = beta;
    lf_cost_model *cm = NULL;
    CHECK_OK(lf_cost_model_create(&cm, g, &hw, scheme));
    if (!cm)
        return -1;
    lf_plan p;
    lf_plan_metrics m;
    int64_t d = -1;
    if (lf_exact_plan(cm, NULL, &p, NULL) == LF_OK) {
        CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
        d = m.dram_all;
        lf_plan_destroy(&p);
    }
    lf_cost_model_free(cm);
    return d;
}

/* Each point's plan is valid at its buffer and costs the point's DRAM. */
static void check_point_plans(const lf_graph *g, const char *scheme, const lf_curve *c)
{
    for (int32_t k = 0; k < c->n; k++) {
        lf_hw hw;
        lf_hw_default(&hw);
        hw.buffer_bytes = c->points[k].beta;
        lf_cost_model *cm = NULL;
        CHECK_OK(lf_cost_model_create(&cm, g, &hw, scheme));
        lf_plan_metrics m;
        CHECK_OK(lf_plan_check(&c->points[k].plan, cm));
        CHECK_OK(lf_plan_metrics_compute(&c->points[k].plan, cm, &m));
        CHECK_EQ_I64(m.dram_all, c->points[k].dram_all);
        if (k > 0) {
            CHECK(c->points[k].beta > c->points[k - 1].beta);
            CHECK(c->points[k].dram_all < c->points[k - 1].dram_all);
        }
        lf_cost_model_free(cm);
    }
}

/* Against lf_exact_plan at every breakpoint, one byte below it, and at both ends. */
static void check_against_exact(const lf_graph *g, const char *scheme, const lf_curve *c)
{
    for (int32_t k = 0; k < c->n; k++) {
        int64_t b = c->points[k].beta;
        CHECK_EQ_I64(exact_at(g, scheme, b), c->points[k].dram_all);
        if (k > 0)
            CHECK_EQ_I64(exact_at(g, scheme, b - 1), c->points[k - 1].dram_all);
    }
    CHECK_EQ_I64(exact_at(g, scheme, c->beta_max), lf_curve_dram_at(c, c->beta_max));
}

static int64_t brute_at(const lf_graph *g, const char *scheme, int64_t beta)
{
    return tf_brute_optimum_all(g, scheme, beta);
}

static void test_random_dags(void)
{
    const char *schemes[] = {"lbdf", "brr"};
    int steps_seen = 0;
    int64_t skipped = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 3; seed++) {
            lf_graph *g = rdag_build(seed, fam, 6);
            CHECK(g != NULL);
            for (int si = 0; si < 2 && g; si++) {
                lf_hw hw;
                lf_hw_default(&hw);
                lf_curve c;
                CHECK_OK(lf_curve_compute(g, &hw, schemes[si], 512, 64 * 1024, NULL, &c));
                CHECK(c.n >= 1 && c.points[0].beta == 512);
                steps_seen += c.n;
                skipped += c.stats.groups_skipped;
                check_point_plans(g, schemes[si], &c);
                for (int32_t k = 0; k < c.n; k++) {
                    CHECK_EQ_I64(brute_at(g, schemes[si], c.points[k].beta), c.points[k].dram_all);
                    if (k > 0)
                        CHECK_EQ_I64(brute_at(g, schemes[si], c.points[k].beta - 1),
                                     c.points[k - 1].dram_all);
                }
                for (int64_t b = 512; b <= 64 * 1024; b = b * 3 / 2 + 1)
                    CHECK_EQ_I64(brute_at(g, schemes[si], b), lf_curve_dram_at(&c, b));
                check_against_exact(g, schemes[si], &c);
                lf_curve_destroy(&c);
            }
            lf_graph_free(g);
        }
    /* Staircases with several steps, or the test could not tell much. */
    CHECK(steps_seen > 3 * RDAG_FAMILIES * 2 * 2);
    /* Groups whose every point is dominated at their target are not priced
     * (curve.c): the brute-force agreement above covers that rule only if it
     * fired. */
    CHECK(skipped > 0);
}

/* A built-in network with its weights, or NULL after a failed check. */
static lf_graph *network(const char *name)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    CHECK_OK(lf_model_build(name, &opt, &g));
    return g;
}

static void test_networks(void)
{
    struct {
        const char *model, *scheme;
        int64_t lo, hi;
    } cases[] = {{"resnet18", "lbdf", 64 * 1024, 512 * 1024},
                 {"resnet18", "brr", 64 * 1024, 256 * 1024},
                 {"mobilenet_v2", "lbdf", 96 * 1024, 384 * 1024},
                 {"squeezenet1_0", "brr", 96 * 1024, 256 * 1024},
                 /* Squeeze-and-excite groups: reading the wait's tensors again
                  * makes them usable below the F_beta of keeping them (from
                  * 146,577 B the optimum is 7,504,936 B; a staircase that took
                  * the resident way's F_beta as the group's need said 7,536,296). */
                 {"mobilenet_v3_large", "brr", 128 * 1024, 192 * 1024},
                 {"mobilenet_v3_small", "lbdf", 112 * 1024, 144 * 1024}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lf_graph *g = network(cases[i].model);
        if (!g)
            continue;
        lf_hw hw;
        lf_hw_default(&hw);
        lf_curve c;
        CHECK_OK(lf_curve_compute(g, &hw, cases[i].scheme, cases[i].lo, cases[i].hi, NULL, &c));
        CHECK(c.n > 3);
        CHECK(c.stats.groups_skipped > 0 && c.stats.groups_skipped < c.stats.groups);
        check_point_plans(g, cases[i].scheme, &c);
        check_against_exact(g, cases[i].scheme, &c);
        lf_curve_destroy(&c);
        lf_graph_free(g);
    }
}

/* A lone op below BRR's own threshold (an op that needs its whole input
 * and does not fit) costs the unfusable price, not its first step's: ViT's
 * class-token Concat reads its 150,528-byte input twice there, and the
 * staircase said 595,579,676 B at 64 KB for a plan costing 595,730,204. */
static void test_below_brr_threshold(void)
{
    lf_graph *g = network("vit_b_16");
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    hw.no_attention = 1;
    lf_curve c;
    CHECK_OK(lf_curve_compute(g, &hw, "lbdf", 64 * 1024, 80 * 1024, NULL, &c));
    for (int32_t k = 0; k < c.n; k++) {
        lf_hw at = hw;
        at.buffer_bytes = c.points[k].beta;
        lf_cost_model *cm = NULL;
        lf_plan_metrics m;
        CHECK_OK(lf_cost_model_create(&cm, g, &at, "lbdf"));
        CHECK_OK(lf_plan_metrics_compute(&c.points[k].plan, cm, &m));
        CHECK_EQ_I64(m.dram_all, c.points[k].dram_all);
        lf_cost_model_free(cm);
    }
    CHECK(c.n >= 1);
    if (c.n >= 1)
        CHECK_EQ_I64(c.points[0].dram_all, 595730204);
    lf_curve_destroy(&c);
    lf_graph_free(g);
}

/* An attention group's K/V are resident or read again per query tile by
 * the buffer, so under LBDF too it has a step for each way (the staircase
 * priced BERT's at the largest buffer: 399,733,632 B at 64 KB for a plan
 * costing 405,631,872). */
static void test_attention_steps(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    lf_model_seq_options so = {128, 1, LF_PHASE_PREFILL, 0};
    CHECK_OK(lf_model_build_seq("bert_base", &opt, &so, &g));
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    lf_curve c;
    CHECK_OK(lf_curve_compute(g, &hw, "lbdf", 64 * 1024, 256 * 1024, NULL, &c));
    CHECK(c.n >= 1);
    check_point_plans(g, "lbdf", &c);
    lf_curve_destroy(&c);
    lf_graph_free(g);
}

/* Each point's plan costs the point's DRAM where an attention group's need
 * or F_D is not monotone in the query-tile height (issue 35), one built-in
 * each, over the range where the staircase stopped at its own check:
 * - ViT-B/16, two blocks: a group that makes its K/V holds a whole map in
 *   the pass before the query tiles, so f(h) there does not grow with h,
 *   and subtracting h rows of score windows from it made the online
 *   softmax's need fall as h grew (2,815,499 B at 66 rows, 2,819,594 at
 *   one): the steps put the resident K/V from 2,815,500 B, the price, which
 *   asked one row first, from 2,819,595;
 * - Llama-3-8B prefill, one block, N = 512: four query heads stacked on one
 *   K/V head; a causal tile straddling two stacks reads every key, so fewer
 *   tiles are not always cheaper (at 65,536 B) and the price took the
 *   fewest tiles, the steps the cheapest;
 * - Llama-3-8B decode, context 512: the four stacked query rows, as ViT. */
static void check_seq_curve(const char *name, const lf_model_seq_options *so, int64_t lo, int64_t hi)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    CHECK_OK(lf_model_build_seq(name, &opt, so, &g));
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    lf_curve c;
    CHECK_OK(lf_curve_compute(g, &hw, "lbdf", lo, hi, NULL, &c));
    CHECK(c.n >= 2);
    check_point_plans(g, "lbdf", &c);
    lf_curve_destroy(&c);
    lf_graph_free(g);
}

static void test_attention_not_monotone(void)
{
    lf_model_seq_options vit = {0, 2, LF_PHASE_PREFILL, 0};
    check_seq_curve("vit_b_16", &vit, 2700 * 1024, 2900 * 1024);
    lf_model_seq_options prefill = {512, 1, LF_PHASE_PREFILL, 0};
    check_seq_curve("llama3_8b", &prefill, 64 * 1024, 96 * 1024);
    lf_model_seq_options decode = {0, 1, LF_PHASE_DECODE, 512};
    check_seq_curve("llama3_8b", &decode, 16 * 1024, 64 * 1024);
}

/* A lone op costs what lf_cost_eval says where it fits at the buffer and
 * the BRR charge at that buffer where it does not (lf_cost_singleton_at),
 * in the staircase as in lf_plan_metrics_compute. Llama-3-8B's down_proj
 * (64 x 14,336 by 14,336 x 4,096, int8; W = 58,720,256, input 917,504,
 * output 262,144) under BRR needs one input row + one column + one output
 * byte = 28,673 B: from 28,674 B it runs by output columns, the matrix read
 * once and the input 4,096 times (64 W + 64 input + output =
 * 3,817,078,784 B); below, its charge streams the weights per row, 64 W +
 * input + output = 3,759,276,032 B, and so again from 32,769 B, where that
 * row schedule fits. The staircase priced the op from no buffer at its row
 * schedule and stopped at 28,679 B (11,769,081,920 B for a plan costing
 * 11,826,884,672), both schemes (under LBDF the op is unfusable there). */
static void test_lone_matmul(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    lf_model_seq_options so = {64, 1, LF_PHASE_PREFILL, 0};
    CHECK_OK(lf_model_build_seq("llama3_8b", &opt, &so, &g));
    if (!g)
        return;
    int32_t v = -1;
    for (int32_t i = 0; i < g->n_ops; i++)
        if (strcmp(g->ops[i].name, "model.layers.0.mlp.down_proj.MatMul") == 0)
            v = i;
    CHECK(v >= 0);
    const char *schemes[2] = {"lbdf", "brr"};
    for (int s = 0; s < 2 && v >= 0; s++) {
        lf_hw hw;
        lf_hw_default(&hw);
        hw.buffer_bytes = 28679;
        lf_cost_model *cm = NULL;
        CHECK_OK(lf_cost_model_create(&cm, g, &hw, schemes[s]));
        if (!cm)
            continue;
        int64_t d = 0, plan = 0;
        CHECK_OK(lf_cost_singleton_at(cm, v, 28673, &d));
        CHECK_EQ_I64(d, 3759276032);
        CHECK_OK(lf_cost_singleton_at(cm, v, 28674, &d));
        CHECK_EQ_I64(d, 3817078784);
        CHECK_OK(lf_cost_singleton_at(cm, v, 32769, &d));
        CHECK_EQ_I64(d, 3759276032);
        /* the model's own charge at its buffer, fusable or not */
        if (lf_cost_fusable(cm, v)) {
            lf_group_cost c;
            lf_bitset one;
            CHECK_OK(lf_bitset_init(&one, g->n_ops));
            lf_bitset_set(&one, v);
            CHECK_OK(lf_cost_eval(cm, &one, &c));
            plan = c.f_d;
            lf_bitset_destroy(&one);
        } else {
            CHECK_OK(lf_cost_unfusable_dram(cm, v, &plan));
        }
        CHECK_EQ_I64(plan, 3817078784);
        CHECK_EQ_I64(lf_cost_fusable(cm, v), s == 1);
        /* the steps from 28,674 B start at that price; the rise is a cut */
        lf_cost_step st[LF_COST_MAX_STEPS];
        int32_t n = 0;
        CHECK_OK(lf_cost_singleton_steps(cm, v, 28674, 64 * 1024, st, LF_COST_MAX_STEPS, &n));
        CHECK(n >= 2);
        if (n >= 2) {
            CHECK_EQ_I64(st[0].need, 0);
            CHECK_EQ_I64(st[0].f_d, 3817078784);
            CHECK_EQ_I64(st[1].need, 32768);
            CHECK_EQ_I64(st[1].f_d, 3759276032);
        }
        int64_t cuts[4];
        int32_t n_cuts = 0;
        CHECK_OK(lf_cost_singleton_rises(cm, v, 16 * 1024, 64 * 1024, cuts, &n_cuts));
        CHECK_EQ_I64(n_cuts, 1);
        CHECK_EQ_I64(cuts[0], 28674);
        lf_cost_model_free(cm);

        lf_curve c;
        lf_hw_default(&hw);
        CHECK_OK(lf_curve_compute(g, &hw, schemes[s], 16 * 1024, 32 * 1024, NULL, &c));
        int32_t at = -1;
        for (int32_t k = 0; k < c.n; k++) {
            lf_hw b = hw;
            b.buffer_bytes = c.points[k].beta;
            lf_cost_model *pm = NULL;
            lf_plan_metrics m;
            CHECK_OK(lf_cost_model_create(&pm, g, &b, schemes[s]));
            CHECK_OK(lf_plan_check(&c.points[k].plan, pm));
            CHECK_OK(lf_plan_metrics_compute(&c.points[k].plan, pm, &m));
            CHECK_EQ_I64(m.dram_all, c.points[k].dram_all);
            lf_cost_model_free(pm);
            if (c.points[k].beta == 28674)
                at = k;
        }
        /* the optimum rises where the op's price does */
        CHECK(at > 0);
        if (at > 0)
            CHECK(c.points[at].dram_all > c.points[at - 1].dram_all);
        CHECK_EQ_I64(lf_curve_dram_at(&c, 28679), 11826884672);
        lf_curve_destroy(&c);
    }
    /* Under energy and latency the same rise (LBDF: the op is unfusable on
     * both sides of 28,674 B) is a cut; the single-buffer planner agrees
     * (it stopped at 28,679 B too). */
    for (int o = 1; o < LF_PLAN_OBJ_COUNT; o++) {
        lf_hw hw;
        lf_hw_default(&hw);
        hw.peak_macs = 2e10;
        lf_exact_config ec;
        lf_exact_config_default(&ec);
        ec.objective = o;
        lf_curve c;
        CHECK_OK(lf_curve_compute(g, &hw, "lbdf", 16 * 1024, 32 * 1024, &ec, &c));
        int32_t checked = 0;
        CHECK_OK(lf_curve_check(g, &hw, "lbdf", &c, &ec, &checked));
        CHECK(checked > 0);
        lf_curve_destroy(&c);
    }
    lf_graph_free(g);
}

/* Llama-3-8B's lm_head (64 x 4,096 by 4,096 x 128,256, int8) under BRR runs
 * alone by output columns from one input row + one column + one output byte
 * = 8,193 B, where its output row alone (128,256 B) fits no buffer here.
 * The exact planner's F_beta floor counted that row and left the op out below
 * 20,641 B ("no valid plan" at 20,000 B); BRR's steps returned none where
 * rows do not fit, so under energy and latency the staircase had no step for
 * it below 64 KB ("no plan"). Above 64 KB down_proj's column blocks lower its
 * DRAM at 71,685 B but raise its energy (its input read once per block):
 * the staircase kept the cheaper figure from below, 1,574,274,596,373 fJ
 * short of the plan at 73,857 B. */
static void test_brr_lm_head(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    lf_model_seq_options so = {64, 1, LF_PHASE_PREFILL, 0};
    CHECK_OK(lf_model_build_seq("llama3_8b", &opt, &so, &g));
    if (!g)
        return;
    int32_t v = -1;
    for (int32_t i = 0; i < g->n_ops; i++)
        if (strcmp(g->ops[i].name, "lm_head.MatMul") == 0)
            v = i;
    CHECK(v >= 0);
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = 20000;
    lf_cost_model *cm = NULL;
    CHECK_OK(lf_cost_model_create(&cm, g, &hw, "brr"));
    if (cm && v >= 0) {
        CHECK(lf_cost_column_tiled(cm, v));
        lf_bitset one;
        lf_group_cost gc;
        CHECK_OK(lf_bitset_init(&one, g->n_ops));
        lf_bitset_set(&one, v);
        CHECK_OK(lf_cost_eval(cm, &one, &gc));
        CHECK(gc.valid);
        CHECK_EQ_I64(gc.f_beta, 8193);
        lf_cost_step st[LF_COST_MAX_STEPS];
        int32_t n = 0;
        CHECK_OK(lf_cost_steps(cm, &one, 64 * 1024, st, LF_COST_MAX_STEPS, &n));
        CHECK(n >= 1);
        if (n >= 1)
            CHECK_EQ_I64(st[0].need, 8193);
        lf_bitset_destroy(&one);
        lf_plan p;
        lf_status ps = lf_exact_plan(cm, NULL, &p, NULL);
        CHECK_OK(ps);
        if (ps == LF_OK) {
            int32_t alone = 0;
            for (int32_t u = 0; u < g->n_ops; u++)
                alone += p.group_of[u] == p.group_of[v];
            CHECK_EQ_I64(alone, 1);
            lf_plan_destroy(&p);
        }
    }
    lf_cost_model_free(cm);
    lf_curve c;
    lf_hw_default(&hw);
    CHECK_OK(lf_curve_compute(g, &hw, "brr", 16 * 1024, 32 * 1024, NULL, &c));
    for (int32_t k = 0; k < c.n; k++) { /* it rises at 28,674 B (test_lone_matmul) */
        lf_hw b = hw;
        b.buffer_bytes = c.points[k].beta;
        lf_cost_model *pm = NULL;
        lf_plan_metrics m;
        CHECK_OK(lf_cost_model_create(&pm, g, &b, "brr"));
        CHECK_OK(lf_plan_check(&c.points[k].plan, pm));
        CHECK_OK(lf_plan_metrics_compute(&c.points[k].plan, pm, &m));
        CHECK_EQ_I64(m.dram_all, c.points[k].dram_all);
        lf_cost_model_free(pm);
    }
    CHECK_EQ_I64(exact_at(g, "brr", 20000), lf_curve_dram_at(&c, 20000));
    CHECK_EQ_I64(lf_curve_dram_at(&c, 20000), 19049353280);
    lf_curve_destroy(&c);
    for (int o = 1; o < LF_PLAN_OBJ_COUNT; o++) {
        lf_exact_config ec;
        lf_exact_config_default(&ec);
        ec.objective = o;
        int64_t ranges[2][2] = {{16 * 1024, 64 * 1024}, {64 * 1024, 80 * 1024}};
        for (int r = 0; r < 2; r++) {
            lf_curve_report rep;
            CHECK_OK(lf_curve_report_compute(&rep, g, "llama3_8b", &hw, "brr", ranges[r][0],
                                             ranges[r][1], &ec));
            CHECK(rep.curve.n >= 2);
            lf_curve_report_destroy(&rep);
        }
    }
    lf_graph_free(g);
}

/* Under energy, a group of several ops whose price is not a step function
 * of its DRAM that only falls (issue 40), GPT-2 one block at N = 64 with
 * the built-in hardware:
 * - BRR, 64-80 KB: an attention group's query tiles grow with the buffer
 *   while its F_D stays (no DRAM step), so its row steps and energy fall
 *   there; priced only at its DRAM steps, the staircase said
 *   24,817,338,904,380 fJ at 65,536 B for a plan costing 24,816,854,782,775
 *   (lf_cost_attn_prices now gives its price at every buffer);
 * - LBDF, 620-650 KB: an attention group's energy rises at a step where
 *   its DRAM falls (its K/V become resident at a smaller query tile, so
 *   more row steps); the DP charged it the price before the rise, and the
 *   staircase said 4,867,196,311,192 fJ at 645,191 B for a plan costing
 *   4,937,205,929,535. Its plans are now checked and the range cut there
 *   (lf__curve_plan_rises): the optimum rises at 640,641 B.
 * lf_curve_report_compute prices every point's plan at its buffer (an
 * internal error where it differs), --check's buffers agree, and the
 * attention groups' prices over the range are lf_cost_eval_at's. */
static void test_group_rises(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    lf_model_seq_options so = {64, 1, LF_PHASE_PREFILL, 0};
    CHECK_OK(lf_model_build_seq("gpt2", &opt, &so, &g));
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    lf_exact_config ec;
    lf_exact_config_default(&ec);
    ec.objective = LF_PLAN_OBJ_ENERGY;
    const char *schemes[2] = {"brr", "lbdf"};
    const int64_t ranges[2][2] = {{64 * 1024, 80 * 1024}, {620 * 1024, 650 * 1024}};
    for (int r = 0; r < 2; r++) {
        lf_curve_report rep;
        CHECK_OK(lf_curve_report_compute(&rep, g, "gpt2", &hw, schemes[r], ranges[r][0], ranges[r][1], &ec));
        int32_t checked = 0;
        CHECK(rep.curve.n >= 2);
        if (rep.curve.n >= 2)
            CHECK_OK(lf_curve_check(g, &hw, schemes[r], &rep.curve, &ec, &checked));
        /* Each attention group of the plans: lf_cost_attn_prices' pieces are
         * lf_cost_eval_at's price at their first buffer and one byte below. */
        lf_hw fixed = hw;
        lf_curve_fix_sram(&fixed);
        lf_cost_model *cm = NULL;
        CHECK_OK(lf_cost_model_create(&cm, g, &fixed, schemes[r]));
        int32_t *m = malloc((size_t)g->n_ops * sizeof *m), pieces = 0;
        for (int32_t k = 0; cm && m && k < rep.curve.n; k++) {
            const lf_plan *p = &rep.curve.points[k].plan;
            for (int32_t gi = 0; gi < p->n_groups; gi++) {
                int32_t n = 0, ns = 0;
                for (int32_t v = 0; v < g->n_ops; v++)
                    if (p->group_of[v] == gi)
                        m[n++] = v;
                lf_cost_sched *sc = NULL;
                CHECK_OK(lf_cost_attn_prices(cm, m, n, ranges[r][0], ranges[r][1], &sc, &ns));
                for (int32_t i = 0; i < ns; i++) {
                    CHECK(i == 0 ? sc[i].at == ranges[r][0] : sc[i].at > sc[i - 1].at);
                    lf_group_cost gc;
                    CHECK_OK(lf_cost_eval_at(cm, m, n, sc[i].at, &gc));
                    CHECK_EQ_I64(gc.valid, sc[i].valid);
                    if (gc.valid) {
                        CHECK_EQ_I64(gc.f_d, sc[i].f_d);
                        CHECK_EQ_I64(gc.steps, sc[i].steps);
                    }
                    if (i > 0) { /* the piece before still holds one byte below */
                        CHECK_OK(lf_cost_eval_at(cm, m, n, sc[i].at - 1, &gc));
                        CHECK(gc.valid == sc[i - 1].valid &&
                              (!gc.valid || (gc.f_d == sc[i - 1].f_d && gc.steps == sc[i - 1].steps)));
                    }
                }
                pieces += ns;
                free(sc);
            }
        }
        CHECK(pieces > 0);
        free(m);
        lf_cost_model_free(cm);
        if (r == 1) { /* the points below the cut are those of the range that ends there */
            lf_curve below, above;
            CHECK_OK(lf_curve_compute(g, &hw, schemes[r], ranges[r][0], 640640, &ec, &below));
            CHECK_OK(lf_curve_compute(g, &hw, schemes[r], 640641, ranges[r][1], &ec, &above));
            CHECK_EQ_I64(below.n + above.n, rep.curve.n);
            for (int32_t k = 0; k < rep.curve.n && below.n + above.n == rep.curve.n; k++) {
                const lf_curve_point *q = k < below.n ? &below.points[k] : &above.points[k - below.n];
                CHECK_EQ_I64(q->beta, rep.curve.points[k].beta);
                CHECK_EQ_I64(q->dram_all, rep.curve.points[k].dram_all);
                CHECK(!memcmp(q->plan.group_of, rep.curve.points[k].plan.group_of,
                              (size_t)g->n_ops * sizeof *q->plan.group_of));
            }
            lf_curve_destroy(&below);
            lf_curve_destroy(&above);
        }
        if (r == 1) { /* the rise: a point at 640,641 B dearer than the one before */
            int32_t k = 0;
            while (k < rep.curve.n && rep.curve.points[k].beta != 640641)
                k++;
            CHECK(k > 0 && k < rep.curve.n);
            if (k > 0 && k < rep.curve.n)
                CHECK(rep.curve.points[k].dram_all > rep.curve.points[k - 1].dram_all);
        }
        lf_curve_report_destroy(&rep);
    }
    lf_graph_free(g);
}

/* A lone MatMul that BRR tiles by columns runs by rows where the rows' F_D
 * ties the columns' (lf__brr_cols takes columns only when they move less),
 * so its energy can fall where its F_D does not: BERT-base's query, key and
 * value projections (128 x 768 by 768 x 768, int8) at 99,073 B run in two
 * row tiles of 64 (F_D 1,376,256 B, about 130 uJ each) where one byte below
 * they ran in 7 column blocks of 110 (the same F_D, 809 uJ: the input read
 * from the buffer per block and the weights per row). The staircase's steps
 * kept only the first of two equal F_D and said 3,816,652,454,018 fJ at
 * 99,073 B, one block, built-in hardware, where the optimum is
 * 3,725,366,901,328 (lf_cost_op_schedules now gives every schedule). */
static void test_column_tie(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    lf_model_seq_options so = {0, 1, LF_PHASE_PREFILL, 0};
    CHECK_OK(lf_model_build_seq("bert_base", &opt, &so, &g));
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    lf_exact_config ec;
    lf_exact_config_default(&ec);
    ec.objective = LF_PLAN_OBJ_ENERGY;
    lf_curve_report rep;
    CHECK_OK(lf_curve_report_compute(&rep, g, "bert_base", &hw, "brr", 96 * 1024, 100 * 1024, &ec));
    int32_t checked = 0;
    CHECK(rep.curve.n >= 2);
    if (rep.curve.n >= 2)
        CHECK_OK(lf_curve_check(g, &hw, "brr", &rep.curve, &ec, &checked));
    CHECK_EQ_I64(lf_curve_dram_at(&rep.curve, 99073), 3725366901328);
    lf_curve_report_destroy(&rep);
    lf_graph_free(g);
}

/* The same staircase, plans and counts with any number of workers; with
 * two, the joined pairs of Inception-v3 under BRR do run on both. */
static void test_threads(void)
{
    lf_graph *g = network("inception_v3");
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    lf_curve c[3];
    for (int t = 0; t < 3; t++) {
        lf_exact_config cfg;
        lf_exact_config_default(&cfg);
        cfg.time_limit_s = 0;
        cfg.threads = t + 1;
        CHECK_OK(lf_curve_compute(g, &hw, "brr", 64 * 1024, 96 * 1024, &cfg, &c[t]));
        CHECK_EQ_I64(c[t].threads, t + 1);
    }
    CHECK(c[0].n > 10);
    CHECK_EQ_I64(c[0].parallel_batches, 0);
    CHECK(c[1].parallel_batches > 0);
    for (int t = 1; t < 3; t++) {
        CHECK_EQ_I64(c[t].n, c[0].n);
        CHECK_EQ_I64(c[t].front_points, c[0].front_points);
        CHECK_EQ_I64(c[t].stats.groups, c[0].stats.groups);
        CHECK_EQ_I64(c[t].stats.groups_skipped, c[0].stats.groups_skipped);
        CHECK_EQ_I64(c[t].stats.memory_bytes, c[0].stats.memory_bytes);
        for (int32_t k = 0; k < c[0].n && k < c[t].n; k++) {
            CHECK_EQ_I64(c[t].points[k].beta, c[0].points[k].beta);
            CHECK_EQ_I64(c[t].points[k].dram_all, c[0].points[k].dram_all);
            CHECK(memcmp(c[t].points[k].plan.group_of, c[0].points[k].plan.group_of,
                         (size_t)g->n_ops * sizeof *c[0].points[k].plan.group_of) == 0);
        }
    }
    /* The two ends against the single-buffer planner. */
    CHECK_EQ_I64(c[1].points[0].dram_all, exact_at(g, "brr", 64 * 1024));
    CHECK_EQ_I64(c[1].points[c[1].n - 1].dram_all, exact_at(g, "brr", 96 * 1024));
    for (int t = 0; t < 3; t++)
        lf_curve_destroy(&c[t]);
    lf_graph_free(g);
}

/* lf_curve_check agrees with a computed staircase at every step, one byte
 * below each and at the largest buffer, and finds a step moved by one byte
 * either way or a DRAM one byte off. */
static void test_check(void)
{
    lf_graph *g = network("resnet18");
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    lf_curve c;
    CHECK_OK(lf_curve_compute(g, &hw, "lbdf", 64 * 1024, 512 * 1024, NULL, &c));
    CHECK(c.n > 5);
    int32_t checked = 0;
    CHECK_OK(lf_curve_check(g, &hw, "lbdf", &c, NULL, &checked));
    CHECK_EQ_I64(checked, 2 * c.n - 1 + (c.points[c.n - 1].beta != c.beta_max));
    int32_t k = c.n / 2;
    const int64_t d[3][2] = {{0, 1}, {1, 0}, {-1, 0}}; /* (beta, DRAM) moved by */
    for (int i = 0; i < 3; i++) {
        c.points[k].beta += d[i][0];
        c.points[k].dram_all += d[i][1];
        CHECK_EQ_I64(lf_curve_check(g, &hw, "lbdf", &c, NULL, &checked), LF_EPLAN);
        CHECK(strstr(lf_last_error(), "curve check: at ") != NULL);
        c.points[k].beta -= d[i][0];
        c.points[k].dram_all -= d[i][1];
    }
    lf_curve_destroy(&c);
    lf_graph_free(g);
}

static void test_bad_range(void)
{
    lf_graph *g = rdag_build(1, RDAG_CHAIN, 4);
    lf_hw hw;
    lf_hw_default(&hw);
    lf_curve c;
    CHECK_EQ_I64(lf_curve_compute(g, &hw, "lbdf", 4096, 4096, NULL, &c), LF_EINVAL);
    CHECK_EQ_I64(lf_curve_compute(g, &hw, "lbdf", 0, 4096, NULL, &c), LF_EINVAL);
    lf_graph_free(g);
}

/* The staircase prices an attention group once over the whole range
 * (lf__attn_range_prices) and takes each part's steps from those pieces
 * (lf__attn_part_steps, curve_attn.c): they are the steps the part's own
 * walk below hi and prices from lo give (lf_cost_steps_priced, then
 * lf__steps_objective), for every window of 2 to 6 consecutive ops of two
 * BERT-base blocks holding an attention product, under energy and latency,
 * over parts that start and end at the pieces' own buffers, one byte either
 * side, and where the staircase cuts (99,201 B, 2,569,217 B). */
static void test_attention_parts(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    lf_model_seq_options so = {0, 2, LF_PHASE_PREFILL, 0};
    CHECK_OK(lf_model_build_seq("bert_base", &opt, &so, &g));
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    lf_curve_fix_sram(&hw);
    const int64_t L = 64 * 1024, H = 4 * 1024 * 1024;
    hw.buffer_bytes = H;
    lf_bitset set;
    CHECK_OK(lf_bitset_init(&set, g->n_ops));
    lf_cost_step *pieces = malloc((LF__ATTN_PIECES + 1) * sizeof *pieces);
    lf_cost_step *want = malloc(LF_COST_MAX_STEPS * sizeof *want), *got = malloc(LF_COST_MAX_STEPS * sizeof *got);
    lf_group_cost *at = malloc(LF_COST_MAX_STEPS * sizeof *at);
    int32_t m[8], groups = 0, parts = 0;
    for (int obj = LF_PLAN_OBJ_ENERGY; obj <= LF_PLAN_OBJ_LATENCY && pieces && want && got && at; obj++) {
        lf_cost_model *cm = NULL;
        CHECK_OK(lf_cost_model_create(&cm, g, &hw, "brr"));
        if (!cm)
            break;
        CHECK_OK(lf_cost_set_objective(cm, (lf_plan_objective)obj));
        for (int32_t a = 1; a < g->n_ops; a++)
            for (int32_t len = 2; len <= 6 && a + len <= g->n_ops; len++) {
                lf_cost_sched *sc = NULL;
                int32_t ns = 0, np = 0, nw = 0;
                int inputs = 0;
                for (int32_t i = 0; i < len; i++) {
                    m[i] = a + i;
                    inputs |= g->ops[a + i].type == LF_OP_INPUT;
                }
                if (inputs)
                    continue;
                CHECK_OK(lf_cost_attn_prices(cm, m, len, L, H, &sc, &ns));
                free(sc);
                if (!sc)
                    continue; /* no attention product */
                CHECK_OK(lf__attn_range_prices(cm, m, len, NULL, NULL, L, H, pieces, &np));
                if (np == 0)
                    continue;
                lf_bitset_clear_all(&set);
                for (int32_t i = 0; i < len; i++)
                    lf_bitset_set(&set, m[i]);
                int priced = 0;
                CHECK_OK(lf_cost_steps_priced(cm, &set, H, 0, want, at, LF_COST_MAX_STEPS, &nw, &priced));
                int64_t first_need = nw > 0 ? want[0].need : INT64_MAX;
                groups++;
                int64_t los[8] = {L, L + 1, 99201, 2569217, pieces[np / 2].need, pieces[np / 2].need - 1,
                                  pieces[np / 2].need + 1, pieces[np - 1].need};
                int64_t his[6] = {H, 2575364, pieces[np - 1].need, pieces[np - 1].need - 1, pieces[np / 2].need,
                                  first_need + 1};
                for (int i = 0; i < 8; i++)
                    for (int j = 0; j < 6; j++) {
                        int64_t lo = los[i], hi = his[j];
                        if (lo < L || hi > H || hi <= lo)
                            continue;
                        int32_t n = 0, k = 0;
                        priced = 0;
                        CHECK_OK(lf_cost_steps_priced(cm, &set, hi, lo, want, at, LF_COST_MAX_STEPS, &n, &priced));
                        CHECK_OK(lf__steps_objective(cm, m, len, -1, 0, lo, hi, want, priced ? at : NULL, &n));
                        CHECK_OK(lf__attn_part_steps(cm, pieces, np, first_need, lo, hi, got, &k));
                        CHECK_EQ_I64(k, n);
                        for (int32_t q = 0; q < n && q < k; q++) {
                            CHECK_EQ_I64(got[q].need, want[q].need);
                            CHECK_EQ_I64(got[q].f_d, want[q].f_d);
                        }
                        parts++;
                    }
            }
        lf_cost_model_free(cm);
    }
    CHECK(groups >= 20);
    CHECK(parts >= 20 * 20);
    free(pieces);
    free(want);
    free(got);
    free(at);
    lf_bitset_destroy(&set);
    lf_graph_free(g);
}

int main(void)
{
    test_random_dags();
    test_networks();
    test_below_brr_threshold();
    test_attention_steps();
    test_attention_not_monotone();
    test_lone_matmul();
    test_brr_lm_head();
    test_group_rises();
    test_attention_parts();
    test_column_tie();
    test_threads();
    test_check();
    test_bad_range();
    return lf_test_result();
}

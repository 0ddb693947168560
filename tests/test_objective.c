/* Objectives (planner/cost/objective.h, docs/cost-models.md "Objectives"):
 * the exact planner minimises energy or latency as it minimises DRAM,
 *  - on a hand-computed graph where the energy-optimal plan is not the
 *    DRAM-optimal one;
 *  - against brute force over every partition of small random DAGs, for
 *    each objective, both schemes and three buffers, also with brute
 *    force's optimum as the branch and bound's upper bound (and one below);
 *  - with the same plan whatever the thread count (searches and exact);
 * and a lone MatMul tiled by column blocks counts the buffer traffic of its
 * own schedule (planner/cost/energy.c). */
#include <string.h>

#include "fixtures.h"
#include "graphs.h"
#include "planner/cost/energy.h"
#include "planner/cost/objective.h"
#include "planner/exact/curve.h"
#include "planner/exact/exact.h"
#include "planner/exact/solve.h"
#include "planner/app/pipeline.h"
#include "planner/plan.h"
#include "random_dags.h"
#include "testlib.h"

/* DRAM 64 pJ/B, SRAM 2 pJ/B, 0.25 pJ/MAC, 10^12 MAC/s, 25.6 GB/s (as
 * tests/test_energy.c). */
static lf_cost_model *model(const lf_graph *g, int64_t beta, const char *scheme, double peak)
{
    lf_hw hw = tf_hw_bytes(beta);
    hw.has_energy = 1;
    hw.dram_pj_per_byte = 64;
    hw.sram_pj_per_byte = 2;
    hw.mac_pj = 0.25;
    hw.peak_macs = peak;
    lf_cost_model *cm = NULL;
    CHECK_OK(lf_cost_model_create(&cm, g, &hw, scheme));
    return cm;
}

static lf_group_cost eval_names(lf_cost_model *cm, const char *const *names, int n)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_bitset s;
    lf_group_cost c;
    lf_bitset_init(&s, g->n_ops);
    for (int i = 0; i < n; i++)
        lf_bitset_set(&s, lf_graph_find(g, names[i]));
    CHECK_OK(lf_cost_eval(cm, &s, &c));
    lf_bitset_destroy(&s);
    return c;
}

/* I (8x8x8) -> P (1x1 conv, 8 -> 8) -> X; X -> A (3x3 conv stride 2, pad 1,
 * 8 -> 256, a graph output, 4x4x256) and X -> B (1x1 conv 8 -> 8, a graph
 * output). int8, no bias, LBDF at 1 MB (every group valid).
 *
 * DRAM (bytes): I 512, X 512, A 4,096, B 512; weights P 64, A 18,432, B 64.
 *   {P,A,B}        512 + 4,096 + 512 + 18,560                  = 23,680
 *   {P,B} {A}      (512 + 512 + 512 + 128) + (512 + 4,096 + 18,432) = 24,704
 *   {P,A} {B}      (512 + 512 + 4,096 + 18,496) + (512 + 512 + 64)  = 24,704
 *   {P} {A} {B}    1,088 + 23,040 + 1,088                      = 25,216
 * so the DRAM optimum is the whole graph.
 * Energy = 64 DRAM + 2 SRAM + 0.25 MACs, SRAM = F_D + activations (6,656 in
 * every plan: P 512 + 512, A 512 + 4,096, B 512 + 512) + steps x weights. A
 * group runs as many row steps as its sinks (ops read by no member) have
 * rows: {P,A,B} 8 (B's), {P,B} 8, {P,A} 4 (A's: P makes two rows of X a
 * step), {A} 4, {P} and {B} 8. Weight reads from the buffer:
 *   {P,A,B}      8 x 18,560                  = 148,480
 *   {P,B} {A}    8 x 128 + 4 x 18,432        =  74,752
 *   {P,A} {B}    4 x 18,496 + 8 x 64         =  74,496
 *   {P} {A} {B}  8 x 64 + 4 x 18,432 + 8 x 64 =  74,752
 * MACs 4,096 + 294,912 + 4,096 = 303,104 (75,776 pJ) in every plan. Energy:
 *   {P,A,B}      64 x 23,680 + 2 x (23,680 + 6,656 + 148,480) + 75,776 = 1,948,928 pJ
 *   {P,B} {A}    64 x 24,704 + 2 x (24,704 + 6,656 +  74,752) + 75,776 = 1,869,056 pJ
 *   {P,A} {B}    64 x 24,704 + 2 x (24,704 + 6,656 +  74,496) + 75,776 = 1,868,544 pJ
 *   {P} {A} {B}  64 x 25,216 + 2 x (25,216 + 6,656 +  74,752) + 75,776 = 1,902,848 pJ
 * The energy optimum is {P,A} {B}: fused with B, whose sink has 8 rows, A's
 * 18 KB of weights leave the buffer 8 times instead of 4, which costs more
 * (2 x 4 x 18,432 = 147,456 pJ) than writing and reading X once saves
 * (66 x 1,024 = 67,584 pJ); and {P,A} beats {P,B} {A} by P's weights read
 * in A's 4 steps rather than B's 8 (2 x 4 x 64 = 512 pJ). Latency: every
 * group is memory-bound (A's 294,912 MACs take 294.9 ns, its 23,040 B
 * 900 ns), so the latency optimum is the DRAM one,
 * 23,680 / 25.6e9 s = 925 ns = 925,000,000 fs. */
static void test_hand_computed(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "fork");
    tg_input(b, "i", 8, 8, 8);
    tg_conv(b, "p", "i", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "a", "p", 256, 3, 2, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "b", "p", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    lf_cost_model *cm = model(g, 1 << 20, "lbdf", 1e12);
    static const char *const pab[] = {"p", "a", "b"}, *const pb[] = {"p", "b"}, *const pa[] = {"p", "a"},
                             *const a[] = {"a"};
    lf_group_cost c = eval_names(cm, pab, 3);
    CHECK_EQ_I64(c.f_d, 23680);
    CHECK_EQ_I64(c.steps, 8);
    c = eval_names(cm, pb, 2);
    CHECK_EQ_I64(c.f_d, 1664);
    CHECK_EQ_I64(c.steps, 8);
    c = eval_names(cm, pa, 2);
    CHECK_EQ_I64(c.f_d, 23616);
    CHECK_EQ_I64(c.steps, 4);
    c = eval_names(cm, a, 1);
    CHECK_EQ_I64(c.f_d, 23040);
    CHECK_EQ_I64(c.steps, 4);
    int32_t ip = lf_graph_find(g, "p"), ia = lf_graph_find(g, "a"), ib = lf_graph_find(g, "b");
    for (int o = 0; o < LF_PLAN_OBJ_COUNT; o++) {
        CHECK_OK(lf_cost_set_objective(cm, (lf_plan_objective)o));
        lf_plan p;
        CHECK_OK(lf_exact_plan(cm, NULL, &p, NULL));
        lf_plan_metrics m;
        CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
        if (o == LF_PLAN_OBJ_ENERGY) {
            CHECK_EQ_I64(p.n_groups, 2);
            CHECK(p.group_of[ip] == p.group_of[ia] && p.group_of[ib] != p.group_of[ip]);
            CHECK_EQ_I64(m.dram_fusable, 24704);
            CHECK_NEAR(m.perf.total_pj, 1868544, 1e-6);
            CHECK_EQ_I64(m.objective, 1868544000); /* fJ */
        } else {
            CHECK_EQ_I64(p.n_groups, 1);
            CHECK_EQ_I64(m.dram_fusable, 23680);
            CHECK_NEAR(m.perf.total_pj, 1948928, 1e-6);
            CHECK_EQ_I64(m.objective, o == LF_PLAN_OBJ_DRAM ? 23680 : 925000000);
        }
        lf_plan_destroy(&p);
    }
    /* The other plans' energies, as the comment computes them. */
    CHECK_OK(lf_cost_set_objective(cm, LF_PLAN_OBJ_ENERGY));
    lf_plan q;
    lf_plan_init(&q, g->n_ops);
    q.group_of[ip] = 0, q.group_of[ib] = 0, q.group_of[ia] = 1, q.n_groups = 2;
    lf_plan_metrics m;
    CHECK_OK(lf_plan_metrics_compute(&q, cm, &m));
    CHECK_NEAR(m.perf.total_pj, 1869056, 1e-6);
    CHECK_EQ_I64(m.objective, 1869056000);
    q.group_of[ib] = 2, q.n_groups = 3;
    CHECK_OK(lf_plan_metrics_compute(&q, cm, &m));
    CHECK_NEAR(m.perf.total_pj, 1902848, 1e-6);
    lf_plan_destroy(&q);
    CHECK(lf_cost_set_objective(cm, LF_PLAN_OBJ_COUNT) == LF_EINVAL);
    CHECK(lf_plan_objective_from_name("joules") == LF_PLAN_OBJ_COUNT);
    CHECK(lf_plan_objective_from_name("latency") == LF_PLAN_OBJ_LATENCY);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* The fork above with a slower MAC array, 10^11 MAC/s, so that A is
 * compute-bound: the roofline latency of a group is max(MACs / 10^11,
 * F_D / 25.6e9) s (double buffering). MACs: P 4,096, A 294,912, B 4,096.
 *   group     F_D      memory       compute      latency
 *   {P,A,B}   23,680   925.00 ns    3,031.04 ns  3,031.04 ns (compute)
 *   {P,B}      1,664    65.00 ns       81.92 ns     81.92 ns (compute)
 *   {P,A}     23,616   922.50 ns    2,990.08 ns  2,990.08 ns (compute)
 *   {A}       23,040   900.00 ns    2,949.12 ns  2,949.12 ns (compute)
 *   {P}, {B}   1,088    42.50 ns       40.96 ns     42.50 ns (memory)
 * Plans: {P,A,B} 3,031.04 ns; {P,B} {A} 81.92 + 2,949.12 = 3,031.04 ns;
 * {P,A} {B} 2,990.08 + 42.50 = 3,032.58 ns; {P} {A} {B} 42.50 + 2,949.12
 * + 42.50 = 3,034.12 ns. Once A's MACs dominate, fusing saves only the
 * memory time of the groups that stay memory-bound: {P,A,B} and {P,B} {A}
 * tie at 3,031,040,000 fs and the one group wins (DESIGN §4); without
 * double buffering (compute + memory) {P,A,B} takes 3,956.04 ns. */
static void test_latency_by_hand(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "fork");
    tg_input(b, "i", 8, 8, 8);
    tg_conv(b, "p", "i", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "a", "p", 256, 3, 2, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "b", "p", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    lf_cost_model *cm = model(g, 1 << 20, "lbdf", 1e11);
    CHECK_OK(lf_cost_set_objective(cm, LF_PLAN_OBJ_LATENCY));
    int32_t ip = lf_graph_find(g, "p"), ia = lf_graph_find(g, "a"), ib = lf_graph_find(g, "b");
    /* Each group's figure and bound. */
    static const char *const a[] = {"a"}, *const pb[] = {"p", "b"}, *const pab[] = {"p", "a", "b"};
    lf_group_cost c = eval_names(cm, a, 1);
    lf_group_perf perf;
    CHECK_OK(lf_group_perf_ops(cm, &ia, 1, &c, &perf));
    CHECK(perf.bound == LF_BOUND_COMPUTE);
    CHECK_NEAR(perf.memory_s, 900e-9, 1e-18);
    CHECK_NEAR(perf.latency_s, 2949.12e-9, 1e-18);
    CHECK_EQ_I64(lf_cost_objective_value(cm, &ia, 1, &c), 2949120000);
    c = eval_names(cm, pb, 2);
    int32_t m_pb[2] = {ip, ib};
    CHECK_EQ_I64(lf_cost_objective_value(cm, m_pb, 2, &c), 81920000);
    int32_t m_p = ip;
    c = eval_names(cm, (const char *const[]){"p"}, 1);
    CHECK_OK(lf_group_perf_ops(cm, &m_p, 1, &c, &perf));
    CHECK(perf.bound == LF_BOUND_MEMORY);
    CHECK_EQ_I64(lf_cost_objective_value(cm, &m_p, 1, &c), 42500000);
    c = eval_names(cm, pab, 3);
    int32_t m_pab[3] = {ip, ia, ib};
    CHECK_OK(lf_group_perf_ops(cm, m_pab, 3, &c, &perf));
    CHECK_NEAR(perf.latency_serial_s, 3956.04e-9, 1e-18);
    /* The optimum, and the plans the comment prices. */
    lf_plan p;
    CHECK_OK(lf_exact_plan(cm, NULL, &p, NULL));
    lf_plan_metrics m;
    CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
    CHECK_EQ_I64(p.n_groups, 1);
    CHECK_EQ_I64(m.objective, 3031040000);
    CHECK_NEAR(m.perf.latency_s, 3031.04e-9, 1e-18);
    lf_plan_destroy(&p);
    static const int32_t plans[3][3] = {{0, 1, 0}, {0, 0, 1}, {0, 1, 2}}; /* P, A, B */
    static const int64_t fs[3] = {3031040000, 3032580000, 3034120000};
    for (int k = 0; k < 3; k++) {
        lf_plan q;
        lf_plan_init(&q, g->n_ops);
        q.group_of[ip] = plans[k][0], q.group_of[ia] = plans[k][1], q.group_of[ib] = plans[k][2];
        q.n_groups = k == 2 ? 3 : 2;
        CHECK_OK(lf_plan_metrics_compute(&q, cm, &m));
        CHECK_EQ_I64(m.objective, fs[k]);
        lf_plan_destroy(&q);
    }
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* ---- brute force over every partition ------------------------------------ */

typedef struct brute {
    lf_cost_model *cm;
    int32_t ops[64], n, label[64];
    lf_plan plan;
    int64_t best_obj;
    int32_t best_groups;
    int64_t valid;
} brute;

static void brute_rec(brute *b, int32_t i, int32_t n_labels)
{
    if (i == b->n) {
        b->plan.n_groups = n_labels;
        for (int32_t k = 0; k < b->n; k++)
            b->plan.group_of[b->ops[k]] = b->label[k];
        lf_plan_metrics m;
        if (lf_plan_check(&b->plan, b->cm) != LF_OK || lf_plan_metrics_compute(&b->plan, b->cm, &m) != LF_OK)
            return;
        b->valid++;
        if (m.objective < b->best_obj || (m.objective == b->best_obj && m.n_groups < b->best_groups)) {
            b->best_obj = m.objective;
            b->best_groups = m.n_groups;
        }
        return;
    }
    for (int32_t l = 0; l <= n_labels; l++) {
        b->label[i] = l;
        brute_rec(b, i + 1, l == n_labels ? n_labels + 1 : n_labels);
    }
}

static void test_brute_force(void)
{
    const int64_t betas[] = {RDAG_BETA_SMALL, RDAG_BETA_MEDIUM, RDAG_BETA_LARGE};
    const char *schemes[] = {"lbdf", "brr"};
    int compared = 0, differ = 0, bb_pruned = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 4; seed++) {
            lf_graph *g = rdag_build(seed, fam, 8);
            CHECK(g != NULL);
            if (!g)
                continue;
            for (int bi = 0; bi < 3; bi++)
                for (int si = 0; si < 2; si++) {
                    /* A peak that makes some groups compute-bound (the
                     * random convs do 10^4 to 10^6 MACs). */
                    lf_cost_model *cm = model(g, betas[bi], schemes[si], 2e10);
                    int64_t dram_opt = -1;
                    for (int o = 0; o < LF_PLAN_OBJ_COUNT; o++) {
                        CHECK_OK(lf_cost_set_objective(cm, (lf_plan_objective)o));
                        brute b = {0};
                        b.cm = cm;
                        for (int32_t v = 0; v < g->n_ops; v++)
                            if (g->ops[v].type != LF_OP_INPUT)
                                b.ops[b.n++] = v;
                        lf_plan_init(&b.plan, g->n_ops);
                        b.best_obj = INT64_MAX;
                        b.best_groups = INT32_MAX;
                        brute_rec(&b, 0, 0);
                        CHECK(b.valid > 0);
                        lf_plan p;
                        CHECK_OK(lf_exact_plan(cm, NULL, &p, NULL));
                        CHECK_OK(lf_plan_check(&p, cm));
                        lf_plan_metrics m;
                        CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
                        CHECK_EQ_I64(m.objective, b.best_obj);
                        CHECK_EQ_I64(m.n_groups, b.best_groups);
                        bb_pruned += tf_check_upper_bound(cm, b.best_obj, &p);
                        if (m.objective != b.best_obj)
                            fprintf(stderr, "  %s seed %d beta %lld %s objective %s\n", rdag_family_names[fam],
                                    (int)seed, (long long)betas[bi], schemes[si],
                                    lf_plan_objective_name((lf_plan_objective)o));
                        if (o == LF_PLAN_OBJ_DRAM)
                            dram_opt = m.dram_fusable;
                        else
                            differ += m.dram_fusable != dram_opt;
                        compared++;
                        lf_plan_destroy(&p);
                        lf_plan_destroy(&b.plan);
                    }
                    lf_cost_model_free(cm);
                }
            lf_graph_free(g);
        }
    CHECK(compared == RDAG_FAMILIES * 4 * 6 * 3);
    /* The objectives must pick other plans somewhere, or this test could
     * not tell them apart. */
    fprintf(stderr, "  brute force: %d settings, %d energy/latency optima with other DRAM\n", compared, differ);
    CHECK(differ > 0);
    /* Branch and bound in fJ and fs as in bytes (tf_check_upper_bound):
     * pruning one unit below the optimum must happen, or that check could
     * pass on the goal's figure alone. */
    fprintf(stderr, "  upper bound: the optimum less one pruned states in %d of %d settings\n", bb_pruned,
            compared);
    CHECK(bb_pruned >= compared / 4);
}

/* Joins at cut ops (planner/exact/cut_join.c) under every objective: a
 * group holding a cut op and ops above it is priced from its tail's and
 * head's sums and pruned with the objective's floors
 * (lf_cost_objective_part_floor, lf_cost_objective_sums,
 * lf_cost_objective_fd_limit). The optimum (figure and group count) must be
 * the one of the same DP growing every group whole from every state, on
 * random DAGs of 24 ops of every family (chains and residual blocks are full
 * of cut ops), both schemes, three buffers and a peak that makes some
 * groups compute-bound; and the joins must be taken (fewer candidate sets
 * visited). The brute force above runs through the joins too. */
static void test_joins(void)
{
    const int64_t betas[] = {RDAG_BETA_SMALL, RDAG_BETA_MEDIUM, RDAG_BETA_LARGE};
    const char *schemes[] = {"lbdf", "brr"};
    int64_t joined = 0, whole = 0;
    int cases = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 3; seed++) {
            lf_graph *g = rdag_build(100 + seed, fam, 24);
            CHECK(g != NULL);
            if (!g)
                continue;
            for (int bi = 0; bi < 3; bi++)
                for (int si = 0; si < 2; si++) {
                    lf_cost_model *cm = model(g, betas[bi], schemes[si], 2e10);
                    for (int o = 0; o < LF_PLAN_OBJ_COUNT; o++) {
                        CHECK_OK(lf_cost_set_objective(cm, (lf_plan_objective)o));
                        lf_plan a, b;
                        int64_t da = -1, db = -2;
                        lf_exact_stats sa, sb;
                        CHECK_OK(lf__exact_solve(cm, NULL, NULL, &a, &da, &sa));
                        CHECK_OK(lf__exact_solve_whole(cm, NULL, NULL, &b, &db, &sb));
                        CHECK_EQ_I64(da, db);
                        CHECK_EQ_I64(a.n_groups, b.n_groups);
                        if (da != db)
                            fprintf(stderr, "  joins: %s seed %d beta %lld %s %s: %lld, whole %lld\n",
                                    rdag_family_names[fam], (int)(100 + seed), (long long)betas[bi],
                                    schemes[si], lf_plan_objective_name((lf_plan_objective)o), (long long)da,
                                    (long long)db);
                        if (o != LF_PLAN_OBJ_DRAM) {
                            joined += sa.candidates;
                            whole += sb.candidates;
                        }
                        cases++;
                        lf_plan_destroy(&a);
                        lf_plan_destroy(&b);
                    }
                    lf_cost_model_free(cm);
                }
            lf_graph_free(g);
        }
    fprintf(stderr, "  joins: %d settings, energy/latency candidate sets %lld joined, %lld whole\n", cases,
            (long long)joined, (long long)whole);
    CHECK(cases == RDAG_FAMILIES * 3 * 6 * 3);
    CHECK(joined < whole);
}

/* The searches and the exact planner give the same plan with 1 and 3
 * threads under energy and latency. */
static void test_threads(void)
{
    static const char *const searches[] = {"local", "nsga2", "random", "exact"};
    for (int o = 1; o < LF_PLAN_OBJ_COUNT; o++)
        for (size_t s = 0; s < sizeof searches / sizeof searches[0]; s++) {
            lf_plan first = {0};
            for (int t = 1; t <= 3; t += 2) {
                lf_pipeline_config cfg;
                lf_pipeline_config_default(&cfg);
                cfg.source.model = "squeezenet1_1";
                cfg.hw.buffer_bytes = 128 * 1024;
                cfg.hw.peak_macs = 1e12;
                cfg.scheme = "brr";
                cfg.planner.search = searches[s];
                cfg.planner.objective = lf_plan_objective_name((lf_plan_objective)o);
                cfg.planner.budget = 200;
                cfg.planner.threads = t;
                cfg.planner.exact.threads = t;
                lf_pipeline p;
                CHECK_OK(lf_pipeline_run(&p, &cfg));
                CHECK(lf_cost_objective(p.cm) == (lf_plan_objective)o);
                if (t == 1) {
                    lf_plan_copy(&first, &p.result.plan);
                } else {
                    CHECK(memcmp(first.group_of, p.result.plan.group_of,
                                 (size_t)first.n_ops * sizeof(int32_t)) == 0);
                    lf_plan_destroy(&first);
                }
                lf_pipeline_close(&p);
            }
        }
    /* Names the pipeline does not know (--best-effort and --compare-exact
     * work under every objective: tests/test_objective_bounds.c). */
    lf_pipeline_config cfg;
    lf_pipeline_config_default(&cfg);
    cfg.source.model = "squeezenet1_1";
    cfg.planner.objective = "joules";
    lf_pipeline p;
    CHECK(lf_pipeline_run(&p, &cfg) == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "unknown objective 'joules'") != NULL);
    lf_pipeline_close(&p);
}

/* x (16 rows of 8) times a constant 8 x 32 under BRR at beta 100 runs in 4
 * blocks of 8 columns (tests/test_cost_attn.c): F_D 1,280. Its schedule: per
 * block every input row streams past the block's columns, so the buffer
 * moves the DRAM bytes (1,280), the input once per block and the output
 * once (4 x 128 + 512 = 1,024) and the weights once per input row (16 x 256
 * = 4,096): 6,400 B, not the row schedule's 8 steps (8 x 256 weights, the
 * input once). MACs 16 x 32 x 8 = 4,096. */
static void test_column_sram(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "cols");
    tg_input(b, "x", 1, 16, 8);
    CHECK(lf_graph_builder_add_const(b, "w", (lf_shape){1, 1, 8, 32}, NULL) >= 0);
    const char *in[2] = {"x", "w"};
    CHECK(lf_graph_builder_add_op(b, LF_OP_MATMUL, "y", NULL, in, 2) >= 0);
    lf_graph *g = tf_build(b);
    lf_cost_model *cm = model(g, 100, "brr", 1e12);
    static const char *const y[] = {"y"};
    lf_group_cost c = eval_names(cm, y, 1);
    CHECK_EQ_I64(c.col_blocks, 4);
    CHECK_EQ_I64(c.f_d, 1280);
    lf_bitset s;
    lf_bitset_init(&s, g->n_ops);
    lf_bitset_set(&s, lf_graph_find(g, "y"));
    lf_group_perf p;
    CHECK_OK(lf_group_perf_eval(cm, &s, &c, &p));
    CHECK_EQ_I64(p.macs, 4096);
    CHECK_EQ_I64(p.sram_dram, 1280);
    CHECK_EQ_I64(p.sram_act, 1024);
    CHECK_EQ_I64(p.sram_weights, 4096);
    CHECK_EQ_I64(p.sram_bytes, 6400);
    CHECK_NEAR(p.total_pj, 64.0 * 1280 + 2.0 * 6400 + 0.25 * 4096, 1e-9);
    int32_t v = lf_graph_find(g, "y");
    lf_group_perf q;
    CHECK_OK(lf_group_perf_ops(cm, &v, 1, &c, &q));
    CHECK_EQ_I64(q.sram_bytes, 6400);
    lf_bitset_destroy(&s);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* The staircase of each objective equals the single-buffer optimum at
 * every step, one byte below it and at the range's top (lf_curve_check),
 * on random DAGs under both schemes, with energy's SRAM at one figure. */
static void test_curve(void)
{
    int steps = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++) {
        lf_graph *g = rdag_build(3, fam, 10);
        CHECK(g != NULL);
        if (!g)
            continue;
        lf_hw hw;
        lf_hw_default(&hw);
        hw.peak_macs = 2e10;
        for (int si = 0; si < 2; si++)
            for (int o = 1; o < LF_PLAN_OBJ_COUNT; o++) {
                lf_exact_config ec;
                lf_exact_config_default(&ec);
                ec.objective = o;
                lf_curve c;
                const char *scheme = si ? "brr" : "lbdf";
                CHECK_OK(lf_curve_compute(g, &hw, scheme, 1024, 64 * 1024, &ec, &c));
                int32_t checked = 0;
                lf_status st = lf_curve_check(g, &hw, scheme, &c, &ec, &checked);
                CHECK_OK(st);
                if (st != LF_OK)
                    fprintf(stderr, "  %s %s %s: %s\n", rdag_family_names[fam], scheme,
                            lf_plan_objective_name((lf_plan_objective)o), lf_last_error());
                CHECK(checked > 0);
                steps += c.n;
                lf_curve_destroy(&c);
            }
        lf_graph_free(g);
    }
    /* Larger graphs with reductions and squeeze-and-excite waits, where some
     * groups joined at a cut op do not separate and are priced whole. */
    for (int fam = RDAG_SE; fam <= RDAG_MIXED; fam++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            lf_graph *g = rdag_build(seed, fam, 28);
            CHECK(g != NULL);
            if (!g)
                continue;
            lf_hw hw;
            lf_hw_default(&hw);
            hw.peak_macs = 2e10;
            for (int o = 1; o < LF_PLAN_OBJ_COUNT; o++) {
                lf_exact_config ec;
                lf_exact_config_default(&ec);
                ec.objective = o;
                lf_curve c;
                CHECK_OK(lf_curve_compute(g, &hw, "lbdf", 1024, 64 * 1024, &ec, &c));
                int32_t checked = 0;
                lf_status st = lf_curve_check(g, &hw, "lbdf", &c, &ec, &checked);
                CHECK_OK(st);
                if (st != LF_OK)
                    fprintf(stderr, "  %s seed %d lbdf %s: %s\n", rdag_family_names[fam], (int)seed,
                            lf_plan_objective_name((lf_plan_objective)o), lf_last_error());
                steps += c.n;
                lf_curve_destroy(&c);
            }
            lf_graph_free(g);
        }
    fprintf(stderr, "  curves: %d steps checked\n", steps);
    CHECK(steps > 2 * RDAG_FAMILIES);
}

int main(void)
{
    test_hand_computed();
    test_latency_by_hand();
    test_column_sram();
    test_brute_force();
    test_joins();
    test_curve();
    test_threads();
    return lf_test_result();
}

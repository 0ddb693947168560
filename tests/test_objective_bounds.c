/* Certified bounds under energy and latency (issue 40: every search under
 * every objective). The exact planner's floors are proven in DRAM bytes and
 * priced by lf_cost_objective_dram_floor (planner/cost/objective.h), so:
 *  - the price of a plan's own DRAM never exceeds its figure, and on a graph
 *    of vectors (one row step per group) and compute-bound latency it is
 *    within the rounding slack of it: brute force over every partition (a
 *    floor that drops the slack or counts a tensor's buffer bytes twice
 *    fails here);
 *  - on random DAGs (every family, both schemes, three buffers) a run
 *    stopped at state limits proves a lower bound (the frontier) <= the
 *    optimum, which never falls as the limit grows and is the optimum once
 *    the run finishes; its completed plan is valid, costs what it says and
 *    never less than the optimum; lf_exact_bounds_certify under tight limits
 *    and without any bracket the optimum, its plan at the upper bound;
 *  - the pipeline's --best-effort and --compare-exact report them. */
#include <string.h>

#include "fixtures.h"
#include "graphs.h"
#include "planner/app/pipeline.h"
#include "planner/cost/objective.h"
#include "planner/exact/exact.h"
#include "planner/plan.h"
#include "random_dags.h"
#include "testlib.h"

/* Coefficients with fractions of a fJ and a fs, so that per-group rounding
 * shows. */
static lf_cost_model *model(const lf_graph *g, int64_t beta, const char *scheme, double peak)
{
    lf_hw hw = tf_hw_bytes(beta);
    hw.has_energy = 1;
    hw.dram_pj_per_byte = 61.3;
    hw.sram_pj_per_byte = 1.37;
    hw.mac_pj = 0.2301;
    hw.peak_macs = peak;
    lf_cost_model *cm = NULL;
    CHECK_OK(lf_cost_model_create(&cm, g, &hw, scheme));
    return cm;
}

/* ---- the floor against every plan of a small graph ----------------------- */

typedef struct brute {
    lf_cost_model *cm;
    int32_t ops[16], n, label[16];
    lf_plan plan;
    int64_t plans, fusable;            /* valid plans; fusable ops */
    int64_t least_slack, worst_slack;  /* smallest and largest figure - floor */
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
        b->plans++;
        /* The plan's own DRAM is a DRAM floor of it. */
        int64_t floor = lf_cost_objective_plan_floor(b->cm, m.dram_fusable);
        CHECK(floor <= m.objective);
        if (floor > m.objective)
            fprintf(stderr, "  floor %lld above the plan's %lld (%d groups)\n", (long long)floor,
                    (long long)m.objective, (int)m.n_groups);
        if (m.objective - floor > b->worst_slack)
            b->worst_slack = m.objective - floor;
        if (m.objective - floor < b->least_slack)
            b->least_slack = m.objective - floor;
        return;
    }
    for (int32_t l = 0; l <= n_labels; l++) {
        b->label[i] = l;
        brute_rec(b, i + 1, l == n_labels ? n_labels + 1 : n_labels);
    }
}

/* Vectors (one row step per group, so the buffer's weight reads are at
 * their floor): Gemms, a Relu and Adds on 1 x 1 maps with a fork and two
 * joins. Under energy every plan's figure is the floor of its own DRAM up
 * to rounding, so the floor is within 2 per fusable op of every figure;
 * under latency with a peak that makes every group holding a Gemm
 * compute-bound, plans of such groups are at the MACs' time up to
 * rounding. A floor 1 fJ or 1 fs too high fails on some plan (the rounding
 * of several groups adds up), and one that charges a tensor's buffer bytes
 * twice on many. */
static void test_floor_brute(void)
{
    lf_graph_builder *gb;
    lf_graph_builder_create(&gb, "vectors");
    tg_input(gb, "x", 37, 1, 1);
    tg_gemm(gb, "a", "x", 53, 1);
    tg_unary(gb, LF_OP_RELU, "ar", "a");
    tg_gemm(gb, "b", "ar", 45, 0);
    tg_gemm(gb, "c", "b", 29, 1);
    tg_gemm(gb, "d", "x", 29, 0);
    tg_binary(gb, LF_OP_ADD, "e", "c", "d");
    tg_gemm(gb, "f", "e", 45, 1);
    tg_binary(gb, LF_OP_ADD, "h", "f", "b");
    lf_graph *g = tf_build(gb);
    /* Energy: any peak. Latency: 1,000,000.125 fs per MAC, every Gemm's
     * MACs 1 mod 8, so a group of k < 4 Gemms rounds k/8 fs down and the
     * five Gemms' sum 5/8 up; groups holding a Gemm are compute-bound. */
    const double peaks[2] = {2e10, 1e15 / 1000000.125};
    for (int o = LF_PLAN_OBJ_ENERGY; o <= LF_PLAN_OBJ_LATENCY; o++) {
        lf_cost_model *cm = model(g, 1 << 20, "lbdf", peaks[o - 1]);
        CHECK_OK(lf_cost_set_objective(cm, (lf_plan_objective)o));
        brute b;
        memset(&b, 0, sizeof b);
        b.cm = cm;
        for (int32_t v = 0; v < g->n_ops; v++)
            if (g->ops[v].type != LF_OP_INPUT)
                b.ops[b.n++] = v;
        b.fusable = b.n;
        b.least_slack = INT64_MAX;
        CHECK_OK(lf_plan_init(&b.plan, g->n_ops));
        brute_rec(&b, 0, 0);
        fprintf(stderr, "  floor: %s, %lld plans, figure - floor from %lld to %lld %s (slack %lld)\n",
                lf_plan_objective_name((lf_plan_objective)o), (long long)b.plans, (long long)b.least_slack,
                (long long)b.worst_slack, lf_plan_objective_unit((lf_plan_objective)o),
                (long long)(2 * b.fusable));
        CHECK(b.plans > 100);
        /* Tight: only the rounding slack and one rounding apart (energy:
         * every plan; latency: the compute-bound ones). */
        CHECK(b.least_slack <= 2 * b.fusable + 1);
        if (o == LF_PLAN_OBJ_ENERGY)
            CHECK(b.worst_slack <= 2 * b.fusable + 1);
        lf_plan_destroy(&b.plan);
        lf_cost_model_free(cm);
    }
    lf_graph_free(g);
}

/* ---- random DAGs: stopped runs and certified bounds ---------------------- */

/* Runs stopped at max_states k = 1, 1 + step, ...: returns how many proved
 * a bound above 0. */
static int stopped_runs(lf_cost_model *cm, int64_t opt, int64_t states, int *completed)
{
    lf_exact_config c;
    lf_exact_config_default(&c);
    c.lower_bound = 1;
    c.estimate_after = 1;
    int64_t last = -1, step = states / 6 > 1 ? states / 6 : 1;
    int proved = 0;
    for (int64_t k = 1;; k += step) {
        c.max_states = k;
        lf_plan p, up;
        lf_exact_stats st;
        memset(&up, 0, sizeof up); /* group_of set only where a plan is completed */
        c.upper_plan = &up;
        lf_status s = lf_exact_plan(cm, &c, &p, &st);
        CHECK(s == LF_OK || s == LF_ELIMIT);
        CHECK(st.lower <= opt);
        CHECK(st.lower >= last);
        if (st.lower > opt || st.lower < last)
            fprintf(stderr, "  %s: %lld states: lower %lld (last %lld), optimum %lld\n",
                    lf_plan_objective_name(lf_cost_objective(cm)), (long long)k, (long long)st.lower,
                    (long long)last, (long long)opt);
        last = st.lower;
        if (s == LF_OK) { /* finished: the bounds meet at the optimum */
            CHECK_EQ_I64(st.lower, opt);
            lf_plan_destroy(&p);
            return proved;
        }
        proved += st.lower > 0;
        if (up.group_of) {
            lf_plan_metrics m;
            CHECK_OK(lf_plan_check(&up, cm));
            CHECK_OK(lf_plan_metrics_compute(&up, cm, &m));
            CHECK_EQ_I64(m.objective, st.upper);
            CHECK(st.upper >= opt);
            (*completed)++;
            lf_plan_destroy(&up);
        }
    }
}

/* lf_exact_bounds_certify within cfg: lower <= opt <= upper, the plan at
 * the upper bound. Returns 1 when they meet. */
static int certified(lf_cost_model *cm, const lf_exact_config *cfg, int64_t opt)
{
    lf_plan p;
    lf_exact_bounds b;
    CHECK_OK(lf_exact_bounds_certify(cm, cfg, &p, &b));
    CHECK(b.lower <= opt);
    CHECK(opt <= b.upper);
    CHECK(b.lower_blocks <= opt);
    CHECK(b.lower_windows <= opt);
    if (b.lower > opt || opt > b.upper)
        fprintf(stderr, "  certify %s: [%lld, %lld], optimum %lld\n",
                lf_plan_objective_name(lf_cost_objective(cm)), (long long)b.lower, (long long)b.upper,
                (long long)opt);
    CHECK_OK(lf_plan_check(&p, cm));
    lf_plan_metrics m;
    CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
    CHECK_EQ_I64(m.objective, b.upper);
    lf_plan_destroy(&p);
    return b.upper == opt;
}

static void test_random_dags(void)
{
    const int64_t betas[] = {RDAG_BETA_SMALL, RDAG_BETA_MEDIUM, RDAG_BETA_LARGE};
    const char *schemes[] = {"lbdf", "brr"};
    int settings = 0, proved = 0, completed = 0, upper_met = 0;
    double ratio_sum = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 3; seed++) {
            lf_graph *g = rdag_build(200 + seed, fam, 14 + 2 * (int32_t)seed);
            CHECK(g != NULL);
            if (!g)
                continue;
            for (int bi = 0; bi < 3; bi++)
                for (int si = 0; si < 2; si++) {
                    /* A peak that makes some groups compute-bound. */
                    lf_cost_model *cm = model(g, betas[bi], schemes[si], 2e10);
                    for (int o = LF_PLAN_OBJ_ENERGY; o <= LF_PLAN_OBJ_LATENCY; o++) {
                        CHECK_OK(lf_cost_set_objective(cm, (lf_plan_objective)o));
                        lf_plan opt_plan;
                        lf_exact_stats st;
                        CHECK_OK(lf_exact_plan(cm, NULL, &opt_plan, &st));
                        lf_plan_metrics m;
                        CHECK_OK(lf_plan_metrics_compute(&opt_plan, cm, &m));
                        int64_t opt = m.objective;
                        CHECK_EQ_I64(st.lower, opt);
                        proved += stopped_runs(cm, opt, st.states, &completed) > 0;
                        /* Tight limits (blocks and windows past them keep
                         * their fallbacks), then none. */
                        lf_exact_config tight;
                        lf_exact_config_default(&tight);
                        tight.max_states = 3;
                        tight.time_limit_s = 0;
                        certified(cm, &tight, opt);
                        lf_exact_config none;
                        lf_exact_config_default(&none);
                        none.time_limit_s = 0;
                        upper_met += certified(cm, &none, opt);
                        lf_plan pb;
                        lf_exact_bounds b;
                        CHECK_OK(lf_exact_bounds_compute(cm, &none, 0, &pb, &b));
                        ratio_sum += opt > 0 ? (double)b.lower / (double)opt : 1.0;
                        lf_plan_destroy(&pb);
                        lf_plan_destroy(&opt_plan);
                        settings++;
                    }
                    lf_cost_model_free(cm);
                }
            lf_graph_free(g);
        }
    fprintf(stderr,
            "  random DAGs: %d settings; stopped runs proved a bound > 0 in %d, %d completed plans; "
            "unlimited block plans optimal in %d; blocks' lower / optimum %.3f on average\n",
            settings, proved, completed, upper_met, ratio_sum / settings);
    CHECK(settings == RDAG_FAMILIES * 3 * 6 * 2);
    /* Each property must be exercised, or its check could not fail. */
    CHECK(proved >= settings / 2);
    CHECK(completed >= settings / 4);
}

/* ---- the pipeline: --best-effort and --compare-exact --------------------- */

static void test_pipeline(void)
{
    for (int o = LF_PLAN_OBJ_ENERGY; o <= LF_PLAN_OBJ_LATENCY; o++) {
        lf_pipeline_config cfg;
        lf_pipeline_config_default(&cfg);
        cfg.source.model = "squeezenet1_1";
        cfg.hw.buffer_bytes = 128 * 1024;
        cfg.hw.peak_macs = 2e11;
        cfg.planner.search = "exact";
        cfg.planner.objective = lf_plan_objective_name((lf_plan_objective)o);
        cfg.planner.exact.time_limit_s = 0;
        lf_pipeline p;
        CHECK_OK(lf_pipeline_run(&p, &cfg));
        int64_t opt = p.result.metrics.objective;
        CHECK_EQ_I64(p.result.exact_objective, opt);
        lf_pipeline_close(&p);
        /* Stopped at 20 states: the best plan found and its bounds. */
        cfg.planner.best_effort = 1;
        cfg.planner.budget = 50;
        cfg.planner.exact.max_states = 20;
        CHECK_OK(lf_pipeline_run(&p, &cfg));
        CHECK(strcmp(p.result.search, "exact-best-effort") == 0);
        CHECK(p.result.lower_bound > 0);
        CHECK(p.result.lower_bound <= opt);
        CHECK(opt <= p.result.metrics.objective);
        CHECK_EQ_I64(p.result.exact_objective, -1);
        lf_pipeline_close(&p);
        /* Without best effort: the limit's message with the bounds in the
         * objective's unit. */
        cfg.planner.best_effort = 0;
        CHECK(lf_pipeline_run(&p, &cfg) == LF_ELIMIT);
        char unit[16];
        snprintf(unit, sizeof unit, "] %s", lf_plan_objective_unit((lf_plan_objective)o));
        CHECK(strstr(lf_last_error(), unit) != NULL);
        lf_pipeline_close(&p);
        /* A search compared with the optimum, then with a stopped one's bound. */
        cfg.planner.search = "greedy";
        cfg.planner.compare_exact = 1;
        lf_exact_config d;
        lf_exact_config_default(&d);
        cfg.planner.exact.max_states = d.max_states;
        CHECK_OK(lf_pipeline_run(&p, &cfg));
        CHECK_EQ_I64(p.result.exact_objective, opt);
        CHECK(p.result.metrics.objective >= opt);
        lf_pipeline_close(&p);
        cfg.planner.exact.max_states = 20;
        CHECK_OK(lf_pipeline_run(&p, &cfg));
        CHECK_EQ_I64(p.result.exact_objective, -1);
        CHECK(p.result.lower_bound > 0 && p.result.lower_bound <= opt);
        lf_pipeline_close(&p);
    }
}

int main(void)
{
    test_floor_brute();
    test_random_dags();
    test_pipeline();
    return lf_test_result();
}

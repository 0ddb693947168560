/* Unit tests for the benchmark engines in search/sweep: bench search's rows
 * against the planners run directly and their CSV line; bench exact's
 * optimum and staircase rows against lf_exact_plan and lf_curve_compute, a
 * limit as a row's outcome; bench threads'
 * lists and rows (same plan with 1 and T threads, medians of the runs),
 * its co-runner and load average. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/app/pipeline.h"
#include "planner/exact/exact.h"
#include "search/partition/simple.h"
#include "planner/exact/curve.h"
#include "search/sweep/bench_exact.h"
#include "search/sweep/bench_search.h"
#include "search/sweep/bench_threads.h"
#include "tests/testlib.h"

static void test_threads_lists(void)
{
    lf_bench_threads_config c;
    memset(&c, 0, sizeof c);
    CHECK_OK(lf_bench_threads_lists(&c, "squeezenet1_1@128KB,resnet18", 262144, "random,nsga2",
                                    "random,tree-attrib"));
    CHECK_EQ_I64(c.n_models, 2);
    CHECK_STR(c.models[0], "squeezenet1_1");
    CHECK_EQ_I64(c.betas[0], 131072);
    CHECK_EQ_I64(c.betas[1], 262144);
    CHECK_EQ_I64(c.n_searches, 2);
    CHECK_STR(c.splits[1], "tree-attrib");
    static const struct {
        const char *models, *searches, *splits, *message;
    } bad[] = {
        {"a@12x", "random", "random", "--models: \"12x\" has an unknown unit \"x\" (use B, KB, KiB, MB or MiB)"},
        {"a", "foo", "random", "unknown search 'foo' (use random, local or nsga2)"},
        {"a", "local", "tree", "unknown split 'tree' (use random or tree-<proposer>)"},
        {"a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a", "local", "random", "list too long (at most 16 items)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ_I64(lf_bench_threads_lists(&c, bad[i].models, 1024, bad[i].searches, bad[i].splits),
                     LF_EINVAL);
        CHECK_STR(lf_last_error(), bad[i].message);
    }
}

typedef struct rows {
    int n;
    lf_bench_threads_row r[8];
} rows;

static void keep_row(void *user, const lf_bench_threads_row *r)
{
    rows *rs = user;
    if (rs->n < 8)
        rs->r[rs->n++] = *r;
}

static void test_threads_run(void)
{
    lf_bench_threads_config c;
    memset(&c, 0, sizeof c);
    CHECK_OK(lf_bench_threads_lists(&c, "squeezenet1_1@128KB", 0, "random,local", "random"));
    c.scheme = "lbdf";
    c.budget = 40;
    c.seed = 5;
    c.threads = 2;
    c.repeat = 3;
    rows rs = {0};
    CHECK_OK(lf_bench_threads_run(&c, keep_row, &rs));
    CHECK_EQ_I64(rs.n, 2);
    CHECK_STR(rs.r[0].search, "random");
    CHECK_STR(rs.r[1].search, "local");
    for (int i = 0; i < rs.n; i++) {
        CHECK_EQ_I64(rs.r[i].beta, 131072);
        CHECK(rs.r[i].wall_1 >= 0 && rs.r[i].wall_t >= 0);
        CHECK(rs.r[i].parallel_pct >= 0 && rs.r[i].parallel_pct <= 100);
    }
    /* An unknown network or a repeat out of range is an error, not a row. */
    CHECK_OK(lf_bench_threads_lists(&c, "nonet", 131072, "local", "random"));
    rs.n = 0;
    CHECK(lf_bench_threads_run(&c, keep_row, &rs) != LF_OK);
    CHECK_OK(lf_bench_threads_lists(&c, "squeezenet1_1", 131072, "local", "random"));
    c.repeat = 16;
    CHECK_EQ_I64(lf_bench_threads_run(&c, keep_row, &rs), LF_EINVAL);
    CHECK_EQ_I64(rs.n, 0);
}

static void test_co_runner(void)
{
    int64_t pid = lf_bench_co_runner_start();
    CHECK(pid > 0);
    CHECK_EQ_I64(kill((pid_t)pid, 0), 0); /* alive */
    lf_bench_co_runner_stop(pid);
    CHECK(kill((pid_t)pid, 0) != 0); /* reaped */
    char load[64];
    lf_bench_load_average(load, sizeof load);
    double a = -1, b = -1, d = -1;
    CHECK(strcmp(load, "unknown") == 0 || (sscanf(load, "%lf %lf %lf", &a, &b, &d) == 3 && a >= 0));
}

typedef struct bench_rows {
    int n, notices;
    lf_bench_row r[16];
} bench_rows;

static void keep_bench_row(void *user, const lf_bench_row *r)
{
    bench_rows *rs = user;
    if (rs->n < 16)
        rs->r[rs->n++] = *r;
}

static void count_notice(void *user, const char *message)
{
    (void)message;
    ((bench_rows *)user)->notices++;
}

static void test_bench_search(void)
{
    CHECK_OK(lf_bench_split_check("tree-attrib"));
    CHECK_EQ_I64(lf_bench_split_check("tree-foo"), LF_EINVAL);
    CHECK(strstr(lf_last_error(), "unknown split 'tree-foo'") != NULL);
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build("squeezenet1_1", NULL, &g));
    lf_bench_search_config c;
    memset(&c, 0, sizeof c);
    lf_planner_config_default(&c.planner);
    c.planner.budget = 60;
    c.planner.threads = 1;
    c.do_exact = 1;
    c.n_betas = 1;
    c.betas[0] = 131072;
    c.n_schemes = 1;
    c.schemes[0] = "lbdf";
    c.n_searches = 1;
    c.searches[0] = "local";
    c.n_splits = 2;
    c.splits[0] = "random";
    c.splits[1] = "tree-attrib";
    bench_rows rs = {0};
    CHECK_OK(lf_bench_search_run(g, "squeezenet1_1", NULL, &c, keep_bench_row, count_notice, &rs));
    CHECK_EQ_I64(rs.notices, 0);
    CHECK_EQ_I64(rs.n, 5);
    static const char *const order[] = {"layer", "greedy", "local", "local", "exact"};
    for (int i = 0; i < rs.n && i < 5; i++) {
        CHECK_STR(rs.r[i].search, order[i]);
        CHECK_EQ_I64(rs.r[i].beta, 131072);
        CHECK(rs.r[i].has_exact);
        CHECK(rs.r[i].m.dram_fusable >= rs.r[i].exact_dram);
    }
    CHECK_STR(rs.r[3].split, "tree-attrib");
    CHECK(rs.r[3].rectify >= 0 && rs.r[2].rectify < 0);
    CHECK_EQ_I64(rs.r[2].proposed, 60);
    /* The optimum and the layer row as the planners give them. */
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = 131072;
    lf_cost_model *cm = NULL;
    CHECK_OK(lf_cost_model_create(&cm, g, &hw, "lbdf"));
    lf_plan p;
    lf_plan_metrics m;
    CHECK_OK(lf_exact_plan(cm, NULL, &p, NULL));
    CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
    CHECK_EQ_I64(rs.r[4].m.dram_fusable, m.dram_fusable);
    CHECK_EQ_I64(rs.r[4].exact_dram, m.dram_fusable);
    lf_plan_destroy(&p);
    CHECK_OK(lf_plan_layer(cm, &p));
    CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
    CHECK_EQ_I64(rs.r[0].m.dram_all, m.dram_all);
    lf_plan_destroy(&p);
    lf_cost_model_free(cm);
    /* The exact row as CSV: no rate, no tree figures. */
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        lf_bench_print_row(f, &rs.r[4], 1);
        rewind(f);
        char line[512] = "", want[512];
        CHECK(fgets(line, sizeof line, f) != NULL);
        snprintf(want, sizeof want, "squeezenet1_1,131072,lbdf,exact,-,%lld,0.00,%lld,%d,0,",
                 (long long)rs.r[4].m.dram_fusable, (long long)rs.r[4].m.dram_all,
                 (int)rs.r[4].m.n_groups);
        CHECK(strncmp(line, want, strlen(want)) == 0);
        fclose(f);
    }
    /* An unknown split is refused before any row. */
    c.splits[1] = "tree-foo";
    rs.n = 0;
    CHECK_EQ_I64(lf_bench_search_run(g, "squeezenet1_1", NULL, &c, keep_bench_row, NULL, &rs), LF_EINVAL);
    CHECK_EQ_I64(rs.n, 0);
    lf_graph_free(g);
}

typedef struct exact_rows {
    int n;
    lf_bench_exact_row r[8];
} exact_rows;

static void keep_exact_row(void *user, const lf_bench_exact_row *r)
{
    exact_rows *rs = user;
    if (rs->n < 8)
        rs->r[rs->n++] = *r;
}

static void test_bench_exact(void)
{
    lf_bench_exact_config c;
    memset(&c, 0, sizeof c);
    lf_exact_config_default(&c.exact);
    c.n_models = 1;
    c.models[0] = "squeezenet1_1";
    c.n_schemes = 2;
    c.schemes[0] = "lbdf";
    c.schemes[1] = "brr";
    c.n_betas = 1;
    c.betas[0] = 131072;
    exact_rows rs = {0};
    CHECK_OK(lf_bench_exact_run(&c, keep_exact_row, &rs));
    CHECK_EQ_I64(rs.n, 2);
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build("squeezenet1_1", NULL, &g));
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = 131072;
    for (int i = 0; i < rs.n; i++) {
        lf_cost_model *cm = NULL;
        CHECK_OK(lf_cost_model_create(&cm, g, &hw, c.schemes[i]));
        lf_plan p;
        lf_plan_metrics m;
        CHECK_OK(lf_exact_plan(cm, NULL, &p, NULL));
        CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
        CHECK_EQ_I64(rs.r[i].m.dram_fusable, m.dram_fusable);
        CHECK_EQ_I64(rs.r[i].m.n_groups, m.n_groups);
        CHECK_STR(rs.r[i].outcome, "optimal");
        CHECK(!rs.r[i].staircase && rs.r[i].stats.states > 0);
        lf_plan_destroy(&p);
        lf_cost_model_free(cm);
    }
    /* The staircase: as many steps as lf_curve_compute finds. */
    c.n_betas = 0;
    c.n_schemes = 1;
    c.min = 131072;
    c.max = 524288;
    rs.n = 0;
    CHECK_OK(lf_bench_exact_run(&c, keep_exact_row, &rs));
    lf_curve curve;
    CHECK_OK(lf_curve_compute(g, &hw, "lbdf", c.min, c.max, NULL, &curve));
    CHECK_EQ_I64(rs.n, 1);
    CHECK(rs.r[0].staircase);
    CHECK_EQ_I64(rs.r[0].steps, curve.n);
    CHECK_EQ_I64(rs.r[0].front, curve.front_points);
    int32_t steps = curve.n;
    lf_curve_destroy(&curve);
    FILE *f = tmpfile();
    if (f) {
        lf_bench_exact_print_row(f, &rs.r[0], 1);
        rewind(f);
        char line[256] = "", want[128];
        CHECK(fgets(line, sizeof line, f) != NULL);
        snprintf(want, sizeof want, "squeezenet1_1,lbdf,131072,524288,%d,", (int)steps);
        CHECK(strncmp(line, want, strlen(want)) == 0);

        CHECK(strstr(line, ",optimal\n") != NULL);
        fclose(f);
    }
    lf_graph_free(g);
    /* A limit is the row's outcome, not a failure. */
    c.models[0] = "resnet18";
    c.exact.max_candidates = 100;
    rs.n = 0;
    CHECK_OK(lf_bench_exact_run(&c, keep_exact_row, &rs));
    CHECK_EQ_I64(rs.n, 1);
    CHECK_EQ_I64(rs.r[0].status, LF_ELIMIT);
    CHECK_STR(rs.r[0].outcome, "candidate limit");
    /* The state limit's message names the candidate sets reached too. */
    c.exact.max_candidates = LF_EXACT_DEFAULT_CANDIDATES;
    c.exact.max_states = 5;
    rs.n = 0;
    CHECK_OK(lf_bench_exact_run(&c, keep_exact_row, &rs));
    CHECK_EQ_I64(rs.n, 1);
    CHECK_STR(rs.r[0].outcome, "state limit");
    CHECK_STR(lf_bench_exact_outcome(LF_OK), "optimal");
    c.models[0] = "nonet";
    CHECK(lf_bench_exact_run(&c, keep_exact_row, &rs) != LF_OK);
}

int main(void)
{
    test_bench_exact();
    test_bench_search();
    test_threads_lists();
    test_threads_run();
    test_co_runner();
    return lf_test_result();
}

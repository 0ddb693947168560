/* Unit tests for the benchmark engines in search/sweep: bench threads'
 * lists and rows (same plan with 1 and T threads, medians of the runs),
 * its co-runner and load average. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/pipeline.h"
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

int main(void)
{
    test_threads_lists();
    test_threads_run();
    test_co_runner();
    return lf_test_result();
}

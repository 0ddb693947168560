/* Seed plans for local search and NSGA-II (issue 17 item 7): a seed is one
 * plan of the budget and the best plan is never worse than any seed (seeded
 * with the exact optimum, both searches return it on random DAGs and a
 * network); seeded runs are deterministic; random search ignores seeds; a
 * seed of another graph is refused. The cost-driven merge mutation of local
 * search gives valid plans, the same for one or two threads, and on
 * resnet18 reaches a lower DRAM than the paper's mutations at a small budget
 * on some seed. */
#include <string.h>

#include "fixtures.h"
#include "models/registry.h"
#include "planner/exact/exact.h"
#include "random_dags.h"
#include "search/partition/search.h"
#include "search/partition/simple.h"
#include "testlib.h"

static void run(lf_cost_model *cm, const char *alg, const lf_plan *seeds, int32_t n, uint64_t seed,
                lf_search_result *res)
{
    lf_search_config c;
    lf_search_config_default(&c);
    c.algorithm = alg;
    c.budget = 30;
    c.seed = seed;
    c.threads = 1;
    c.seeds = seeds;
    c.n_seeds = n;
    CHECK_OK(lf_search_run(cm, &c, res));
    CHECK_EQ_I64(res->plans_proposed, 30);
}

static void check_graph(const lf_graph *g, int64_t beta, const char *scheme, int *beat)
{
    lf_cost_model *cm = tf_model_default(g, beta, scheme);
    lf_plan seeds[2];
    lf_plan_metrics m;
    CHECK_OK(lf_exact_plan(cm, NULL, &seeds[0], NULL));
    CHECK_OK(lf_plan_greedy(cm, &seeds[1]));
    CHECK_OK(lf_plan_metrics_compute(&seeds[0], cm, &m));
    static const char *const algs[] = {"local", "nsga2"};
    for (int a = 0; a < 2; a++) {
        lf_search_result r1, r2, r0;
        run(cm, algs[a], seeds, 2, 5, &r1);
        CHECK_EQ_I64(r1.metrics.dram_fusable, m.dram_fusable);
        CHECK(tf_plans_equal(&r1.best, &seeds[0]));
        run(cm, algs[a], seeds, 2, 5, &r2);
        CHECK(tf_plans_equal(&r1.best, &r2.best));
        run(cm, algs[a], NULL, 0, 5, &r0);
        *beat += r0.metrics.dram_fusable > m.dram_fusable;
        lf_search_result_destroy(&r0);
        lf_search_result_destroy(&r1);
        lf_search_result_destroy(&r2);
    }
    /* Random search keeps the paper's algorithm: seeds change nothing. */
    lf_search_result a, b;
    run(cm, "random", seeds, 2, 5, &a);
    run(cm, "random", NULL, 0, 5, &b);
    CHECK(tf_plans_equal(&a.best, &b.best));
    lf_search_result_destroy(&a);
    lf_search_result_destroy(&b);
    lf_plan_destroy(&seeds[0]);
    lf_plan_destroy(&seeds[1]);
    lf_cost_model_free(cm);
}

/* Guided edits (search.h `guided`) on resnet18 at 256 KB, budget 300: the
 * plan is valid, the same with 1 and 2 threads, and lower than the paper's
 * local search on at least one of four seeds. */
static void test_guided(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    CHECK_OK(lf_model_build("resnet18", &opt, &g));
    if (!g)
        return;
    lf_cost_model *cm = tf_model_default(g, 256 * 1024, "lbdf");
    int better = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        lf_search_result r[3];
        for (int k = 0; k < 3; k++) {
            lf_search_config c;
            lf_search_config_default(&c);
            c.algorithm = "local";
            c.budget = 300;
            c.seed = seed;
            c.threads = k == 2 ? 2 : 1;
            c.guided = k > 0;
            CHECK_OK(lf_search_run(cm, &c, &r[k]));
        }
        CHECK_OK(lf_plan_check(&r[1].best, cm));
        CHECK(tf_plans_equal(&r[1].best, &r[2].best));
        better += r[1].metrics.dram_fusable < r[0].metrics.dram_fusable;
        for (int k = 0; k < 3; k++)
            lf_search_result_destroy(&r[k]);
    }
    CHECK(better > 0);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

int main(void)
{
    test_guided();
    int beat = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 4; seed++) {
            lf_graph *g = rdag_build(seed, fam, 16);
            CHECK(g != NULL);
            if (!g)
                continue;
            check_graph(g, RDAG_BETA_MEDIUM, seed % 2 ? "brr" : "lbdf", &beat);
            lf_graph_free(g);
        }
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    CHECK_OK(lf_model_build("resnet18", &opt, &g));
    if (g) {
        check_graph(g, 256 * 1024, "lbdf", &beat);
        /* A seed of another graph is refused with a message. */
        lf_cost_model *cm = tf_model_default(g, 256 * 1024, "lbdf");
        lf_plan small;
        CHECK_OK(lf_plan_init(&small, 3));
        lf_search_config c;
        lf_search_config_default(&c);
        c.algorithm = "local";
        c.seeds = &small;
        c.n_seeds = 1;
        lf_search_result r;
        CHECK_EQ_I64(lf_search_run(cm, &c, &r), LF_EINVAL);
        CHECK(strstr(lf_last_error(), "seed plan 0 has 3 ops") != NULL);
        lf_search_result_destroy(&r);
        lf_plan_destroy(&small);
        lf_cost_model_free(cm);
        lf_graph_free(g);
    }
    /* Unseeded searches of 30 plans miss the optimum somewhere, so the
     * seeded ones reaching it is not a given. */
    CHECK(beat > 0);
    return lf_test_result();
}

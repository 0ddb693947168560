/* The deadline that --time-limit shares through the exact pipeline (issue
 * 41 item 9), tested without timing: a deadline already past stops the DP,
 * the certified bounds, the window bound, the polish and NSGA-II at once, and
 * each says so (counts and flags), while what they return stays valid: the
 * bounds still bracket the optimum (EfficientNet-B0 at 256 KB under LBDF,
 * 8,286,544 B) and the plan is the one they started from. Wall times by
 * command are in docs/search.md. */
#include <string.h>

#include "models/registry.h"
#include "planner/exact/exact.h"
#include "planner/app/pipeline.h"
#include "planner/util/clock.h"
#include "search/partition/search.h"
#include "search/partition/simple.h"
#include "fixtures.h"
#include "testlib.h"

#define OPTIMUM 8286544

static int64_t dram(const lf_plan *p, lf_cost_model *cm)
{
    lf_plan_metrics m;
    memset(&m, 0, sizeof m);
    CHECK_OK(lf_plan_metrics_compute(p, cm, &m));
    return m.dram_fusable;
}

static void test_stages(lf_cost_model *cm)
{
    lf_exact_config past;
    lf_exact_config_default(&past);
    past.deadline = lf_now_seconds() - 1.0;

    /* The DP. */
    lf_plan p;
    CHECK(lf_exact_plan(cm, &past, &p, NULL) == LF_ELIMIT);
    CHECK(strstr(lf_last_error(), "time limit") != NULL);

    /* The block bounds: no DP run, every one counted; the trivial bounds
     * (each op alone above, the weights below) still hold. */
    lf_exact_bounds b;
    CHECK_OK(lf_exact_bounds_compute(cm, &past, 0, &p, &b));
    CHECK(b.out_of_time >= 2 * b.blocks);
    CHECK_EQ_I64(b.blocks_exact, 0);
    CHECK_EQ_I64(b.blocks_lower, 0);
    CHECK(b.lower <= OPTIMUM && OPTIMUM <= b.upper);
    CHECK_OK(lf_plan_check(&p, cm));
    CHECK_EQ_I64(dram(&p, cm), b.upper);
    lf_plan_destroy(&p);
    /* Without a deadline the same blocks are solved. */
    lf_exact_config none;
    lf_exact_config_default(&none);
    CHECK_OK(lf_exact_bounds_compute(cm, &none, 0, &p, &b));
    CHECK_EQ_I64(b.out_of_time, 0);
    CHECK(b.blocks_exact > 0);
    lf_plan_destroy(&p);

    /* The certified bounds: no windows either. */
    CHECK_OK(lf_exact_bounds_certify(cm, &past, &p, &b));
    CHECK(b.out_of_time > 0);
    CHECK_EQ_I64(b.windows, 0);
    CHECK(b.lower <= OPTIMUM && OPTIMUM <= b.upper);
    lf_plan_destroy(&p);

    /* The polish: stops before its first window, the plan untouched. */
    lf_plan greedy, before;
    CHECK_OK(lf_plan_greedy(cm, &greedy));
    lf_plan_canonicalize(&greedy);
    CHECK_OK(lf_plan_copy(&before, &greedy));
    lf_polish_config pc;
    lf_polish_config_default(&pc);
    pc.deadline = past.deadline;
    lf_polish_stats ps;
    CHECK_OK(lf_exact_polish(cm, &pc, &greedy, &ps));
    CHECK_EQ_I64(ps.out_of_time, 1);
    CHECK_EQ_I64(ps.windows, 0);
    CHECK(greedy.n_groups == before.n_groups &&
          memcmp(greedy.group_of, before.group_of, (size_t)greedy.n_ops * sizeof *greedy.group_of) == 0);
    pc.deadline = 0;
    CHECK_OK(lf_exact_polish(cm, &pc, &greedy, &ps));
    CHECK_EQ_I64(ps.out_of_time, 0);
    CHECK(ps.windows > 0);
    lf_plan_destroy(&greedy);
    lf_plan_destroy(&before);

    /* NSGA-II: its first generation only. */
    lf_search_config sc;
    lf_search_config_default(&sc);
    sc.algorithm = "nsga2";
    sc.budget = 200;
    sc.threads = 1;
    sc.quiet = 1;
    sc.deadline = past.deadline;
    lf_search_result res;
    CHECK_OK(lf_search_run(cm, &sc, &res));
    CHECK_EQ_I64(res.plans_proposed, sc.population);
    lf_search_result_destroy(&res);
    sc.deadline = 0;
    CHECK_OK(lf_search_run(cm, &sc, &res));
    CHECK_EQ_I64(res.plans_proposed, 200);
    lf_search_result_destroy(&res);
}

/* Through the pipeline: the message and the best-effort note say that the
 * limit cut the bounds and the upper bound's search. */
static void test_pipeline(lf_cost_model *cm)
{
    lf_planner_config c;
    lf_planner_config_default(&c);
    c.search = "exact";
    c.threads = 1;
    c.exact.time_limit_s = 60;
    c.exact.deadline = lf_now_seconds() - 1.0;
    lf_planned r;
    CHECK(lf_plan_network(cm, &c, &r) == LF_ELIMIT);
    CHECK(strstr(lf_last_error(), "(DP 45 s of the 60 s limit; bounds cut short by it; upper bound's "
                                  "search cut short by it); certified bounds") != NULL);
    lf_planned_destroy(&r);
    c.best_effort = 1;
    CHECK_OK(lf_plan_network(cm, &c, &r));
    CHECK_STR(r.search, "exact-best-effort");
    CHECK(strstr(r.bound_note, "bounds cut short by it") != NULL);
    CHECK(r.lower_bound <= OPTIMUM && OPTIMUM <= r.metrics.dram_fusable);
    lf_planned_destroy(&r);
    /* A limit alone (no deadline given) finishes this network exactly. */
    c.exact.deadline = 0;
    c.best_effort = 0;
    CHECK_OK(lf_plan_network(cm, &c, &r));
    CHECK_EQ_I64(r.metrics.dram_fusable, OPTIMUM);
    lf_planned_destroy(&r);
}

int main(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    CHECK_OK(lf_model_build("efficientnet_b0", &opt, &g));
    if (!g)
        return lf_test_result();
    lf_cost_model *cm = tf_model_default(g, 256 * 1024, "lbdf");
    test_stages(cm);
    test_pipeline(cm);
    lf_cost_model_free(cm);
    lf_graph_free(g);
    return lf_test_result();
}

/* The library pipeline (planner/app/pipeline.h) and the name registries
 * (planner/app/registry.h): a pipeline run gives exactly the plan of the
 * planner it names, progress arrives through the callback (done rising to
 * the budget), names and combinations are checked, sources load and refuse
 * as documented. */
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/exact/exact.h"
#include "planner/app/pipeline.h"
#include "planner/app/registry.h"
#include "search/partition/simple.h"
#include "testlib.h"

typedef struct progress_log {
    int64_t calls, last_done, total;
    int monotone;
    char stage[16];
} progress_log;

static void on_progress(void *user, const char *stage, int64_t done, int64_t total, const char *note)
{
    progress_log *l = user;
    (void)note;
    if (done < l->last_done)
        l->monotone = 0;
    l->calls++;
    l->last_done = done;
    l->total = total;
    snprintf(l->stage, sizeof l->stage, "%s", stage);
}

static void test_registries(void)
{
    char buf[128];
    CHECK_STR(lf_names_format(LF_NAMES_SEARCH, buf, sizeof buf),
              "greedy, layer, random, local, nsga2 or exact");
    CHECK_STR(lf_names_format(LF_NAMES_SCHEME, buf, sizeof buf), "lbdf or brr");
    CHECK(lf_name_known(LF_NAMES_PROPOSER, "rg") && lf_name_known(LF_NAMES_PROPOSER, "attrib"));
    CHECK(!lf_name_known(LF_NAMES_HEURISTIC, "exact") && lf_name_known(LF_NAMES_EXPORTER, "dot"));
    CHECK(lf_name_check(LF_NAMES_SPLIT, "magic") == LF_EINVAL);
    CHECK_STR(lf_last_error(), "unknown split 'magic' (use random, tree or exact)");
    /* Every scheme the registry lists builds a cost model. */
    for (const char *const *s = lf_names(LF_NAMES_SCHEME); *s; s++)
        CHECK(lf_cost_scheme_weights_resident(*s) >= 0);
    CHECK(lf_cost_scheme_weights_resident("nope") == -1);
}

static void test_pipeline_matches_planners(void)
{
    lf_pipeline_config cfg;
    lf_pipeline_config_default(&cfg);
    cfg.source.model = "resnet18";
    cfg.hw.buffer_bytes = 128 * 1024;
    cfg.planner.search = "exact";
    lf_pipeline p = {0};
    CHECK_OK(lf_pipeline_run(&p, &cfg));
    lf_plan opt = {0};
    lf_plan_metrics m;
    if (p.cm && lf_exact_plan(p.cm, NULL, &opt, NULL) == LF_OK &&
        lf_plan_metrics_compute(&opt, p.cm, &m) == LF_OK) {
        CHECK_EQ_I64(p.result.metrics.dram_fusable, m.dram_fusable);
        CHECK_EQ_I64(p.result.exact_dram, m.dram_fusable);
        CHECK_EQ_I64(p.result.metrics.n_groups, m.n_groups);
    }
    lf_plan_destroy(&opt);
    CHECK_STR(p.model_name, "resnet18");

    /* A search with the tree splitter and a progress log, then the same
     * search by hand: the same plan. */
    progress_log log = {0, 0, 0, 1, ""};
    lf_planner_config pc;
    lf_planner_config_default(&pc);
    pc.search = "local";
    pc.budget = 150;
    pc.seed = 7;
    pc.split = "tree";
    pc.proposer = "attrib";
    pc.compare_exact = 1;
    pc.progress = on_progress;
    pc.progress_user = &log;
    lf_planned r;
    CHECK_OK(lf_plan_network(p.cm, &pc, &r));
    CHECK(log.calls > 0 && log.monotone);
    CHECK_EQ_I64(log.last_done, 150);
    CHECK_EQ_I64(log.total, 150);
    CHECK_STR(log.stage, "local");
    CHECK(r.heuristic && r.have_tree_stats);
    CHECK_STR(r.split_name, "tree-attrib");
    CHECK_EQ_I64(r.exact_dram, m.dram_fusable);
    CHECK(r.metrics.dram_fusable >= r.exact_dram);
    lf_plan layer = {0};
    lf_plan_metrics lm;
    lf_planned lr;
    pc.search = "layer";
    pc.split = NULL;
    pc.compare_exact = 0;
    CHECK_OK(lf_plan_network(p.cm, &pc, &lr));
    if (lf_plan_layer(p.cm, &layer) == LF_OK && lf_plan_metrics_compute(&layer, p.cm, &lm) == LF_OK)
        CHECK_EQ_I64(lr.metrics.dram_all, lm.dram_all);
    lf_plan_destroy(&layer);
    lf_planned_destroy(&lr);
    lf_planned_destroy(&r);

    /* Best effort: exact stopped by a limit returns a checked plan whose
     * DRAM is the upper bound, with a lower bound, the optimum between. */
    lf_planner_config be;
    lf_planner_config_default(&be);
    be.search = "exact";
    be.exact.max_candidates = 40;
    CHECK(lf_plan_network(p.cm, &be, &r) == LF_ELIMIT);
    lf_planned_destroy(&r);
    be.best_effort = 1;
    CHECK_OK(lf_plan_network(p.cm, &be, &r));
    CHECK_STR(r.search, "exact-best-effort");
    CHECK_EQ_I64(r.exact_dram, -1);
    CHECK(r.lower_bound > 0 && r.lower_bound <= m.dram_fusable && m.dram_fusable <= r.metrics.dram_fusable);
    CHECK_OK(lf_plan_check(&r.plan, p.cm));
    CHECK(strstr(r.bound_note, "blocks") != NULL);
    lf_planned_destroy(&r);
    /* A heuristic plan compared past the same limit: no optimum, but a
     * certified lower bound below it. */
    lf_planner_config ce = be;
    ce.search = "greedy";
    ce.best_effort = 0;
    ce.compare_exact = 1;
    CHECK_OK(lf_plan_network(p.cm, &ce, &r));
    CHECK_EQ_I64(r.exact_dram, -1);
    CHECK(r.exact_error[0] != '\0');
    CHECK(r.lower_bound > 0 && r.lower_bound <= m.dram_fusable);
    lf_planned_destroy(&r);
    be.exact.max_candidates = LF_EXACT_DEFAULT_CANDIDATES;
    CHECK_OK(lf_plan_network(p.cm, &be, &r)); /* no limit reached: the optimum, as without */
    CHECK_STR(r.search, "exact");
    CHECK_EQ_I64(r.exact_dram, m.dram_fusable);
    lf_planned_destroy(&r);
    be.search = "local";
    CHECK(lf_planner_config_check(&be, 0) == LF_EINVAL);

    /* Combinations that do not apply, and unknown names, are refused. */
    lf_planner_config bad;
    lf_planner_config_default(&bad);
    bad.split = "tree";
    CHECK(lf_plan_network(p.cm, &bad, &r) == LF_EINVAL);
    lf_planned_destroy(&r);
    lf_planner_config_default(&bad);
    bad.search = "annealing";
    CHECK(lf_plan_network(p.cm, &bad, &r) == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "unknown search 'annealing'") != NULL);
    lf_planned_destroy(&r);
    lf_pipeline_close(&p);
    lf_pipeline_close(&p); /* twice is safe */
}

static void test_sources(void)
{
    lf_model_source src = {0};
    src.model = "resnet18";
    src.onnx = "x.onnx";
    CHECK(lf_model_source_check(&src) == LF_EINVAL);
    memset(&src, 0, sizeof src);
    src.onnx = LF_SOURCE_DIR "/tests/data/onnx/tiny.onnx";
    src.input_shapes = "x=1,3,16,16";
    src.no_rewrite = "nope";
    CHECK(lf_model_source_check(&src) == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "unknown rewrite 'nope'") != NULL);
    src.no_rewrite = NULL;
    lf_graph *g = NULL;
    CHECK_OK(lf_model_source_load(&src, &g, NULL));
    CHECK(g && strcmp(g->name, "tiny") == 0);
    lf_graph_free(g);
    /* The example's dozen lines: an ONNX file planned end to end. */
    lf_pipeline_config cfg;
    lf_pipeline_config_default(&cfg);
    cfg.source = src;
    lf_pipeline p = {0};
    CHECK_OK(lf_pipeline_run(&p, &cfg));
    CHECK(p.model_name && strcmp(p.model_name, "tiny") == 0 && p.result.metrics.n_groups > 0);
    lf_pipeline_close(&p);
}

int main(void)
{
    test_registries();
    test_pipeline_matches_planners();
    test_sources();
    return lf_test_result();
}

/* Plans a built-in network with the installed library: local search with the
 * random split, then the exact optimum for comparison.
 *
 *   cc plan.c $(pkg-config --cflags --libs --static fusionplan) -o plan
 *   ./plan [MODEL] [BUFFER]          e.g. ./plan mobilenet_v2 128KB
 *
 * or with CMake: find_package(fusionplan) and link fusionplan::fusionplan
 * (examples/c/CMakeLists.txt). */
#include <stdio.h>

#include <fusionplan/fusionplan.h>

static int fail(const char *what)
{
    fprintf(stderr, "plan: %s: %s\n", what, lf_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    const char *model = argc > 1 ? argv[1] : "resnet50";
    lf_hw hw;
    lf_hw_default(&hw); /* 256 KB buffer, int8, 25.6 GB/s */
    if (argc > 2 && lf_hw_parse_size(argv[2], &hw.buffer_bytes) != LF_OK)
        return fail("buffer size");

    lf_graph *g = NULL;
    lf_cost_model *cm = NULL;
    lf_search_config cfg;
    lf_search_result res = {0};
    lf_plan optimum = {0};
    int rc = 1;
    lf_search_config_default(&cfg);
    cfg.algorithm = "local";
    cfg.budget = 1000;
    cfg.seed = 1;
    cfg.quiet = 1;
    if (lf_model_build(model, NULL, &g) != LF_OK)
        rc = fail(model);
    else if (lf_cost_model_create(&cm, g, &hw, "lbdf") != LF_OK)
        rc = fail("cost model");
    else if (lf_search_run(cm, &cfg, &res) != LF_OK)
        rc = fail("search");
    else if (lf_exact_plan(cm, NULL, &optimum, NULL) != LF_OK)
        rc = fail("exact planner");
    else {
        lf_plan_metrics best;
        if (lf_plan_metrics_compute(&optimum, cm, &best) != LF_OK)
            return fail("metrics");
        printf("%s: local search %lld bytes in %d groups, optimum %lld bytes in %d groups\n", model,
               (long long)res.metrics.dram_fusable, res.metrics.n_groups, (long long)best.dram_fusable,
               best.n_groups);
        rc = 0;
    }
    lf_plan_destroy(&optimum);
    lf_search_result_destroy(&res);
    lf_cost_model_free(cm);
    lf_graph_free(g);
    return rc;
}

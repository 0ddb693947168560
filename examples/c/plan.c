/* Plans a network with the installed library's pipeline: local search with
 * the random split, then the exact optimum for comparison.
 *
 *   cc plan.c $(pkg-config --cflags --libs --static fusionplan) -o plan
 *   ./plan [MODEL|FILE.onnx] [BUFFER]     e.g. ./plan mobilenet_v2 128KB
 *
 * or with CMake: find_package(fusionplan) and link fusionplan::fusionplan
 * (examples/c/CMakeLists.txt). */
#include <stdio.h>
#include <string.h>

#include <fusionplan/fusionplan.h>

int main(int argc, char **argv)
{
    const char *model = argc > 1 ? argv[1] : "resnet50";
    lf_pipeline_config cfg;
    lf_pipeline_config_default(&cfg); /* 256 KB buffer, int8, 25.6 GB/s, LBDF */
    if (strstr(model, ".onnx"))
        cfg.source.onnx = model;
    else
        cfg.source.model = model;
    cfg.planner.search = "local";
    cfg.planner.budget = 1000;
    cfg.planner.compare_exact = 1;
    lf_pipeline p = {0}; /* safe to close whatever happens */
    lf_status st = argc > 2 ? lf_hw_parse_size(argv[2], &cfg.hw.buffer_bytes) : LF_OK;
    if (st == LF_OK)
        st = lf_pipeline_run(&p, &cfg);
    if (st == LF_OK)
        printf("%s: local search %lld bytes in %d groups, optimum %lld bytes\n", p.model_name,
               (long long)p.result.metrics.dram_fusable, p.result.metrics.n_groups,
               (long long)p.result.exact_dram);
    else
        fprintf(stderr, "plan: %s: %s\n", model, lf_last_error());
    lf_pipeline_close(&p);
    return st == LF_OK ? 0 : 1;
}

/* fusionplan optimize: the substitution optimizer (DESIGN §11) on a built-in
 * network or an ONNX model: cost before and after in every dimension, the
 * applied sequence, search statistics, a numeric check of the result against
 * the input, and the optimized graph as JSON. */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/io/onnx.h"
#include "search/subst/gso/gso.h"
#include "search/subst/job.h"
#include "search/subst/report.h"

static const lf_cli_rule lf__rules[] = {
    {"cpu-time", "time-limit", NULL, -1, NULL, "--cpu-time needs --time-limit SECONDS"},
};

int lf_cmd_optimize(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"search", "NAME", "backtrack (default), enum (exhaustive to --max-len), split (flow-based), or OCGGS's "
                           "prune, dpp (exact to --max-steps) and sample (sampling)", NULL},
        {"objective", "NAME", "time (default), flops, bytes, kernels or dram (exact fusion DRAM at --buffer)", NULL},
        {"alpha", "A", "backtrack: queue graphs cheaper than A x best (default 1.05)", NULL},
        {"budget", "N", "graphs expanded (default 1000; split: shared by the parts)", NULL},
        {"max-len", "K", "enum: longest sequence (default 3)", NULL},
        {"split-size", "N", "split: largest part in ops (default 30)", NULL},
        {"max-steps", "K", "prune, dpp, sample: longest sequence (default 10); enum: sets --max-len too; "
                           "backtrack, split: bounds their sequences (split: per part) when given", NULL},
        {"time-limit", "SECONDS", "cap on the search's wall time: prune, dpp and enum then report no result, "
                                  "the others the best found so far (default: none)", NULL},
        {"sample-size", "Q", "sample: sequences kept per level (default 20)", NULL},
        {"cpu-time", NULL, "--time-limit counts the process's CPU time, not the wall clock", NULL},
        {"blocks", "N", "resnet_blocks, inception_e, inception_e13, nasnet_a, bert, nasrnn: repeated blocks", NULL},
        {"rules", "LIST", "rule sources: builtin, generated (the shipped generated set), generated=FILE, taso (needs --taso-file); default builtin,generated (and taso with --taso-file)", NULL},
        {"taso-file", "FILE", "TASO's rule collection (for the taso rule source)", NULL},
        {"seed", "S", "values of generated weights and inputs for the numeric check (default 1)", NULL},
        {"threads", "T", "OpenMP threads over the candidates of an expansion (default 1); results do not depend on it", NULL},
        {"filter", "NAME", "GSO rule filter: gso (the per-rule GCNs), lr (the logistic-regression baseline) "
                           "or none (default): search only the rules predicted to match", NULL},
        {"gso-weights", "FILE", "--filter: the models (default: the shipped gso-gcn.bin / gso-lr.bin)", NULL},
        {"dram", NULL, "also report the exact fusion DRAM at --buffer before and after (any objective)", NULL},
        {"analytic", NULL, "time objective: roofline op times even when built with CUDA and a GPU is visible "
                           "(default there: measured cuDNN/cuBLAS times, cached; see fusionplan profile)", NULL},
        {"cache", "FILE",
         "time objective: the measured op times' cache (default: the user's, see fusionplan profile); without a "
         "GPU, its times are used (--cache-device: whose, when it holds several devices)",
         NULL},
        {"cache-device", "UUID",
         "time objective: the times --cache holds for this device (UUID or exact name), on any machine, GPU or "
         "not; nothing is measured",
         NULL},
        {"output", "FILE", "(or -o) write the optimized graph, sequence and costs as JSON, or (FILE.onnx) the graph as ONNX with its weights", NULL},
    };
    lf_cli_command cmd = {"optimize", "Rewrite a network with verified substitutions.",
                          "optimize [--model NAME | --onnx FILE] [--search backtrack|enum|split|prune|dpp|sample] "
                          "[--max-steps K] [--time-limit SECONDS] "
                          "[--objective time|flops|bytes|kernels|dram] [--cache FILE --cache-device UUID] "
                          "[--filter gso|lr|none] [-o out.json|out.onnx]",
                          "Searches for a cheaper equivalent graph with the substitution rules "
                          "(every rule is verified\nnumerically first; failing rules are disabled). "
                          "Costs: analytic roofline time from the\nhardware's <gpu> section (or "
                          "defaults), FLOPs, bytes, kernel launches, or the exact fusion\nDRAM at the "
                          "buffer. Prints the cost before and after, the applied sequence and the "
                          "search\nstatistics, and checks the optimized graph against the original "
                          "with the reference executor\nbefore writing anything.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    lf_subst_job_config cfg;
    lf_subst_job_config_default(&cfg);
    lf_subst_options *o = &cfg.options;
    int64_t budget = 0, max_len = 0, split_size = 0, seed = 0, threads = 0, max_steps = 0, sample_size = 0;
    if ((rc = lf_cli_int(&cmd, "budget", o->budget, 1, 100000000, &budget)) ||
        (rc = lf_cli_int(&cmd, "max-steps", o->max_steps, 1, 64, &max_steps)) ||
        (rc = lf_cli_int(&cmd, "sample-size", o->sample_size, 2, 100000, &sample_size)) ||
        (rc = lf_cli_double(&cmd, "time-limit", 0.0, 1e-3, 1e7, &o->time_limit_s)) ||
        (rc = lf_cli_int(&cmd, "max-len", lf_cli_get(&cmd, "max-steps") ? max_steps : o->max_len, 1, 64, &max_len)) ||
        (rc = lf_cli_int(&cmd, "split-size", o->split_size, 2, 100000, &split_size)) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)) ||
        (rc = lf_cli_int(&cmd, "threads", 1, 1, 1024, &threads)) ||
        (rc = lf_cli_double(&cmd, "alpha", 1.05, 1.0, 100.0, &o->alpha)) ||
        (rc = lf_cli_check_rules(&cmd, lf__rules, 1)))
        return rc;
    o->budget = budget, o->max_len = (int32_t)max_len, o->split_size = (int32_t)split_size, o->seed = (uint64_t)seed;
    o->threads = (int32_t)threads, o->max_steps = (int32_t)max_steps, o->sample_size = (int32_t)sample_size;
    o->time_limit_cpu = lf_cli_get(&cmd, "cpu-time") != NULL;
    o->bt_max_steps = lf_cli_get(&cmd, "max-steps") ? o->max_steps : o->bt_max_steps;
    const char *search = lf_cli_get(&cmd, "search"), *objective = lf_cli_get(&cmd, "objective");
    o->search = search ? lf_subst_search_from_name(search) : LF_SEARCH_BACKTRACK;
    if (o->search == LF_SEARCH_COUNT)
        return lf_cli_usage_error(&cmd, "unknown --search '%s' (backtrack, enum, split, prune, dpp, sample)", search);
    lf_subst_objective obj = objective ? lf_subst_objective_from_name(objective) : LF_OBJ_TIME;
    if (obj == LF_OBJ_COUNT)
        return lf_cli_usage_error(&cmd, "unknown --objective '%s' (time, flops, bytes, kernels, dram)", objective);
    const char *output = lf_cli_get(&cmd, "output"), *taso = lf_cli_get(&cmd, "taso-file");
    if ((rc = lf_cli_check_outputs(&output, 1)))
        return rc;
    /* the generated rules ship with fusionplan; TASO's file only when given */
    cfg.rules = lf_cli_get_or(&cmd, "rules", taso ? "builtin,generated,taso" : "builtin,generated");
    cfg.taso_path = taso;
    cfg.with_dram = lf_cli_get(&cmd, "dram") != NULL;
    lf_graph *g = NULL;
    lf_hw hw;
    lf_gso_set set;
    if ((rc = lf_cli_subst_graph(&cmd, "resnet50", &g, &hw)) ||
        (rc = lf_cli_gso_filter(&cmd, "filter", "gso-weights", &set, &cfg.filter))) {
        lf_graph_free(g);
        return rc;
    }
    const char *model = lf_cli_get(&cmd, "model") ? lf_cli_get(&cmd, "model") : g->name;
    lf_subst_coster_init(&cfg.coster, obj, &hw, lf_cli_get(&cmd, "scheme"));
    lf_cli_gpu_costs gc = {0};
    if (lf_cli_get(&cmd, "analytic") && (lf_cli_get(&cmd, "cache") || lf_cli_get(&cmd, "cache-device")))
        rc = lf_cli_usage_error(&cmd, "--analytic uses no measured times: drop --cache and --cache-device");
    else if (!lf_cli_get(&cmd, "analytic"))
        rc = lf_cli_gpu_costs_begin(&gc, &cmd, &cfg.coster, &hw, g);
    if (rc) {
        lf_gso_set_destroy(&set);
        lf_graph_free(g);
        return rc;
    }
    lf_subst_job job;
    lf_status st = lf_subst_job_run(g, &cfg, &job, lf_cli_gso_filtered, NULL);
    lf_cli_gpu_costs_end(&gc);
    if (!st) {
        lf_subst_job_report(stdout, &job, model, g, gc.source != LF_CLI_OP_TIMES_ROOFLINE ? gc.note : NULL);
        /* ONNX: the optimized graph (or the original when nothing applies) with
         * the weights the numeric check used; JSON: only when something applies */
        size_t olen = output ? strlen(output) : 0;
        int onnx = olen > 5 && strcmp(output + olen - 5, ".onnx") == 0;
        if (output && (onnx || job.result.n_steps > 0) &&
            !(st = onnx ? lf_onnx_write_graph(output, job.result.graph ? job.result.graph : g, o->seed)
                        : lf_subst_job_save_json(output, &job, model)))
            printf("wrote %s\n", output);
    }
    lf_subst_job_destroy(&job);
    lf_gso_set_destroy(&set);
    lf_graph_free(g);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

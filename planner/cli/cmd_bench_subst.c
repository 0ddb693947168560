/* fusionplan bench subst: MetaFlow's Table 3 under the analytic cost:
 * backtracking (alpha, budget) against exhaustive enumeration on the same
 * networks, with the best cost each finds, whether they agree, time and
 * throughput (graphs expanded per second). A benchmark: it prints figures and
 * never fails on timing. */
#include <stdio.h>

#include "planner/app/cli/cli.h"
#include "search/subst/subst_bench.h"

static void lf__row(void *user, const lf_subst_bench *b, int32_t i)
{
    (void)user;
    lf_subst_bench_write_row(stdout, b, i);
    fflush(stdout);
}

int lf_cmd_bench_subst(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks, comma-separated (default alexnet,vgg16,inception_e13,resnet18)", NULL},
        {"input-size", "N", "square input resolution (default: each network's own)", NULL},
        {"hw", "FILE", "hardware description XML: the roofline's <gpu> figures", NULL},
        {"objective", "NAME", "time (default), flops, bytes, kernels or dram", NULL},
        {"alpha", "A", "backtracking's alpha (default 1.05)", NULL},
        {"budget", "N", "backtracking's expansions (default 1000)", NULL},
        {"enum-budget", "N", "exhaustive search's expansions before it gives up (default 200000)", NULL},
        {"threads", "T", "OpenMP threads over the candidates of an expansion (default 1)", NULL},
        {"rules", "LIST", "rule sources: builtin (default), generated (the shipped generated set), generated=FILE, "
                          "taso (with --taso-file)", NULL},
        {"taso-file", "FILE", "TASO's rule file (graph_subst.pb) for the taso source", NULL},
    };
    lf_cli_command cmd = {"bench subst", "Backtracking against exhaustive substitution search.",
                          "bench subst [--models LIST] [--alpha A] [--budget N] [--enum-budget N] [--rules LIST]",
                          "For each network: the best cost backtracking finds (MetaFlow's alpha and "
                          "budget), the best\ncost of exhaustive enumeration of every distinct graph "
                          "the rules reach (complete when it\nran out of graphs before its budget), "
                          "whether they agree, search time (without the final numeric check) and graphs\nexpanded per second. The "
                          "rules (--rules, default the built-in ones) are verified first.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    lf_subst_bench_config cfg;
    lf_subst_bench_config_default(&cfg);
    int64_t budget = 0, ebudget = 0, threads = 0, input = 0;
    if ((rc = lf_cli_int(&cmd, "threads", cfg.threads, 1, 1024, &threads)) ||
        (rc = lf_cli_int(&cmd, "budget", cfg.budget, 1, 100000000, &budget)) ||
        (rc = lf_cli_int(&cmd, "enum-budget", cfg.enum_budget, 1, 100000000, &ebudget)) ||
        (rc = lf_cli_double(&cmd, "alpha", cfg.alpha, 1.0, 100.0, &cfg.alpha)) ||
        (rc = lf_cli_int(&cmd, "input-size", 0, 1, 4096, &input)))
        return rc;
    cfg.threads = (int32_t)threads, cfg.budget = budget, cfg.enum_budget = ebudget, cfg.input_size = (int32_t)input;
    const char *obj_name = lf_cli_get(&cmd, "objective"), *models = lf_cli_get(&cmd, "models");
    cfg.objective = obj_name ? lf_subst_objective_from_name(obj_name) : LF_OBJ_TIME;
    if (cfg.objective == LF_OBJ_COUNT)
        return lf_cli_usage_error(&cmd, "unknown --objective '%s'", obj_name);
    if (models && lf_subst_bench_set_models(&cfg, models))
        return lf_cli_usage_error(&cmd, "--models: %s", lf_last_error());
    lf_hw hw;
    lf_graph *none = NULL;
    /* the hardware only (no --model option here) */
    if ((rc = lf_cli_subst_graph(&cmd, NULL, &none, &hw)))
        return rc;
    cfg.hw = &hw;
    cfg.rules = lf_cli_get(&cmd, "rules");
    cfg.taso_path = lf_cli_get(&cmd, "taso-file");
    lf_subst_bench b;
    lf_status st = lf_subst_bench_open(&b, &cfg);
    if (!st) {
        lf_subst_bench_write_header(stdout, &b);
        st = lf_subst_bench_run(&b, lf__row, NULL);
    }
    lf_subst_bench_close(&b);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

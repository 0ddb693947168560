/* fusionplan bench gso: the GSO rule filter on built-in networks (GSO
 * Figure 7 and §4.3): inference time of every rule's model on the graph,
 * rules kept by the GCNs and by the LR baseline against the rules that truly
 * match, the Jaccard distance between them, and the substitution search's
 * time and result without and with each filter. A benchmark: it prints
 * figures and never fails on timing. */
#include <stdio.h>

#include "planner/app/cli/cli.h"
#include "search/subst/gso/gso_bench.h"

static void lf__row(void *user, const lf_gso_bench *b, int32_t i)
{
    (void)user;
    lf_gso_bench_write_row(stdout, b, i);
    fflush(stdout);
}

int lf_cmd_bench_gso(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks; NAME:N for a substitution network with N blocks, e.g. resnet_blocks:4 (default resnet18,resnet50,inception_e,alexnet,vgg16,sru)", NULL},
        {"rules", "LIST", "rule sources: builtin, generated, taso (default builtin,taso with --taso-file, else builtin)", NULL},
        {"taso-file", "FILE", "TASO's rule collection (for the taso rule source)", NULL},
        {"search", "NAME", "backtrack (default), enum, split, or OCGGS's prune, dpp, sample", NULL},
        {"max-steps", "K", "prune, dpp, sample: longest sequence (default 10)", NULL},
        {"budget", "N", "graphs expanded per search (default 1000)", NULL},
        {"max-len", "K", "enum: longest sequence (default 3)", NULL},
        {"repeat", "R", "filter runs per network, the median is reported (default 21)", NULL},
        {"gso-weights", "FILE", "GCN models (default: the shipped gso-gcn.bin)", NULL},
        {"lr-weights", "FILE", "LR models (default: the shipped gso-lr.bin)", NULL},
        {"no-search", NULL, "filter figures only (no searches)", NULL},
        {"every-model", NULL, "also time a forward pass of every GCN, the constant \"no\" models of rules "
                              "that never matched a training graph too (column 'all GCNs ms')", NULL},
    };
    lf_cli_command cmd = {"bench gso", "The GSO rule filter: rules kept, inference time, search with and without.",
                          "bench gso [--models LIST] [--search backtrack|enum|split|prune|dpp|sample] [--budget N] [--no-search] [--every-model]",
                          "For each network: ops, the filter's time for all rules (median of --repeat "
                          "runs, one thread),\nrules kept by the GCNs (gso) and the LR baseline against "
                          "the rules that match (the matcher)\nand all enabled rules, the Jaccard distance "
                          "kept vs matching, and the search's CPU time (one\nthread, without the final numeric check) and "
                          "best cost (roofline time, us) without a filter and with each.\nRules are "
                          "verified first; disabled ones count nowhere.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    lf_gso_bench_config cfg;
    lf_gso_bench_config_default(&cfg);
    int64_t budget, max_len, repeat, max_steps;
    if ((rc = lf_cli_int(&cmd, "budget", cfg.budget, 1, 100000000, &budget)) ||
        (rc = lf_cli_int(&cmd, "max-steps", cfg.max_steps, 1, 64, &max_steps)) ||
        (rc = lf_cli_int(&cmd, "max-len", cfg.max_len, 1, 64, &max_len)) ||
        (rc = lf_cli_int(&cmd, "repeat", cfg.repeat, 1, 64, &repeat)))
        return rc;
    cfg.budget = budget, cfg.max_steps = (int32_t)max_steps, cfg.max_len = (int32_t)max_len;
    cfg.repeat = (int32_t)repeat;
    const char *search = lf_cli_get(&cmd, "search"), *models = lf_cli_get(&cmd, "models");
    cfg.search = search ? lf_subst_search_from_name(search) : LF_SEARCH_BACKTRACK;
    if (cfg.search == LF_SEARCH_COUNT)
        return lf_cli_usage_error(&cmd, "unknown --search '%s' (backtrack, enum, split, prune, dpp, sample)", search);
    if (models && lf_gso_bench_set_models(&cfg, models))
        return lf_cli_usage_error(&cmd, "--models: %s", lf_last_error());
    cfg.with_search = lf_cli_get(&cmd, "no-search") == NULL;
    cfg.every_model = lf_cli_get(&cmd, "every-model") != NULL;
    cfg.gcn_weights = lf_cli_get(&cmd, "gso-weights");
    cfg.lr_weights = lf_cli_get(&cmd, "lr-weights");
    const char *rules = lf_cli_get(&cmd, "rules"), *taso = lf_cli_get(&cmd, "taso-file");
    cfg.rules = rules ? rules : taso ? "builtin,taso" : "builtin";
    cfg.taso_path = taso;
    lf_hw hw;
    lf_graph *none = NULL;
    if ((rc = lf_cli_subst_graph(&cmd, NULL, &none, &hw)))
        return rc;
    cfg.hw = &hw;
    lf_gso_bench b;
    lf_status st = lf_gso_bench_open(&b, &cfg);
    if (!st) {
        lf_gso_bench_write_header(stdout, &b);
        st = lf_gso_bench_run(&b, lf__row, NULL);
    }
    lf_gso_bench_close(&b);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

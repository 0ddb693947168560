/* fusionplan dataset: sample and label the fusion-group dataset the validity
 * GNN is trained on (DESIGN §9), and print the valid fraction per network and
 * buffer size (the paper's Fig. 3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/dataset.h"
#include "planner/app/cli/cli.h"
#include "planner/app/registry.h"
#include "planner/util/clock.h"

static int lf__parse_scale(const lf_cli_command *cmd, const char *s, double *out)
{
    char *end = NULL;
    double v = s ? strtod(s, &end) : 1.0;
    if (s && (end == s || *end || !(v > 0) || v > 100))
        return lf_cli_usage_error(cmd, "--scale must be a number in (0, 100], not '%s'", s);
    *out = v;
    return 0;
}

int lf_cmd_dataset(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"scheme", "NAME", "cost model of the labels: lbdf or brr (required)", NULL},
        {"seed", "S", "seed of the sampling and the 80/10/10 split (default 1)", NULL},
        {"scale", "F", "fraction of the paper's Table I counts to sample (default 1; 0.1 for CI)",
         NULL},
        {"max-nodes", "N", "largest group kept, in ops (default 100)", NULL},
        {"threads", "T", "threads (networks are sampled in parallel; default: all)", NULL},
        {"output", "FILE", "(or -o) dataset file to write (required)", NULL},
        LF_CLI_ONNX_OPTS,
        {"groups", "N", "with --onnx: distinct groups to sample from it (default 1000)", NULL},
    };
    lf_cli_command cmd = {
        "dataset", "Build the fusion-group dataset for the validity GNN.",
        "dataset --scheme lbdf|brr [--seed S] [--scale F] [--max-nodes N] [--onnx FILE --groups N] "
        "-o FILE",
        "Samples connected, convex fusion groups by random search on the networks of the "
        "paper's Table I,\nlabels each at 128, 256, 512, 1024 and 2048 KB (valid = F_beta < "
        "beta), removes duplicates and\nsplits 80/10/10. Under BRR the squeeze-and-excite "
        "networks (MobileNetV3, EfficientNet) are skipped.\nWith --onnx, samples --groups groups "
        "of that network instead. Prints the valid fraction per\nnetwork and buffer size.",
        opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    const char *scheme = lf_cli_get(&cmd, "scheme");
    const char *output = lf_cli_get(&cmd, "output");
    if (!scheme)
        return lf_cli_usage_error(&cmd, "--scheme is required (lbdf or brr)");
    if (!lf_name_known(LF_NAMES_SCHEME, scheme))
        return lf_cli_usage_error(&cmd, "--scheme must be lbdf or brr, not '%s'", scheme);
    if (!output)
        return lf_cli_usage_error(&cmd, "-o FILE is required");
    if ((rc = lf_cli_check_outputs(&output, 1)))
        return rc;
    int64_t seed, max_nodes, threads;
    double scale = 1.0;
    if ((rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)) ||
        (rc = lf_cli_int(&cmd, "max-nodes", 100, 2, 100000, &max_nodes)) ||
        (rc = lf_cli_int(&cmd, "threads", 0, 0, 1024, &threads)) ||
        (rc = lf__parse_scale(&cmd, lf_cli_get(&cmd, "scale"), &scale)))
        return rc;

    const char *onnx = lf_cli_get(&cmd, "onnx");
    int64_t groups;
    if ((rc = lf_cli_int(&cmd, "groups", 1000, 1, 1000000, &groups)))
        return rc;
    if (lf_cli_get(&cmd, "groups") && !onnx)
        return lf_cli_usage_error(&cmd, "--groups applies to --onnx networks");
    lf_graph *g = NULL;
    if (onnx && (rc = lf_cli_load_listed(&cmd, onnx, &g)))
        return rc;
    lf_ds_config cfg;
    lf_ds_config_default(&cfg);
    if (g) {
        cfg.graph = g;
        cfg.groups = (int32_t)groups;
    }
    cfg.scheme = scheme;
    cfg.seed = (uint64_t)seed;
    cfg.scale = scale;
    cfg.max_nodes = (int32_t)max_nodes;
    cfg.threads = (int32_t)threads;
    lf_dataset ds;
    lf_dataset_init(&ds, scheme);
    double t0 = lf_now_seconds();
    lf_status st = lf_dataset_build(&ds, &cfg);
    if (st == LF_OK)
        st = lf_dataset_save(&ds, output);
    lf_graph_free(g);
    if (st != LF_OK) {
        lf_dataset_destroy(&ds);
        return lf_cli_fail(st);
    }
    double secs = lf_now_seconds() - t0;

    printf("dataset   %s, seed %llu, scale %g: %lld groups x %d buffer sizes = %lld samples "
           "(%.1f s)\n",
           scheme, (unsigned long long)seed, scale, (long long)ds.n_groups, (int)ds.n_betas,
           (long long)ds.n_groups * ds.n_betas, secs);
    lf_dataset_report_write(stdout, &ds);
    printf("wrote     %s\n", output);
    lf_dataset_destroy(&ds);
    return LF_EXIT_OK;
}

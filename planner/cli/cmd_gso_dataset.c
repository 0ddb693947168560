/* fusionplan gso-dataset: the GSO rule filter's training set (augmented
 * graphs labelled by the matcher; DESIGN §11, docs/substitution.md), built
 * by the library (search/subst/gso) with a progress line on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/util/clock.h"
#include "search/subst/gso/gso.h"

static void lf__progress(void *user, int32_t done, int32_t total)
{
    (void)user;
    if (done == total || done % 100 == 0) {
        fprintf(stderr, "\rgso-dataset: %d / %d graphs", (int)done, (int)total);
        if (done == total)
            fprintf(stderr, "\n");
    }
}

int lf_cmd_gso_dataset(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"graphs", "N", "graphs in all (default 2000)", NULL},
        {"train", "N", "of which for training, the rest for testing (default 1500)", NULL},
        {"networks", "LIST", "base networks (default alexnet,vgg16,resnet18,resnet34,resnet50,squeezenet1_1,"
                             "mobilenet_v2,inception_e,inception_e13,sru)", NULL},
        {"rules", "LIST", "rule sources: builtin, generated, taso (default builtin,taso with --taso-file, else builtin)", NULL},
        {"taso-file", "FILE", "TASO's rule collection (for the taso rule source)", NULL},
        {"seed", "S", "seed of the augmentation (default 1)", NULL},
        {"threads", "T", "threads (default 1); the dataset does not depend on it", NULL},
        {"output", "FILE", "(or -o) dataset file to write (required)", NULL},
    };
    lf_cli_command cmd = {"gso-dataset", "Build the GSO rule filter's training set.",
                          "gso-dataset [--graphs 2000] [--train 1500] [--seed S] -o FILE",
                          "Makes graphs by augmentation (GSO §3.3): each base network after random "
                          "substitution steps\n(the intermediate graphs of a search) and random "
                          "perturbations (a conv's padding or stride\nchanged; a ReLU, a channel split "
                          "+ concat or a conv inserted or deleted), labels every op\nper rule with the "
                          "matcher (1: a match of the rule uses the op) and writes them for gso-train.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    lf_gso_dataset_options o;
    lf_gso_dataset_options_default(&o);
    int64_t graphs, train, seed, threads;
    if ((rc = lf_cli_int(&cmd, "graphs", o.n_graphs, 1, 1000000, &graphs)) ||
        (rc = lf_cli_int(&cmd, "train", graphs < o.n_train ? (graphs * 3 + 3) / 4 : o.n_train, 1, graphs, &train)) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)) ||
        (rc = lf_cli_int(&cmd, "threads", 1, 1, 1024, &threads)))
        return rc;
    const char *output = lf_cli_get(&cmd, "output");
    if (!output)
        return lf_cli_usage_error(&cmd, "-o FILE is required");
    if ((rc = lf_cli_check_outputs(&output, 1)))
        return rc;
    o.n_graphs = (int32_t)graphs, o.n_train = (int32_t)train, o.seed = (uint64_t)seed, o.threads = (int32_t)threads;
    char netbuf[1024], *nets[65] = {0};
    int n = 0;
    if ((rc = lf_cli_list(&cmd, "networks", "", -1, netbuf, sizeof netbuf, nets, 64, &n)))
        return rc;
    if (lf_cli_get(&cmd, "networks") && (n <= 0 || n > 64))
        return lf_cli_usage_error(&cmd, "--networks: expected a comma-separated list of 1 to 64 networks");
    o.networks = n > 0 ? (const char *const *)nets : NULL;
    const char *rules = lf_cli_get(&cmd, "rules"), *taso = lf_cli_get(&cmd, "taso-file");
    lf_subst_ruleset rs;
    lf_status st = lf_subst_ruleset_open(&rs, rules ? rules : taso ? "builtin,taso" : "builtin", taso);
    if (st)
        return lf_cli_fail(st);
    lf_gso_dataset d;
    double t0 = lf_now_seconds();
    st = lf_gso_dataset_build(&d, &rs, &o, lf__progress, NULL);
    if (!st)
        st = lf_gso_dataset_save(&d, output);
    if (st) {
        lf_subst_ruleset_close(&rs);
        return lf_cli_fail(st);
    }
    printf("gso-dataset: ");
    lf_gso_dataset_summary_write(stdout, &d);
    printf("; %.1f s, seed %llu; wrote %s\n", lf_now_seconds() - t0, (unsigned long long)o.seed, output);
    lf_gso_dataset_destroy(&d);
    lf_subst_ruleset_close(&rs);
    return LF_EXIT_OK;
}

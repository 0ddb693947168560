/* fusionplan train-explainer: train the PGExplainer MLP or the RG-Explainer
 * (DESIGN §9) on the invalid samples of a dataset's training split, with a
 * frozen GNN, and write its weights. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explainer_training.h"
#include "planner/app/cli/cli.h"
#include "planner/util/clock.h"

static void lf__line(void *user, const char *line)
{
    (void)user;
    fputs(line, stdout);
    fflush(stdout);
}

int lf_cmd_train_explainer(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"explainer", "NAME", "pg or rg (required)", NULL},
        {"weights", "FILE", "GNN weight file from `fusionplan train` (required)", NULL},
        {"dataset", "FILE", "dataset file from `fusionplan dataset` (required)", NULL},
        {"epochs", "N", "pg: epochs (default 25); rg: REINFORCE epochs (default 10)", NULL},
        {"lr", "RATE", "Adam learning rate (default pg 0.003, rg 0.01)", NULL},
        {"max-graphs", "N", "train on at most N invalid samples, a seeded subset (default pg all, "
                            "rg 1000)", NULL},
        {"size-coef", "C", "pg: weight of the mask-size regulariser (default 0.05)", NULL},
        {"entropy-coef", "C", "pg: weight of the mask-entropy regulariser (default 1.0)", NULL},
        {"seed", "S", "seed of the initialisation, order and noise (default 1)", NULL},
        {"output", "FILE", "(or -o) weight file to write (required)", NULL},
    };
    lf_cli_command cmd = {
        "train-explainer", "Train the PGExplainer or RG-Explainer on a dataset's invalid groups.",
        "train-explainer --explainer pg|rg --weights GNN.bin --dataset DS.bin [--epochs N] -o FILE",
        "pg: the PGExplainer MLP (endpoint embeddings -> 64 -> 1) on the invalid samples of "
        "the\ntraining split with the concrete relaxation (temperature 5 -> 2), size 0.05 and "
        "entropy 1.0\nregularisers, one Adam step per sample.\n"
        "rg: the RG-Explainer's seed locator (pretrained on 3-hop subgraphs), then its policy by\n"
        "imitation (10 + 25 epochs) and REINFORCE (128 episodes, 5 roll-outs per step).\n"
        "Both are single threaded and deterministic for a seed.",
        opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    const char *ename = lf_cli_get(&cmd, "explainer");
    const char *wpath = lf_cli_get(&cmd, "weights");
    const char *dpath = lf_cli_get(&cmd, "dataset");
    const char *output = lf_cli_get(&cmd, "output");
    if (!ename)
        return lf_cli_usage_error(&cmd, "--explainer pg is required");
    int is_rg = strcmp(ename, "rg") == 0;
    if (!is_rg && strcmp(ename, "pg") != 0)
        return lf_cli_usage_error(&cmd, "--explainer must be pg or rg");
    if (!wpath || !dpath)
        return lf_cli_usage_error(&cmd, "--weights and --dataset are required");
    if (!output)
        return lf_cli_usage_error(&cmd, "-o FILE is required");
    if ((rc = lf_cli_check_outputs(&output, 1)))
        return rc;
    int64_t epochs, seed, maxg;
    if ((rc = lf_cli_int(&cmd, "epochs", is_rg ? 10 : 25, 0, 100000, &epochs)) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)) ||
        (rc = lf_cli_int(&cmd, "max-graphs", is_rg ? 1000 : 0, 0, INT64_MAX, &maxg)))
        return rc;
    lf_explainer_training_config cfg;
    lf_explainer_training_config_default(&cfg, is_rg);
    lf_explainer_training_set(&cfg, (int32_t)epochs, (uint64_t)seed, maxg);
    const char *lrs = lf_cli_get(&cmd, "lr");
    if (lrs) {
        char *end = NULL;
        double lr = strtod(lrs, &end);
        if (end == lrs || *end || !(lr > 0) || lr > 1)
            return lf_cli_usage_error(&cmd, "--lr must be a number in (0, 1], not '%s'", lrs);
        cfg.pg.lr = cfg.rgx.lr = (float)lr;
    }
    const char *coef_names[2] = {"size-coef", "entropy-coef"};
    float *coefs[2] = {&cfg.pg.size_coef, &cfg.pg.ent_coef};
    for (int i = 0; i < 2; i++) {
        const char *v = lf_cli_get(&cmd, coef_names[i]);
        char *end = NULL;
        double x = v ? strtod(v, &end) : 0;
        if (v && is_rg)
            return lf_cli_usage_error(&cmd, "--%s applies to --explainer pg", coef_names[i]);
        if (v && (end == v || *end || !(x >= 0) || x > 1000))
            return lf_cli_usage_error(&cmd, "--%s must be a number in [0, 1000], not '%s'", coef_names[i], v);
        *coefs[i] = v ? (float)x : *coefs[i];
    }
    cfg.gnn_path = wpath, cfg.dataset_path = dpath, cfg.progress = lf__line;
    lf_explainer_training t;
    lf_status st = lf_explainer_training_open(&t, &cfg);
    if (st == LF_OK) {
        lf_explainer_training_write_header(stdout, &t);
        fflush(stdout);
        double t0 = lf_now_seconds();
        if ((st = lf_explainer_training_run(&t)) == LF_OK)
            printf("trained   in %.1f s\n", lf_now_seconds() - t0);
    }
    if (st == LF_OK && (st = lf_explainer_training_save(&t, output)) == LF_OK)
        printf("wrote     %s\n", output);
    lf_explainer_training_close(&t);
    return st == LF_OK ? LF_EXIT_OK : lf_cli_fail(st);
}

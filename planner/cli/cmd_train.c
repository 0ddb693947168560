/* fusionplan train: train the fusion-group validity GNN on a dataset built by
 * `fusionplan dataset` and write its weights (DESIGN §9). */
#include <stdio.h>
#include <stdlib.h>

#include "explain/gnn_training.h"
#include "explain/weights.h"
#include "planner/app/cli/cli.h"
#include "planner/app/registry.h"

static void lf__line(void *user, const char *line)
{
    (void)user;
    fputs(line, stdout);
    fflush(stdout);
}

int lf_cmd_train(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"dataset", "FILE", "dataset file from `fusionplan dataset` (required)", NULL},
        {"scheme", "NAME", "lbdf or brr: must match the dataset's labels (required)", NULL},
        {"epochs", "N", "training epochs (default 50)", NULL},
        {"batch", "N", "mini-batch size (default 32)", NULL},
        {"lr", "RATE", "Adam learning rate (default 0.001)", NULL},
        {"seed", "S", "seed of the initialisation and sample order (default 1)", NULL},
        {"threads", "T", "threads (default: all); the weights do not depend on it", NULL},
        {"output", "FILE", "(or -o) weight file to write (required)", NULL},
    };
    lf_cli_command cmd = {
        "train", "Train the fusion-group validity GNN.",
        "train --dataset FILE --scheme lbdf|brr [--epochs 50] [--seed S] [--threads T] -o FILE",
        "Trains 4 GraphConv layers (hidden 128, sum readout, 2-logit head) with Adam on the "
        "training split,\nprints the loss and validation accuracy per epoch, keeps the weights "
        "of the best validation\naccuracy and reports test accuracy and F1. The same seed gives "
        "the same weights with any\nnumber of threads.",
        opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    const char *path = lf_cli_get(&cmd, "dataset");
    const char *scheme = lf_cli_get(&cmd, "scheme");
    const char *output = lf_cli_get(&cmd, "output");
    if (!path)
        return lf_cli_usage_error(&cmd, "--dataset is required");
    if (!scheme || !lf_name_known(LF_NAMES_SCHEME, scheme))
        return lf_cli_usage_error(&cmd, "--scheme lbdf or --scheme brr is required");
    if (!output)
        return lf_cli_usage_error(&cmd, "-o FILE is required");
    if ((rc = lf_cli_check_outputs(&output, 1)))
        return rc;
    int64_t epochs, batch, seed, threads;
    if ((rc = lf_cli_int(&cmd, "epochs", 50, 0, 100000, &epochs)) ||
        (rc = lf_cli_int(&cmd, "batch", 32, 1, LF_TRAIN_MAX_BATCH, &batch)) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)) ||
        (rc = lf_cli_int(&cmd, "threads", 0, 0, 1024, &threads)))
        return rc;
    double lr = 1e-3;
    const char *lrs = lf_cli_get(&cmd, "lr");
    if (lrs) {
        char *end = NULL;
        lr = strtod(lrs, &end);
        if (end == lrs || *end || !(lr > 0) || lr > 1)
            return lf_cli_usage_error(&cmd, "--lr must be a number in (0, 1], not '%s'", lrs);
    }

    lf_gnn_training_config cfg;
    lf_gnn_training_config_default(&cfg);
    cfg.dataset_path = path, cfg.scheme = scheme, cfg.progress = lf__line;
    cfg.train.epochs = (int32_t)epochs, cfg.train.batch = (int32_t)batch, cfg.train.lr = (float)lr;
    cfg.train.seed = (uint64_t)seed, cfg.train.threads = (int32_t)threads;
    lf_gnn_training t;
    lf_status st = lf_gnn_training_open(&t, &cfg);
    if (st == LF_OK) {
        lf_gnn_training_write_header(stdout, &t);
        fflush(stdout);
        if ((st = lf_gnn_training_run(&t)) == LF_OK)
            lf_gnn_training_write_result(stdout, &t);
    }
    if (st == LF_OK && (st = lf_gnn_save(&t.gnn, output)) == LF_OK)
        printf("wrote     %s\n", output);
    lf_gnn_training_close(&t);
    return st == LF_OK ? LF_EXIT_OK : lf_cli_fail(st);
}

/* fusionplan train: train the fusion-group validity GNN on a dataset built by
 * `fusionplan dataset` and write its weights (DESIGN §9). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/dataset.h"
#include "explain/train.h"
#include "explain/weights.h"
#include "planner/cli/cli.h"
#include "planner/registry.h"
#include "planner/util/progress.h"

static void lf__on_epoch(void *ctx, const lf_gnn_epoch *e)
{
    (void)ctx;
    if (e->val.n)
        printf("epoch %3d  train loss %.4f  val loss %.4f  val acc %.4f  val F1 %.4f  %5.1f s%s\n",
               (int)e->epoch, e->train_loss, e->val.loss, e->val.accuracy, e->val.f1, e->seconds,
               e->improved ? "  *" : "");
    else
        printf("epoch %3d  train loss %.4f  %5.1f s\n", (int)e->epoch, e->train_loss, e->seconds);
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

    lf_dataset ds;
    lf_status st = lf_dataset_load(&ds, path);
    if (st != LF_OK)
        return lf_cli_fail(st);
    if (strcmp(ds.scheme, scheme) != 0) {
        lf_set_error(LF_EINVAL, "%s holds %s labels, not %s", path, ds.scheme, scheme);
        lf_dataset_destroy(&ds);
        return lf_cli_fail(LF_EINVAL);
    }
    lf_gnn m = {0};
    lf_gnn_sample *tr = NULL, *va = NULL, *te = NULL;
    int64_t ntr = 0, nva = 0, nte = 0;
    lf_gnn_config gc;
    lf_gnn_config_default(&gc);
    st = lf_gnn_init(&m, &gc, (uint64_t)seed);
    if (st == LF_OK) {
        lf_dataset_fit_norm(&ds, &m.norm);
        for (int i = 0; i < (int)sizeof m.scheme - 1 && scheme[i]; i++)
            m.scheme[i] = scheme[i];
        st = lf_dataset_samples(&ds, LF_DS_TRAIN, &m.norm, &tr, &ntr);
    }
    if (st == LF_OK)
        st = lf_dataset_samples(&ds, LF_DS_VAL, &m.norm, &va, &nva);
    if (st == LF_OK)
        st = lf_dataset_samples(&ds, LF_DS_TEST, &m.norm, &te, &nte);
    if (st != LF_OK)
        goto fail;
    printf("train     %s: %lld train, %lld validation, %lld test samples; %lld parameters\n",
           path, (long long)ntr, (long long)nva, (long long)nte, (long long)m.n_params);
    fflush(stdout);
    lf_gnn_train_config tc;
    lf_gnn_train_config_default(&tc);
    tc.epochs = (int32_t)epochs;
    tc.batch = (int32_t)batch;
    tc.lr = (float)lr;
    tc.seed = (uint64_t)seed;
    tc.threads = (int32_t)threads;
    tc.on_epoch = lf__on_epoch;
    int32_t best = 0;
    double t0 = lf_now_seconds();
    if ((st = lf_gnn_train(&m, tr, ntr, va, nva, &tc, &best)) != LF_OK)
        goto fail;
    double secs = lf_now_seconds() - t0;
    lf_gnn_eval ev;
    if ((st = lf_gnn_evaluate(&m, te, nte, tc.threads, &ev)) != LF_OK)
        goto fail;
    printf("best      epoch %d (by validation accuracy); training took %.1f s\n", (int)best, secs);
    printf("test      accuracy %.4f  F1(valid) %.4f  F1(invalid) %.4f  precision %.4f  recall "
           "%.4f  (%lld samples)\n",
           ev.accuracy, ev.f1, ev.f1_invalid, ev.precision, ev.recall, (long long)ev.n);
    if ((st = lf_gnn_save(&m, output)) != LF_OK)
        goto fail;
    printf("wrote     %s\n", output);
    lf_dataset_samples_free(tr, ntr);
    lf_dataset_samples_free(va, nva);
    lf_dataset_samples_free(te, nte);
    lf_gnn_destroy(&m);
    lf_dataset_destroy(&ds);
    return LF_EXIT_OK;
fail:
    lf_dataset_samples_free(tr, ntr);
    lf_dataset_samples_free(va, nva);
    lf_dataset_samples_free(te, nte);
    lf_gnn_destroy(&m);
    lf_dataset_destroy(&ds);
    return lf_cli_fail(st);
}

/* fusionplan train-explainer: train the PGExplainer MLP or the RG-Explainer
 * (DESIGN §9) on the invalid samples of a dataset's training split, with a
 * frozen GNN, and write its weights. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/dataset.h"
#include "explain/explainer.h"
#include "explain/weights.h"
#include "planner/cli/cli.h"
#include "planner/util/progress.h"

static void lf__rg_phase(void *ctx, const char *phase, int32_t epoch, double value)
{
    (void)ctx;
    printf("%-16s %3d  %s %.4f\n", phase, (int)epoch,
           strcmp(phase, "reinforce") == 0 ? "mean reward" : "loss", value);
    fflush(stdout);
}

static void lf__pg_epoch(void *ctx, int32_t epoch, double loss, float tau)
{
    (void)ctx;
    printf("epoch %3d  loss %.4f  temperature %.3f\n", (int)epoch, loss, (double)tau);
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
    lf_pgx_config pc;
    lf_pgx_config_default(&pc);
    lf_rgx_config rc_;
    lf_rgx_config_default(&rc_);
    const char *lrs = lf_cli_get(&cmd, "lr");
    if (lrs) {
        char *end = NULL;
        double lr = strtod(lrs, &end);
        if (end == lrs || *end || !(lr > 0) || lr > 1)
            return lf_cli_usage_error(&cmd, "--lr must be a number in (0, 1], not '%s'", lrs);
        pc.lr = rc_.lr = (float)lr;
    }
    const char *coef_names[2] = {"size-coef", "entropy-coef"};
    float *coefs[2] = {&pc.size_coef, &pc.ent_coef};
    for (int i = 0; i < 2; i++) {
        const char *v = lf_cli_get(&cmd, coef_names[i]);
        if (!v)
            continue;
        if (is_rg)
            return lf_cli_usage_error(&cmd, "--%s applies to --explainer pg", coef_names[i]);
        char *end = NULL;
        double c = strtod(v, &end);
        if (end == v || *end || !(c >= 0) || c > 1000)
            return lf_cli_usage_error(&cmd, "--%s must be a number in [0, 1000], not '%s'",
                                      coef_names[i], v);
        *coefs[i] = (float)c;
    }
    rc_.rl_epochs = (int32_t)epochs;
    rc_.seed = (uint64_t)seed;
    rc_.max_graphs = maxg;
    rc_.on_phase = lf__rg_phase;
    pc.epochs = (int32_t)epochs;
    pc.seed = (uint64_t)seed;
    pc.max_graphs = maxg;
    pc.on_epoch = lf__pg_epoch;

    lf_gnn m = {0};
    lf_pgx pg = {0};
    lf_rgx rg = {0};
    lf_dataset ds;
    lf_gnn_sample *tr = NULL;
    int64_t ntr = 0;
    int have_ds = 0;
    lf_status st = lf_gnn_load(&m, wpath, NULL);
    if (st == LF_OK && (st = lf_dataset_load(&ds, dpath)) == LF_OK)
        have_ds = 1;
    if (st == LF_OK && m.scheme[0] && strcmp(m.scheme, ds.scheme) != 0)
        st = lf_set_error(LF_EINVAL, "%s was trained for scheme %s, %s holds %s labels", wpath,
                          m.scheme, dpath, ds.scheme);
    if (st == LF_OK)
        st = lf_dataset_samples(&ds, LF_DS_TRAIN, &m.norm, &tr, &ntr);
    if (st == LF_OK)
        st = is_rg ? lf_rgx_init(&rg, &m, rc_.max_size, (uint64_t)seed)
                   : lf_pgx_init(&pg, &m, 64, (uint64_t)seed);
    if (st != LF_OK)
        goto out;
    int64_t ninv = 0;
    for (int64_t i = 0; i < ntr; i++)
        ninv += tr[i].label == 0 && tr[i].g.n_edges > 0;
    printf("train     %s on %lld invalid of %lld training samples (%s), %lld parameters, %d "
           "epochs\n",
           is_rg ? "RG-Explainer" : "PGExplainer",
           (long long)(maxg > 0 && maxg < ninv ? maxg : ninv), (long long)ntr, dpath,
           (long long)(is_rg ? rg.n_loc + rg.n_pol : pg.n_params), (int)epochs);
    fflush(stdout);
    double t0 = lf_now_seconds();
    st = is_rg ? lf_rgx_train(&rg, &m, tr, ntr, &rc_) : lf_pgx_train(&pg, &m, tr, ntr, &pc);
    if (st != LF_OK)
        goto out;
    printf("trained   in %.1f s\n", lf_now_seconds() - t0);
    if ((st = is_rg ? lf_rgx_save(&rg, output) : lf_pgx_save(&pg, output)) != LF_OK)
        goto out;
    printf("wrote     %s\n", output);
out:
    lf_dataset_samples_free(tr, ntr);
    lf_pgx_destroy(&pg);
    lf_rgx_destroy(&rg);
    lf_gnn_destroy(&m);
    if (have_ds)
        lf_dataset_destroy(&ds);
    return st == LF_OK ? LF_EXIT_OK : lf_cli_fail(st);
}

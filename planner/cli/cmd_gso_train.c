/* fusionplan gso-train: the GSO rule filter's per-rule models, trained by
 * the library (search/subst/gso) on a gso-dataset file, with their accuracy
 * and recall on the test graphs (DESIGN §11, docs/substitution.md). */
#include <stdio.h>

#include "planner/app/cli/cli.h"
#include "planner/util/clock.h"
#include "search/subst/gso/gso.h"

int lf_cmd_gso_train(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"data", "FILE", "dataset from `fusionplan gso-dataset` (required)", NULL},
        {"kind", "NAME", "gso (two GCN layers, default) or lr (the logistic-regression baseline)", NULL},
        {"epochs", "N", "epochs (default 20, with early stopping)", NULL},
        {"lr", "RATE", "Adam learning rate (default 0.01)", NULL},
        {"dropout", "P", "dropout between the GCN layers (default 0.1)", NULL},
        {"pos-weight", "W", "loss weight of label-1 nodes (default 2; 0: per rule, sqrt(negative / positive nodes))", NULL},
        {"seed", "S", "seed of the initialisation, order and dropout (default 1)", NULL},
        {"threads", "T", "rules trained in parallel (default 1); the weights do not depend on it", NULL},
        {"output", "FILE", "(or -o) weight file to write (required)", NULL},
    };
    lf_cli_command cmd = {"gso-train", "Train the GSO rule filter's per-rule models.",
                          "gso-train --data FILE [--kind gso|lr] [--epochs 20] [--seed S] [--threads T] -o FILE",
                          "Trains one model per rule on the training graphs (Adam, weighted binary "
                          "cross-entropy per op),\nwrites them to one weight file and prints per rule "
                          "the node and graph accuracy and the recall\non the test graphs, the mean "
                          "Jaccard distance between kept and matching rules and the share\nof rules "
                          "kept. The same seed gives the same file with any number of threads.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    lf_gso_train_options o;
    lf_gso_train_options_default(&o);
    const char *data = lf_cli_get(&cmd, "data"), *output = lf_cli_get(&cmd, "output"),
               *kind = lf_cli_get(&cmd, "kind");
    if (!data)
        return lf_cli_usage_error(&cmd, "--data FILE is required");
    if (!output)
        return lf_cli_usage_error(&cmd, "-o FILE is required");
    o.kind = kind ? lf_gso_kind_from_name(kind) : LF_GSO_GCN;
    if (o.kind != LF_GSO_GCN && o.kind != LF_GSO_LR)
        return lf_cli_usage_error(&cmd, "unknown --kind '%s' (gso, lr)", kind);
    int64_t epochs, seed, threads;
    double lr, dropout, pw;
    if ((rc = lf_cli_int(&cmd, "epochs", o.epochs, 1, 100000, &epochs)) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)) ||
        (rc = lf_cli_int(&cmd, "threads", 1, 1, 1024, &threads)) ||
        (rc = lf_cli_double(&cmd, "lr", o.lr, 1e-6, 1, &lr)) || (rc = lf_cli_double(&cmd, "dropout", o.dropout, 0, 0.9, &dropout)) ||
        (rc = lf_cli_double(&cmd, "pos-weight", o.pos_weight, 0, 1000, &pw)))
        return rc;
    if ((rc = lf_cli_check_outputs(&output, 1)))
        return rc;
    o.epochs = (int32_t)epochs, o.seed = (uint64_t)seed, o.threads = (int32_t)threads;
    o.lr = (float)lr, o.dropout = (float)dropout, o.pos_weight = pw;
    lf_gso_dataset d;
    lf_status st = lf_gso_dataset_load(&d, data);
    if (st)
        return lf_cli_fail(st);
    lf_gso_set s;
    double t0 = lf_now_seconds();
    st = lf_gso_train(&d, &o, &s);
    double secs = lf_now_seconds() - t0;
    if (!st)
        st = lf_gso_save(&s, output);
    if (st) {
        lf_gso_set_destroy(&s);
        lf_gso_dataset_destroy(&d);
        return lf_cli_fail(st);
    }
    printf("gso-train %s: %d models on %d training graphs in %.1f s (%d threads, seed %llu); wrote %s\n",
           lf_gso_kind_name(o.kind), (int)s.n, (int)d.n_train, secs, (int)o.threads, (unsigned long long)o.seed,
           output);
    st = lf_gso_eval_write(stdout, &s, &d, 0.5);
    lf_gso_set_destroy(&s);
    lf_gso_dataset_destroy(&d);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

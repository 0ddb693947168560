/* fusionplan gso-dataset and gso-train: the GSO rule filter's training set
 * (augmented graphs labelled by the matcher) and its per-rule models, with
 * their accuracy and recall on the test graphs (DESIGN §11,
 * docs/substitution.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/util/progress.h"
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
        {"rules", "LIST", "rule sources: builtin, taso (default builtin,taso)", NULL},
        {"taso-file", "FILE", "TASO's rule collection (default " LF_CLI_TASO_DEFAULT ")", NULL},
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
    const char *netlist = lf_cli_get(&cmd, "networks");
    if (netlist) {
        snprintf(netbuf, sizeof netbuf, "%s", netlist);
        int n = lf_cli_split_list(netbuf, nets, 64);
        if (n <= 0)
            return lf_cli_usage_error(&cmd, "--networks: expected a comma-separated list of networks");
        nets[n] = NULL;
        o.networks = (const char *const *)nets;
    }
    const char *rules = lf_cli_get(&cmd, "rules"), *taso = lf_cli_get(&cmd, "taso-file");
    lf_subst_ruleset rs;
    lf_status st = lf_subst_ruleset_open(&rs, rules ? rules : "builtin,taso", taso ? taso : LF_CLI_TASO_DEFAULT);
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
    int64_t nodes = 0, pos = 0;
    int32_t matching_rules = 0;
    for (int32_t i = 0; i < d.n_graphs; i++)
        nodes += d.g[i].n;
    for (int32_t k = 0; k < d.n_rules; k++) {
        int any = 0;
        for (int32_t i = 0; i < d.n_graphs; i++)
            for (int32_t v = 0; v < d.g[i].n; v++)
                if (d.labels[i][(int64_t)k * d.g[i].n + v])
                    pos++, any = 1;
        matching_rules += any;
    }
    printf("gso-dataset: %d graphs (%d train, %d test), %.1f ops per graph, %d rules (%d match somewhere), "
           "%.2f%% positive labels; %.1f s, seed %llu; wrote %s\n",
           (int)d.n_graphs, (int)d.n_train, (int)(d.n_graphs - d.n_train), (double)nodes / d.n_graphs,
           (int)d.n_rules, (int)matching_rules, 100.0 * (double)pos / ((double)nodes * (d.n_rules ? d.n_rules : 1)),
           lf_now_seconds() - t0, (unsigned long long)o.seed, output);
    lf_gso_dataset_destroy(&d);
    lf_subst_ruleset_close(&rs);
    return LF_EXIT_OK;
}

/* The evaluation table of a trained set on the dataset's test graphs. */
static lf_status lf__report(const lf_gso_set *s, const lf_gso_dataset *d)
{
    lf_gso_eval *ev = calloc((size_t)(d->n_rules ? d->n_rules : 1), sizeof *ev);
    if (!ev)
        return lf_set_error(LF_ENOMEM, "out of memory");
    double jac = 0, share = 0;
    lf_status st = lf_gso_evaluate(s, d, 0.5, ev, &jac, &share);
    if (st) {
        free(ev);
        return st;
    }
    int32_t ntest = d->n_graphs - d->n_train, quiet = 0, quiet_ok = 0;
    double rsum = 0, asum = 0;
    int32_t rn = 0;
    printf("%-28s %9s %9s %7s %9s %9s %7s\n", "rule", "train+", "test+", "kept", "node acc", "graph acc",
           "recall");
    for (int32_t k = 0; k < d->n_rules; k++) {
        asum += ev[k].graph_acc;
        if (ev[k].matching == 0 && ev[k].kept == 0 && s->positives[k] == 0) {
            quiet++;
            quiet_ok += ev[k].graph_acc == 1.0;
            continue;
        }
        printf("%-28s %9d %9d %7d %9.4f %9.4f", d->rules[k], (int)s->positives[k], (int)ev[k].matching,
               (int)ev[k].kept, ev[k].node_acc, ev[k].graph_acc);
        if (ev[k].recall >= 0) {
            printf(" %7.3f\n", ev[k].recall);
            rsum += ev[k].recall;
            rn++;
        } else {
            printf(" %7s\n", "-");
        }
    }
    printf("%d rules never match a training or test graph (models say no: %d right on every test graph)\n",
           (int)quiet, (int)quiet_ok);
    printf("test graphs %d: mean graph accuracy %.4f, mean recall %.4f over %d matching rules, mean Jaccard "
           "distance kept vs matching %.4f, rules kept %.1f%% (search space removed %.1f%%)\n",
           (int)ntest, d->n_rules ? asum / d->n_rules : 0, rn ? rsum / rn : 0, (int)rn, jac, 100 * share,
           100 * (1 - share));
    free(ev);
    return LF_OK;
}

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
        lf_gso_dataset_destroy(&d);
        return lf_cli_fail(st);
    }
    printf("gso-train %s: %d models on %d training graphs in %.1f s (%d threads, seed %llu); wrote %s\n",
           lf_gso_kind_name(o.kind), (int)s.n, (int)d.n_train, secs, (int)o.threads, (unsigned long long)o.seed,
           output);
    st = lf__report(&s, &d);
    lf_gso_set_destroy(&s);
    lf_gso_dataset_destroy(&d);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

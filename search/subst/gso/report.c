/* Text reports of the GSO filter's dataset and of a trained set's
 * evaluation (`fusionplan gso-dataset`, `gso-train`). */
#include <stdio.h>
#include <stdlib.h>

#include "search/subst/gso/gso.h"

void lf_gso_dataset_summary_write(FILE *f, const lf_gso_dataset *d)
{
    int64_t nodes = 0, pos = 0;
    int32_t matching_rules = 0;
    for (int32_t i = 0; i < d->n_graphs; i++)
        nodes += d->g[i].n;
    for (int32_t k = 0; k < d->n_rules; k++) {
        int any = 0;
        for (int32_t i = 0; i < d->n_graphs; i++)
            for (int32_t v = 0; v < d->g[i].n; v++)
                if (d->labels[i][(int64_t)k * d->g[i].n + v])
                    pos++, any = 1;
        matching_rules += any;
    }
    fprintf(f, "%d graphs (%d train, %d test), %.1f ops per graph, %d rules (%d match somewhere), "
               "%.2f%% positive labels",
            (int)d->n_graphs, (int)d->n_train, (int)(d->n_graphs - d->n_train), (double)nodes / d->n_graphs,
            (int)d->n_rules, (int)matching_rules,
            100.0 * (double)pos / ((double)nodes * (d->n_rules ? d->n_rules : 1)));
}

lf_status lf_gso_eval_write(FILE *f, const lf_gso_set *s, const lf_gso_dataset *d, double threshold)
{
    lf_gso_eval *ev = calloc((size_t)(d->n_rules ? d->n_rules : 1), sizeof *ev);
    if (!ev)
        return lf_set_error(LF_ENOMEM, "out of memory");
    double jac = 0, share = 0;
    lf_status st = lf_gso_evaluate(s, d, threshold, ev, &jac, &share);
    if (st) {
        free(ev);
        return st;
    }
    int32_t ntest = d->n_graphs - d->n_train, quiet = 0, quiet_ok = 0;
    double rsum = 0, asum = 0;
    int32_t rn = 0;
    fprintf(f, "%-28s %9s %9s %7s %9s %9s %7s\n", "rule", "train+", "test+", "kept", "node acc", "graph acc",
            "recall");
    for (int32_t k = 0; k < d->n_rules; k++) {
        asum += ev[k].graph_acc;
        if (ev[k].matching == 0 && ev[k].kept == 0 && s->positives[k] == 0) {
            quiet++;
            quiet_ok += ev[k].graph_acc == 1.0;
            continue;
        }
        fprintf(f, "%-28s %9d %9d %7d %9.4f %9.4f", d->rules[k], (int)s->positives[k], (int)ev[k].matching,
                (int)ev[k].kept, ev[k].node_acc, ev[k].graph_acc);
        if (ev[k].recall >= 0) {
            fprintf(f, " %7.3f\n", ev[k].recall);
            rsum += ev[k].recall;
            rn++;
        } else {
            fprintf(f, " %7s\n", "-");
        }
    }
    fprintf(f, "%d rules never match a training or test graph (models say no: %d right on every test graph)\n",
            (int)quiet, (int)quiet_ok);
    fprintf(f, "test graphs %d: mean graph accuracy %.4f, mean recall %.4f over %d matching rules, mean Jaccard "
               "distance kept vs matching %.4f, rules kept %.1f%% (search space removed %.1f%%)\n",
            (int)ntest, d->n_rules ? asum / d->n_rules : 0, rn ? rsum / rn : 0, (int)rn, jac, 100 * share,
            100 * (1 - share));
    free(ev);
    return LF_OK;
}

/* Training the validity GNN from a dataset file (explain/gnn_training.h). */
#include <stdio.h>
#include <string.h>

#include "explain/gnn_training.h"
#include "planner/util/clock.h"

void lf_gnn_training_config_default(lf_gnn_training_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    lf_gnn_train_config_default(&cfg->train);
}

static void lf__on_epoch(void *ctx, const lf_gnn_epoch *e)
{
    const lf_gnn_training *t = ctx;
    char line[256];
    if (e->val.n)
        snprintf(line, sizeof line,
                 "epoch %3d  train loss %.4f  val loss %.4f  val acc %.4f  val F1 %.4f  %5.1f s%s\n", (int)e->epoch,
                 e->train_loss, e->val.loss, e->val.accuracy, e->val.f1, e->seconds, e->improved ? "  *" : "");
    else
        snprintf(line, sizeof line, "epoch %3d  train loss %.4f  %5.1f s\n", (int)e->epoch, e->train_loss,
                 e->seconds);
    if (t->cfg.progress)
        t->cfg.progress(t->cfg.user, line);
}

lf_status lf_gnn_training_open(lf_gnn_training *t, const lf_gnn_training_config *cfg)
{
    memset(t, 0, sizeof *t);
    t->cfg = *cfg;
    t->cfg.train.on_epoch = lf__on_epoch;
    t->cfg.train.ctx = t;
    const char *scheme = cfg->scheme ? cfg->scheme : "";
    lf_status st = lf_dataset_load(&t->ds, cfg->dataset_path);
    if (st != LF_OK)
        return st;
    t->have_ds = 1;
    if (strcmp(t->ds.scheme, scheme) != 0)
        return lf_set_error(LF_EINVAL, "%s holds %s labels, not %s", cfg->dataset_path, t->ds.scheme, scheme);
    lf_gnn_config gc;
    lf_gnn_config_default(&gc);
    st = lf_gnn_init(&t->gnn, &gc, cfg->train.seed);
    if (st == LF_OK) {
        lf_dataset_fit_norm(&t->ds, &t->gnn.norm);
        for (int i = 0; i < (int)sizeof t->gnn.scheme - 1 && scheme[i]; i++)
            t->gnn.scheme[i] = scheme[i];
    }
    static const int32_t splits[3] = {LF_DS_TRAIN, LF_DS_VAL, LF_DS_TEST};
    for (int i = 0; i < 3 && st == LF_OK; i++)
        st = lf_dataset_samples(&t->ds, splits[i], &t->gnn.norm, &t->split[i], &t->n[i]);
    return st;
}

void lf_gnn_training_close(lf_gnn_training *t)
{
    for (int i = 0; i < 3; i++) {
        lf_dataset_samples_free(t->split[i], t->n[i]);
        t->split[i] = NULL;
        t->n[i] = 0;
    }
    lf_gnn_destroy(&t->gnn);
    if (t->have_ds)
        lf_dataset_destroy(&t->ds);
    t->have_ds = 0;
}

void lf_gnn_training_write_header(FILE *f, const lf_gnn_training *t)
{
    fprintf(f, "train     %s: %lld train, %lld validation, %lld test samples; %lld parameters\n",
            t->cfg.dataset_path, (long long)t->n[0], (long long)t->n[1], (long long)t->n[2],
            (long long)t->gnn.n_params);
}

lf_status lf_gnn_training_run(lf_gnn_training *t)
{
    double t0 = lf_now_seconds();
    lf_status st = lf_gnn_train(&t->gnn, t->split[0], t->n[0], t->split[1], t->n[1], &t->cfg.train, &t->best_epoch);
    t->seconds = lf_now_seconds() - t0;
    return st != LF_OK ? st : lf_gnn_evaluate(&t->gnn, t->split[2], t->n[2], t->cfg.train.threads, &t->test);
}

void lf_gnn_training_write_result(FILE *f, const lf_gnn_training *t)
{
    const lf_gnn_eval *ev = &t->test;
    fprintf(f, "best      epoch %d (by validation accuracy); training took %.1f s\n", (int)t->best_epoch, t->seconds);
    fprintf(f, "test      accuracy %.4f  F1(valid) %.4f  F1(invalid) %.4f  precision %.4f  recall %.4f  (%lld "
               "samples)\n",
            ev->accuracy, ev->f1, ev->f1_invalid, ev->precision, ev->recall, (long long)ev->n);
}

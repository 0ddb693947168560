/* Training PGExplainer or RG-Explainer from files (explain/explainer_training.h). */
#include <stdio.h>
#include <string.h>

#include "explain/explainer_training.h"
#include "explain/weights.h"

void lf_explainer_training_config_default(lf_explainer_training_config *cfg, int rg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->rg = rg != 0;
    lf_pgx_config_default(&cfg->pg);
    lf_rgx_config_default(&cfg->rgx);
    lf_explainer_training_set(cfg, rg ? 10 : 25, 1, rg ? 1000 : 0);
}

void lf_explainer_training_set(lf_explainer_training_config *cfg, int32_t epochs, uint64_t seed,
                               int64_t max_graphs)
{
    cfg->pg.epochs = cfg->rgx.rl_epochs = epochs;
    cfg->pg.seed = cfg->rgx.seed = seed;
    cfg->pg.max_graphs = cfg->rgx.max_graphs = max_graphs;
}

static void lf__line(const lf_explainer_training *t, const char *line)
{
    if (t->cfg.progress)
        t->cfg.progress(t->cfg.user, line);
}

static void lf__rg_phase(void *ctx, const char *phase, int32_t epoch, double value)
{
    char line[160];
    snprintf(line, sizeof line, "%-16s %3d  %s %.4f\n", phase, (int)epoch,
             strcmp(phase, "reinforce") == 0 ? "mean reward" : "loss", value);
    lf__line(ctx, line);
}

static void lf__pg_epoch(void *ctx, int32_t epoch, double loss, float tau)
{
    char line[160];
    snprintf(line, sizeof line, "epoch %3d  loss %.4f  temperature %.3f\n", (int)epoch, loss, (double)tau);
    lf__line(ctx, line);
}

lf_status lf_explainer_training_open(lf_explainer_training *t, const lf_explainer_training_config *cfg)
{
    memset(t, 0, sizeof *t);
    t->cfg = *cfg;
    t->cfg.pg.on_epoch = lf__pg_epoch;
    t->cfg.rgx.on_phase = lf__rg_phase;
    t->cfg.pg.ctx = t->cfg.rgx.ctx = t;
    lf_status st = lf_gnn_load(&t->gnn, cfg->gnn_path, NULL);
    if (st == LF_OK && (st = lf_dataset_load(&t->ds, cfg->dataset_path)) == LF_OK)
        t->have_ds = 1;
    if (st == LF_OK && t->gnn.scheme[0] && strcmp(t->gnn.scheme, t->ds.scheme) != 0)
        st = lf_set_error(LF_EINVAL, "%s was trained for scheme %s, %s holds %s labels", cfg->gnn_path,
                          t->gnn.scheme, cfg->dataset_path, t->ds.scheme);
    if (st == LF_OK)
        st = lf_dataset_samples(&t->ds, LF_DS_TRAIN, &t->gnn.norm, &t->train, &t->n_train);
    if (st == LF_OK)
        st = cfg->rg ? lf_rgx_init(&t->rg, &t->gnn, cfg->rgx.max_size, cfg->rgx.seed)
                     : lf_pgx_init(&t->pg, &t->gnn, 64, cfg->pg.seed);
    if (st != LF_OK)
        return st;
    int64_t ninv = 0, maxg = cfg->rg ? cfg->rgx.max_graphs : cfg->pg.max_graphs;
    for (int64_t i = 0; i < t->n_train; i++)
        ninv += t->train[i].label == 0 && t->train[i].g.n_edges > 0;
    t->n_used = maxg > 0 && maxg < ninv ? maxg : ninv;
    t->n_params = cfg->rg ? t->rg.n_loc + t->rg.n_pol : t->pg.n_params;
    return LF_OK;
}

void lf_explainer_training_close(lf_explainer_training *t)
{
    lf_dataset_samples_free(t->train, t->n_train);
    t->train = NULL;
    t->n_train = 0;
    lf_pgx_destroy(&t->pg);
    lf_rgx_destroy(&t->rg);
    lf_gnn_destroy(&t->gnn);
    if (t->have_ds)
        lf_dataset_destroy(&t->ds);
    t->have_ds = 0;
}

void lf_explainer_training_write_header(FILE *f, const lf_explainer_training *t)
{
    fprintf(f, "train     %s on %lld invalid of %lld training samples (%s), %lld parameters, %d epochs\n",
            t->cfg.rg ? "RG-Explainer" : "PGExplainer", (long long)t->n_used, (long long)t->n_train,
            t->cfg.dataset_path, (long long)t->n_params, (int)(t->cfg.rg ? t->cfg.rgx.rl_epochs : t->cfg.pg.epochs));
}

lf_status lf_explainer_training_run(lf_explainer_training *t)
{
    return t->cfg.rg ? lf_rgx_train(&t->rg, &t->gnn, t->train, t->n_train, &t->cfg.rgx)
                     : lf_pgx_train(&t->pg, &t->gnn, t->train, t->n_train, &t->cfg.pg);
}

lf_status lf_explainer_training_save(const lf_explainer_training *t, const char *path)
{
    return t->cfg.rg ? lf_rgx_save(&t->rg, path) : lf_pgx_save(&t->pg, path);
}

/* Mini-batch training of the GNN with a deterministic parallel gradient
 * reduction (see train.h). */
#include "explain/train.h"

#include <stdlib.h>
#include <string.h>

#include "planner/util/pool.h"
#include "planner/util/clock.h"
#include "planner/util/rng.h"

void lf_gnn_train_config_default(lf_gnn_train_config *c)
{
    memset(c, 0, sizeof *c);
    c->epochs = 50;
    c->batch = 32;
    c->lr = 1e-3f;
    c->seed = 1;
    c->threads = 0;
    c->keep_best = 1;
}

/* Worker threads (planner/util/pool.h: passive waiting, serial below a
 * measured batch cost) with one GNN workspace each. Items are never
 * recomputed here (no keep callback): a late duplicate would read the
 * weights while Adam updates them. */
typedef struct lf__pool {
    int32_t n;
    lf_gnn_ws **ws;
    lf_pool *threads;
    int64_t *claim;  /* per worker: its current item */
} lf__pool;

static void lf__pool_free(lf__pool *p)
{
    lf_pool_free(p->threads);
    p->threads = NULL;
    if (p->ws)
        for (int32_t t = 0; t < p->n; t++)
            lf_gnn_ws_free(p->ws[t]);
    free(p->ws);
    free(p->claim);
    p->ws = NULL;
    p->claim = NULL;
}

static lf_status lf__pool_init(lf__pool *p, const lf_gnn *m, int32_t n)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->ws = calloc((size_t)n, sizeof *p->ws);
    p->claim = calloc((size_t)n, sizeof *p->claim);
    if (!p->ws || !p->claim) {
        lf__pool_free(p);
        return lf_set_error(LF_ENOMEM, "out of memory for GNN workspaces");
    }
    for (int32_t t = 0; t < n; t++) {
        lf_status st = lf_gnn_ws_create(&p->ws[t], m);
        if (st != LF_OK) {
            lf__pool_free(p);
            return st;
        }
    }
    lf_status st = lf_pool_create(&p->threads, n);
    if (st != LF_OK)
        lf__pool_free(p);
    return st;
}

/* Runs body(ctx, item, workspace) for items 0 .. n-1 on the pool. */
typedef struct lf__job {
    lf__pool *pool;
    void *ctx;
    void (*body)(void *ctx, int64_t item, lf_gnn_ws *ws);
} lf__job;

static void lf__job_claim(void *ctx, int32_t item, int32_t w)
{
    lf__job *j = ctx;
    j->pool->claim[w] = item;
}

static void lf__job_run(void *ctx, int32_t w)
{
    lf__job *j = ctx;
    j->body(j->ctx, j->pool->claim[w], j->pool->ws[w]);
}

static lf_status lf__pool_for(lf__pool *p, int64_t n, void *ctx,
                              void (*body)(void *ctx, int64_t item, lf_gnn_ws *ws))
{
    lf__job j = {p, ctx, body};
    lf_pool_job job = {&j, lf__job_claim, lf__job_run, NULL};
    return lf_pool_run(p->threads, (int32_t)n, &job);
}

typedef struct lf__eval_ctx {
    const lf_gnn *m;
    const lf_gnn_sample *s;
    int64_t n;
    double *loss;
    int32_t *pred;
    lf_status *sst;
} lf__eval_ctx;

enum { LF__EVAL_CHUNK = 16 };

static void lf__eval_chunk(void *ctx, int64_t chunk, lf_gnn_ws *ws)
{
    lf__eval_ctx *c = ctx;
    const lf_gnn *m = c->m;
    int64_t end = (chunk + 1) * LF__EVAL_CHUNK < c->n ? (chunk + 1) * LF__EVAL_CHUNK : c->n;
    for (int64_t i = chunk * LF__EVAL_CHUNK; i < end; i++) {
        float logits[16];
        c->sst[i] = lf_gnn_forward(m, &c->s[i].g, ws, logits);
        if (c->sst[i] != LF_OK)
            continue;
        c->loss[i] = lf_softmax_ce(logits, m->cfg.n_classes, c->s[i].label, NULL, NULL);
        int32_t best = 0;
        for (int32_t k = 1; k < m->cfg.n_classes; k++)
            if (logits[k] > logits[best])
                best = k;
        c->pred[i] = best;
    }
}

lf_status lf_gnn_evaluate(const lf_gnn *m, const lf_gnn_sample *s, int64_t n, int32_t threads,
                          lf_gnn_eval *out)
{
    memset(out, 0, sizeof *out);
    if (n <= 0)
        return LF_OK;
    int32_t nt = lf_pool_default_threads(threads);
    lf__pool pool;
    lf_status st = lf__pool_init(&pool, m, nt);
    if (st != LF_OK)
        return st;
    double *loss = malloc(sizeof(double) * (size_t)n);
    int32_t *pred = malloc(sizeof(int32_t) * (size_t)n);
    lf_status *sst = calloc((size_t)n, sizeof(lf_status));
    if (!loss || !pred || !sst) {
        st = lf_set_error(LF_ENOMEM, "out of memory evaluating %lld samples", (long long)n);
        goto done;
    }
    lf__eval_ctx ec = {m, s, n, loss, pred, sst};
    if ((st = lf__pool_for(&pool, (n + LF__EVAL_CHUNK - 1) / LF__EVAL_CHUNK, &ec,
                           lf__eval_chunk)) != LF_OK)
        goto done;
    double sum = 0;
    for (int64_t i = 0; i < n; i++) {
        if (sst[i] != LF_OK) {
            st = lf_set_error(sst[i], "sample %lld: GNN forward pass failed", (long long)i);
            goto done;
        }
        sum += loss[i];
        int pos = pred[i] == 1, lab = s[i].label == 1;
        out->tp += pos && lab;
        out->fp += pos && !lab;
        out->tn += !pos && !lab;
        out->fn += !pos && lab;
    }
    out->n = n;
    out->loss = sum / (double)n;
    out->accuracy = (double)(out->tp + out->tn) / (double)n;
    out->precision = out->tp + out->fp ? (double)out->tp / (double)(out->tp + out->fp) : 0.0;
    out->recall = out->tp + out->fn ? (double)out->tp / (double)(out->tp + out->fn) : 0.0;
    out->f1 = out->precision + out->recall > 0
                  ? 2 * out->precision * out->recall / (out->precision + out->recall)
                  : 0.0;
    {
        double p = out->tn + out->fn ? (double)out->tn / (double)(out->tn + out->fn) : 0.0;
        double r = out->tn + out->fp ? (double)out->tn / (double)(out->tn + out->fp) : 0.0;
        out->f1_invalid = p + r > 0 ? 2 * p * r / (p + r) : 0.0;
    }
done:
    free(loss);
    free(pred);
    free(sst);
    lf__pool_free(&pool);
    return st;
}

/* One training sample's gradient into its own slot of sgrad. */
typedef struct lf__grad_ctx {
    const lf_gnn *m;
    const lf_gnn_sample *train;
    const int32_t *order; /* the batch's sample indices */
    int64_t np;
    float scale;
    float *sgrad;
    double *sloss;
    lf_status *sst;
} lf__grad_ctx;

static void lf__sample_grad(void *ctx, int64_t k, lf_gnn_ws *ws)
{
    lf__grad_ctx *c = ctx;
    const lf_gnn *m = c->m;
    const lf_gnn_sample *s = &c->train[c->order[k]];
    float *gk = c->sgrad + (size_t)k * (size_t)c->np;
    float logits[16], dlog[16];
    memset(gk, 0, sizeof(float) * (size_t)c->np);
    c->sst[k] = lf_gnn_forward(m, &s->g, ws, logits);
    if (c->sst[k] != LF_OK)
        return;
    c->sloss[k] = lf_softmax_ce(logits, m->cfg.n_classes, s->label, dlog, NULL);
    for (int32_t q = 0; q < m->cfg.n_classes; q++)
        dlog[q] *= c->scale;
    c->sst[k] = lf_gnn_backward(m, ws, dlog, gk, NULL, NULL);
}

/* Per-sample gradients summed parameter by parameter, always in sample
 * order: how the parameters are split among threads changes no sum. */
typedef struct lf__sum_ctx {
    const float *sgrad;
    float *grad;
    int64_t np;
    int32_t nb;
} lf__sum_ctx;

enum { LF__SUM_CHUNK = 8192 };

static void lf__sum_chunk(void *ctx, int64_t chunk, lf_gnn_ws *ws)
{
    (void)ws;
    lf__sum_ctx *c = ctx;
    int64_t end = (chunk + 1) * LF__SUM_CHUNK < c->np ? (chunk + 1) * LF__SUM_CHUNK : c->np;
    for (int64_t p = chunk * LF__SUM_CHUNK; p < end; p++) {
        float acc = 0.0f;
        for (int32_t k = 0; k < c->nb; k++)
            acc += c->sgrad[(size_t)k * (size_t)c->np + (size_t)p];
        c->grad[p] = acc;
    }
}

lf_status lf_gnn_train(lf_gnn *m, const lf_gnn_sample *train, int64_t n_train,
                       const lf_gnn_sample *val, int64_t n_val, const lf_gnn_train_config *cfg,
                       int32_t *best_epoch)
{
    if (cfg->epochs < 0 || cfg->batch < 1 || !(cfg->lr > 0))
        return lf_set_error(LF_EINVAL, "bad training settings (epochs %d, batch %d, lr %g)",
                            (int)cfg->epochs, (int)cfg->batch, (double)cfg->lr);
    if (n_train < 1)
        return lf_set_error(LF_EINVAL, "empty training set");
    if (n_train > INT32_MAX)
        return lf_set_error(LF_ERANGE, "training set of %lld samples is too large",
                            (long long)n_train);
    if (m->cfg.n_classes > 16)
        return lf_set_error(LF_EUNSUPPORTED, "training supports at most 16 classes");
    int32_t nt = lf_pool_default_threads(cfg->threads);
    int32_t B = cfg->batch;
    int64_t np = m->n_params;
    lf__pool pool;
    memset(&pool, 0, sizeof pool);
    lf_adam adam = {0};
    float *sgrad = NULL, *grad = NULL, *best = NULL;
    double *sloss = NULL;
    int32_t *order = NULL;
    lf_status *sst = NULL;
    lf_status st = lf__pool_init(&pool, m, nt);
    if (st != LF_OK)
        return st;
    if ((st = lf_adam_init(&adam, np, cfg->lr)) != LF_OK)
        goto done;
    sgrad = malloc(sizeof(float) * (size_t)np * (size_t)B);
    grad = malloc(sizeof(float) * (size_t)np);
    best = malloc(sizeof(float) * (size_t)np);
    sloss = malloc(sizeof(double) * (size_t)B);
    sst = malloc(sizeof(lf_status) * (size_t)B);
    order = malloc(sizeof(int32_t) * (size_t)n_train);
    if (!sgrad || !grad || !best || !sloss || !sst || !order) {
        st = lf_set_error(LF_ENOMEM, "out of memory for training buffers");
        goto done;
    }
    memcpy(best, m->params, sizeof(float) * (size_t)np);
    double best_acc = -1.0;
    int32_t best_ep = 0;
    for (int32_t ep = 1; ep <= cfg->epochs; ep++) {
        double t0 = lf_now_seconds();
        for (int32_t i = 0; i < (int32_t)n_train; i++)
            order[i] = i;
        lf_rng r;
        lf_rng_seed(&r, cfg->seed, 1 + (uint64_t)ep);
        lf_rng_shuffle_i32(&r, order, (int32_t)n_train);
        double loss_sum = 0;
        for (int64_t start = 0; start < n_train; start += B) {
            int32_t nb = (int32_t)(n_train - start < B ? n_train - start : B);
            float scale = 1.0f / (float)nb;
            lf__grad_ctx gc = {m, train, order + start, np, scale, sgrad, sloss, sst};
            if ((st = lf__pool_for(&pool, nb, &gc, lf__sample_grad)) != LF_OK)
                goto done;
            for (int32_t k = 0; k < nb; k++) {
                if (sst[k] != LF_OK) {
                    st = lf_set_error(sst[k], "training sample %d: GNN pass failed",
                                      (int)order[start + k]);
                    goto done;
                }
                loss_sum += sloss[k];
            }
            lf__sum_ctx sc = {sgrad, grad, np, nb};
            if ((st = lf__pool_for(&pool, (np + LF__SUM_CHUNK - 1) / LF__SUM_CHUNK, &sc,
                                   lf__sum_chunk)) != LF_OK)
                goto done;
            lf_adam_step(&adam, m->params, grad);
        }
        lf_gnn_epoch rep;
        memset(&rep, 0, sizeof rep);
        rep.epoch = ep;
        rep.train_loss = loss_sum / (double)n_train;
        if (n_val > 0 && (st = lf_gnn_evaluate(m, val, n_val, cfg->threads, &rep.val)) != LF_OK)
            goto done;
        double acc = n_val > 0 ? rep.val.accuracy : (double)ep;
        if (acc > best_acc) {
            best_acc = acc;
            best_ep = ep;
            rep.improved = 1;
            memcpy(best, m->params, sizeof(float) * (size_t)np);
        }
        rep.seconds = lf_now_seconds() - t0;
        if (cfg->on_epoch)
            cfg->on_epoch(cfg->ctx, &rep);
    }
    if (cfg->keep_best && best_ep > 0)
        memcpy(m->params, best, sizeof(float) * (size_t)np);
    else
        best_ep = cfg->epochs;
    if (best_epoch)
        *best_epoch = best_ep;
done:
    lf_adam_destroy(&adam);
    lf__pool_free(&pool);
    free(sgrad);
    free(grad);
    free(best);
    free(sloss);
    free(sst);
    free(order);
    return st;
}

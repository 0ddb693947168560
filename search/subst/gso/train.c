/* Training and evaluation of the per-rule GSO models (GSO §3.4, §4.2): Adam
 * on the weighted binary cross-entropy per node, mini-batches of graphs in
 * an order shuffled per epoch, dropout between the GCN layers, 20 epochs
 * with early stopping on the training loss. Rule k draws from its own random
 * stream and rules are independent, so training them in parallel gives the
 * same bits as one by one. A rule that never matches a training graph gets a
 * model that always says no (a large negative output bias) without
 * training. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain/layers.h"
#include "planner/util/rng.h"
#include "search/subst/gso/gso_internal.h"

#define LF__BATCH 4
#define LF__PATIENCE 3

void lf_gso_train_options_default(lf_gso_train_options *o)
{
    memset(o, 0, sizeof *o);
    o->kind = LF_GSO_GCN;
    o->epochs = 20;
    o->lr = 0.01f;
    o->dropout = 0.1f;
    o->pos_weight = 2.0;
    o->seed = 1;
    o->threads = 1;
}

static void lf__init(lf_gso_kind k, lf_rng *r, float *p)
{
    if (k == LF_GSO_LR) {
        lf_linear_init(r, p, LF_GSO_FEAT_DIM + 1, LF_GSO_FEAT_DIM);
        return;
    }
    float *w1 = p, *w2 = w1 + LF_GSO_FEAT_DIM * LF_GSO_H1 + LF_GSO_H1;
    float *w3 = w2 + LF_GSO_H1 * LF_GSO_H2 + LF_GSO_H2;
    lf_linear_init(r, w1, LF_GSO_FEAT_DIM * LF_GSO_H1 + LF_GSO_H1, LF_GSO_FEAT_DIM);
    lf_linear_init(r, w2, LF_GSO_H1 * LF_GSO_H2 + LF_GSO_H2, LF_GSO_H1);
    lf_linear_init(r, w3, LF_GSO_H2 + 1, LF_GSO_H2);
}

/* Trains rule k's model into p. */
/* The weight of label-1 nodes: o->pos_weight, or with pos_weight <= 0 the
 * square root of the rule's negative / positive node ratio (rare rules weigh
 * their few positive nodes more). */
static double lf__pos_weight(const lf_gso_dataset *d, const lf_gso_train_options *o, int32_t k)
{
    if (o->pos_weight > 0)
        return o->pos_weight;
    int64_t pos = 0, all = 0;
    for (int32_t i = 0; i < d->n_train; i++) {
        const uint8_t *l = d->labels[i] + (int64_t)k * d->g[i].n;
        for (int32_t v = 0; v < d->g[i].n; v++)
            pos += l[v] != 0;
        all += d->g[i].n;
    }
    double r = pos ? (double)(all - pos) / (double)pos : 1.0;
    return r > 1 ? sqrt(r) : 1.0;
}

static lf_status lf__train_rule(const lf_gso_dataset *d, const lf_gso_train_options *o, int32_t k, int32_t nmax,
                                float *p)
{
    double pw = lf__pos_weight(d, o, k);
    int64_t np = lf_gso_n_params(o->kind);
    lf_rng rng;
    lf_rng_seed(&rng, o->seed, (uint64_t)k + 1);
    lf__init(o->kind, &rng, p);
    lf_adam adam;
    memset(&adam, 0, sizeof adam);
    lf_status st = lf_adam_init(&adam, np, o->lr);
    float *grad = calloc((size_t)np, sizeof *grad);
    float *ws = malloc((size_t)lf_gso_ws_floats(nmax) * sizeof *ws);
    float *keep = malloc((size_t)(nmax > 0 ? nmax : 1) * (LF_GSO_H1 + LF_GSO_H2) * sizeof *keep);
    int32_t *order = malloc((size_t)d->n_train * sizeof *order);
    if (!st && (!grad || !ws || !keep || !order))
        st = lf_set_error(LF_ENOMEM, "gso train: out of memory");
    for (int32_t i = 0; i < d->n_train && !st; i++)
        order[i] = i;
    double best = INFINITY, scale = o->dropout > 0 && o->dropout < 1 ? 1.0 / (1.0 - o->dropout) : 1.0;
    int32_t stale = 0;
    for (int32_t ep = 0; ep < o->epochs && !st && stale < LF__PATIENCE; ep++) {
        lf_rng_shuffle_i32(&rng, order, d->n_train);
        double total = 0;
        for (int32_t b0 = 0; b0 < d->n_train; b0 += LF__BATCH) {
            memset(grad, 0, (size_t)np * sizeof *grad);
            int32_t b1 = b0 + LF__BATCH < d->n_train ? b0 + LF__BATCH : d->n_train;
            for (int32_t b = b0; b < b1; b++) {
                const lf_gso_graph *g = &d->g[order[b]];
                const float *mask = NULL;
                if (o->kind == LF_GSO_GCN && o->dropout > 0) {
                    int64_t m = (int64_t)g->n * (LF_GSO_H1 + LF_GSO_H2);
                    for (int64_t j = 0; j < m; j++)
                        keep[j] = lf_rng_uniform(&rng) < o->dropout ? 0.0f : (float)scale;
                    mask = keep;
                }
                total += lf_gso_loss_grad(o->kind, p, g, d->labels[order[b]] + (int64_t)k * g->n, pw,
                                          mask, grad, ws);
            }
            for (int64_t j = 0; j < np; j++)
                grad[j] /= (float)(b1 - b0);
            lf_adam_step(&adam, p, grad);
        }
        total /= d->n_train;
        if (total < best - 1e-4 * fabs(best)) {
            best = total;
            stale = 0;
        } else {
            stale++;
        }
    }
    lf_adam_destroy(&adam);
    free(grad);
    free(ws);
    free(keep);
    free(order);
    return st;
}

lf_status lf_gso_train(const lf_gso_dataset *d, const lf_gso_train_options *o, lf_gso_set *s)
{
    lf_status st = lf_gso_set_init(s, o->kind, d->n_rules, (const char *const *)d->rules);
    if (st)
        return st;
    if (d->n_train < 1) {
        lf_gso_set_destroy(s);
        return lf_set_error(LF_EINVAL, "gso train: the dataset has no training graphs");
    }
    int32_t nmax = 1;
    for (int32_t i = 0; i < d->n_graphs; i++)
        nmax = d->g[i].n > nmax ? d->g[i].n : nmax;
    for (int32_t k = 0; k < d->n_rules; k++) {
        s->positives[k] = 0;
        for (int32_t i = 0; i < d->n_train; i++) {
            const uint8_t *l = d->labels[i] + (int64_t)k * d->g[i].n;
            int any = 0;
            for (int32_t v = 0; v < d->g[i].n && !any; v++)
                any = l[v];
            s->positives[k] += any;
        }
    }
    lf_status *sts = calloc((size_t)(d->n_rules ? d->n_rules : 1), sizeof *sts);
    if (!sts) {
        lf_gso_set_destroy(s);
        return lf_set_error(LF_ENOMEM, "gso train: out of memory");
    }
    int32_t nt = o->threads > 0 ? o->threads : 1;
    (void)nt;
    char msg[512] = "";
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic) if (nt > 1)
#endif
    for (int32_t k = 0; k < d->n_rules; k++) {
        if (s->positives[k] == 0) {
            lf__gso_never(o->kind, lf_gso_set_params(s, k));
            continue;
        }
        sts[k] = lf__train_rule(d, o, k, nmax, lf_gso_set_params(s, k));
        if (sts[k]) {
#ifdef _OPENMP
#pragma omp critical /* unnamed: a named one is a global symbol of the library */
#endif
            if (!msg[0])
                snprintf(msg, sizeof msg, "%s", lf_last_error());
        }
    }
    for (int32_t k = 0; k < d->n_rules && !st; k++)
        if (sts[k])
            st = lf_set_error(sts[k], "gso train: rule %s: %s", d->rules[k], msg);
    free(sts);
    if (st)
        lf_gso_set_destroy(s);
    return st;
}

lf_status lf_gso_evaluate(const lf_gso_set *s, const lf_gso_dataset *d, double threshold,
                          lf_gso_eval *ev, double *jaccard, double *kept_share)
{
    int32_t nr = d->n_rules, nmax = 1;
    for (int32_t i = 0; i < d->n_graphs; i++)
        nmax = d->g[i].n > nmax ? d->g[i].n : nmax;
    int32_t *model = malloc((size_t)(nr ? nr : 1) * sizeof *model);
    int64_t *node_ok = calloc((size_t)(nr ? nr : 1), sizeof *node_ok);
    int32_t *graph_ok = calloc((size_t)(nr ? nr : 1), sizeof *graph_ok);
    int32_t *hit = calloc((size_t)(nr ? nr : 1), sizeof *hit);
    uint8_t *kept = malloc((size_t)(nr ? nr : 1)), *truth = malloc((size_t)(nr ? nr : 1));
    float *ws = malloc((size_t)lf_gso_ws_floats(nmax) * sizeof *ws);
    float *prob = malloc((size_t)nmax * sizeof *prob);
    if (!model || !node_ok || !graph_ok || !hit || !kept || !truth || !ws || !prob) {
        free(model), free(node_ok), free(graph_ok), free(hit), free(kept), free(truth), free(ws), free(prob);
        return lf_set_error(LF_ENOMEM, "gso evaluate: out of memory");
    }
    memset(ev, 0, (size_t)nr * sizeof *ev);
    for (int32_t k = 0; k < nr; k++)
        model[k] = lf_gso_set_find(s, d->rules[k]);
    double jsum = 0, ksum = 0;
    int64_t nodes = 0;
    int32_t ntest = d->n_graphs - d->n_train;
    for (int32_t i = d->n_train; i < d->n_graphs; i++) {
        const lf_gso_graph *g = &d->g[i];
        nodes += g->n;
        int32_t nk = 0;
        for (int32_t k = 0; k < nr; k++) {
            const uint8_t *l = d->labels[i] + (int64_t)k * g->n;
            truth[k] = 0;
            kept[k] = model[k] < 0; /* no model: kept */
            if (model[k] >= 0)
                lf_gso_predict(s->kind, lf_gso_set_params(s, model[k]), g, ws, prob);
            for (int32_t v = 0; v < g->n; v++) {
                int yes = model[k] < 0 || prob[v] >= threshold;
                truth[k] |= l[v];
                kept[k] |= (uint8_t)yes;
                node_ok[k] += yes == (l[v] != 0);
            }
            graph_ok[k] += kept[k] == truth[k];
            ev[k].matching += truth[k];
            ev[k].kept += kept[k];
            hit[k] += kept[k] && truth[k];
            nk += kept[k];
        }
        jsum += lf_gso_jaccard_distance(kept, truth, nr);
        ksum += nr ? (double)nk / nr : 0;
    }
    for (int32_t k = 0; k < nr; k++) {
        ev[k].node_acc = nodes ? (double)node_ok[k] / (double)nodes : 0;
        ev[k].graph_acc = ntest ? (double)graph_ok[k] / ntest : 0;
        ev[k].recall = ev[k].matching ? (double)hit[k] / ev[k].matching : -1;
    }
    *jaccard = ntest ? jsum / ntest : 0;
    *kept_share = ntest ? ksum / ntest : 0;
    free(model), free(node_ok), free(graph_ok), free(hit), free(kept), free(truth), free(ws), free(prob);
    return LF_OK;
}

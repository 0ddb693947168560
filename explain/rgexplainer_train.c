/* RG-Explainer training: the three phases (locator pretraining, imitation,
 * REINFORCE) over the policy and episodes of rgexplainer_policy.c. See
 * rgexplainer.c for the model and its hyperparameters. Single threaded, so
 * results never depend on the thread count; all randomness comes from lf_rng
 * streams of cfg->seed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explainer_rg.h"
#include "explain/layers.h"
#include "planner/util/rng.h"

#define H LF_RGX_HIDDEN
#define F LF_FEAT_DIM

/* ---- training ------------------------------------------------------------------ */

typedef struct lf__rgtrain {
    const lf_rgx_config *cfg;
    const lf_gnn *m;
    lf_gnn_ws *ws;
    lf__rg_group *gr;
    int32_t n_gr;
    int32_t *buf;  /* max nodes */
    double *tgt;   /* max nodes */
    lf_adam aloc, apol;
    float *gloc, *gpol;
} lf__rgtrain;

/* Locator targets of group gi: softmax over seeds v of R(explanation from
 * v): the 3-hop subgraph (pretraining) or the current greedy policy. */
static lf_status lf__loc_targets(lf__rgtrain *t, lf_rgx *p, int32_t gi, int use_policy)
{
    lf__rg_group *r = &t->gr[gi];
    double mx = -INFINITY, sum = 0;
    for (int32_t v = 0; v < r->n; v++) {
        int32_t len;
        if (use_policy) {
            t->buf[0] = v;
            len = lf__rg_episode(p, r, t->buf, 1, t->cfg->max_size, NULL, NULL, NULL);
        } else {
            len = lf__rg_khop(r, v, t->cfg->max_size, NULL, t->buf);
        }
        lf_status st = lf__rg_reward(t->m, t->ws, r, t->buf, len, t->cfg, &t->tgt[v]);
        if (st != LF_OK)
            return st;
        mx = t->tgt[v] > mx ? t->tgt[v] : mx;
    }
    for (int32_t v = 0; v < r->n; v++)
        sum += (t->tgt[v] = exp(t->tgt[v] - mx));
    for (int32_t v = 0; v < r->n; v++)
        t->tgt[v] /= sum;
    return LF_OK;
}

/* `iters` full-batch Adam steps of the locator on groups sel[0..ns); tg is
 * indexed by group. */
static lf_status lf__loc_fit(lf__rgtrain *t, lf_rgx *p, const int32_t *sel, int32_t ns,
                             int iters, int use_policy, double **tg, const char *phase)
{
    lf_status st;
    for (int32_t i = 0; i < ns; i++) {
        if ((st = lf__loc_targets(t, p, sel[i], use_policy)) != LF_OK)
            return st;
        memcpy(tg[sel[i]], t->tgt, sizeof(double) * (size_t)t->gr[sel[i]].n);
    }
    double loss = 0;
    for (int it = 0; it < iters; it++) {
        memset(t->gloc, 0, sizeof(float) * (size_t)p->n_loc);
        loss = 0;
        for (int32_t i = 0; i < ns; i++) {
            lf__rg_group *r = &t->gr[sel[i]];
            double l;
            st = lf_rgx_locator_loss(p, r->emb, r->gemb, r->n, tg[sel[i]], &l, t->gloc);
            if (st != LF_OK)
                return st;
            loss += l / ns;
        }
        for (int64_t k = 0; k < p->n_loc; k++)
            t->gloc[k] /= (float)ns;
        lf_adam_step(&t->aloc, p->params, t->gloc);
    }
    if (t->cfg->on_phase && iters > 0)
        t->cfg->on_phase(t->cfg->ctx, phase, iters, loss);
    return LF_OK;
}

static void lf__pol_step(lf__rgtrain *t, lf_rgx *p, int32_t steps)
{
    if (steps <= 0)
        return;
    for (int64_t k = 0; k < p->n_pol; k++)
        t->gpol[k] /= (float)steps;
    lf_adam_step(&t->apol, p->params + p->n_loc, t->gpol);
    memset(t->gpol, 0, sizeof(float) * (size_t)p->n_pol);
    /* The node evaluations each group keeps were made with the old policy. */
    for (int32_t i = 0; i < t->n_gr; i++)
        lf__rg_group_forget(&t->gr[i]);
}

/* Imitation of layer-wise BFS demonstrations: phase 0 teacher-forces the
 * sequence then stop; phase 1 aims at the best-scored candidate still in
 * the demonstration set, stop when none is left. */
static double lf__imitate(lf__rgtrain *t, lf_rgx *p, const int32_t *dg, int32_t *const *demo,
                          const int32_t *dlen, int32_t nd, int phase, lf_rng *rng, int32_t *perm)
{
    for (int32_t i = 0; i < nd; i++)
        perm[i] = i;
    lf_rng_shuffle_i32(rng, perm, nd);
    int32_t ms = t->cfg->max_size, steps = 0, in_batch = 0;
    double loss = 0;
    int64_t all_steps = 0;
    for (int32_t b = 0; b < nd; b++) {
        int32_t di = perm[b];
        lf__rg_group *r = &t->gr[dg[di]];
        const int32_t *d = demo[di];
        int32_t L = dlen[di], len = 1;
        t->buf[0] = d[0];
        memset(r->in_s, 0, (size_t)r->n);
        r->in_s[d[0]] = 1;
        for (;;) {
            int32_t target = -1;
            if (phase == 0) {
                target = len < L ? d[len] : -1;
            } else {
                lf__rg_pol_run(p, r, d[0], -1, 0, NULL);
                double best = -INFINITY;
                for (int32_t i = 0; i < r->n_cand; i++) {
                    int32_t u = r->inv[r->cand[i]];
                    int in_demo = 0;
                    for (int32_t j = 0; j < L && !in_demo; j++)
                        in_demo = d[j] == u;
                    if (in_demo && r->lp_cand[i] > best) {
                        best = r->lp_cand[i];
                        target = u;
                    }
                }
            }
            if (len >= ms)
                break;
            lf__rg_pol_run(p, r, d[0], target, -1.0, t->gpol);
            if (r->n_cand == 0)
                break;
            loss -= target < 0 ? r->lp_stop : 0;
            for (int32_t i = 0; target >= 0 && i < r->n_cand; i++)
                if (r->inv[r->cand[i]] == target)
                    loss -= r->lp_cand[i];
            steps++;
            all_steps++;
            if (target < 0)
                break;
            t->buf[len++] = target;
            r->in_s[target] = 1;
        }
        if (++in_batch == t->cfg->imit_batch || b == nd - 1) {
            lf__pol_step(t, p, steps);
            steps = in_batch = 0;
        }
    }
    return all_steps ? loss / (double)all_steps : 0;
}

static lf_status lf__reinforce(lf__rgtrain *t, lf_rgx *p, lf_rng *rng, int32_t *acts,
                               int32_t *ro, double *rew, double *mean_reward)
{
    const lf_rgx_config *cfg = t->cfg;
    int32_t steps = 0;
    double sumR = 0;
    lf_status st;
    for (int32_t b = 0; b < cfg->rl_batch; b++) {
        lf__rg_group *r = &t->gr[lf_rng_below(rng, (uint32_t)t->n_gr)];
        int32_t *order = t->buf, na = 0;
        order[0] = lf__rg_loc_seed(p, r);
        int32_t len = lf__rg_episode(p, r, order, 1, cfg->max_size, rng, acts, &na);
        double Rf;
        if ((st = lf__rg_reward(t->m, t->ws, r, order, len, cfg, &Rf)) != LF_OK)
            return st;
        sumR += Rf;
        for (int32_t s = 0; s < na; s++) {
            if (s == na - 1) {
                rew[s] = Rf;
                continue;
            }
            /* Step s added order[s + 1]: complete the prefix order[0..s+2). */
            double acc = 0;
            for (int32_t k = 0; k < cfg->rollouts; k++) {
                memcpy(ro, order, sizeof(int32_t) * (size_t)(s + 2));
                int32_t l2 = lf__rg_episode(p, r, ro, s + 2, cfg->max_size, rng, NULL, NULL);
                double R;
                if ((st = lf__rg_reward(t->m, t->ws, r, ro, l2, cfg, &R)) != LF_OK)
                    return st;
                acc += R;
            }
            rew[s] = acc / cfg->rollouts;
        }
        for (int32_t s = 0; s < na; s++) {
            memset(r->in_s, 0, (size_t)r->n);
            for (int32_t i = 0; i <= s; i++)
                r->in_s[order[i]] = 1;
            lf__rg_pol_run(p, r, order[0], acts[s], -rew[s], t->gpol);
        }
        steps += na;
    }
    lf__pol_step(t, p, steps);
    *mean_reward = sumR / cfg->rl_batch;
    return LF_OK;
}

lf_status lf_rgx_train(lf_rgx *p, const lf_gnn *m, const lf_gnn_sample *s, int64_t n,
                       const lf_rgx_config *cfg)
{
    if (!p || !p->params || !m || !cfg || cfg->max_size < 2 || !(cfg->lr > 0) ||
        cfg->rollouts < 1 || cfg->rl_batch < 1 || cfg->imit_batch < 1)
        return lf_set_error(LF_EINVAL, "RG-Explainer: bad training arguments");
    if (p->emb_dim != m->cfg.hidden)
        return lf_set_error(LF_EINVAL, "RG-Explainer takes %d-wide embeddings, the GNN gives %d",
                            (int)p->emb_dim, (int)m->cfg.hidden);
    int64_t ninv = 0;
    for (int64_t i = 0; i < n; i++)
        ninv += s[i].label == 0 && s[i].g.n_edges > 0;
    if (ninv == 0)
        return lf_set_error(LF_EINVAL, "RG-Explainer: no invalid sample with edges to train on");
    if (ninv > INT32_MAX)
        return lf_set_error(LF_ERANGE, "RG-Explainer: too many samples");
    lf__rgtrain t;
    memset(&t, 0, sizeof t);
    t.cfg = cfg;
    t.m = m;
    lf_status st = LF_OK;
    int32_t *idx = malloc(sizeof(int32_t) * (size_t)ninv);
    int32_t maxn = 1, k = 0;
    if (!idx)
        return lf_set_error(LF_ENOMEM, "out of memory for RG-Explainer training");
    for (int64_t i = 0; i < n; i++)
        if (s[i].label == 0 && s[i].g.n_edges > 0)
            idx[k++] = (int32_t)i;
    lf_rng rng;
    if (cfg->max_graphs > 0 && cfg->max_graphs < k) {
        lf_rng_seed(&rng, cfg->seed, 0x72677375ULL);
        lf_rng_shuffle_i32(&rng, idx, k);
        k = (int32_t)cfg->max_graphs;
    }
    for (int32_t i = 0; i < k; i++)
        maxn = s[idx[i]].g.n_nodes > maxn ? s[idx[i]].g.n_nodes : maxn;
    t.gr = calloc((size_t)k, sizeof *t.gr);
    t.buf = malloc(sizeof(int32_t) * (size_t)maxn);
    t.tgt = malloc(sizeof(double) * (size_t)maxn);
    t.gloc = calloc((size_t)p->n_loc, sizeof(float));
    t.gpol = calloc((size_t)p->n_pol, sizeof(float));
    int32_t *dg = malloc(sizeof(int32_t) * (size_t)k), *dlen = malloc(sizeof(int32_t) * (size_t)k);
    int32_t **demo = calloc((size_t)k, sizeof(int32_t *));
    int32_t *perm = malloc(sizeof(int32_t) * (size_t)k), *sel = calloc((size_t)k, sizeof(int32_t));
    int32_t *acts = malloc(sizeof(int32_t) * (size_t)maxn);
    int32_t *ro = malloc(sizeof(int32_t) * (size_t)maxn);
    double *rew = malloc(sizeof(double) * (size_t)maxn);
    double **tg = calloc((size_t)k, sizeof(double *));
    if (!t.gr || !t.buf || !t.tgt || !t.gloc || !t.gpol || !dg || !dlen || !demo || !perm ||
        !acts || !ro || !sel || !rew || !tg || lf_adam_init(&t.aloc, p->n_loc, cfg->lr) != 0 ||
        lf_adam_init(&t.apol, p->n_pol, cfg->lr) != 0) {
        st = lf_set_error(LF_ENOMEM, "out of memory for RG-Explainer training");
        goto done;
    }
    if ((st = lf_gnn_ws_create(&t.ws, m)) != LF_OK)
        goto done;
    for (int32_t i = 0; i < k && st == LF_OK; i++) {
        st = lf__rg_group_init(&t.gr[i], &s[idx[i]].g, m, t.ws);
        if (st == LF_OK) {
            t.n_gr++;
            if (!(tg[i] = malloc(sizeof(double) * (size_t)t.gr[i].n)))
                st = lf_set_error(LF_ENOMEM, "out of memory for locator targets");
        }
    }
    if (st != LF_OK)
        goto done;
    /* (a) locator pretraining on 3-hop subgraphs. */
    for (int32_t i = 0; i < k; i++)
        sel[i] = i;
    if ((st = lf__loc_fit(&t, p, sel, k, cfg->loc_pretrain_iters, 0, tg, "locator")) != LF_OK)
        goto done;
    /* (b) imitation: one demonstration per group from the locator's seed
     * (groups whose 3-hop set has fewer than 3 nodes give none: the
     * authors' threshold of 5 would drop most fusion groups). */
    lf_rng_seed(&rng, cfg->seed, 0x100);
    int32_t nd = 0;
    for (int32_t i = 0; i < k; i++) {
        lf__rg_group *r = &t.gr[i];
        int32_t w = lf__rg_khop(r, lf__rg_loc_seed(p, r), cfg->max_size, &rng, t.buf);
        if (w < 3)
            continue;
        int32_t L = w <= 4 ? w : 4 + (int32_t)lf_rng_below(&rng, (uint32_t)(w - 4));
        if (!(demo[nd] = malloc(sizeof(int32_t) * (size_t)L))) {
            st = lf_set_error(LF_ENOMEM, "out of memory for demonstrations");
            goto done;
        }
        memcpy(demo[nd], t.buf, sizeof(int32_t) * (size_t)L);
        dg[nd] = i;
        dlen[nd++] = L;
    }
    for (int32_t ep = 0; nd > 0 && ep < cfg->imit_list_epochs + cfg->imit_set_epochs; ep++) {
        int phase = ep >= cfg->imit_list_epochs;
        lf_rng_seed(&rng, cfg->seed, 0x200 + (uint64_t)ep);
        double l = lf__imitate(&t, p, dg, demo, dlen, nd, phase, &rng, perm);
        if (cfg->on_phase)
            cfg->on_phase(cfg->ctx, phase ? "imitate-set" : "imitate-list",
                          phase ? ep + 1 - cfg->imit_list_epochs : ep + 1, l);
    }
    /* (c) REINFORCE, refreshing the locator on 20% of the groups every 5 epochs. */
    for (int32_t ep = 0; ep < cfg->rl_epochs; ep++) {
        if (ep % 5 == 0) {
            lf_rng_seed(&rng, cfg->seed, 0x400 + (uint64_t)ep);
            for (int32_t i = 0; i < k; i++)
                perm[i] = i;
            lf_rng_shuffle_i32(&rng, perm, k);
            int32_t ns = k / 5 > 0 ? k / 5 : 1;
            if ((st = lf__loc_fit(&t, p, perm, ns, 10, 1, tg, "locator-refresh")) != LF_OK)
                goto done;
        }
        lf_rng_seed(&rng, cfg->seed, 0x300 + (uint64_t)ep);
        double mr = 0;
        if ((st = lf__reinforce(&t, p, &rng, acts, ro, rew, &mr)) != LF_OK)
            goto done;
        if (cfg->on_phase)
            cfg->on_phase(cfg->ctx, "reinforce", ep + 1, mr);
    }
done:
    for (int32_t i = 0; i < t.n_gr; i++)
        lf__rg_group_destroy(&t.gr[i]);
    for (int32_t i = 0; demo && i < k; i++)
        free(demo[i]);
    for (int32_t i = 0; tg && i < k; i++)
        free(tg[i]);
    lf_adam_destroy(&t.aloc);
    lf_adam_destroy(&t.apol);
    lf_gnn_ws_free(t.ws);
    free(t.gr); free(t.buf); free(t.tgt); free(t.gloc); free(t.gpol); free(idx); free(dg);
    free(dlen); free(demo); free(perm); free(acts); free(ro); free(sel); free(rew); free(tg);
    return st;
}

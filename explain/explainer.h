/* Graph explainers of the validity GNN (DESIGN §8, §9; paper §III-B, §IV-B).
 *
 * An explainer looks at an invalid fusion group through the trained GNN and
 * scores every edge of the group: higher = more responsible for the
 * "invalid" prediction (class 0). All of them act on the one hook the GNN
 * offers, the per-edge weight w_e shared by every layer (gnn.h), and always
 * explain class 0: the splitter only ever asks about groups the cost model
 * found invalid, so the target is the phenomenon, not the model's guess.
 *
 *   saliency    |dL/dw_e| at w = 1, L = -log p(invalid)        (saliency.c)
 *   occlusion   p(invalid | w = 1) - p(invalid | w_e = 0)      (occlusion.c)
 *   gnne        GNNExplainer: per-group Adam over edge logits  (gnnexplainer.c)
 *   pg          PGExplainer: a trained MLP on endpoint embeddings; score = its
 *               mask logit (pgexplainer.c)
 *   rg          RG-Explainer: seed locator + policy growing a connected subgraph
 *               (rgexplainer.c, rgexplainer_train.c)
 *
 * The tree splitter turns any of them into an edge proposer
 * (splitter/explainer_proposer.h); explain/ itself knows nothing of the
 * splitter. */
#ifndef LF_EXPLAIN_EXPLAINER_H
#define LF_EXPLAIN_EXPLAINER_H

#include <stddef.h>
#include <stdint.h>

#include "explain/gnn.h"
#include "explain/train.h"
#include "planner/cost/cost.h"

/* A group prepared for the GNN: ops in ascending id order (local index ->
 * op id), standardised features (beta column set from the cost model), and
 * the distinct edges of the induced subgraph as local indices. */
typedef struct lf_xgraph {
    int32_t n_nodes, n_edges;
    int32_t *ops;
    float *x;
    int32_t *src, *dst;
} lf_xgraph;

lf_status lf_xgraph_build(lf_xgraph *xg, const lf_gnn *m, lf_cost_model *cm,
                          const lf_bitset *group);
void lf_xgraph_destroy(lf_xgraph *xg); /* safe after a failed build */
/* A GNN view of xg (ew = NULL: all weights 1). */
lf_gnn_graph lf_xgraph_view(const lf_xgraph *xg);

/* Class probabilities (prob[0] invalid, prob[1] valid) of graph g under the
 * edge weights g->ew. */
lf_status lf_explain_predict(const lf_gnn *m, const lf_gnn_graph *g, float *prob);

typedef struct lf_explainer lf_explainer;

struct lf_explainer {
    const char *name;  /* "saliency", "occlusion", "gnne", "pg" */
    int32_t uses_seed; /* 0: the scores do not depend on the seed */
    /* Writes g->n_edges scores (g->ew is ignored). Deterministic given
     * (m, g, seed); callable from several threads at once. */
    lf_status (*explain)(const lf_explainer *e, const lf_gnn *m, const lf_gnn_graph *g,
                         uint64_t seed, double *score);
    void (*free)(lf_explainer *e); /* NULL for static instances */
    void *ctx;
};

/* Checks the arguments, calls e->explain and checks that every score is
 * finite (LF_EINVAL naming the explainer otherwise). */
lf_status lf_explainer_run(const lf_explainer *e, const lf_gnn *m, const lf_gnn_graph *g,
                           uint64_t seed, double *score);
void lf_explainer_free(lf_explainer *e); /* NULL is fine */

/* ---- baselines ---------------------------------------------------------- */

const lf_explainer *lf_explainer_saliency(void);  /* static instance */
const lf_explainer *lf_explainer_occlusion(void); /* static instance */

/* ---- GNNExplainer (gnnexplainer.c) ------------------------------------- */

typedef struct lf_gnne_config {
    int32_t epochs;  /* 100 (PyG) */
    float lr;        /* 0.01 (PyG) */
    float size_coef; /* 0.005, times the SUM of the mask */
    float ent_coef;  /* 1.0, times the MEAN binary entropy */
    int32_t patience; /* early stop: once the ranking of the edges by mask has not changed
                         for this many iterations (0: always run every epoch) */
    int32_t top;      /* with patience: only the first `top` places of the ranking count
                         (0: all); the proposer sets its edge budget k */
} lf_gnne_config;

void lf_gnne_config_default(lf_gnne_config *c);
lf_status lf_explainer_gnne_create(lf_explainer **out, const lf_gnne_config *cfg);

/* The GNNExplainer objective at edge logits `logit` (n_edges), exposed for
 * the gradient tests: L = -log p(invalid | w = sigmoid(logit))
 *   + [regularise] (size_coef * sum_H s_e + ent_coef * mean_H H(s_e)),
 * H the edges with hard[e] != 0 (NULL: all). Writes dL/dlogit into grad
 * (NULL: skip) and the prediction part's dL/dw into dw_pred (NULL: skip). */
lf_status lf_gnne_objective(const lf_gnn *m, lf_gnn_ws *ws, const lf_gnn_graph *g,
                            const float *logit, const uint8_t *hard, int regularise,
                            const lf_gnne_config *cfg, double *loss, float *grad, float *dw_pred);

/* ---- PGExplainer (pgexplainer.c) ---------------------------------------- */

#define LF_PGX_WEIGHTS_VERSION 1

/* MLP [h_src; h_dst] (2 * gnn hidden) -> hidden (ReLU) -> 1 logit, on the
 * GNN's last-layer node embeddings (post-ReLU). Parameters: W1 (hidden x
 * 2d, row-major), b1, w2 (hidden), b2. */
typedef struct lf_pgx {
    int32_t emb_dim; /* d: the GNN's hidden width */
    int32_t hidden;  /* 64 */
    int64_t n_params;
    float *params;
} lf_pgx;

typedef struct lf_pgx_config {
    int32_t epochs;    /* 25 (paper) */
    float lr;          /* 0.003 (PyG) */
    float size_coef;   /* 0.05 (PyG), times the SUM of the mask */
    float ent_coef;    /* 1.0 (PyG), times the MEAN entropy of 0.99 s + 0.005 */
    float t0, t1;      /* temperature 5 -> 2 (PyG): tau(e) = t0 (t1/t0)^(e/E) */
    float bias;        /* 0.01: eps ~ U(bias, 1 - bias) in the concrete sample */
    uint64_t seed;     /* 1: init, sample order, noise */
    int64_t max_graphs; /* 0: every invalid sample; else the first N (seeded order) */
    void (*on_epoch)(void *ctx, int32_t epoch, double mean_loss, float tau);
    void *ctx;
} lf_pgx_config;

void lf_pgx_config_default(lf_pgx_config *c);

/* PyTorch Linear init from `seed` for a GNN of hidden width m->cfg.hidden. */
lf_status lf_pgx_init(lf_pgx *p, const lf_gnn *m, int32_t hidden, uint64_t seed);
void lf_pgx_destroy(lf_pgx *p); /* safe after a failed init */

/* Trains p on the samples labelled invalid (label 0): per epoch a seeded
 * order, per graph one concrete sample and one Adam step (PyG). Single
 * threaded, so the result does not depend on the thread count. */
lf_status lf_pgx_train(lf_pgx *p, const lf_gnn *m, const lf_gnn_sample *s, int64_t n,
                       const lf_pgx_config *cfg);

/* The PGExplainer objective of one graph, exposed for the gradient tests.
 * emb: the GNN's last-layer node embeddings of g (n_nodes x emb_dim), noise:
 * per edge ln(eps) - ln(1 - eps) (NULL: none), tau the temperature:
 *   s_e = sigmoid((noise_e + omega_e) / tau), omega = MLP(emb[src]; emb[dst]),
 *   L = -log p(invalid | w = s) + size_coef sum s + ent_coef mean H(0.99 s + 0.005).
 * grad (n_params, NULL: skip) is accumulated (+=). */
lf_status lf_pgx_objective(const lf_pgx *p, const lf_gnn *m, lf_gnn_ws *ws,
                           const lf_gnn_graph *g, const float *emb, const float *noise, float tau,
                           const lf_pgx_config *cfg, double *loss, float *grad);

/* Edge logits omega (n_edges) of g: one GNN pass for the embeddings, one MLP
 * pass per edge. */
lf_status lf_pgx_logits(const lf_pgx *p, const lf_gnn *m, const lf_gnn_graph *g, float *omega);

/* Weight file: magic "LFPGXWT\0", u32 version, u64 feature-schema hash,
 * u32 emb_dim, u32 hidden, u64 n_params, f32 params, u64 checksum. */
lf_status lf_pgx_save(const lf_pgx *p, const char *path);
lf_status lf_pgx_load(lf_pgx *p, const char *path);
lf_status lf_pgx_load_memory(lf_pgx *p, const void *data, size_t len, const char *origin);

/* Explainer scoring edge e with omega_e (no noise): the mask sigmoid(omega_e)
 * ranks the same, but saturates to ties at 1. Borrows p, whose parameters
 * must not change while the explainer lives (it keeps their first layer
 * transposed). */
lf_status lf_explainer_pg_create(lf_explainer **out, const lf_pgx *p);

/* ---- RG-Explainer (rgexplainer.c, rgexplainer_train.c) ------------------- */

#define LF_RGX_WEIGHTS_VERSION 1
#define LF_RGX_HIDDEN 64

/* Locator MLP ([g_G; n_v] -> 64 -> 8 -> 1) then policy parameters, in one
 * flat vector: params[0, n_loc) locator, params[n_loc, n_loc + n_pol) policy. */
typedef struct lf_rgx {
    int32_t emb_dim;  /* d: the GNN's hidden width */
    int32_t max_size; /* largest explanation, in nodes (20) */
    int64_t n_loc, n_pol;
    float *params;
} lf_rgx;

typedef struct lf_rgx_config {
    float lambda_size, lambda_rad, lambda_sim; /* 0.01 each (authors' graph-task scripts) */
    int32_t max_size;           /* 20 */
    int32_t loc_pretrain_iters; /* 200 */
    int32_t imit_list_epochs;   /* 10 */
    int32_t imit_set_epochs;    /* 25 */
    int32_t rl_epochs;          /* 10 */
    int32_t rl_batch;           /* 128 episodes per REINFORCE step */
    int32_t rollouts;           /* 5 Monte-Carlo completions per prefix */
    int32_t imit_batch;         /* 32 demonstrations per imitation step */
    float lr;                   /* 0.01, locator and policy */
    uint64_t seed;              /* 1 */
    int64_t max_graphs;         /* 0: every invalid sample; else a seeded subset of N */
    void (*on_phase)(void *ctx, const char *phase, int32_t epoch, double value);
    void *ctx;
} lf_rgx_config;

void lf_rgx_config_default(lf_rgx_config *c);
lf_status lf_rgx_init(lf_rgx *p, const lf_gnn *m, int32_t max_size, uint64_t seed);
void lf_rgx_destroy(lf_rgx *p); /* safe after a failed init */

/* Trains locator and policy on the invalid samples (label 0). Single
 * threaded; deterministic for cfg->seed. */
lf_status lf_rgx_train(lf_rgx *p, const lf_gnn *m, const lf_gnn_sample *s, int64_t n,
                       const lf_rgx_config *cfg);

/* Deterministic explanation of g: argmax seed, greedy growth. Writes the
 * selected nodes in insertion order into order (room for g->n_nodes). */
lf_status lf_rgx_explain_nodes(const lf_rgx *p, const lf_gnn *m, const lf_gnn_graph *g,
                               const lf_rgx_config *cfg, int32_t *order, int32_t *len);

/* Exposed for the gradient tests. log pi(action | selection sel[0..n_sel),
 * seed sel[0]) with action a local node of the boundary or -1 (stop);
 * grad (n_pol, NULL: skip) accumulates d log pi / d policy parameters. */
lf_status lf_rgx_policy_logp(const lf_rgx *p, const lf_gnn_graph *g, const int32_t *sel,
                             int32_t n_sel, int32_t action, double *logp, float *grad);
/* Locator loss -sum_v target_v log softmax(score)_v over n nodes with
 * embeddings node_emb (n x d) and graph embedding graph_emb (d); grad
 * (n_loc, NULL: skip) accumulates. */
lf_status lf_rgx_locator_loss(const lf_rgx *p, const float *node_emb, const float *graph_emb,
                              int32_t n, const double *target, double *loss, float *grad);

/* Weight file: magic "LFRGXWT\0", u32 version, u64 feature-schema hash,
 * u32 emb_dim, u32 hidden (64), u32 max_size, u64 n_params, f32 params,
 * u64 checksum. */
lf_status lf_rgx_save(const lf_rgx *p, const char *path);
lf_status lf_rgx_load(lf_rgx *p, const char *path);
lf_status lf_rgx_load_memory(lf_rgx *p, const void *data, size_t len, const char *origin);

/* Explainer: an edge inside the explanation S scores 1 + (max_size - i) /
 * max_size, i the insertion index of its later endpoint; an edge with one
 * end in S scores (max_size - j) / (2 max_size), j the insertion index of
 * that end; others 0. Borrows p. */
lf_status lf_explainer_rg_create(lf_explainer **out, const lf_rgx *p);

#endif

/* Internals of the RG-Explainer, shared by its files (each uses only those
 * below it): rgexplainer_model.c (parameters, locator, weight file),
 * rgexplainer_policy.c (one group's state, policy, reward, episodes,
 * inference), rgexplainer_train.c (training) and rgexplainer.c (the
 * explainer). Not part of the public API. */
#ifndef LF_EXPLAIN_EXPLAINER_RG_H
#define LF_EXPLAIN_EXPLAINER_RG_H

#include "explain/explainer.h"
#include "planner/util/rng.h"

/* Views into the policy's part of a flat vector (params + n_loc, or a
 * gradient laid out the same way). */
typedef struct lf_rgx_pol {
    float *ws, *wn;      /* H each: z_seed and z_sel weights */
    float *wa, *ba;      /* H x F, H: node features */
    float *R[2], *r[2];  /* residual blocks: H x H, H */
    float *wnode, *watt; /* H each: candidate score, attention */
    float *wstop;        /* 2 x H: [continue; stop] */
} lf_rgx_pol;

void lf__rg_pol_view(const lf_rgx *p, float *flat, lf_rgx_pol *v);
int64_t lf__rg_loc_count(int32_t d);
int64_t lf__rg_pol_count(void);
/* Locator score of a node with embedding nv in a group with readout gemb;
 * with grad and gs != 0, accumulates gs * d score / d locator parameters. */
double lf__rg_loc_node(const lf_rgx *p, const float *nv, const float *gemb, double gs,
                       float *grad);
/* The locator's first layer transposed into lt (2d rows of 64), and the
 * score from it: the same bits as lf__rg_loc_node, faster where one set of
 * parameters scores many nodes (lf__rg_loc_seed). */
void lf__rg_loc_transpose(const lf_rgx *p, float *lt);
double lf__rg_loc_score(const lf_rgx *p, const float *lt, const float *nv, const float *gemb);

/* PPR propagation: LF__RG_HOPS steps with restart weight 1 - LF__RG_ALPHA. */
#define LF__RG_ALPHA 0.85
#define LF__RG_HOPS 3

/* A group with its undirected adjacency, embeddings and policy scratch. */
typedef struct lf__rg_group {
    const lf_gnn_graph *g;
    int32_t n;
    int32_t *adj_start, *adj; /* undirected CSR */
    float *emb, *gemb;        /* node embeddings (n x d), readout (d); NULL without a GNN */
    double *zs, *zn, *tmp;    /* PPR vectors */
    double *ind;              /* 2n: seed one-hot, selection indicator */
    uint8_t *in_s;
    int32_t *inv, *cand, *dist, *queue;
    int32_t n_inv, n_cand;
    float *h0, *h1, *h2;      /* per involved node, LF_RGX_HIDDEN wide */
    double *c, *e, *alpha, p[LF_RGX_HIDDEN], q[LF_RGX_HIDDEN], l[2];
    double *lp_cand, lp_stop;
    /* reward scratch */
    float *sx;
    int32_t *ssrc, *sdst, *smap;
    /* Incremental policy (no gradient asked): a node's h2, c and e depend
     * only on its features, zs and zn, and adding a node changes zn only
     * within LF__RG_HOPS hops of it, so a node whose (zs, zn) are bitwise
     * those of its last evaluation reuses that evaluation. Evaluations
     * belong to one set of policy parameters: training clears them after
     * every update (rgexplainer_train.c). */
    double *nrm;              /* per adjacency entry: sqrt(deg_i deg_j) */
    int32_t zs_seed;          /* the seed zs holds, -1 none */
    uint8_t *cached;
    double *c_zs, *c_zn, *c_c, *c_e;
    float *c_h2;              /* n x LF_RGX_HIDDEN */
    /* The policy's node weights transposed (wa: F x H, then each residual
     * block's R: H x H), so that one input feeds all H outputs in a row;
     * made on first use, dropped with the evaluations (they belong to the
     * same parameters). */
    float *wt;
    int wt_ok;
    float *lt;                /* the locator's first layer transposed (with a GNN) */
} lf__rg_group;

lf_status lf__rg_group_init(lf__rg_group *r, const lf_gnn_graph *g, const lf_gnn *m, lf_gnn_ws *ws);
void lf__rg_group_destroy(lf__rg_group *r); /* safe after a failed init */
/* Drops the kept node evaluations: call after the policy's parameters change. */
void lf__rg_group_forget(lf__rg_group *r);
/* Forward pass for selection in_s with seed `seed`; fills the candidate list
 * and log-probabilities. With grad, also backpropagates gscale * log pi(action). */
void lf__rg_pol_run(const lf_rgx *p, lf__rg_group *r, int32_t seed, int32_t action, double gscale,
                    float *grad);
/* Argmax-score seed, skipping isolated nodes when the group has edges. */
int32_t lf__rg_loc_seed(const lf_rgx *p, lf__rg_group *r);
/* R(S) for S = order[0..len), seed order[0] (see rgexplainer.c). */
lf_status lf__rg_reward(const lf_gnn *m, lf_gnn_ws *ws, lf__rg_group *r, const int32_t *order,
                        int32_t len, const lf_rgx_config *cfg, double *out);
/* Grows order[0..len) (order[0] the seed) until stop, an empty boundary or
 * max_size nodes: greedy when rng is NULL, sampled otherwise. Records the
 * actions (node or -1 for stop) into acts when given. Returns the length. */
int32_t lf__rg_episode(const lf_rgx *p, lf__rg_group *r, int32_t *order, int32_t len,
                       int32_t max_size, lf_rng *rng, int32_t *acts, int32_t *n_acts);
/* Nodes within LF__RG_HOPS undirected hops of v in BFS order, at most cap;
 * with rng, each BFS layer is shuffled (the authors' layer-wise expansion). */
int32_t lf__rg_khop(lf__rg_group *r, int32_t v, int32_t cap, lf_rng *rng, int32_t *out);

#endif

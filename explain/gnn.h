/* The fusion-group validity classifier (DESIGN §9, paper §IV-A): 4 GraphConv
 * layers (hidden 128, ReLU), sum readout, a linear head with 2 logits
 * (0 = invalid, 1 = valid), softmax cross-entropy.
 *
 * Every edge carries one weight w_e shared by all layers (1 when training);
 * lf_gnn_backward returns gradients for the parameters, the node features and
 * the edge weights (summed over the layers), which is what the explainers
 * need: seed the backward pass with any dL/dlogits.
 *
 * Parameters live in one flat float array (layer by layer: W_root, W_rel, b;
 * then the head's W, b), so Adam, the weight file and the deterministic
 * gradient reduction treat them as one vector. */
#ifndef LF_EXPLAIN_GNN_H
#define LF_EXPLAIN_GNN_H

#include <stdint.h>

#include "explain/features.h"
#include "explain/layers.h"
#include "planner/status.h"

#define LF_GNN_MAX_LAYERS 8
/* Largest layer width (input features, hidden units) a GNN, PGExplainer or
 * RG-Explainer accepts, in a configuration or a weight file: far beyond any
 * useful model, small enough that every weight matrix's size fits easily. */
#define LF_GNN_MAX_WIDTH 65536

typedef struct lf_gnn_config {
    int32_t in_dim;     /* node feature width (LF_FEAT_DIM) */
    int32_t hidden;     /* 128 */
    int32_t n_layers;   /* 4 */
    int32_t n_classes;  /* 2 */
    int32_t undirected; /* 1: messages flow both ways along each edge (see layers.h) */
} lf_gnn_config;

/* in_dim LF_FEAT_DIM, hidden 128, 4 layers, 2 classes, undirected 1. */
void lf_gnn_config_default(lf_gnn_config *c);

typedef struct lf_gnn {
    lf_gnn_config cfg;
    int64_t n_params;
    float *params;
    lf_feat_norm norm; /* standardization the model was trained with */
    char scheme[8];    /* cost scheme of the labels ("lbdf", "brr"), "" when unknown */
} lf_gnn;

/* Allocates and initialises like PyTorch's Linear: U(-1/sqrt(fan_in), +) for
 * weights and biases, from stream 0 of `seed`. */
lf_status lf_gnn_init(lf_gnn *m, const lf_gnn_config *cfg, uint64_t seed);
void lf_gnn_destroy(lf_gnn *m); /* safe after a failed init */

/* Views of layer l's and the head's parameters inside a flat vector laid out
 * like m->params (pass m->params or a gradient vector). */
void lf_gnn_layer_view(const lf_gnn *m, float *flat, int32_t l, lf_gconv *out);
void lf_gnn_head_view(const lf_gnn *m, float *flat, lf_head *out);

/* One graph: n_nodes rows of standardized features (in_dim wide), directed
 * edges src -> dst (producer -> consumer) and optional edge weights. */
typedef struct lf_gnn_graph {
    int32_t n_nodes, n_edges;
    const float *x;
    const int32_t *src, *dst;
    const float *ew; /* NULL = all 1 */
} lf_gnn_graph;

/* Forward caches and backward scratch for one graph at a time; grows on
 * demand. Not shared between threads. */
typedef struct lf_gnn_ws lf_gnn_ws;

lf_status lf_gnn_ws_create(lf_gnn_ws **ws, const lf_gnn *m);
void lf_gnn_ws_free(lf_gnn_ws *ws);
/* Keeps *ws when it was made for a GNN of m's shape (layers, widths,
 * classes), else frees it and makes one for m: for workspaces an explainer
 * keeps between calls. */
lf_status lf_gnn_ws_refit(lf_gnn_ws **ws, const lf_gnn *m);

/* Runs the model on gr; writes n_classes logits. The workspace keeps what
 * the backward pass needs (gr must stay alive until then). */
lf_status lf_gnn_forward(const lf_gnn *m, const lf_gnn_graph *gr, lf_gnn_ws *ws, float *logits);

/* Promises that m's weights stay as they are for as long as ws is used with
 * m (an explainer's frozen GNN; never during training). The backward pass
 * then reuses transposed weights made here once instead of transposing
 * them on every call; the results are bit-identical. */
lf_status lf_gnn_ws_fix_weights(lf_gnn_ws *ws, const lf_gnn *m);

/* Promises that the node features of gr (the array gr->x of gr->n_nodes
 * rows) stay as they are for every forward pass on ws with the same x and
 * n_nodes until the next call, and m's weights too: only the edge weights
 * vary (GNNExplainer's 100 passes over one group). The first layer's
 * b + x W_root, which the edge weights do not reach, is computed here once
 * instead of on every pass; the results are bit-identical. */
lf_status lf_gnn_ws_fix_nodes(lf_gnn_ws *ws, const lf_gnn *m, const lf_gnn_graph *gr);

/* Graph embedding (readout vector, hidden wide) of the last forward pass. */
const float *lf_gnn_ws_embedding(const lf_gnn_ws *ws);
/* Node embeddings after layer l (1..n_layers, post-ReLU), n_nodes x hidden. */
const float *lf_gnn_ws_node_embedding(const lf_gnn_ws *ws, int32_t l);

/* Backward pass of the last forward pass, seeded with dL/dlogits.
 * grad (n_params): accumulated (+=), NULL to skip.
 * dx (n_nodes x in_dim): overwritten, NULL to skip.
 * dew (n_edges): overwritten with dL/dw_e summed over all layers, NULL to skip. */
lf_status lf_gnn_backward(const lf_gnn *m, lf_gnn_ws *ws, const float *dlogits, float *grad,
                          float *dx, float *dew);

#endif

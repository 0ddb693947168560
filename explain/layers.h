/* Building blocks of the validity GNN, each with a hand-written forward and
 * backward pass (one file per block: matmul.c, graphconv.c, readout.c,
 * head.c, loss.c, adam.c). Exposed so the tests can check every gradient by
 * finite differences and the explainers can reuse them.
 *
 * Matrices are row-major float32. Weights are stored input-major, W[in x out],
 * so the forward pass z = h W is a sequence of row updates that vectorize;
 * mathematically W_root of the formula h' = W_root h_i + ... is its transpose.
 * Backward functions ACCUMULATE into parameter gradients (+=), so gradients of
 * several layers or samples can share a buffer, and OVERWRITE input
 * gradients unless stated otherwise. */
#ifndef LF_EXPLAIN_LAYERS_H
#define LF_EXPLAIN_LAYERS_H

#include <math.h>
#include <stdint.h>

#include "planner/util/rng.h"

/* ---- dense kernels (matmul.c) -------------------------------------------- */

/* C[m x n] (+)= A[m x k] B[k x n]; accumulate = 0 overwrites C. Row by
 * row over each row's non-zero terms, 64 columns held in registers; the
 * same sums as lf_mm_nn_ref (the plain row updates), bit for bit. */
void lf_mm_nn(int32_t m, int32_t n, int32_t k, const float *a, const float *b, float *c,
              int accumulate);
void lf_mm_nn_ref(int32_t m, int32_t n, int32_t k, const float *a, const float *b, float *c,
                  int accumulate);
/* C[m x n] = A[m x k] B[k x n] plus bias[n] on every row: the bits of
 * copying the bias into each row and lf_mm_nn(..., accumulate = 1). */
void lf_mm_nn_bias(int32_t m, int32_t n, int32_t k, const float *a, const float *b,
                   const float *bias, float *c);
/* C1[m x n1] = A[m x k] B1[k x n1] and C2[m x n2] = A B2 (both overwritten),
 * finding A's non-zeros once for both: the bits of two lf_mm_nn calls. */
void lf_mm_nn_pair(int32_t m, int32_t k, const float *a, int32_t n1, const float *b1, float *c1,
                   int32_t n2, const float *b2, float *c2);
/* C[k x n] += A[m x k]^T B[m x n]. */
void lf_mm_tn_acc(int32_t m, int32_t n, int32_t k, const float *a, const float *b, float *c);
/* C[m x k] = A[m x n] B[k x n]^T (overwrites). Transposes B on every call;
 * with B^T at hand, lf_mm_nn(m, k, n, A, B^T, C, 0) gives the same bits. */
void lf_mm_nt(int32_t m, int32_t n, int32_t k, const float *a, const float *b, float *c);
/* bt[cols x rows] = b[rows x cols]^T. */
void lf_mm_transpose(int32_t rows, int32_t cols, const float *b, float *bt);

/* ---- GraphConv (graphconv.c) --------------------------------------------- */

/* z_i = h_i W_root + (sum over edges e = (j -> i) of w_e h_j) W_rel + b. With
 * `undirected`, every edge also carries h_i to j with the same w_e (one
 * weight per real edge, so explanations score each data-flow edge once). */
typedef struct lf_gconv {
    int32_t in, out;
    float *w_root; /* in x out */
    float *w_rel;  /* in x out */
    float *b;      /* out */
    /* Optional out x in transposes of w_root and w_rel for the backward
     * pass (NULL: transposed on every call). Only for weights that do not
     * change while these are in use. */
    const float *w_root_t, *w_rel_t;
} lf_gconv;

typedef struct lf_gconv_edges {
    int32_t n_nodes, n_edges;
    const int32_t *src, *dst;
    const float *w;  /* per-edge weight, NULL = all 1 */
    int32_t undirected;
} lf_gconv_edges;

/* agg[n x in] = weighted neighbour sums of h[n x in]. */
void lf_gconv_aggregate(const lf_gconv_edges *e, int32_t in, const float *h, float *agg);
/* z[n x out] from h and its aggregate. */
void lf_gconv_forward(const lf_gconv *L, int32_t n, const float *h, const float *agg, float *z);
/* The two halves of lf_gconv_forward, in its order: z = b + h W_root, then
 * z += agg W_rel (the first half does not depend on the edges). */
void lf_gconv_forward_root(const lf_gconv *L, int32_t n, const float *h, float *z);
void lf_gconv_forward_rel(const lf_gconv *L, int32_t n, const float *agg, float *z);
/* Given dz = dL/dz: accumulates dL/dW_root, dL/dW_rel, dL/db into `grad`
 * (NULL: skip); writes dL/dh into dh (NULL: skip); accumulates dL/dw_e into
 * dew (NULL: skip). `tmp` is scratch of n x in floats (needed when dh or dew
 * is asked for). */
void lf_gconv_backward(const lf_gconv *L, const lf_gconv *grad, const lf_gconv_edges *e,
                       const float *h, const float *agg, const float *dz, float *dh, float *dew,
                       float *tmp);

/* ---- ReLU, sum readout, linear head (readout.c, head.c) ------------------ */

void lf_relu_forward(int64_t n, const float *z, float *h);
/* dz = dh * 1[z > 0] (dz may alias dh). */
void lf_relu_backward(int64_t n, const float *z, const float *dh, float *dz);

/* g[d] = sum over nodes of h[n x d]. */
void lf_readout_sum_forward(int32_t n, int32_t d, const float *h, float *g);
/* dh[n x d]: every node receives dg. */
void lf_readout_sum_backward(int32_t n, int32_t d, const float *dg, float *dh);

typedef struct lf_head {
    int32_t in, out;
    float *w; /* in x out */
    float *b; /* out */
} lf_head;

void lf_head_forward(const lf_head *H, const float *g, float *o);
/* Accumulates dW, db into grad (NULL: skip); writes dg (NULL: skip). */
void lf_head_backward(const lf_head *H, const lf_head *grad, const float *g, const float *dout,
                      float *dg);

/* ---- loss (loss.c) ------------------------------------------------------- */

/* Softmax cross-entropy of logits o[c] against class y: returns the loss
 * (computed stably) and writes dL/do = softmax(o) - onehot(y) into dout (NULL:
 * skip) and the probabilities into prob (NULL: skip). */
double lf_softmax_ce(const float *o, int32_t c, int32_t y, float *dout, float *prob);

/* The logistic function, split at 0 so that exp never overflows: the one
 * sigmoid of the explainers (GNNExplainer's and PGExplainer's masks,
 * RG-Explainer's Swish). */
static inline double lf_sigmoid(double x)
{
    return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

/* ---- initialization (linear_init.c) ------------------------------------- */

/* PyTorch Linear's initialization: n values drawn from r, uniform in
 * [-1/sqrt(fan_in), 1/sqrt(fan_in)), for weights and bias alike. */
void lf_linear_init(lf_rng *r, float *w, int64_t n, double fan_in);

/* ---- Adam (adam.c) ------------------------------------------------------- */

typedef struct lf_adam {
    int64_t n;
    float lr, beta1, beta2, eps;
    int64_t t;   /* steps taken */
    float *m, *v;
} lf_adam;

/* PyTorch defaults except lr: beta1 0.9, beta2 0.999, eps 1e-8. */
int lf_adam_init(lf_adam *a, int64_t n, float lr); /* 0 or LF_ENOMEM */
void lf_adam_destroy(lf_adam *a);
void lf_adam_step(lf_adam *a, float *params, const float *grad);

#endif

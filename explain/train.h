/* Training and evaluation of the validity GNN: mini-batch Adam on softmax
 * cross-entropy (mean over the batch), samples of a batch processed in
 * parallel under OpenMP.
 *
 * Determinism: every sample's gradient goes into its own buffer and the
 * buffers are summed parameter by parameter in sample order, so the result
 * does not depend on which thread handled which sample: the same seed gives
 * byte-identical weights with any thread count. The epoch's sample order is
 * drawn from stream (seed, 1 + epoch). */
#ifndef LF_EXPLAIN_TRAIN_H
#define LF_EXPLAIN_TRAIN_H

#include <stdint.h>

#include "explain/gnn.h"

/* One labelled graph (features already standardized); label 1 = valid. */
/* Largest mini-batch the CLI accepts: far more than any dataset needs in one
 * step, small enough that a batch's per-sample buffers stay modest. */
#define LF_TRAIN_MAX_BATCH 65536

typedef struct lf_gnn_sample {
    lf_gnn_graph g;
    int32_t label;
} lf_gnn_sample;

/* Binary metrics with "valid" (label 1) as the positive class; f1_invalid
 * treats "invalid" as positive, the class the splitter acts on. */
typedef struct lf_gnn_eval {
    int64_t n;
    double loss;   /* mean cross-entropy */
    double accuracy, precision, recall, f1, f1_invalid;
    int64_t tp, fp, tn, fn;
} lf_gnn_eval;

typedef struct lf_gnn_epoch {
    int32_t epoch;        /* 1-based */
    double train_loss;    /* mean over the epoch's samples */
    lf_gnn_eval val;      /* n = 0 without a validation set */
    double seconds;
    int improved;         /* best validation accuracy so far */
} lf_gnn_epoch;

typedef struct lf_gnn_train_config {
    int32_t epochs;       /* 50 */
    int32_t batch;        /* 32; the CLI takes 1 .. LF_TRAIN_MAX_BATCH */
    float lr;             /* 1e-3 */
    uint64_t seed;        /* 1 */
    int32_t threads;      /* 0: OpenMP default */
    int32_t keep_best;    /* 1: end with the weights of the best validation accuracy */
    void (*on_epoch)(void *ctx, const lf_gnn_epoch *e); /* may be NULL */
    void *ctx;
} lf_gnn_train_config;

void lf_gnn_train_config_default(lf_gnn_train_config *c);

/* Trains m in place (its parameters are the starting point). *best_epoch
 * (may be NULL) receives the epoch whose weights m ends with. */
lf_status lf_gnn_train(lf_gnn *m, const lf_gnn_sample *train, int64_t n_train,
                       const lf_gnn_sample *val, int64_t n_val, const lf_gnn_train_config *cfg,
                       int32_t *best_epoch);

lf_status lf_gnn_evaluate(const lf_gnn *m, const lf_gnn_sample *s, int64_t n, int32_t threads,
                          lf_gnn_eval *out);

#endif

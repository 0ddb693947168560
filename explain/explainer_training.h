/* Training a learned explainer (`fusionplan train-explainer`, DESIGN §9):
 * the PGExplainer MLP or the RG-Explainer on the invalid samples of a
 * dataset's training split, with a frozen GNN trained for the dataset's
 * scheme. Opening loads everything and reports what will be trained;
 * progress lines come through a callback; the result is saved as the
 * explainer's weight file. Single threaded and deterministic for a seed. */
#ifndef LF_EXPLAINER_TRAINING_H
#define LF_EXPLAINER_TRAINING_H

#include <stdint.h>
#include <stdio.h>

#include "explain/dataset.h"
#include "explain/explainer.h"
#include "explain/gnn.h"
#include "planner/status.h"

/* One progress line (newline included): a PGExplainer epoch or an
 * RG-Explainer phase. */
typedef void (*lf_explainer_training_line_fn)(void *user, const char *line);

typedef struct lf_explainer_training_config {
    int rg;                   /* 0: PGExplainer, 1: RG-Explainer */
    const char *gnn_path;     /* the frozen GNN (`fusionplan train`) */
    const char *dataset_path; /* `fusionplan dataset` */
    lf_pgx_config pg;         /* pg's settings (on_epoch and ctx are the training's) */
    lf_rgx_config rgx;        /* rg's settings (on_phase and ctx are the training's) */
    lf_explainer_training_line_fn progress; /* may be NULL */
    void *user;
} lf_explainer_training_config;

/* Both explainers' defaults (pg 25 epochs, rg 10 REINFORCE epochs and at
 * most 1000 samples). */
void lf_explainer_training_config_default(lf_explainer_training_config *cfg, int rg);
/* Sets what both take: epochs (pg's epochs, rg's REINFORCE epochs), seed and
 * the most samples trained on (0: all). */
void lf_explainer_training_set(lf_explainer_training_config *cfg, int32_t epochs, uint64_t seed,
                               int64_t max_graphs);

typedef struct lf_explainer_training {
    lf_explainer_training_config cfg;
    lf_gnn gnn;
    lf_dataset ds;
    int have_ds;
    lf_gnn_sample *train;
    int64_t n_train;          /* training samples */
    int64_t n_used;           /* invalid samples with edges trained on (max_graphs applied) */
    int64_t n_params;         /* the explainer's parameters */
    lf_pgx pg;
    lf_rgx rg;
} lf_explainer_training;

/* Loads the GNN and the dataset (the GNN must have been trained for the
 * dataset's scheme), takes the training split and initialises the
 * explainer. Safe to close after a failure. */
lf_status lf_explainer_training_open(lf_explainer_training *t, const lf_explainer_training_config *cfg);
void lf_explainer_training_close(lf_explainer_training *t);
/* "train     PGExplainer on N invalid of M training samples (DATASET), P
 * parameters, E epochs" */
void lf_explainer_training_write_header(FILE *f, const lf_explainer_training *t);
lf_status lf_explainer_training_run(lf_explainer_training *t);
lf_status lf_explainer_training_save(const lf_explainer_training *t, const char *path);

#endif

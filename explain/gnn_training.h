/* Training the fusion-group validity GNN from a dataset file (`fusionplan
 * train`, DESIGN §8): the dataset's splits standardised with the training
 * split's feature statistics, the GNN trained with Adam keeping the weights
 * of the best validation accuracy, then evaluated on the test split.
 * Progress lines come through a callback; the same seed gives the same
 * weights with any number of threads. */
#ifndef LF_GNN_TRAINING_H
#define LF_GNN_TRAINING_H

#include <stdint.h>
#include <stdio.h>

#include "explain/dataset.h"
#include "explain/gnn.h"
#include "explain/train.h"
#include "planner/status.h"

typedef struct lf_gnn_training_config {
    const char *dataset_path; /* `fusionplan dataset` */
    const char *scheme;       /* must be the dataset's labels' scheme (lbdf or brr) */
    lf_gnn_train_config train;/* epochs, batch, lr, seed (also the initialisation's), threads;
                                 on_epoch and ctx are the training's */
    void (*progress)(void *user, const char *line); /* one line per epoch, newline included; may be NULL */
    void *user;
} lf_gnn_training_config;

void lf_gnn_training_config_default(lf_gnn_training_config *cfg);

typedef struct lf_gnn_training {
    lf_gnn_training_config cfg;
    lf_dataset ds;
    int have_ds;
    lf_gnn gnn;
    lf_gnn_sample *split[3];  /* training, validation, test samples */
    int64_t n[3];
    int32_t best_epoch;       /* after a run: the epoch whose weights the GNN ends with */
    double seconds;           /* the training's wall time */
    lf_gnn_eval test;         /* after a run: the test split */
} lf_gnn_training;

/* Loads the dataset (its scheme must be cfg->scheme), initialises the GNN
 * and builds the three splits. Safe to close after a failure. */
lf_status lf_gnn_training_open(lf_gnn_training *t, const lf_gnn_training_config *cfg);
void lf_gnn_training_close(lf_gnn_training *t);
/* "train     DATASET: N train, M validation, K test samples; P parameters" */
void lf_gnn_training_write_header(FILE *f, const lf_gnn_training *t);
/* Trains, then evaluates on the test split. */
lf_status lf_gnn_training_run(lf_gnn_training *t);
/* The best epoch, the training time and the test figures (two lines). */
void lf_gnn_training_write_result(FILE *f, const lf_gnn_training *t);

#endif

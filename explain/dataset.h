/* The fusion-group dataset for the validity GNN (DESIGN §9, paper §IV-A).
 *
 * Groups are sampled by random search on the training networks of the
 * paper's Table I: each draw is a random genome (fusion probability p drawn
 * uniformly, every edge fused with probability p) whose components are made
 * convex by the cycle repair of search/partition; one group of 2..max_nodes
 * ops is picked uniformly from the result. Groups are therefore weakly
 * connected and convex (the quotient of the repaired plan is acyclic). Each
 * group is labelled with lf_cost_eval at every buffer size (valid = F_beta <
 * beta). Under BRR the squeeze-and-excite networks are skipped, as in the
 * paper.
 *
 * Deduplication is by content (node features, edges and labels), first
 * within a network while sampling (so the per-network counts are distinct
 * groups) and then across networks in Table I order: identical groups (the
 * repeated blocks of a ResNet stage) would otherwise sit in both the
 * training and the test split. The split (80/10/10 of the groups, all buffer
 * sizes of a group in the same split) is drawn from the seed.
 *
 * Everything is a pure function of (scheme, seed, scale, max_nodes), whatever
 * the thread count.
 *
 * For buffer sweeps the configuration can also name the buffer sizes, the
 * number of groups per network and, with `only` and `any_network`, any
 * built-in network. A Table I network keeps its index-based random stream
 * (so its groups do not depend on these fields, except through the labels);
 * any other network draws from a stream derived from a hash of its name.
 * The genome is always defined by the largest buffer's cost model. Labels
 * are monotone in beta: F_beta does not depend on beta under either scheme,
 * so a group valid at one buffer is valid at every larger one. */
#ifndef LF_EXPLAIN_DATASET_H
#define LF_EXPLAIN_DATASET_H

#include <stdint.h>
#include <stdio.h>

#include "explain/features.h"
#include "explain/train.h"
#include "hwdesc/hw.h"
#include "planner/cost/cost.h"

#define LF_DS_VERSION 1
/* Largest dataset file read (the paper-sized dataset is far smaller). */
#define LF_DATASET_FILE_MAX ((int64_t)1 << 30)
#define LF_DS_MAX_BETAS 8

enum { LF_DS_TRAIN = 0, LF_DS_VAL = 1, LF_DS_TEST = 2 };

typedef struct lf_ds_network {
    const char *name;
    int32_t groups;  /* Table I count */
    int32_t has_se;  /* squeeze-and-excite: skipped under BRR */
} lf_ds_network;

/* The paper's Table I, in its order. */
const lf_ds_network *lf_ds_table(int32_t *count);

typedef struct lf_ds_group {
    int32_t network;                 /* index into the dataset's networks */
    int32_t n_nodes, n_edges;
    int32_t split;                   /* LF_DS_TRAIN, LF_DS_VAL, LF_DS_TEST */
    uint8_t valid[LF_DS_MAX_BETAS];  /* label per buffer size: 1 = F_beta < beta */
    int32_t *ops;                    /* op ids in the network, ascending */
    float *x;                        /* raw features, beta column 0 (n_nodes x LF_FEAT_DIM) */
    int32_t *src, *dst;              /* local edges producer -> consumer */
} lf_ds_group;

typedef struct lf_dataset {
    char scheme[8];
    uint64_t seed;
    int32_t n_betas;
    int64_t betas[LF_DS_MAX_BETAS];
    int32_t n_networks;
    char **networks;
    int32_t *requested;              /* groups asked for per network (after scale) */
    int64_t n_groups, cap;
    lf_ds_group *groups;
} lf_dataset;

typedef struct lf_ds_config {
    const char *scheme;   /* "lbdf" or "brr" */
    uint64_t seed;        /* 1 */
    double scale;         /* 1.0: Table I counts; 0.1 for a small dataset */
    int32_t max_nodes;    /* largest group kept (100) */
    int32_t threads;      /* 0: OpenMP default; networks are sampled in parallel */
    const lf_hw *hw;      /* bytes per element; NULL: built-in default (1 byte) */
    const char *only;     /* NULL, or one network name to sample alone (tests) */
    /* Beyond the training set (buffer sweeps); all zero by default, which
     * keeps every dataset byte-identical to what it was without them. */
    int32_t n_betas;      /* 0: the paper's five 128..2048 KB; else betas[0..n_betas) */
    int64_t betas[LF_DS_MAX_BETAS]; /* buffer sizes in bytes, strictly ascending */
    int32_t groups;       /* > 0: distinct groups per network instead of Table I x scale
                             (scale is then ignored) */
    int32_t any_network;  /* with `only`: any built-in network (models/registry.h), not just
                             Table I ones, and squeeze-and-excite networks kept under BRR */
    const lf_graph *graph; /* a network given as a graph (an ONNX import) to sample alone,
                              named after it, from a stream of its name; needs groups > 0;
                              `only` is then ignored */
} lf_ds_config;

void lf_ds_config_default(lf_ds_config *c);

/* Betas: 128, 256, 512, 1024, 2048 KB. */
void lf_dataset_init(lf_dataset *ds, const char *scheme);
void lf_dataset_destroy(lf_dataset *ds);

/* Samples, labels, deduplicates and splits. ds must be freshly initialised. */
lf_status lf_dataset_build(lf_dataset *ds, const lf_ds_config *cfg);

/* Adds a network name (returns its index) and one group of it, labelled with
 * one cost model per buffer size (cms[k] must use betas[k]). */
int32_t lf_dataset_add_network(lf_dataset *ds, const char *name, int32_t requested);
lf_status lf_dataset_add_group(lf_dataset *ds, int32_t network, const lf_graph *g,
                               const lf_bitset *group, lf_cost_model *const *cms);

/* Content hash of a group (features, edges, labels). */
uint64_t lf_ds_group_hash(const lf_dataset *ds, const lf_ds_group *gr);

/* Removes content duplicates (keeps the first); returns how many went. */
int64_t lf_dataset_dedup(lf_dataset *ds);

/* Assigns 80/10/10 splits: floor(0.8 n) train, floor(0.1 n) validation, the
 * rest test, over a seeded permutation. */
void lf_dataset_split(lf_dataset *ds, uint64_t seed);

int64_t lf_dataset_count(const lf_dataset *ds, int32_t split); /* groups; split -1 = all */
/* The report of a built dataset (dataset_report.c): the split's group
 * counts and a table of the valid fraction per network and buffer size,
 * with the networks' requested and sampled group counts and an "all" row. */
void lf_dataset_report_write(FILE *f, const lf_dataset *ds);

/* Fits standardization on the training split's nodes at every buffer size. */
void lf_dataset_fit_norm(const lf_dataset *ds, lf_feat_norm *nm);

/* Expands the groups of one split (-1 = all) into samples, one per buffer
 * size, with standardized features. Free with lf_dataset_samples_free; the
 * samples share ds's edge arrays, so ds must outlive them. */
lf_status lf_dataset_samples(const lf_dataset *ds, int32_t split, const lf_feat_norm *nm,
                             lf_gnn_sample **out, int64_t *n);
void lf_dataset_samples_free(lf_gnn_sample *s, int64_t n);

/* Files (format in dataset_io.c): atomic write; load errors name the file
 * and say what is wrong (bad magic, version, schema, truncated, corrupted). */
lf_status lf_dataset_save(const lf_dataset *ds, const char *path);
lf_status lf_dataset_load(lf_dataset *ds, const char *path);
lf_status lf_dataset_load_memory(lf_dataset *ds, const void *data, size_t len,
                                 const char *origin);

#endif

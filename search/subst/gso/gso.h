/* GSO rule filter (DESIGN §11, the GSO paper: Miao et al., Jisuanji Kexue
 * 49(3), 2022): one small model per substitution rule predicts, for every op
 * of a graph, "a match of this rule uses this op"; a rule is kept for the
 * search when some op scores >= the threshold (0.5), and the search then
 * tries only the kept rules (lf_subst_options.rule_mask).
 *
 * Models:
 *   gcn  two GCN layers H' = ReLU(P H W + b), P = D^-1/2 (A + I) D^-1/2 over
 *        the undirected data-flow edges, widths 40 and 10, dropout between
 *        layers when training, then a dense layer with a sigmoid per node;
 *   lr   the paper's GSO-LR baseline: sigmoid(x W + b) per node on the same
 *        features, no edges.
 * The dense kernels, ReLU, the logistic function and Adam are explain/'s
 * (explain/layers.h); the aggregation is explain/'s GraphConv aggregation
 * with the GCN normalization as its edge weights.
 *
 * Node features (LF_GSO_FEAT_DIM = 30, the paper's count): explain/'s op-type
 * one-hot (23 columns; graph inputs have none) and 7 attributes: log2(1 + x)
 * of the kernel height, the stride, the top padding, the output channels and
 * the readers of the output, a SAME-padding flag and a fused-activation flag. */
#ifndef LF_SUBST_GSO_H
#define LF_SUBST_GSO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "planner/graph.h"
#include "planner/status.h"
#include "search/subst/subst.h"

#define LF_GSO_FEAT_DIM 30
#define LF_GSO_H1 40
#define LF_GSO_H2 10
#define LF_GSO_WEIGHTS_VERSION 1
#define LF_GSO_DATASET_VERSION 1
/* The shipped weights (explain/weights/, found with lf_weights_find). */
#define LF_GSO_SHIPPED_GCN "gso-gcn.bin"
#define LF_GSO_SHIPPED_LR "gso-lr.bin"
/* The same retrained on the generated rules (`gso-dataset --rules
 * builtin,generated`): the models for optimize's default rule set. */
#define LF_GSO_SHIPPED_GCN_GENERATED "gso-gcn-generated.bin"
#define LF_GSO_SHIPPED_LR_GENERATED "gso-lr-generated.bin"

typedef enum lf_gso_kind { LF_GSO_GCN = 0, LF_GSO_LR = 1, LF_GSO_NONE = 2 } lf_gso_kind;
const char *lf_gso_kind_name(lf_gso_kind k);
lf_gso_kind lf_gso_kind_from_name(const char *s); /* LF_GSO_NONE + 1 when unknown */

/* Hash of the feature schema (column names, op-type names, version): weight
 * and dataset files made for another schema are refused. */
uint64_t lf_gso_schema_hash(void);
const char *lf_gso_feat_name(int32_t col);

/* ---- one graph as the models see it -------------------------------------- */

typedef struct lf_gso_graph {
    int32_t n;           /* nodes: every op of the graph, inputs included */
    int32_t n_edges;     /* distinct undirected data-flow edges */
    float *x;            /* n x LF_GSO_FEAT_DIM raw features */
    int32_t *src, *dst;  /* edge e: producer src[e] -> consumer dst[e] */
    float *ew;           /* edge weight of P: 1 / sqrt(d_src d_dst) */
    float *self;         /* diagonal of P: 1 / d_i (d = 1 + neighbours) */
    float *px;           /* P x, n x LF_GSO_FEAT_DIM (the first layer's input) */
} lf_gso_graph;

/* Features and normalized adjacency of g. */
lf_status lf_gso_graph_init(lf_gso_graph *gg, const lf_graph *g);
/* The same from features and directed edges (duplicates and self loops are
 * dropped); copies them. For datasets and tests. */
lf_status lf_gso_graph_from(lf_gso_graph *gg, int32_t n, const float *x, int32_t n_edges,
                            const int32_t *src, const int32_t *dst);
void lf_gso_graph_destroy(lf_gso_graph *gg); /* safe after a failed init */
/* out[n x d] = P h[n x d]. */
void lf_gso_propagate(const lf_gso_graph *gg, int32_t d, const float *h, float *out);

/* ---- models ---------------------------------------------------------------- */

/* Parameters of one rule's model, flat: gcn W1[30x40] b1[40] W2[40x10] b2[10]
 * W3[10x1] b3[1]; lr W[30x1] b[1]. */
int64_t lf_gso_n_params(lf_gso_kind k);

/* A set of per-rule models of one kind, by rule name. */
typedef struct lf_gso_set {
    lf_gso_kind kind;
    int32_t n;
    char **names;        /* rule names */
    float *params;       /* n x lf_gso_n_params(kind) */
    int32_t *positives;  /* per rule: training graphs in which the rule matched */
} lf_gso_set;

lf_status lf_gso_set_init(lf_gso_set *s, lf_gso_kind kind, int32_t n, const char *const *names);
void lf_gso_set_destroy(lf_gso_set *s); /* safe after a failed init */
float *lf_gso_set_params(const lf_gso_set *s, int32_t i);
/* Index of a rule by name, -1 when the set has no model for it. */
int32_t lf_gso_set_find(const lf_gso_set *s, const char *name);

/* Weight file, all little-endian, written atomically:
 *   8 bytes "LFGSOWT\0", u32 version, u64 schema hash, u32 kind,
 *   u32 feature width, u32 h1, u32 h2, u32 models, u64 parameters per model,
 *   per model: u32 name length, the name, u32 positives, f32 parameters
 *   (none when positives is 0: a rule that never matched a training graph
 *   has the constant "no" model, every node at sigmoid(-8));
 *   u64 checksum of everything before it.
 * Loading fails with one line naming the file on a wrong magic, version,
 * schema, dimensions, a truncated or corrupted file. */
lf_status lf_gso_save(const lf_gso_set *s, const char *path);
lf_status lf_gso_load(lf_gso_set *s, const char *path);
/* The same from a file image in memory; `origin` names it in messages. */
lf_status lf_gso_load_memory(lf_gso_set *s, const void *data, size_t len, const char *origin);
/* Loads path, or when path is NULL the shipped models of kind
 * (LF_GSO_SHIPPED_GCN or _LR, found with lf_weights_find). The file's kind is
 * the file's: callers that need a given kind compare s->kind. */
lf_status lf_gso_load_or_shipped(lf_gso_set *s, lf_gso_kind kind, const char *path);
/* The same, choosing the shipped file by the rule sources searched (a
 * comma-separated list as `--rules` takes): the models trained on the
 * generated rules when the list names the shipped generated set
 * ("generated"), the ones trained on the built-in and TASO rules otherwise;
 * *file (may be NULL) receives the file's base name, or path. */
lf_status lf_gso_load_for_rules(lf_gso_set *s, lf_gso_kind kind, const char *path, const char *rules,
                                const char **file);

/* Per-node probabilities of one model on gg: prob[n]. ws: scratch of
 * lf_gso_ws_floats(gg->n) floats. */
int64_t lf_gso_ws_floats(int32_t n);
void lf_gso_predict(lf_gso_kind k, const float *params, const lf_gso_graph *gg, float *ws, float *prob);

/* Training loss of one model on one graph: mean over nodes of the weighted
 * binary cross-entropy, w = pos_weight on label-1 nodes. With drop_mask
 * (n x (40 + 10) keep factors, 0 or 1/(1-p); NULL: no dropout, gcn only),
 * grad (accumulated, NULL to skip). Returns the loss. */
double lf_gso_loss_grad(lf_gso_kind k, const float *params, const lf_gso_graph *gg,
                        const uint8_t *labels, double pos_weight, const float *drop_mask,
                        float *grad, float *ws);

/* ---- filter ------------------------------------------------------------------ */

/* Fills keep[rs->n]: 1 when the rule's model scores some op of g >= threshold,
 * or when the set has no model for the rule (kept: the filter never drops
 * what it knows nothing about). *kept receives the count of kept enabled
 * rules. Disabled rules get 0. */
lf_status lf_gso_filter(const lf_gso_set *s, const lf_graph *g, const lf_subst_ruleset *rs,
                        double threshold, uint8_t *keep, int32_t *kept);

/* One run of the filter as the commands report it (optimize --filter, plan
 * --optimize-filter): what was kept, out of what, and how long it took. */
typedef struct lf_gso_filter_stats {
    lf_gso_kind kind;
    int32_t kept;      /* enabled rules kept */
    int32_t enabled;   /* rules enabled in the set (verification passed) */
    int32_t unknown;   /* enabled rules the models do not know (kept) */
    double seconds;    /* wall time of the filter */
} lf_gso_filter_stats;

/* lf_gso_filter, timed, with the counts of stats. */
lf_status lf_gso_filter_timed(const lf_gso_set *s, const lf_graph *g, const lf_subst_ruleset *rs,
                              double threshold, uint8_t *keep, lf_gso_filter_stats *stats);
/* One line: "filter gso: 7 of 21 rules kept (66.7% of the search space
 * removed) in 1.2 ms[, U without a model kept]: rule rule ...". */
void lf_gso_filter_stats_write(FILE *f, const lf_gso_filter_stats *stats, const lf_subst_ruleset *rs,
                               const uint8_t *keep);

/* truth[rs->n]: 1 when the enabled rule has a match in g (the matcher). */
lf_status lf_gso_truth(const lf_graph *g, const lf_subst_ruleset *rs, uint8_t *truth);

/* Jaccard distance 1 - |A n B| / |A u B| of two 0/1 vectors (0 when both empty). */
double lf_gso_jaccard_distance(const uint8_t *a, const uint8_t *b, int32_t n);

/* ---- dataset (dataset.c, perturb.c) ------------------------------------------- */

typedef struct lf_gso_dataset {
    int32_t n_rules;
    char **rules;        /* rule names */
    int32_t n_graphs, n_train; /* graphs [0, n_train) train, the rest test */
    char **origin;       /* per graph: base network and how it was made */
    lf_gso_graph *g;
    uint8_t **labels;    /* per graph: n_rules x n node labels (rule-major) */
} lf_gso_dataset;

typedef struct lf_gso_dataset_options {
    int32_t n_graphs;    /* 2000 */
    int32_t n_train;     /* 1500 */
    uint64_t seed;
    const char *const *networks; /* NULL-terminated base networks (NULL: the defaults) */
    int32_t threads;     /* graphs built in parallel (OpenMP); results do not depend on it */
} lf_gso_dataset_options;

void lf_gso_dataset_options_default(lf_gso_dataset_options *o);

/* Builds the dataset: each graph is a base network after a random walk of
 * substitutions (the intermediate graphs a search visits) and/or random
 * perturbations (a conv's padding or stride changed, a ReLU, a channel
 * split + concat or a conv inserted or deleted); labels from the matcher for
 * every enabled rule of rs. Deterministic for the seed. `progress` (may be
 * NULL) is called after each graph. */
lf_status lf_gso_dataset_build(lf_gso_dataset *d, const lf_subst_ruleset *rs,
                               const lf_gso_dataset_options *o,
                               void (*progress)(void *user, int32_t done, int32_t total), void *user);
void lf_gso_dataset_destroy(lf_gso_dataset *d);
lf_status lf_gso_dataset_save(const lf_gso_dataset *d, const char *path);
lf_status lf_gso_dataset_load(lf_gso_dataset *d, const char *path);

/* One random perturbation of g (kind 0..5: pad, stride, insert ReLU, delete
 * ReLU, insert split+concat, insert or delete conv; -1: any). LF_ENOTFOUND
 * when g offers no place for it. Deterministic for the rng state. */
struct lf_rng;
lf_status lf_gso_perturb(const lf_graph *g, int32_t kind, struct lf_rng *rng, lf_graph **out);

/* ---- training (train.c) ---------------------------------------------------------- */

typedef struct lf_gso_train_options {
    lf_gso_kind kind;
    int32_t epochs;      /* 20 (the paper), with early stopping */
    float lr;            /* Adam, 0.01 */
    float dropout;       /* 0.1 */
    double pos_weight;   /* weight of label-1 nodes in the loss, 2 */
    uint64_t seed;
    int32_t threads;     /* rules trained in parallel; results do not depend on it */
} lf_gso_train_options;

void lf_gso_train_options_default(lf_gso_train_options *o);

/* Trains one model per rule of d on its training graphs into s (initialised
 * here). Deterministic for the seed with any thread count. */
lf_status lf_gso_train(const lf_gso_dataset *d, const lf_gso_train_options *o, lf_gso_set *s);

/* ---- reports (report.c) ------------------------------------------------------------ */

/* "N graphs (T train, E test), X ops per graph, R rules (M match somewhere),
 * P% positive labels" (no newline). */
void lf_gso_dataset_summary_write(FILE *f, const lf_gso_dataset *d);
/* The evaluation of s on d's test graphs at threshold (lf_gso_evaluate): a
 * table of the rules that match somewhere or are kept (training and test
 * positives, kept, node and graph accuracy, recall), the count of rules that
 * never match, and the means. */
lf_status lf_gso_eval_write(FILE *f, const lf_gso_set *s, const lf_gso_dataset *d, double threshold);

/* Per-rule figures on d's test graphs. */
typedef struct lf_gso_eval {
    double node_acc;     /* nodes labelled right at the threshold */
    double graph_acc;    /* graphs where kept == matches */
    double recall;       /* graphs kept among those where the rule matches (-1: none match) */
    int32_t matching;    /* test graphs where the rule matches */
    int32_t kept;        /* test graphs where the rule is kept (matching or not) */
} lf_gso_eval;

/* ev[d->n_rules]; *jaccard: mean Jaccard distance of kept and matching rule
 * sets over the test graphs; *kept_share: mean share of rules kept. */
lf_status lf_gso_evaluate(const lf_gso_set *s, const lf_gso_dataset *d, double threshold,
                          lf_gso_eval *ev, double *jaccard, double *kept_share);

#endif

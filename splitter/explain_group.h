/* One fusion group's explanation (`fusionplan explain`, DESIGN §8, §9): the
 * group's buffer requirement, the GNN's p(valid), and the group's edges
 * ranked by how much an explainer holds them responsible for the "invalid"
 * prediction (class 0), with a text report and a DOT picture. */
#ifndef LF_EXPLAIN_GROUP_H
#define LF_EXPLAIN_GROUP_H

#include <stdint.h>
#include <stdio.h>

#include "explain/explainer.h"
#include "splitter/proposer_named.h"
#include "planner/cost/cost.h"
#include "planner/graph.h"
#include "planner/status.h"
#include "planner/util/bitset.h"
#include "splitter/proposer.h"

typedef struct lf_group_explain_config {
    const char *explainer;   /* gnne, pg, rg, saliency or occlusion */
    const char *gnn_path;    /* the GNN's weights (NULL: the shipped ones of the scheme) */
    const char *pg_path, *rg_path; /* pg, rg: their weights (NULL: the shipped ones) */
    uint64_t seed;           /* the explainer's stream is lf_split_seed(seed, group) */
} lf_group_explain_config;

typedef struct lf_group_explanation {
    lf_xgraph xg;            /* the group's graph: ops, edges, features */
    lf_group_cost whole;     /* the whole group's cost: F_beta and validity */
    float prob[2];           /* the GNN's p(invalid), p(valid) */
    int32_t n_edges;
    lf_edge_score *ranked;   /* by responsibility for "invalid", descending (graph op ids) */
    double seconds;          /* the explainer's run */
    const char *explainer;   /* its name */
    lf_named_proposer np_;   /* private: the GNN and the explainer */
} lf_group_explanation;

/* 1 when `name` is an explainer lf_group_explain takes (gnne, pg, rg,
 * saliency, occlusion, with gnne's settings after a colon, which
 * lf_named_proposer_check checks). */
int lf_group_explainer_known(const char *name);

/* Explains group (a set of ops of cm's graph) under cm. The GNN must have
 * been trained for cm's scheme. A group without edges has nothing to rank
 * (n_edges 0). Safe to destroy after a failure. */
lf_status lf_group_explain(lf_cost_model *cm, const lf_bitset *group, const lf_group_explain_config *cfg,
                           lf_group_explanation *out);
void lf_group_explanation_destroy(lf_group_explanation *e);

/* The report: the group (ops, edges, scheme, buffer), F_beta, the GNN's
 * prediction and the ranked edges, the top k marked. */
void lf_group_explanation_write(FILE *f, const lf_cost_model *cm, const lf_group_explanation *e, int32_t k);
/* Graphviz DOT of the group: the top k edges solid and red, the rest dashed,
 * each labelled with its score. */
void lf_group_explanation_dot(FILE *f, const lf_graph *g, const lf_group_explanation *e, int32_t k);

#endif

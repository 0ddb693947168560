/* Internals shared by the graph's source files: the hash, the builder's
 * pending ops and constants, and the scratch of one build. */
#ifndef LF_GRAPH_INTERNAL_H
#define LF_GRAPH_INTERNAL_H

#include "planner/graph.h"

uint64_t lf__graph_compute_hash(const lf_graph *g);

/* Value buffers a built graph owns (freed by lf_graph_free). */
typedef struct lf__graph_values {
    int32_t n, cap;
    float **bufs;
} lf__graph_values;

typedef struct lf__pending_op {
    char *name;
    lf_op_type type;
    lf_attrs attr;
    int32_t n_names;
    char **names;              /* operand names (add_op) or activation input names (add) */
    int32_t explicit_operands; /* 1: names are all operands; 0: weights are implied */
    int32_t marked_output;
} lf__pending_op;

typedef struct lf__pending_const {
    char *name;
    lf_shape shape;
    float *data;               /* owned; NULL when shape only */
    int32_t borrowed;          /* data lies in an adopted buffer: not freed on its own */
} lf__pending_const;

struct lf_graph_builder {
    char *name;
    lf__pending_op *ops;
    int32_t n, cap;
    lf__pending_const *consts;
    int32_t nc, ccap;
    lf_fold_fn fold;
    void *fold_ctx;
    int built;
    float **adopted;           /* buffers borrowed constants lie in (lf_graph_builder_adopt) */
    int32_t n_adopted;
};

/* A resolved operand name: pending op `id` or pending constant `id`. */
typedef struct lf__ref {
    int32_t is_const;
    int32_t id;
} lf__ref;

typedef struct lf__build_scratch {
    int32_t *order;            /* topological order of the pending ops */
    int32_t *indeg, *heap, *consumer_count;
    int32_t *new_id;           /* pending op -> op id, -1 when folded */
    int32_t *fold_const;       /* pending op -> pending constant it folded into, or -1 */
    lf__ref **refs;            /* per pending op, its resolved operand names */
    uint8_t *placed;
    int32_t *names_order;      /* ops then constants, sorted by name (binary search) */
    int32_t n_names;
} lf__build_scratch;

/* ---- the builder's store (graph_names.c) -------------------------------- */

/* Appends a pending constant (takes data, or borrows it from an adopted
 * buffer when borrowed). Returns its index or a negative status. */
int32_t lf__builder_push_const(lf_graph_builder *b, const char *name, lf_shape shape, float *data,
                               int borrowed);

/* The name index: entry e < b->n is op e, otherwise constant e - b->n. */
const char *lf__builder_entry_name(const lf_graph_builder *b, int32_t e);
/* Fills s->names_order (room for b->n + b->nc entries) sorted by name, and s->n_names. */
void lf__builder_sort_names(const lf_graph_builder *b, lf__build_scratch *s);
/* The entry called name, or -1 (after lf__builder_sort_names). */
int32_t lf__builder_find(const lf_graph_builder *b, const lf__build_scratch *s, const char *name);
/* 1 when some op or constant of the builder is called name. */
int lf__builder_name_taken(const lf_graph_builder *b, const lf__build_scratch *s, const char *name);

/* Folds constant-only ops in topological order (graph_fold.c). */
lf_status lf__fold(lf_graph_builder *b, lf__build_scratch *s);

/* Creates the frozen graph from the sorted, folded ops (graph_freeze.c). */
lf_status lf__freeze(lf_graph_builder *b, lf__build_scratch *s, lf_graph **out);

#endif

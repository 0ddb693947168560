/* Per-op node features of a fusion group for the validity GNN (DESIGN §9).
 *
 * Columns, in order:
 *   [0, LF_FEAT_N_TYPES)   one-hot op type (every v1 type but the graph input,
 *                          which never belongs to a group; later types share
 *                          a v1 column, see lf_feat_type_column)
 *   then the numeric columns, each log2(1 + x):
 *     in_c, in_h, in_w     the largest input tensor (by elements)
 *     out_c, out_h, out_w  the output tensor
 *     kernel, stride       row window along H (lf_op_row_window: dilation applied)
 *     weight_bytes         |W_v| with the hardware's bytes per weight
 *     beta                 buffer size in bytes (the paper's buffer node feature)
 *   then two 0/1 boundary columns (beyond DESIGN §9, because F_beta depends on
 *   them: an output leaving the group pays a staging row and its DRAM, an
 *   input from outside is a window the group must hold):
 *     out_leaves           the op's output is read outside the group or is a graph output
 *     reads_outside        some input is produced outside the group (or is a graph input)
 *
 * The schema hash covers the column names, the op type names and the
 * feature version, so weight and dataset files built for another schema are
 * rejected. Standardization (lf_feat_norm) is fitted on training nodes and
 * applied to the numeric columns only: one-hot and flag columns stay 0/1, so
 * rare op types do not become huge inputs to the sum aggregation. */
#ifndef LF_EXPLAIN_FEATURES_H
#define LF_EXPLAIN_FEATURES_H

#include <stdint.h>

#include "planner/graph.h"
#include "planner/status.h"
#include "planner/util/bitset.h"

#define LF_FEAT_VERSION 1
/* One-hot columns for the 23 op types of schema v1 (Conv .. Identity). Op
 * types added later share the column of the closest v1 type (their op-table
 * entry's features_as, read by lf_feat_type_column), so trained weights and
 * datasets stay valid. */
#define LF_FEAT_N_TYPES ((int32_t)LF_OP_IDENTITY)

enum {
    LF_FEAT_IN_C = LF_FEAT_N_TYPES,
    LF_FEAT_IN_H,
    LF_FEAT_IN_W,
    LF_FEAT_OUT_C,
    LF_FEAT_OUT_H,
    LF_FEAT_OUT_W,
    LF_FEAT_KERNEL,
    LF_FEAT_STRIDE,
    LF_FEAT_WEIGHT_BYTES,
    LF_FEAT_BETA,
    LF_FEAT_OUT_LEAVES,
    LF_FEAT_READS_OUTSIDE,
    LF_FEAT_DIM
};

const char *lf_feat_name(int32_t col);
/* One-hot column of an op type (never LF_OP_INPUT). */
int32_t lf_feat_type_column(lf_op_type t);
/* 1 for the log2 columns that standardization rescales. */
int lf_feat_is_numeric(int32_t col);
uint64_t lf_feat_schema_hash(void);

/* Raw (unstandardized) features of the ops of `group` in ascending op id
 * order (a topological order) into x[n * LF_FEAT_DIM], n = popcount(group).
 * Graph inputs in the group are an error (LF_EINVAL). */
lf_status lf_feat_group(const lf_graph *g, const lf_bitset *group, int32_t weight_bytes,
                        int64_t beta, float *x);

/* Sets the beta column of n rows of raw features. */
void lf_feat_set_beta(float *x, int32_t n, int64_t beta);

/* Edges of the group's induced subgraph, producer -> consumer, as local
 * indices into the ascending op list; an operand read twice by one op gives
 * one edge. Writes at most `cap` edges and returns the edge count (which may
 * exceed cap: call again with a larger buffer), or a negative lf_status. */
int32_t lf_feat_group_edges(const lf_graph *g, const lf_bitset *group, int32_t *src, int32_t *dst,
                            int32_t cap);

/* Standardization of the numeric columns: x' = (x - mean) / std; other
 * columns keep mean 0, std 1. */
typedef struct lf_feat_norm {
    float mean[LF_FEAT_DIM];
    float std[LF_FEAT_DIM];
} lf_feat_norm;

void lf_feat_norm_identity(lf_feat_norm *nm);
/* Fits on n rows of raw features (population std; a std below 1e-6 becomes 1). */
void lf_feat_norm_fit(lf_feat_norm *nm, const float *x, int64_t n);
void lf_feat_norm_apply(const lf_feat_norm *nm, float *x, int64_t n);

#endif

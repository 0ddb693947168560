/* The FlashAttention yardstick (DESIGN §16): one attention layer's core
 * (S = Q Kᵀ, optionally a causal mask, P = softmax(S), O = P V over `heads`
 * heads of N tokens and head width d) planned exactly at a buffer size,
 * next to FlashAttention's IO figure N² d² / M (Dao et al. 2022, Theorem 2;
 * M the on-chip memory in elements) and the unfused traffic. */
#ifndef LF_ATTN_IO_H
#define LF_ATTN_IO_H

#include <stdint.h>

#include "hwdesc/hw.h"
#include "planner/graph.h"
#include "planner/status.h"

typedef struct lf_attn_io_config {
    int64_t seq_len;  /* N: query and key rows */
    int64_t dim;      /* d: head width */
    int64_t heads;
    int causal;
    const char *scheme; /* "lbdf" or "brr" */
} lf_attn_io_config;

typedef struct lf_attn_io_row {
    int64_t beta;
    int64_t optimum;     /* the exact plan's DRAM over all ops, bytes */
    int64_t unfused;     /* every op its own group, bytes */
    double flash;        /* heads x N^2 d^2 / M, bytes (M = beta / b_a elements) */
    int32_t groups;
    int32_t attn;        /* LF_ATTN_* of the optimum's group holding the scores (0: none) */
    int32_t br, bc, kv_reads;
} lf_attn_io_row;

/* The core as a graph: inputs q {heads, N, d}, kt {heads, d, N}, v {heads,
 * N, d}; s, [mask], p, o. */
lf_status lf_attn_io_graph(const lf_attn_io_config *cfg, lf_graph **out);

/* One row at buffer beta on hardware hw (its buffer is replaced). */
lf_status lf_attn_io_measure(const lf_attn_io_config *cfg, const lf_graph *g, const lf_hw *hw,
                             int64_t beta, lf_attn_io_row *row);

#endif

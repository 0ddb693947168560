/* Weight residency across decode steps (DESIGN §16): which weight tensors to
 * keep in the buffer from one token to the next, so that a step reads them
 * from DRAM no more. An exact 0/1 knapsack (knapsack.c) over the buffer left
 * after the step's largest working set (residency.c). */
#ifndef LF_RESIDENCY_H
#define LF_RESIDENCY_H

#include <stdint.h>

#include "planner/plan.h"

/* Exact 0/1 knapsack: the subset of the n items (size[i] >= 1 bytes,
 * value[i] >= 0) of largest total value whose sizes sum to at most capacity;
 * ties go to the first subset in the search order (items by value per byte,
 * then larger first, then by index; equal items form one class whose first
 * ones are taken), so the answer is deterministic. take[i] = 1 for the
 * chosen items, *best their value. Branch and bound over the classes by
 * value density with the fractional bound; LF_ELIMIT after max_nodes nodes (0: 100
 * million) with a message saying so, LF_EINVAL on a negative size or value. */
lf_status lf_knapsack_exact(int32_t n, const int64_t *size, const int64_t *value,
                            int64_t capacity, int64_t max_nodes, uint8_t *take, int64_t *best);

typedef struct lf_residency {
    int64_t buffer;          /* beta */
    int64_t working_set;     /* the plan's largest group buffer use (its MBU, fusable groups) */
    int64_t capacity;        /* beta - working_set - 1: what resident weights may fill (the
                                step stays valid: working set + resident < beta) */
    int32_t n_weights;       /* weight tensors the step reads (constants of its ops) */
    int32_t n_resident;      /* how many are kept */
    int32_t *resident;       /* their constant ids, ascending (malloc'd) */
    int64_t resident_bytes;  /* their bytes: the buffer they hold, loaded once */
    int64_t saved_bytes;     /* DRAM per token they no longer cost (each its bytes times
                                the reads the plan makes of it per step) */
    int64_t dram_without;    /* DRAM per token of the step as planned (all ops) */
    int64_t dram_with;       /* the same with the resident weights kept */
} lf_residency;

/* The residency answer for plan p of a step under cm. A weight read by
 * several groups (a tied table) is one item whose value is every read.
 * Reads per step: a group's weight_reads (1 under LBDF, R_W when BRR streams
 * them), an unfusable op's streamed reads by the all-ops charge. */
lf_status lf_residency_compute(const lf_plan *p, lf_cost_model *cm, lf_residency *out);
void lf_residency_destroy(lf_residency *r); /* safe after a failed compute */

#endif

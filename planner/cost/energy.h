/* Energy and latency of a fusion group (DESIGN §19, docs/cost-models.md
 * "Energy and latency"): DRAM, SRAM and MAC energy in pJ, and the roofline
 * latency with and without double buffering, from a group's cost and the
 * hardware's energy and compute figures. Pure functions: the same group and
 * hardware give the same figures in every thread. */
#ifndef LF_ENERGY_H
#define LF_ENERGY_H

#include <stdint.h>
#include <stdio.h>

#include "planner/cost/cost.h"

typedef enum lf_bound {
    LF_BOUND_MEMORY = 0, /* DRAM time >= compute time (also when no peak is known) */
    LF_BOUND_COMPUTE = 1 /* compute time > DRAM time */
} lf_bound;

typedef struct lf_group_perf {
    int64_t macs;         /* multiply-accumulates of the group's ops */
    int64_t sram_bytes;   /* buffer bytes read and written: the three terms below */
    int64_t sram_dram;    /* DRAM transfers staged through the buffer (= F_D) */
    int64_t sram_act;     /* each op reading its activation inputs and writing its output */
    int64_t sram_weights; /* each op's weights read from the buffer once per row step */
    double dram_pj, sram_pj, mac_pj, total_pj;
    double compute_s;        /* macs / peak (0 without a peak) */
    double memory_s;         /* F_D / bandwidth */
    double latency_s;        /* max(compute_s, memory_s): double buffered */
    double latency_serial_s; /* compute_s + memory_s: no double buffering */
    lf_bound bound;
} lf_group_perf;

/* The figures of group `group` whose cost `c` the model gave (lf_cost_eval). */
lf_status lf_group_perf_eval(lf_cost_model *cm, const lf_bitset *group, const lf_group_cost *c,
                             lf_group_perf *out);

/* The same for the ops `members` (n of them, any order). */
lf_status lf_group_perf_ops(lf_cost_model *cm, const int32_t *members, int32_t n,
                            const lf_group_cost *c, lf_group_perf *out);

/* An unfusable op charged `dram` bytes by the all-ops rule (weights streamed
 * per row tile: lf_cost_unfusable_dram): every streamed weight byte is staged
 * in the buffer and read from it once. */
lf_status lf_unfusable_perf(lf_cost_model *cm, int32_t v, int64_t dram, lf_group_perf *out);

/* The buffer bytes op v's activations move (its operands read, its output
 * written; 0 for a zero-copy view): lf_group_perf's sram_act per member. */
int64_t lf_energy_act_traffic(const lf_cost_model *cm, int32_t v);

/* The figures of a group (not a lone op tiled by columns) from its sums:
 * macs and act (lf_energy_act_traffic) of its members, their weight bytes
 * times the row steps (weight_steps), and its F_D. The same figures as
 * lf_group_perf_ops gives for those members: every sum is an integer. */
void lf_group_perf_from_sums(const lf_cost_model *cm, int64_t macs, int64_t act, int64_t weight_steps,
                             int64_t f_d, lf_group_perf *out);

/* Adds b's energies and latencies (not its bound) into a. */
void lf_group_perf_add(lf_group_perf *a, const lf_group_perf *b);

/* `fusionplan cost`'s energy and latency lines for a group of cost c
 * (nothing when the hardware gives neither; energy_print.c). */
void lf_group_perf_print(FILE *out, lf_cost_model *cm, const lf_bitset *group, const lf_group_cost *c);

/* "compute" or "memory". */
const char *lf_bound_name(lf_bound b);

#endif

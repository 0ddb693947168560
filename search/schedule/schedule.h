/* Inter-operator scheduling (DESIGN §12): DOS, the dynamic program over
 * downsets that splits a graph into stages whose ops run concurrently on
 * streams or merged into one kernel, and the sequential and greedy
 * baselines it is compared against.
 *
 * A schedule is a sequence of stages. A concurrent stage holds groups, each a
 * chain of ops run one after another on its own stream; a merged stage holds
 * convolutions that read the same tensor with the same stride and activation,
 * run as one convolution with zero-padded, centred kernels (IOS's merge).
 * Its latency is the sum of its stages' latencies, each from a latency
 * backend: the analytic roofline of the hardware's <gpu> section, measured
 * (the GPU unit's stage timing, search/schedule/measured.h; LF_ENOSYS when
 * none is given), or any function the caller passes. A schedule can also be
 * run end to end on the GPU and its measured latency kept beside the
 * predicted one (lf_sched_execute).
 *
 * The unit of scheduling is an op with its activation epilogue: a unary
 * activation that is the only reader of a Conv or Gemm (or of an Add) runs
 * in that op's kernel, as cuDNN and IOS run them. Graph inputs are not
 * scheduled. Everything here is deterministic and single-threaded. */
#ifndef LF_SCHEDULE_H
#define LF_SCHEDULE_H

#include <stdint.h>
#include <stdio.h>

#include "planner/graph.h"
#include "planner/status.h"

typedef enum lf_sched_strategy { LF_SCHED_CONCURRENT = 0, LF_SCHED_MERGE = 1 } lf_sched_strategy;

/* One stage as a latency backend sees it: n_groups groups, group i being the
 * units units[group_start[i] .. group_start[i+1]) in execution order; each
 * unit is the graph ops ops[op_start[u] .. op_start[u+1]) (the main op first,
 * then its epilogue). A merged stage has one unit per merged convolution and
 * one group per unit. */
typedef struct lf_sched_stage_view {
    const lf_graph *g;
    lf_sched_strategy strategy;
    int32_t n_groups;
    const int32_t *group_start; /* n_groups + 1 */
    const int32_t *op_start;    /* units + 1 */
    const int32_t *ops;         /* graph op ids */
} lf_sched_stage_view;

/* A latency backend: the stage's latency in seconds. */
typedef lf_status (*lf_sched_latency_fn)(void *ctx, const lf_sched_stage_view *stage, double *seconds);

typedef enum lf_sched_latency {
    LF_SCHED_ANALYTIC = 0, /* roofline from the hardware's <gpu> section (search/subst/cost.c) */
    LF_SCHED_MEASURED = 1, /* timed on the GPU: latency_fn must be given (LF_ENOSYS otherwise) */
    LF_SCHED_CUSTOM = 2    /* latency_fn, for tests and other cost models */
} lf_sched_latency;

typedef struct lf_sched_options {
    int32_t max_group_ops;     /* r: ops (units) per concurrent group, default 3 */
    int32_t max_groups;        /* s: groups per concurrent stage, default 8 */
    int32_t max_part_ops;      /* blocks larger than this are cut into parts scheduled one
                                  after another (IOS's max_part_size), at level boundaries
                                  (levels: longest path from the block's start); default
                                  16, at most 64 */
    int64_t max_states;        /* downsets per part before the part is halved, default 1 << 20 */
    int64_t max_endings;       /* (downset, last stage) pairs per part before it is halved,
                                  default 1 << 22 */
    int32_t greedy_streams;    /* greedy baseline: ops per wavefront stage, default 10 */
    int32_t merge;             /* 1 (default): try merged stages; 0: concurrent only */
    int32_t concurrent;        /* 1 (default): try concurrent stages of several groups;
                                  0: merged stages and single ops only */
    lf_sched_latency latency;
    const void *hw;            /* const lf_hw * (hwdesc/hw.h) for the analytic model; NULL:
                                  the roofline defaults of search/subst (a V100) */
    lf_sched_latency_fn latency_fn; /* measured and custom backends */
    void *latency_ctx;
    int32_t memo_configs;      /* 1: latency_fn prices a stage once per op configuration (its
                                  strategy, and each group's ops' planner/gpu op keys in order):
                                  a stage like one priced before gets its latency. The measured
                                  backend sets it (lf_sched_measured_options); 0 (default): every
                                  distinct stage goes to latency_fn */
} lf_sched_options;

void lf_sched_options_default(lf_sched_options *o);

/* A schedule: stages in order; stage i's groups are groups[stage_start[i] ..
 * stage_start[i+1]); group j's units are units[group_start[j] ..
 * group_start[j+1]); unit u's graph ops are ops[op_start[u] .. op_start[u+1]). */
typedef struct lf_schedule {
    int32_t n_stages;
    int32_t *stage_start;
    lf_sched_strategy *strategy; /* per stage */
    double *latency_s;           /* per stage, from the backend */
    int32_t *group_start;
    int32_t *op_start;
    int32_t *ops;
    double latency_total_s;
    /* Run end to end on the GPU (lf_sched_execute, search/schedule/measured.h):
     * per stage and in all; NULL and 0 when it was not run. */
    double *measured_s;
    double measured_total_s;
} lf_schedule;

void lf_schedule_destroy(lf_schedule *s); /* safe on a zeroed or failed schedule */

typedef struct lf_sched_stats {
    int32_t units;        /* scheduling units (ops with their epilogues) */
    int32_t blocks;       /* blocks between ops every path passes through */
    int32_t parts;        /* DP problems solved (blocks, or their parts) */
    int32_t largest_part; /* units */
    int64_t states;       /* downsets visited */
    int64_t endings;      /* (state, last stage) pairs priced */
    int64_t stage_evals;  /* distinct stages priced by the backend */
    int64_t stage_timed;  /* with memo_configs: of those, the ones latency_fn priced (the
                             others had the configuration of one priced before); else 0 */
    double search_s;      /* wall time of the DOS search */
} lf_sched_stats;

/* The three schedules of a graph. */
typedef struct lf_sched_result {
    lf_schedule sequential, greedy, dos;
    lf_sched_stats stats;
} lf_sched_result;

/* Schedules g: sequential, greedy and DOS, all priced by the options'
 * backend. On failure the result is still safe to destroy. */
lf_status lf_sched_run(const lf_graph *g, const lf_sched_options *o, lf_sched_result *r);
void lf_sched_result_destroy(lf_sched_result *r);

/* Writes {"sequential": S, "greedy": S, "dos": S, ...} where each S is
 * {"latency_ms", "stages": [{"strategy", "latency_ms", "groups": [[op names]]}]};
 * model and options are recorded beside them. A schedule that was run on the
 * GPU (measured_s set) also has "measured_ms", in all and per stage, beside
 * "latency_ms". */
lf_status lf_sched_write_json(const lf_graph *g, const char *model, const lf_sched_options *o,
                              const lf_sched_result *r, FILE *f);

/* Prices schedule s again on g (same op names; e.g. the same network at
 * another batch size) with o's backend, into *out; LF_EPLAN naming the
 * stage and op when s does not fit g (an op missing or twice, an op before
 * or beside its input, an illegal merge). */
lf_status lf_sched_evaluate(const lf_graph *g, const lf_sched_options *o, const lf_schedule *s, lf_schedule *out);

/* Reads the schedule under `key` ("sequential", "greedy" or "dos") of a
 * file written by lf_sched_write_json and prices it on g as
 * lf_sched_evaluate does. Errors name the file, stage and op. */
lf_status lf_sched_read_json(const char *path, const char *key, const lf_graph *g, const lf_sched_options *o,
                             lf_schedule *out);

const char *lf_sched_strategy_name(lf_sched_strategy s);
const char *lf_sched_latency_name(lf_sched_latency l);
/* LF_SCHED_ANALYTIC or LF_SCHED_MEASURED by name; -1 when unknown. */
int lf_sched_latency_from_name(const char *name);

#endif

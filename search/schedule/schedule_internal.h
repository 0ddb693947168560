/* Internals of the scheduler (search/schedule): scheduling units, the unit
 * DAG, stage pricing with a memo, the merge rule, block decomposition and
 * the DP. Not a public header. */
#ifndef LF_SCHEDULE_INTERNAL_H
#define LF_SCHEDULE_INTERNAL_H

#include <stdint.h>

#include "planner/util/hashmap.h"
#include "search/schedule/schedule.h"
#include "search/subst/subst.h"

/* A unit: a graph op and, when it has one, the activation run as its
 * epilogue. */
typedef struct lf__sunit {
    int32_t op;       /* main op */
    int32_t epi;      /* epilogue op or -1 */
} lf__sunit;

/* Growing arrays of a schedule (or of one stage being priced). */
typedef struct lf__sbuf {
    lf_schedule s;
    int32_t cap_stages, cap_groups, cap_units, cap_ops;
    int32_t n_groups, n_units, n_ops;
} lf__sbuf;

typedef struct lf__sched {
    const lf_graph *g;
    lf_sched_options o;
    lf_subst_coster coster;   /* roofline figures of the analytic backend */
    int32_t n;                /* units */
    lf__sunit *u;
    int32_t *unit_of;         /* graph op -> unit (its epilogue too), -1 for graph inputs */
    int32_t *pred_start, *pred; /* unit predecessors (distinct, ascending) */
    int32_t *succ_start, *succ; /* unit successors (distinct, ascending) */
    int32_t *local;           /* scratch for the DP: unit -> index in its part, -1 */
    lf__sbuf view;            /* scratch: the stage being priced */
    lf_sched_stats *stats;    /* never NULL: the caller's or own_stats */
    lf_sched_stats own_stats;
    /* o.memo_configs: latencies by stage configuration (config_memo.c) */
    lf_strmap config_memo;    /* key -> double * (seconds) */
    int memo_ready;
    char *key;                /* scratch: the key being built */
    size_t key_cap;
} lf__sched;

/* config_memo.c: the backend's latency of stage v, or that of a stage of the
 * same op configurations priced before (o.memo_configs). */
lf_status lf__config_latency(lf__sched *x, const lf_sched_stage_view *v, double *seconds);
void lf__config_memo_free(lf__sched *x);

/* units.c: builds the units and their DAG; safe to tear down after a failure. */
lf_status lf__sched_init(lf__sched *x, const lf_graph *g, const lf_sched_options *o, lf_sched_stats *stats);
void lf__sched_teardown(lf__sched *x);

/* sbuf.c: schedules built stage by stage. A stage is opened, groups are
 * opened in it and units appended to the open group. */
void lf__sbuf_init(lf__sbuf *b);
void lf__sbuf_reset(lf__sbuf *b);         /* empty, keeps the capacity */
void lf__sbuf_free(lf__sbuf *b);
lf_status lf__sbuf_stage(lf__sbuf *b, lf_sched_strategy st, double latency_s);
lf_status lf__sbuf_group(lf__sbuf *b);
lf_status lf__sbuf_unit(lf__sbuf *b, const lf__sched *x, int32_t unit);
/* Closes the arrays (the n+1-th starts) and moves the schedule into *out. */
lf_status lf__sbuf_finish(lf__sbuf *b, lf_schedule *out);
/* The view of the last stage of b (its groups, units and ops). */
void lf__sbuf_last_view(const lf__sbuf *b, const lf_graph *g, lf_sched_stage_view *v);

/* latency.c: prices a stage given as groups of units (group i: units
 * units[start[i] .. start[i+1])) through the options' backend. */
lf_status lf__stage_latency(lf__sched *x, lf_sched_strategy st, const int32_t *units,
                            const int32_t *start, int32_t n_groups, double *seconds);
/* The analytic backend (a lf_sched_latency_fn whose ctx is a const
 * lf_subst_coster *). */
lf_status lf__analytic_latency(void *ctx, const lf_sched_stage_view *v, double *seconds);

/* merge.c: whether the units can run as one merged convolution: at least
 * two; each a Conv with groups 1 and dilation 1 reading one tensor, the same
 * for all; the same stride, fused activation and epilogue, and output size;
 * every kernel centred in the largest one (its size differs from the
 * largest by an even number on each axis and its padding plus the offset
 * equals the largest padding on every side). */
int lf__merge_ok(const lf__sched *x, const int32_t *units, int32_t n);
/* Whether a unit may take part in a merge at all, and the key that units
 * merged together must share. */
int lf__merge_candidate(const lf__sched *x, int32_t unit);
uint64_t lf__merge_key(const lf__sched *x, int32_t unit);

/* blocks.c: the units every path of the unit DAG passes through (cut[u] =
 * 1), and the blocks: the maximal runs of cuts and the runs between them,
 * block b being units [start[b], start[b+1]). Returns the number of blocks;
 * start has room for n + 1 entries. */
int32_t lf__sched_blocks(const lf__sched *x, uint8_t *cut, int32_t *start);

/* dos.c: the DP on a part, the m units of list in a topological order
 * (every unit they need outside the list already run, none that needs them
 * started), appending its stages to b. Fails with LF_ELIMIT past max_states
 * or max_endings (the caller halves the part). */
lf_status lf__dos_part(lf__sched *x, const int32_t *list, int32_t m, lf__sbuf *b);

/* parts.c: DOS on a block, units [lo, hi): its units in order of their
 * level (longest path from the block's start), cut at level boundaries
 * into parts of at most max_part_ops, each part halved again while the DP
 * hits its limits. */
lf_status lf__dos_block(lf__sched *x, int32_t lo, int32_t hi, lf__sbuf *b);

/* baselines.c */
lf_status lf__sched_sequential(lf__sched *x, lf__sbuf *b);
lf_status lf__sched_greedy(lf__sched *x, lf__sbuf *b);

#endif

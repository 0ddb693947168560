/* Buffer sweeps (`fusionplan sweep-buffer`, the paper's Fig. 3): one network
 * under one scheme at a list of buffer sizes. At each size: the fusable and
 * unfusable op counts, the search's best plan, the exact optimum over all ops
 * (from one staircase, lf_curve, when it stays within its limits), the
 * layer-by-layer reference, and the share of sampled fusion groups that fit.
 * The results depend only on the graph and the configuration, never on the
 * thread count. */
#ifndef LF_BUFFER_SWEEP_H
#define LF_BUFFER_SWEEP_H

#include <stdint.h>

#include "explain/dataset.h"
#include "hwdesc/hw.h"
#include "planner/graph.h"
#include "planner/plan.h"
#include "planner/status.h"

#define LF_BUFFER_SWEEP_MAX LF_DS_MAX_BETAS

typedef struct lf_buffer_sweep_config {
    const char *search;       /* random, local or nsga2 */
    const char *proposer;     /* the tree splitter's proposer (with tree) */
    int tree;                 /* 1: the tree splitter repairs invalid groups; 0: random split */
    int64_t budget, seed, threads, k;
    int64_t samples;          /* groups sampled for the valid share; 0: none */
    int64_t exact_limit;      /* candidate sets the exact planner may visit; 0: its default */
    int do_exact;             /* compute the exact optimum at every size */
    int sample_graph;         /* 1: sample groups from the given graph (an imported model);
                               * 0: from the built-in network of that name */
    int32_t nb;
    int64_t betas[LF_BUFFER_SWEEP_MAX]; /* ascending */
    lf_hw hw;                 /* element sizes and the rest; the buffer is swept */
} lf_buffer_sweep_config;

typedef struct lf_buffer_sweep_point {
    int64_t beta;
    int32_t n_fusable, n_unfusable;
    lf_plan_metrics m;   /* the search's best plan */
    int has_exact;
    int64_t exact_all;
    int64_t layer_all;
    int has_valid;
    double valid_pct;
} lf_buffer_sweep_point;

typedef struct lf_buffer_sweep {
    const char *model, *scheme;
    int64_t sampled;     /* groups behind the valid share; -1 when not sampled */
    lf_buffer_sweep_point pts[LF_BUFFER_SWEEP_MAX];
} lf_buffer_sweep;

/* Things a caller may want to tell the user that are not errors: an exact
 * optimum left out past its limit (a warning: a column is missing), fewer
 * distinct groups than asked (information). */
typedef enum lf_buffer_sweep_notice {
    LF_BUFFER_SWEEP_NO_EXACT,
    LF_BUFFER_SWEEP_FEW_GROUPS,
} lf_buffer_sweep_notice;
typedef void (*lf_buffer_sweep_notice_fn)(void *user, lf_buffer_sweep_notice kind,
                                          const char *message);

/* Sweeps graph g (named `model`) under `scheme`, filling out (whose model
 * and scheme point at the arguments). notice may be NULL. */
lf_status lf_buffer_sweep_run(const lf_graph *g, const char *model, const char *scheme,
                              const lf_buffer_sweep_config *cfg, lf_buffer_sweep *out,
                              lf_buffer_sweep_notice_fn notice, void *user);

/* 100 * num / den, 0 when den is not positive. */
double lf_buffer_sweep_pct(int64_t num, int64_t den);

#endif

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
#include "planner/app/pipeline.h"
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

/* ---- the whole sweep: networks x schemes (buffer_sweep_set.c) ---------- */

#define LF_BUFFER_SWEEP_MAX_MODELS 32

/* The buffer sizes of cfg from what a front end offers: an explicit
 * ascending list ("128KB,512KB", at most LF_BUFFER_SWEEP_MAX), or from..to
 * doubling (NULL: 128 KB and 2048 KB; to must be from times a power of two).
 * Errors: LF_EINVAL with one line naming the option (--buffers, --from,
 * --to) at fault. */
lf_status lf_buffer_sweep_set_buffers(lf_buffer_sweep_config *cfg, const char *list,
                                      const char *from, const char *to);

/* The networks and schemes of a sweep: built-in networks by name, or one
 * ONNX file (source.onnx with its input shapes and rewrites), under one or
 * two schemes. */
typedef struct lf_buffer_sweep_set {
    lf_model_source source;  /* ONNX: the file and its options; built-in: unused */
    int32_t n_models, n_schemes;
    char *models[LF_BUFFER_SWEEP_MAX_MODELS];
    char *schemes[2];
    char model_list[1024], scheme_list[64];
    char onnx_name[256];     /* an ONNX network's name once loaded (the tables name it) */
    lf_buffer_sweep *sweeps; /* after a run: n_sweeps finished, network-major */
    int32_t n_sweeps;
} lf_buffer_sweep_set;

/* Fills set from a comma-separated list of built-in networks (ignored when
 * onnx->onnx is set; onnx may be NULL) and of schemes ("lbdf", "brr" or
 * "lbdf,brr"). Errors: LF_EINVAL with one line saying which name or list is
 * wrong. */
lf_status lf_buffer_sweep_set_init(lf_buffer_sweep_set *set, const char *models,
                                   const char *schemes, const lf_model_source *onnx);

/* A finished sweep (index i in out), with its seconds of work. */
typedef void (*lf_buffer_sweep_done_fn)(void *user, const lf_buffer_sweep *sw, int32_t i,
                                        double seconds);

/* Loads every network of set in turn and sweeps it under every scheme into
 * set->sweeps (network-major; n_sweeps counts the finished ones, also after
 * a failure). done and notice may be NULL. An ONNX network's groups are
 * sampled from its graph, and its sweeps are named by it. */
lf_status lf_buffer_sweep_set_run(lf_buffer_sweep_set *set, lf_buffer_sweep_config *cfg,
                                  lf_buffer_sweep_done_fn done, lf_buffer_sweep_notice_fn notice,
                                  void *user);
void lf_buffer_sweep_set_destroy(lf_buffer_sweep_set *set);

/* 100 * num / den, 0 when den is not positive. */
double lf_buffer_sweep_pct(int64_t num, int64_t den);

#endif

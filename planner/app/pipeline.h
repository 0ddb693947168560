/* The library pipeline (DESIGN §2, §13): a network — built-in or an ONNX
 * file — → cost model (fusability) → partition search or exact plan, with the
 * splitter repairing invalid groups → a canonical, checked plan and its
 * figures. The CLI commands are thin wrappers over it; a library user plans a
 * network in a dozen lines (examples/c/plan.c):
 *
 *   lf_pipeline_config cfg;
 *   lf_pipeline_config_default(&cfg);
 *   cfg.source.model = "mobilenet_v2";
 *   cfg.planner.search = "local";
 *   lf_pipeline p;
 *   if (lf_pipeline_run(&p, &cfg) == LF_OK)
 *       printf("%lld bytes\n", (long long)p.result.metrics.dram_fusable);
 *   lf_pipeline_close(&p);
 *
 * Nothing here prints: long runs report through cfg.planner.progress. Names
 * (searches, schemes, splits, proposers, export formats) resolve through
 * planner/app/registry.h. */
#ifndef LF_PIPELINE_H
#define LF_PIPELINE_H

#include <stdint.h>
#include <stdio.h>

#include "hwdesc/hw.h"
#include "planner/cost/cost.h"
#include "planner/exact/exact.h"
#include "planner/graph.h"
#include "planner/io/plan_export.h"
#include "planner/plan.h"
#include "search/partition/search.h"
#include "splitter/tree.h"

/* Where the network comes from: a built-in network or an ONNX file (one of
 * the two). Every front end fills this one struct, so --onnx works wherever
 * --model does. */
typedef struct lf_model_source {
    const char *model;        /* built-in network (models/registry.h); NULL: "resnet50" */
    int32_t input_size;       /* built-in: square input resolution; 0: the network's own */
    int32_t batch;            /* built-in: batch size; 0 or 1: one */
    int32_t seq_len;          /* built-in transformer: tokens; 0: the network's own */
    int32_t layers;           /* built-in transformer: blocks to build; 0: all */
    int32_t phase;            /* built-in decoder: lf_model_phase (0 prefill, 1 decode) */
    int32_t context;          /* decode: tokens in the key/value cache; 0: the default */
    const char *onnx;         /* an ONNX file instead of a built-in network */
    const char *input_shapes; /* ONNX: "NAME=DIMS" fixing free dims, several separated by ';' */
    const char *no_rewrite;   /* ONNX: normalisations to switch off, comma-separated */
} lf_model_source;

/* Checks a source without loading it: both a model and a file, built-in
 * options with a file, or a malformed input shape or rewrite name give
 * LF_EINVAL with one line saying which. */
lf_status lf_model_source_check(const lf_model_source *src);

/* Loads the network (lf_model_build or lf_onnx_import, constant-only ops
 * folded by the executor). *g is NULL after a failure. rep (may be NULL)
 * receives the ONNX importer's report (planner/io/onnx.h; NULL for a
 * built-in network). */
typedef struct lf_onnx_report lf_onnx_report;
lf_status lf_model_source_load(const lf_model_source *src, lf_graph **g, lf_onnx_report **rep);

/* The display name of a source before it is loaded: the model name, or the
 * ONNX file's path. */
const char *lf_model_source_name(const lf_model_source *src);

/* The network of a plan file at path whose model is named `model` (validate),
 * when src names none: an annotated ONNX plan (path ending in .onnx) is its
 * own network; otherwise the model must be a built-in network (LF_EINVAL
 * "PATH: model.name: 'X' is not a built-in network: give --model or --onnx").
 * A source that names a network is left as it is. */
lf_status lf_model_source_for_plan(lf_model_source *src, const char *path, const char *model);

/* How to plan a network on a cost model: start from
 * lf_planner_config_default. NULL names take the defaults; numbers are used
 * as given (the search rejects a population or budget below 1). */
typedef struct lf_planner_config {
    const char *search;      /* greedy (default), layer, random, local, nsga2, exact */
    const char *objective;   /* what exact and the searches minimise: dram (default),
                                energy or latency (planner/cost/objective.h); set on the
                                cost model by lf_plan_network */
    int64_t budget;          /* random/local/nsga2: plans proposed (default 2000) */
    uint64_t seed;           /* default 1 */
    int32_t threads;         /* 0: all cores or OMP_NUM_THREADS; results do not depend on it */
    int32_t population;      /* local top-K, NSGA-II population (default 10) */
    int32_t objectives;      /* nsga2: 1 DRAM, 3 DRAM and groups (default 3) */
    const char *split;       /* random/local/nsga2: random (default), tree or exact */
    const char *proposer;    /* tree: the edge proposer (default "all") */
    int32_t k;               /* tree: edges the proposer may return (default 3; 0: all) */
    const char *gnn_weights, *pg_weights, *rg_weights; /* NULL: the shipped ones */
    int32_t split_gap;       /* tree: price each split against the optimal one after the run */
    lf_exact_config exact;   /* exact planner limits (search exact, compare_exact); its
                                upper_bound (a known plan's figure, branch and bound)
                                applies to search exact only */
    int32_t compare_exact;   /* also compute the exact optimum (result.exact_dram) */
    int32_t trace;           /* heuristic searches: the best DRAM after every plan
                                (search_result.trace: the budget curve) */
    lf_progress_fn progress; /* NULL: no reports */
    void *progress_user;
    const char *seed_plans;  /* local/nsga2: comma list of greedy, blocks (the per-block
                                optimal plan of lf_exact_bounds_compute under `exact`'s
                                limits) seeding the initial population; NULL: none */
    int32_t guided;          /* local/nsga2: every child also takes a cost-guided edit (best
                                merge or best move by DRAM saved; search.h) */
    int32_t split_continue;  /* tree: keep splitting a valid part while that lowers its F_D
                                (splitter/tree.h cost_continue) */
    int32_t polish;          /* > 0: every planner but exact polishes its plan with exact
                                sub-solves of windows of this many ops (lf_exact_polish,
                                exact.h; part of the wall time); 0: none. With exact and
                                best_effort: the window of the upper bound's polish
                                (0: 20 ops) */
    int32_t best_effort;     /* exact: past a limit, return the best plan found (the block
                                plan, the greedy plan, or NSGA-II seeded with the better, at
                                `budget`) with its certified lower bound (lower_bound) instead
                                of failing with LF_ELIMIT; 0: fail, naming the bounds */
} lf_planner_config;

void lf_planner_config_default(lf_planner_config *c);

/* Options that do not go with the search: seed plans for a search other
 * than local or nsga2, exact limits set (exact_limits_set) where no exact
 * planner runs (not search exact, compare_exact or seed_plans), an exact
 * upper_bound without search exact, or a negative one. LF_OK, or
 * LF_EINVAL with one line naming the options (as the CLI spells them). */
lf_status lf_planner_config_check(const lf_planner_config *c, int exact_limits_set);

/* A planned network and the figures of the run. */
typedef struct lf_planned {
    lf_plan plan;             /* canonical, passes lf_plan_check */
    lf_plan_metrics metrics;
    const char *search;       /* the search that made it ("exact-best-effort": exact with
                                 best_effort stopped at a limit, the plan not proven optimal) */
    int32_t heuristic;        /* 1 for random, local, nsga2 (the search figures apply) */
    uint64_t seed;            /* heuristic searches: the seed and budget used, else 0, -1 */
    int64_t budget;
    lf_search_result search_result; /* heuristic searches: counters, Pareto front */
    lf_exact_stats exact_stats;     /* search exact: the planner's counters */
    char split_name[64];      /* heuristic searches: the splitter's name ("random",
                                 "tree-all", "exact", ...) */
    int32_t have_tree_stats;
    lf_tree_stats tree_stats; /* tree splitter (with split_gap: the gaps) */
    int64_t exact_dram;       /* the optimum's DRAM over fusable ops: search exact or
                                 compare_exact; -1 when unknown */
    int64_t exact_objective;  /* the optimum's figure over fusable ops in the cost model's
                                 objective (= exact_dram under DRAM; fJ, fs under energy,
                                 latency: planner/cost/objective.h); -1 when unknown */
    char exact_error[256];    /* compare_exact: why there is no optimum ("" when there is) */
    int64_t lower_bound;      /* search "exact-best-effort" (exact with best_effort, past a
                                 limit), or compare_exact past a limit: a certified lower bound
                                 on the optimum's figure in the objective's unit, as
                                 exact_objective (0: none); the plan's figure
                                 (metrics.objective) is an upper bound and exact_dram stays -1 */
    char bound_note[512];     /* then: where the plan comes from and how many blocks were solved;
                                 search "exact" from a stopped DP: how the optimum was proven */
    double wall_s;            /* planning only (no split-gap measurement, no comparison) */
    lf_polish_stats polish;   /* cfg.polish > 0: what the polish did */
} lf_planned;

/* Plans cm's network. `out` is overwritten (call lf_planned_destroy after,
 * also after a failure). A failed compare_exact is not an error: exact_dram
 * stays -1 and exact_error says why. Errors: LF_EINVAL for unknown names or
 * options that do not apply (a split for a non-heuristic search), or what the
 * planner, splitter or proposer reports. */
lf_status lf_plan_network(lf_cost_model *cm, const lf_planner_config *cfg, lf_planned *out);

/* The weight-residency answer (planner/residency.h) as one line, and with
 * list the kept tensors' names one a line, into f. */
typedef struct lf_residency lf_residency;
void lf_residency_print(FILE *f, const lf_residency *r, const lf_graph *g, int32_t list);
void lf_planned_destroy(lf_planned *r);

/* The whole pipeline: source, hardware, scheme and planner. */
typedef struct lf_pipeline_config {
    lf_model_source source;
    lf_hw hw;              /* default lf_hw_default (256 KB buffer) */
    const char *scheme;    /* cost model; NULL: "lbdf" */
    lf_planner_config planner;
} lf_pipeline_config;

void lf_pipeline_config_default(lf_pipeline_config *c);

typedef struct lf_pipeline {
    lf_graph *graph;
    lf_cost_model *cm;
    const char *model_name; /* the built-in name or the graph's (file) name */
    const char *onnx_source; /* the ONNX file the graph is imported from, unchanged (the
                                annotated ONNX export keeps its nodes); NULL otherwise */
    lf_planned result;
    int32_t residency;      /* 1: a decode step: saved plans carry the weight-residency answer */
} lf_pipeline;

/* Loads the network and builds the cost model (no planning): for front ends
 * that price or split groups rather than plan. `p` is overwritten; close it
 * after a failure too. */
lf_status lf_pipeline_open(lf_pipeline *p, const lf_pipeline_config *cfg);

/* lf_pipeline_open, then lf_plan_network into p->result. */
lf_status lf_pipeline_run(lf_pipeline *p, const lf_pipeline_config *cfg);

/* Writes the plan (and, with pareto set, its Pareto front) to path in format
 * (planner/app/registry.h exporters; NULL: by extension), atomically. */
lf_status lf_pipeline_save(lf_pipeline *p, const char *path, const char *format, int pareto);

void lf_pipeline_close(lf_pipeline *p);

/* ---- reports (pipeline_report.c) ----------------------------------------- */

/* One line (ending in a newline) with everything a run found: "MODEL BUFFER
 * SCHEME SEARCH: DRAM ... B fusable ops (... MB), ... B all ops; MBU ...;
 * groups, unfusable; DRAM time and energy; the search's counters and the
 * splitter's (heuristic searches), the exact planner's (search exact), the
 * gap to the optimum when known; wall". */
void lf_planned_print_summary(FILE *f, const lf_planned *r, lf_cost_model *cm, const char *model);

/* `fusionplan info`: the network (ops, parameters, MACs, hash), the
 * hardware, the scheme's fusable and unfusable ops and the layer-by-layer
 * DRAM, then (ops) one line per op with its weights, F_beta and F_D alone. */
lf_status lf_network_print_summary(FILE *f, lf_cost_model *cm, const lf_hw *hw);
lf_status lf_network_print_ops(FILE *f, lf_cost_model *cm);

/* The group table: per group its op count, first and last op, F_beta and
 * F_D in bytes, and whether it is unfusable (weights streamed) or invalid. */
lf_status lf_plan_print_groups(FILE *f, const lf_plan *p, lf_cost_model *cm);

#endif

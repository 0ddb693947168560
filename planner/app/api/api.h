/* A flat API for language bindings (the Python package, python/fusionplan):
 * opaque handles, options as one JSON object, every result as JSON text. A
 * binding needs no struct layout of the library: it passes strings and
 * pointers, and reads results with its own JSON parser (docs/library.md,
 * "Bindings"). Each call is one library pipeline call; nothing here plans
 * on its own.
 *
 * Strings returned through `char **out` are allocated here and released with
 * lf_api_free. Every function returns an lf_status and sets the one-line
 * message of lf_last_error(); nothing prints or exits. Handles may be used
 * from several threads when each thread works on its own handles; a graph
 * may be shared read-only by plans made on different threads. */
#ifndef LF_API_H
#define LF_API_H

#include <stddef.h>
#include <stdint.h>

#include "planner/graph.h"
#include "planner/status.h"
#include "search/partition/search.h"

/* Releases a string (or buffer) returned by this API; NULL is fine. */
void lf_api_free(void *p);

/* The library's version ("0.1.0"). */
const char *lf_api_version(void);

/* ---- networks -------------------------------------------------------------- */

/* Loads a network from a source object: {"model": NAME, "input_size": N,
 * "batch": N} for a built-in network, or {"onnx": PATH, "input_shape":
 * "NAME=DIMS;...", "no_rewrite": "LIST"} (lf_model_source). Free the graph
 * with lf_graph_free. */
lf_status lf_api_graph_load(const char *source_json, lf_graph **out);

/* The graph as JSON (lf_graph_write_json: `fusionplan info --json`). */
lf_status lf_api_graph_json(const lf_graph *g, char **out);

/* The graph as an ONNX file with the executor's weights for seed
 * (lf_onnx_write_graph; `fusionplan optimize -o FILE.onnx`). */
lf_status lf_api_graph_save_onnx(const lf_graph *g, const char *path, uint64_t seed);

/* The built-in networks as a JSON array of {"name", "input_size",
 * "description"} (`fusionplan models`). */
lf_status lf_api_models_json(char **out);

/* The registry's names of one kind ("search", "heuristic", "scheme",
 * "split", "proposer", "format" or "rules": lf_name_kind_parse) as a JSON
 * array, in the order help texts list them. */
lf_status lf_api_names_json(const char *kind, char **out);

/* ---- hardware ---------------------------------------------------------------- */

/* The hardware a description object names, as the "hardware" object of a
 * plan file: {"xml": PATH} loads a description (lf_hw_load) and "buffer"
 * (bytes or "256KB"), "bandwidth" (bytes/s or "25.6GB/s"), "act_bytes",
 * "weight_bytes", "dram_pj_per_byte", "peak_macs" override it; "{}" or NULL
 * is the built-in default. */
lf_status lf_api_hw_json(const char *hw_json, char **out);

/* ---- plans ----------------------------------------------------------------- */

typedef struct lf_api_plan lf_api_plan;

/* Plans g (which must outlive the plan) on the hardware hw_json with the
 * options object (every member optional; the CLI's `plan` option names with
 * '_' for '-'): scheme, search, budget, seed, threads, population,
 * objectives ("dram,groups" or "dram"), split, proposer, k, gnn_weights,
 * pg_weights, rg_weights, split_continue, split_gap, compare_exact,
 * seed_plans, guided, polish, best_effort, time_limit, max_states,
 * max_candidates, memory_limit, upper_bound (search exact: branch and bound
 * with a known plan's figure over fusable ops in the objective's unit, B, fJ
 * or fs, an integer >= 1; lf_exact_config.upper_bound). An unknown member or a value of the wrong
 * kind is LF_EINVAL naming it. progress (may be NULL) is called from the
 * planning threads as lf_plan_network calls it. Free with lf_api_plan_free,
 * also after a failure (*out is NULL then). */
lf_status lf_api_plan_run(const lf_graph *g, const char *hw_json, const char *options_json,
                          lf_progress_fn progress, void *user, lf_api_plan **out);
void lf_api_plan_free(lf_api_plan *p);

/* The plan as JSON, byte for byte the file `fusionplan plan -o PLAN.json`
 * writes (docs/plan-format.md). */
lf_status lf_api_plan_json(const lf_api_plan *p, char **out);

/* The run's figures, everything `plan` prints beside the plan:
 * {"metrics" (the plan file's, to the digit), "search", "seed", "budget",
 * "wall_s", "exact_dram" (null when unknown), "optimal", "lower_bound"
 * (null when none), "bound_note", "exact_error", "split", the exact
 * planner's "states", "candidates", "groups_priced", "pruned" (downsets its
 * upper_bound pruned), the search's "plans",
 * "invalid_groups", "splits", "cache_hits", "cache_misses", "split_s", "tree"
 * (the tree splitter's groups, rectify_rate, tree_success, gap_groups,
 * mean_gap, split_s; null without it) and "polish" (passes, windows,
 * improved, limited, dram_before, dram_after; null without)}. */
lf_status lf_api_plan_run_json(const lf_api_plan *p, char **out);

/* Writes the plan to path in format (json, dot, xml, svg, png, onnx,
 * stream or html; NULL: by the extension), atomically (lf_pipeline_save). */
lf_status lf_api_plan_save(lf_api_plan *p, const char *path, const char *format);

/* The plan in format into memory (*out, *len bytes, NUL-terminated too):
 * json, dot, xml, svg or png (these two need Graphviz), stream or html. */
lf_status lf_api_plan_render(lf_api_plan *p, const char *format, char **out, size_t *len);

/* The plan read back from its JSON and re-checked on its cost model
 * (lf_plan_validate): a JSON array of the discrepancies, one string each
 * ([] when it checks). */
lf_status lf_api_plan_validate(lf_api_plan *p, char **out);

/* A plan file (JSON, XML or annotated ONNX) checked against g (NULL: the
 * network it names, as `fusionplan validate FILE`) on its own hardware, or
 * hw_json when given: {"model", "scheme", "issues": [...]}. */
lf_status lf_api_validate_file(const char *path, const lf_graph *g, const char *hw_json, char **out);

/* ---- other verbs ------------------------------------------------------------ */

/* The text `fusionplan info` prints for g on hw_json under scheme (NULL:
 * lbdf): the summary (ops, parameters, MACs, hash, hardware, fusable and
 * unfusable ops, layer-by-layer DRAM), then with ops one line per op with
 * its weights, F_beta and F_D alone. */
lf_status lf_api_info(const lf_graph *g, const char *hw_json, const char *scheme, int ops, char **out);

/* The staircase of optimal DRAM over [min, max] (`fusionplan curve`):
 * options {"scheme", "min", "max", "time_limit", "max_states",
 * "max_candidates", "memory_limit", "threads"}; *json is the file `curve
 * --json` writes, *svg (may be NULL) its step chart. */
lf_status lf_api_curve(const lf_graph *g, const char *hw_json, const char *options_json,
                       char **json, char **svg);

/* The substitution optimizer (`fusionplan optimize`): options {"search"
 * (backtrack, enum, split, prune, dpp, sample), "objective" (time, flops,
 * bytes, kernels, dram), "scheme", "budget", "max_steps", "seed",
 * "time_limit", "threads", "dram"}; *out_graph is the optimized graph (free
 * with lf_graph_free), NULL when no rewrite applies (g is the answer then);
 * *report the JSON `optimize -o FILE.json` writes (analytic costs: no GPU
 * is measured). */
lf_status lf_api_optimize(const lf_graph *g, const char *hw_json, const char *options_json,
                          lf_graph **out_graph, char **report);

/* Inter-operator scheduling (`fusionplan schedule`, analytic latency):
 * options {"max_group_ops", "max_groups", "max_part_ops", "merge",
 * "concurrent"}; *out is the JSON `schedule --json` writes. */
lf_status lf_api_schedule(const lf_graph *g, const char *hw_json, const char *options_json, char **out);

#endif

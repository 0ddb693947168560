/* Shared pieces of the fusionplan command-line tool: option tables, strict
 * number parsing, loading the model, hardware and cost model every command
 * needs, and mapping library statuses to one error line and an exit status. */
#ifndef LF_CLI_H
#define LF_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "explain/explainer.h"
#include "splitter/proposer_named.h"
#include "hwdesc/hw.h"
#include "splitter/splitter.h"
#include "planner/cost/cost.h"
#include "planner/graph.h"
#include "planner/app/pipeline.h"
#include "planner/app/registry.h"
#include "planner/app/cli/terminal_bar.h"
#include "planner/util/clock.h"
#include "search/subst/subst.h"

/* Exit statuses: 0 success, 1 failure while working, 2 bad input or usage. */
enum { LF_EXIT_OK = 0, LF_EXIT_FAIL = 1, LF_EXIT_USAGE = 2 };

typedef struct lf_cli_opt {
    const char *name;    /* long name without dashes: "model" */
    const char *metavar; /* NULL for a flag */
    const char *help;
    const char *value;   /* parsed value ("1" for flags), NULL when absent */
} lf_cli_opt;

typedef struct lf_cli_command {
    const char *name;
    const char *summary;
    const char *usage;       /* one line after "fusionplan " */
    const char *description; /* paragraph shown by --help */
    lf_cli_opt *opts;
    int n_opts;
} lf_cli_command;

/* Parses argv (after the command name). Returns 0 on success, 1 when --help
 * was printed, or LF_EXIT_USAGE after printing one error line. */
int lf_cli_parse(lf_cli_command *cmd, int argc, char **argv);
/* lf_cli_parse for commands whose first argument may be a FILE before the
 * options (import, validate): *file is it, or NULL when argv starts with an
 * option. */
int lf_cli_parse_file(lf_cli_command *cmd, int argc, char **argv, const char **file);
void lf_cli_help(const lf_cli_command *cmd, FILE *f);
const char *lf_cli_get(const lf_cli_command *cmd, const char *name);
/* The option's value, or def when it is absent. */
const char *lf_cli_get_or(const lf_cli_command *cmd, const char *name, const char *def);

/* Prints "fusionplan: <message>" and returns the exit status for st. */
int lf_cli_fail(lf_status st);

/* Exports (export_warn.c): 1 when a plan written to path (format, or NULL
 * for the extension) is a Stream mapping; the one-line warning naming the
 * graph's op types Stream's ONNX reader rejects (nothing when none). */
int lf_cli_is_stream(const char *path, const char *format);
struct lf_pipeline;
/* One warning line per thing Stream cannot express of the plan just written. */
void lf_cli_warn_stream(struct lf_pipeline *p, const char *path, const char *format);
/* Prints a usage error for a command and returns LF_EXIT_USAGE. */
int lf_cli_usage_error(const lf_cli_command *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Checks, before any work, that every output path given (NULL entries are
 * skipped) can be written: its folder exists and is writable, it is not a
 * folder. Returns 0, or an exit status after printing the error. Commands
 * then write their outputs inside an lf_output_batch, all or none. */
int lf_cli_check_outputs(const char *const *paths, int n);

/* Strict integer parsing of an option value in [min, max]; on failure prints
 * the error and returns LF_EXIT_USAGE. */
int lf_cli_int(const lf_cli_command *cmd, const char *name, int64_t def, int64_t min, int64_t max,
               int64_t *out);
/* The same for a real number in [lo, hi] (def when absent). */
int lf_cli_double(const lf_cli_command *cmd, const char *name, double def, double lo, double hi,
                  double *out);

/* Options shared by the commands that work on a model: --model, --input-size,
 * --batch, --hw, --buffer, --scheme, --no-attention. */
#define LF_CLI_MODEL_OPTS                                                                      \
    {"model", "NAME", "built-in network (see `fusionplan models`; default resnet50)", NULL},   \
        {"input-size", "N", "square input resolution (default: the network's own)", NULL},     \
        {"batch", "N", "batch size N of every tensor (default 1)", NULL},                      \
        LF_CLI_SEQ_OPTS,                                                                       \
        {"hw", "FILE", "hardware description XML (default: built-in 256 KB accelerator)", NULL}, \
        {"buffer", "SIZE", "override the on-chip buffer size, e.g. 128KB, 1MiB", NULL},        \
        {"scheme", "NAME", "cost model: lbdf (default) or brr", NULL},                         \
        {"no-attention", NULL, "price products of two activations with both operands whole, "  \
                               "not as attention groups (the comparison of DESIGN §16)", NULL}, \
        LF_CLI_ONNX_OPTS

/* Options of the built-in transformers (models/registry.h, DESIGN §16). */
#define LF_CLI_SEQ_OPTS                                                                        \
    {"seq-len", "N", "transformers: tokens (default: the network's own)", NULL},               \
        {"layers", "N", "transformers: blocks to build (default: all)", NULL},                 \
        {"phase", "NAME", "decoders: prefill (default) or decode (one token's step)", NULL},   \
        {"context", "P", "decode: tokens in the key/value cache (default: the network's "     \
                         "default length)", NULL}

/* Reads LF_CLI_SEQ_OPTS into src (absent options leave 0); 0 or an exit status. */
typedef struct lf_model_source lf_model_source;
int lf_cli_seq_options(const lf_cli_command *cmd, lf_model_source *src);

/* Options for reading an ONNX model instead of a built-in network. */
#define LF_CLI_ONNX_OPTS                                                                       \
    {"onnx", "FILE", "ONNX model to import instead of a built-in network", NULL},              \
        {"input-shape", "NAME=DIMS", "fix an ONNX input's free dims, e.g. input=1,3,224,224 "   \
                                     "(several: separate with ';')", NULL},                     \
        {"no-rewrite", "LIST", "ONNX normalisations to switch off, comma-separated "            \
                               "(fold-constants, fold-bn, drop-identity, clip, hardswish, "    \
                               "silu, fold-pad, flatten-concat, split, reshape-flatten, "      \
                               "channel-shuffle, gather-slice, layernorm, gelu, rank-views)", NULL}

/* A name option checked against a library registry (planner/app/registry.h):
 * *out is its value or def; an unknown name is one usage error "unknown
 * --OPT 'x' (use a, b or c)". Returns 0 or LF_EXIT_USAGE. */
int lf_cli_name(const lf_cli_command *cmd, const char *opt, lf_name_kind kind, const char *def,
                const char **out);

/* A name option with a fixed list of values (NULL-terminated; the first is
 * the default): *out is its value; anything else is one usage error
 * "unknown --OPT 'x' (use a, b or c)". Returns 0 or LF_EXIT_USAGE. */
int lf_cli_choice(const lf_cli_command *cmd, const char *opt, const char *const *choices,
                  const char **out);

/* The same message for a value the caller found wrong ("unknown --OPT 'v'
 * (use a, b or c)"); returns LF_EXIT_USAGE. */
int lf_cli_unknown(const lf_cli_command *cmd, const char *opt, const char *value,
                   const char *const *choices);

/* When option `opt` is given, option `needs` (or needs_default when absent)
 * must be in the registry list `kind`, or (kind < 0) equal `value` (NULL:
 * merely be given); otherwise `message` is the usage error. */
typedef struct lf_cli_rule {
    const char *opt, *needs, *needs_default;
    int kind;
    const char *value;
    const char *message;
} lf_cli_rule;
int lf_cli_check_rules(const lf_cli_command *cmd, const lf_cli_rule *rules, int n);

/* A comma-separated list option (def when absent) split into items (up to
 * max stored; *n may exceed max, and callers report the overflow); with
 * kind >= 0 every stored item must be in that registry list ("unknown
 * search 'x' (use ...)"). Returns 0 or LF_EXIT_USAGE. */
int lf_cli_list(const lf_cli_command *cmd, const char *opt, const char *def, int kind, char *buf,
                size_t len, char **items, int max, int *n);

/* The search options, parsed from one table (search_opts.c): every command
 * that runs a search takes the same --budget (default 2000), --seed (0 ..
 * INT64_MAX/2, default 1), --threads, --population (default 10), --k
 * (default 3) and, where it repeats seeds, --seeds (default 3). */
#define LF_CLI_DEFAULT_BUDGET 2000
#define LF_CLI_SEARCH_OPTS                                                                      \
    {"budget", "N", "plans proposed by random/local/nsga2 (default 2000)", NULL},              \
        {"seed", "S", "seed of the search (default 1)", NULL},                                  \
        {"threads", "T", "threads (default: all cores or OMP_NUM_THREADS; results do not "      \
                         "depend on it)",                                                       \
         NULL},                                                                                 \
        {"population", "K", "local search top-K and NSGA-II population (default 10)", NULL},   \
        {"guided", NULL, "every local/nsga2 child also takes its best merge or move by DRAM saved", NULL}, \
        {"polish", "N", "re-plan every run of consecutive groups of at most N ops exactly "       \
                        "until nothing improves (docs/search.md; 0: off, the default; with "    \
                        "exact --best-effort: the window of its upper bound's polish, default " \
                        "20 ops at 300000 candidate sets a window, with this option 1000000)", \
         NULL}

typedef struct lf_cli_search_values {
    int64_t budget, seed, threads, population, k, seeds, polish;
    int guided;       /* --guided */
} lf_cli_search_values;

/* Parses the search options the command offers (absent ones: the defaults).
 * Returns 0 or LF_EXIT_USAGE after printing the error. */
int lf_cli_search_opts(const lf_cli_command *cmd, lf_cli_search_values *v);
/* One search option with the table's range and a default of the caller's
 * (the sweep grid's defaults come from its grid file). */
int lf_cli_search_opt(const lf_cli_command *cmd, const char *name, int64_t def, int64_t *out);
/* Copies budget, seed, threads, population, k and guided into a planner
 * config. */
void lf_cli_search_apply(const lf_cli_search_values *v, lf_planner_config *pc);

typedef struct lf_cli_session {
    const char *model_name;
    lf_graph *graph;
    lf_hw hw;
    lf_cost_model *cm;
} lf_cli_session;

/* Loads model, hardware and cost model from the shared options. Returns 0 or
 * an exit status after printing the error. */
int lf_cli_session_open(lf_cli_session *s, const lf_cli_command *cmd);
void lf_cli_session_close(lf_cli_session *s);

/* plan --from-annotations (plan_annotations.c): the plan of the annotated
 * ONNX file given with --onnx, re-checked against s's graph and cost model
 * (lf_plan_validate); fills out (search "annotations"). Returns 0 or an exit
 * status after printing the error or each discrepancy. */
int lf_cli_plan_from_annotations(const lf_cli_command *cmd, lf_cli_session *s, lf_planned *out);

/* The model source from the shared options (--model or --onnx, with
 * --input-size, --batch, --input-shape, --no-rewrite where the command has
 * them): parsed here once for every command. Returns 0 or an exit status. */
int lf_cli_model_source(const lf_cli_command *cmd, lf_model_source *src);

/* Loads a source (lf_model_source_load); a bad combination of options is a
 * usage error. rep may be NULL. Returns 0 or an exit status after printing
 * the error. */
int lf_cli_load_graph(const lf_cli_command *cmd, const lf_model_source *src, lf_graph **g,
                      lf_onnx_report **rep);

/* Commands that run several networks take a list of built-in names or one
 * --onnx FILE (LF_CLI_ONNX_OPTS) in its place: loads the list item `name`
 * (the file when --onnx is given). Returns 0 or an exit status. */
int lf_cli_load_listed(const lf_cli_command *cmd, const char *name, lf_graph **g);

/* The progress bar on standard error (a terminal only), drawn from the
 * library's progress reports: pass lf_cli_progress_report as the
 * lf_progress_fn and the lf_cli_progress as its user pointer; the bar starts
 * at the first report, lf_cli_progress_end clears it. */
typedef struct lf_cli_progress {
    lf_progress bar;
    int started;
} lf_cli_progress;
void lf_cli_progress_report(void *user, const char *stage, int64_t done, int64_t total,
                            const char *note);
void lf_cli_progress_end(lf_cli_progress *p);

/* Imports the ONNX model at path with the command's --input-shape and
 * --no-rewrite options; rep may be NULL. Returns 0 or an exit status after
 * printing the error. */
typedef struct lf_onnx_report lf_onnx_report;
int lf_cli_onnx_load(const lf_cli_command *cmd, const char *path, lf_graph **g, lf_onnx_report **rep);

/* Buffer sizes: items[0..n) parsed into out; a bad one is the usage error
 * "--OPT: <why>". Returns 0 or LF_EXIT_USAGE. */
int lf_cli_sizes(const lf_cli_command *cmd, const char *opt, char *const *items, int n,
                 int64_t *out);

/* Splits a comma-separated list in place and returns the number of items,
 * which may exceed max: only the first max are stored, and callers report
 * the overflow. */
int lf_cli_split_list(char *s, char **items, int max);

/* Resolves a list of ops: names or ids separated by commas, with id ranges
 * "3-7". Fills a bitset with graph-sized capacity. */
lf_status lf_cli_parse_ops(const lf_graph *g, const char *list, lf_bitset *out);

/* Formats bytes for tables: "1,478,656". */
void lf_cli_commas(int64_t v, char *buf, size_t len);

int lf_cmd_models(int argc, char **argv);
int lf_cmd_chart(int argc, char **argv);
int lf_cmd_info(int argc, char **argv);
int lf_cmd_cost(int argc, char **argv);
int lf_cmd_plan(int argc, char **argv);
int lf_cmd_validate(int argc, char **argv);
int lf_cmd_bench(int argc, char **argv);
int lf_cmd_bench_threads(int argc, char **argv); /* bench threads */
int lf_cmd_split(int argc, char **argv);
int lf_cmd_dataset(int argc, char **argv);
int lf_cmd_train(int argc, char **argv);
int lf_cmd_explain(int argc, char **argv);
int lf_cmd_train_explainer(int argc, char **argv);
int lf_cmd_compare(int argc, char **argv);
int lf_cmd_sweep_buffer(int argc, char **argv);
int lf_cmd_sweep_grid(int argc, char **argv);
int lf_cmd_sweep_report(int argc, char **argv);
int lf_cmd_run(int argc, char **argv);
int lf_cmd_bench_exec(int argc, char **argv);
int lf_cmd_bench_attention(int argc, char **argv);
int lf_cmd_import(int argc, char **argv);
int lf_cmd_conformance(int argc, char **argv);
int lf_cmd_curve(int argc, char **argv);
int lf_cmd_bench_exact(int argc, char **argv); /* `bench exact` */
int lf_cmd_rules(int argc, char **argv);       /* search/subst */
int lf_cmd_rules_generate(int argc, char **argv); /* `rules --generate` */
int lf_cmd_optimize(int argc, char **argv);    /* search/subst */
int lf_cmd_gso_dataset(int argc, char **argv); /* search/subst/gso */
int lf_cmd_gso_train(int argc, char **argv);   /* search/subst/gso */
int lf_cmd_bench_gso(int argc, char **argv);   /* `bench gso` */
int lf_cmd_bench_subst(int argc, char **argv); /* `bench subst` */
int lf_cmd_profile(int argc, char **argv);     /* planner/gpu: measured op times */
int lf_cmd_schedule(int argc, char **argv);    /* search/schedule */
int lf_cmd_bench_ocggs(int argc, char **argv); /* `bench ocggs` */
/* The graph (--model, default def when not NULL, or --onnx; also the
 * substitution benchmarks' alexnet, inception_e and sru) and, when hw is not NULL,
 * the hardware (--hw, --buffer, --scheme checked). Returns 0 (*g NULL when
 * neither is given and def is NULL) or an exit status after printing the error. */
int lf_cli_subst_graph(const lf_cli_command *cmd, const char *def, lf_graph **g, lf_hw *hw);

/* --filter gso|lr|none (gso_opts.c): option `opt` names the filter and
 * `weights_opt` an optional weight file (default: the shipped models). For
 * gso and lr, loads the models into *set (the caller destroys it) and points
 * *filter at it (for lf_subst_job_config.filter); for none, *filter is NULL.
 * Returns 0 or an exit status after printing the error.
 * lf_cli_gso_filtered (an lf_subst_job_filtered_fn) prints what the filter
 * kept as one line on standard output. */
typedef struct lf_gso_set lf_gso_set;
typedef struct lf_subst_job lf_subst_job;
int lf_cli_gso_filter(const lf_cli_command *cmd, const char *opt, const char *weights_opt, lf_gso_set *set,
                      const lf_gso_set **filter);
void lf_cli_gso_filtered(void *user, const lf_subst_job *job);

/* plan --optimize (plan_optimize.c): rewrites s's graph with the substitution
 * optimizer when the option is given, prints what it did and the original
 * graph's plan, and puts the optimized graph and its cost model in s. Returns
 * 0 or an exit status after printing the error. */
int lf_cli_plan_optimize(const lf_cli_command *cmd, lf_cli_session *s, const lf_planner_config *pc);

/* Measured GPU op times for a substitution coster (gpu_costs.c), with the
 * time objective: when cmd has --cache-device (and optionally --cache FILE),
 * or --cache FILE and no GPU is visible (the file's only device), c's
 * op_time hook reads that device's cached times, with the roofline
 * calibrated on g's cached ops where the cache has none (no GPU needed,
 * nothing measured; source CACHED; search/subst/cached_times.h); else with CUDA built in and a GPU visible, a
 * profiler on the hardware's <gpu> device (index 0 by default) with the
 * cache (--cache or the user's) measures what is missing (source MEASURED);
 * otherwise c stays analytic. Returns 0, or an exit status after printing
 * the error (a cache or device that --cache / --cache-device name and that
 * cannot be used; either with another objective); a GPU that cannot be
 * opened is one note on stderr, and the roofline. cmd may be NULL. note
 * says where the times come from. _end saves what was measured and frees. */
typedef struct lf_gpu_cache lf_gpu_cache;
typedef struct lf_gpu_profiler lf_gpu_profiler;
typedef struct lf_subst_coster lf_subst_coster;
typedef enum lf_cli_op_times {
    LF_CLI_OP_TIMES_ROOFLINE = 0,
    LF_CLI_OP_TIMES_MEASURED,
    LF_CLI_OP_TIMES_CACHED
} lf_cli_op_times;
typedef struct lf_subst_cached_times lf_subst_cached_times;
typedef struct lf_cli_gpu_costs {
    lf_gpu_cache *cache;
    lf_gpu_profiler *profiler;
    lf_subst_cached_times *cached;
    lf_cli_op_times source;
    char path[4096];
    char note[4800];
} lf_cli_gpu_costs;
int lf_cli_gpu_costs_begin(lf_cli_gpu_costs *m, const lf_cli_command *cmd, lf_subst_coster *c, const lf_hw *hw,
                           const lf_graph *g);
void lf_cli_gpu_costs_end(lf_cli_gpu_costs *m);
/* profile --cache-only (gpu_costs.c): the device whose cached times to show:
 * the visible GPU's, else the block --cache-device names (UUID or exact
 * name), else the cache's only one. Returns 0 with *key, or an exit status
 * after printing the error (several devices: the list to choose from). */
typedef struct lf_gpu_device_key lf_gpu_device_key;
int lf_cli_gpu_cache_device(const lf_cli_command *cmd, const lf_gpu_cache *cache, const char *path, int32_t device,
                            lf_gpu_device_key *key);

#endif

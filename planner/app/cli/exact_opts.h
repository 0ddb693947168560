/* The exact planner's limits as command-line options, shared by every
 * command that runs it (plan, and later curve and sweep-buffer). */
#ifndef LF_CLI_EXACT_OPTS_H
#define LF_CLI_EXACT_OPTS_H

#include "planner/app/cli/cli.h"
#include "planner/exact/exact.h"

#define LF_CLI_EXACT_OPTS                                                                        \
    {"time-limit", "SECONDS", "exact planner: the whole run, certified bounds and best-effort plan " \
                              "included, ends within this many seconds (the DP has three quarters, " \
                              "less when its pace shows it would need over four times that); wall " \
                              "time, so where it stops depends on the machine's load: for " \
                              "reproducible limit-stopped results give --time-limit 0 with " \
                              "--max-states / --max-candidates (default 60; 0: none)",           \
     NULL},                                                                                      \
        {"memory-limit", "SIZE", "exact planner: stop past this much memory for states and cost " \
                                 "memo, e.g. 512MB (default 4GB; 0: none); energy and latency "    \
                                 "staircases also keep prices in up to a quarter of it",          \
         NULL},                                                                                  \
        {"max-candidates", "N", "exact planner: stop after visiting N candidate sets (default "  \
                                "200000000); with --max-states the reproducible limit: the "     \
                                "same stop on any machine and load",                             \
         NULL},                                                                                  \
        {"max-states", "N", "exact planner: stop past N downsets (default 2000000; each takes "    \
                            "about 45 bytes plus two bits per op)",                              \
         NULL}

/* plan --search exact: branch and bound from a known plan's figure
 * (lf_exact_config.upper_bound; upper_bound.c). */
#define LF_CLI_UPPER_BOUND_OPTS                                                                  \
    {"upper-bound", "VALUE", "exact: branch and bound with a known plan's figure over fusable "   \
                             "ops (the certified bounds' unit: bytes, or a size as --buffer; "    \
                             "under --objective energy fJ or 1.5mJ, latency fs or 2.5ms): "      \
                             "states that cannot end at most VALUE are not expanded, the same "   \
                             "optimum is returned when it costs at most VALUE (so a plan's own "  \
                             "figure proves it optimal or finds a better one), else the run "     \
                             "fails naming the bound",                                            \
     NULL},                                                                                      \
        {"upper-bound-plan", "FILE", "exact: --upper-bound the figure of this plan file's "      \
                                     "partition, recomputed here (a JSON plan of this graph, "   \
                                     "valid at this buffer)",                                    \
         NULL}

/* The staircase's workers (curve, bench exact): cfg->threads. */
#define LF_CLI_CURVE_THREADS_OPT                                                                 \
    {"threads", "N", "workers for the staircase (default: OMP_NUM_THREADS, else the cores); "   \
                     "the same result with any number",                                          \
     NULL}

/* Sets cfg->threads from --threads (LF_CLI_CURVE_THREADS_OPT). Returns 0 or
 * LF_EXIT_USAGE after printing one error line. */
int lf_cli_curve_threads(const lf_cli_command *cmd, lf_exact_config *cfg);

/* Fills cfg from the defaults and the options above. Returns 0 or
 * LF_EXIT_USAGE after printing one error line. */
int lf_cli_exact_config(const lf_cli_command *cmd, lf_exact_config *cfg);

/* --upper-bound under the objective named (NULL: dram) into *out (0 when
 * absent). Returns 0 or LF_EXIT_USAGE after printing one error line. */
int lf_cli_upper_bound(const lf_cli_command *cmd, const char *objective, int64_t *out);

/* --upper-bound-plan: the figure of the file's plan on cm under the objective
 * named (cm's own objective is left as it was) into *out (untouched when
 * absent). Returns 0 or LF_EXIT_FAIL after printing one error line. */
int lf_cli_upper_bound_plan(const lf_cli_command *cmd, lf_cost_model *cm, const char *objective,
                            int64_t *out);

/* 1 when any of the options above was given. */
int lf_cli_exact_opts_given(const lf_cli_command *cmd);

#endif

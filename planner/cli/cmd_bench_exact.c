/* fusionplan bench exact: the exact planner's cost per network (issue 17):
 * the whole staircase from --min to --max (fusionplan curve), or the
 * single-buffer optimum at each of --buffers, with downsets, candidate sets,
 * groups priced, memory and wall time, and which limit stopped a run. A
 * benchmark: limits that fire are reported in the table, not as a failure.
 * The runs and the table are the library's (search/sweep/bench_exact.h). */
#include <stdio.h>
#include <string.h>

#include "models/registry.h"
#include "planner/app/cli/cli.h"
#include "planner/app/cli/exact_opts.h"
#include "planner/util/pool.h"
#include "planner/app/registry.h"
#include "search/sweep/bench_exact.h"

#define LF__BENCH_MAX LF_BENCH_EXACT_MAX

/* The table's rows as they come, and its totals. */
typedef struct lf__table {
    int csv, runs, finished;
    double total;
} lf__table;

static void lf__row(void *user, const lf_bench_exact_row *r)
{
    lf__table *t = user;
    t->total += r->wall;
    t->runs++;
    t->finished += r->status == LF_OK;
    lf_bench_exact_print_row(stdout, r, t->csv);
}

static int lf__list(const lf_cli_command *cmd, const char *name, const char *def, char *buf,
                    size_t len, char **items)
{
    const char *v = lf_cli_get(cmd, name);
    if (!v)
        v = def;
    if (strlen(v) >= len)
        return -lf_cli_usage_error(cmd, "--%s list too long", name);
    snprintf(buf, len, "%s", v);
    int n = lf_cli_split_list(buf, items, LF__BENCH_MAX);
    if (n < 1 || n > LF__BENCH_MAX)
        return -lf_cli_usage_error(cmd, "--%s must name 1 to %d items", name, LF__BENCH_MAX);
    return n;
}

int lf_cmd_bench_exact(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks (default: every built-in network)", NULL},
        {"schemes", "LIST", "cost models (default lbdf,brr)", NULL},
        {"min", "SIZE", "smallest buffer of the staircase (default 64KB)", NULL},
        {"max", "SIZE", "largest buffer of the staircase (default 4MB)", NULL},
        {"buffers", "LIST", "instead of the staircase: the optimum at each of these buffers", NULL},
        {"format", "FMT", "md (default) or csv", NULL},
        LF_CLI_EXACT_OPTS,
        LF_CLI_CURVE_THREADS_OPT,
    };
    lf_cli_command cmd = {"bench exact", "Benchmark the exact planner.",
                          "bench exact [--models LIST] [--schemes LIST] [--min SIZE] [--max SIZE] "
                          "[--buffers LIST] [--time-limit S] [--max-states N] [--max-candidates N] "
                          "[--memory-limit SIZE] [--threads N]",
                          "For every network and scheme, computes the whole staircase of optimal "
                          "DRAM from --min to --max\n(fusionplan curve), or with --buffers the "
                          "optimum at each buffer, and prints downsets, candidate\nsets, groups "
                          "priced, peak memory of states and cost memo, wall time and whether the "
                          "run\nfinished (optimal) or which limit stopped it. Record figures in "
                          "docs/RESULTS.md with the\ncommand, machine and load. A time limit stops "
                          "at a point that depends on the load: for\nrows that stop at the same "
                          "place on any machine, give --time-limit 0 with --max-states and\n"
                          "--max-candidates.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    static const char *const formats[] = {"md", "csv", NULL};
    const char *fmt;
    lf_bench_exact_config bc = {.min = 64 * 1024, .max = 4 * 1024 * 1024};
    if ((rc = lf_cli_choice(&cmd, "format", formats, &fmt)) || (rc = lf_cli_exact_config(&cmd, &bc.exact)) ||
        (rc = lf_cli_curve_threads(&cmd, &bc.exact)))
        return rc;
    lf__table t = {strcmp(fmt, "csv") == 0, 0, 0, 0};
    char all_models[4096], mbuf[4096], sbuf[64], bbuf[1024], *models[LF__BENCH_MAX], *schemes[LF__BENCH_MAX],
        *bufs[LF__BENCH_MAX];
    int nm = lf__list(&cmd, "models", lf_model_names(all_models, sizeof all_models), mbuf, sizeof mbuf, models);
    int ns = nm < 0 ? 0 : lf__list(&cmd, "schemes", "lbdf,brr", sbuf, sizeof sbuf, schemes);
    if (nm < 0 || ns < 0)
        return LF_EXIT_USAGE;
    for (int i = 0; i < ns; i++)
        if (!lf_name_known(LF_NAMES_SCHEME, bc.schemes[i] = schemes[i]))
            return lf_cli_usage_error(&cmd, "unknown scheme '%s' (use lbdf or brr)", schemes[i]);
    for (int i = 0; i < nm; i++)
        if (!lf_model_known(bc.models[i] = models[i]))
            return lf_cli_usage_error(&cmd, "unknown model '%s'; 'fusionplan models' lists them",
                                      models[i]);
    const char *lo = lf_cli_get(&cmd, "min"), *hi = lf_cli_get(&cmd, "max");
    if (lo && lf_hw_parse_size(lo, &bc.min) != LF_OK)
        return lf_cli_usage_error(&cmd, "--min: %s", lf_last_error());
    if (hi && lf_hw_parse_size(hi, &bc.max) != LF_OK)
        return lf_cli_usage_error(&cmd, "--max: %s", lf_last_error());
    if (bc.max <= bc.min)
        return lf_cli_usage_error(&cmd, "--max must be larger than --min");
    if (lf_cli_get(&cmd, "buffers")) {
        if (lo || hi)
            return lf_cli_usage_error(&cmd, "--buffers excludes --min and --max");
        if ((bc.n_betas = lf__list(&cmd, "buffers", "", bbuf, sizeof bbuf, bufs)) < 0)
            return LF_EXIT_USAGE;
        if ((rc = lf_cli_sizes(&cmd, "buffers", bufs, bc.n_betas, bc.betas)))
            return rc;
    }
    bc.n_models = nm;
    bc.n_schemes = ns;
    lf_bench_exact_print_header(stdout, t.csv, bc.n_betas > 0);
    lf_status st = lf_bench_exact_run(&bc, lf__row, &t);
    if (st != LF_OK)
        return lf_cli_fail(st);
    /* The staircases' workers (the single-buffer planner has none). */
    lf_bench_exact_print_total(stdout, t.csv, t.finished, t.runs, t.total,
                               bc.n_betas > 0 ? 0 : lf_pool_default_threads(bc.exact.threads));
    return LF_EXIT_OK;
}

/* fusionplan bench threads: is a search with T threads ever slower than with
 * one? Runs each search with 1 and with T threads, alone and next to a
 * CPU-bound co-runner (a child process spinning on a core, as another job on
 * a shared machine would), and prints the median wall times and their ratio.
 * Every run gets a fresh cost model, proposer and splitter, so no run warms
 * a memo for the next; 1 and T alternate so that drifting load hits both. A
 * benchmark command, not a test: it prints figures and never fails on
 * timing, but it does fail if T threads change the plan. The measurement is
 * the library's (search/sweep/bench_threads.h); this file prints the table. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "planner/app/cli/cli.h"
#include "planner/app/registry.h"
#include "search/sweep/bench_threads.h"

static void lf__row(void *user, const lf_bench_threads_row *r)
{
    const int *co_runner = user;
    char beta[32];
    lf_hw_format_size(r->beta, beta, sizeof beta);
    printf("| %s | %s | %s | %s | %s | %.3f | %.3f | %.2f | %lld | %lld |\n", r->model, beta,
           r->search, r->split, *co_runner ? "yes" : "no", r->wall_1, r->wall_t,
           r->wall_1 > 0 ? r->wall_t / r->wall_1 : 0.0, (long long)r->parallel_pct,
           (long long)r->redundant);
    fflush(stdout);
}

int lf_cmd_bench_threads(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks, each optionally NAME@BUFFER (default mobilenet_v2@128KB)", NULL},
        {"buffer", "SIZE", "buffer of the networks given without @BUFFER (default 256KB)", NULL},
        {"scheme", "NAME", "lbdf (default) or brr", NULL},
        {"searches", "LIST", "searches (default random,local,nsga2)", NULL},
        {"splits", "LIST", "random or tree-<proposer> (default random,tree-gnne,tree-pg,tree-rg)", NULL},
        {"budget", "N", "plans proposed per search (default 2000)", NULL},
        {"seed", "S", "seed (default 1)", NULL},
        {"threads", "T", "the thread count compared with one (default 2)", NULL},
        {"repeat", "R", "runs per measurement, the median is shown (default 3, at most 15)", NULL},
        {"co-runner", "WHEN", "both (default), off or on: measure alone, next to a spinning process, "
                              "or both", NULL},
    };
    lf_cli_command cmd = {"bench threads", "Is a search with T threads ever slower than with one?",
                          "bench threads [--models LIST] [--searches LIST] [--splits LIST] "
                          "[--threads T] [--repeat R] [--co-runner both|off|on]",
                          "Runs every search with every split with one and with T threads, each on "
                          "a cold cost memo, R times\n(alternating), alone and next to a CPU-bound "
                          "co-runner process, and prints the median wall\ntimes and the ratio T "
                          "threads / one thread (below 1: faster), with the share of batches the "
                          "pool ran\non several threads and the plans it recomputed for a parked "
                          "thread (last T-thread run). Fails if T threads find another\n"
                          "plan. Prints the load average before and after: record it with the "
                          "figures.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    lf_bench_threads_config bc = {0};
    int64_t seed, threads, repeat, def_beta;
    const char *when, *scheme;
    static const char *const whens[] = {"both", "off", "on", NULL};
    if ((rc = lf_cli_search_opt(&cmd, "budget", LF_CLI_DEFAULT_BUDGET, &bc.budget)) ||
        (rc = lf_cli_search_opt(&cmd, "seed", 1, &seed)) ||
        (rc = lf_cli_int(&cmd, "threads", 2, 2, 1024, &threads)) ||
        (rc = lf_cli_int(&cmd, "repeat", 3, 1, LF_BENCH_THREADS_MAX_REPEAT, &repeat)) ||
        (rc = lf_cli_choice(&cmd, "co-runner", whens, &when)))
        return rc;
    if (!lf_name_known(LF_NAMES_SCHEME, scheme = lf_cli_get_or(&cmd, "scheme", "lbdf")))
        return lf_cli_usage_error(&cmd, "unknown --scheme '%s' (use lbdf or brr)", scheme);
    if (lf_hw_parse_size(lf_cli_get_or(&cmd, "buffer", "256KB"), &def_beta) != LF_OK)
        return lf_cli_usage_error(&cmd, "--buffer: %s", lf_last_error());
    if (lf_bench_threads_lists(&bc, lf_cli_get_or(&cmd, "models", "mobilenet_v2@128KB"), def_beta,
                               lf_cli_get_or(&cmd, "searches", "random,local,nsga2"),
                               lf_cli_get_or(&cmd, "splits", "random,tree-gnne,tree-pg,tree-rg")) != LF_OK)
        return lf_cli_usage_error(&cmd, "%s", lf_last_error());
    bc.scheme = scheme;
    bc.seed = (uint64_t)seed;
    bc.threads = (int32_t)threads;
    bc.repeat = (int32_t)repeat;
    char load[64];
    lf_bench_load_average(load, sizeof load);
    printf("# bench threads: %ld cores online, load average %s before; %lld plans, seed %lld, "
           "median of %lld\n\n",
           sysconf(_SC_NPROCESSORS_ONLN), load, (long long)bc.budget, (long long)seed, (long long)repeat);
    printf("| model | buffer | search | split | co-runner | 1 thread (s) | %lld threads (s) | ratio "
           "| parallel batches (%%) | recomputed |\n"
           "|---|---|---|---|---|---|---|---|---|---|\n",
           (long long)threads);
    fflush(stdout);
    lf_status st = LF_OK;
    for (int co_runner = strcmp(when, "on") == 0; co_runner <= (strcmp(when, "off") != 0) && st == LF_OK; co_runner++) {
        int64_t co = co_runner ? lf_bench_co_runner_start() : 0;
        if (co_runner && co < 0) {
            fprintf(stderr, "fusionplan bench threads: cannot start the co-runner\n");
            return LF_EXIT_FAIL;
        }
        st = lf_bench_threads_run(&bc, lf__row, &co_runner);
        lf_bench_co_runner_stop(co);
    }
    if (st != LF_OK)
        return lf_cli_fail(st);
    lf_bench_load_average(load, sizeof load);
    printf("\n# load average %s after\n", load);
    return LF_EXIT_OK;
}

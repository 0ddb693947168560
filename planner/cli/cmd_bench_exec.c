/* fusionplan bench exec: speed of the reference executor (images per
 * second) for a list of networks and thread counts. A benchmark command: it
 * prints figures and never fails on timing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/app/cli/cli.h"
#include "planner/exec/exec_bench.h"
#include "search/sweep/bench_threads.h"

int lf_cmd_bench_exec(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks (default resnet50)", NULL},
        {"threads", "LIST", "thread counts (default 1,2)", NULL},
        {"batch", "N", "images per run (default 1)", NULL},
        {"repeat", "N", "timed runs per row, after one warm-up run (default 5)", NULL},
        {"seed", "S", "seed of inputs and weights (default 1)", NULL},
        {"co-runner", "WHEN", "off (default), on or both: measure alone, next to a process spinning "
                              "on a core, or both", NULL},
    };
    lf_cli_command cmd = {"bench", "Benchmark the reference executor.",
                          "bench exec [--models LIST] [--threads LIST] [--batch N] [--repeat N] [--co-runner off|on|both]",
                          "Runs each network with the reference executor, once to warm up and then "
                          "--repeat times,\nand prints the median and best wall time of one run and "
                          "images per second (batch / median), and the CPU time of all threads per run\n(the figure least "
                          "disturbed by other jobs on the machine). The checksum column shows the output "
                          "is the same for every thread count. Record figures in\ndocs/RESULTS.md "
                          "with the command, machine, load and threads. With --co-runner on, a child process spins on one "
                          "core meanwhile\n(another job on a shared machine): T threads should then "
                          "never be slower than one.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    int64_t batch, repeat, seed;
    const char *when;
    static const char *const whens[] = {"off", "on", "both", NULL};
    if ((rc = lf_cli_choice(&cmd, "co-runner", whens, &when)) ||
        (rc = lf_cli_int(&cmd, "batch", 1, 1, 4096, &batch)) ||
        (rc = lf_cli_int(&cmd, "repeat", 5, 1, 1000, &repeat)) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)))
        return rc;
    char models_buf[1024], threads_buf[256];
    snprintf(models_buf, sizeof models_buf, "%s",
             lf_cli_get(&cmd, "models") ? lf_cli_get(&cmd, "models") : "resnet50");
    snprintf(threads_buf, sizeof threads_buf, "%s",
             lf_cli_get(&cmd, "threads") ? lf_cli_get(&cmd, "threads") : "1,2");
    char *models[32], *threads[16];
    int nm = lf_cli_split_list(models_buf, models, 32), nt = lf_cli_split_list(threads_buf, threads, 16);
    if (nm > 32 || nt > 16 || nm < 1 || nt < 1)
        return lf_cli_usage_error(&cmd, "give 1 to 32 networks and 1 to 16 thread counts");
    int tv[16];
    for (int i = 0; i < nt; i++) {
        char *end = NULL;
        long t = strtol(threads[i], &end, 10);
        if (!end || *end || t < 1 || t > 1024)
            return lf_cli_usage_error(&cmd, "--threads: '%s' is not a thread count from 1 to 1024", threads[i]);
        tv[i] = (int)t;
    }
    /* Every network is built before the table starts, so a bad name is one
     * error line with nothing on stdout. */
    lf_graph *graphs[32] = {NULL};
    for (int m = 0; m < nm; m++) {
        lf_model_options mo = {0, (int32_t)batch};
        lf_status st = lf_model_build(models[m], &mo, &graphs[m]);
        if (st) {
            for (int k = 0; k < m; k++)
                lf_graph_free(graphs[k]);
            return lf_cli_fail(st);
        }
    }
    lf_exec_bench_write_header(stdout);
    fflush(stdout);
    lf_status st = LF_OK;
    int co_from = strcmp(when, "on") == 0, co_to = strcmp(when, "off") != 0;
    for (int co = co_from; co <= co_to && !st; co++) {
        int64_t pid = co ? lf_bench_co_runner_start() : 0;
        if (co && pid < 0) {
            st = lf_set_error(LF_EIO, "bench exec: cannot start the co-runner process");
            break;
        }
        for (int m = 0; m < nm && !st; m++)
            for (int t = 0; t < nt && !st; t++) {
                lf_exec_bench_row row;
                if (!(st = lf_exec_bench(graphs[m], batch, tv[t], repeat, (uint64_t)seed, &row))) {
                    row.co_runner = co;
                    lf_exec_bench_write_row(stdout, models[m], &row);
                    fflush(stdout);
                }
            }
        lf_bench_co_runner_stop(pid);
    }
    for (int m = 0; m < nm; m++)
        lf_graph_free(graphs[m]);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

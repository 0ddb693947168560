/* fusionplan bench exec: speed of the reference executor (images per
 * second) for a list of networks and thread counts. A benchmark command: it
 * prints figures and never fails on timing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "models/registry.h"
#include "planner/cli/cli.h"
#include "planner/exec/exec.h"

static double lf__clock(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int lf__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int lf_cmd_bench_exec(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks (default resnet50)", NULL},
        {"threads", "LIST", "thread counts (default 1,2)", NULL},
        {"batch", "N", "images per run (default 1)", NULL},
        {"repeat", "N", "timed runs per row, after one warm-up run (default 5)", NULL},
        {"seed", "S", "seed of inputs and weights (default 1)", NULL},
    };
    lf_cli_command cmd = {"bench", "Benchmark the reference executor.",
                          "bench exec [--models LIST] [--threads LIST] [--batch N] [--repeat N]",
                          "Runs each network with the reference executor, once to warm up and then "
                          "--repeat times,\nand prints the median and best wall time of one run and "
                          "images per second (batch / median), and the CPU time of all threads per run\n(the figure least "
                          "disturbed by other jobs on the machine). The checksum column shows the output "
                          "is the same for every thread count. Record figures in\ndocs/RESULTS.md "
                          "with the command, machine, load and threads.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    int64_t batch, repeat, seed;
    if ((rc = lf_cli_int(&cmd, "batch", 1, 1, 4096, &batch)) ||
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
    printf("| network | batch | threads | GMACs/run | median s/run | best s/run | images/s | CPU s/run | checksum |\n"
           "|---|---|---|---|---|---|---|---|---|\n");
    fflush(stdout);
    double *times = malloc((size_t)repeat * sizeof *times);
    lf_status st = times ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory");
    for (int m = 0; m < nm && !st; m++) {
        lf_graph *g = graphs[m];
        for (int t = 0; t < nt && !st; t++) {
            lf_exec_options eo = {(uint64_t)seed, tv[t], 0};
            lf_exec *ex = NULL;
            st = lf_exec_create(&ex, g, &eo);
            if (!st)
                st = lf_exec_run(ex); /* warm-up */
            double cpu0 = lf__clock(CLOCK_PROCESS_CPUTIME_ID);
            for (int64_t r = 0; r < repeat && !st; r++) {
                double t0 = lf__clock(CLOCK_MONOTONIC);
                st = lf_exec_run(ex);
                times[r] = lf__clock(CLOCK_MONOTONIC) - t0;
            }
            double cpu = (lf__clock(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / (double)repeat;
            if (!st) {
                qsort(times, (size_t)repeat, sizeof *times, lf__cmp_double);
                double med = repeat % 2 ? times[repeat / 2]
                                        : 0.5 * (times[repeat / 2 - 1] + times[repeat / 2]);
                uint64_t sum = 0;
                for (int32_t v = 0; v < g->n_ops; v++)
                    if (g->ops[v].is_output) {
                        lf_shape s;
                        const float *y = lf_exec_output(ex, v, &s);
                        sum ^= lf_exec_checksum(y, lf_shape_count(s));
                    }
                printf("| %s | %lld | %d | %.2f | %.3f | %.3f | %.2f | %.3f | %016llx |\n", models[m],
                       (long long)batch, tv[t], (double)lf_graph_macs(g) / 1e9, med, times[0],
                       (double)batch / med, cpu, (unsigned long long)sum);
                fflush(stdout);
            }
            lf_exec_free(ex);
        }
    }
    for (int m = 0; m < nm; m++)
        lf_graph_free(graphs[m]);
    free(times);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

/* Timing the reference executor (planner/exec/exec_bench.h). */
#include <stdlib.h>
#include <time.h>

#include "planner/exec/exec.h"
#include "planner/exec/exec_bench.h"

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

lf_status lf_exec_bench(const lf_graph *g, int64_t batch, int32_t threads, int64_t repeat, uint64_t seed,
                        lf_exec_bench_row *out)
{
    if (repeat < 1)
        return lf_set_error(LF_EINVAL, "bench exec: %lld timed runs (at least 1)", (long long)repeat);
    double *times = malloc((size_t)repeat * sizeof *times);
    if (!times)
        return lf_set_error(LF_ENOMEM, "out of memory");
    lf_exec_options eo = {seed, threads, 0};
    lf_exec *ex = NULL;
    lf_status st = lf_exec_create(&ex, g, &eo);
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
        out->threads = threads;
        out->batch = batch;
        out->gmacs = (double)lf_graph_macs(g) / 1e9;
        out->median_s = repeat % 2 ? times[repeat / 2] : 0.5 * (times[repeat / 2 - 1] + times[repeat / 2]);
        out->best_s = times[0];
        out->cpu_s = cpu;
        out->checksum = 0;
        out->co_runner = 0;
        for (int32_t v = 0; v < g->n_ops; v++)
            if (g->ops[v].is_output) {
                lf_shape s;
                const float *y = lf_exec_output(ex, v, &s);
                out->checksum ^= lf_exec_checksum(y, lf_shape_count(s));
            }
    }
    lf_exec_free(ex);
    free(times);
    return st;
}

void lf_exec_bench_write_header(FILE *f)
{
    fprintf(f, "| network | batch | threads | co-runner | GMACs/run | median s/run | best s/run | images/s | CPU s/run | checksum |\n"
               "|---|---|---|---|---|---|---|---|---|---|\n");
}

void lf_exec_bench_write_row(FILE *f, const char *name, const lf_exec_bench_row *r)
{
    fprintf(f, "| %s | %lld | %d | %s | %.2f | %.3f | %.3f | %.2f | %.3f | %016llx |\n", name, (long long)r->batch,
            (int)r->threads, r->co_runner ? "yes" : "no", r->gmacs, r->median_s, r->best_s, (double)r->batch / r->median_s, r->cpu_s,
            (unsigned long long)r->checksum);
}

/* Timing the reference executor (`fusionplan bench exec`): one network at
 * one thread count, a warm-up run and then `repeat` timed runs, with the
 * median and best wall time, the process's CPU time per run and the outputs'
 * checksum (the same for any thread count). A benchmark: it measures and
 * never fails on timing. */
#ifndef LF_EXEC_BENCH_H
#define LF_EXEC_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "planner/graph.h"
#include "planner/status.h"

typedef struct lf_exec_bench_row {
    int32_t threads;
    int64_t batch;           /* the network's batch (for images per second) */
    double gmacs;            /* multiply-accumulates per run, 1e9 */
    double median_s, best_s; /* wall time per run */
    double cpu_s;            /* process CPU time per run */
    uint64_t checksum;       /* XOR of the outputs' checksums (lf_exec_checksum) */
    int co_runner;           /* measured next to a spinning process (set by the caller) */
} lf_exec_bench_row;

/* Runs g (batch `batch`) with `threads` threads: a warm-up, then repeat
 * (>= 1) timed runs, inputs and constants drawn from seed. */
lf_status lf_exec_bench(const lf_graph *g, int64_t batch, int32_t threads, int64_t repeat, uint64_t seed,
                        lf_exec_bench_row *out);

/* The Markdown table's head, and one row for the network named name. */
void lf_exec_bench_write_header(FILE *f);
void lf_exec_bench_write_row(FILE *f, const char *name, const lf_exec_bench_row *r);

#endif

/* The GPU (planner/gpu) behind the DOS scheduler: stage latencies measured
 * as a backend, and whole schedules run end to end. Built in every
 * configuration: without CUDA the profiler cannot be created (LF_ENOSYS), so
 * nothing here runs. */
#ifndef LF_SCHEDULE_MEASURED_H
#define LF_SCHEDULE_MEASURED_H

#include <stdio.h>

#include "planner/gpu/opcost.h"
#include "planner/status.h"
#include "search/schedule/schedule.h"

/* lf_sched_latency_fn over an lf_gpu_profiler (ctx): concurrent stages only;
 * a merged stage is LF_EUNSUPPORTED. */
lf_status lf_sched_gpu_latency(void *profiler, const lf_sched_stage_view *st, double *seconds);

/* Runs schedule s of g end to end on the profiler's GPU
 * (lf_gpu_schedule_latency: stages on streams, events between them, merged
 * stages as one widened convolution; views left out) and keeps the median
 * run in s->measured_total_s and the stage times in s->measured_s. On
 * failure (LF_ENOSYS without CUDA support, LF_EUNSUPPORTED for an op the GPU
 * cannot run, LF_EIO) s keeps no measurement. */
lf_status lf_sched_execute(lf_gpu_profiler *profiler, const lf_graph *g, lf_schedule *s);

/* lf_sched_execute on the sequential, greedy and DOS schedules, in that
 * order; all three measured or none. */
lf_status lf_sched_execute_all(lf_gpu_profiler *profiler, const lf_graph *g, lf_sched_result *r);

/* Writes the measured end-to-end latency of each schedule that has one
 * next to its predicted latency and their ratio, and the measured speed-ups
 * over sequential; device names the GPU (may be NULL). */
lf_status lf_sched_write_measured(FILE *f, const lf_sched_result *r, const char *device);

/* Sets o to the measured backend on profiler (not owned), with merged
 * stages off. */
void lf_sched_measured_options(lf_sched_options *o, lf_gpu_profiler *profiler);

/* Creates a profiler on the device of o->hw's <gpu> section (index 0 when it
 * names none) into *profiler (the caller frees it) and, when o->latency is
 * LF_SCHED_MEASURED, sets o to it as above (a profiler only for
 * lf_sched_execute otherwise). Without a GPU: LF_ENOSYS or LF_ENOTFOUND,
 * *profiler NULL. */
lf_status lf_sched_measured_begin(lf_sched_options *o, lf_gpu_profiler **profiler);

#endif

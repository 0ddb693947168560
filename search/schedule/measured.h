/* Stage latencies measured on the GPU (planner/gpu) as a backend of the DOS
 * scheduler. Built in every configuration: without CUDA the profiler cannot
 * be created (LF_ENOSYS), so nothing here runs. */
#ifndef LF_SCHEDULE_MEASURED_H
#define LF_SCHEDULE_MEASURED_H

#include "planner/gpu/opcost.h"
#include "planner/status.h"
#include "search/schedule/schedule.h"

/* lf_sched_latency_fn over an lf_gpu_profiler (ctx): concurrent stages only;
 * a merged stage is LF_EUNSUPPORTED. */
lf_status lf_sched_gpu_latency(void *profiler, const lf_sched_stage_view *st, double *seconds);

/* Sets o to the measured backend on profiler (not owned), with merged
 * stages off. */
void lf_sched_measured_options(lf_sched_options *o, lf_gpu_profiler *profiler);

/* Creates a profiler on the device of o->hw's <gpu> section (index 0 when it
 * names none) into *profiler (the caller frees it) and sets o to it as
 * above. Without a GPU: LF_ENOSYS or LF_ENOTFOUND, *profiler NULL. */
lf_status lf_sched_measured_begin(lf_sched_options *o, lf_gpu_profiler **profiler);

#endif

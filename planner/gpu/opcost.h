/* Measured op costs on a CUDA GPU (DESIGN §12).
 *
 * A profiler runs one op of a graph alone on the device with cuDNN and cuBLAS,
 * on random-free constant data of the op's shapes: convolutions with the
 * algorithm cudnnFindConvolutionForwardAlgorithmEx picks, GEMM and MatMul with
 * cuBLAS, pools, activations, element-wise ops, BatchNorm and Softmax with
 * cuDNN, Concat as strided copies. Timing: LF_GPU_WARMUP launches, then
 * LF_GPU_REPEATS repeats of LF_GPU_TIMED launches between two CUDA events;
 * the op's time is the median repeat's mean. Times go to an lf_gpu_cache
 * (planner/gpu/cache.h) bound to the device, so an op configuration is
 * measured once per device, driver and library versions. Beside single ops:
 * the latency of one stage of concurrent groups on streams, and a whole
 * inter-operator schedule run end to end (search/schedule uses both).
 *
 * Without CUDA support (stub build) every profiler call returns LF_ENOSYS;
 * with it but no visible device, lf_gpu_profiler_create returns LF_ENOTFOUND
 * "no CUDA device". The op keys are plain C and available in every build. */
#ifndef LF_GPU_OPCOST_H
#define LF_GPU_OPCOST_H

#include <stddef.h>
#include <stdint.h>

#include "planner/gpu/cache.h"
#include "planner/graph.h"
#include "planner/status.h"

#define LF_GPU_WARMUP 8
#define LF_GPU_TIMED 32
#define LF_GPU_REPEATS 5

/* Stage latency protocol (lf_gpu_stage_latency): warm-up runs, then
 * repeats x runs timed, mean. */
#define LF_GPU_STAGE_WARMUP 2
#define LF_GPU_STAGE_REPEATS 6
#define LF_GPU_STAGE_RUNS 6

/* The op configuration key of op v: its type, every operand's kind and
 * shape, its output shape and the attributes that are set, e.g.
 * "Conv(t1x64x56x56,c64x64x3x3)>1x64x56x56;k3x3;s1x1;p1,1,1,1;g1;act=relu".
 * fp32 throughout. LF_EUNSUPPORTED for ops the profiler does not run (graph
 * inputs, views, types with no cuDNN/cuBLAS counterpart: see
 * lf_gpu_op_measurable), LF_ERANGE when the key would exceed cap or
 * LF_GPU_OP_KEY_MAX. */
lf_status lf_gpu_op_key(const lf_graph *g, int32_t v, char *buf, size_t cap);

/* 1 when the profiler can run op v (its type and operand layout have a cuDNN,
 * cuBLAS or copy counterpart); the others keep their analytic time. */
int lf_gpu_op_measurable(const lf_graph *g, int32_t v);

typedef struct lf_gpu_profiler lf_gpu_profiler;

/* Opens device `device` (CUDA index), binds cache (not owned; may be NULL
 * for no caching) to its key. LF_ENOSYS without CUDA support, LF_ENOTFOUND
 * "no CUDA device" when none is visible or the index is out of range. */
lf_status lf_gpu_profiler_create(lf_gpu_profiler **p, int32_t device, lf_gpu_cache *cache);
void lf_gpu_profiler_free(lf_gpu_profiler *p); /* NULL is fine */
const lf_gpu_device_key *lf_gpu_profiler_device(const lf_gpu_profiler *p);

/* The measured time of op v in seconds: from the cache when the bound device
 * has it (*cached = 1), else measured and recorded (*cached = 0). cached may
 * be NULL. Safe to call from several threads (one lock per profiler).
 * LF_EUNSUPPORTED for ops that are not measurable. */
lf_status lf_gpu_measure_op(lf_gpu_profiler *p, const lf_graph *g, int32_t v, double *seconds, int *cached);

/* The latency of one stage: n_groups groups of ops, group i being
 * ops[group_start[i] .. group_start[i + 1]) run in that order on its own CUDA
 * stream, all groups concurrently (DESIGN §12, DOS's concurrent strategy).
 * LF_GPU_STAGE_WARMUP runs, then LF_GPU_STAGE_REPEATS x LF_GPU_STAGE_RUNS
 * timed runs between events on the launching stream; *seconds is the mean
 * run. Every op must be measurable; at most 64 groups. Not cached. */
lf_status lf_gpu_stage_latency(lf_gpu_profiler *p, const lf_graph *g, const int32_t *ops,
                               const int32_t *group_start, int32_t n_groups, double *seconds);

/* A whole schedule run end to end (lf_gpu_schedule_latency): warm-up runs,
 * then timed runs, median. */
#define LF_GPU_SCHEDULE_WARMUP 3
#define LF_GPU_SCHEDULE_REPEATS 11

/* A schedule as the GPU runs it (search/schedule builds one from its
 * lf_schedule): stage i is the groups stage_start[i] .. stage_start[i + 1],
 * group j the ops ops[group_start[j] .. group_start[j + 1]) in execution
 * order. A concurrent stage runs each group on its own stream (at most 64
 * groups); a merged stage (merged[i] != 0) has one group per convolution,
 * the Conv first and then at most one element-wise activation (its
 * epilogue, the same for all), and runs them as one convolution with the
 * largest kernel and the output channels side by side, then the activation
 * once over that output. A stage or group may be empty (ops that launch no
 * kernel, e.g. views, are left out by the caller). */
typedef struct lf_gpu_schedule_desc {
    int32_t n_stages;
    const int32_t *stage_start; /* n_stages + 1, from 0 */
    const uint8_t *merged;      /* per stage; NULL: no merged stage */
    const int32_t *group_start; /* groups + 1, from 0 */
    const int32_t *ops;         /* graph op ids */
} lf_gpu_schedule_desc;

/* Runs schedule s on the device end to end: every op prepared first (its
 * own operand buffers, as lf_gpu_stage_latency), then stage after stage,
 * each group on its stream; each stream records an event when its group is
 * done and every stream of the next stage waits on all of them
 * (cudaStreamWaitEvent), so stages are ordered on the device with no host
 * synchronisation between them. LF_GPU_SCHEDULE_WARMUP runs, then
 * LF_GPU_SCHEDULE_REPEATS runs each timed with CUDA events around the whole
 * schedule; *seconds is the median run. stage_seconds (n_stages entries; may
 * be NULL) gets each stage's median time, from an event the launching
 * stream records once it has seen the stage's events (it only watches: no
 * stream waits on it); they add up to about *seconds. Every op must be
 * measurable (lf_gpu_op_measurable); LF_EINVAL for a malformed s,
 * LF_EUNSUPPORTED naming the op otherwise, LF_EIO for CUDA errors,
 * LF_ENOSYS without CUDA support. Not cached. */
lf_status lf_gpu_schedule_latency(lf_gpu_profiler *p, const lf_graph *g, const lf_gpu_schedule_desc *s,
                                  double *seconds, double *stage_seconds);

/* For lf_subst_coster's op_time hook (search/subst/subst.h): the measured
 * time of op v with `profiler` (an lf_gpu_profiler *), or -1 when the op is
 * not measurable or the measurement fails (the roofline is used then). */
double lf_gpu_op_time_hook(void *profiler, const lf_graph *g, int32_t v);

#endif

/* The measured stage latency (DESIGN §12): a concurrent stage's groups run on
 * CUDA streams through planner/gpu's lf_gpu_stage_latency (2 warm-up runs,
 * 6 x 6 timed, mean). A merged stage is one convolution that is not an op of
 * the graph, which the profiler cannot run: the measured backend refuses it,
 * so schedules under it use concurrent stages only (lf_sched_measured_options
 * switches merging off). */
#include "search/schedule/measured.h"

#include <stdlib.h>

#include "hwdesc/hw.h"

lf_status lf_sched_gpu_latency(void *profiler, const lf_sched_stage_view *st, double *seconds)
{
    if (st->strategy == LF_SCHED_MERGE)
        return lf_set_error(LF_EUNSUPPORTED, "measured stage latency: a merged convolution is not an op "
                                             "of the graph and cannot be timed alone");
    int32_t n_units = st->group_start[st->n_groups];
    int32_t n_ops = st->op_start[n_units] - st->op_start[0];
    int32_t *ops = malloc((size_t)(n_ops > 0 ? n_ops : 1) * sizeof *ops);
    int32_t *starts = malloc((size_t)(st->n_groups + 1) * sizeof *starts);
    if (!ops || !starts) {
        free(ops);
        free(starts);
        return lf_set_error(LF_ENOMEM, "out of memory");
    }
    /* Group i's ops are its units' ops in order: the profiler's layout. */
    int32_t k = 0;
    for (int32_t i = 0; i < st->n_groups; i++) {
        starts[i] = k;
        for (int32_t u = st->group_start[i]; u < st->group_start[i + 1]; u++)
            for (int32_t j = st->op_start[u]; j < st->op_start[u + 1]; j++)
                ops[k++] = st->ops[j];
    }
    starts[st->n_groups] = k;
    lf_status s = lf_gpu_stage_latency(profiler, st->g, ops, starts, st->n_groups, seconds);
    free(ops);
    free(starts);
    return s;
}

void lf_sched_measured_options(lf_sched_options *o, lf_gpu_profiler *profiler)
{
    o->latency = LF_SCHED_MEASURED;
    o->latency_fn = lf_sched_gpu_latency;
    o->latency_ctx = profiler;
    o->merge = 0;
}

lf_status lf_sched_measured_begin(lf_sched_options *o, lf_gpu_profiler **profiler)
{
    const lf_hw *hw = o->hw;
    int32_t device = hw && hw->has_gpu && hw->gpu.device_index >= 0 ? hw->gpu.device_index : 0;
    lf_status st = lf_gpu_profiler_create(profiler, device, NULL);
    if (st == LF_OK)
        lf_sched_measured_options(o, *profiler);
    return st;
}

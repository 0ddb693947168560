/* Built when CUDA or cuDNN is missing: no profiler can be opened, and every
 * call says that GPU support is not compiled in (callers fall back to the
 * analytic roofline; tests skip). The op keys and the cache are in every
 * build (opkey.c, cache.c). */
#include "planner/gpu/opcost.h"

#define LF__NO_CUDA "fusionplan was built without CUDA support (no measured GPU costs)"

lf_status lf_gpu_profiler_create(lf_gpu_profiler **p, int32_t device, lf_gpu_cache *cache)
{
    (void)device;
    (void)cache;
    *p = NULL;
    return lf_set_error(LF_ENOSYS, LF__NO_CUDA);
}

void lf_gpu_profiler_free(lf_gpu_profiler *p) { (void)p; }

const lf_gpu_device_key *lf_gpu_profiler_device(const lf_gpu_profiler *p)
{
    (void)p;
    return NULL;
}

lf_status lf_gpu_measure_op(lf_gpu_profiler *p, const lf_graph *g, int32_t v, double *seconds, int *cached)
{
    (void)p, (void)g, (void)v;
    *seconds = 0.0;
    if (cached)
        *cached = 0;
    return lf_set_error(LF_ENOSYS, LF__NO_CUDA);
}

lf_status lf_gpu_stage_latency(lf_gpu_profiler *p, const lf_graph *g, const int32_t *ops,
                               const int32_t *group_start, int32_t n_groups, double *seconds)
{
    (void)p, (void)g, (void)ops, (void)group_start, (void)n_groups;
    *seconds = 0.0;
    return lf_set_error(LF_ENOSYS, LF__NO_CUDA);
}

lf_status lf_gpu_schedule_latency(lf_gpu_profiler *p, const lf_graph *g, const lf_gpu_schedule_desc *s,
                                  double *seconds, double *stage_seconds)
{
    (void)p, (void)g;
    *seconds = 0.0;
    if (stage_seconds && s && s->n_stages > 0)
        for (int32_t i = 0; i < s->n_stages; i++)
            stage_seconds[i] = 0.0;
    return lf_set_error(LF_ENOSYS, LF__NO_CUDA);
}

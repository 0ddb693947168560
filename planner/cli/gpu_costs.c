/* Measured op costs for the substitution optimizer's time objective (DESIGN
 * §11, §12): when fusionplan is built with CUDA and a GPU is visible, the
 * coster's op_time hook measures each op configuration once with the GPU
 * profiler and keeps it in the user's cache; otherwise the roofline stays. */
#include <stdio.h>

#include "planner/cli/cli.h"
#include "planner/gpu/opcost.h"
#include "search/subst/subst.h"

int lf_cli_gpu_costs_begin(lf_cli_gpu_costs *m, lf_subst_coster *c, const lf_hw *hw)
{
    m->cache = NULL;
    m->profiler = NULL;
    m->path[0] = '\0';
    int32_t n = 0;
    if (c->objective != LF_OBJ_TIME || !lf_gpu_built() || lf_gpu_count(&n) != LF_OK || n == 0)
        return 0;
    int32_t device = hw && hw->has_gpu && hw->gpu.device_index >= 0 ? hw->gpu.device_index : 0;
    lf_status st = lf_gpu_cache_default_path(m->path, sizeof m->path);
    if (!st)
        st = lf_gpu_cache_create(&m->cache);
    if (!st)
        st = lf_gpu_cache_load(m->cache, m->path);
    if (!st)
        st = lf_gpu_profiler_create(&m->profiler, device, m->cache);
    if (st) {
        fprintf(stderr, "fusionplan: note: analytic op times (no measured GPU costs: %s)\n", lf_last_error());
        lf_cli_gpu_costs_end(m);
        return 0;
    }
    c->op_time = lf_gpu_op_time_hook;
    c->op_time_ctx = m->profiler;
    return 1;
}

void lf_cli_gpu_costs_end(lf_cli_gpu_costs *m)
{
    if (m->profiler && m->cache && lf_gpu_cache_store(m->cache, m->path) != LF_OK)
        fprintf(stderr, "fusionplan: warning: measured GPU times not saved: %s\n", lf_last_error());
    lf_gpu_profiler_free(m->profiler);
    lf_gpu_cache_free(m->cache);
    m->profiler = NULL;
    m->cache = NULL;
}

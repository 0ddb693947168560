/* Measured op costs for the substitution optimizer's time objective (DESIGN
 * §11, §12): when fusionplan is built with CUDA and a GPU is visible, the
 * coster's op_time hook measures each op configuration once with the GPU
 * profiler and keeps it in the user's cache; otherwise the roofline stays.
 * Also the device whose cached times `profile --cache-only` shows. */
#include <stdio.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/gpu/device.h"
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
    lf_status st = lf_gpu_cache_open(&m->cache, NULL, m->path, sizeof m->path);
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

/* The device whose cached times --cache-only shows: the visible GPU's, else
 * the block --cache-device names (UUID or exact name), else the only block. */
int lf_cli_gpu_cache_device(const lf_cli_command *cmd, const lf_gpu_cache *cache, const char *path, int32_t device,
                            lf_gpu_device_key *key)
{
    int32_t n = 0;
    lf_gpu_info info;
    const char *want = lf_cli_get(cmd, "cache-device");
    if (!want && lf_gpu_built() && lf_gpu_count(&n) == LF_OK && device < n && lf_gpu_query(device, &info) == LF_OK) {
        lf_gpu_device_key_of(&info, key);
        return 0;
    }
    int32_t nd = lf_gpu_cache_n_devices(cache), pick = -1;
    for (int32_t i = 0; i < nd; i++) {
        const lf_gpu_device_key *k = lf_gpu_cache_device(cache, i);
        if (!want || strcmp(k->uuid, want) == 0 || strcmp(k->name, want) == 0) {
            if (pick >= 0) {
                fprintf(stderr, "fusionplan: %s holds times of several devices%s; choose one with "
                                "--cache-device UUID:\n", path, want ? " of that name" : "");
                for (int32_t j = 0; j < nd; j++) {
                    char line[512];
                    lf_gpu_device_key_format(lf_gpu_cache_device(cache, j), line, sizeof line);
                    fprintf(stderr, "  %s\n", line);
                }
                return LF_EXIT_USAGE;
            }
            pick = i;
        }
    }
    if (pick < 0) {
        if (want)
            fprintf(stderr, "fusionplan: %s has no cached times of a device '%s'\n", path, want);
        else
            fprintf(stderr, "fusionplan: %s has no cached GPU times (run fusionplan profile on a machine "
                            "with a GPU first)\n", path);
        return LF_EXIT_FAIL;
    }
    *key = *lf_gpu_cache_device(cache, pick);
    return 0;
}

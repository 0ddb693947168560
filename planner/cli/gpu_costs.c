/* Measured op costs for the substitution optimizer's time objective (DESIGN
 * §11, §12): when fusionplan is built with CUDA and a GPU is visible, the
 * coster's op_time hook measures each op configuration once with the GPU
 * profiler and keeps it in the user's cache; with --cache-device, the times a
 * cache holds for that device, on any machine; otherwise the roofline stays.
 * Also the device whose cached times `profile --cache-only` shows. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planner/app/cli/cli.h"
#include "planner/gpu/cache.h"
#include "planner/gpu/device.h"
#include "planner/gpu/opcost.h"
#include "search/subst/cached_times.h"
#include "search/subst/subst.h"

int lf_cli_gpu_costs_begin(lf_cli_gpu_costs *m, const lf_cli_command *cmd, lf_subst_coster *c, const lf_hw *hw,
                           const lf_graph *g)
{
    m->cache = NULL;
    m->cached = NULL;
    m->profiler = NULL;
    m->path[0] = '\0';
    m->note[0] = '\0';
    m->source = LF_CLI_OP_TIMES_ROOFLINE;
    const char *file = cmd ? lf_cli_get(cmd, "cache") : NULL;
    const char *want = cmd ? lf_cli_get(cmd, "cache-device") : NULL;
    if (c->objective != LF_OBJ_TIME)
        return (file || want) ? lf_cli_usage_error(cmd, "--cache and --cache-device apply to --objective time") : 0;
    int32_t device = hw && hw->has_gpu && hw->gpu.device_index >= 0 ? hw->gpu.device_index : 0;
    int32_t n = 0;
    int gpu = lf_gpu_built() && lf_gpu_count(&n) == LF_OK && n > 0;
    lf_status st;
    /* A device's cached times, measured elsewhere: no GPU needed, nothing
     * measured (--cache alone without a GPU: the file's only device). */
    if (want || (file && !gpu)) {
        lf_gpu_device_key key;
        int rc;
        if (file && access(file, R_OK) != 0) { /* only a cache to be written may not exist yet */
            fprintf(stderr, "fusionplan: cannot read the GPU times cache %s: %s\n", file, strerror(errno));
            return LF_EXIT_FAIL;
        }
        if ((st = lf_gpu_cache_open(&m->cache, file, m->path, sizeof m->path)))
            rc = lf_cli_fail(st);
        else if (!(rc = lf_cli_gpu_cache_device(cmd, m->cache, m->path, device, &key)) &&
                 (st = lf_gpu_cache_use(m->cache, &key)))
            rc = lf_cli_fail(st);
        if (rc) {
            lf_cli_gpu_costs_end(m);
            return rc;
        }
        if (!(m->cached = malloc(sizeof *m->cached)) ||
            (st = lf_subst_cached_times_init(m->cached, m->cache, c, g))) {
            rc = lf_cli_fail(m->cached ? st : lf_set_error(LF_ENOMEM, "out of memory for cached op times"));
            lf_cli_gpu_costs_end(m);
            return rc;
        }
        char dev[512];
        lf_gpu_device_key_format(&key, dev, sizeof dev);
        int len = snprintf(m->note, sizeof m->note,
                           "cached times of %s from %s (nothing measured now); where it has none, the roofline "
                           "times the median measured/roofline ratio of the input's cached ops of that kind",
                           dev, m->path);
        static const char *const kinds[LF_SUBST_KERNEL_CLASSES] = {
            "-", "conv", "gemm", "matmul", "batchnorm", "unary", "binary", "pool", "softmax", "concat"};
        const char *sep = " (";
        for (int k = 1; k < LF_SUBST_KERNEL_CLASSES && len > 0 && (size_t)len < sizeof m->note; k++)
            if (m->cached->samples[k] > 0) {
                len += snprintf(m->note + len, sizeof m->note - (size_t)len, "%s%s %.2f", sep, kinds[k],
                                m->cached->scale[k]);
                sep = ", ";
            }
        if (*sep == ',' && len > 0 && (size_t)len < sizeof m->note)
            snprintf(m->note + len, sizeof m->note - (size_t)len, ")");
        c->op_time = lf_subst_cached_op_time;
        c->op_time_ctx = m->cached;
        m->source = LF_CLI_OP_TIMES_CACHED;
        return 0;
    }
    if (!gpu)
        return 0;
    st = lf_gpu_cache_open(&m->cache, file, m->path, sizeof m->path);
    if (!st)
        st = lf_gpu_profiler_create(&m->profiler, device, m->cache);
    if (st) {
        fprintf(stderr, "fusionplan: note: analytic op times (no measured GPU costs: %s)\n", lf_last_error());
        lf_cli_gpu_costs_end(m);
        return 0;
    }
    snprintf(m->note, sizeof m->note, "measured on the GPU where cuDNN or cuBLAS runs the op (cache %s)", m->path);
    c->op_time = lf_gpu_op_time_hook;
    c->op_time_ctx = m->profiler;
    m->source = LF_CLI_OP_TIMES_MEASURED;
    return 0;
}

void lf_cli_gpu_costs_end(lf_cli_gpu_costs *m)
{
    if (m->profiler && m->cache && lf_gpu_cache_store(m->cache, m->path) != LF_OK)
        fprintf(stderr, "fusionplan: warning: measured GPU times not saved: %s\n", lf_last_error());
    lf_gpu_profiler_free(m->profiler);
    lf_gpu_cache_free(m->cache);
    free(m->cached);
    m->profiler = NULL;
    m->cache = NULL;
    m->cached = NULL;
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

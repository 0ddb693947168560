/* fusionplan profile: measured GPU op times (DESIGN §12) next to the
 * substitution optimizer's analytic roofline for every op of a network,
 * with their ratio; fills the user's cache of measured times. --cache-only
 * prints the table from the cache alone, so it works (and is tested) on a
 * machine without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/gpu/opcost.h"
#include "planner/optable.h"
#include "search/subst/subst.h"

/* The device whose cached times --cache-only shows: the visible GPU's, else
 * the block --cache-device names (UUID or exact name), else the only block. */
static int lf__cache_only_device(const lf_cli_command *cmd, lf_gpu_cache *cache, const char *path, int32_t device,
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

typedef struct lf__totals {
    int32_t kernels, measured, fresh, failed;
    char first_failure[LF_MESSAGE_MAX];
    double measured_s, roofline_measured_s, roofline_s, mixed_s;
} lf__totals;

static lf_status lf__table(const lf_graph *g, const lf_subst_coster *c, lf_gpu_profiler *prof, lf_gpu_cache *cache,
                           int keys, lf__totals *t)
{
    memset(t, 0, sizeof *t);
    printf("%5s  %-28s %-12s %12s %12s %8s  %s\n", "id", "op", "type", "measured_us", "roofline_us", "ratio",
           keys ? "source  key" : "source");
    for (int32_t v = 0; v < g->n_ops; v++) {
        double flops, bytes, roof;
        if (!lf_subst_op_roofline(c, g, v, &flops, &bytes, &roof))
            continue;
        const lf_op *op = &g->ops[v];
        char key[LF_GPU_OP_KEY_MAX] = "-";
        double sec = -1.0;
        const char *source = "-";
        if (lf_gpu_op_measurable(g, v) && lf_gpu_op_key(g, v, key, sizeof key) == LF_OK) {
            int cached = 0;
            if (prof) {
                lf_status st = lf_gpu_measure_op(prof, g, v, &sec, &cached);
                if (st != LF_OK) { /* no kernel for this configuration, or a failed run: roofline */
                    sec = -1.0;
                    if (st != LF_EUNSUPPORTED && t->failed++ == 0)
                        lf_text_line(t->first_failure, sizeof t->first_failure, lf_last_error());
                } else {
                    source = cached ? "cache" : "new";
                }
            } else if (lf_gpu_cache_get(cache, key, &sec)) {
                source = "cache";
            }
        } else {
            snprintf(key, sizeof key, "-"); /* not measured, or a key too long to cache */
        }
        t->kernels++;
        t->roofline_s += roof;
        t->mixed_s += sec >= 0 ? sec : roof;
        char name[29];
        snprintf(name, sizeof name, "%s", op->name);
        if (sec >= 0) {
            t->measured++;
            t->fresh += strcmp(source, "new") == 0;
            t->measured_s += sec;
            t->roofline_measured_s += roof;
            printf("%5d  %-28s %-12s %12.3f %12.3f %8.2f  %s", (int)v, name, lf_op_info_of(op->type)->name,
                   sec * 1e6, roof * 1e6, sec / roof, source);
        } else {
            printf("%5d  %-28s %-12s %12s %12.3f %8s  %s", (int)v, name, lf_op_info_of(op->type)->name, "-",
                   roof * 1e6, "-", source);
        }
        if (keys)
            printf("  %s", key);
        printf("\n");
    }
    return LF_OK;
}

int lf_cmd_profile(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"model", "NAME", "built-in network (see `fusionplan models`; default resnet50)", NULL},
        {"input-size", "N", "square input resolution (default: the network's own)", NULL},
        {"batch", "N", "batch size N of every tensor (default 1)", NULL},
        {"hw", "FILE", "hardware description XML: its <gpu> section gives the roofline and the device", NULL},
        LF_CLI_ONNX_OPTS,
        {"device", "N", "CUDA device index (default: the <gpu> section's, else 0)", NULL},
        {"cache", "FILE", "cache file (default $XDG_CACHE_HOME/fusionplan/gpu-op-times.txt or "
                          "~/.cache/fusionplan/gpu-op-times.txt)", NULL},
        {"cache-only", NULL, "measure nothing: print the cached times (works without a GPU)", NULL},
        {"cache-device", "UUID", "--cache-only without a GPU: the device whose times to print (UUID or "
                                 "name; default the cache's only one)", NULL},
        {"keys", NULL, "print each op's configuration key (the cache's key)", NULL},
    };
    lf_cli_command cmd = {"profile", "Measure op times on the GPU and compare them with the roofline.",
                          "profile [--model NAME | --onnx FILE] [--hw gpu.xml] [--device N] [--cache FILE] "
                          "[--cache-only [--cache-device UUID]] [--keys]",
                          "Times every op of the network alone on the GPU with cuDNN and cuBLAS (convolutions "
                          "with the\nalgorithm cudnnFindConvolutionForwardAlgorithmEx picks; 8 warm-up runs, "
                          "then the median of 5\nrepeats of 32 timed runs) and prints it next to the analytic "
                          "roofline time of the substitution\noptimizer (max(FLOPs / peak, bytes / bandwidth) + "
                          "launch, from --hw's <gpu> section) with\ntheir ratio. Times are kept in a cache "
                          "keyed by the GPU (name, UUID, compute capability,\ndriver, CUDA and cuDNN versions) "
                          "and the op configuration, and reused only on that device;\n`fusionplan optimize` "
                          "uses them for its time objective. Needs a build with CUDA and a GPU,\nexcept "
                          "--cache-only, which prints the table from the cache alone.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    const int cache_only = lf_cli_get(&cmd, "cache-only") != NULL;
    if (lf_cli_get(&cmd, "cache-device") && !cache_only)
        return lf_cli_usage_error(&cmd, "--cache-device applies to --cache-only");
    int64_t device = 0;
    if ((rc = lf_cli_int(&cmd, "device", 0, 0, 1024, &device)))
        return rc;
    lf_graph *g = NULL;
    lf_hw hw;
    if ((rc = lf_cli_subst_graph(&cmd, "resnet50", &g, &hw)))
        return rc;
    if (!lf_cli_get(&cmd, "device") && hw.has_gpu && hw.gpu.device_index >= 0)
        device = hw.gpu.device_index;
    char path[4096];
    const char *given = lf_cli_get(&cmd, "cache");
    lf_status st = LF_OK;
    if (given)
        snprintf(path, sizeof path, "%s", given);
    else
        st = lf_gpu_cache_default_path(path, sizeof path);
    lf_gpu_cache *cache = NULL;
    lf_gpu_profiler *prof = NULL;
    if (!st)
        st = lf_gpu_cache_create(&cache);
    if (!st)
        st = lf_gpu_cache_load(cache, path);
    if (st) {
        lf_gpu_cache_free(cache);
        lf_graph_free(g);
        return lf_cli_fail(st);
    }
    lf_gpu_device_key key;
    if (cache_only) {
        if (!(rc = lf__cache_only_device(&cmd, cache, path, (int32_t)device, &key)) &&
            (st = lf_gpu_cache_use(cache, &key)))
            rc = lf_cli_fail(st);
    } else if ((st = lf_gpu_profiler_create(&prof, (int32_t)device, cache))) {
        fprintf(stderr, "fusionplan: %s (fusionplan profile --cache-only prints cached times without a GPU)\n",
                lf_last_error());
        rc = LF_EXIT_FAIL;
    } else {
        key = *lf_gpu_profiler_device(prof);
    }
    if (rc) {
        lf_gpu_cache_free(cache);
        lf_graph_free(g);
        return rc;
    }
    lf_subst_coster c;
    lf_subst_coster_init(&c, LF_OBJ_TIME, &hw, NULL);
    char dev[512];
    lf_gpu_device_key_format(&key, dev, sizeof dev);
    printf("profile %s (%d ops) on %s%s\n", lf_cli_get(&cmd, "model") ? lf_cli_get(&cmd, "model") : g->name,
           (int)lf_graph_compute_ops(g), dev, cache_only ? ", cached times only" : "");
    printf("roofline: %.4g TFLOP/s, %.4g GB/s, %.3g us per kernel (%s)\n", c.peak_flops / 1e12, c.bandwidth / 1e9,
           c.launch_s * 1e6, hw.has_gpu ? hw.name : "defaults: no <gpu> section");
    lf__totals t;
    st = lf__table(g, &c, prof, cache, lf_cli_get(&cmd, "keys") != NULL, &t);
    if (!st) {
        printf("measured %d of %d kernels: %.3f us measured, %.3f us roofline for them (ratio %.2f)\n",
               (int)t.measured, (int)t.kernels, t.measured_s * 1e6, t.roofline_measured_s * 1e6,
               t.roofline_measured_s > 0 ? t.measured_s / t.roofline_measured_s : 0.0);
        printf("network: %.3f us with measured times where there are some, %.3f us roofline\n", t.mixed_s * 1e6,
               t.roofline_s * 1e6);
        if (t.failed)
            printf("not measured: %d ops failed on the GPU and keep their roofline (first: %s)\n", (int)t.failed,
                   t.first_failure);
    }
    if (!st && prof && t.fresh > 0)
        st = lf_gpu_cache_store(cache, path);
    if (!st)
        printf("cache: %s (%d entries for this device, %d new)\n", path, (int)lf_gpu_cache_bound_entries(cache),
               (int)t.fresh);
    lf_gpu_profiler_free(prof);
    lf_gpu_cache_free(cache);
    lf_graph_free(g);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

/* fusionplan profile: measured GPU op times (DESIGN §12) next to the
 * substitution optimizer's analytic roofline for every op of a network,
 * with their ratio; fills the user's cache of measured times. --cache-only
 * prints the table from the cache alone, so it works (and is tested) on a
 * machine without a GPU. */
#include <stdio.h>

#include "planner/app/cli/cli.h"
#include "planner/gpu/opcost.h"
#include "search/subst/op_profile.h"
#include "search/subst/report.h"

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
    lf_gpu_cache *cache = NULL;
    lf_gpu_profiler *prof = NULL;
    lf_status st = lf_gpu_cache_open(&cache, lf_cli_get(&cmd, "cache"), path, sizeof path);
    lf_gpu_device_key key;
    if (st) {
        rc = lf_cli_fail(st);
    } else if (cache_only) {
        if (!(rc = lf_cli_gpu_cache_device(&cmd, cache, path, (int32_t)device, &key)) &&
            (st = lf_gpu_cache_use(cache, &key)))
            rc = lf_cli_fail(st);
    } else if ((st = lf_gpu_profiler_create(&prof, (int32_t)device, cache))) {
        fprintf(stderr, "fusionplan: %s (fusionplan profile --cache-only prints cached times without a GPU)\n",
                lf_last_error());
        rc = LF_EXIT_FAIL;
    } else {
        key = *lf_gpu_profiler_device(prof);
    }
    lf_subst_coster c;
    lf_subst_coster_init(&c, LF_OBJ_TIME, &hw, NULL);
    lf_op_profile p = {0};
    if (!rc) {
        char dev[512];
        lf_gpu_device_key_format(&key, dev, sizeof dev);
        printf("profile %s (%d ops) on %s%s\n", lf_cli_get(&cmd, "model") ? lf_cli_get(&cmd, "model") : g->name,
               (int)lf_graph_compute_ops(g), dev, cache_only ? ", cached times only" : "");
        lf_subst_roofline_write(stdout, &c);
        if (!(st = lf_op_profile_run(g, &c, prof, cache, &p)))
            lf_op_profile_write(stdout, g, &p, lf_cli_get(&cmd, "keys") != NULL);
        if (!st && prof && p.fresh > 0)
            st = lf_gpu_cache_store(cache, path);
        if (!st)
            printf("cache: %s (%d entries for this device, %d new)\n", path, (int)lf_gpu_cache_bound_entries(cache),
                   (int)p.fresh);
        rc = st ? lf_cli_fail(st) : LF_EXIT_OK;
    }
    lf_op_profile_destroy(&p);
    lf_gpu_profiler_free(prof);
    lf_gpu_cache_free(cache);
    lf_graph_free(g);
    return rc;
}

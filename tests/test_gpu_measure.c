/* Measured GPU op times (planner/gpu/opcost.h) on a real device: positive,
 * repeatable within 20%, cached under the device's own key and refused for
 * another key; a stage of concurrent groups has a positive latency. Exits 77
 * (skipped) when fusionplan is built without CUDA or no GPU is visible. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/registry.h"
#include "planner/gpu/cache.h"
#include "planner/gpu/opcost.h"
#include "testlib.h"

static const char *const lf__ops[] = {"conv1", "relu", "maxpool", "layer1.0.add", "layer2.0.downsample.0",
                                      "avgpool", "fc"};
#define LF__N_OPS (int)(sizeof lf__ops / sizeof lf__ops[0])

static void test_repeatable(lf_graph *g)
{
    lf_gpu_profiler *p = NULL; /* no cache: every call measures */
    CHECK_OK(lf_gpu_profiler_create(&p, 0, NULL));
    if (!p)
        return;
    for (int i = 0; i < LF__N_OPS; i++) {
        int32_t v = lf_graph_find(g, lf__ops[i]);
        CHECK(v >= 0 && lf_gpu_op_measurable(g, v));
        double t1 = 0, t2 = 0;
        int cached = -1;
        CHECK_OK(lf_gpu_measure_op(p, g, v, &t1, &cached));
        CHECK_OK(lf_gpu_measure_op(p, g, v, &t2, NULL));
        CHECK(cached == 0);
        CHECK(t1 > 0 && t2 > 0 && t1 < 1.0);
        double ratio = t1 > t2 ? t1 / t2 : t2 / t1;
        if (!(ratio <= 1.2))
            fprintf(stderr, "%s: %.3f us then %.3f us\n", lf__ops[i], t1 * 1e6, t2 * 1e6);
        CHECK(ratio <= 1.2);
    }
    lf_gpu_profiler_free(p);
}

static void test_cached(lf_graph *g)
{
    char path[] = "/tmp/lf_test_gpu_measure_XXXXXX";
    if (!mkdtemp(path)) {
        CHECK(0);
        return;
    }
    char file[128];
    snprintf(file, sizeof file, "%s/cache.txt", path);
    lf_gpu_cache *c = NULL;
    lf_gpu_profiler *p = NULL;
    CHECK_OK(lf_gpu_cache_create(&c));
    CHECK_OK(lf_gpu_profiler_create(&p, 0, c));
    if (!p) {
        lf_gpu_cache_free(c);
        return;
    }
    int32_t v = lf_graph_find(g, "conv1");
    double t1 = 0, t2 = 0;
    int cached = -1;
    CHECK_OK(lf_gpu_measure_op(p, g, v, &t1, &cached));
    CHECK(cached == 0);
    CHECK_OK(lf_gpu_measure_op(p, g, v, &t2, &cached));
    CHECK(cached == 1 && t2 == t1);
    lf_gpu_device_key dev = *lf_gpu_profiler_device(p);
    CHECK(strncmp(dev.uuid, "GPU-", 4) == 0 && dev.cudnn_version > 0 && dev.driver_version > 0);
    CHECK_OK(lf_gpu_cache_store(c, file));
    lf_gpu_profiler_free(p);
    lf_gpu_cache_free(c);

    char key[LF_GPU_OP_KEY_MAX];
    CHECK_OK(lf_gpu_op_key(g, v, key, sizeof key));
    CHECK_OK(lf_gpu_cache_create(&c));
    CHECK_OK(lf_gpu_cache_load(c, file));
    CHECK_OK(lf_gpu_cache_use(c, &dev));
    double s = 0;
    CHECK(lf_gpu_cache_get(c, key, &s) && fabs(s - t1) <= 1e-8 * t1);
    dev.driver_version++; /* the same GPU under another driver: refused */
    CHECK_OK(lf_gpu_cache_use(c, &dev));
    CHECK(!lf_gpu_cache_get(c, key, &s));
    lf_gpu_cache_free(c);
    remove(file);
    rmdir(path);
}

static void test_stage(lf_graph *g)
{
    lf_gpu_profiler *p = NULL;
    CHECK_OK(lf_gpu_profiler_create(&p, 0, NULL));
    if (!p)
        return;
    /* two chains of the first residual block's branches, run concurrently */
    int32_t ops[3] = {lf_graph_find(g, "layer2.0.conv1"), lf_graph_find(g, "layer2.0.relu"),
                      lf_graph_find(g, "layer2.0.downsample.0")};
    int32_t start[3] = {0, 2, 3};
    double both = 0, first = 0;
    CHECK_OK(lf_gpu_stage_latency(p, g, ops, start, 2, &both));
    CHECK_OK(lf_gpu_stage_latency(p, g, ops, start, 1, &first));
    CHECK(both > 0 && first > 0 && both < 1.0);
    CHECK_EQ_I64(lf_gpu_stage_latency(p, g, ops, start, 0, &both), LF_EINVAL);
    int32_t view[1] = {0}, one[2] = {0, 1};
    CHECK_EQ_I64(lf_gpu_stage_latency(p, g, view, one, 1, &both), LF_EUNSUPPORTED);
    lf_gpu_profiler_free(p);
}

int main(void)
{
    int32_t n = 0;
    if (!lf_gpu_built() || lf_gpu_count(&n) != LF_OK || n == 0) {
        printf("skipped: %s\n", lf_gpu_built() ? "no CUDA device visible" : "built without CUDA");
        return 77;
    }
    lf_graph *g = NULL;
    lf_model_options opt = {0, 0};
    CHECK_OK(lf_model_build("resnet18", &opt, &g));
    if (!g)
        return lf_test_result();
    test_repeatable(g);
    test_cached(g);
    test_stage(g);
    lf_graph_free(g);
    return lf_test_result();
}

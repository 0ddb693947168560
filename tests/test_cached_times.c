/* Cached op times with a calibrated roofline (search/subst/cached_times.h),
 * no GPU needed: on ResNet-18 with a hand-written cache of three conv
 * configurations, one ReLU and nothing else, cached configurations give
 * their times, the conv scale is the median measured/roofline ratio over the
 * network's ops with a cached configuration, a conv the cache
 * lacks costs its roofline times that scale, a class without samples keeps
 * the bare roofline, and a view is left to the coster (-1). The coster then
 * prices the graph with those times. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/gpu/cache.h"
#include "planner/gpu/opcost.h"
#include "search/subst/cached_times.h"
#include "testlib.h"

static double roofline(const lf_subst_coster *c, const lf_graph *g, int32_t v)
{
    double f = 0, b = 0, t = 0;
    CHECK(lf_subst_op_roofline(c, g, v, &f, &b, &t));
    return t;
}

static int close_to(double a, double b) { return fabs(a - b) <= 1e-12 + 1e-9 * fabs(b); }

int main(void)
{
    lf_graph *g = NULL;
    lf_model_options mo = {0, 1};
    CHECK_OK(lf_model_build("resnet18", &mo, &g));
    if (!g)
        return lf_test_result();
    lf_hw hw;
    lf_hw_default(&hw);
    lf_subst_coster c;
    lf_subst_coster_init(&c, LF_OBJ_TIME, &hw, NULL);
    /* Three convs of different configurations measured at 2x, 4x and 9x
     * their roofline (median 4), the first ReLU at 1.5x. */
    const char *names[4] = {"conv1", "layer1.0.conv1", "layer2.0.conv1", "relu"};
    const double factor[4] = {2.0, 4.0, 9.0, 1.5};
    char text[16384];
    int len = snprintf(text, sizeof text, "fusionplan-gpu-cache 1\ndevice\tTest GPU\tGPU-test\t9.0\t13000\t13000\t91900\n");
    int32_t ids[4];
    for (int i = 0; i < 4; i++) {
        ids[i] = lf_graph_find(g, names[i]);
        CHECK(ids[i] >= 0);
        char key[LF_GPU_OP_KEY_MAX];
        CHECK_OK(lf_gpu_op_key(g, ids[i], key, sizeof key));
        len += snprintf(text + len, sizeof text - (size_t)len, "op\t%s\t%.17g\n", key,
                        factor[i] * roofline(&c, g, ids[i]));
    }
    lf_gpu_cache *cache = NULL;
    CHECK_OK(lf_gpu_cache_create(&cache));
    CHECK_OK(lf_gpu_cache_load_text(cache, text, (size_t)len, "test"));
    CHECK_EQ_I64(lf_gpu_cache_n_devices(cache), 1);
    CHECK_OK(lf_gpu_cache_use(cache, lf_gpu_cache_device(cache, 0)));

    lf_subst_cached_times t;
    CHECK_OK(lf_subst_cached_times_init(&t, cache, &c, g));
    /* Every op whose configuration is cached is a sample (ResNet-18 repeats
     * its convs: layer1's four 3x3 convs share layer1.0.conv1's key, and so
     * on), so the median runs over the network's ops, not the cache's keys. */
    int32_t per_factor[4] = {0, 0, 0, 0};
    for (int32_t v = 0; v < g->n_ops; v++) {
        char key[LF_GPU_OP_KEY_MAX], ref[LF_GPU_OP_KEY_MAX];
        if (!lf_gpu_op_measurable(g, v) || lf_gpu_op_key(g, v, key, sizeof key) != LF_OK)
            continue;
        for (int i = 0; i < 4; i++)
            if (lf_gpu_op_key(g, ids[i], ref, sizeof ref) == LF_OK && strcmp(key, ref) == 0)
                per_factor[i]++;
    }
    /* conv1 once (2x), layer1's 3x3 convs (4x), layer2.0.conv1 once (9x). */
    CHECK_EQ_I64(per_factor[0], 1);
    CHECK_EQ_I64(per_factor[2], 1);
    CHECK(per_factor[1] >= 3);
    CHECK_EQ_I64(t.samples[LF_GPU_CONV], per_factor[0] + per_factor[1] + per_factor[2]);
    CHECK(close_to(t.scale[LF_GPU_CONV], 4.0)); /* 2, 4, 4, 4, (4,) 9: the median is 4 */
    CHECK_EQ_I64(t.samples[LF_GPU_UNARY], per_factor[3]);
    CHECK(close_to(t.scale[LF_GPU_UNARY], 1.5));
    CHECK_EQ_I64(t.samples[LF_GPU_BINARY], 0);
    CHECK(close_to(t.scale[LF_GPU_BINARY], 1.0));

    for (int i = 0; i < 4; i++) /* cached: the cache's time */
        CHECK(close_to(lf_subst_cached_op_time(&t, g, ids[i]), factor[i] * roofline(&c, g, ids[i])));
    int32_t other_conv = lf_graph_find(g, "layer4.1.conv2"), add = lf_graph_find(g, "layer1.0.add");
    int32_t flatten = lf_graph_find(g, "flatten");
    CHECK(other_conv >= 0 && add >= 0 && flatten >= 0);
    CHECK(close_to(lf_subst_cached_op_time(&t, g, other_conv), 4.0 * roofline(&c, g, other_conv)));
    CHECK(close_to(lf_subst_cached_op_time(&t, g, add), roofline(&c, g, add)));
    CHECK(lf_subst_cached_op_time(&t, g, flatten) < 0);

    /* The coster with the hook: the graph's time is the sum of those. */
    lf_subst_costs plain, hooked;
    CHECK_OK(lf_subst_cost(&c, g, 0, &plain));
    c.op_time = lf_subst_cached_op_time;
    c.op_time_ctx = &t;
    CHECK_OK(lf_subst_cost(&c, g, 0, &hooked));
    double expect = 0.0;
    for (int32_t v = 0; v < g->n_ops; v++) {
        double f = 0, b = 0, r = 0;
        if (!lf_subst_op_roofline(&t.roofline, g, v, &f, &b, &r))
            continue;
        double m = lf_subst_cached_op_time(&t, g, v);
        expect += m >= 0 ? m : r;
    }
    CHECK(close_to(hooked.time_s, expect));
    CHECK(hooked.time_s > plain.time_s); /* convs priced 2-9x their roofline */
    lf_gpu_cache_free(cache);
    lf_graph_free(g);
    return lf_test_result();
}

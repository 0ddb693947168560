/* planner/gpu without a GPU: the measured-time cache (round trip, refusal of
 * another device's times, malformed files, atomic store), op configuration
 * keys, the default cache path, the substitution coster's measured-time hook,
 * and what the profiler answers when there is no device. The measurements
 * themselves are in test_gpu_measure (skipped without a GPU). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "models/registry.h"
#include "planner/gpu/cache.h"
#include "planner/gpu/opcost.h"
#include "search/subst/op_profile.h"
#include "search/subst/subst.h"
#include "testlib.h"

static char lf_tmp[256];

static lf_gpu_device_key lf__dev(const char *name, const char *uuid, int32_t cudnn)
{
    lf_gpu_device_key k;
    memset(&k, 0, sizeof k);
    snprintf(k.name, sizeof k.name, "%s", name);
    snprintf(k.uuid, sizeof k.uuid, "%s", uuid);
    k.cc_major = 9, k.cc_minor = 0, k.driver_version = 13000, k.runtime_version = 13000, k.cudnn_version = cudnn;
    return k;
}

static char *lf__slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void test_device_key(void)
{
    lf_gpu_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.name, sizeof info.name, "Tab\tGPU\n");
    snprintf(info.uuid, sizeof info.uuid, "GPU-12 34");
    info.cc_major = 8, info.cc_minor = 6, info.driver_version = 12040, info.runtime_version = 12030;
    info.cudnn_version = 90100;
    lf_gpu_device_key k, k2;
    lf_gpu_device_key_of(&info, &k);
    CHECK_STR(k.name, "Tab?GPU?");
    CHECK_STR(k.uuid, "GPU-12?34");
    char line[512];
    lf_gpu_device_key_format(&k, line, sizeof line);
    CHECK_STR(line, "Tab?GPU? (GPU-12?34, cc 8.6, driver 12040, CUDA 12030, cuDNN 90100)");
    k2 = k;
    CHECK(lf_gpu_device_key_equal(&k, &k2));
    k2.driver_version++;
    CHECK(!lf_gpu_device_key_equal(&k, &k2));
}

/* Three fabricated times on device A: the file's exact text, then read back. */
static void test_round_trip(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/new/folder/gpu-op-times.txt", lf_tmp);
    lf_gpu_device_key a = lf__dev("NVIDIA H100 80GB HBM3", "GPU-aaaa", 91900);
    lf_gpu_cache *c = NULL;
    CHECK_OK(lf_gpu_cache_create(&c));
    CHECK_OK(lf_gpu_cache_load(c, path)); /* missing: empty */
    CHECK_EQ_I64(lf_gpu_cache_n_devices(c), 0);
    CHECK_EQ_I64(lf_gpu_cache_bound_entries(c), -1);
    double s = 0;
    CHECK(!lf_gpu_cache_get(c, "Relu(t1x8x4x4)>1x8x4x4", &s));
    CHECK_EQ_I64(lf_gpu_cache_put(c, "Relu(t1x8x4x4)>1x8x4x4", 1e-6), LF_EINVAL); /* no device bound */
    CHECK_OK(lf_gpu_cache_use(c, &a));
    CHECK_OK(lf_gpu_cache_put(c, "Relu(t1x8x4x4)>1x8x4x4", 2.5e-06));
    CHECK_OK(lf_gpu_cache_put(c, "Conv(t1x3x8x8,c4x3x3x3)>1x4x8x8;k3x3;p1,1,1,1", 1.25e-05));
    CHECK_OK(lf_gpu_cache_put(c, "Add(t1x8x4x4,t1x8x4x4)>1x8x4x4", 3e-06));
    CHECK_OK(lf_gpu_cache_put(c, "Add(t1x8x4x4,t1x8x4x4)>1x8x4x4", 3.5e-06)); /* replaces */
    CHECK_EQ_I64(lf_gpu_cache_bound_entries(c), 3);
    CHECK_EQ_I64(lf_gpu_cache_put(c, "has space", 1e-6), LF_EINVAL);
    CHECK_EQ_I64(lf_gpu_cache_put(c, "k", 0.0), LF_EINVAL);
    CHECK_EQ_I64(lf_gpu_cache_put(c, "k", 1e9), LF_EINVAL);
    CHECK_OK(lf_gpu_cache_store(c, path)); /* creates new/folder */
    lf_gpu_cache_free(c);
    const char *want = "fusionplan-gpu-cache 1\n"
                       "# measured GPU op times (fusionplan profile); seconds, median of 5 x 32 runs; one block per device\n"
                       "device\tNVIDIA H100 80GB HBM3\tGPU-aaaa\t9.0\t13000\t13000\t91900\n"
                       "op\tAdd(t1x8x4x4,t1x8x4x4)>1x8x4x4\t3.5e-06\n"
                       "op\tConv(t1x3x8x8,c4x3x3x3)>1x4x8x8;k3x3;p1,1,1,1\t1.25e-05\n"
                       "op\tRelu(t1x8x4x4)>1x8x4x4\t2.5e-06\n";
    const char *got = lf__slurp(path);
    CHECK_STR(got, want);
    /* no temporary left beside it */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/new/folder", lf_tmp);
    DIR *d = opendir(dir);
    int files = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        files += e->d_name[0] != '.';
    if (d)
        closedir(d);
    CHECK_EQ_I64(files, 1);

    CHECK_OK(lf_gpu_cache_create(&c));
    CHECK_OK(lf_gpu_cache_load(c, path));
    CHECK_EQ_I64(lf_gpu_cache_n_devices(c), 1);
    CHECK_EQ_I64(lf_gpu_cache_n_entries(c, 0), 3);
    CHECK(lf_gpu_device_key_equal(lf_gpu_cache_device(c, 0), &a));
    CHECK_OK(lf_gpu_cache_use(c, &a));
    CHECK(lf_gpu_cache_get(c, "Conv(t1x3x8x8,c4x3x3x3)>1x4x8x8;k3x3;p1,1,1,1", &s) && s == 1.25e-05);
    CHECK(lf_gpu_cache_get(c, "Add(t1x8x4x4,t1x8x4x4)>1x8x4x4", &s) && s == 3.5e-06);
    CHECK(lf_gpu_cache_get(c, "Relu(t1x8x4x4)>1x8x4x4", &s) && s == 2.5e-06);
    CHECK(!lf_gpu_cache_get(c, "Relu(t1x8x4x5)>1x8x4x5", &s));
    lf_gpu_cache_free(c);
}

/* Another GPU, or the same GPU under another cuDNN, gets none of A's times;
 * its own block is added and A's is kept when the file is written back. */
static void test_other_device_refused(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/new/folder/gpu-op-times.txt", lf_tmp);
    lf_gpu_device_key a = lf__dev("NVIDIA H100 80GB HBM3", "GPU-aaaa", 91900);
    lf_gpu_device_key b = lf__dev("NVIDIA H100 80GB HBM3", "GPU-bbbb", 91900); /* same model, other card */
    lf_gpu_device_key a2 = lf__dev("NVIDIA H100 80GB HBM3", "GPU-aaaa", 91000); /* A, older cuDNN */
    const char *relu = "Relu(t1x8x4x4)>1x8x4x4";
    lf_gpu_cache *c = NULL;
    double s = -1;
    CHECK_OK(lf_gpu_cache_create(&c));
    CHECK_OK(lf_gpu_cache_load(c, path));
    CHECK_OK(lf_gpu_cache_use(c, &b));
    CHECK_EQ_I64(lf_gpu_cache_bound_entries(c), 0);
    CHECK(!lf_gpu_cache_get(c, relu, &s));
    CHECK_OK(lf_gpu_cache_use(c, &a2));
    CHECK(!lf_gpu_cache_get(c, relu, &s));
    CHECK_EQ_I64(lf_gpu_cache_n_devices(c), 3);
    CHECK_OK(lf_gpu_cache_use(c, &b));
    CHECK_OK(lf_gpu_cache_put(c, relu, 9e-06));
    CHECK_OK(lf_gpu_cache_store(c, path));
    lf_gpu_cache_free(c);

    CHECK_OK(lf_gpu_cache_create(&c));
    CHECK_OK(lf_gpu_cache_load(c, path));
    CHECK_EQ_I64(lf_gpu_cache_n_devices(c), 3);
    CHECK_OK(lf_gpu_cache_use(c, &a));
    CHECK(lf_gpu_cache_get(c, relu, &s) && s == 2.5e-06);
    CHECK_EQ_I64(lf_gpu_cache_bound_entries(c), 3);
    CHECK_OK(lf_gpu_cache_use(c, &b));
    CHECK(lf_gpu_cache_get(c, relu, &s) && s == 9e-06);
    CHECK_EQ_I64(lf_gpu_cache_bound_entries(c), 1);
    CHECK_OK(lf_gpu_cache_use(c, &a2));
    CHECK_EQ_I64(lf_gpu_cache_bound_entries(c), 0);
    lf_gpu_cache_free(c);
}

static void test_malformed(void)
{
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"", "t:1: empty file (first line must be 'fusionplan-gpu-cache 1')"},
        {"fusionplan-gpu-cache 2\n", "t:1: not a fusionplan GPU op-time cache (first line must be 'fusionplan-gpu-cache 1')"},
        {"fusionplan-gpu-cache 1\nop\tk\t1e-6\n", "t:2: op line before any device line"},
        {"fusionplan-gpu-cache 1\ndevice\tX\tGPU-x\t9.0\t1\t2\n",
         "t:2: a device line has 7 tab-separated fields: device, name, UUID, compute capability, driver, runtime, cuDNN"},
        {"fusionplan-gpu-cache 1\ndevice\tX\tGPU-x\t90\t1\t2\t3\n", "t:2: compute capability is not MAJOR.MINOR (0..99 each)"},
        {"fusionplan-gpu-cache 1\ndevice\tX\tGPU x\t9.0\t1\t2\t3\n", "t:2: device UUID is empty, too long or has spaces"},
        {"fusionplan-gpu-cache 1\ndevice\tX\tGPU-x\t9.0\t1\t-2\t3\n",
         "t:2: driver, runtime and cuDNN versions are integers in [0, 1000000000]"},
        {"fusionplan-gpu-cache 1\n\n# note\ndevice\tX\tGPU-x\t9.0\t1\t2\t3\nop\tk\t-1e-6\n",
         "t:5: op time is not a number of seconds in [1e-12, 3600]"},
        {"fusionplan-gpu-cache 1\ndevice\tX\tGPU-x\t9.0\t1\t2\t3\nop\tk\tnan\n",
         "t:3: op time is not a number of seconds in [1e-12, 3600]"},
        {"fusionplan-gpu-cache 1\ndevice\tX\tGPU-x\t9.0\t1\t2\t3\nop\tk\t1e-6x\n",
         "t:3: op time is not a number of seconds in [1e-12, 3600]"},
        {"fusionplan-gpu-cache 1\ndevice\tX\tGPU-x\t9.0\t1\t2\t3\nop\tk\t1e-6\nop\tk\t2e-6\n",
         "t:4: the same op key twice for one device"},
        {"fusionplan-gpu-cache 1\ndevice\tX\tGPU-x\t9.0\t1\t2\t3\ndevice\tX\tGPU-x\t9.0\t1\t2\t3\n",
         "t:3: a second block for the same device"},
        {"fusionplan-gpu-cache 1\ndevice\tX\tGPU-x\t9.0\t1\t2\t3\nop\tk\n",
         "t:3: an op line has 3 tab-separated fields: op, key, seconds"},
        {"fusionplan-gpu-cache 1\ndevice\tX\tGPU-x\t9.0\t1\t2\t3\nop\tk k\t1e-6\n",
         "t:3: op key is empty, longer than 2047 characters or not printable ASCII without spaces"},
        {"fusionplan-gpu-cache 1\nops\tk\t1e-6\n",
         "t:2: unknown line (expected 'device' or 'op' fields, '#' comment or blank)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lf_gpu_cache *c = NULL;
        CHECK_OK(lf_gpu_cache_create(&c));
        lf_status st = lf_gpu_cache_load_text(c, cases[i].text, strlen(cases[i].text), "t");
        CHECK_EQ_I64(st, LF_EPARSE);
        CHECK_STR(lf_last_error(), cases[i].message);
        CHECK_EQ_I64(lf_gpu_cache_n_devices(c), 0); /* nothing half-read */
        lf_gpu_cache_free(c);
    }
    /* a NUL inside a line */
    static const char nul[] = "fusionplan-gpu-cache 1\ndevice\tX\tGPU-x\t9.0\t1\t2\t3\nop\tk\0\t1e-6\n";
    lf_gpu_cache *c = NULL;
    CHECK_OK(lf_gpu_cache_create(&c));
    CHECK_EQ_I64(lf_gpu_cache_load_text(c, nul, sizeof nul - 1, "t"), LF_EPARSE);
    CHECK_STR(lf_last_error(), "t:3: NUL byte in the line");
    lf_gpu_cache_free(c);
    /* a file: the message names it */
    char path[512];
    snprintf(path, sizeof path, "%s/bad.txt", lf_tmp);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("fusionplan-gpu-cache 1\ndevice\tX\tGPU-x\t9.0\t1\t2\t3\nop\tk\t0\n", f);
        fclose(f);
    }
    CHECK_OK(lf_gpu_cache_create(&c));
    CHECK_EQ_I64(lf_gpu_cache_load(c, path), LF_EPARSE);
    char want[600];
    snprintf(want, sizeof want, "%s:3: op time is not a number of seconds in [1e-12, 3600]", path);
    CHECK_STR(lf_last_error(), want);
    lf_gpu_cache_free(c);
}

static void test_default_path(void)
{
    char *old_xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
    char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char p[512];
    setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
    setenv("HOME", "/home/u", 1);
    CHECK_OK(lf_gpu_cache_default_path(p, sizeof p));
    CHECK_STR(p, "/xdg/cache/fusionplan/gpu-op-times.txt");
    setenv("XDG_CACHE_HOME", "relative/ignored", 1); /* the XDG spec: only absolute paths */
    CHECK_OK(lf_gpu_cache_default_path(p, sizeof p));
    CHECK_STR(p, "/home/u/.cache/fusionplan/gpu-op-times.txt");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    CHECK_EQ_I64(lf_gpu_cache_default_path(p, sizeof p), LF_ENOTFOUND);
    setenv("HOME", "/home/u", 1);
    CHECK_EQ_I64(lf_gpu_cache_default_path(p, 10), LF_ERANGE);
    if (old_xdg)
        setenv("XDG_CACHE_HOME", old_xdg, 1);
    if (old_home)
        setenv("HOME", old_home, 1);
    else
        unsetenv("HOME");
    free(old_xdg);
    free(old_home);
}

static void test_op_keys(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 0};
    CHECK_OK(lf_model_build("resnet18", &opt, &g));
    if (!g)
        return;
    char k1[LF_GPU_OP_KEY_MAX], k2[LF_GPU_OP_KEY_MAX];
    int32_t conv1 = lf_graph_find(g, "conv1"), a = lf_graph_find(g, "layer1.0.conv1"),
            b = lf_graph_find(g, "layer1.1.conv2"), down = lf_graph_find(g, "layer2.0.downsample.0"),
            fc = lf_graph_find(g, "fc"), flat = lf_graph_find(g, "flatten");
    CHECK_OK(lf_gpu_op_key(g, conv1, k1, sizeof k1));
    CHECK_STR(k1, "Conv(t1x3x224x224,c64x3x7x7,c1x64x1x1)>1x64x112x112;k7x7;s2x2;d1x1;p3,3,3,3;g=1");
    /* same configuration elsewhere in the graph: the same key */
    CHECK_OK(lf_gpu_op_key(g, a, k1, sizeof k1));
    CHECK_OK(lf_gpu_op_key(g, b, k2, sizeof k2));
    CHECK_STR(k1, k2);
    CHECK_OK(lf_gpu_op_key(g, down, k2, sizeof k2));
    CHECK(strcmp(k1, k2) != 0);
    CHECK(fc >= 0 && lf_gpu_op_measurable(g, fc));
    CHECK_OK(lf_gpu_op_key(g, fc, k2, sizeof k2));
    CHECK_STR(k2, "Gemm(t1x512x1x1,c1000x512x1x1,c1x1000x1x1)>1x1000x1x1;bias=1");
    /* graph inputs and views are not run on the GPU */
    CHECK(!lf_gpu_op_measurable(g, 0));
    CHECK_EQ_I64(lf_gpu_op_key(g, 0, k1, sizeof k1), LF_EUNSUPPORTED);
    if (flat >= 0)
        CHECK(!lf_gpu_op_measurable(g, flat));
    CHECK_EQ_I64(lf_gpu_op_key(g, conv1, k1, 16), LF_ERANGE);
    CHECK(!lf_gpu_op_measurable(g, -1) && !lf_gpu_op_measurable(g, g->n_ops));
    /* every measurable op's key is one the cache accepts */
    lf_gpu_cache *c = NULL;
    lf_gpu_device_key d = lf__dev("G", "GPU-g", 1);
    CHECK_OK(lf_gpu_cache_create(&c));
    CHECK_OK(lf_gpu_cache_use(c, &d));
    int32_t keyed = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        if (lf_gpu_op_measurable(g, v)) {
            CHECK_OK(lf_gpu_op_key(g, v, k1, sizeof k1));
            CHECK_OK(lf_gpu_cache_put(c, k1, 1e-6));
            keyed++;
        }
    CHECK_EQ_I64(keyed, 48); /* every kernel of resnet18 (49 ops less the flatten view) */
    lf_gpu_cache_free(c);
    lf_graph_free(g);
}

/* The hook replaces the roofline of exactly the ops it answers for. */
static double lf__conv_hook(void *ctx, const lf_graph *g, int32_t v)
{
    (void)ctx;
    return g->ops[v].type == LF_OP_CONV ? 1e-3 : -1.0;
}

static void test_cost_hook(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 0};
    CHECK_OK(lf_model_build("resnet18", &opt, &g));
    if (!g)
        return;
    lf_subst_coster c;
    lf_subst_coster_init(&c, LF_OBJ_TIME, NULL, NULL);
    lf_subst_costs plain, hooked;
    CHECK_OK(lf_subst_cost(&c, g, 0, &plain));
    double conv_roof = 0, sum = 0;
    int32_t convs = 0;
    for (int32_t v = 0; v < g->n_ops; v++) {
        double fl, by, t;
        if (lf_subst_op_roofline(&c, g, v, &fl, &by, &t)) {
            sum += t;
            if (g->ops[v].type == LF_OP_CONV)
                conv_roof += t, convs++;
        }
    }
    CHECK_EQ_I64(convs, 20);
    CHECK_NEAR(sum, plain.time_s, 1e-12);
    c.op_time = lf__conv_hook;
    CHECK_OK(lf_subst_cost(&c, g, 0, &hooked));
    CHECK_NEAR(hooked.time_s, plain.time_s - conv_roof + convs * 1e-3, 1e-12);
    CHECK_NEAR(hooked.flops, plain.flops, 0.0); /* the other dimensions stay analytic */
    CHECK_NEAR(hooked.kernels, plain.kernels, 0.0);
    lf_graph_free(g);
}

static void test_no_device(void)
{
    int32_t n = 0;
    if (lf_gpu_built() && lf_gpu_count(&n) == LF_OK && n > 0)
        return; /* a GPU is visible: test_gpu_measure covers it */
    lf_gpu_profiler *p = (lf_gpu_profiler *)&n;
    lf_status st = lf_gpu_profiler_create(&p, 0, NULL);
    CHECK(p == NULL);
    CHECK(st == (lf_gpu_built() ? LF_ENOTFOUND : LF_ENOSYS));
    CHECK(strstr(lf_last_error(), lf_gpu_built() ? "no CUDA device" : "without CUDA") != NULL);
    CHECK(lf_gpu_op_time_hook(NULL, NULL, 0) < 0);
    lf_gpu_profiler_free(NULL);
}

/* The profile table from cached times alone (search/subst/op_profile.h):
 * resnet18's conv1 cached at 40.068 us against a 20.034 us roofline (the
 * defaults), its relu at 12.136 us; every other kernel keeps its roofline.
 * Also lf_gpu_cache_open on a file and on a missing one (an empty cache). */
static void test_op_profile(void)
{
    char path[512], used[600];
    snprintf(path, sizeof path, "%s/profile.txt", lf_tmp);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("fusionplan-gpu-cache 1\ndevice\tTest GPU A\tGPU-aaaa\t9.0\t13000\t13000\t91900\n"
              "op\tConv(t1x3x224x224,c64x3x7x7,c1x64x1x1)>1x64x112x112;k7x7;s2x2;d1x1;p3,3,3,3;g=1\t4.0068e-05\n"
              "op\tRelu(t1x64x112x112)>1x64x112x112\t1.2136e-05\n", f);
        fclose(f);
    }
    lf_gpu_cache *c = NULL;
    CHECK_OK(lf_gpu_cache_open(&c, path, used, sizeof used));
    CHECK_STR(used, path);
    lf_graph *g = NULL;
    lf_model_options opt = {0, 0};
    CHECK_OK(lf_model_build("resnet18", &opt, &g));
    if (!c || !g) {
        lf_gpu_cache_free(c);
        lf_graph_free(g);
        return;
    }
    CHECK_EQ_I64(lf_gpu_cache_n_devices(c), 1);
    CHECK_OK(lf_gpu_cache_use(c, lf_gpu_cache_device(c, 0)));
    lf_subst_coster k;
    lf_subst_coster_init(&k, LF_OBJ_TIME, NULL, NULL);
    lf_op_profile p;
    CHECK_OK(lf_op_profile_run(g, &k, NULL, c, &p));
    CHECK_EQ_I64(p.n_rows, 48);
    CHECK_EQ_I64(p.measured, 2);
    CHECK_EQ_I64(p.fresh, 0);
    CHECK_EQ_I64(p.failed, 0);
    CHECK_NEAR(p.measured_s * 1e6, 52.204, 1e-9);
    CHECK_NEAR(p.roofline_measured_s * 1e6, 32.170, 5e-4);
    lf_subst_costs all;
    CHECK_OK(lf_subst_cost(&k, g, 0, &all));
    CHECK_NEAR(p.roofline_s, all.time_s, 1e-12);
    CHECK_NEAR(p.mixed_s, all.time_s - p.roofline_measured_s + p.measured_s, 1e-12);
    CHECK_STR(g->ops[p.rows[0].op].name, "conv1");
    CHECK_NEAR(p.rows[0].measured_s, 4.0068e-05, 1e-15);
    CHECK_NEAR(p.rows[0].roofline_s * 1e6, 20.034, 5e-4);
    CHECK_STR(p.rows[0].source, "cache");
    CHECK_STR(p.rows[2].source, "-");
    CHECK(p.rows[2].measured_s < 0);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m) {
        lf_op_profile_write(m, g, &p, 0);
        fclose(m);
        CHECK(strstr(text, "\n    1  conv1                        Conv               40.068       20.034     2.00  cache\n"));
        CHECK(strstr(text, "\n    3  maxpool                      MaxPool                 -        9.460        -  -\n"));
        CHECK(strstr(text, "\nmeasured 2 of 48 kernels: 52.204 us measured, 32.170 us roofline for them (ratio 1.62)\n"));
        CHECK(strstr(text, "not measured") == NULL);
        free(text);
    }
    lf_op_profile_destroy(&p);
    lf_op_profile_destroy(&p); /* twice is safe */
    lf_gpu_cache_free(c);
    snprintf(path, sizeof path, "%s/missing.txt", lf_tmp);
    CHECK_OK(lf_gpu_cache_open(&c, path, used, sizeof used)); /* a missing file is an empty cache */
    CHECK_EQ_I64(lf_gpu_cache_n_devices(c), 0);
    lf_gpu_cache_free(c);
    lf_graph_free(g);
}

int main(void)
{
    snprintf(lf_tmp, sizeof lf_tmp, "/tmp/lf_test_gpu_XXXXXX");
    if (!mkdtemp(lf_tmp)) {
        fprintf(stderr, "cannot create a temporary folder\n");
        return 1;
    }
    test_device_key();
    test_round_trip();
    test_other_device_refused();
    test_malformed();
    test_default_path();
    test_op_keys();
    test_cost_hook();
    test_no_device();
    test_op_profile();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", lf_tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", lf_tmp);
    return lf_test_result();
}

/* Cached op times with a calibrated roofline for what the cache lacks
 * (contract in search/subst/cached_times.h). */
#include "search/subst/cached_times.h"

#include <stdlib.h>
#include <string.h>

#include "planner/gpu/opcost.h"

static int lf__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The class's ratio sample of op v: 1 with *ratio when v is measurable,
 * cached and has a positive roofline time. */
static int lf__sample(const lf_subst_cached_times *t, const lf_graph *g, int32_t v, double *ratio)
{
    char key[LF_GPU_OP_KEY_MAX];
    double measured = 0.0, flops = 0.0, bytes = 0.0, roof = 0.0;
    if (!lf_gpu_op_measurable(g, v) || lf_gpu_op_key(g, v, key, sizeof key) != LF_OK ||
        !lf_gpu_cache_get(t->cache, key, &measured) ||
        !lf_subst_op_roofline(&t->roofline, g, v, &flops, &bytes, &roof) || roof <= 0.0)
        return 0;
    *ratio = measured / roof;
    return 1;
}

lf_status lf_subst_cached_times_init(lf_subst_cached_times *t, const lf_gpu_cache *cache, const lf_subst_coster *c,
                                     const lf_graph *calib)
{
    memset(t, 0, sizeof *t);
    t->cache = cache;
    t->roofline = *c;
    t->roofline.op_time = NULL;
    t->roofline.op_time_ctx = NULL;
    double *ratios = malloc(sizeof *ratios * (size_t)(calib->n_ops > 0 ? calib->n_ops : 1));
    if (!ratios)
        return lf_set_error(LF_ENOMEM, "out of memory calibrating cached op times");
    for (int k = 0; k < LF_SUBST_KERNEL_CLASSES; k++) {
        int32_t n = 0;
        for (int32_t v = 0; v < calib->n_ops; v++) {
            const lf_op_info *info = lf_op_info_of(calib->ops[v].type);
            double r;
            if (info && (int)info->gpu == k && lf__sample(t, calib, v, &r))
                ratios[n++] = r;
        }
        t->samples[k] = n;
        t->scale[k] = 1.0;
        if (n > 0) { /* the median: the mean of the middle two for an even count */
            qsort(ratios, (size_t)n, sizeof *ratios, lf__cmp_double);
            t->scale[k] = n % 2 ? ratios[n / 2] : 0.5 * (ratios[n / 2 - 1] + ratios[n / 2]);
        }
    }
    free(ratios);
    return LF_OK;
}

double lf_subst_cached_op_time(void *ctx, const lf_graph *g, int32_t v)
{
    const lf_subst_cached_times *t = ctx;
    char key[LF_GPU_OP_KEY_MAX];
    double s = 0.0, flops = 0.0, bytes = 0.0, roof = 0.0;
    if (!t || !lf_gpu_op_measurable(g, v) || lf_gpu_op_key(g, v, key, sizeof key) != LF_OK)
        return -1.0;
    if (lf_gpu_cache_get(t->cache, key, &s))
        return s;
    if (!lf_subst_op_roofline(&t->roofline, g, v, &flops, &bytes, &roof))
        return -1.0;
    const lf_op_info *info = lf_op_info_of(g->ops[v].type);
    int k = info ? (int)info->gpu : 0;
    return roof * (k >= 0 && k < LF_SUBST_KERNEL_CLASSES ? t->scale[k] : 1.0);
}

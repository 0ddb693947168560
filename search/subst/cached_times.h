/* Op times for the time objective from a cache of measured times alone, on
 * a machine without the GPU that measured them (DESIGN §12). A rewrite makes
 * op configurations the cache has never seen (a conv with its ReLU fused, a
 * widened conv); priced by the bare roofline they would look 8-10x cheaper
 * than the measured convolutions beside them (an H200 against its roofline,
 * docs/RESULTS.md), and the search would chase configurations merely because
 * nobody measured them. So a configuration the cache lacks costs its roofline
 * times the median measured/roofline ratio of the cached ops of the same GPU
 * kernel class in a calibration graph (the input network), and the bare
 * roofline only for a class with no cached op there. */
#ifndef LF_SUBST_CACHED_TIMES_H
#define LF_SUBST_CACHED_TIMES_H

#include <stdint.h>

#include "planner/gpu/cache.h"
#include "planner/graph.h"
#include "planner/optable.h"
#include "search/subst/subst.h"

#define LF_SUBST_KERNEL_CLASSES (LF_GPU_CONCAT + 1)

typedef struct lf_subst_cached_times {
    const lf_gpu_cache *cache;                 /* bound to the measured device (lf_gpu_cache_use) */
    lf_subst_coster roofline;                  /* the coster's roofline, without op times */
    double scale[LF_SUBST_KERNEL_CLASSES];     /* measured / roofline per kernel class; 1: no sample */
    int32_t samples[LF_SUBST_KERNEL_CLASSES];  /* cached ops of each class the scale comes from */
} lf_subst_cached_times;

/* Calibrates t on graph calib with the cache (bound to a device) and the
 * roofline of coster c (its op_time hook is ignored). Neither is copied:
 * both must outlive t's use. */
lf_status lf_subst_cached_times_init(lf_subst_cached_times *t, const lf_gpu_cache *cache, const lf_subst_coster *c,
                                     const lf_graph *calib);

/* The coster's op_time hook (ctx: an lf_subst_cached_times *): the cached
 * time of op v's configuration, else its roofline scaled for its kernel
 * class; -1 (the coster's own roofline) for an op the GPU profiler does not
 * time. Read-only: safe from several threads. */
double lf_subst_cached_op_time(void *ctx, const lf_graph *g, int32_t v);

#endif

/* Measured GPU op times next to the substitution optimizer's analytic
 * roofline for every op of a network (`fusionplan profile`, DESIGN §12):
 * each op that runs a kernel, its time measured with the GPU profiler (or,
 * without one, read from the cache of measured times), its roofline time and
 * the totals. The table works from the cache alone on a machine without a
 * GPU. */
#ifndef LF_SUBST_OP_PROFILE_H
#define LF_SUBST_OP_PROFILE_H

#include <stdint.h>
#include <stdio.h>

#include "planner/gpu/cache.h"
#include "planner/gpu/opcost.h"
#include "planner/graph.h"
#include "planner/status.h"
#include "search/subst/subst.h"

typedef struct lf_op_profile_row {
    int32_t op;                     /* op id in the graph */
    double measured_s;              /* -1: not measured (no kernel, not cached, or failed) */
    double roofline_s;              /* launch included */
    const char *source;             /* "new" (measured now), "cache" or "-" */
    char key[LF_GPU_OP_KEY_MAX];    /* the cache's key, "-" when the op is not measurable */
} lf_op_profile_row;

typedef struct lf_op_profile {
    int32_t n_rows;
    lf_op_profile_row *rows;        /* the ops that run a kernel, in op order */
    int32_t measured, fresh, failed;/* rows measured, of which new; ops that failed on the GPU */
    char first_failure[LF_MESSAGE_MAX];
    double measured_s, roofline_measured_s; /* over the measured rows */
    double roofline_s, mixed_s;     /* over every row: roofline alone, measured where there is a time */
} lf_op_profile;

/* Profiles every op of g under c's roofline: with prof, measures (new times
 * go into prof's cache); without, reads cache (bound to its device with
 * lf_gpu_cache_use). A failed measurement keeps the roofline and is counted,
 * not an error. */
lf_status lf_op_profile_run(const lf_graph *g, const lf_subst_coster *c, lf_gpu_profiler *prof,
                            const lf_gpu_cache *cache, lf_op_profile *out);
void lf_op_profile_destroy(lf_op_profile *p);

/* The table (id, op, type, measured and roofline us, ratio, source, with
 * keys the cache key) and the totals lines. */
void lf_op_profile_write(FILE *f, const lf_graph *g, const lf_op_profile *p, int keys);

#endif

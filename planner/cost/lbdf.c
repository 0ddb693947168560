/* LBDF (line-buffer depth-first): every weight of the group stays on chip for
 * the whole group, feature maps are held as full-width row windows, and the
 * weights are read from DRAM exactly once. */
#include "planner/cost/cost_internal.h"

static lf_status lf__lbdf_price(const lf__priced *p, int64_t beta, lf_group_cost *out,
                                lf__peak *peak)
{
    out->weights = p->weights;
    out->features = p->features(p->ctx, 1, peak);
    out->in_bytes = p->in;
    out->out_bytes = p->out;
    out->f_beta = out->weights + out->features;
    out->mbu = out->f_beta;
    out->weight_reads = 1;
    out->tile_rows = 1;
    out->steps = *p->height > 1 ? (int32_t)*p->height : 1; /* read after features(1) */
    out->f_d = p->in + p->out + out->weights;
    out->valid = out->f_beta < beta;
    return LF_OK;
}

static lf_status lf__lbdf_steps(const lf__priced *p, int64_t below, lf_cost_step *steps,
                                int32_t cap, int32_t *n)
{
    lf_group_cost c;
    lf__peak peak;
    *n = 0;
    lf__lbdf_price(p, 0, &c, &peak);
    return c.f_beta < below ? lf__step_push(steps, cap, n, c.f_beta, c.f_d) : LF_OK;
}

/* F_D does not depend on the feature bytes; validity does. */
static int lf__lbdf_settles(const lf__priced *p, int64_t beta)
{
    return p->weights + p->features(p->ctx, 1, NULL) >= beta || p->in + p->out + p->weights > p->limit;
}

/* Every weight is resident: each member adds all of its weights. */
static void lf__lbdf_weight_bound(const lf__op_cost *c, int64_t *term, int64_t *block)
{
    *term = c->weight_bytes;
    *block = 0;
}

const lf__scheme lf__scheme_lbdf = {"lbdf",           lf__lbdf_price,         lf__lbdf_steps,
                                    lf__lbdf_settles, lf__lbdf_weight_bound, 1};

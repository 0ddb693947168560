/* Stage latency: the backends and the call that prices one stage.
 *
 * Analytic backend (DESIGN §12), from the roofline of search/subst/cost.c
 * (the hardware's <gpu> peak FLOP/s, bandwidth and launch overhead):
 *  - a unit's time is max(FLOPs / peak, bytes / bandwidth) of its main op,
 *    its epilogue adding its FLOPs but no traffic and no launch;
 *  - concurrent: the longest group's time, a group's time being the sum of
 *    its units' times plus one launch overhead per kernel (the units of a
 *    group run one after another on one stream; streams overlap their
 *    launches as they overlap their kernels), but never less than the
 *    stage's total FLOPs / peak nor its total bytes / bandwidth, plus one
 *    launch (the groups share the device: concurrency hides latency, not
 *    work);
 *  - merged: the merged convolution's own roofline time plus one launch. Its
 *    output channels are the sum, its kernel the largest, its weights the
 *    zero-padded kernels (so it does more FLOPs than the convolutions it
 *    replaces) and it reads the shared input once.
 * A measured backend plugs in through lf_sched_options.latency_fn, with
 * memo_configs its latencies shared by stages of the same op configurations
 * (config_memo.c). */
#include <math.h>
#include <string.h>

#include "search/schedule/schedule_internal.h"

typedef struct lf__unit_cost {
    double flops, bytes, kernels;
} lf__unit_cost;

static void lf__unit_cost_of(const lf_subst_coster *c, const lf_graph *g, const lf_sched_stage_view *v,
                             int32_t unit, lf__unit_cost *k)
{
    lf_subst_costs m;
    lf_subst_op_cost(c, g, &g->ops[v->ops[v->op_start[unit]]], &m);
    k->flops = m.flops;
    k->bytes = m.bytes;
    k->kernels = m.kernels;
    for (int32_t i = v->op_start[unit] + 1; i < v->op_start[unit + 1]; i++) {
        lf_subst_costs e;
        lf_subst_op_cost(c, g, &g->ops[v->ops[i]], &e);
        k->flops += e.flops;
    }
}

static double lf__roof(const lf_subst_coster *c, double flops, double bytes)
{
    return fmax(flops / c->peak_flops, bytes / c->bandwidth);
}

static lf_status lf__merged(const lf_subst_coster *c, const lf_sched_stage_view *v, double *seconds)
{
    const lf_graph *g = v->g;
    int32_t u0 = v->group_start[0], u1 = v->group_start[v->n_groups];
    const lf_op *first = &g->ops[v->ops[v->op_start[u0]]];
    lf_op m = *first;
    int64_t cout = 0, extra = 0; /* extra: weight elements beside the kernels (biases) */
    int32_t kh = 0, kw = 0;
    for (int32_t u = u0; u < u1; u++) {
        const lf_op *op = &g->ops[v->ops[v->op_start[u]]];
        int32_t h = op->attr.kh ? op->attr.kh : 1, w = op->attr.kw ? op->attr.kw : 1;
        kh = h > kh ? h : kh;
        kw = w > kw ? w : kw;
        cout += op->out.c;
        extra += op->weight_elems - (int64_t)op->out.c * g->ops[op->inputs[0]].out.c * h * w;
    }
    int64_t cin = g->ops[first->inputs[0]].out.c;
    m.attr.kh = kh, m.attr.kw = kw, m.attr.out_channels = (int32_t)cout;
    m.out.c = cout;
    m.weight_elems = cout * cin * kh * kw + extra;
    m.macs = m.out.n * m.out.h * m.out.w * cout * cin * kh * kw;
    lf_subst_costs k;
    lf_subst_op_cost(c, g, &m, &k);
    double flops = k.flops;
    for (int32_t u = u0; u < u1; u++) /* the epilogues, on the merged output */
        for (int32_t i = v->op_start[u] + 1; i < v->op_start[u + 1]; i++) {
            lf_subst_costs e;
            lf_subst_op_cost(c, g, &g->ops[v->ops[i]], &e);
            flops += e.flops;
        }
    *seconds = lf__roof(c, flops, k.bytes) + c->launch_s;
    return LF_OK;
}

lf_status lf__analytic_latency(void *ctx, const lf_sched_stage_view *v, double *seconds)
{
    const lf_subst_coster *c = ctx;
    if (v->strategy == LF_SCHED_MERGE)
        return lf__merged(c, v, seconds);
    double longest = 0.0, flops = 0.0, bytes = 0.0, kernels = 0.0;
    for (int32_t i = 0; i < v->n_groups; i++) {
        double t = 0.0;
        for (int32_t u = v->group_start[i]; u < v->group_start[i + 1]; u++) {
            lf__unit_cost k;
            lf__unit_cost_of(c, v->g, v, u, &k);
            t += lf__roof(c, k.flops, k.bytes) + k.kernels * c->launch_s;
            flops += k.flops;
            bytes += k.bytes;
            kernels += k.kernels;
        }
        longest = fmax(longest, t);
    }
    /* a stage of views and free concats launches nothing and costs nothing */
    *seconds = kernels > 0 ? fmax(longest, lf__roof(c, flops, bytes) + c->launch_s) : 0.0;
    return LF_OK;
}

lf_status lf__stage_latency(lf__sched *x, lf_sched_strategy st, const int32_t *units, const int32_t *start,
                            int32_t n_groups, double *seconds)
{
    lf__sbuf *b = &x->view;
    lf__sbuf_reset(b);
    lf_status s = lf__sbuf_stage(b, st, 0.0);
    for (int32_t i = 0; !s && i < n_groups; i++) {
        s = lf__sbuf_group(b);
        for (int32_t k = start[i]; !s && k < start[i + 1]; k++)
            s = lf__sbuf_unit(b, x, units[k]);
    }
    if (s)
        return s;
    lf_sched_stage_view v;
    lf__sbuf_last_view(b, x->g, &v);
    x->stats->stage_evals++;
    switch (x->o.latency) {
    case LF_SCHED_ANALYTIC:
        return lf__analytic_latency(&x->coster, &v, seconds);
    default:
        if (!x->o.latency_fn)
            return lf_set_error(LF_ENOSYS, "schedule: --latency %s needs a GPU build and a device "
                                           "(no measured stage latency in this build); use --latency analytic",
                                lf_sched_latency_name(x->o.latency));
        s = x->o.memo_configs ? lf__config_latency(x, &v, seconds) : x->o.latency_fn(x->o.latency_ctx, &v, seconds);
        if (!s && !(*seconds >= 0.0 && isfinite(*seconds)))
            return lf_set_error(LF_ERANGE, "schedule: the latency backend returned %g s for a stage", *seconds);
        return s;
    }
}

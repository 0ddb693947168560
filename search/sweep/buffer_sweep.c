/* One network and scheme at every buffer size of a sweep: the valid share
 * from one group sample labelled at every size, the exact column from one
 * staircase (point by point when the staircase passes its limits), and the
 * layer-by-layer and search plans through the library pipeline. */
#include "search/sweep/buffer_sweep.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "planner/cost/cost.h"
#include "planner/exact/curve.h"
#include "planner/exact/exact.h"
#include "planner/app/pipeline.h"

double lf_buffer_sweep_pct(int64_t num, int64_t den)
{
    return den > 0 ? 100.0 * (double)num / (double)den : 0.0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void lf__notice(lf_buffer_sweep_notice_fn notice, void *user, lf_buffer_sweep_notice kind,
                       const char *fmt, ...)
{
    if (!notice)
        return;
    char msg[LF_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    notice(user, kind, msg);
}

/* The valid share per buffer size over groups sampled once (the dataset
 * sampler, labels at every size). */
static lf_status lf__valid_share(const lf_graph *g, const char *model, const char *scheme,
                                 const lf_buffer_sweep_config *cfg, lf_buffer_sweep *sw,
                                 lf_buffer_sweep_notice_fn notice, void *user)
{
    sw->sampled = -1;
    if (cfg->samples <= 0)
        return LF_OK;
    lf_ds_config dc;
    lf_ds_config_default(&dc);
    dc.scheme = scheme;
    dc.seed = (uint64_t)cfg->seed;
    dc.threads = (int32_t)cfg->threads;
    dc.hw = &cfg->hw;
    dc.only = model;
    dc.any_network = 1;
    dc.graph = cfg->sample_graph ? g : NULL;
    dc.groups = (int32_t)cfg->samples;
    dc.n_betas = cfg->nb;
    for (int32_t b = 0; b < cfg->nb; b++)
        dc.betas[b] = cfg->betas[b];
    lf_dataset ds;
    lf_dataset_init(&ds, scheme);
    lf_status st = lf_dataset_build(&ds, &dc);
    if (st != LF_OK) {
        lf_dataset_destroy(&ds);
        return st;
    }
    sw->sampled = ds.n_groups;
    for (int32_t b = 0; b < cfg->nb && ds.n_groups > 0; b++) {
        int64_t valid = 0;
        for (int64_t i = 0; i < ds.n_groups; i++)
            valid += ds.groups[i].valid[b];
        sw->pts[b].has_valid = 1;
        sw->pts[b].valid_pct = lf_buffer_sweep_pct(valid, ds.n_groups);
    }
    if (ds.n_groups < cfg->samples)
        lf__notice(notice, user, LF_BUFFER_SWEEP_FEW_GROUPS, "%s %s: only %lld distinct groups found of %lld asked", model,
                   scheme, (long long)ds.n_groups, (long long)cfg->samples);
    lf_dataset_destroy(&ds);
    return LF_OK;
}

/* Everything of one point but the valid share. */
static lf_status lf__point(const lf_graph *g, const char *model, const char *scheme, int64_t beta,
                           const lf_buffer_sweep_config *cfg, const lf_curve *curve,
                           lf_buffer_sweep_point *pt, lf_buffer_sweep_notice_fn notice, void *user)
{
    int has_valid = pt->has_valid;
    double valid = pt->valid_pct;
    memset(pt, 0, sizeof *pt);
    pt->beta = beta;
    pt->has_valid = has_valid;
    pt->valid_pct = valid;
    lf_hw hw = cfg->hw;
    hw.buffer_bytes = beta;
    lf_cost_model *cm = NULL;
    lf_status st = lf_cost_model_create(&cm, g, &hw, scheme);
    if (st != LF_OK)
        return st;
    int32_t compute = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        compute += g->ops[v].type != LF_OP_INPUT;
    pt->n_unfusable = lf_cost_unfusable_count(cm);
    pt->n_fusable = compute - pt->n_unfusable;

    lf_planner_config pc;
    lf_planner_config_default(&pc);
    pc.budget = cfg->budget;
    pc.seed = (uint64_t)cfg->seed;
    pc.threads = (int32_t)cfg->threads;
    pc.k = (int32_t)cfg->k;
    if (cfg->exact_limit > 0)
        pc.exact.max_candidates = cfg->exact_limit;
    lf_planned r;
    pc.search = "layer"; /* the no-fusion reference */
    if ((st = lf_plan_network(cm, &pc, &r)) == LF_OK)
        pt->layer_all = r.metrics.dram_all;
    lf_planned_destroy(&r);
    /* The exact optimum from the staircase when there is one (the same
     * value, tests/test_curve.c), else alone; past its limits left out. */
    if (st == LF_OK && cfg->do_exact && curve) {
        pt->has_exact = 1;
        pt->exact_all = lf_curve_dram_at(curve, beta);
    } else if (st == LF_OK && cfg->do_exact) {
        pc.search = "exact";
        st = lf_plan_network(cm, &pc, &r);
        if (st == LF_OK) {
            pt->has_exact = 1;
            pt->exact_all = r.metrics.dram_all;
        } else if (st == LF_ELIMIT) {
            char b[32];
            lf_hw_format_size(beta, b, sizeof b);
            lf__notice(notice, user, LF_BUFFER_SWEEP_NO_EXACT, "no exact optimum for %s %s at %s: %s", model, scheme, b,
                       lf_last_error());
            st = LF_OK;
        }
        lf_planned_destroy(&r);
    }
    if (st == LF_OK) {
        pc.search = cfg->search;
        pc.split = cfg->tree ? "tree" : "random";
        pc.proposer = cfg->proposer;
        if ((st = lf_plan_network(cm, &pc, &r)) == LF_OK)
            pt->m = r.metrics;
        lf_planned_destroy(&r);
    }
    lf_cost_model_free(cm);
    return st;
}

lf_status lf_buffer_sweep_run(const lf_graph *g, const char *model, const char *scheme,
                              const lf_buffer_sweep_config *cfg, lf_buffer_sweep *out,
                              lf_buffer_sweep_notice_fn notice, void *user)
{
    memset(out, 0, sizeof *out);
    out->model = model;
    out->scheme = scheme;
    if (cfg->nb < 1 || cfg->nb > LF_BUFFER_SWEEP_MAX)
        return lf_set_error(LF_EINVAL, "buffer sweep: %d buffer sizes (1 to %d)", (int)cfg->nb,
                            LF_BUFFER_SWEEP_MAX);
    for (int32_t b = 1; b < cfg->nb; b++)
        if (cfg->betas[b] <= cfg->betas[b - 1])
            return lf_set_error(LF_EINVAL, "buffer sweep: buffer sizes must be ascending");
    lf_status st = lf__valid_share(g, model, scheme, cfg, out, notice, user);
    if (st != LF_OK)
        return st;
    /* The exact column of every point from one staircase; past a limit,
     * point by point. */
    lf_curve curve = {0};
    int have_curve = 0;
    if (cfg->do_exact) {
        lf_exact_config ec;
        lf_exact_config_default(&ec);
        if (cfg->exact_limit > 0)
            ec.max_candidates = cfg->exact_limit;
        ec.threads = (int32_t)cfg->threads;
        st = lf_curve_compute(g, &cfg->hw, scheme, cfg->betas[0], cfg->betas[cfg->nb - 1] + 1, &ec,
                              &curve);
        have_curve = st == LF_OK;
        if (st != LF_OK && st != LF_ELIMIT)
            return st;
        st = LF_OK;
    }
    for (int32_t b = 0; b < cfg->nb && st == LF_OK; b++)
        st = lf__point(g, model, scheme, cfg->betas[b], cfg, have_curve ? &curve : NULL,
                       &out->pts[b], notice, user);
    if (have_curve)
        lf_curve_destroy(&curve);
    return st;
}

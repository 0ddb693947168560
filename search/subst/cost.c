/* Cost functions of the substitution optimizer (DESIGN §11), one interface
 * for every objective.
 *
 * Per op, as in MetaFlow's Table 2: FLOPs (the op table's lf_op_flops: 2
 * per multiply-accumulate, one per output element for element-wise ops and
 * normalisations, one per window element for pools), bytes (activation
 * operands read, weights read, output written) and one kernel launch. The
 * roofline time of an op is max(FLOPs / peak, bytes / bandwidth) + launch
 * overhead, or the op's measured time when the coster has an op_time hook
 * (planner/gpu). Ops that move no data (the op table's LF_OPF_NO_KERNEL) cost
 * nothing: graph inputs, views (Reshape, Flatten, Identity) and Slices (a
 * consumer reads its part of the tensor in place, as TASO and MetaFlow treat
 * split). A Concat is free when each of its inputs is produced by an op that
 * is read only by it (the producers write straight into its slices:
 * MetaFlow's exclusive concat); otherwise it copies.
 *
 * `dram` is the fusion-aware objective: the exact optimum of the fusion plan
 * (planner/exact) of the candidate graph at the hardware's buffer, all ops. */
#include <math.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "planner/cost/cost.h"
#include "planner/cost/objective.h"
#include "planner/exact/exact.h"
#include "planner/optable.h"
#include "planner/plan.h"
#include "search/subst/subst.h"

static const char *const lf__obj_names[LF_OBJ_COUNT] = {"time", "flops", "bytes", "kernels", "dram",
                                                         "energy", "latency"};

int lf_subst_objective_fused(lf_subst_objective o)
{
    return o == LF_OBJ_DRAM || o == LF_OBJ_ENERGY || o == LF_OBJ_LATENCY;
}

const char *lf_subst_objective_name(lf_subst_objective o)
{
    return (int)o >= 0 && o < LF_OBJ_COUNT ? lf__obj_names[o] : "?";
}

lf_subst_objective lf_subst_objective_from_name(const char *s)
{
    for (int i = 0; i < LF_OBJ_COUNT; i++)
        if (s && strcmp(s, lf__obj_names[i]) == 0)
            return (lf_subst_objective)i;
    return LF_OBJ_COUNT;
}

void lf_subst_coster_init(lf_subst_coster *c, lf_subst_objective o, const void *hwp, const char *scheme)
{
    const lf_hw *hw = hwp;
    memset(c, 0, sizeof *c);
    c->objective = o;
    c->hw = hw;
    c->scheme = scheme ? scheme : "lbdf";
    c->peak_flops = LF_SUBST_DEFAULT_PEAK;
    c->bandwidth = LF_SUBST_DEFAULT_BW;
    c->launch_s = LF_SUBST_DEFAULT_LAUNCH;
    if (hw && hw->has_gpu) {
        if (hw->gpu.peak_flops > 0)
            c->peak_flops = hw->gpu.peak_flops;
        if (hw->gpu.bandwidth > 0)
            c->bandwidth = hw->gpu.bandwidth;
        if (hw->gpu.launch_overhead_s > 0)
            c->launch_s = hw->gpu.launch_overhead_s;
    }
    c->elem_bytes = 4; /* fp32, as the executor and cuDNN measurements */
    c->exact_time_limit_s = 20.0;
}

static double lf__elems(lf_shape s) { return (double)s.n * (double)s.c * (double)s.h * (double)s.w; }

/* Graph inputs, views and Slices (LF_OPF_NO_KERNEL) move no data. */
static int lf__is_view(const lf_op *op) { return lf_op_has(op->type, LF_OPF_NO_KERNEL); }

/* Exclusive concat: every input written by its own producer straight into
 * the concat's buffer. */
static int lf__free_concat(const lf_graph *g, const lf_op *op)
{
    for (int32_t p = 0; p < op->n_operands; p++) {
        const lf_operand *o = &op->operands[p];
        if (o->kind != LF_OPND_TENSOR)
            return 0;
        const lf_op *in = &g->ops[o->id];
        if (in->n_consumers != 1 || lf__is_view(in) || in->is_output)
            return 0;
        for (int32_t q = 0; q < p; q++) /* the same tensor twice needs a copy */
            if (op->operands[q].id == o->id)
                return 0;
    }
    return 1;
}

void lf_subst_op_cost(const lf_subst_coster *c, const lf_graph *g, const lf_op *op, lf_subst_costs *out)
{
    memset(out, 0, sizeof *out);
    out->dram = out->energy_pj = out->latency_s = -1.0;
    if (lf__is_view(op) || (op->type == LF_OP_CONCAT && lf__free_concat(g, op)))
        return;
    double bytes = lf__elems(op->out) + (double)op->weight_elems;
    for (int32_t p = 0; p < op->n_inputs; p++)
        bytes += lf__elems(g->ops[op->inputs[p]].out);
    out->bytes = bytes * c->elem_bytes;
    out->flops = lf_op_flops(op);
    out->kernels = 1.0;
    out->time_s = fmax(out->flops / c->peak_flops, out->bytes / c->bandwidth) + c->launch_s;
}

int lf_subst_op_roofline(const lf_subst_coster *c, const lf_graph *g, int32_t v, double *flops, double *bytes,
                         double *time_s)
{
    lf_subst_costs k;
    lf_subst_op_cost(c, g, &g->ops[v], &k);
    *flops = k.flops;
    *bytes = k.bytes;
    *time_s = k.time_s;
    return k.kernels > 0;
}

lf_status lf_subst_cost(const lf_subst_coster *c, const lf_graph *g, int with_dram, lf_subst_costs *out)
{
    memset(out, 0, sizeof *out);
    out->dram = out->energy_pj = out->latency_s = -1.0;
    for (int32_t v = 0; v < g->n_ops; v++) {
        lf_subst_costs k;
        lf_subst_op_cost(c, g, &g->ops[v], &k);
        if (k.kernels > 0 && c->op_time) { /* a measured time where there is one (DESIGN §12) */
            double m = c->op_time(c->op_time_ctx, g, v);
            if (m >= 0)
                k.time_s = m;
        }
        out->flops += k.flops;
        out->bytes += k.bytes;
        out->kernels += k.kernels;
        out->time_s += k.time_s;
    }
    if (!with_dram)
        return LF_OK;
    lf_hw hw;
    if (c->hw)
        hw = *(const lf_hw *)c->hw;
    else
        lf_hw_default(&hw);
    lf_cost_model *cm = NULL;
    lf_status st = lf_cost_model_create(&cm, g, &hw, c->scheme);
    if (!st && (c->objective == LF_OBJ_ENERGY || c->objective == LF_OBJ_LATENCY))
        st = lf_cost_set_objective(cm, c->objective == LF_OBJ_ENERGY ? LF_PLAN_OBJ_ENERGY : LF_PLAN_OBJ_LATENCY);
    lf_plan plan;
    memset(&plan, 0, sizeof plan);
    lf_exact_config cfg;
    lf_exact_config_default(&cfg);
    cfg.time_limit_s = c->exact_time_limit_s;
    if (!st)
        st = lf_exact_plan(cm, &cfg, &plan, NULL);
    lf_plan_metrics m;
    if (!st)
        st = lf_plan_metrics_compute(&plan, cm, &m);
    if (!st) {
        out->dram = (double)m.dram_all;
        if (c->objective == LF_OBJ_ENERGY)
            out->energy_pj = m.perf.total_pj;
        if (c->objective == LF_OBJ_LATENCY)
            out->latency_s = m.perf.latency_s;
    }
    lf_plan_destroy(&plan);
    lf_cost_model_free(cm);
    return st;
}

double lf_subst_cost_value(const lf_subst_coster *c, const lf_subst_costs *k)
{
    switch (c->objective) {
    case LF_OBJ_FLOPS: return k->flops;
    case LF_OBJ_BYTES: return k->bytes;
    case LF_OBJ_KERNELS: return k->kernels;
    case LF_OBJ_DRAM: return k->dram;
    case LF_OBJ_ENERGY: return k->energy_pj;
    case LF_OBJ_LATENCY: return k->latency_s;
    default: return k->time_s;
    }
}

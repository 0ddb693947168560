/* Energy and latency of a group from its cost (DESIGN §19).
 *
 * The buffer traffic is counted from the schedule the cost models assume
 * (docs/cost-models.md "Energy and latency"): the group runs in row steps
 * (c->steps: the sinks' height over the tile height); every byte that moves
 * over DRAM passes through the buffer once (written on the way in, read on
 * the way out); each op reads its activation operands and writes its output
 * in the buffer once (zero-copy views move nothing); and each op reads its
 * weights from the buffer once per step, since the MAC array keeps one
 * step's weights, not the group's. The last term is what makes energy differ
 * from DRAM: a larger group runs smaller row tiles under BRR, so more steps,
 * while fusing across a stride shares a step between an op's rows.
 *
 * A lone MatMul by a constant tiled by output columns (brr.c, col_blocks >
 * 0) runs another schedule: for each block of Bc columns, every input row
 * streams past, meets the block's weights and writes its Bc outputs. So its
 * input is read from the buffer once per block, its output written once and
 * its weights read once per input row (H rows x the block's share, over all
 * blocks: H times the weights), whatever the row steps would have been. */
#include "planner/cost/energy.h"

#include <string.h>

#include "planner/cost/cost_internal.h"

const char *lf_bound_name(lf_bound b)
{
    return b == LF_BOUND_COMPUTE ? "compute" : "memory";
}

/* Activation bytes op v moves in the buffer: its operands read, its output
 * written (the cost model keeps it per op). */
int64_t lf_energy_act_traffic(const lf_cost_model *cm, int32_t v) { return lf_cost_act_traffic(cm, v); }

/* Energies and times from the traffic and MAC counts already in out. */
static void lf__finish(const lf_cost_model *cm, int64_t dram, lf_group_perf *out)
{
    const lf_hw *hw = lf_cost_hw(cm);
    const lf_hw_energy e = cm->energy;
    out->sram_bytes = out->sram_dram + out->sram_act + out->sram_weights;
    out->dram_pj = (double)dram * e.dram_pj_per_byte;
    out->sram_pj = (double)out->sram_bytes * e.sram_pj_per_byte;
    out->mac_pj = (double)out->macs * e.mac_pj;
    out->total_pj = out->dram_pj + out->sram_pj + out->mac_pj;
    out->compute_s = hw->peak_macs > 0 ? (double)out->macs / hw->peak_macs : 0.0;
    out->memory_s = hw->dram_bandwidth > 0 ? (double)dram / hw->dram_bandwidth : 0.0;
    out->bound = out->compute_s > out->memory_s ? LF_BOUND_COMPUTE : LF_BOUND_MEMORY;
    out->latency_s = out->bound == LF_BOUND_COMPUTE ? out->compute_s : out->memory_s;
    out->latency_serial_s = out->compute_s + out->memory_s;
}

/* One member's MACs and buffer traffic. */
static void lf__add_op(const lf_cost_model *cm, int32_t v, int64_t steps, lf_group_perf *out)
{
    out->macs += lf_cost_graph(cm)->ops[v].macs;
    out->sram_act += lf_energy_act_traffic(cm, v);
    out->sram_weights += lf_cost_weight_bytes(cm, v) * steps;
}

/* The column-block schedule of lone op v (c->col_blocks > 0): its input
 * read once per block, its weights once per input row. */
static void lf__add_col_op(const lf_cost_model *cm, int32_t v, const lf_group_cost *c, lf_group_perf *out)
{
    const lf_op *op = &lf_cost_graph(cm)->ops[v];
    int64_t rows = op->out.h > 1 ? op->out.h : 1;
    out->macs += op->macs;
    out->sram_act += (int64_t)c->col_blocks * lf_cost_tensor_bytes(cm, op->inputs[0]) +
                     lf_cost_tensor_bytes(cm, v);
    out->sram_weights += lf_cost_weight_bytes(cm, v) * rows;
}

/* The steps the weights are read in (at least one). */
static int64_t lf__steps(const lf_group_cost *c) { return c->steps > 1 ? c->steps : 1; }

lf_status lf_group_perf_ops(lf_cost_model *cm, const int32_t *members, int32_t n,
                            const lf_group_cost *c, lf_group_perf *out)
{
    if (!cm || (!members && n > 0) || !c || !out)
        return lf_set_error(LF_EINVAL, "lf_group_perf_ops: NULL argument");
    memset(out, 0, sizeof *out);
    if (n == 1 && c->col_blocks > 0)
        lf__add_col_op(cm, members[0], c, out);
    else
        for (int32_t i = 0; i < n; i++)
            lf__add_op(cm, members[i], lf__steps(c), out);
    out->sram_dram = c->f_d;
    lf__finish(cm, c->f_d, out);
    return LF_OK;
}

lf_status lf_group_perf_eval(lf_cost_model *cm, const lf_bitset *group, const lf_group_cost *c,
                             lf_group_perf *out)
{
    if (!cm || !group || !c || !out)
        return lf_set_error(LF_EINVAL, "lf_group_perf_eval: NULL argument");
    memset(out, 0, sizeof *out);
    int32_t first = lf_bitset_next(group, 0);
    if (c->col_blocks > 0 && first >= 0 && lf_bitset_next(group, first + 1) < 0)
        lf__add_col_op(cm, first, c, out);
    else
        for (int32_t v = first; v >= 0; v = lf_bitset_next(group, v + 1))
            lf__add_op(cm, v, lf__steps(c), out);
    out->sram_dram = c->f_d;
    lf__finish(cm, c->f_d, out);
    return LF_OK;
}

void lf_group_perf_from_sums(const lf_cost_model *cm, int64_t macs, int64_t act, int64_t weight_steps,
                             int64_t f_d, lf_group_perf *out)
{
    memset(out, 0, sizeof *out);
    out->macs = macs;
    out->sram_act = act;
    out->sram_weights = weight_steps;
    out->sram_dram = f_d;
    lf__finish(cm, f_d, out);
}

lf_status lf_unfusable_perf(lf_cost_model *cm, int32_t v, int64_t dram, lf_group_perf *out)
{
    if (!cm || !out)
        return lf_set_error(LF_EINVAL, "lf_unfusable_perf: NULL argument");
    const lf_graph *g = lf_cost_graph(cm);
    int64_t in = 0;
    memset(out, 0, sizeof *out);
    /* Distinct outside inputs, as F_D counts them: what is left of the
     * charge beyond inputs and output is streamed weights. */
    for (int32_t j = 0; j < g->ops[v].n_inputs; j++) {
        int32_t t = g->ops[v].inputs[j], seen = 0;
        for (int32_t k = 0; k < j; k++)
            seen |= g->ops[v].inputs[k] == t;
        if (!seen)
            in += lf_cost_tensor_bytes(cm, t);
    }
    int64_t streamed = dram - in - lf_cost_tensor_bytes(cm, v);
    out->macs = g->ops[v].macs;
    out->sram_act = lf_energy_act_traffic(cm, v);
    out->sram_weights = streamed > 0 ? streamed : 0;
    out->sram_dram = dram;
    lf__finish(cm, dram, out);
    return LF_OK;
}

void lf_group_perf_add(lf_group_perf *a, const lf_group_perf *b)
{
    a->macs += b->macs;
    a->sram_bytes += b->sram_bytes;
    a->sram_dram += b->sram_dram;
    a->sram_act += b->sram_act;
    a->sram_weights += b->sram_weights;
    a->dram_pj += b->dram_pj;
    a->sram_pj += b->sram_pj;
    a->mac_pj += b->mac_pj;
    a->total_pj += b->total_pj;
    a->compute_s += b->compute_s;
    a->memory_s += b->memory_s;
    a->latency_s += b->latency_s;
    a->latency_serial_s += b->latency_serial_s;
}

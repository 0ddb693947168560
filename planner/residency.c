/* The weight-residency answer of a decode step (DESIGN §16): every weight
 * tensor the step reads is an item of its bytes, worth the DRAM the plan
 * spends reading it per step; the buffer the step leaves free after its
 * largest working set is the knapsack's capacity (knapsack.c). Kept weights
 * are loaded once and read from the buffer by every later token. */
#include <stdlib.h>
#include <string.h>

#include "planner/residency.h"

void lf_residency_destroy(lf_residency *r)
{
    if (!r)
        return;
    free(r->resident);
    r->resident = NULL;
    r->n_resident = 0;
}

/* The all-ops charge of an unfusable op is its distinct inputs, its output
 * and its weights times the reads of their streaming: the reads, recovered. */
static int64_t lf__unfusable_reads(lf_cost_model *cm, int32_t v, int64_t *dram)
{
    const lf_graph *g = lf_cost_graph(cm);
    const lf_hw *hw = lf_cost_hw(cm);
    const lf_op *op = &g->ops[v];
    int64_t d = 0;
    if (lf_cost_unfusable_dram(cm, v, &d) != LF_OK)
        return -1;
    *dram = d;
    int64_t io = lf_tensor_bytes(g, v, hw->act_bytes);
    for (int32_t j = 0; j < op->n_inputs; j++) {
        int dup = 0;
        for (int32_t k = 0; k < j; k++)
            dup |= op->inputs[k] == op->inputs[j];
        if (!dup)
            io += lf_tensor_bytes(g, op->inputs[j], hw->act_bytes);
    }
    int64_t w = op->weight_elems * hw->weight_bytes;
    return w > 0 && d > io ? (d - io + w - 1) / w : 1;
}

lf_status lf_residency_compute(const lf_plan *p, lf_cost_model *cm, lf_residency *out)
{
    memset(out, 0, sizeof *out);
    const lf_graph *g = lf_cost_graph(cm);
    const lf_hw *hw = lf_cost_hw(cm);
    lf_plan_metrics pm;
    lf_status st = lf_plan_metrics_compute(p, cm, &pm);
    if (st != LF_OK)
        return st;
    out->buffer = hw->buffer_bytes;
    out->working_set = pm.mbu;
    out->capacity = hw->buffer_bytes - pm.mbu - 1 > 0 ? hw->buffer_bytes - pm.mbu - 1 : 0;
    out->dram_without = pm.dram_all;

    int32_t nc = g->n_consts;
    int64_t *reads = calloc((size_t)(nc ? nc : 1), sizeof *reads);    /* per constant */
    int32_t *group_reads = calloc((size_t)(p->n_groups ? p->n_groups : 1), sizeof *group_reads);
    int64_t *size = malloc((size_t)(nc ? nc : 1) * sizeof *size);
    int64_t *value = malloc((size_t)(nc ? nc : 1) * sizeof *value);
    int32_t *ids = malloc((size_t)(nc ? nc : 1) * sizeof *ids);
    uint8_t *take = calloc((size_t)(nc ? nc : 1), 1);
    lf_bitset members = {0};
    if (!reads || !group_reads || !size || !value || !ids || !take ||
        lf_bitset_init(&members, g->n_ops) != LF_OK) {
        st = lf_set_error(LF_ENOMEM, "weight residency: out of memory");
        goto done;
    }
    /* how often each group reads its weights per step */
    for (int32_t gi = 0; gi < p->n_groups; gi++) {
        lf_plan_group_bitset(p, gi, &members);
        int32_t v0 = -1, n = 0;
        for (int32_t v = 0; v < p->n_ops; v++)
            if (p->group_of[v] == gi) {
                if (v0 < 0)
                    v0 = v;
                n++;
            }
        if (v0 < 0)
            continue;
        if (n == 1 && !lf_cost_fusable(cm, v0)) {
            int64_t d;
            int64_t r = lf__unfusable_reads(cm, v0, &d);
            if (r < 0) {
                st = LF_EPLAN;
                goto done;
            }
            group_reads[gi] = (int32_t)r;
            continue;
        }
        lf_group_cost c;
        if ((st = lf_cost_eval(cm, &members, &c)) != LF_OK)
            goto done;
        group_reads[gi] = c.weight_reads > 0 ? c.weight_reads : 1;
    }
    /* each constant operand's bytes, read as often as its op's group reads;
     * reads[j] is the bytes constant j costs per step. An embedding lookup
     * reads the rows its ids ask for (its weight and streamed bytes), not
     * its table (DESIGN §16): those are its reads. */
    for (int32_t v = 0; v < g->n_ops; v++) {
        const lf_op *op = &g->ops[v];
        int32_t gi = p->group_of[v];
        for (int32_t k = 0; gi >= 0 && k < op->n_operands; k++) {
            if (op->operands[k].kind != LF_OPND_CONST)
                continue;
            int dup = 0; /* one operand twice in an op is read once */
            for (int32_t j = 0; j < k; j++)
                dup |= op->operands[j].kind == LF_OPND_CONST &&
                       op->operands[j].id == op->operands[k].id;
            int64_t bytes = lf_const_elems(&g->consts[op->operands[k].id]) * hw->weight_bytes;
            int64_t rows = op->type == LF_OP_GATHER ? lf_cost_const_read_bytes(cm, v) : bytes;
            if (!dup)
                reads[op->operands[k].id] += (rows < bytes ? rows : bytes) * group_reads[gi];
        }
    }
    int32_t n = 0;
    for (int32_t j = 0; j < nc; j++)
        if (reads[j] > 0) {
            size[n] = lf_const_elems(&g->consts[j]) * hw->weight_bytes;
            value[n] = reads[j];
            ids[n++] = j;
        }
    out->n_weights = n;
    int64_t saved = 0;
    if ((st = lf_knapsack_exact(n, size, value, out->capacity, 0, take, &saved)) != LF_OK)
        goto done;
    for (int32_t i = 0; i < n; i++)
        out->n_resident += take[i];
    out->resident = malloc((size_t)(out->n_resident ? out->n_resident : 1) * sizeof *out->resident);
    if (!out->resident) {
        st = lf_set_error(LF_ENOMEM, "weight residency: out of memory");
        goto done;
    }
    out->n_resident = 0;
    for (int32_t i = 0; i < n; i++)
        if (take[i]) {
            out->resident[out->n_resident++] = ids[i];
            out->resident_bytes += size[i];
        }
    out->saved_bytes = saved;
    out->dram_with = out->dram_without - saved;
done:
    lf_bitset_destroy(&members);
    free(reads);
    free(group_reads);
    free(size);
    free(value);
    free(ids);
    free(take);
    if (st != LF_OK)
        lf_residency_destroy(out);
    return st;
}

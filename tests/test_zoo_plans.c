/* Plans on every built-in network: the layer-by-layer plan's DRAM equals an
 * independent count of each op's traffic, and every greedy plan passes the
 * validity checks, at 128 KB and 256 KB under both schemes. */
#include <stdlib.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/plan.h"
#include "search/partition/simple.h"
#include "testlib.h"

/* Independent layer-by-layer traffic of op v: its distinct input tensors,
 * its output tensor and its weights, straight from the graph. */
static int64_t op_traffic(const lf_graph *g, int32_t v, int32_t ab, int32_t wb)
{
    const lf_op *op = &g->ops[v];
    int64_t bytes = lf_tensor_bytes(g, v, ab) + op->weight_elems * wb;
    /* An embedding lookup reads the rows its ids ask for (all of a table
     * with fewer rows than lookups), not the table (DESIGN §16). */
    const lf_const *t = op->type == LF_OP_GATHER ? lf_op_const(g, v, 0) : NULL;
    if (t) {
        int64_t rows = op->out.n * op->out.c * op->out.h;
        bytes -= lf_const_elems(t) * wb;
        bytes += (rows < t->shape.h ? rows : t->shape.h) * t->shape.w * wb;
    }
    for (int32_t j = 0; j < op->n_inputs; j++) {
        int dup = 0;
        for (int32_t k = 0; k < j; k++)
            dup |= op->inputs[k] == op->inputs[j];
        if (!dup)
            bytes += lf_tensor_bytes(g, op->inputs[j], ab);
    }
    return bytes;
}

static void check_network(const char *name)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    CHECK_OK(lf_model_build(name, &opt, &g));
    if (!g)
        return;
    const char *schemes[] = {"lbdf", "brr"};
    const int64_t buffers[] = {128 * 1024, 256 * 1024};
    for (int si = 0; si < 2; si++)
        for (int bi = 0; bi < 2; bi++) {
            lf_hw hw;
            lf_hw_default(&hw);
            hw.buffer_bytes = buffers[bi];
            lf_cost_model *cm = NULL;
            CHECK_OK(lf_cost_model_create(&cm, g, &hw, schemes[si]));
            if (!cm)
                continue;
            /* An attention product's K or V (a global-window operand) may
             * be re-read per query tile even alone, so with one of them
             * the count is a floor, not the figure. */
            int64_t expect_fusable = 0;
            int global = 0;
            for (int32_t v = 0; v < g->n_ops; v++)
                if (g->ops[v].type != LF_OP_INPUT && lf_cost_fusable(cm, v)) {
                    expect_fusable += op_traffic(g, v, hw.act_bytes, hw.weight_bytes);
                    for (int32_t j = 0; j < g->ops[v].n_inputs; j++)
                        global |= lf_cost_global_operand(cm, v, j);
                }
            lf_plan layer, greedy;
            lf_plan_metrics ml, mg;
            CHECK_OK(lf_plan_layer(cm, &layer));
            CHECK_OK(lf_plan_check(&layer, cm));
            CHECK_OK(lf_plan_metrics_compute(&layer, cm, &ml));
            /* Under LBDF weights are read once, so every singleton's F_D is
             * exactly its traffic; under BRR a fusable singleton whose
             * weights do not all fit streams them, so it can only cost more. */
            if (si == 0 && !global)
                CHECK_EQ_I64(ml.dram_fusable, expect_fusable);
            else
                CHECK(ml.dram_fusable >= expect_fusable);
            CHECK_OK(lf_plan_greedy(cm, &greedy));
            lf_plan_canonicalize(&greedy);
            lf_status st = lf_plan_check(&greedy, cm);
            CHECK_OK(st);
            if (st != LF_OK)
                fprintf(stderr, "  %s %s %lld: %s\n", name, schemes[si], (long long)buffers[bi],
                        lf_last_error());
            CHECK_OK(lf_plan_metrics_compute(&greedy, cm, &mg));
            CHECK_EQ_I64(mg.n_unfusable, ml.n_unfusable);
            CHECK_EQ_I64(mg.n_invalid, 0);
            CHECK(mg.n_groups <= ml.n_groups);
            if (si == 0)
                CHECK(mg.dram_fusable <= ml.dram_fusable);
            lf_plan_destroy(&layer);
            lf_plan_destroy(&greedy);
            lf_cost_model_free(cm);
        }
    lf_graph_free(g);
}

int main(void)
{
    int32_t n;
    const lf_model_entry *m = lf_models(&n);
    CHECK(n >= 16);
    for (int32_t i = 0; i < n; i++)
        check_network(m[i].name);
    return lf_test_result();
}

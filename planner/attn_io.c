/* The FlashAttention yardstick (attn_io.h): the attention core built with
 * the graph builder and planned exactly, next to N² d² / M. */
#include <stdlib.h>

#include "planner/attn_io.h"
#include "planner/cost/cost.h"
#include "planner/exact/exact.h"

static lf_status lf__add(lf_graph_builder *b, lf_op_type t, const char *name, const lf_attrs *a,
                         const char *const *in, int32_t n)
{
    int32_t r = lf_graph_builder_add_op(b, t, name, a, in, n);
    return r < 0 ? (lf_status)r : LF_OK;
}

static lf_status lf__input(lf_graph_builder *b, const char *name, int64_t c, int64_t h, int64_t w)
{
    lf_attrs a = {0};
    a.in_c = (int32_t)c;
    a.in_h = (int32_t)h;
    a.in_w = (int32_t)w;
    return lf__add(b, LF_OP_INPUT, name, &a, NULL, 0);
}

lf_status lf_attn_io_graph(const lf_attn_io_config *cfg, lf_graph **out)
{
    *out = NULL;
    if (cfg->seq_len < 1 || cfg->dim < 1 || cfg->heads < 1 || cfg->seq_len > 1 << 20 ||
        cfg->dim > 1 << 16 || cfg->heads > 1 << 12)
        return lf_set_error(LF_EINVAL, "attention layer: sequence length, dimension and heads must be "
                                       "positive (at most 1,048,576, 65,536 and 4,096)");
    lf_graph_builder *b = NULL;
    lf_status st = lf_graph_builder_create(&b, "attention");
    if (st != LF_OK)
        return st;
    int64_t n = cfg->seq_len, d = cfg->dim, h = cfg->heads;
    lf_attrs mm = {0}, sm = {0};
    sm.axes = LF_AXES(LF_DIM_W);
    const char *s_in[2] = {"q", "kt"}, *o_in[2] = {"p", "v"}, *m_in[2] = {"s", "mask"};
    const char *p_in = cfg->causal ? "sm" : "s";
    if ((st = lf__input(b, "q", h, n, d)) == LF_OK && (st = lf__input(b, "kt", h, d, n)) == LF_OK &&
        (st = lf__input(b, "v", h, n, d)) == LF_OK)
        st = lf__add(b, LF_OP_MATMUL, "s", &mm, s_in, 2);
    if (st == LF_OK && cfg->causal) {
        /* shape-only: a scores-shaped additive mask is the causal one */
        int32_t r = lf_graph_builder_add_const(b, "mask", (lf_shape){1, 1, n, n}, NULL);
        st = r < 0 ? (lf_status)r : lf__add(b, LF_OP_ADD, "sm", NULL, m_in, 2);
    }
    if (st == LF_OK)
        st = lf__add(b, LF_OP_SOFTMAX, "p", &sm, &p_in, 1);
    if (st == LF_OK)
        st = lf__add(b, LF_OP_MATMUL, "o", &mm, o_in, 2);
    if (st == LF_OK)
        st = lf_graph_builder_build(b, out);
    lf_graph_builder_free(b);
    return st;
}

lf_status lf_attn_io_measure(const lf_attn_io_config *cfg, const lf_graph *g, const lf_hw *hw_in,
                             int64_t beta, lf_attn_io_row *row)
{
    lf_hw hw = *hw_in;
    hw.buffer_bytes = beta;
    lf_cost_model *cm = NULL;
    lf_status st = lf_cost_model_create(&cm, g, &hw, cfg->scheme);
    if (st != LF_OK)
        return st;
    *row = (lf_attn_io_row){0};
    row->beta = beta;
    double m = (double)beta / (double)hw.act_bytes, nd = (double)cfg->seq_len * (double)cfg->dim;
    row->flash = (double)cfg->heads * nd * nd / m * (double)hw.act_bytes;
    lf_exact_config ec;
    lf_exact_config_default(&ec);
    ec.threads = 1;
    lf_plan plan = {0};
    lf_exact_stats es;
    lf_plan_metrics pm;
    lf_bitset one = {0};
    if ((st = lf_exact_plan(cm, &ec, &plan, &es)) == LF_OK &&
        (st = lf_plan_metrics_compute(&plan, cm, &pm)) == LF_OK)
        st = lf_bitset_init(&one, g->n_ops);
    if (st == LF_OK) {
        row->optimum = pm.dram_all;
        row->groups = pm.n_groups + pm.n_unfusable;
        int32_t s = lf_graph_find(g, "s");
        for (int32_t gi = 0; gi < plan.n_groups && st == LF_OK; gi++) {
            lf_group_cost c;
            lf_plan_group_bitset(&plan, gi, &one);
            if (!lf_bitset_test(&one, s) || (st = lf_cost_eval(cm, &one, &c)) != LF_OK)
                continue;
            row->attn = c.attn;
            row->br = c.attn_br;
            row->bc = c.attn_bc;
            row->kv_reads = c.kv_reads;
        }
        /* Unfused: every op alone, as the all-ops metric charges it. */
        for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
            if (g->ops[v].type == LF_OP_INPUT)
                continue;
            int64_t fd = 0;
            lf_group_cost c;
            lf_bitset_clear_all(&one);
            lf_bitset_set(&one, v);
            if (lf_cost_fusable(cm, v))
                st = lf_cost_eval(cm, &one, &c), fd = c.f_d;
            else
                st = lf_cost_unfusable_dram(cm, v, &fd);
            row->unfused += fd;
        }
    }
    lf_bitset_destroy(&one);
    lf_plan_destroy(&plan);
    lf_cost_model_free(cm);
    return st;
}

/* lf_cost_model_rebuffer against lf_cost_model_create at the same buffer:
 * one model moved along buffers that grow (ops turn fusable on the way) and
 * then shrink prices every op alone, every run of up to six ops (cost,
 * figure, steps, canonical copy) and the layer-by-layer plan as a model
 * made there, under both schemes and every objective, on random DAGs
 * (2 KB - 64 KB, where some convs turn fusable) and on two blocks of GPT-2
 * (64 tokens, 64 KB - 4 MB: attention groups, repeated blocks); and the
 * staircase report (8 KB - 4 MB, ops turning fusable along it), which moves
 * one model from step to step, gives each step the figures of a model made
 * at its buffer. Checked to fail with the ops unfusable so far not priced
 * again (6,957 checks), with the memo kept across buffers (93,210), and
 * with the fusable ops kept as the buffer shrinks (294). Not analysing the
 * repeated blocks again where an op turned fusable passes here too: an op
 * and its copy compare alike in everything their fusability alone reads,
 * so they turn fusable at the same buffer. */
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/cost/cost.h"
#include "planner/cost/objective.h"
#include "planner/exact/curve.h"
#include "planner/plan.h"
#include "random_dags.h"
#include "search/partition/simple.h"
#include "search/sweep/curve_report.h"
#include "testlib.h"

static const char *const schemes[] = {"lbdf", "brr"};
static const lf_plan_objective objectives[] = {LF_PLAN_OBJ_DRAM, LF_PLAN_OBJ_ENERGY, LF_PLAN_OBJ_LATENCY};

static void same_metrics(const lf_plan_metrics *a, const lf_plan_metrics *b)
{
    CHECK_EQ_I64(a->dram_all, b->dram_all);
    CHECK_EQ_I64(a->dram_fusable, b->dram_fusable);
    CHECK_EQ_I64(a->objective, b->objective);
    CHECK_EQ_I64(a->objective_all, b->objective_all);
    CHECK_EQ_I64(a->mbu, b->mbu);
    CHECK_EQ_I64(a->n_groups, b->n_groups);
    CHECK_EQ_I64(a->n_unfusable, b->n_unfusable);
    CHECK_EQ_I64(a->n_invalid, b->n_invalid);
}

/* Model a (moved) prices as model b (made at its buffer): every op's
 * fusability, every run of up to 6 ops (cost, figure, steps below twice the
 * buffer) and the layer-by-layer plan. */
static void same_model(lf_cost_model *a, lf_cost_model *b)
{
    const lf_graph *g = lf_cost_graph(b);
    CHECK_EQ_I64(lf_cost_beta(a), lf_cost_beta(b));
    CHECK_EQ_I64(lf_cost_unfusable_count(a), lf_cost_unfusable_count(b));
    for (int32_t v = 0; v < g->n_ops; v++)
        CHECK_EQ_I64(lf_cost_fusable(a, v), lf_cost_fusable(b, v));
    lf_bitset set, ka, kb;
    CHECK_OK(lf_bitset_init(&set, g->n_ops));
    CHECK_OK(lf_bitset_init(&ka, g->n_ops));
    CHECK_OK(lf_bitset_init(&kb, g->n_ops));
    lf_cost_step sa[LF_COST_MAX_STEPS], sb[LF_COST_MAX_STEPS];
    for (int32_t v = 0; v < g->n_ops; v++) {
        lf_bitset_clear_all(&set);
        int32_t n = 0;
        for (int32_t w = v; w < g->n_ops && n < 6; w++) {
            if (g->ops[w].type == LF_OP_INPUT)
                continue;
            lf_bitset_set(&set, w);
            n++;
            /* the repeated blocks: the copy each is kept under */
            lf_cost_canonical(a, &set, &ka);
            lf_cost_canonical(b, &set, &kb);
            CHECK(lf_bitset_equal(&ka, &kb));
            lf_group_cost ca, cb;
            lf_status xa = lf_cost_eval(a, &set, &ca), xb = lf_cost_eval(b, &set, &cb);
            CHECK_EQ_I64(xa, xb);
            lf_clear_error();
            if (xa != LF_OK || xb != LF_OK)
                continue;
            CHECK_EQ_I64(ca.valid, cb.valid);
            CHECK_EQ_I64(ca.f_d, cb.f_d);
            CHECK_EQ_I64(ca.f_beta, cb.f_beta);
            CHECK_EQ_I64(ca.mbu, cb.mbu);
            CHECK_EQ_I64(lf_cost_objective_of(a, &set, &ca), lf_cost_objective_of(b, &set, &cb));
            int32_t na = 0, nb = 0;
            xa = lf_cost_steps(a, &set, 2 * lf_cost_beta(b), sa, LF_COST_MAX_STEPS, &na);
            xb = lf_cost_steps(b, &set, 2 * lf_cost_beta(b), sb, LF_COST_MAX_STEPS, &nb);
            CHECK_EQ_I64(xa, xb);
            lf_clear_error();
            CHECK_EQ_I64(na, nb);
            for (int32_t k = 0; k < na && na == nb && xa == LF_OK; k++) {
                CHECK_EQ_I64(sa[k].need, sb[k].need);
                CHECK_EQ_I64(sa[k].f_d, sb[k].f_d);
            }
        }
    }
    lf_bitset_destroy(&set);
    lf_bitset_destroy(&ka);
    lf_bitset_destroy(&kb);
    lf_plan pa, pb;
    lf_plan_metrics ma, mb;
    CHECK_OK(lf_plan_layer(a, &pa));
    CHECK_OK(lf_plan_layer(b, &pb));
    CHECK_EQ_I64(pa.n_groups, pb.n_groups);
    CHECK(memcmp(pa.group_of, pb.group_of, (size_t)pa.n_ops * sizeof *pa.group_of) == 0);
    CHECK_OK(lf_plan_metrics_compute(&pa, a, &ma));
    CHECK_OK(lf_plan_metrics_compute(&pb, b, &mb));
    same_metrics(&ma, &mb);
    lf_plan_destroy(&pa);
    lf_plan_destroy(&pb);
}

/* One model moved along betas[0..n) against one made at each; returns how
 * many times the number of unfusable ops changed from one buffer to the
 * next (the moves that price ops again). */
static int32_t walk(const lf_graph *g, const lf_hw *hw, const char *scheme, lf_plan_objective obj,
                    const int64_t *betas, int32_t n)
{
    lf_hw h = *hw;
    if (obj != LF_PLAN_OBJ_DRAM)
        lf_curve_fix_sram(&h);
    h.buffer_bytes = betas[0];
    lf_cost_model *moved = NULL;
    CHECK_OK(lf_cost_model_create(&moved, g, &h, scheme));
    if (!moved)
        return 0;
    CHECK_OK(lf_cost_set_objective(moved, obj));
    int32_t changes = 0, last = lf_cost_unfusable_count(moved);
    for (int32_t k = 0; k < n; k++) {
        if (k > 0)
            CHECK_OK(lf_cost_model_rebuffer(moved, betas[k]));
        h.buffer_bytes = betas[k];
        lf_cost_model *made = NULL;
        CHECK_OK(lf_cost_model_create(&made, g, &h, scheme));
        if (!made)
            break;
        CHECK_OK(lf_cost_set_objective(made, obj));
        same_model(moved, made);
        changes += lf_cost_unfusable_count(moved) != last;
        last = lf_cost_unfusable_count(moved);
        lf_cost_model_free(made);
    }
    lf_cost_model_free(moved);
    return changes;
}

/* Every step of the report's staircase against a model made at its buffer;
 * returns how many steps change the number of unfusable ops. */
static int32_t test_report(const lf_graph *g, const lf_hw *hw, const char *scheme, lf_plan_objective obj)
{
    lf_exact_config ec;
    lf_exact_config_default(&ec);
    ec.objective = obj;
    lf_curve_report r;
    CHECK_OK(lf_curve_report_compute(&r, g, "gpt2", hw, scheme, 8 * 1024, 4 * 1024 * 1024, &ec));
    CHECK(r.curve.n >= 4);
    int32_t last = -1, changes = 0;
    for (int32_t k = 0; k < r.curve.n; k++) {
        lf_hw h = *hw;
        if (obj != LF_PLAN_OBJ_DRAM)
            lf_curve_fix_sram(&h);
        h.buffer_bytes = r.curve.points[k].beta;
        lf_cost_model *cm = NULL;
        CHECK_OK(lf_cost_model_create(&cm, g, &h, scheme));
        if (!cm)
            break;
        CHECK_OK(lf_cost_set_objective(cm, obj));
        lf_plan_metrics m, lm;
        CHECK_OK(lf_plan_metrics_compute(&r.curve.points[k].plan, cm, &m));
        same_metrics(&r.metrics[k], &m);
        lf_plan lp;
        CHECK_OK(lf_plan_layer(cm, &lp));
        CHECK_OK(lf_plan_metrics_compute(&lp, cm, &lm));
        CHECK_EQ_I64(r.layer_all[k], lm.objective_all);
        changes += k > 0 && lm.n_unfusable != last;
        last = lm.n_unfusable;
        lf_plan_destroy(&lp);
        lf_cost_model_free(cm);
    }
    lf_curve_report_destroy(&r);
    return changes;
}

int main(void)
{
    lf_hw hw;
    lf_hw_default(&hw);
    /* Random DAGs: up 2 KB - 64 KB by half, then down again. */
    int64_t small[16];
    int32_t ns = 0;
    for (int64_t b = 1536; b <= 65536; b = b * 3 / 2)
        small[ns++] = b;
    for (int32_t k = ns - 2; k >= 0 && ns < 16; k -= 3)
        small[ns++] = small[k] + 1;
    int32_t changes = 0;
    for (int family = 0; family < RDAG_FAMILIES; family++)
        for (uint64_t seed = 1; seed <= 2; seed++) {
            lf_graph *g = rdag_build(seed, family, 14);
            CHECK(g != NULL);
            if (!g)
                continue;
            for (size_t s = 0; s < 2; s++)
                for (size_t o = 0; o < 3; o++)
                    changes += walk(g, &hw, schemes[s], objectives[o], small, ns);
            lf_graph_free(g);
        }
    CHECK(changes > 20);
    /* Two blocks of GPT-2, 64 tokens: 64 KB - 4 MB, then down. */
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    lf_model_seq_options so = {64, 2, LF_PHASE_PREFILL, 0};
    CHECK_OK(lf_model_build_seq("gpt2", &opt, &so, &g));
    if (!g)
        return lf_test_result();
    int64_t big[] = {65536, 98304, 131072, 262144, 524288, 1048576, 2097152, 4194304, 3000000, 200000, 70000};
    changes = 0;
    for (size_t s = 0; s < 2; s++)
        for (size_t o = 0; o < 3; o++)
            changes += walk(g, &hw, schemes[s], objectives[o], big, (int32_t)(sizeof big / sizeof big[0]));
    CHECK(changes > 0);
    CHECK(test_report(g, &hw, "lbdf", LF_PLAN_OBJ_ENERGY) > 2); /* steps where ops turn fusable */
    test_report(g, &hw, "brr", LF_PLAN_OBJ_LATENCY);
    lf_graph_free(g);
    return lf_test_result();
}

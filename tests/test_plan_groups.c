/* Shortcuts that read a plan's groups from its group_of array, against the
 * plain reading they replace, on the staircase of GPT-2's block (64 tokens)
 * under LBDF energy over 64 KB - 4 MB, where plans hold attention groups
 * whose price rises:
 * - lf_plan_metrics_compute gathers each group's ops as a chain built in one
 *   pass: its figures are those of pricing every group from
 *   lf_plan_group_bitset, also where the plan's groups are numbered in no
 *   particular order (reversed, so that a chain started or linked in the
 *   wrong order, or one op short, shows);
 * - lf__curve_plan_rises looks the groups it saw at earlier points up by a
 *   hash of their ops: the cuts it asks of a whole staircase are the union
 *   of those it asks of each point on its own (where nothing was seen
 *   before), so a group taken for another one (a lookup keyed too
 *   coarsely, or a chain that mixes groups) shows as a missing or extra
 *   cut;
 * - lf_plan_metrics_compute_alone prices the ops alone once per buffer for
 *   a step's plan and the layer-by-layer plan (the staircase's report): its
 *   metrics are those of lf_plan_metrics_compute with a model made at each
 *   buffer, with one model moved along the steps up, then down (figures
 *   kept across buffers, or an op unfusable at one buffer taken as such at
 *   another, show). */
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/cost/cost.h"
#include "planner/cost/objective.h"
#include "planner/exact/curve.h"
#include "planner/exact/curve_rises.h"
#include "planner/plan.h"
#include "search/partition/simple.h"
#include "testlib.h"

/* The metrics of plan p as lf_plan_metrics_compute had them: every group
 * priced from lf_plan_group_bitset (an op alone that is not fusable charged
 * as such). */
static void plain_metrics(const lf_plan *p, lf_cost_model *cm, lf_plan_metrics *m)
{
    const lf_graph *g = lf_cost_graph(cm);
    memset(m, 0, sizeof *m);
    lf_bitset set;
    CHECK_OK(lf_bitset_init(&set, g->n_ops));
    for (int32_t gi = 0; gi < p->n_groups; gi++) {
        lf_plan_group_bitset(p, gi, &set);
        int32_t first = -1;
        for (int32_t v = 0; v < p->n_ops && first < 0; v++)
            if (p->group_of[v] == gi)
                first = v;
        if (first < 0)
            continue;
        if (lf_plan_group_size(p, gi) == 1 && !lf_cost_fusable(cm, first)) {
            int64_t d = 0;
            CHECK_OK(lf_cost_unfusable_dram(cm, first, &d));
            m->dram_all += d;
            m->objective_all += lf_cost_objective_unfusable(cm, first, d);
            m->n_unfusable++;
            continue;
        }
        lf_group_cost c;
        CHECK_OK(lf_cost_eval(cm, &set, &c));
        int64_t obj = lf_cost_objective_of(cm, &set, &c);
        m->dram_fusable += c.f_d;
        m->dram_all += c.f_d;
        m->objective += obj;
        m->objective_all += obj;
        m->mbu = c.mbu > m->mbu ? c.mbu : m->mbu;
        m->n_groups++;
        m->n_invalid += !c.valid;
    }
    lf_bitset_destroy(&set);
}

static void check_metrics(const lf_plan *p, lf_cost_model *cm)
{
    lf_plan_metrics got, want;
    CHECK_OK(lf_plan_metrics_compute(p, cm, &got));
    plain_metrics(p, cm, &want);
    CHECK_EQ_I64(got.dram_fusable, want.dram_fusable);
    CHECK_EQ_I64(got.dram_all, want.dram_all);
    CHECK_EQ_I64(got.objective, want.objective);
    CHECK_EQ_I64(got.objective_all, want.objective_all);
    CHECK_EQ_I64(got.mbu, want.mbu);
    CHECK_EQ_I64(got.n_groups, want.n_groups);
    CHECK_EQ_I64(got.n_unfusable, want.n_unfusable);
    CHECK_EQ_I64(got.n_invalid, want.n_invalid);
}

/* Every point's plan priced at its buffer, as numbered and reversed. */
static void test_metrics(const lf_graph *g, const lf_hw *fixed, const char *scheme, const lf_curve *c)
{
    int32_t several = 0;
    for (int32_t k = 0; k < c->n; k++) {
        lf_hw h = *fixed;
        h.buffer_bytes = c->points[k].beta;
        lf_cost_model *cm = NULL;
        CHECK_OK(lf_cost_model_create(&cm, g, &h, scheme));
        CHECK_OK(lf_cost_set_objective(cm, LF_PLAN_OBJ_ENERGY));
        const lf_plan *p = &c->points[k].plan;
        check_metrics(p, cm);
        lf_plan r;
        CHECK_OK(lf_plan_init(&r, p->n_ops));
        r.n_groups = p->n_groups;
        for (int32_t v = 0; v < p->n_ops; v++)
            r.group_of[v] = p->group_of[v] < 0 ? -1 : p->n_groups - 1 - p->group_of[v];
        check_metrics(&r, cm);
        lf_plan_metrics a, b;
        CHECK_OK(lf_plan_metrics_compute(p, cm, &a));
        CHECK_OK(lf_plan_metrics_compute(&r, cm, &b));
        CHECK_EQ_I64(a.objective_all, c->points[k].dram_all); /* the staircase's own figure */
        CHECK_EQ_I64(b.objective_all, a.objective_all);
        for (int32_t gi = 0; gi < p->n_groups; gi++)
            several += lf_plan_group_size(p, gi) > 1;
        lf_plan_destroy(&r);
        lf_cost_model_free(cm);
    }
    CHECK(several > 0);
}

static void check_same(const lf_plan_metrics *a, const lf_plan_metrics *b)
{
    CHECK_EQ_I64(a->dram_fusable, b->dram_fusable);
    CHECK_EQ_I64(a->dram_all, b->dram_all);
    CHECK_EQ_I64(a->objective, b->objective);
    CHECK_EQ_I64(a->objective_all, b->objective_all);
    CHECK_EQ_I64(a->mbu, b->mbu);
    CHECK_EQ_I64(a->n_groups, b->n_groups);
    CHECK_EQ_I64(a->n_unfusable, b->n_unfusable);
    CHECK_EQ_I64(a->n_invalid, b->n_invalid);
    CHECK_EQ_I64(a->n_compute_bound, b->n_compute_bound);
    CHECK_EQ_I64(a->perf.macs, b->perf.macs);
    CHECK_EQ_I64(a->perf.sram_bytes, b->perf.sram_bytes);
    CHECK_EQ_I64(a->perf.sram_weights, b->perf.sram_weights);
    CHECK(a->perf.total_pj == b->perf.total_pj);
    CHECK(a->perf.dram_pj == b->perf.dram_pj);
    CHECK(a->perf.latency_s == b->perf.latency_s);
    CHECK(a->perf.latency_serial_s == b->perf.latency_serial_s);
}

/* Each point's plan and the layer-by-layer plan at its buffer, priced with
 * one model moved there and the ops alone kept in `alone`, against a model
 * made there without; points up (dir 1) or down (-1). Returns the ops
 * unfusable at the first point that are fusable at some other. */
static int32_t test_alone_walk(const lf_graph *g, const lf_hw *fixed, const char *scheme, lf_plan_objective obj,
                               const lf_curve *c, int dir)
{
    lf_plan_alone *alone = NULL;
    CHECK_OK(lf_plan_alone_create(&alone, g->n_ops));
    lf_cost_model *mv = NULL;
    uint8_t *unf0 = calloc((size_t)g->n_ops, 1);
    int32_t turned = 0;
    for (int32_t i = 0; i < c->n && alone && unf0; i++) {
        int32_t k = dir > 0 ? i : c->n - 1 - i;
        lf_hw h = *fixed;
        h.buffer_bytes = c->points[k].beta;
        lf_cost_model *fresh = NULL;
        CHECK_OK(lf_cost_model_create(&fresh, g, &h, scheme));
        CHECK_OK(lf_cost_set_objective(fresh, obj));
        if (!mv) {
            CHECK_OK(lf_cost_model_create(&mv, g, &h, scheme));
            CHECK_OK(lf_cost_set_objective(mv, obj));
        } else {
            CHECK_OK(lf_cost_model_rebuffer(mv, c->points[k].beta));
        }
        for (int32_t v = 0; v < g->n_ops; v++) {
            if (i == 0)
                unf0[v] = (uint8_t)(g->ops[v].type != LF_OP_INPUT && !lf_cost_fusable(fresh, v));
            else if (unf0[v] && lf_cost_fusable(fresh, v)) {
                unf0[v] = 0;
                turned++;
            }
        }
        lf_plan lp;
        CHECK_OK(lf_plan_layer(fresh, &lp));
        lf_plan_metrics got, want;
        CHECK_OK(lf_plan_metrics_compute_alone(&c->points[k].plan, mv, alone, &got));
        CHECK_OK(lf_plan_metrics_compute(&c->points[k].plan, fresh, &want));
        check_same(&got, &want);
        CHECK_EQ_I64(got.objective_all, c->points[k].dram_all);
        CHECK_OK(lf_plan_metrics_compute_alone(&lp, mv, alone, &got));
        CHECK_OK(lf_plan_metrics_compute(&lp, fresh, &want));
        check_same(&got, &want);
        /* again, every op alone now known */
        CHECK_OK(lf_plan_metrics_compute_alone(&c->points[k].plan, mv, alone, &got));
        CHECK_EQ_I64(got.objective_all, c->points[k].dram_all);
        lf_plan_destroy(&lp);
        lf_cost_model_free(fresh);
    }
    free(unf0);
    lf_cost_model_free(mv);
    lf_plan_alone_free(alone);
    return turned;
}

/* One model's objective changed at one buffer: the figures kept under the
 * first are not the second's (every plan of c priced under energy, then
 * latency, with one lf_plan_alone, against a model made for each). */
static void test_alone_objective(const lf_graph *g, const lf_hw *fixed, const char *scheme, const lf_curve *c)
{
    lf_plan_alone *alone = NULL;
    CHECK_OK(lf_plan_alone_create(&alone, g->n_ops));
    for (int32_t k = 0; k < c->n && alone; k += 7) {
        lf_hw h = *fixed;
        h.buffer_bytes = c->points[k].beta;
        lf_cost_model *mv = NULL, *fresh = NULL;
        CHECK_OK(lf_cost_model_create(&mv, g, &h, scheme));
        CHECK_OK(lf_cost_model_create(&fresh, g, &h, scheme));
        lf_plan lp;
        CHECK_OK(lf_plan_layer(fresh, &lp));
        const lf_plan_objective objs[2] = {LF_PLAN_OBJ_ENERGY, LF_PLAN_OBJ_LATENCY};
        for (int o = 0; o < 2; o++) {
            CHECK_OK(lf_cost_set_objective(mv, objs[o]));
            CHECK_OK(lf_cost_set_objective(fresh, objs[o]));
            lf_plan_metrics got, want;
            CHECK_OK(lf_plan_metrics_compute_alone(&lp, mv, alone, &got));
            CHECK_OK(lf_plan_metrics_compute(&lp, fresh, &want));
            check_same(&got, &want);
            CHECK(o == 0 || got.objective_all != 0);
        }
        lf_plan_destroy(&lp);
        lf_cost_model_free(mv);
        lf_cost_model_free(fresh);
    }
    lf_plan_alone_free(alone);
}

/* The cuts lf__curve_plan_rises asks of staircase c over [lo, hi]: of the
 * whole, and of each point alone over the buffers where it holds. */
static void test_rises(const lf_graph *g, const lf_hw *hw, const char *scheme, const lf_exact_config *ec,
                       const lf_curve *c, int64_t lo, int64_t hi)
{
    enum { CAP = 4096 };
    int64_t *all = malloc(CAP * sizeof *all), *one = malloc(CAP * sizeof *one), *want = malloc(CAP * sizeof *want);
    int32_t n_all = 0, n_want = 0;
    CHECK(all && one && want);
    if (!all || !one || !want)
        goto out;
    CHECK_OK(lf__curve_plan_rises(g, hw, scheme, ec, c, lo, hi, hi, all, &n_all, CAP, NULL, NULL, 0, NULL));
    for (int32_t k = 0; k < c->n; k++) {
        lf_curve alone = *c;
        alone.points = &c->points[k];
        alone.n = 1;
        int64_t top = k + 1 < c->n ? c->points[k + 1].beta - 1 : hi;
        int32_t n_one = 0;
        CHECK_OK(lf__curve_plan_rises(g, hw, scheme, ec, &alone, lo, hi, top, one, &n_one, CAP, NULL, NULL, 0, NULL));
        for (int32_t i = 0; i < n_one; i++) { /* union, ascending, each once */
            int32_t at = 0;
            while (at < n_want && want[at] < one[i])
                at++;
            if (at < n_want && want[at] == one[i])
                continue;
            memmove(want + at + 1, want + at, (size_t)(n_want - at) * sizeof *want);
            want[at] = one[i];
            n_want++;
        }
    }
    CHECK(n_all > 0); /* the range holds rises the plans ask for */
    CHECK_EQ_I64(n_all, n_want);
    for (int32_t i = 0; i < n_all && n_all == n_want; i++)
        CHECK_EQ_I64(all[i], want[i]);
out:
    free(all);
    free(one);
    free(want);
}

int main(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    lf_model_seq_options so = {64, 1, LF_PHASE_PREFILL, 0};
    CHECK_OK(lf_model_build_seq("gpt2", &opt, &so, &g));
    if (!g)
        return lf_test_result();
    lf_hw hw;
    lf_hw_default(&hw);
    lf_hw fixed = hw;
    lf_curve_fix_sram(&fixed);
    lf_exact_config ec;
    lf_exact_config_default(&ec);
    ec.objective = LF_PLAN_OBJ_ENERGY;
    /* LBDF over 64 KB - 4 MB: 261 points, whose plans ask for 4 cuts (one
     * at 640,641 B, test_curve's test_group_rises); 0.05 s. Checked to fail
     * with the lookup keyed by a group's size alone (2 cuts differ) and with
     * chains that drop a group's ops after its second. */
    const char *scheme = "lbdf";
    int64_t lo = 64 * 1024, hi = 4 * 1024 * 1024;
    lf_curve c;
    CHECK_OK(lf_curve_compute(g, &hw, scheme, lo, hi, &ec, &c));
    CHECK(c.n >= 4);
    test_metrics(g, &fixed, scheme, &c);
    test_rises(g, &hw, scheme, &ec, &c, lo, hi);
    /* Ops turn fusable along the steps (so an op's figures alone change
     * kind between buffers). */
    CHECK(test_alone_walk(g, &fixed, scheme, LF_PLAN_OBJ_ENERGY, &c, 1) > 0);
    test_alone_walk(g, &fixed, scheme, LF_PLAN_OBJ_ENERGY, &c, -1);
    test_alone_objective(g, &fixed, scheme, &c);
    lf_curve_destroy(&c);
    /* BRR latency 8 KB - 1 MB: unfusable ops' streamed charges change with
     * the buffer's row tiles. */
    ec.objective = LF_PLAN_OBJ_LATENCY;
    CHECK_OK(lf_curve_compute(g, &hw, "brr", 8 * 1024, 1024 * 1024, &ec, &c));
    CHECK(c.n >= 4);
    test_alone_walk(g, &fixed, "brr", LF_PLAN_OBJ_LATENCY, &c, 1);
    test_alone_walk(g, &fixed, "brr", LF_PLAN_OBJ_LATENCY, &c, -1);
    lf_curve_destroy(&c);
    lf_graph_free(g);
    return lf_test_result();
}

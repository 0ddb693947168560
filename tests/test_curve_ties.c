/* Which of the plans tied in the objective a step of the staircase shows
 * (planner/exact/curve_front.c, docs/search.md "Ties on a front"): its
 * figure is the single-buffer optimum at its buffer (test_curve, --check),
 * but among the plans of that figure it shows the one its fronts kept,
 * which DESIGN §4's order (fewer groups, then the smallest sorted list of
 * group minima: lf_exact_plan's plan) need not pick. A front keeps, per
 * state, its points of least DRAM for each need; a prefix of equal DRAM and
 * larger need is dropped whatever its groups, and at equal DRAM and need
 * the one with fewer groups, else the one found first, stays. So a step's
 * plan may have more groups than lf_exact_plan's, tie in groups with other
 * minima, and depend on the range's lower end (needs below it count as
 * it). Pinned on ResNet-50 and SqueezeNet under LBDF, DRAM. */
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/exact/curve.h"
#include "planner/exact/exact.h"
#include "testlib.h"

/* lf_exact_plan's plan at beta (the built-in hardware), into *p. */
static void exact_plan_at(const lf_graph *g, int64_t beta, lf_plan *p)
{
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = beta;
    lf_cost_model *cm = NULL;
    memset(p, 0, sizeof *p);
    CHECK_OK(lf_cost_model_create(&cm, g, &hw, "lbdf"));
    if (cm)
        CHECK_OK(lf_exact_plan(cm, NULL, p, NULL));
    lf_cost_model_free(cm);
}

/* -1, 0 or 1 as p's sorted list of group minima is lexicographically
 * smaller than, equal to or larger than q's (the same group count). */
static int minima_order(const lf_graph *g, const lf_plan *p, const lf_plan *q)
{
    /* Op ids ascend, so a group's first op met is its minimum and the
     * groups met in that order list the minima sorted. */
    int32_t *seen = calloc(2 * (size_t)g->n_ops + 2, sizeof *seen);
    int32_t *mp = seen, *mq = seen + g->n_ops + 1, np = 0, nq = 0;
    uint8_t *fp = calloc((size_t)p->n_groups + 1, 1), *fq = calloc((size_t)q->n_groups + 1, 1);
    int r = 0;
    if (!seen || !fp || !fq)
        r = 2;
    for (int32_t v = 0; r == 0 && v < g->n_ops; v++) {
        int32_t a = p->group_of[v], b = q->group_of[v];
        if (a >= 0 && !fp[a]) {
            fp[a] = 1;
            mp[np++] = v;
        }
        if (b >= 0 && !fq[b]) {
            fq[b] = 1;
            mq[nq++] = v;
        }
    }
    for (int32_t i = 0; r == 0 && i < np && i < nq; i++)
        r = mp[i] < mq[i] ? -1 : mp[i] > mq[i] ? 1 : 0;
    free(seen);
    free(fp);
    free(fq);
    return r;
}

/* The step of c starting at beta, or NULL. */
static const lf_curve_point *step_at(const lf_curve *c, int64_t beta)
{
    for (int32_t k = 0; k < c->n; k++)
        if (c->points[k].beta == beta)
            return &c->points[k];
    return NULL;
}

/* ResNet-50 LBDF at 139,137 B: lf_exact_plan's optimum has 74 groups. Over
 * 130,000-145,000 B the staircase's step there shows a plan of the same
 * DRAM with 75: a prefix of the 74-group plan needs more buffer than one of
 * equal DRAM at its state and was dropped. From 135,000 B on, both
 * prefixes' needs count as the range's lower end, and the one with fewer
 * groups stays: 74. */
static void test_more_groups(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    CHECK_OK(lf_model_build("resnet50", &opt, &g));
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    lf_plan e;
    exact_plan_at(g, 139137, &e);
    CHECK_EQ_I64(e.n_groups, 74);
    const int64_t lows[2] = {130000, 135000}, groups[2] = {75, 74};
    for (int i = 0; i < 2; i++) {
        lf_curve c;
        CHECK_OK(lf_curve_compute(g, &hw, "lbdf", lows[i], 145000, NULL, &c));
        const lf_curve_point *s = step_at(&c, 139137);
        CHECK(s != NULL);
        if (s && e.group_of) {
            lf_plan_metrics m;
            lf_cost_model *cm = NULL;
            lf_hw at = hw;
            at.buffer_bytes = 139137;
            CHECK_OK(lf_cost_model_create(&cm, g, &at, "lbdf"));
            CHECK_OK(lf_plan_metrics_compute(&e, cm, &m));
            CHECK_EQ_I64(s->dram_all, m.dram_all);
            CHECK_EQ_I64(s->plan.n_groups, groups[i]);
            lf_cost_model_free(cm);
        }
        lf_curve_destroy(&c);
    }
    lf_plan_destroy(&e);
    lf_graph_free(g);
}

/* SqueezeNet 1.0 LBDF over 65,536-72,000 B: the steps at 68,369 and 70,337
 * B show plans of 18 groups, as lf_exact_plan's there, with other group
 * minima: lf_exact_plan's list is the smaller (DESIGN §4), the staircase's
 * the one its fronts found first. */
static void test_other_minima(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    CHECK_OK(lf_model_build("squeezenet1_0", &opt, &g));
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    lf_curve c;
    CHECK_OK(lf_curve_compute(g, &hw, "lbdf", 65536, 72000, NULL, &c));
    const int64_t at[2] = {68369, 70337};
    for (int i = 0; i < 2; i++) {
        const lf_curve_point *s = step_at(&c, at[i]);
        lf_plan e;
        exact_plan_at(g, at[i], &e);
        CHECK(s != NULL);
        if (s && e.group_of) {
            CHECK_EQ_I64(e.n_groups, 18);
            CHECK_EQ_I64(s->plan.n_groups, 18);
            CHECK_EQ_I64(minima_order(g, &e, &s->plan), -1);
        }
        lf_plan_destroy(&e);
    }
    lf_curve_destroy(&c);
    lf_graph_free(g);
}

int main(void)
{
    test_more_groups();
    test_other_minima();
    return lf_test_result();
}

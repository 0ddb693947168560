/* The exact DP's per-state estimate (planner/exact/togo.c), the branch and
 * bound and the completion of a stopped run that use it (frontier.c), on
 * random DAGs against the DP's optimum (test_exact: it equals brute force):
 *   - h(D) is a floor of the rest: along the optimum's chain of downsets,
 *     DRAM so far + h never exceeds the optimum, and h of the whole set is 0;
 *     windows of 3, 5 and 64 ops (several windows, and one);
 *   - the frontier bound with the estimate never exceeds the optimum, never
 *     falls as the state limit grows, is the optimum once the run finishes,
 *     and is never below the bound without the estimate;
 *   - with the optimum itself as the known plan the DP prunes states and
 *     returns the same plan (group for group); one below it, no plan
 *     (tf_check_upper_bound);
 *   - a stopped run's completed plan is valid and costs what it says, and
 *     never less than the optimum. */
#include <stdlib.h>
#include <string.h>

#include "planner/exact/exact.h"
#include "planner/exact/togo.h"
#include "random_dags.h"
#include "fixtures.h"
#include "testlib.h"

/* DRAM over fusable ops of group gi of p (0 for an unfusable singleton). */
static int64_t group_dram(lf_cost_model *cm, const lf_plan *p, int32_t gi)
{
    lf_bitset b;
    CHECK_OK(lf_bitset_init(&b, p->n_ops));
    lf_plan_group_bitset(p, gi, &b);
    int32_t first = lf_bitset_next(&b, 0), n = 0;
    for (int32_t v = first; v >= 0; v = lf_bitset_next(&b, v + 1))
        n++;
    int64_t d = 0;
    if (!(n == 1 && !lf_cost_fusable(cm, first))) {
        lf_group_cost c;
        CHECK_OK(lf_cost_eval(cm, &b, &c));
        d = c.f_d;
    }
    lf_bitset_destroy(&b);
    return d;
}

/* Walks p's groups in an order where every prefix is a downset and checks
 * DRAM so far + h <= opt at each (h of the whole is 0). Returns how many
 * states had h above the per-op floors' part (weights) alone. */
static int check_chain(lf_cost_model *cm, const lf_graph *g, const lf_plan *p, const lf__togo *t, int64_t opt)
{
    int32_t n = g->n_ops, nw = (n + 63) / 64;
    uint64_t *d = calloc((size_t)nw, 8);
    uint8_t *done = calloc((size_t)p->n_groups + 1, 1);
    int64_t so_far = 0;
    int32_t placed = 0;
    CHECK(d && done);
    int64_t h0 = lf__togo_h(t, d);
    CHECK(h0 <= opt);
    int64_t weights = 0;
    for (int32_t v = 0; v < n; v++)
        if (g->ops[v].type != LF_OP_INPUT && lf_cost_fusable(cm, v))
            weights += lf_cost_weight_bytes(cm, v);
    int above = h0 > weights;
    while (placed < p->n_groups) {
        int32_t next = -1;
        for (int32_t gi = 0; gi < p->n_groups && next < 0; gi++) {
            if (done[gi])
                continue;
            int ready = 1;
            for (int32_t v = 0; v < n && ready; v++) {
                if (p->group_of[v] != gi)
                    continue;
                for (int32_t j = 0; j < g->ops[v].n_inputs; j++) {
                    int32_t u = g->ops[v].inputs[j];
                    if (g->ops[u].type != LF_OP_INPUT && p->group_of[u] != gi && !((d[u >> 6] >> (u & 63)) & 1u))
                        ready = 0;
                }
            }
            if (ready)
                next = gi;
        }
        CHECK(next >= 0);
        if (next < 0)
            break;
        done[next] = 1;
        placed++;
        for (int32_t v = 0; v < n; v++)
            if (p->group_of[v] == next)
                d[v >> 6] |= (uint64_t)1 << (v & 63);
        so_far += group_dram(cm, p, next);
        int64_t h = lf__togo_h(t, d);
        CHECK(so_far + h <= opt);
        if (so_far + h > opt)
            fprintf(stderr, "  estimate: %lld so far + h %lld > optimum %lld\n", (long long)so_far,
                    (long long)h, (long long)opt);
    }
    CHECK_EQ_I64(so_far, opt);
    CHECK_EQ_I64(lf__togo_h(t, d), 0);
    free(d);
    free(done);
    return above;
}

/* Frontier bounds of runs stopped at max_states = k, k from 1 up, with the
 * estimate from the first boundary (and without it, for comparison).
 * Returns how many stopped runs had a larger bound with the estimate. */
static int frontier_with_estimate(lf_cost_model *cm, int64_t opt, int64_t states, int *completed)
{
    lf_exact_config with, without;
    lf_exact_config_default(&with);
    with.lower_bound = 1;
    with.estimate_after = 1;
    without = with;
    without.estimate_after = -1;
    int64_t last = -1;
    int better = 0;
    int64_t step = states / 10 > 1 ? states / 10 : 1;
    for (int64_t k = 1;; k += step) {
        with.max_states = without.max_states = k;
        lf_plan p, q, up;
        lf_exact_stats st, st0;
        with.upper_plan = &up;
        lf_status s = lf_exact_plan(cm, &with, &p, &st);
        CHECK(s == LF_OK || s == LF_ELIMIT);
        lf_status s0 = lf_exact_plan(cm, &without, &q, &st0);
        CHECK(s0 == s);
        CHECK(st.lower <= opt);
        CHECK(st.lower >= last);
        CHECK(st.lower >= st0.lower);
        if (st.lower > opt || st.lower < last || st.lower < st0.lower)
            fprintf(stderr, "  frontier: %lld states: %lld (last %lld, without %lld, optimum %lld)\n",
                    (long long)k, (long long)st.lower, (long long)last, (long long)st0.lower, (long long)opt);
        last = st.lower;
        if (s == LF_OK) {
            CHECK_EQ_I64(st.lower, opt);
            CHECK_EQ_I64(st.upper, 0);
            lf_plan_destroy(&p);
            lf_plan_destroy(&q);
            break;
        }
        better += st.lower > st0.lower;
        if (st.upper > 0) {
            lf_plan_metrics m;
            CHECK_OK(lf_plan_check(&up, cm));
            CHECK_OK(lf_plan_metrics_compute(&up, cm, &m));
            CHECK_EQ_I64(m.dram_fusable, st.upper);
            CHECK(st.upper >= opt);
            (*completed)++;
            lf_plan_destroy(&up);
        }
    }
    return better;
}

static void test_random_dags(void)
{
    const int64_t betas[] = {RDAG_BETA_SMALL, RDAG_BETA_MEDIUM, RDAG_BETA_LARGE};
    const char *schemes[] = {"lbdf", "brr"};
    const int32_t windows[] = {3, 5, 64};
    int settings = 0, above = 0, better = 0, completed = 0, pruned_any = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 6; seed++) {
            lf_graph *g = rdag_build(100 + seed, fam, 14 + (int32_t)seed);
            CHECK(g != NULL);
            if (!g)
                continue;
            for (int bi = 0; bi < 3; bi++)
                for (int si = 0; si < 2; si++) {
                    lf_cost_model *cm = tf_model_default(g, betas[bi], schemes[si]);
                    lf_plan opt_plan;
                    lf_exact_stats st;
                    CHECK_OK(lf_exact_plan(cm, NULL, &opt_plan, &st));
                    lf_plan_metrics m;
                    CHECK_OK(lf_plan_metrics_compute(&opt_plan, cm, &m));
                    int64_t opt = m.dram_fusable;
                    for (int wi = 0; wi < 3; wi++) {
                        lf__togo *t = NULL;
                        CHECK_OK(lf__togo_create(cm, windows[wi], 0, &t));
                        if (t) {
                            above += check_chain(cm, g, &opt_plan, t, opt);
                            lf__togo_free(t);
                        }
                    }
                    better += frontier_with_estimate(cm, opt, st.states, &completed) > 0;
                    /* Branch and bound with the optimum as the known plan:
                     * the same plan, group for group. */
                    lf_exact_config bb;
                    lf_exact_config_default(&bb);
                    bb.lower_bound = 1;
                    bb.estimate_after = 1;
                    bb.upper_bound = opt;
                    lf_plan p;
                    lf_exact_stats sb;
                    CHECK_OK(lf_exact_plan(cm, &bb, &p, &sb));
                    CHECK_EQ_I64(p.n_groups, opt_plan.n_groups);
                    CHECK(memcmp(p.group_of, opt_plan.group_of, (size_t)g->n_ops * sizeof *p.group_of) == 0);
                    CHECK(sb.states <= st.states);
                    pruned_any += sb.pruned > 0;
                    tf_check_upper_bound(cm, opt, &opt_plan);
                    lf_plan_destroy(&p);
                    lf_plan_destroy(&opt_plan);
                    lf_cost_model_free(cm);
                    settings++;
                }
            lf_graph_free(g);
        }
    fprintf(stderr,
            "  estimate: %d settings; h(empty) above the weights in %d of %d estimates; frontier "
            "raised by it in %d settings; branch and bound pruned in %d; %d completed plans\n",
            settings, above, 3 * settings, better, pruned_any, completed);
    /* Each property must be exercised, or its check could not fail. */
    CHECK(above >= settings);
    CHECK(better >= settings / 10);
    CHECK(pruned_any >= settings / 4);
    CHECK(completed >= settings / 4);
}

int main(void)
{
    test_random_dags();
    return lf_test_result();
}

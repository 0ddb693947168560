/* A plan from a stopped exact run (complete.h): its best reached state's
 * groups, then the ops after it solved exactly or polished. */
#include "planner/exact/complete.h"

#include "planner/exact/frontier.h"
#include "planner/exact/solve.h"
#include "planner/plan.h"
#include "planner/util/clock.h"

/* A rest past its share of the completion is polished in windows of this
 * many ops and candidate sets (planner/app/pipeline.c's best-effort polish). */
#define LF__COMPLETE_POLISH 20
#define LF__COMPLETE_POLISH_CANDIDATES 300000

/* The state's plan is a prefix of a complete one: the DP's groups up to it
 * (the back pointers), then the optimum of the ops it lacks with those it
 * holds counted as computed. Group costs depend on their members alone, so
 * the whole costs the state's DRAM plus the rest's: an upper bound, and on
 * PP-OCRv4 detection the reached states' prefixes are far better than the
 * searches' plans (the rest is a few dozen ops). */
lf_status lf__exact_complete(lf__exact *x, double seconds, lf_plan *out, int64_t *dram)
{
    int32_t d = lf__frontier_best_state(x), n_u = 0;
    if (d < 0 || x->dram[d] == INT64_MAX)
        return lf_set_error(LF_EPLAN, "no reached state to complete");
    for (int32_t v = 0; v < x->n; v++)
        n_u += x->in_u[v];
    /* A state short of half of the ops leaves a rest as hard as the whole
     * (NasNet-A and RandWire stop at a few percent of their sizes): its
     * time is the bounds' and the searches'. */
    if (2 * x->size[d] < n_u)
        return lf_set_error(LF_EPLAN, "the best reached state holds under half of the ops");
    const uint64_t *w = x->words + (size_t)d * x->nwords;
    lf_bitset rest;
    lf_status st = lf_bitset_init(&rest, x->n);
    if (st != LF_OK)
        return st;
    for (int32_t v = 0; v < x->n; v++)
        if (x->in_u[v] && !((w[v >> 6] >> (v & 63)) & 1u))
            lf_bitset_set(&rest, v);
    lf_exact_config k = x->cfg;
    double t0 = lf_now_seconds();
    k.deadline = 0;
    k.time_limit_s = seconds / 2;
    k.lower_bound = 0;
    k.upper_plan = NULL;
    int64_t d_rest = 0;
    st = lf__exact_solve(x->cm, &rest, &k, out, &d_rest, NULL);
    int polish = 0;
    if (st == LF_ELIMIT) {
        /* The rest past its share (PP-OCRv4's pyramid head): its ops alone,
         * then polished by exact sub-solves of runs of groups. */
        lf_clear_error();
        st = lf_plan_init(out, x->n);
        int32_t gi = 0;
        for (int32_t v = lf_bitset_next(&rest, 0); st == LF_OK && v >= 0; v = lf_bitset_next(&rest, v + 1))
            out->group_of[v] = gi++;
        out->n_groups = gi;
        polish = 1;
    }
    lf_bitset_destroy(&rest);
    if (st != LF_OK)
        return st;
    int32_t gi = out->n_groups;
    for (int32_t s = d; x->prev[s] >= 0; s = x->prev[s], gi++) {
        const uint64_t *a = x->words + (size_t)s * x->nwords;
        const uint64_t *b = x->words + (size_t)x->prev[s] * x->nwords;
        for (int32_t v = 0; v < x->n; v++)
            if (((a[v >> 6] & ~b[v >> 6]) >> (v & 63)) & 1u)
                out->group_of[v] = gi;
    }
    out->n_groups = gi;
    lf_plan_canonicalize(out);
    *dram = x->dram[d] + d_rest;
    if (polish) {
        lf_polish_config pc;
        lf_polish_stats ps;
        lf_polish_config_default(&pc);
        pc.window_ops = LF__COMPLETE_POLISH;
        pc.max_candidates = LF__COMPLETE_POLISH_CANDIDATES;
        pc.deadline = seconds > 0 ? t0 + seconds : 0;
        st = lf_plan_check(out, x->cm);
        if (st == LF_OK)
            st = lf_exact_polish(x->cm, &pc, out, &ps);
        if (st != LF_OK) {
            lf_plan_destroy(out);
            return st;
        }
        *dram = ps.dram_after;
    }
    return LF_OK;
}

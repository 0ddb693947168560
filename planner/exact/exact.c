/* Exact planning by dynamic programming over downsets (see exact.h; the
 * state space is in downsets_states.c, the enumeration of candidate groups in downsets.c).
 * Each state keeps its best plan in the full key of DESIGN §4. The public
 * entry, with the bounds and plan of a stopped run, is exact_plan.c. */
#include "planner/exact/exact.h"

#include <stdlib.h>
#include <string.h>

#include "planner/cost/objective.h"
#include "planner/exact/cut_join.h"
#include "planner/exact/downsets.h"
#include "planner/exact/frontier.h"
#include "planner/exact/solve.h"

/* Negative when the set of op ids a precedes b in the order of DESIGN §4's
 * last tie-break: of two sorted lists of equal length, the lexicographically
 * smaller is the one holding the smallest id of their symmetric difference. */
static int lf__minima_cmp(const uint64_t *a, const uint64_t *b, int32_t nwords)
{
    for (int32_t i = 0; i < nwords; i++) {
        uint64_t d = a[i] ^ b[i];
        if (d)
            return (a[i] & d & (~d + 1)) ? -1 : 1;
    }
    return 0;
}

/* Relaxes the state D u S reached from the current state with a group of
 * `n` ops costing `dram` (0 and no group for a forced unfusable op) whose
 * smallest op is `first`; `known` is that state when already looked up (-1:
 * found or created here). groups: 1 for a group, 0 for a forced op, -1 for
 * a group joined at a cut op (one group; see the tie below).
 *
 * Plans of D u S are ordered by the full key of DESIGN §4: DRAM, then group
 * count, then the sorted list of group minima. All three survive appending a
 * common group (the sums grow alike, and a new minimum lies in neither list,
 * so the symmetric difference of the minima is unchanged), hence keeping the
 * best plan of each state in that key makes the DP exact in it. Unfusable
 * singletons are in every plan, so counting their ids among the minima
 * changes no comparison. */
static void lf__relax(lf__exact *x, const lf_bitset *s, int32_t n, int64_t dram, int32_t groups,
                      int32_t first, int32_t known)
{
    int32_t cur = x->cur;
    int64_t nd = x->dram[cur] + dram;
    int32_t ng = x->groups[cur] + (groups < 0 ? 1 : groups);
    int32_t t = known >= 0 ? known : lf__dp_target(x, s, n);
    if (t < 0)
        return;
    if (nd > x->dram[t] || (nd == x->dram[t] && ng > x->groups[t]))
        return;
    /* lf__dp_target may have moved the arrays: take pointers only now. */
    uint64_t *mt = x->minima + (size_t)t * x->nwords;
    memcpy(x->next_minima, x->minima + (size_t)cur * x->nwords, (size_t)x->nwords * 8);
    x->next_minima[first >> 6] |= (uint64_t)1 << (first & 63);
    int cmp = nd < x->dram[t] || ng < x->groups[t] ? -1 : lf__minima_cmp(x->next_minima, mt, x->nwords);
    /* A joined group (cut_join.c) whose plan ties in the whole key wins when
     * its state was expanded first: the state that reached it first when
     * every state grew its own groups across the cut. */
    if (cmp == 0 && groups < 0 && x->prev[t] >= 0)
        cmp = x->size[cur] != x->size[x->prev[t]] ? (x->size[cur] < x->size[x->prev[t]] ? -1 : 1)
                                                 : (cur < x->prev[t] ? -1 : 1);
    if (cmp < 0) {
        x->dram[t] = nd;
        x->groups[t] = ng;
        memcpy(mt, x->next_minima, (size_t)x->nwords * 8);
        x->prev[t] = cur;
    }
}

static void lf__on_group(lf__exact *x)
{
    if (x->dram[x->cur] == INT64_MAX)
        return; /* a cut state no plan reaches yet (cut_join.c): heads only */
    /* The target state may already hold a plan that this group cannot beat
     * whatever it costs: its F_D is at least the floor (inputs, outputs and
     * weights once), and a strictly larger DRAM loses in the full order.
     * Then it need not be priced (a tie is priced: it may win on the group
     * count or the minima), nor is a tie at the floor whose plan would have
     * more groups than the target's (it loses on the count; under latency,
     * where compute-bound groups sit at their floor, most ties are these).
     * dram[] only falls and a tie keeps the fewer groups, so the answer
     * holds later. */
    int32_t t = lf__dp_target_find(x, &x->sbits);
    if (t >= 0 && x->dram[t] != INT64_MAX) {
        int64_t lb = x->dram[x->cur] + lf_cost_objective_floor(x->cm, x->sub, x->n_sub, x->in_s, x->seen);
        if (lb > x->dram[t] || (lb == x->dram[t] && x->groups[x->cur] + 1 > x->groups[t])) {
            x->st.groups_skipped++;
            return;
        }
    }
    lf_group_cost c;
    lf_status s = lf__dp_set_holds_cut(x) ? lf_cost_eval_once(x->cm, &x->sbits, &c)
                                          : lf_cost_eval(x->cm, &x->sbits, &c);
    if (s != LF_OK)
        x->status = s;
    else if (c.valid) /* dram[] holds the objective: F_D unless energy or latency */
        lf__relax(x, &x->sbits, x->n_sub, lf_cost_objective_value(x->cm, x->sub, x->n_sub, &c), 1,
                  x->sub[0], t);
}

static void lf__on_forced(lf__exact *x, int32_t v)
{
    if (x->dram[x->cur] == INT64_MAX)
        return;
    lf_bitset_set(&x->sbits, v);
    lf__relax(x, &x->sbits, 1, 0, 0, v, -1);
    lf_bitset_reset(&x->sbits, v);
}

static void lf__on_pair(lf__exact *x, int64_t f_d, int32_t first, int32_t target)
{
    lf__relax(x, NULL, 0, f_d, -1, first, target);
}

static void lf__on_head(lf__exact *x, int32_t c) { lf__join_head(x, c, lf__on_pair); }

static void lf__on_tail(lf__exact *x, int32_t c)
{
    if (x->dram[x->cur] == INT64_MAX)
        return;
    if (x->front)
        lf__frontier_tail(x, c);
    lf__join_tail(x, c, 0, 1);
}

/* Runs the DP over U and writes the best partition of U into *out. */
lf_status lf__exact_run(lf__exact *x, lf_plan *out, int64_t *dram)
{
    x->on_group = lf__on_group;
    x->on_forced = lf__on_forced;
    x->on_tail = lf__on_tail;
    x->on_head = lf__on_head;
    /* Joins at cut ops price the same groups as the enumeration would and
     * prune with floors of the objective (cut_join.c), any objective. */
    x->join_cuts = x->n_cuts > 0 && !x->no_join;
    lf_status st = x->join_cuts ? lf__join_create(x) : LF_OK;
    int32_t goal = st == LF_OK ? lf__dp_run(x) : -1;
    lf__join_free(x);
    if (st == LF_OK)
        st = x->status;
    if (st == LF_OK && (goal < 0 || x->dram[goal] == INT64_MAX))
        st = lf_set_error(LF_EPLAN, "exact planner found no valid plan of '%s'", x->g->name);
    if (st == LF_OK)
        st = lf_plan_init(out, x->n);
    if (st == LF_OK) {
        /* Walk back from the full set: each step's difference is one group. */
        int32_t gi = 0;
        for (int32_t s = goal; x->prev[s] >= 0; s = x->prev[s]) {
            const uint64_t *a = x->words + (size_t)s * x->nwords;
            const uint64_t *b = x->words + (size_t)x->prev[s] * x->nwords;
            for (int32_t v = 0; v < x->n; v++)
                if (((a[v >> 6] & ~b[v >> 6]) >> (v & 63)) & 1u)
                    out->group_of[v] = gi;
            gi++;
        }
        out->n_groups = gi;
        lf_plan_canonicalize(out);
        *dram = x->dram[goal];
    }
    return st;
}

static lf_status lf__exact_solve_by(lf_cost_model *cm, const lf_bitset *universe, const lf_exact_config *cfg,
                                    int mode, lf_plan *out, int64_t *dram, lf_exact_stats *stats)
{
    /* mode 0: as the planner; 1: candidates as order ideals; 2: no joins */
    lf__exact x;
    lf_status st = lf__dp_setup(&x, cm, universe, cfg);
    x.ideal_sets = mode == 1;
    x.no_join = mode == 2;
    if (st == LF_OK)
        st = lf__exact_run(&x, out, dram);
    if (stats)
        *stats = x.st;
    lf__dp_teardown(&x);
    return st;
}

lf_status lf__exact_solve(lf_cost_model *cm, const lf_bitset *universe, const lf_exact_config *cfg,
                          lf_plan *out, int64_t *dram, lf_exact_stats *stats)
{
    return lf__exact_solve_by(cm, universe, cfg, 0, out, dram, stats);
}

lf_status lf__exact_solve_ideals(lf_cost_model *cm, const lf_bitset *universe, const lf_exact_config *cfg,
                                 lf_plan *out, int64_t *dram, lf_exact_stats *stats)
{
    return lf__exact_solve_by(cm, universe, cfg, 1, out, dram, stats);
}

lf_status lf__exact_solve_whole(lf_cost_model *cm, const lf_bitset *universe, const lf_exact_config *cfg,
                                lf_plan *out, int64_t *dram, lf_exact_stats *stats)
{
    return lf__exact_solve_by(cm, universe, cfg, 2, out, dram, stats);
}

lf_status lf_exact_split(lf_cost_model *cm, const lf_bitset *group, const lf_exact_config *cfg,
                         lf_plan *out, int64_t *dram, lf_exact_stats *stats)
{
    const lf_graph *g = lf_cost_graph(cm);
    for (int32_t v = lf_bitset_next(group, 0); v >= 0; v = lf_bitset_next(group, v + 1))
        if (g->ops[v].type == LF_OP_INPUT || !lf_cost_fusable(cm, v))
            return lf_set_error(LF_EINVAL, "cannot split a group holding '%s': not a fusable op",
                                g->ops[v].name);
    lf__exact x;
    lf_status st = lf__dp_setup(&x, cm, group, cfg);
    if (st == LF_OK)
        st = lf__exact_run(&x, out, dram);
    if (stats)
        *stats = x.st;
    lf__dp_teardown(&x);
    return st;
}

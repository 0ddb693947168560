/* Polishing a plan with exact sub-solves (a large-neighbourhood search whose
 * neighbourhood is solved to optimality): the plan's groups are put in a
 * topological order of its quotient graph, and every run of consecutive
 * groups holding at most `window_ops` ops is re-planned by the exact planner
 * with everything before it computed and everything after it waiting.
 *
 * Why a run of consecutive groups: the groups before it form a downset of
 * the quotient and so of the graph (groups are convex), and so do the groups
 * up to its end; the run is the difference of two downsets, so any valid
 * plan of it keeps the whole quotient acyclic, and the old groups are one
 * such plan: a re-solve never makes the plan worse. A window whose solve
 * stops at a limit is left as it is. Passes repeat until one changes nothing;
 * a window already solved with the same ops in the same groups is not solved
 * again (its answer cannot differ).
 * Everything is deterministic (candidate limits only, no clock). */
#include <stdlib.h>
#include <string.h>

#include "planner/exact/exact.h"
#include "planner/cost/objective.h"
#include "planner/exact/solve.h"
#include "planner/util/clock.h"

/* Groups in a topological order of the quotient; among ready groups the one
 * with the smallest op first, or (breadth_first) the one made ready first,
 * ties by the smallest op (Kahn's algorithm with a scan: plans have at most
 * a few hundred groups). Either is a function of the partition alone. */
static lf_status lf__group_order(const lf_plan *p, const lf_graph *g, int breadth_first, int32_t *order)
{
    int32_t n = p->n_groups;
    int32_t *indeg = calloc((size_t)n, sizeof *indeg), *first = malloc((size_t)n * sizeof *first);
    int32_t *ready = malloc((size_t)(n > 0 ? n : 1) * sizeof *ready); /* when each became ready */
    uint8_t *done = calloc((size_t)n, 1);
    if (!indeg || !first || !done || !ready) {
        free(indeg);
        free(first);
        free(done);
        free(ready);
        return lf_set_error(LF_ENOMEM, "out of memory ordering the plan's groups");
    }
    for (int32_t k = 0; k < n; k++) {
        first[k] = INT32_MAX;
        ready[k] = breadth_first ? -1 : 0; /* sources: ready before any pick */
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        int32_t gv = p->group_of[v];
        if (gv < 0)
            continue;
        if (v < first[gv])
            first[gv] = v;
        for (int32_t j = 0; j < g->ops[v].n_inputs; j++) {
            int32_t gu = p->group_of[g->ops[v].inputs[j]];
            if (gu >= 0 && gu != gv)
                indeg[gv]++; /* one count per edge: released edge by edge below */
        }
    }
    lf_status st = LF_OK;
    for (int32_t k = 0; k < n && st == LF_OK; k++) {
        int32_t pick = -1;
        for (int32_t c = 0; c < n; c++)
            if (!done[c] && indeg[c] == 0 &&
                (pick < 0 || ready[c] < ready[pick] || (ready[c] == ready[pick] && first[c] < first[pick])))
                pick = c;
        if (pick < 0) {
            st = lf_set_error(LF_EGRAPH, "the plan's groups form a cycle");
            break;
        }
        done[pick] = 1;
        order[k] = pick;
        for (int32_t v = 0; v < g->n_ops; v++) {
            if (p->group_of[v] == pick)
                continue;
            int32_t gv = p->group_of[v];
            if (gv < 0)
                continue;
            for (int32_t j = 0; j < g->ops[v].n_inputs; j++)
                if (p->group_of[g->ops[v].inputs[j]] == pick && --indeg[gv] == 0 && breadth_first)
                    ready[gv] = k;
        }
    }
    free(indeg);
    free(first);
    free(done);
    free(ready);
    return st;
}

/* F_D of the plan's fusable groups in `u` (the figure lf__exact_solve
 * minimises over the same ops), and how many groups lie in it. */
static lf_status lf__window_dram(lf_cost_model *cm, const lf_plan *p, const int32_t *order, int32_t a,
                                 int32_t b, lf_bitset *tmp, int64_t *dram)
{
    *dram = 0;
    for (int32_t k = a; k < b; k++) {
        lf_plan_group_bitset(p, order[k], tmp);
        int32_t v = lf_bitset_next(tmp, 0);
        if (lf_plan_group_size(p, order[k]) == 1 && !lf_cost_fusable(cm, v))
            continue;
        lf_group_cost c;
        lf_status st = lf_cost_eval(cm, tmp, &c);
        if (st != LF_OK)
            return st;
        *dram += lf_cost_objective_of(cm, tmp, &c); /* F_D unless energy or latency */
    }
    return LF_OK;
}

/* Replaces the groups order[a..b) of *p by the groups of `sub` (which maps
 * exactly those ops) and renumbers. */
static lf_status lf__splice(lf_plan *p, const int32_t *order, int32_t a, int32_t b, const lf_plan *sub)
{
    int32_t n = p->n_groups;
    int32_t *map = malloc((size_t)(n > 0 ? n : 1) * sizeof *map);
    if (!map)
        return lf_set_error(LF_ENOMEM, "out of memory polishing a plan");
    for (int32_t k = 0; k < n; k++)
        map[k] = 0;
    for (int32_t k = a; k < b; k++)
        map[order[k]] = -1;
    int32_t next = 0;
    for (int32_t k = 0; k < n; k++)
        if (map[k] == 0)
            map[k] = next++;
    for (int32_t v = 0; v < p->n_ops; v++) {
        int32_t gv = p->group_of[v];
        if (gv >= 0)
            p->group_of[v] = map[gv] >= 0 ? map[gv] : next + sub->group_of[v];
    }
    p->n_groups = next + sub->n_groups;
    free(map);
    lf_plan_canonicalize(p);
    return LF_OK;
}

/* A fingerprint of window u and the plan's partition of it (FNV-1a over
 * each op and its group's rank of first appearance): a window solved before
 * with the same ops in the same groups gives the same answer again (the
 * exact solve depends on nothing outside u), so a later pass skips it. */
static uint64_t lf__window_key(const lf_plan *p, const lf_bitset *u, int32_t *rank)
{
    uint64_t h = 1469598103934665603ULL;
    int32_t next = 0;
    for (int32_t v = lf_bitset_next(u, 0); v >= 0; v = lf_bitset_next(u, v + 1)) {
        int32_t gv = p->group_of[v];
        if (rank[gv] < 0)
            rank[gv] = next++;
        uint64_t x[2] = {(uint64_t)v, (uint64_t)rank[gv]};
        for (int k = 0; k < 2; k++)
            for (int byte = 0; byte < 8; byte++)
                h = (h ^ ((x[k] >> (8 * byte)) & 0xff)) * 1099511628211ULL;
    }
    for (int32_t v = lf_bitset_next(u, 0); v >= 0; v = lf_bitset_next(u, v + 1))
        rank[p->group_of[v]] = -1;
    return h;
}

/* 1 when the run order[a..b) of a breadth-first order holds a group that
 * the first-op order `plain` places later (it moved up to follow the group
 * it reads): only such runs are new, the others are the plain order's runs
 * or differ from them only where nothing moved. pos (n entries, all -1) is
 * scratch and left as it was. */
static int lf__window_moved(const int32_t *order, const int32_t *plain, int32_t n, int32_t a, int32_t b,
                            int32_t *pos)
{
    for (int32_t k = 0; k < n; k++)
        pos[plain[k]] = k;
    int moved = 0;
    for (int32_t k = a; k < b && !moved; k++)
        moved = pos[order[k]] > k;
    for (int32_t k = 0; k < n; k++)
        pos[k] = -1;
    return moved;
}

void lf_polish_config_default(lf_polish_config *c)
{
    c->window_ops = LF_POLISH_DEFAULT_WINDOW;
    c->max_candidates = LF_POLISH_DEFAULT_CANDIDATES;
    c->max_passes = LF_POLISH_DEFAULT_PASSES;
    c->deadline = 0;
    c->fixed = NULL;
    c->breadth_first = 0;
    c->max_states = 0;
    c->max_windows = 0;
}

/* 1 when every op of window u is fixed (cfg->fixed): its groups are an
 * optimum of their own, which a re-solve cannot beat. */
static int lf__window_fixed(const lf_polish_config *cfg, const lf_bitset *u)
{
    if (!cfg->fixed)
        return 0;
    for (int32_t v = lf_bitset_next(u, 0); v >= 0; v = lf_bitset_next(u, v + 1))
        if (!cfg->fixed[v])
            return 0;
    return 1;
}

lf_status lf_exact_polish(lf_cost_model *cm, const lf_polish_config *cfg, lf_plan *plan,
                          lf_polish_stats *stats)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_polish_stats local;
    lf_polish_stats *s = stats ? stats : &local;
    memset(s, 0, sizeof *s);
    if (cfg->window_ops < 2 || cfg->max_candidates < 1 || cfg->max_passes < 1)
        return lf_set_error(LF_EINVAL, "polish: the window needs at least 2 ops and the limits 1");
    lf_exact_config ec;
    lf_exact_config_default(&ec);
    ec.max_candidates = cfg->max_candidates;
    if (cfg->max_states > 0)
        ec.max_states = cfg->max_states;
    ec.time_limit_s = 0; /* deterministic: candidate limits only, */
    ec.deadline = cfg->deadline; /* unless the caller's time is up */
    lf_bitset u, tmp;
    size_t n_alloc = (size_t)(g->n_ops > 0 ? g->n_ops : 1);
    int32_t *order = malloc(n_alloc * sizeof *order), *rank = malloc(n_alloc * sizeof *rank);
    int32_t *plain = malloc(n_alloc * sizeof *plain); /* the first-op order, beside a breadth-first one */
    uint64_t *seen = NULL; /* windows solved without a change (lf__window_key) */
    size_t n_seen = 0, cap_seen = 0;
    for (size_t k = 0; rank && k < n_alloc; k++)
        rank[k] = -1;
    lf_status st = order && rank && plain ? lf_bitset_init(&u, g->n_ops) : lf_set_error(LF_ENOMEM, "out of memory");
    if (st == LF_OK && (st = lf_bitset_init(&tmp, g->n_ops)) != LF_OK)
        lf_bitset_destroy(&u);
    if (st != LF_OK) {
        free(order);
        free(rank);
        free(plain);
        return st;
    }
    lf_plan_metrics m;
    if ((st = lf_plan_metrics_compute(plan, cm, &m)) == LF_OK)
        s->dram_before = s->dram_after = m.objective; /* the windows' unit: dram_fusable under DRAM */
    int changed = 1;
    while (st == LF_OK && changed && !s->out_of_time && s->passes < cfg->max_passes &&
           (cfg->max_windows <= 0 || s->windows < cfg->max_windows)) {
        changed = 0;
        s->passes++;
        for (int32_t a = 0; st == LF_OK; a++) {
            if ((st = lf__group_order(plan, g, cfg->breadth_first, order)) != LF_OK || a >= plan->n_groups - 1)
                break;
            if (cfg->breadth_first && (st = lf__group_order(plan, g, 0, plain)) != LF_OK)
                break;
            /* The longest run from a within the op budget, and two groups at
             * least (two large neighbours must be able to trade ops; the
             * candidate limit keeps such a window affordable or skips it). */
            int32_t b = a, ops = 0;
            while (b < plan->n_groups &&
                   (b - a < 2 || ops + lf_plan_group_size(plan, order[b]) <= cfg->window_ops))
                ops += lf_plan_group_size(plan, order[b++]);
            if (cfg->breadth_first && !lf__window_moved(order, plain, plan->n_groups, a, b, rank))
                continue;
            lf_bitset_clear_all(&u);
            for (int32_t k = a; k < b; k++) {
                lf_plan_group_bitset(plan, order[k], &tmp);
                lf_bitset_or(&u, &tmp);
            }
            if (lf__window_fixed(cfg, &u))
                continue;
            uint64_t key = lf__window_key(plan, &u, rank);
            int known = 0;
            for (size_t k = 0; k < n_seen && !known; k++)
                known = seen[k] == key;
            if (known)
                continue;
            if (n_seen == cap_seen) {
                size_t cap = cap_seen ? 2 * cap_seen : 64;
                uint64_t *grown = realloc(seen, cap * sizeof *seen);
                if (!grown) {
                    st = lf_set_error(LF_ENOMEM, "out of memory polishing a plan");
                    break;
                }
                seen = grown;
                cap_seen = cap;
            }
            if (cfg->deadline > 0 && lf_now_seconds() >= cfg->deadline) {
                s->out_of_time = 1;
                break;
            }
            if (cfg->max_windows > 0 && s->windows >= cfg->max_windows)
                break;
            int64_t old_dram = 0, new_dram = 0;
            if ((st = lf__window_dram(cm, plan, order, a, b, &tmp, &old_dram)) != LF_OK)
                break;
            lf_plan sub;
            s->windows++;
            lf_status xs = lf__exact_solve(cm, &u, &ec, &sub, &new_dram, NULL);
            if (xs == LF_ELIMIT && cfg->deadline > 0 && lf_now_seconds() >= cfg->deadline) {
                s->out_of_time = 1; /* cut by the deadline: not a window too big */
                break;
            }
            if (xs == LF_ELIMIT) {
                s->limited++;
                seen[n_seen++] = key;
                continue;
            }
            if (xs != LF_OK) {
                st = xs;
                break;
            }
            /* Strictly less DRAM, or as much in fewer groups (DESIGN §4's order). */
            if (new_dram < old_dram || (new_dram == old_dram && sub.n_groups < b - a)) {
                st = lf__splice(plan, order, a, b, &sub);
                s->improved++;
                s->dram_after -= old_dram - new_dram;
                changed = 1;
            } else {
                seen[n_seen++] = key;
            }
            lf_plan_destroy(&sub);
        }
    }
    lf_bitset_destroy(&u);
    lf_bitset_destroy(&tmp);
    free(order);
    free(rank);
    free(plain);
    free(seen);
    return st;
}

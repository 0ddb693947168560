/* The buffers where a lone op's price rises as the buffer grows (see
 * curve_rises.h): where it becomes fusable, where BRR starts to fit it,
 * and where one of its own DRAM steps raises its energy or latency. */
#include "planner/exact/curve_rises.h"

#include <stdlib.h>
#include <string.h>

#include "planner/cost/cost.h"
#include "planner/cost/objective.h"
#include "planner/exact/curve.h"
#include "planner/util/hashmap.h"

/* Sorts cuts ascending, each once; returns how many are left. */
static int32_t lf__sort_cuts(int64_t *cuts, int32_t n)
{
    for (int32_t i = 1; i < n; i++)
        for (int32_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            int64_t x = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = x;
        }
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++)
        if (m == 0 || cuts[m - 1] != cuts[i])
            cuts[m++] = cuts[i];
    return m;
}

/* The buffers above t (v's smallest buffer alone) inside (beta_min,
 * beta_max] where v's figure alone rises at a step of its DRAM (at most
 * LF_COST_MAX_STEPS of them), appended to cuts. */
static lf_status lf__scheme_rises(lf_cost_model *cm, int32_t v, int64_t t, int64_t beta_min,
                                  int64_t beta_max, int64_t *cuts, int32_t *n_cuts)
{
    lf_cost_step steps[LF_COST_MAX_STEPS];
    int32_t n = 0;
    lf_bitset one;
    lf_status st = lf_bitset_init(&one, lf_cost_graph(cm)->n_ops);
    if (st != LF_OK)
        return st;
    lf_bitset_set(&one, v);
    st = lf_cost_column_tiled(cm, v) ? lf_cost_op_schedules(cm, v, beta_max, steps, LF_COST_MAX_STEPS, &n)
                                     : lf_cost_steps(cm, &one, beta_max, steps, LF_COST_MAX_STEPS, &n);
    lf_bitset_destroy(&one);
    for (int32_t k = 0; k < n && st == LF_OK; k++) {
        int64_t at = steps[k].need + 1;
        if (at <= t || at <= beta_min || at > beta_max)
            continue;
        lf_group_cost below, above;
        if ((st = lf_cost_eval_at(cm, &v, 1, at - 1, &below)) != LF_OK ||
            (st = lf_cost_eval_at(cm, &v, 1, at, &above)) != LF_OK)
            break;
        if (below.valid && above.valid &&
            lf_cost_objective_value(cm, &v, 1, &above) > lf_cost_objective_value(cm, &v, 1, &below))
            cuts[(*n_cuts)++] = at;
    }
    return st;
}

/* Under energy or latency an op alone can cost more once it is fusable
 * than charged as unfusable just below (LBDF reads a group's weights from
 * the buffer once per row step; the unfusable charge streams them once),
 * so its figure is not a step function that only falls, which the Pareto
 * DP assumes. Under DRAM too (lf_cost_singleton_rises): a weight MatMul
 * just above BRR's threshold re-reads its input per output channel, dearer
 * than its charge below it. The buffers where that happens (an op's F_beta
 * alone + 1) are collected into cuts (ascending, n_cuts of them inside
 * (beta_min, beta_max]). */
lf_status lf__curve_rising_cuts(const lf_graph *g, const lf_hw *hw, const char *scheme, int64_t beta_min,
                                int64_t beta_max, const lf_exact_config *cfg, int64_t *cuts, int32_t *n_cuts)
{
    lf_hw h = *hw;
    lf_curve_fix_sram(&h);
    h.buffer_bytes = beta_max;
    lf_cost_model *cm = NULL;
    lf_status st = lf_cost_model_create(&cm, g, &h, scheme);
    if (st == LF_OK)
        st = lf_cost_set_objective(cm, (lf_plan_objective)cfg->objective);
    *n_cuts = 0;
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
        if (g->ops[v].type == LF_OP_INPUT)
            continue;
        int32_t m = *n_cuts;
        if ((st = lf_cost_singleton_rises(cm, v, beta_min, beta_max, cuts, n_cuts)) != LF_OK ||
            cfg->objective == LF_PLAN_OBJ_DRAM)
            continue;
        lf_group_cost alone, above;
        if ((st = lf_cost_eval_at(cm, &v, 1, beta_max, &alone)) != LF_OK)
            break;
        int64_t t = alone.valid ? alone.f_beta + 1 : INT64_MAX; /* the smallest buffer where v is fusable */
        /* Below t, v is charged as unfusable on both sides of a DRAM rise:
         * a cut where its figure rises too. From t on, the figures decide. */
        int32_t w = m;
        for (int32_t i = m; i < *n_cuts && st == LF_OK; i++) {
            int64_t below = 0, at = 0;
            if (cuts[i] >= t || (st = lf_cost_singleton_at(cm, v, cuts[i] - 1, &below)) != LF_OK ||
                (st = lf_cost_singleton_at(cm, v, cuts[i], &at)) != LF_OK)
                continue;
            if (lf_cost_objective_unfusable(cm, v, at) > lf_cost_objective_unfusable(cm, v, below))
                cuts[w++] = cuts[i];
        }
        *n_cuts = w;
        /* Above t, a step of the scheme's own that lowers v's DRAM may raise
         * its figure (BRR's column blocks of a weight MatMul re-read its
         * input per block): a cut there too. */
        if (st == LF_OK && t != INT64_MAX)
            st = lf__scheme_rises(cm, v, t, beta_min, beta_max, cuts, n_cuts);
        if (st != LF_OK || t <= beta_min || t > beta_max)
            continue;
        int64_t d = 0; /* the unfusable charge at buffer t - 1 */
        if ((st = lf_cost_singleton_at(cm, v, t - 1, &d)) != LF_OK ||
            (st = lf_cost_eval_at(cm, &v, 1, t, &above)) != LF_OK)
            break;
        if (lf_cost_objective_value(cm, &v, 1, &above) > lf_cost_objective_unfusable(cm, v, d))
            cuts[(*n_cuts)++] = t;
    }
    lf_cost_model_free(cm);
    *n_cuts = lf__sort_cuts(cuts, *n_cuts);
    return st;
}

/* ---- rises of the groups a staircase's plans use (several ops) ---------- */

#define LF__RISE_PIECES 4096 /* an attention group's prices in one range, at most */

/* A group already looked at: its members, and the pieces of its price
 * (buffers [from, to]) where the price exceeds the least before it in the
 * range: bad[bad_first ..] holds those n_bad pieces, then its rises as
 * rows [r, 0] (lf__scan_group). */
typedef struct lf__seen_group {
    int32_t first, n;         /* members: ops[first .. first + n) */
    int32_t bad_first, n_bad;
    int cut;                  /* its rises are in cuts already */
    int32_t same;             /* the group seen before it whose members hash alike, or -1 */
} lf__seen_group;

typedef struct lf__rise_scan {
    lf_cost_model *cm;
    int64_t lo, hi;
    int32_t *ops, n_ops, cap_ops;
    lf__seen_group *seen;
    int32_t n_seen, cap_seen;
    int64_t (*bad)[2];
    int32_t n_bad, cap_bad;
    /* The groups seen, by the hash of their members (value: the last one
     * seen with that hash, plus 1; lf__seen_group.same chains the rest):
     * consecutive points' plans share most of their groups, and a search
     * through every group seen cost a staircase of 482 points more than
     * scanning them (bert_base LBDF energy). */
    lf_hashmap by_hash;
    int32_t *group_first, *op_next; /* a plan's groups as chains of ops (ascending) */
    int64_t needs[LF__RISE_PIECES + LF_COST_MAX_STEPS + 1];
    int64_t price[LF__RISE_PIECES + LF_COST_MAX_STEPS + 1];
    lf_cost_step steps[LF_COST_MAX_STEPS];
} lf__rise_scan;

static lf_status lf__grow(void **p, int32_t *cap, int32_t need, size_t size)
{
    if (need <= *cap)
        return LF_OK;
    int32_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (!q)
        return lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    *p = q;
    *cap = c;
    return LF_OK;
}

/* The price of group m (n ops) over [lo, hi] as pieces (an attention
 * group's from lf_cost_attn_prices; any other's at lo and one byte above
 * each of its steps), into the scan's seen list: the pieces where it exceeds
 * the least price before it from lo (what the DP charged, curve.c), and the
 * buffers where it rises (above the piece before). */
static lf_status lf__scan_group(lf__rise_scan *s, const int32_t *m, int32_t n, lf__seen_group *sg)
{
    const lf_graph *g = lf_cost_graph(s->cm);
    lf_bitset set;
    lf_status st = lf_bitset_init(&set, g->n_ops);
    if (st != LF_OK)
        return st;
    for (int32_t i = 0; i < n; i++)
        lf_bitset_set(&set, m[i]);
    int32_t ns = 0, u = 0;
    lf_cost_sched *sc = NULL;
    st = lf_cost_attn_prices(s->cm, m, n, s->lo, s->hi, &sc, &ns);
    if (st == LF_OK && sc) {
        /* an attention group: its pieces as they are */
        for (int32_t k = 0; k < ns && u < LF__RISE_PIECES; k++) {
            lf_group_cost gc;
            memset(&gc, 0, sizeof gc);
            gc.valid = 1;
            gc.f_d = sc[k].f_d;
            gc.steps = (int32_t)sc[k].steps;
            s->needs[u] = sc[k].at;
            s->price[u++] = sc[k].valid ? lf_cost_objective_value(s->cm, m, n, &gc) : INT64_MAX;
        }
        if (ns > LF__RISE_PIECES)
            st = lf_set_error(LF_ERANGE, "curve: an attention group has more than %d prices in the range",
                              LF__RISE_PIECES);
        free(sc);
    } else if (st == LF_OK) {
        /* any other group: its price changes only at its steps (lo, and
         * one byte above each step's need inside (lo, hi]) */
        st = lf_cost_steps(s->cm, &set, s->hi, s->steps, LF_COST_MAX_STEPS, &ns);
        s->needs[u++] = s->lo;
        for (int32_t k = 0; k < ns && st == LF_OK; k++)
            if (s->steps[k].need >= s->lo)
                s->needs[u++] = s->steps[k].need + 1;
        for (int32_t k = 0; k < u && u > 1 && st == LF_OK; k++) {
            lf_group_cost gc;
            st = lf_cost_eval_at(s->cm, m, n, s->needs[k], &gc);
            s->price[k] = gc.valid ? lf_cost_objective_value(s->cm, m, n, &gc) : INT64_MAX;
        }
    }
    lf_bitset_destroy(&set);
    if (st != LF_OK)
        return st;
    sg->bad_first = s->n_bad;
    sg->n_bad = 0;
    if (u < 2)
        return LF_OK; /* one price over the range */
    int64_t least = INT64_MAX;
    for (int32_t k = 0; k < u; k++) {
        if (s->price[k] > least) {
            /* a piece dearer than the DP charged: [needs[k], next - 1], and
             * the rises of the whole range, one per row */
            if ((st = lf__grow((void **)&s->bad, &s->cap_bad, s->n_bad + 1, sizeof *s->bad)) != LF_OK)
                return st;
            s->bad[s->n_bad][0] = s->needs[k];
            s->bad[s->n_bad][1] = k + 1 < u ? s->needs[k + 1] - 1 : s->hi;
            s->n_bad++;
            sg->n_bad++;
        }
        if (s->price[k] < least)
            least = s->price[k];
    }
    if (sg->n_bad == 0)
        return LF_OK;
    /* The rises: where the price exceeds the piece before it. Kept after
     * the bad pieces, as pieces [r, 0]. */
    for (int32_t k = 1; k < u; k++)
        if (s->price[k - 1] != INT64_MAX && s->price[k] > s->price[k - 1] && s->needs[k] < s->hi) {
            if ((st = lf__grow((void **)&s->bad, &s->cap_bad, s->n_bad + 1, sizeof *s->bad)) != LF_OK)
                return st;
            s->bad[s->n_bad][0] = s->needs[k];
            s->bad[s->n_bad][1] = 0;
            s->n_bad++;
        }
    return LF_OK;
}

/* Adds [a, b] clipped to [from, to] to d, where anything is left. */
static lf_status lf__stretch_add(lf__stretches *d, int64_t a, int64_t b, int64_t from, int64_t to)
{
    a = a > from ? a : from;
    b = b < to ? b : to;
    if (a > b)
        return LF_OK;
    lf_status st = lf__grow((void **)&d->at, &d->cap, d->n + 1, sizeof *d->at);
    if (st == LF_OK) {
        d->at[d->n][0] = a;
        d->at[d->n++][1] = b;
    }
    return st;
}

static int lf__stretch_cmp(const void *x, const void *y)
{
    const int64_t *a = x, *b = y;
    int c = (a[0] > b[0]) - (a[0] < b[0]);
    return c ? c : (a[1] > b[1]) - (a[1] < b[1]);
}

/* Sorts d and joins stretches that overlap or touch. */
static void lf__stretches_merge(lf__stretches *d)
{
    if (d->n > 1)
        qsort(d->at, (size_t)d->n, sizeof *d->at, lf__stretch_cmp);
    int32_t w = 0;
    for (int32_t i = 0; i < d->n; i++) {
        if (w > 0 && d->at[i][0] <= d->at[w - 1][1] + 1) {
            if (d->at[i][1] > d->at[w - 1][1])
                d->at[w - 1][1] = d->at[i][1];
            continue;
        }
        d->at[w][0] = d->at[i][0];
        d->at[w++][1] = d->at[i][1];
    }
    d->n = w;
}

/* The ops of each group of plan p as chains, ascending: first[gi] its
 * first op (-1: none), next[v] the op after v in its group (-1: the last).
 * One pass over the ops for the whole plan, where gathering each group by
 * a pass of its own costs the groups times the ops at every point. */
static void lf__plan_chains(const lf_plan *p, int32_t *first, int32_t *next)
{
    for (int32_t gi = 0; gi < p->n_groups; gi++)
        first[gi] = -1;
    for (int32_t v = p->n_ops - 1; v >= 0; v--) {
        int32_t gi = p->group_of[v];
        next[v] = -1;
        if (gi < 0 || gi >= p->n_groups)
            continue;
        next[v] = first[gi];
        first[gi] = v;
    }
}

/* FNV-1a over a group's members (ascending). */
static uint64_t lf__members_hash(const int32_t *m, int32_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (int32_t i = 0; i < n; i++) {
        h ^= (uint64_t)(uint32_t)m[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* The rises inside (lo, hi) of the groups looked at whose price exceeds
 * the DP's charge somewhere in the range and that are not cut, into hints
 * (ascending, each once, none that is a cut; none at all where there are
 * more than cap). */
static void lf__rise_hints(const lf__rise_scan *s, const int64_t *cuts, int32_t n_cuts, int64_t *hints,
                           int32_t *n_hints, int32_t cap)
{
    int32_t n = 0;
    for (int32_t i = 0; i < s->n_seen; i++) {
        const lf__seen_group *sg = &s->seen[i];
        if (sg->cut || sg->n_bad == 0)
            continue;
        for (int32_t r = sg->bad_first + sg->n_bad; r < s->n_bad && s->bad[r][1] == 0; r++) {
            int64_t at = s->bad[r][0];
            int dup = at <= s->lo;
            for (int32_t j = 0; j < n_cuts && !dup; j++)
                dup = cuts[j] == at;
            for (int32_t j = 0; j < n && !dup; j++)
                dup = hints[j] == at;
            if (dup)
                continue;
            if (n == cap) {
                *n_hints = 0;
                return;
            }
            hints[n++] = at;
        }
    }
    *n_hints = lf__sort_cuts(hints, n);
}

lf_status lf__curve_plan_rises(const lf_graph *g, const lf_hw *hw, const char *scheme,
                               const lf_exact_config *cfg, const lf_curve *part, int64_t lo, int64_t hi,
                               int64_t top, int64_t *cuts, int32_t *n_cuts, int32_t cap, int64_t *hints,
                               int32_t *n_hints, int32_t hint_cap, lf__stretches *dirty)
{
    *n_cuts = 0;
    if (dirty)
        dirty->n = 0;
    if (n_hints)
        *n_hints = 0;
    if (!cfg || cfg->objective == LF_PLAN_OBJ_DRAM)
        return LF_OK; /* F_D's steps only fall */
    lf_hw h = *hw;
    lf_curve_fix_sram(&h);
    h.buffer_bytes = hi;
    lf__rise_scan *s = calloc(1, sizeof *s);
    if (!s)
        return lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    s->lo = lo;
    s->hi = hi;
    lf_status st = lf_cost_model_create(&s->cm, g, &h, scheme);
    if (st == LF_OK)
        st = lf_cost_set_objective(s->cm, (lf_plan_objective)cfg->objective);
    int32_t *m = st == LF_OK ? malloc((size_t)g->n_ops * sizeof *m) : NULL;
    s->group_first = st == LF_OK ? malloc(((size_t)g->n_ops + 1) * sizeof *s->group_first) : NULL;
    s->op_next = st == LF_OK ? malloc(((size_t)g->n_ops + 1) * sizeof *s->op_next) : NULL;
    if (st == LF_OK && (!m || !s->group_first || !s->op_next))
        st = lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    if (st == LF_OK)
        st = lf_hashmap_init(&s->by_hash, 256);
    for (int32_t k = 0; k < part->n && st == LF_OK; k++) {
        const lf_plan *p = &part->points[k].plan;
        int64_t from = part->points[k].beta, to = k + 1 < part->n ? part->points[k + 1].beta - 1 : top;
        if (to > top)
            to = top;
        if (from > to)
            continue;
        lf__plan_chains(p, s->group_first, s->op_next);
        for (int32_t gi = 0; gi < p->n_groups && st == LF_OK; gi++) {
            int32_t n = 0;
            for (int32_t v = s->group_first[gi]; v >= 0; v = s->op_next[v])
                m[n++] = v;
            if (n < 2)
                continue; /* a lone op's rises cut the range already (lf__curve_rising_cuts) */
            /* looked at before? (members ascend) */
            uint64_t h = lf__members_hash(m, n);
            void *val = NULL;
            int32_t at = lf_hashmap_get(&s->by_hash, h, &val) ? (int32_t)((intptr_t)val - 1) : -1;
            while (at >= 0 && !(s->seen[at].n == n && !memcmp(s->ops + s->seen[at].first, m, (size_t)n * sizeof *m)))
                at = s->seen[at].same;
            if (at < 0) {
                if ((st = lf__grow((void **)&s->seen, &s->cap_seen, s->n_seen + 1, sizeof *s->seen)) != LF_OK ||
                    (st = lf__grow((void **)&s->ops, &s->cap_ops, s->n_ops + n, sizeof *s->ops)) != LF_OK)
                    break;
                lf__seen_group *sg = &s->seen[s->n_seen];
                memset(sg, 0, sizeof *sg);
                sg->first = s->n_ops;
                sg->n = n;
                sg->same = lf_hashmap_get(&s->by_hash, h, &val) ? (int32_t)((intptr_t)val - 1) : -1;
                memcpy(s->ops + s->n_ops, m, (size_t)n * sizeof *m);
                s->n_ops += n;
                if ((st = lf__scan_group(s, m, n, sg)) != LF_OK ||
                    (st = lf_hashmap_put(&s->by_hash, h, (void *)(intptr_t)(s->n_seen + 1))) != LF_OK)
                    break;
                at = s->n_seen++;
            }
            lf__seen_group *sg = &s->seen[at];
            /* every group, cut already or not: a stretch is where this
             * point's own plan prices above its charge */
            for (int32_t i = 0; i < sg->n_bad && dirty && st == LF_OK; i++)
                st = lf__stretch_add(dirty, s->bad[sg->bad_first + i][0], s->bad[sg->bad_first + i][1], from, to);
            if (st != LF_OK || sg->cut || sg->n_bad == 0)
                continue;
            int hit = 0;
            for (int32_t i = 0; i < sg->n_bad && !hit; i++)
                hit = s->bad[sg->bad_first + i][0] <= to && s->bad[sg->bad_first + i][1] >= from;
            if (!hit)
                continue;
            /* This plan costs more than the staircase says somewhere while
             * it holds: cut at every rise of the group in the range. */
            sg->cut = 1;
            for (int32_t i = sg->bad_first + sg->n_bad; i < s->n_bad && s->bad[i][1] == 0; i++) {
                if (*n_cuts == cap) {
                    st = lf_set_error(LF_ERANGE, "curve: more than %d rising prices in a range", (int)cap);
                    break;
                }
                cuts[(*n_cuts)++] = s->bad[i][0];
            }
        }
    }
    if (st == LF_OK)
        *n_cuts = lf__sort_cuts(cuts, *n_cuts);
    if (st == LF_OK && dirty)
        lf__stretches_merge(dirty);
    if (st == LF_OK && n_hints)
        lf__rise_hints(s, cuts, *n_cuts, hints, n_hints, hint_cap);
    free(m);
    lf_hashmap_destroy(&s->by_hash);
    free(s->group_first);
    free(s->op_next);
    lf_cost_model_free(s->cm);
    free(s->ops);
    free(s->seen);
    free(s->bad);
    free(s);
    return st;
}

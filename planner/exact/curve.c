/* The staircase of optimal DRAM against the buffer size by a Pareto DP over
 * downsets (see curve.h). States and candidate groups come from downsets.c,
 * enumerated once under the largest buffer; each state keeps the Pareto front
 * of (DRAM over all ops, largest need) of the plans of its ops, and a
 * group with steps (need_k, F_D_k) extends every point of the front it leaves
 * by every step. One run solves several parts of a range at once, a front
 * per part (curve_ranges.c cuts the range where prices rise). */
#include "planner/exact/curve.h"

#include <stdlib.h>
#include <string.h>

#include "planner/cost/objective.h"
#include "planner/exact/curve_front.h"
#include "planner/exact/curve_run.h"
#include "planner/exact/curve_steps.h"
#include "planner/exact/cut_join.h"
#include "planner/exact/downsets.h"
#include "planner/util/pool.h"

/* One part of the range the run solves: its fronts and what its buffers
 * decide. Every part of a run sees the same states and candidate groups
 * (one enumeration, under the run's largest buffer): a group is found,
 * looked up in the store across parts and priced once for all of them,
 * where a run per part would find every group again (bert_base BRR energy,
 * eight parts: most of the time, docs/results/energy.md). */
typedef struct lf__curve_part {
    lf__front *fronts;     /* by state (the run's n_fronts of them) */
    int64_t beta_min, beta_max;
    lf_cost_model *cm;     /* priced at beta_max: the run's own model for the last part */
    lf_cost_step **single; /* per op: its steps alone (lf_cost_singleton_steps) */
    int32_t *n_single;
} lf__curve_part;

typedef struct lf__curve_dp {
    lf__curve_part *parts; /* beta ascending; the last one's beta_max is the enumeration's */
    int32_t n_parts;
    int64_t n_fronts;
    int64_t *fb1;      /* per op: the buffer it needs alone to be fusable (F_beta; alike in every part) */
    lf_cost_step steps[LF_COST_MAX_STEPS];
    lf_group_cost at[LF_COST_MAX_STEPS]; /* each step's cost at its buffer (energy, latency) */
    lf_steps_store *keep; /* energy, latency: each group's figures for every part of the range */
    int64_t range_min, range_max; /* the whole range (keep's steps are below its largest buffer) */
    lf_cost_step *pieces; /* scratch: a group's figures as keep holds them */
    lf_bitset key;        /* scratch: a group's canonical copy, its key in keep */
    int32_t *members;  /* scratch: the ops of a group priced whole from its bitset */
} lf__curve_dp;

/* What the store across parts holds of the group being priced: looked up
 * once, by the first part that needs it. */
enum { LF__KEPT_NONE, LF__KEPT_STEPS, LF__KEPT_ATTN };
typedef struct lf__kept {
    int looked, kind;
    int32_t n;                 /* entries of steps */
    const lf_cost_step *steps; /* in the store, or c->pieces */
} lf__kept;

/* The ops of the group being priced: listed from its bitset on first use
 * (n < 0 until then) into c->members, as a group found in the store needs
 * none (bert_base BRR energy: listing them was a twelfth of the passes
 * after the first, which find nearly every group there). */
typedef struct lf__members {
    const int32_t *ops;
    int32_t n;
} lf__members;

static const int32_t *lf__members_list(lf__curve_dp *c, const lf_bitset *set, lf__members *m)
{
    if (m->n < 0) {
        m->n = lf_bitset_to_list(set, c->members);
        m->ops = c->members;
    }
    return m->ops;
}

/* Makes sure every part has a front for state s. */
static int lf__fronts_reach(lf__exact *x, int32_t s)
{
    lf__curve_dp *c = x->user;
    if (s < c->n_fronts)
        return 1;
    int64_t n = c->n_fronts ? c->n_fronts : 1024;
    while (n <= s)
        n *= 2;
    for (int32_t k = 0; k < c->n_parts; k++) {
        lf__front *f = realloc(c->parts[k].fronts, (size_t)n * sizeof *f);
        if (!f) {
            x->status = lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
            return 0;
        }
        memset(f + c->n_fronts, 0, (size_t)(n - c->n_fronts) * sizeof *f);
        c->parts[k].fronts = f;
    }
    x->extra_bytes += (n - c->n_fronts) * (int64_t)sizeof(lf__front) * c->n_parts;
    c->n_fronts = n;
    return 1;
}

/* The figures of a group at each of its steps below the whole range's
 * largest buffer, from the store kept across the range's parts (c->keep)
 * or priced and put there: a group is priced once for all parts, each
 * part's cost model prices it alike (the buffer plays no part in a price
 * at a given beta, and the SRAM figure is the range's: lf_curve_fix_sram).
 * LF__KEPT_NONE where it cannot say (no store, or a walk over the whole
 * range that fails where a part's own might not). An attention group is
 * kept as a step at need -1 (no group's need) holding -1 (its invalid
 * buffers are priced INT64_MAX, so no least need is walked for), followed
 * by its prices over the whole range (lf__attn_range_prices; none
 * where they are too many: each part prices it then), from which each part
 * takes its steps (lf__attn_part_steps). */
static lf_status lf__kept_lookup(lf_cost_model *cm, lf__curve_dp *c, const lf_bitset *set, lf__members *mem,
                                 lf__kept *k)
{
    k->looked = 1;
    k->kind = LF__KEPT_NONE;
    if (!c->keep)
        return LF_OK;
    /* Copies of a group one repeated block apart are priced alike: kept
     * once, under their canonical copy (a transformer's layers). */
    lf_cost_canonical(cm, set, &c->key);
    lf_cost_step *kept = c->pieces; /* LF__ATTN_PIECES + 1 */
    int32_t nk = 0;
    lf_status st = LF_OK;
    k->steps = kept;
    if (!lf_steps_store_peek(c->keep, &c->key, c->range_max, LF_COST_MAX_STEPS, &k->steps, &nk)) {
        k->steps = kept;
        const int32_t *members = lf__members_list(c, set, mem);
        int32_t n_members = mem->n;
        int attn = lf_cost_group_attn(cm, members, n_members);
        if (attn && lf_steps_store_full(c->keep))
            return LF_OK; /* not kept: each part prices it over its own range alone */
        if (attn) {
            /* An attention group (known from its ops): its prices over the
             * whole range, each invalid buffer's figure INT64_MAX, so no
             * DRAM step of it is walked; -1: no need below which a part
             * has none of its steps (lf__attn_part_steps). */
            kept[0] = (lf_cost_step){-1, -1};
            st = lf__attn_range_prices(cm, members, n_members, c->range_min, c->range_max, kept + 1, &nk);
            nk++;
        } else {
            int priced = 0;
            if (lf_cost_steps_priced(cm, set, c->range_max, 0, c->steps, c->at, LF_COST_MAX_STEPS, &nk,
                                     &priced) != LF_OK)
                return LF_OK; /* each part's own walk says what went wrong */
            int32_t attn_at; /* nk: no step of a group without attention is priced as one */
            st = lf__step_figures(cm, members, n_members, -1, 0, 0, c->steps, priced ? c->at : NULL, nk, &attn_at);
            if (st == LF_OK)
                memcpy(kept, c->steps, (size_t)nk * sizeof *kept);
        }
        if (st == LF_OK)
            st = lf_steps_store_put(c->keep, &c->key, c->range_max, kept, LF_COST_MAX_STEPS, nk);
        if (st != LF_OK)
            return st;
    }
    if (nk >= 1 && k->steps[0].need < 0) { /* an attention group */
        if (nk > 1)
            k->kind = LF__KEPT_ATTN;
    } else {
        k->kind = LF__KEPT_STEPS;
    }
    k->n = nk;
    return LF_OK;
}

/* The steps of group `set` (members: its ops) for part p, below its
 * largest buffer, in the objective's figure: under DRAM lf_cost_steps;
 * else from the store across parts (kept, looked up on first use with cm)
 * where it holds the group, or lf_cost_steps then lf__steps_objective,
 * which reads each step's schedule from the walk that found the step. */
static lf_status lf__group_steps(lf_cost_model *cm, lf__curve_dp *c, const lf__curve_part *p, lf__kept *kept,
                                 const lf_bitset *set, lf__members *mem, int32_t *n)
{
    if (lf_cost_objective(p->cm) == LF_PLAN_OBJ_DRAM)
        return lf_cost_steps(p->cm, set, p->beta_max, c->steps, LF_COST_MAX_STEPS, n);
    lf_status st = kept->looked ? LF_OK : lf__kept_lookup(cm, c, set, mem, kept);
    if (st != LF_OK)
        return st;
    if (kept->kind == LF__KEPT_ATTN) {
        st = lf__attn_part_steps(p->cm, kept->steps + 1, kept->n - 1, kept->steps[0].f_d, p->beta_min, p->beta_max,
                                 c->steps, n);
        if (st == LF_OK)
            *n = lf__step_keep(c->steps, *n, p->beta_min);
        return st;
    }
    if (kept->kind == LF__KEPT_STEPS) {
        /* Steps from the part's largest buffer on are not its (lf_cost_steps
         * leaves them out, and none of them replaces one below it). */
        *n = kept->n;
        while (*n > 0 && kept->steps[*n - 1].need >= p->beta_max)
            (*n)--;
        memcpy(c->steps, kept->steps, (size_t)*n * sizeof *c->steps);
        *n = lf__step_keep(c->steps, *n, p->beta_min);
        return LF_OK;
    }
    /* An attention group not kept across parts is priced at every buffer of
     * the part: its DRAM steps would only be walked to be dropped. */
    const int32_t *members = lf__members_list(c, set, mem);
    int32_t n_members = mem->n;
    if (lf_cost_group_attn(p->cm, members, n_members))
        return lf__steps_attention_group(p->cm, members, n_members, p->beta_min, p->beta_max, c->steps, n);
    int priced = 0;
    st = lf_cost_steps_priced(p->cm, set, p->beta_max, p->beta_min, c->steps, c->at, LF_COST_MAX_STEPS, n,
                              &priced);
    if (st != LF_OK)
        return st;
    return lf__steps_objective(p->cm, members, n_members, -1, 0, p->beta_min, p->beta_max, c->steps,
                               priced ? c->at : NULL, n);
}

/* Extends part p's front of the current state by the steps into state t's
 * (usable from floor on), on the DP's thread. */
static void lf__extend_to(lf__exact *x, lf__curve_part *p, int32_t t, const lf_cost_step *steps, int32_t n_steps,
                          int64_t floor)
{
    if (n_steps == 0 || t < 0 || !lf__fronts_reach(x, t) || !lf__fronts_reach(x, x->cur))
        return;
    /* Only what lf__front_extend writes: this runs for every group, and the
     * message (hundreds of bytes) is filled only on a failure. */
    lf__join_acc acc;
    acc.bytes = 0;
    acc.status = LF_OK;
    int64_t lo = p->beta_min - 1 > floor ? p->beta_min - 1 : floor;
    lf__front_extend(&acc, &p->fronts[x->cur], x->cur, &p->fronts[t], steps, n_steps, lo);
    x->extra_bytes += acc.bytes;
    if (acc.status != LF_OK && x->status == LF_OK)
        x->status = acc.status; /* the message is this thread's */
}

/* The state a group extends into: given (t >= 0), or D u set (n ops),
 * found or made on the first call for the group (*t then holds it). */
static int32_t lf__target(lf__exact *x, const lf_bitset *set, int32_t n, int32_t *t, int *tried)
{
    if (*t < 0 && !*tried) {
        *tried = 1;
        *t = lf__dp_target(x, set, n);
    }
    return *t;
}

static void lf__curve_single(lf__exact *x, int32_t v)
{
    lf__curve_dp *c = x->user;
    int32_t t = -1;
    int tried = 0;
    for (int32_t k = 0; k < c->n_parts && x->status == LF_OK; k++) {
        lf__curve_part *p = &c->parts[k];
        if (p->n_single[v] > 0)
            lf__extend_to(x, p, lf__target(x, &x->sbits, 1, &t, &tried), p->single[v], p->n_single[v], 0);
    }
}

static void lf__curve_forced(lf__exact *x, int32_t v)
{
    lf_bitset_set(&x->sbits, v);
    lf__curve_single(x, v);
    lf_bitset_reset(&x->sbits, v);
}

/* The largest need of a member of the set being grown alone. */
static int64_t lf__members_need(const lf__exact *x)
{
    const lf__curve_dp *c = x->user;
    int64_t need = 0;
    for (int32_t i = 0; i < x->n_sub; i++)
        if (c->fb1[x->sub[i]] > need)
            need = c->fb1[x->sub[i]];
    return need;
}

/* The parts whose front of state t a group from state `from` could still
 * add to, given that each of its steps needs at least `need` and costs at
 * least the floor (floor_of() the first time it is asked, as it costs a
 * walk over the group): in the others the group is usable at none of their
 * buffers, or every such point is beaten already (lf__front_dominated). */
static uint64_t lf__live_parts(lf__exact *x, int32_t from, int32_t t, int64_t need, int64_t (*floor_of)(lf__exact *),
                               int64_t floor)
{
    lf__curve_dp *c = x->user;
    uint64_t live = 0;
    int have = floor_of == NULL;
    for (int32_t k = 0; k < c->n_parts; k++) {
        const lf__curve_part *p = &c->parts[k];
        if (need >= p->beta_max)
            continue;
        if (t < 0 || t >= c->n_fronts || from >= c->n_fronts || p->fronts[t].n == 0) {
            live |= (uint64_t)1 << k;
            continue;
        }
        if (!have) {
            floor = floor_of(x);
            have = 1;
        }
        int64_t nk = need < p->beta_min - 1 ? p->beta_min - 1 : need;
        if (!lf__front_dominated(&p->fronts[from], &p->fronts[t], nk, floor))
            live |= (uint64_t)1 << k;
    }
    return live;
}

/* The objective's floor of the set being grown: inputs, outputs and
 * weights once. */
static int64_t lf__set_floor(lf__exact *x)
{
    return lf_cost_objective_floor(x->cm, x->sub, x->n_sub, x->in_s, x->seen);
}

/* The parts for which the set being grown is not beaten in its target's
 * front already: each step's F_D is at least the floor and each need at
 * least the enumeration's lower bound of F_beta and every member's need
 * alone. */
static uint64_t lf__curve_live(lf__exact *x)
{
    int32_t t = lf__dp_target_find(x, &x->sbits);
    int64_t need = lf__dp_set_need_floor(x), alone = lf__members_need(x);
    return lf__live_parts(x, x->cur, t, need > alone ? need : alone, lf__set_floor, 0);
}

/* Extends part p by the steps of group `set` below its largest buffer
 * (none: it is valid nowhere in the part), usable from its smallest step's
 * need and where every member alone fits (aux). For a group priced once
 * (one that holds a cut op, so no memo helps) this is all of
 * lf__curve_price's work from one view of the group, where pricing it
 * first would build two. */
static void lf__price_steps(lf__exact *x, lf__curve_part *p, lf__kept *kept, const lf_bitset *set, int32_t n_ops,
                            lf__members *mem, int64_t aux, int32_t *t, int *tried)
{
    lf__curve_dp *c = x->user;
    int32_t n = 0;
    lf_status st = lf__group_steps(x->cm, c, p, kept, set, mem, &n);
    if (st != LF_OK) {
        x->status = st;
        return;
    }
    int64_t thr = n > 0 && c->steps[0].need > aux ? c->steps[0].need : aux;
    if (n == 0 || thr >= p->beta_max)
        return;
    int64_t floor = thr > p->beta_min - 1 ? thr : p->beta_min - 1;
    lf__extend_to(x, p, lf__target(x, set, n_ops, t, tried), c->steps, n, floor);
}

/* The same for a group priced through the memo (lf_cost_eval at p's
 * largest buffer): one step where its price cannot change with the
 * buffer. */
static void lf__price_part(lf__exact *x, lf__curve_part *p, lf__kept *kept, const lf_bitset *set, int32_t n_ops,
                           int64_t aux, int32_t *t, int *tried)
{
    lf__curve_dp *c = x->user;
    lf_group_cost gc;
    lf_status st = lf_cost_eval(p->cm, set, &gc);
    if (st != LF_OK) {
        x->status = st;
        return;
    }
    if (!gc.valid)
        return;
    /* Every member must be fusable at the buffer where the group is used. */
    int64_t thr = gc.f_beta > aux ? gc.f_beta : aux;
    if (thr >= p->beta_max)
        return;
    int64_t floor = thr > p->beta_min - 1 ? thr : p->beta_min - 1;
    int32_t n = 0;
    if (!gc.wait_resident && gc.reread_bytes == 0 && !gc.attn &&
        (x->resident || gc.weights + gc.features <= floor)) {
        /* One step: a scheme that keeps every weight resident (LBDF), or one
         * that streams them (BRR) with every weight resident wherever the
         * group is valid (gc, priced at the largest buffer, says how much).
         * A group with a squeeze-and-excite wait has a step for each way
         * through it (lf_cost_steps), and so has an attention group, whose
         * K/V are resident or read again per query tile by the buffer. */
        c->steps[0] = (lf_cost_step){thr, lf_cost_objective_value(p->cm, x->sub, x->n_sub, &gc)};
        n = 1;
    } else if ((st = lf__group_steps(x->cm, c, p, kept, set, &(lf__members){x->sub, x->n_sub}, &n)) != LF_OK) {
        x->status = st;
        return;
    } else if (n > 0 && c->steps[0].need < gc.f_beta) {
        /* A group with a squeeze-and-excite wait is usable from its
         * smallest step: reading the wait's tensors again needs less than
         * keeping them, the way gc took at the largest buffer (so its F_beta
         * is the keeping way's, and the steps below it are the other's). */
        thr = c->steps[0].need > aux ? c->steps[0].need : aux;
        floor = thr > p->beta_min - 1 ? thr : p->beta_min - 1;
    }
    if (n > 0) /* a group with no step makes no state (as a run of its own would not) */
        lf__extend_to(x, p, lf__target(x, set, n_ops, t, tried), c->steps, n, floor);
}

/* Prices the group `set` (its members alone need up to aux) for the parts
 * in `live` and extends the current state's fronts by its steps into state
 * t (-1: D u set, of n ops). once: a group no memo helps (lf__price_steps). */
static void lf__curve_price(lf__exact *x, const lf_bitset *set, int32_t n_ops, int64_t aux, uint64_t live,
                            int32_t t, int once)
{
    lf__curve_dp *c = x->user;
    /* The group's own members: a pair joined at a cut op and priced whole
     * (cut_join.c) is not the set being grown. */
    lf__members mem = {x->sub, x->n_sub};
    if (once && set != &x->sbits)
        mem.n = -1; /* listed where the objective's steps read them (lf__members_list) */
    lf__kept kept = {0, LF__KEPT_NONE, 0, NULL};
    int tried = t >= 0;
    for (int32_t k = 0; k < c->n_parts && x->status == LF_OK; k++) {
        if (!((live >> k) & 1u))
            continue;
        if (once)
            lf__price_steps(x, &c->parts[k], &kept, set, n_ops, &mem, aux, &t, &tried);
        else
            lf__price_part(x, &c->parts[k], &kept, set, n_ops, aux, &t, &tried);
    }
}

static void lf__curve_group(lf__exact *x)
{
    if (x->n_sub == 1) {
        lf__curve_single(x, x->sub[0]);
        return;
    }
    uint64_t live = lf__curve_live(x);
    if (live == 0) {
        x->st.groups_skipped++;
        return;
    }
    lf__curve_price(x, &x->sbits, x->n_sub, lf__members_need(x), live, -1, lf__dp_set_holds_cut(x));
}

/* A joined group (cut_join.c) adds nothing from state `from` to state t in
 * any part (lf__live_parts). */
static int lf__curve_join_dominated(lf__exact *x, int32_t from, int32_t t, int64_t need, int64_t floor)
{
    return lf__live_parts(x, from, t, need, NULL, floor) == 0;
}

/* A group joined at a cut op (cut_join.c): its steps (below the run's
 * largest buffer; each part takes those below its own), valid from where
 * every member is fusable too. */
static void lf__curve_join_extend(const lf__exact *x, lf__join_acc *acc, int32_t from,
                                  const lf_cost_step *steps, int32_t n, int64_t aux, int32_t target)
{
    const lf__curve_dp *c = x->user;
    for (int32_t k = 0; k < c->n_parts && acc->status == LF_OK; k++) {
        lf__curve_part *p = &c->parts[k];
        int32_t m = n;
        while (m > 0 && steps[m - 1].need >= p->beta_max)
            m--;
        int64_t thr = m > 0 && steps[0].need > aux ? steps[0].need : aux;
        if (m == 0 || thr >= p->beta_max)
            continue;
        lf__front_extend(acc, &p->fronts[from], from, &p->fronts[target], steps, m,
                         thr > p->beta_min - 1 ? thr : p->beta_min - 1);
    }
}

/* A joined group whose sides do not separate: priced whole. */
static void lf__curve_join_whole(lf__exact *x, const lf_bitset *set, int64_t aux, int32_t target)
{
    lf__curve_price(x, set, 0, aux, ~(uint64_t)0, target, 1);
}

static const lf__join_staircase lf__curve_join = {lf__curve_join_dominated, lf__curve_join_extend,
                                                  lf__curve_join_whole};

static void lf__curve_tail(lf__exact *x, int32_t c)
{
    lf__curve_dp *cd = x->user;
    if (x->cur >= cd->n_fronts)
        return;
    for (int32_t k = 0; k < cd->n_parts; k++)
        if (cd->parts[k].fronts[x->cur].n > 0) {
            lf__join_tail(x, c, lf__members_need(x), x->resident);
            return;
        }
}

/* Joins the heads waiting from the current state with their tails; every
 * front they touch exists first (on several threads, none may grow the
 * arrays of fronts). */
static void lf__curve_flush(lf__exact *x)
{
    if (x->join && x->n_states > 0 && lf__fronts_reach(x, (int32_t)x->n_states - 1))
        lf__join_flush_steps(x, &lf__curve_join);
}

static void lf__curve_head(lf__exact *x, int32_t c)
{
    lf__curve_dp *cd = x->user;
    lf__join_head_steps(x, c, cd->parts[cd->n_parts - 1].beta_max, lf__members_need(x));
    /* Where weights stay resident a head is joined as it is grown: the
     * dominance walk (lf__curve_join.dominated) reads the enumeration's
     * scratch of the head. */
    if (x->resident)
        lf__curve_flush(x);
}

static void lf__curve_free(lf__curve_dp *c, int32_t n_ops)
{
    for (int32_t k = 0; k < c->n_parts; k++) {
        lf__curve_part *p = &c->parts[k];
        for (int64_t s = 0; p->fronts && s < c->n_fronts; s++) {
            free(p->fronts[s].p);
            free(p->fronts[s].b);
        }
        free(p->fronts);
        if (p->single)
            for (int32_t v = 0; v < n_ops; v++)
                free(p->single[v]);
        free(p->single);
        free(p->n_single);
    }
    free(c->fb1);
    free(c->members);
    free(c->pieces);
    lf_bitset_destroy(&c->key);
}

/* The steps of op v alone for part p (its F_beta alone fb1, gc: its cost
 * at the part's largest buffer) into p->single[v]. */
static lf_status lf__single_steps(lf__curve_dp *c, lf__curve_part *p, int32_t v, const lf_group_cost *gc,
                                  lf_bitset *one)
{
    lf_cost_model *cm = p->cm;
    int32_t n = 0;
    lf_status st = lf_cost_singleton_steps(cm, v, p->beta_min, p->beta_max, c->steps, LF_COST_MAX_STEPS, &n);
    if (st == LF_OK && lf_cost_objective(cm) != LF_PLAN_OBJ_DRAM) {
        /* the unfusable charges, then the scheme's own steps (above) */
        int64_t fb1 = gc->valid ? gc->f_beta : INT64_MAX;
        int32_t m = 0, more = 0;
        while (m < n && c->steps[m].need < fb1)
            m++;
        int priced = 0; /* c->at holds the walk's prices */
        lf_bitset_set(one, v);
        /* A lone MatMul tiled by columns: every schedule, since its
         * figure can fall where its F_D does not (lf_cost_op_schedules). */
        if (gc->valid && lf_cost_column_tiled(cm, v))
            st = lf_cost_op_schedules(cm, v, p->beta_max, c->steps + m, LF_COST_MAX_STEPS - m, &more);
        else if (gc->valid)
            st = lf_cost_steps_priced(cm, one, p->beta_max, p->beta_min, c->steps + m, c->at + m,
                                      LF_COST_MAX_STEPS - m, &more, &priced);
        lf_bitset_reset(one, v);
        n = m + more;
        if (st == LF_OK)
            st = lf__steps_objective(cm, &v, 1, v, fb1, p->beta_min, p->beta_max, c->steps, priced ? c->at : NULL,
                                     &n);
    }
    if (st == LF_OK && !(p->single[v] = malloc((size_t)(n ? n : 1) * sizeof(lf_cost_step))))
        st = lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    if (st == LF_OK) {
        memcpy(p->single[v], c->steps, (size_t)n * sizeof(lf_cost_step));
        p->n_single[v] = n;
    }
    return st;
}

/* Each part's class into cls: the first part where every op needs the
 * same buffer alone (F_beta) and is fusable alike. Parts of different
 * classes cannot share a run: the joins at cut ops take one F_beta alone
 * for all parts, and the enumeration (under the largest buffer) would
 * offer a part where fewer ops are fusable its groups and states in
 * another order than its own run, and among plans tied in every figure the
 * one found first is kept (inception_v3's energy staircase, cut where ops
 * turn fusable: other plans at 236 of its 533 steps, and no faster). */
static lf_status lf__part_classes(const lf__curve_dp *c, const lf_graph *g, int32_t *cls)
{
    size_t n = (size_t)g->n_ops;
    int64_t *fb = calloc((size_t)c->n_parts * n, sizeof *fb);
    uint8_t *fu = calloc((size_t)c->n_parts * n, 1);
    lf_bitset one;
    lf_status st = fb && fu ? lf_bitset_init(&one, g->n_ops) : lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    for (int32_t k = 0; k < c->n_parts && st == LF_OK; k++) {
        for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
            if (g->ops[v].type == LF_OP_INPUT)
                continue;
            lf_group_cost gc;
            lf_bitset_set(&one, v);
            st = lf_cost_eval(c->parts[k].cm, &one, &gc);
            lf_bitset_reset(&one, v);
            fb[(size_t)k * n + (size_t)v] = gc.f_beta;
            fu[(size_t)k * n + (size_t)v] = (uint8_t)lf_cost_fusable(c->parts[k].cm, v);
        }
        cls[k] = k;
        for (int32_t j = 0; j < k && cls[k] == k; j++)
            if (cls[j] == j && !memcmp(fb + (size_t)j * n, fb + (size_t)k * n, n * sizeof *fb) &&
                !memcmp(fu + (size_t)j * n, fu + (size_t)k * n, n))
                cls[k] = j;
    }
    if (fb && fu)
        lf_bitset_destroy(&one);
    free(fb);
    free(fu);
    return st;
}

/* Per-op constants: F_beta alone, and the steps of the op alone in every
 * part. */
static lf_status lf__curve_prepare(lf__curve_dp *c, lf_cost_model *cm)
{
    const lf_graph *g = lf_cost_graph(cm);
    c->fb1 = calloc((size_t)g->n_ops, sizeof *c->fb1);
    c->members = calloc((size_t)g->n_ops + 1, sizeof *c->members);
    if (c->keep && lf_bitset_init(&c->key, g->n_ops) == LF_OK)
        c->pieces = malloc((LF__ATTN_PIECES + 1) * sizeof *c->pieces);
    if (!c->fb1 || !c->members || (c->keep && !c->pieces))
        return lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    for (int32_t k = 0; k < c->n_parts; k++) {
        c->parts[k].single = calloc((size_t)g->n_ops, sizeof *c->parts[k].single);
        c->parts[k].n_single = calloc((size_t)g->n_ops, sizeof *c->parts[k].n_single);
        if (!c->parts[k].single || !c->parts[k].n_single)
            return lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    }
    lf_bitset one;
    lf_status st = lf_bitset_init(&one, g->n_ops);
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
        if (g->ops[v].type == LF_OP_INPUT)
            continue;
        for (int32_t k = 0; k < c->n_parts && st == LF_OK; k++) {
            lf_group_cost gc;
            lf_bitset_set(&one, v);
            st = lf_cost_eval(c->parts[k].cm, &one, &gc);
            lf_bitset_reset(&one, v);
            if (st == LF_OK) {
                c->fb1[v] = gc.f_beta; /* alike in every part (lf__part_classes) */
                st = lf__single_steps(c, &c->parts[k], v, &gc, &one);
            }
        }
    }
    lf_bitset_destroy(&one);
    return st;
}

/* The plan of point i of state s in fronts: each step back is one group. */
static lf_status lf__curve_plan(const lf__exact *x, const lf__front *fronts, int32_t s, int32_t i, lf_plan *out)
{
    lf_status st = lf_plan_init(out, x->n);
    if (st != LF_OK)
        return st;
    int32_t gi = 0;
    while (s >= 0 && fronts[s].b[i].prev_state >= 0) {
        lf__fback p = fronts[s].b[i];
        const uint64_t *a = x->words + (size_t)s * x->nwords;
        const uint64_t *b = x->words + (size_t)p.prev_state * x->nwords;
        /* The group's ops word by word: a plan has as many groups as a
         * run's points have steps back, and a test per op of each cost a
         * staircase of hundreds of points most of its plans' time. */
        for (int32_t w = 0; w < x->nwords; w++)
            for (uint64_t d = a[w] & ~b[w]; d; d &= d - 1) {
                int32_t v = w * 64 + __builtin_ctzll(d);
                if (v < x->n)
                    out->group_of[v] = gi;
            }
        gi++;
        s = p.prev_state;
        i = p.prev_idx;
    }
    out->n_groups = gi;
    lf_plan_canonicalize(out);
    return LF_OK;
}

/* The cost model of g under the scheme at buffer beta, in cfg's objective
 * (energy: one SRAM figure, curve.h). */
static lf_status lf__curve_model(const lf_graph *g, const lf_hw *hw, const char *scheme,
                                 const lf_exact_config *cfg, int64_t beta, lf_cost_model **cm)
{
    lf_hw h = *hw;
    if (cfg && cfg->objective != 0)
        lf_curve_fix_sram(&h);
    h.buffer_bytes = beta;
    lf_status st = lf_cost_model_create(cm, g, &h, scheme);
    if (st == LF_OK)
        st = lf_cost_set_objective(*cm, (lf_plan_objective)(cfg ? cfg->objective : 0));
    return st;
}

/* The DP itself, the parts set up in c (every part's cost model made):
 * the goal state (-1 where it fails, x->status saying why). */
static int32_t lf__curve_dp_run(lf__exact *x, lf__curve_dp *c, lf_curve *outs)
{
    x->user = c;
    x->on_group = lf__curve_group;
    x->on_forced = lf__curve_forced;
    x->on_tail = lf__curve_tail;
    x->on_head = lf__curve_head;
    x->on_expanded = lf__curve_flush;
    /* Joins at cut ops (cut_join.c), under any objective. */
    x->join_cuts = x->n_cuts > 0;
    lf_status st;
    if (x->join_cuts && (st = lf__join_create(x)) != LF_OK)
        x->status = st;
    /* Workers for the joined pairs, which are nearly all of the time
     * where weights stream (BRR); same result with any count. */
    int32_t nt = lf_pool_default_threads(x->cfg.threads);
    if (x->status == LF_OK && x->join_cuts && !x->resident && nt > 1 &&
        (st = lf_pool_create(&x->pool, nt)) != LF_OK)
        x->status = st;
    /* The empty set's one point in every part: no DRAM, feasible from the
     * part's minimum on. */
    uint64_t *empty = calloc((size_t)x->nwords, 8);
    int32_t start = empty ? lf__dp_state(x, empty, 0) : -1;
    free(empty);
    lf__join_acc acc = {0};
    if (start >= 0 && lf__fronts_reach(x, start))
        for (int32_t k = 0; k < c->n_parts; k++)
            lf__front_add(&acc, &c->parts[k].fronts[start], 0, c->parts[k].beta_min - 1, 0, -1, -1, 0);
    if (acc.status != LF_OK)
        x->status = acc.status;
    else if (start < 0 && x->status == LF_OK)
        x->status = lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    int32_t goal = x->status == LF_OK ? lf__dp_run(x) : -1;
    lf__join_free(x);
    outs[0].threads = x->pool ? lf_pool_threads(x->pool) : 1;
    if (x->pool) {
        lf_pool_stats ps;
        lf_pool_get_stats(x->pool, &ps);
        outs[0].batches = ps.batches;
        outs[0].parallel_batches = ps.parallel_batches;
    }
    lf_pool_free(x->pool);
    x->pool = NULL;
    return goal;
}

/* Part k's staircase: the points of the goal state's front. */
static lf_status lf__curve_points(const lf__exact *x, const lf__curve_dp *c, int32_t k, int32_t goal, lf_curve *out)
{
    const lf__curve_part *p = &c->parts[k];
    if (goal < 0 || goal >= c->n_fronts || p->fronts[goal].n == 0)
        return lf_set_error(LF_EPLAN, "curve: no plan of '%s'", x->g->name);
    const lf__front *f = &p->fronts[goal];
    out->points = calloc((size_t)f->n, sizeof *out->points);
    if (!out->points)
        return lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    for (int32_t i = 0; i < f->n; i++) {
        lf_curve_point *q = &out->points[i];
        q->beta = f->p[i].need + 1 > p->beta_min ? f->p[i].need + 1 : p->beta_min;
        q->dram_all = f->p[i].dram;
        out->n = i + 1;
        lf_status st = lf__curve_plan(x, p->fronts, goal, i, &q->plan);
        if (st != LF_OK)
            return st;
    }
    return LF_OK;
}

lf_status lf__curve_run(const lf_graph *g, const lf_hw *hw, const char *scheme, const int64_t *bounds,
                        int32_t n_parts, const lf_exact_config *cfg, lf_steps_store *keep, int64_t range_min,
                        int64_t range_max, lf_curve *outs, int32_t *classes)
{
    for (int32_t k = 0; k < n_parts; k++) {
        classes[k] = 0;
        memset(&outs[k], 0, sizeof outs[k]);
        outs[k].beta_min = bounds[2 * k];
        outs[k].beta_max = bounds[2 * k + 1];
    }
    for (int32_t k = 0; k < n_parts; k++)
        if (bounds[2 * k] < 1 || bounds[2 * k + 1] <= bounds[2 * k])
            return lf_set_error(LF_EINVAL, "curve: the buffer range [%lld, %lld] B is empty",
                                (long long)bounds[2 * k], (long long)bounds[2 * k + 1]);
    if (n_parts < 1 || n_parts > LF__CURVE_PARTS)
        return lf_set_error(LF_EINVAL, "curve: %d parts of a range in one run (1 to %d)", (int)n_parts,
                            LF__CURVE_PARTS);
    lf__curve_dp c;
    memset(&c, 0, sizeof c);
    c.keep = keep;
    c.range_min = range_min;
    c.range_max = range_max;
    c.parts = calloc((size_t)n_parts, sizeof *c.parts);
    lf_status st = c.parts ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory in the curve planner");
    if (st == LF_OK)
        c.n_parts = n_parts;
    for (int32_t k = 0; k < c.n_parts && st == LF_OK; k++) {
        c.parts[k].beta_min = bounds[2 * k];
        c.parts[k].beta_max = bounds[2 * k + 1];
        st = lf__curve_model(g, hw, scheme, cfg, bounds[2 * k + 1], &c.parts[k].cm);
    }
    int shared = 1;
    if (st == LF_OK && n_parts > 1)
        st = lf__part_classes(&c, g, classes);
    for (int32_t k = 0; k < n_parts && st == LF_OK; k++)
        shared &= classes[k] == 0;
    /* One enumeration for all parts, under the largest buffer (the last
     * part's); each part's cost model prices what its buffers decide. */
    lf__exact x;
    int setup = 0;
    if (st == LF_OK && shared) {
        st = lf__dp_setup(&x, c.parts[n_parts - 1].cm, NULL, cfg);
        setup = 1;
    }
    if (st == LF_OK && shared && x.cfg.memory_limit > 0)
        for (int32_t k = 0; k < n_parts; k++)
            lf_cost_memo_limit(c.parts[k].cm, x.cfg.memory_limit / 2 / n_parts);
    if (st == LF_OK && shared)
        st = lf__curve_prepare(&c, c.parts[n_parts - 1].cm);
    if (st == LF_OK && shared) {
        int32_t goal = lf__curve_dp_run(&x, &c, outs);
        st = x.status;
        for (int32_t k = 0; k < n_parts && st == LF_OK; k++)
            st = lf__curve_points(&x, &c, k, goal, &outs[k]);
        outs[0].stats = x.st;
        for (int32_t k = 0; k < n_parts; k++) {
            outs[k].stats.memory_bytes = x.st.memory_bytes;
            outs[k].threads = outs[0].threads;
            for (int64_t s = 0; s < c.n_fronts; s++)
                outs[k].front_points += c.parts[k].fronts[s].n;
        }
    }
    int32_t n_ops = g->n_ops;
    lf__curve_free(&c, n_ops);
    if (setup)
        lf__dp_teardown(&x);
    for (int32_t k = 0; k < n_parts && c.parts; k++)
        lf_cost_model_free(c.parts[k].cm);
    free(c.parts);
    if (st != LF_OK)
        for (int32_t k = 0; k < n_parts; k++)
            lf_curve_destroy(&outs[k]);
    return st;
}

void lf_curve_destroy(lf_curve *c)
{
    for (int32_t i = 0; i < c->n; i++)
        lf_plan_destroy(&c->points[i].plan);
    free(c->points);
    c->points = NULL;
    c->n = 0;
}

int64_t lf_curve_dram_at(const lf_curve *c, int64_t beta)
{
    if (beta < c->beta_min || beta > c->beta_max || c->n == 0)
        return -1;
    int32_t k = 0;
    while (k + 1 < c->n && c->points[k + 1].beta <= beta)
        k++;
    return c->points[k].dram_all;
}

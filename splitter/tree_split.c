/* The recursive greedy tree splitter (paper Algorithm 1): the recursion over
 * categories, its memo, the random fallback, and the rectify / tree success /
 * split gap accounting. Contract and definitions: splitter/tree.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/util/busy_clock.h"
#include "planner/util/hashmap.h"
#include "planner/util/mutex.h"
#include "planner/util/clock.h"
#include "planner/util/rng.h"
#include "splitter/refine_split.h"
#include "splitter/tree.h"

/* What makes two cost models price every group alike. */
typedef struct lf__sig {
    uint64_t graph_hash;
    int64_t beta;
    int32_t n_ops, act_bytes, weight_bytes;
    const char *scheme;
} lf__sig;

/* A memoized result: immutable once published, except `top_seen`, which is
 * only touched under the lock. */
typedef struct lf__entry {
    struct lf__entry *next; /* same 64-bit key */
    lf__sig sig;
    uint64_t seed;
    int32_t ok, cap_hit, cat1_first, top_seen, gap_done;
    int64_t f_d;            /* sum of the parts' F_D when ok */
    int64_t work;           /* category-3 sub-recursions of the whole recursion tree */
    int32_t n_parts, n_members;
    int32_t *part_of;       /* per member (ascending op id), parts by smallest op id */
    int32_t nwords;
    uint64_t words[];
} lf__entry;

typedef struct lf__tree {
    const lf_proposer *p;
    int32_t k;
    lf_tree_options opt;
    char name[64];
    lf_mutex lock;
    lf_hashmap memo;
    lf_tree_stats st;
    lf_busy_clock clock;    /* st.split_s: wall time with any thread in split() */
    lf_splitter self;
} lf__tree;

/* State of one split() call. */
typedef struct lf__call {
    lf__tree *t;
    lf_cost_model *cm;
    lf__sig sig;
    uint64_t seed;      /* the key's seed: 0 when the proposer ignores it */
    uint64_t raw_seed;  /* what the proposer gets */
    int64_t queries, levels;
} lf__call;

void lf_tree_options_default(lf_tree_options *o)
{
    memset(o, 0, sizeof *o);
    o->eval_cap = LF_TREE_DEFAULT_CAP;
    o->measure_gap = 0;
    lf_exact_config_default(&o->exact);
}

static uint64_t lf__key(const lf__call *c, const lf_bitset *group)
{
    uint64_t h = lf_rng_mix(lf_bitset_hash(group), c->sig.graph_hash);
    h = lf_rng_mix(h, (uint64_t)c->sig.beta);
    h = lf_rng_mix(h, lf_hash_string(c->sig.scheme));
    return lf_rng_mix(h, c->seed);
}

static int lf__same(const lf__entry *e, const lf__call *c, const lf_bitset *group)
{
    return e->seed == c->seed && e->sig.graph_hash == c->sig.graph_hash &&
           e->sig.beta == c->sig.beta && e->sig.n_ops == c->sig.n_ops &&
           e->sig.act_bytes == c->sig.act_bytes && e->sig.weight_bytes == c->sig.weight_bytes &&
           strcmp(e->sig.scheme, c->sig.scheme) == 0 && e->nwords == group->nwords &&
           memcmp(e->words, group->words, (size_t)group->nwords * sizeof(uint64_t)) == 0;
}

/* Looks the group up; the caller holds the lock. */
static lf__entry *lf__lookup(lf__tree *t, const lf__call *c, const lf_bitset *group, uint64_t key)
{
    void *v = NULL;
    if (!lf_hashmap_get(&t->memo, key, &v))
        return NULL;
    for (lf__entry *e = v; e; e = e->next)
        if (lf__same(e, c, group))
            return e;
    return NULL;
}

static void lf__entry_free(lf__entry *e)
{
    if (e) {
        free(e->part_of);
        free(e);
    }
}

static lf__entry *lf__entry_new(const lf__call *c, const lf_bitset *group, int32_t n_members)
{
    lf__entry *e = calloc(1, sizeof *e + (size_t)group->nwords * sizeof(uint64_t));
    if (!e)
        return NULL;
    e->part_of = malloc((size_t)(n_members > 0 ? n_members : 1) * sizeof(int32_t));
    if (!e->part_of) {
        free(e);
        return NULL;
    }
    e->sig = c->sig;
    e->seed = c->seed;
    e->n_members = n_members;
    e->nwords = group->nwords;
    memcpy(e->words, group->words, (size_t)group->nwords * sizeof(uint64_t));
    return e;
}

/* Publishes e, or frees it and returns the entry another thread published
 * first (equal by construction: results are pure functions of the key). */
static lf_status lf__publish(lf__tree *t, const lf__call *c, const lf_bitset *group, lf__entry *e,
                             lf__entry **out)
{
    uint64_t key = lf__key(c, group);
    lf_status st = LF_OK;
    lf_mutex_lock(&t->lock);
    lf__entry *old = lf__lookup(t, c, group, key);
    if (old) {
        lf__entry_free(e);
        *out = old;
    } else {
        void *head = NULL;
        lf_hashmap_get(&t->memo, key, &head);
        e->next = head;
        st = lf_hashmap_put(&t->memo, key, e);
        if (st == LF_OK) {
            *out = e;
        } else {
            lf__entry_free(e);
            *out = NULL;
        }
    }
    lf_mutex_unlock(&t->lock);
    return st;
}

static lf_status lf__solve(lf__call *c, const lf_bitset *group, lf__entry **out);

/* Splits the invalid parts `which` (part ids of labels, flagged in bad[])
 * recursively and merges their sub-parts into e. Adds each sub-recursion's
 * work, plus `extra` per sub-recursion (1 in category 3, where the
 * recursions are the exponential part; 0 in category 2, a plain chain).
 * Returns 0 with e->ok = 0 when a part fails or the cap is passed. */
static lf_status lf__recurse_parts(lf__call *c, const lf_cut_set *cs, const int32_t *labels,
                                   int32_t n_parts, const uint8_t *bad, int64_t extra, lf__entry *e,
                                   int64_t *f_d, int32_t *ok)
{
    const lf_graph *g = lf_cost_graph(c->cm);
    int32_t n = cs->n_members;
    int32_t *next = e->part_of, n_next = 0;
    lf_bitset part = {0};
    lf_status st = lf_bitset_init(&part, g->n_ops);
    int32_t *pos_of = st == LF_OK ? malloc((size_t)g->n_ops * sizeof(int32_t)) : NULL;
    if (st == LF_OK && !pos_of)
        st = lf_set_error(LF_ENOMEM, "out of memory splitting a group");
    *ok = st == LF_OK;
    for (int32_t i = 0; st == LF_OK && i < n; i++) {
        pos_of[cs->members[i]] = i;
        next[i] = -1;
    }
    /* Valid parts keep one id each (or, with cost_continue, their own
     * split's ids when it is cheaper); invalid ones get their sub-parts' ids. */
    for (int32_t q = 0; st == LF_OK && q < n_parts && *ok; q++) {
        if (!bad[q] && c->t->opt.cost_continue) {
            int32_t size = 0;
            lf_bitset_clear_all(&part);
            for (int32_t i = 0; i < n; i++)
                if (labels[i] == q) {
                    lf_bitset_set(&part, cs->members[i]);
                    size++;
                }
            lf_group_cost own;
            lf__entry *sub = NULL;
            if (size > 1 && (st = lf_cost_eval(c->cm, &part, &own)) == LF_OK) {
                c->queries++;
                st = lf__solve(c, &part, &sub);
            }
            if (st != LF_OK)
                break;
            if (sub && sub->ok && sub->f_d < own.f_d) {
                *f_d += sub->f_d - own.f_d;
                int32_t j = 0;
                for (int32_t v = lf_bitset_next(&part, 0); v >= 0; v = lf_bitset_next(&part, v + 1))
                    next[pos_of[v]] = n_next + sub->part_of[j++];
                n_next += sub->n_parts;
                continue;
            }
        }
        if (!bad[q]) {
            for (int32_t i = 0; i < n; i++)
                if (labels[i] == q)
                    next[i] = n_next;
            n_next++;
            continue;
        }
        lf_bitset_clear_all(&part);
        for (int32_t i = 0; i < n; i++)
            if (labels[i] == q)
                lf_bitset_set(&part, cs->members[i]);
        lf__entry *sub = NULL;
        st = lf__solve(c, &part, &sub);
        if (st != LF_OK)
            break;
        e->work += extra + sub->work;
        if (e->work > c->t->opt.eval_cap) {
            e->cap_hit = 1;
            *ok = 0;
            break;
        }
        if (!sub->ok) {
            e->cap_hit |= sub->cap_hit;
            *ok = 0;
            break;
        }
        *f_d += sub->f_d;
        int32_t j = 0;
        for (int32_t v = lf_bitset_next(&part, 0); v >= 0; v = lf_bitset_next(&part, v + 1))
            next[pos_of[v]] = n_next + sub->part_of[j++];
        n_next += sub->n_parts;
    }
    if (st == LF_OK && *ok) {
        /* Renumber by smallest op id (first appearance in member order). */
        int32_t *map = pos_of; /* reuse: n_next <= n <= n_ops */
        for (int32_t q = 0; q < n_next; q++)
            map[q] = -1;
        int32_t m = 0;
        for (int32_t i = 0; i < n; i++) {
            if (map[next[i]] < 0)
                map[next[i]] = m++;
            next[i] = map[next[i]];
        }
        e->n_parts = m;
    }
    free(pos_of);
    lf_bitset_destroy(&part);
    return st;
}

/* Computes the result of one (sub-)group; no lock held. */
static lf_status lf__compute(lf__call *c, const lf_bitset *group, lf__entry **out)
{
    lf__tree *t = c->t;
    int32_t n = lf_bitset_count(group);
    lf__entry *e = lf__entry_new(c, group, n);
    if (!e)
        return lf_set_error(LF_ENOMEM, "out of memory for a split result");
    lf_tree_level lv;
    lf_status st = lf_tree_level_eval(&lv, c->cm, t->p, t->k, group, c->raw_seed);
    c->levels++;
    c->queries += lv.cost_queries;
    e->cat1_first = lv.best_category == LF_CUT_CAT_ALL_VALID;
    int32_t n_cuts = lv.cuts.n_cuts;
    uint8_t *bad = st == LF_OK ? calloc((size_t)n + 1, 1) : NULL;
    if (st == LF_OK && !bad)
        st = lf_set_error(LF_ENOMEM, "out of memory splitting a group");
    if (st == LF_OK && (lv.best_category == LF_CUT_CAT_ALL_VALID ||
                        lv.best_category == LF_CUT_CAT_SOME_VALID)) {
        const lf_cut *cut = &lv.cuts.cuts[lv.chosen];
        const lf_group_cost *pc = &lv.part_cost[lv.part_start[lv.chosen]];
        int64_t f_d = lv.valid_f_d[lv.chosen];
        for (int32_t q = 0; q < cut->n_parts; q++)
            bad[q] = (uint8_t)!pc[q].valid;
        st = lf__recurse_parts(c, &lv.cuts, cut->part_of, cut->n_parts, bad, 0, e, &f_d, &e->ok);
        e->f_d = f_d;
    } else if (st == LF_OK && lv.best_category == LF_CUT_CAT_NONE_VALID) {
        /* Every candidate, every part recursed; the best total wins. The
         * winner's labels are recomputed at the end (the sub-results are
         * memoized, so that costs lookups only). */
        int32_t best = -1;
        int64_t best_f_d = 0;
        for (int32_t ci = 0; ci < n_cuts && st == LF_OK && !e->cap_hit; ci++) {
            const lf_cut *cut = &lv.cuts.cuts[ci];
            int64_t f_d = 0;
            int32_t ok = 0;
            memset(bad, 1, (size_t)cut->n_parts);
            st = lf__recurse_parts(c, &lv.cuts, cut->part_of, cut->n_parts, bad, 1, e, &f_d, &ok);
            if (st == LF_OK && ok && (best < 0 || f_d < best_f_d)) {
                best = ci;
                best_f_d = f_d;
            }
        }
        if (st == LF_OK && !e->cap_hit && best >= 0) {
            /* Replaying the winner must not count its work again. */
            int64_t work = e->work;
            const lf_cut *cut = &lv.cuts.cuts[best];
            int64_t f_d = 0;
            memset(bad, 1, (size_t)cut->n_parts);
            e->work = 0;
            st = lf__recurse_parts(c, &lv.cuts, cut->part_of, cut->n_parts, bad, 1, e, &f_d, &e->ok);
            e->work = work;
            e->f_d = f_d;
        }
    }
    /* Otherwise (no cut): a failure, e->ok stays 0. */
    if (st == LF_OK && e->ok && t->opt.cost_continue) /* then merge and move across the cuts */
        st = lf_split_refine(c->cm, group, e->part_of, &e->n_parts, &e->f_d, &c->queries);
    free(bad);
    lf_tree_level_destroy(&lv);
    if (st != LF_OK) {
        lf__entry_free(e);
        return st;
    }
    if (!e->ok)
        e->n_parts = 0;
    return lf__publish(t, c, group, e, out);
}

static lf_status lf__solve(lf__call *c, const lf_bitset *group, lf__entry **out)
{
    uint64_t key = lf__key(c, group);
    lf_mutex_lock(&c->t->lock);
    lf__entry *e = lf__lookup(c->t, c, group, key);
    lf_mutex_unlock(&c->t->lock);
    if (e) {
        *out = e;
        return LF_OK;
    }
    return lf__compute(c, group, out);
}

/* The split gap of a group the tree split: its F_D over the optimum's. */
static void lf__measure_gap(lf__tree *t, lf_cost_model *cm, const lf_bitset *group, int64_t f_d)
{
    lf_plan opt;
    int64_t best = 0;
    lf_status st = lf_exact_split(cm, group, &t->opt.exact, &opt, &best, NULL);
    if (st == LF_OK)
        lf_plan_destroy(&opt);
    lf_mutex_lock(&t->lock);
    if (st != LF_OK || best <= 0) {
        t->st.gap_failed++;
    } else {
        double gap = (double)f_d / (double)best;
        if (t->st.gap_groups == 0 || gap < t->st.gap_min)
            t->st.gap_min = gap;
        if (t->st.gap_groups == 0 || gap > t->st.gap_max)
            t->st.gap_max = gap;
        t->st.gap_sum += gap;
        t->st.gap_groups++;
        t->st.gap_optimal += f_d == best;
    }
    lf_mutex_unlock(&t->lock);
}

static lf_status lf__tree_split(const lf_splitter *s, lf_cost_model *cm, const lf_bitset *group,
                                uint64_t seed, lf_split_result *res)
{
    lf__tree *t = s->ctx;
    const lf_graph *g = lf_cost_graph(cm);
    const lf_hw *hw = lf_cost_hw(cm);
    lf_split_result_reset(res);
    if (group->nbits != g->n_ops || res->nbits != g->n_ops)
        return lf_set_error(LF_EINVAL, "tree split: group of %d bits for a graph of %d ops",
                            (int)group->nbits, (int)g->n_ops);
    if (lf_bitset_is_empty(group))
        return lf_set_error(LF_EINVAL, "tree split: empty group");
    lf_busy_clock_enter(&t->clock);
    lf__call c = {0};
    c.t = t;
    c.cm = cm;
    c.sig.graph_hash = g->hash;
    c.sig.beta = lf_cost_beta(cm);
    c.sig.n_ops = g->n_ops;
    c.sig.act_bytes = hw->act_bytes;
    c.sig.weight_bytes = hw->weight_bytes;
    c.sig.scheme = lf_cost_scheme_name(cm);
    c.raw_seed = seed;
    c.seed = t->p->uses_seed ? seed : 0;
    uint64_t key = lf__key(&c, group);
    lf_mutex_lock(&t->lock);
    lf__entry *e = lf__lookup(t, &c, group, key);
    lf_mutex_unlock(&t->lock);
    int hit = e != NULL;
    lf_status st = e ? LF_OK : lf__compute(&c, group, &e);
    int fell_back = 0;
    if (st == LF_OK && e->ok) {
        lf_bitset *b = NULL;
        for (int32_t q = 0; q < e->n_parts && st == LF_OK; q++)
            st = lf_split_result_add(res, &b);
        if (st == LF_OK) {
            int32_t i = 0;
            for (int32_t v = lf_bitset_next(group, 0); v >= 0; v = lf_bitset_next(group, v + 1))
                lf_bitset_set(&res->parts[e->part_of[i++]], v);
            res->rectified = 1;
        }
    } else if (st == LF_OK) {
        const lf_splitter *r = lf_splitter_random();
        fell_back = 1;
        st = r->split(r, cm, group, seed, res);
        c.queries += res->cost_queries;
        res->rectified = 0;
    }
    res->cost_queries = c.queries;
    if (st != LF_OK) {
        res->n_parts = 0;
        lf_busy_clock_leave(&t->clock);
        return st;
    }
    int first_time = 0;
    lf_mutex_lock(&t->lock);
    t->st.calls++;
    t->st.memo_hits += hit;
    t->st.fallbacks += fell_back;
    t->st.levels += c.levels;
    t->st.cost_queries += c.queries;
    if (!e->top_seen) {
        e->top_seen = 1;
        first_time = 1;
        t->st.groups++;
        t->st.rectify_hits += e->cat1_first;
        t->st.tree_success += e->ok;
        t->st.cap_hits += e->cap_hit;
    }
    if (first_time && e->ok && t->opt.measure_gap)
        e->gap_done = 1;
    lf_mutex_unlock(&t->lock);
    /* The gap is a measurement, not part of the split: it is not timed. */
    lf_busy_clock_leave(&t->clock);
    if (first_time && e->ok && t->opt.measure_gap)
        lf__measure_gap(t, cm, group, e->f_d);
    return LF_OK;
}

static int lf__entry_cmp(const void *a, const void *b)
{
    const lf__entry *x = *(lf__entry *const *)a, *y = *(lf__entry *const *)b;
    for (int32_t w = 0; w < x->nwords && w < y->nwords; w++)
        if (x->words[w] != y->words[w])
            return x->words[w] < y->words[w] ? -1 : 1;
    return (x->nwords > y->nwords) - (x->nwords < y->nwords);
}

lf_status lf_splitter_tree_measure_gaps(lf_splitter *s, lf_cost_model *cm)
{
    if (!s || s->split != lf__tree_split)
        return lf_set_error(LF_EINVAL, "split gaps: '%s' is not a tree splitter",
                            s && s->name ? s->name : "(none)");
    lf__tree *t = s->ctx;
    const lf_graph *g = lf_cost_graph(cm);
    size_t n = 0, cap = 64;
    lf__entry **todo = malloc(cap * sizeof *todo);
    if (!todo)
        return lf_set_error(LF_ENOMEM, "out of memory measuring split gaps");
    size_t it = 0;
    void *head;
    while (lf_hashmap_next(&t->memo, &it, NULL, &head)) {
        for (lf__entry *e = head; e; e = e->next) {
            if (!e->top_seen || !e->ok || e->gap_done || e->sig.graph_hash != g->hash ||
                e->sig.beta != lf_cost_beta(cm) || e->sig.n_ops != g->n_ops)
                continue;
            if (n == cap) {
                lf__entry **grown = realloc(todo, 2 * cap * sizeof *todo);
                if (!grown) {
                    free(todo);
                    return lf_set_error(LF_ENOMEM, "out of memory measuring split gaps");
                }
                todo = grown;
                cap *= 2;
            }
            todo[n++] = e;
        }
    }
    /* A fixed order makes the floating-point sums the same on every run. */
    qsort(todo, n, sizeof *todo, lf__entry_cmp);
    lf_status st = LF_OK;
    for (size_t i = 0; i < n && st == LF_OK; i++) {
        lf_bitset group;
        if ((st = lf_bitset_init(&group, g->n_ops)) != LF_OK)
            break;
        memcpy(group.words, todo[i]->words, (size_t)group.nwords * sizeof(uint64_t));
        lf__measure_gap(t, cm, &group, todo[i]->f_d);
        todo[i]->gap_done = 1;
        lf_bitset_destroy(&group);
    }
    free(todo);
    return st;
}

static void lf__memo_clear(lf__tree *t)
{
    size_t it = 0;
    void *head;
    while (lf_hashmap_next(&t->memo, &it, NULL, &head)) {
        lf__entry *e = head;
        while (e) {
            lf__entry *next = e->next;
            lf__entry_free(e);
            e = next;
        }
    }
    lf_hashmap_destroy(&t->memo);
}

static void lf__tree_free(lf_splitter *s)
{
    lf__tree *t = s->ctx;
    lf__memo_clear(t);
    lf_mutex_destroy(&t->lock);
    lf_busy_clock_destroy(&t->clock);
    free(t);
}

lf_status lf_splitter_tree_create(lf_splitter **out, const lf_proposer *p, int32_t k,
                                  const lf_tree_options *opt)
{
    *out = NULL;
    if (!p || !p->propose)
        return lf_set_error(LF_EINVAL, "tree splitter: no edge proposer");
    lf__tree *t = calloc(1, sizeof *t);
    if (!t)
        return lf_set_error(LF_ENOMEM, "out of memory for the tree splitter");
    if (opt)
        t->opt = *opt;
    else
        lf_tree_options_default(&t->opt);
    if (t->opt.eval_cap <= 0)
        t->opt.eval_cap = LF_TREE_DEFAULT_CAP;
    t->p = p;
    t->k = k;
    snprintf(t->name, sizeof t->name, "tree-%s%s", p->name, t->opt.cost_continue ? "+continue" : "");
    if (lf_hashmap_init(&t->memo, 256) != LF_OK) {
        free(t);
        return lf_set_error(LF_ENOMEM, "out of memory for the tree splitter's memo");
    }
    if (lf_mutex_init(&t->lock, "the tree splitter") != LF_OK) {
        lf_hashmap_destroy(&t->memo);
        free(t);
        return LF_ENOMEM;
    }
    if (lf_busy_clock_init(&t->clock) != LF_OK) {
        lf_mutex_destroy(&t->lock);
        lf_hashmap_destroy(&t->memo);
        free(t);
        return LF_ENOMEM;
    }
    t->self.name = t->name;
    t->self.split = lf__tree_split;
    t->self.free = lf__tree_free;
    t->self.ctx = t;
    *out = &t->self;
    return LF_OK;
}

lf_status lf_splitter_tree_stats(const lf_splitter *s, lf_tree_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!s || s->split != lf__tree_split)
        return lf_set_error(LF_EINVAL, "'%s' is not a tree splitter", s ? s->name : "(null)");
    lf__tree *t = s->ctx;
    lf_mutex_lock(&t->lock);
    *out = t->st;
    lf_mutex_unlock(&t->lock);
    out->split_s = lf_busy_clock_seconds(&t->clock);
    out->rectify_rate = out->groups ? (double)out->rectify_hits / (double)out->groups : 0.0;
    out->success_rate = out->groups ? (double)out->tree_success / (double)out->groups : 0.0;
    out->mean_gap = out->gap_groups ? out->gap_sum / (double)out->gap_groups : 0.0;
    out->s_per_call = out->calls ? out->split_s / (double)out->calls : 0.0;
    return LF_OK;
}


/* OCGGS's Algorithm 3 (Sampling), with sample size Q and eta (the paper's
 * Q = 20, eta = 1; reference/substitution-and-scheduling.md §2.5 (c)).
 *
 * The search goes level by level. A node is a sequence whose graph has been
 * built; its candidate steps come from the dynamic programming of Algorithm 2
 * without the order check (the parent's untouched candidates carried over,
 * new ones matched around the ops the step created), each with the cost
 * change it makes. The change of a carried-over step is the one measured
 * where it was first applied (OCGGS's cost_change; exact when the step's
 * neighbourhood is unchanged), so the children of a node are ranked without
 * building their graphs; only the sampled ones are built, and their true
 * cost decides the best.
 *
 * Level k: P_tmp is every child of the sampled nodes P_{k-1} (sequences of
 * at most K steps, one entry per distinct set of steps). P_des is the
 * children that do not raise the cost; P_inc the further-exploration ones
 * (the step raises the cost, after fewer than eta raising steps in a row).
 * While P is not empty: the Q/2 of P with the lowest potential are built and
 * their children join P_inc, the raising ones becoming the next P. The
 * potential (Definition 12, one step of look-ahead for eta = 1) is the
 * sequence's cost plus the best cost change of a step that replaces an op
 * the raising step created (cached per step: it depends on the neighbourhood
 * only). Then P_inc drops the sequences ending with a raising step, and
 * P_k is the Q/2 cheapest of P_des and the Q/2 cheapest of P_inc, built.
 * Graphs already built (canonical hash) are not built again. Ties are broken
 * by a hash of the sequence and the seed, so the search is deterministic for
 * a seed. At the time cap it returns the best found so far. */
#include <stdlib.h>
#include <string.h>

#include "search/subst/ocggs_internal.h"

typedef struct lf__snode {
    lf_graph *g;         /* NULL once its level is done */
    lf__label *lab;
    lf__ocands cands;    /* candidate steps on g, each with its cost change */
    lf_subst_costs costs;
    double cost;
    int32_t len, inc_run;
    int32_t parent, rule;
    char *ops;           /* the ops the step that made it replaced */
    uint64_t seqkey;     /* the set of its steps, order aside */
} lf__snode;

typedef struct lf__sentry {
    int32_t node, cand;
    double value;        /* estimated cost, or potential */
    uint64_t tie;
    int inc;
} lf__sentry;

typedef struct lf__sent {
    lf__sentry *e;
    int32_t n, cap;
} lf__sent;

typedef struct lf__look {
    double best;         /* most negative cost change of a dependent step, 0 when none lowers */
} lf__look;

typedef struct lf__samp {
    lf__oc *x;
    lf__snode *nd;
    int32_t n, cap;
    lf_hashmap built;    /* canonical hashes of the graphs built */
    lf_hashmap look;     /* step key -> best dependent cost change + 1 slot (lf__look) */
    lf__look *looks;
    int32_t n_looks, cap_looks;
    int32_t *rules;      /* scratch: a sequence's rules and op names, K + 2 long */
    char **names;
} lf__samp;

static uint64_t lf__mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

static double lf__eps(double cost) { return 1e-12 * (cost > 0 ? cost : -cost); }

static lf_status lf__push_entry(lf__sent *s, const lf__sentry *e)
{
    if (s->n == s->cap) {
        int32_t cap = s->cap ? 2 * s->cap : 64;
        lf__sentry *p = realloc(s->e, (size_t)cap * sizeof *p);
        if (!p)
            return lf_set_error(LF_ENOMEM, "sample: out of memory");
        s->e = p;
        s->cap = cap;
    }
    s->e[s->n++] = *e;
    return LF_OK;
}

static int lf__by_value(const void *pa, const void *pb)
{
    const lf__sentry *a = pa, *b = pb;
    if (a->value != b->value)
        return a->value < b->value ? -1 : 1;
    if (a->tie != b->tie)
        return a->tie < b->tie ? -1 : 1;
    return a->node != b->node ? (a->node < b->node ? -1 : 1) : (a->cand < b->cand ? -1 : a->cand > b->cand);
}

static void lf__node_drop(lf__snode *n)
{
    lf_graph_free(n->g);
    n->g = NULL;
    free(n->lab);
    n->lab = NULL;
    lf__ocands_free(&n->cands);
}

static lf_status lf__new_node(lf__samp *s, int32_t *id)
{
    if (s->n == s->cap) {
        int32_t cap = s->cap ? 2 * s->cap : 64;
        lf__snode *p = realloc(s->nd, (size_t)cap * sizeof *p);
        if (!p)
            return lf_set_error(LF_ENOMEM, "sample: out of memory");
        s->nd = p;
        s->cap = cap;
    }
    memset(&s->nd[s->n], 0, sizeof s->nd[s->n]);
    s->nd[s->n].parent = -1;
    s->nd[s->n].rule = -1;
    *id = s->n++;
    return LF_OK;
}

/* Measures the cost change of every candidate of node id that has none
 * (applies it); drops the candidates that do not apply. */
static lf_status lf__measure(lf__samp *s, int32_t id)
{
    lf__snode *n = &s->nd[id];
    int32_t w = 0;
    lf_status st = LF_OK;
    for (int32_t j = 0; j < n->cands.n && !st; j++) {
        lf__ocand c = n->cands.c[j];
        if (!c.has_delta) {
            lf_graph *g2 = NULL;
            lf_subst_costs k;
            double v = 0;
            if ((st = lf__oc_apply(s->x, n->g, c.rule, &c.m, &g2)) || !g2)
                continue;
            st = lf__oc_cost(s->x, g2, &k, &v);
            lf_graph_free(g2);
            c.delta = v - n->cost;
            c.has_delta = 1;
        }
        n->cands.c[w++] = c;
    }
    n->cands.n = w;
    return st;
}

/* Offers node id's graph as the best, with its sequence from the root. */
static lf_status lf__offer(lf__samp *s, int32_t id)
{
    int32_t len = s->nd[id].len;
    for (int32_t i = id, k = len; s->nd[i].parent >= 0; i = s->nd[i].parent) {
        k--;
        s->rules[k] = s->nd[i].rule;
        s->names[k] = s->nd[i].ops;
    }
    return lf__oc_offer(s->x, s->nd[id].g, &s->nd[id].costs, s->nd[id].cost, NULL, len, s->rules, s->names);
}

/* Builds the child of node p by its candidate j: *id the new node, -1 when
 * the step does not apply or its graph was built before. */
static lf_status lf__build(lf__samp *s, int32_t p, int32_t j, int32_t *id)
{
    *id = -1;
    lf__oc *x = s->x;
    const lf__ocand *c = &s->nd[p].cands.c[j];
    lf_graph *g = NULL;
    lf_status st = lf__oc_apply(x, s->nd[p].g, c->rule, &c->m, &g);
    if (st || !g)
        return st;
    uint64_t h = lf_subst_canon_hash(g);
    void *seen = NULL;
    if (lf_hashmap_get(&s->built, h, &seen)) {
        lf_graph_free(g);
        return LF_OK;
    }
    int32_t q = -1;
    if ((st = lf_hashmap_put(&s->built, h, (void *)(intptr_t)1)) || (st = lf__new_node(s, &q))) {
        lf_graph_free(g);
        return st;
    }
    lf__snode *par = &s->nd[p], *n = &s->nd[q];
    c = &par->cands.c[j];
    n->g = g;
    n->parent = p;
    n->rule = c->rule;
    n->len = par->len + 1;
    n->seqkey = par->seqkey + lf__mix(c->key);
    n->ops = lf__oc_op_names(par->g, x->rs->rule[c->rule], &c->m);
    int32_t *created = NULL, n_created = 0;
    st = n->ops ? lf__oc_cost(x, g, &n->costs, &n->cost) : lf_set_error(LF_ENOMEM, "sample: out of memory");
    if (!st) {
        int inc = n->cost > par->cost + lf__eps(par->cost);
        n->inc_run = inc ? par->inc_run + 1 : 0;
        st = lf__offer(s, q);
    }
    if (!st && n->len < x->K) {
        st = lf__labels_child(par->g, par->lab, x->rs->rule[c->rule], &c->m, g, n->len, &n->lab, &created,
                              &n_created);
        if (!st)
            st = lf__oc_child_cands(x, par->g, &par->cands, j, g, n->lab, created, n_created, 0, &n->cands);
        if (!st)
            st = lf__measure(s, q);
    }
    free(created);
    *id = q;
    return st;
}

/* Best cost change of a step replacing an op that candidate j of node p
 * creates (the look-ahead of the potential), cached per step. */
static lf_status lf__lookahead(lf__samp *s, int32_t p, int32_t j, double *best)
{
    lf__oc *x = s->x;
    const lf__ocand *c = &s->nd[p].cands.c[j];
    void *slot = NULL;
    if (lf_hashmap_get(&s->look, c->key, &slot)) {
        *best = s->looks[(intptr_t)slot - 1].best;
        return LF_OK;
    }
    *best = 0;
    lf_graph *g = NULL;
    lf_status st = lf__oc_apply(x, s->nd[p].g, c->rule, &c->m, &g);
    lf__label *lab = NULL;
    int32_t *created = NULL, n_created = 0;
    uint8_t *mark = NULL;
    lf__ocands nw = {NULL, 0, 0};
    lf_subst_costs k;
    double v0 = 0;
    if (!st && g)
        st = lf__labels_child(s->nd[p].g, s->nd[p].lab, x->rs->rule[c->rule], &c->m, g, s->nd[p].len + 1, &lab,
                              &created, &n_created);
    if (!st && g && !(mark = calloc((size_t)(g->n_ops ? g->n_ops : 1), 1)))
        st = lf_set_error(LF_ENOMEM, "sample: out of memory");
    if (!st && g)
        st = lf__ball(g, created, n_created, x->radius, mark);
    if (!st && g)
        st = lf__oc_matches(x, g, lab, mark, &nw);
    if (!st && g)
        st = lf__oc_cost(x, g, &k, &v0);
    for (int32_t i = 0; i < nw.n && !st; i++) {
        if (nw.c[i].lab.step != s->nd[p].len + 1)
            continue; /* does not depend on the raising step */
        lf_graph *g2 = NULL;
        double v = 0;
        if ((st = lf__oc_apply(x, g, nw.c[i].rule, &nw.c[i].m, &g2)) || !g2)
            continue;
        st = lf__oc_cost(x, g2, &k, &v);
        lf_graph_free(g2);
        if (v - v0 < *best)
            *best = v - v0;
    }
    lf__ocands_free(&nw);
    free(mark);
    free(created);
    free(lab);
    lf_graph_free(g);
    if (st)
        return st;
    if (s->n_looks == s->cap_looks) {
        int32_t cap = s->cap_looks ? 2 * s->cap_looks : 64;
        lf__look *l = realloc(s->looks, (size_t)cap * sizeof *l);
        if (!l)
            return lf_set_error(LF_ENOMEM, "sample: out of memory");
        s->looks = l;
        s->cap_looks = cap;
    }
    s->looks[s->n_looks++].best = *best;
    return lf_hashmap_put(&s->look, c->key, (void *)(intptr_t)s->n_looks);
}

/* Appends the children of node id (one entry per candidate) to out, one per
 * distinct set of steps (keys: seen this level). */
static lf_status lf__children(lf__samp *s, int32_t id, lf_hashmap *keys, lf__sent *out)
{
    const lf__snode *n = &s->nd[id];
    lf_status st = LF_OK;
    if (n->len >= s->x->K || !n->g)
        return LF_OK;
    for (int32_t j = 0; j < n->cands.n && !st; j++) {
        const lf__ocand *c = &n->cands.c[j];
        uint64_t key = n->seqkey + lf__mix(c->key);
        void *v = NULL;
        if (lf_hashmap_get(keys, key, &v))
            continue;
        lf__sentry e = {id, j, n->cost + c->delta, lf__mix(key ^ s->x->o->seed), c->delta > lf__eps(n->cost)};
        if (!(st = lf_hashmap_put(keys, key, (void *)(intptr_t)1)))
            st = lf__push_entry(out, &e);
    }
    return st;
}

/* Builds the q cheapest (by value) entries of es that build, appending the
 * new nodes to out (NULL: not kept). */
static lf_status lf__take(lf__samp *s, lf__sent *es, int32_t q, lf__sent *out, int32_t *nodes, int32_t *n_nodes)
{
    if (es->n > 1)
        qsort(es->e, (size_t)es->n, sizeof *es->e, lf__by_value);
    lf_status st = LF_OK;
    for (int32_t i = 0, got = 0; i < es->n && got < q && !st; i++) {
        if (lf__oc_expired(s->x))
            break;
        int32_t id = -1;
        st = lf__build(s, es->e[i].node, es->e[i].cand, &id);
        if (st || id < 0)
            continue;
        got++;
        if (nodes)
            nodes[(*n_nodes)++] = id;
        if (out) {
            lf__sentry e = {id, -1, 0, 0, 0};
            st = lf__push_entry(out, &e);
        }
    }
    return st;
}

lf_status lf__sample(lf__oc *x, const lf_graph *start)
{
    lf__samp s;
    memset(&s, 0, sizeof s);
    s.x = x;
    int32_t half = (x->o->sample_size > 0 ? x->o->sample_size : 20) / 2;
    half = half > 0 ? half : 1;
    int32_t eta = x->o->eta > 0 ? x->o->eta : 1;
    int32_t *cur = malloc((size_t)(2 * half + 1) * sizeof *cur), *next = malloc((size_t)(2 * half + 1) * sizeof *next);
    s.rules = malloc((size_t)(x->K + 2) * sizeof *s.rules);
    s.names = malloc((size_t)(x->K + 2) * sizeof *s.names);
    lf_status st = cur && next && s.rules && s.names ? LF_OK : lf_set_error(LF_ENOMEM, "sample: out of memory");
    if (!st)
        st = lf_hashmap_init(&s.built, 1024);
    if (!st)
        st = lf_hashmap_init(&s.look, 1024);
    int32_t root = -1, n_cur = 0;
    if (!st)
        st = lf__new_node(&s, &root);
    if (!st)
        st = lf_subst_strip(start, &s.nd[root].g);
    if (!st)
        st = lf__oc_cost(x, s.nd[root].g, &s.nd[root].costs, &s.nd[root].cost);
    if (!st)
        st = lf_hashmap_put(&s.built, lf_subst_canon_hash(s.nd[root].g), (void *)(intptr_t)1);
    if (!st)
        st = lf__offer(&s, root);
    if (!st)
        st = lf__labels_root(s.nd[root].g, &s.nd[root].lab);
    if (!st)
        st = lf__oc_matches(x, s.nd[root].g, s.nd[root].lab, NULL, &s.nd[root].cands);
    if (!st)
        st = lf__measure(&s, root);
    if (!st)
        cur[n_cur++] = root;
    lf__sent tmp = {NULL, 0, 0}, des = {NULL, 0, 0}, pinc = {NULL, 0, 0}, P = {NULL, 0, 0}, P2 = {NULL, 0, 0};
    lf_hashmap keys;
    memset(&keys, 0, sizeof keys);
    if (!st)
        st = lf_hashmap_init(&keys, 1024);
    int32_t first_live = 0; /* nodes below this index hold no graph */
    while (n_cur > 0 && !st && !lf__oc_expired(x)) {
        lf_hashmap_clear(&keys);
        tmp.n = des.n = pinc.n = P.n = 0;
        for (int32_t i = 0; i < n_cur && !st; i++)
            st = lf__children(&s, cur[i], &keys, &tmp);
        for (int32_t i = 0; i < tmp.n && !st; i++) {
            const lf__sentry *e = &tmp.e[i];
            if (!e->inc)
                st = lf__push_entry(&des, e);
            else if (s.nd[e->node].inc_run + 1 <= eta)
                st = lf__push_entry(&P, e);
        }
        /* further exploration: sample by potential, expand, keep exploring the raising ones */
        while (P.n > 0 && !st && !lf__oc_expired(x)) {
            for (int32_t i = 0; i < P.n && !st; i++) {
                double best = 0;
                st = lf__lookahead(&s, P.e[i].node, P.e[i].cand, &best);
                P.e[i].value += best;
            }
            P2.n = 0;
            lf__sent built = {NULL, 0, 0};
            if (!st)
                st = lf__take(&s, &P, half, &built, NULL, NULL);
            for (int32_t i = 0; i < built.n && !st; i++)
                st = lf__children(&s, built.e[i].node, &keys, &P2);
            free(built.e);
            P.n = 0;
            for (int32_t i = 0; i < P2.n && !st; i++) {
                const lf__sentry *e = &P2.e[i];
                if (!e->inc)
                    st = lf__push_entry(&pinc, e);
                else if (s.nd[e->node].inc_run + 1 <= eta)
                    st = lf__push_entry(&P, e);
            }
        }
        /* P_k: the cheapest of P_des and of P_inc (sequences not ending with a raise) */
        int32_t n_next = 0;
        if (!st)
            st = lf__take(&s, &des, half, NULL, next, &n_next);
        if (!st)
            st = lf__take(&s, &pinc, half, NULL, next, &n_next);
        /* the graphs of this level are no longer needed */
        int32_t keep_from = s.n;
        for (int32_t i = 0; i < n_next; i++)
            keep_from = next[i] < keep_from ? next[i] : keep_from;
        for (int32_t i = first_live; i < s.n; i++) {
            int kept = 0;
            for (int32_t k = 0; k < n_next; k++)
                kept |= next[k] == i;
            if (!kept)
                lf__node_drop(&s.nd[i]);
        }
        first_live = keep_from;
        for (int32_t i = 0; i < n_next; i++)
            cur[i] = next[i];
        n_cur = n_next;
    }
    lf_hashmap_destroy(&keys);
    free(tmp.e);
    free(des.e);
    free(pinc.e);
    free(P.e);
    free(P2.e);
    for (int32_t i = 0; i < s.n; i++) {
        lf__node_drop(&s.nd[i]);
        free(s.nd[i].ops);
    }
    free(s.nd);
    free(s.looks);
    lf_hashmap_destroy(&s.built);
    lf_hashmap_destroy(&s.look);
    free(s.rules);
    free(s.names);
    free(cur);
    free(next);
    return st;
}

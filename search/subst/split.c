/* MetaFlow's flow-based recursive split (DESIGN §11).
 *
 * The capacity of an op is the number of rule matches that use one of its
 * in-edges and one of its out-edges (a matched producer and a matched
 * consumer), plus one: cutting the graph there destroys those matches. A part
 * larger than split_size ops is cut by a minimum vertex cut (max-flow on the
 * split-node graph, v_in -> v_out carrying v's capacity) between its first and
 * its last quarter in topological order, so both halves keep at least a
 * quarter of the ops; the cut ops go with the first half. Parts are searched
 * one after the other with backtracking restricted to matches inside the
 * part, each starting from the previous result (the stitch is implicit: the
 * rewrites act on the whole graph), then a final backtracking pass accepts
 * only matches that cross a part boundary. The expansion budget is shared
 * evenly by the parts and the boundary pass.
 *
 * Parts are kept as sets of op names: rewrites keep the names of the ops
 * they replace and name new ops after the first matched op (name~k), so an
 * op of a later graph belongs to the part of the name before its '~'. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "planner/util/hashmap.h"
#include "search/subst/search_internal.h"

#define LF__INF (INT32_MAX / 4)

typedef struct lf__parts {
    lf_strmap part_of;      /* op name -> part index + 1 (as a pointer-sized integer) */
    int32_t current;        /* part being searched; -1: the boundary pass */
} lf__parts;

static int32_t lf__part(const lf__parts *p, const char *name)
{
    char buf[512];
    size_t n = strcspn(name, "~");
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, name, n);
    buf[n] = '\0';
    void *v = NULL;
    return lf_strmap_get(&p->part_of, buf, &v) ? (int32_t)(intptr_t)v - 1 : -1;
}

static int lf__filter(void *ctx, const lf_graph *g, const lf_subst_rule *r, const lf_subst_match *m)
{
    const lf__parts *p = ctx;
    int32_t first = lf__part(p, g->ops[m->op[0]].name);
    int crosses = first < 0;
    for (int32_t i = 1; i < r->n_nodes; i++)
        crosses |= lf__part(p, g->ops[m->op[i]].name) != first;
    return p->current < 0 ? crosses : !crosses && first == p->current;
}

/* ---- max-flow (Edmonds-Karp; the networks have a few hundred nodes) --------- */

typedef struct lf__flow {
    int32_t n, m, cap_m;
    int32_t *head, *next, *to, *cap;
} lf__flow;

static int lf__edge(lf__flow *f, int32_t u, int32_t v, int32_t c)
{
    if (f->m + 2 > f->cap_m) {
        int32_t cap = f->cap_m ? f->cap_m * 2 : 256;
        int32_t *nx = realloc(f->next, (size_t)cap * sizeof *nx);
        if (!nx)
            return 0;
        f->next = nx;
        int32_t *to = realloc(f->to, (size_t)cap * sizeof *to);
        if (!to)
            return 0;
        f->to = to;
        int32_t *cp = realloc(f->cap, (size_t)cap * sizeof *cp);
        if (!cp)
            return 0;
        f->cap = cp;
        f->cap_m = cap;
    }
    f->to[f->m] = v, f->cap[f->m] = c, f->next[f->m] = f->head[u], f->head[u] = f->m++;
    f->to[f->m] = u, f->cap[f->m] = 0, f->next[f->m] = f->head[v], f->head[v] = f->m++;
    return 1;
}

/* Runs max-flow from s to t; marks in reach[] the nodes reachable from s in
 * the residual network. Returns 0 when out of memory. */
static int lf__maxflow(lf__flow *f, int32_t s, int32_t t, uint8_t *reach)
{
    int32_t *prev = malloc((size_t)f->n * sizeof *prev), *queue = malloc((size_t)f->n * sizeof *queue);
    if (!prev || !queue) {
        free(prev);
        free(queue);
        return 0;
    }
    for (;;) {
        for (int32_t i = 0; i < f->n; i++)
            prev[i] = -1;
        int32_t qh = 0, qt = 0;
        queue[qt++] = s;
        prev[s] = -2;
        while (qh < qt && prev[t] == -1) {
            int32_t u = queue[qh++];
            for (int32_t e = f->head[u]; e >= 0; e = f->next[e])
                if (f->cap[e] > 0 && prev[f->to[e]] == -1) {
                    prev[f->to[e]] = e;
                    queue[qt++] = f->to[e];
                }
        }
        if (prev[t] == -1)
            break;
        int32_t push = LF__INF;
        for (int32_t v = t; v != s; v = f->to[prev[v] ^ 1])
            push = f->cap[prev[v]] < push ? f->cap[prev[v]] : push;
        for (int32_t v = t; v != s; v = f->to[prev[v] ^ 1]) {
            f->cap[prev[v]] -= push;
            f->cap[prev[v] ^ 1] += push;
        }
    }
    for (int32_t i = 0; i < f->n; i++)
        reach[i] = prev[i] != -1;
    free(prev);
    free(queue);
    return 1;
}

/* Splits ops[0..n) (ascending ids) of g into two by a minimum vertex cut;
 * side[i] = 0 or 1. */
static lf_status lf__cut(const lf_graph *g, const int32_t *ops, int32_t n, const int32_t *capacity,
                         const int32_t *pos, uint8_t *side)
{
    lf__flow f;
    memset(&f, 0, sizeof f);
    f.n = 2 * n + 2;
    int32_t src = 2 * n, snk = 2 * n + 1;
    f.head = malloc((size_t)f.n * sizeof *f.head);
    uint8_t *reach = malloc((size_t)f.n);
    int ok = f.head && reach;
    for (int32_t i = 0; ok && i < f.n; i++)
        f.head[i] = -1;
    int32_t q1 = n / 4, q3 = n - n / 4;
    for (int32_t i = 0; ok && i < n; i++) {
        int32_t v = ops[i];
        ok &= lf__edge(&f, 2 * i, 2 * i + 1, i < q1 || i >= q3 ? LF__INF : capacity[v]);
        if (i < q1)
            ok &= lf__edge(&f, src, 2 * i, LF__INF);
        if (i >= q3)
            ok &= lf__edge(&f, 2 * i + 1, snk, LF__INF);
        for (int32_t k = 0; ok && k < g->ops[v].n_consumers; k++) {
            int32_t w = pos[g->ops[v].consumers[k]];
            if (w >= 0)
                ok &= lf__edge(&f, 2 * i + 1, 2 * w, LF__INF);
        }
    }
    if (ok)
        ok = lf__maxflow(&f, src, snk, reach);
    int32_t n0 = 0;
    for (int32_t i = 0; ok && i < n; i++)
        n0 += (side[i] = !reach[2 * i]) == 0;
    if (ok && (n0 == 0 || n0 == n)) /* nothing to cut between the quarters: halve */
        for (int32_t i = 0; i < n; i++)
            side[i] = i >= n / 2;
    free(f.head);
    free(f.next);
    free(f.to);
    free(f.cap);
    free(reach);
    return ok ? LF_OK : lf_set_error(LF_ENOMEM, "split: out of memory");
}

/* Capacities: 1 + matches through an in-edge and an out-edge of the op. */
static lf_status lf__capacities(const lf_graph *g, const lf_subst_ruleset *rs, const lf_subst_options *o,
                                int32_t *capacity)
{
    for (int32_t v = 0; v < g->n_ops; v++)
        capacity[v] = 1;
    uint64_t types = lf_subst_graph_types(g);
    for (int32_t k = 0; k < rs->n; k++) {
        if (!lf_subst_rule_active(rs, o, k) || !lf_subst_rule_possible(rs->rule[k], types))
            continue;
        lf_subst_matches ms = {0, 0, NULL};
        lf_status st = lf_subst_find(g, rs->rule[k], &ms);
        if (st)
            return st;
        const lf_subst_rule *r = rs->rule[k];
        for (int32_t j = 0; j < ms.n; j++)
            for (int32_t a = 0; a < r->n_nodes; a++) {
                int32_t v = ms.m[j].op[a], in = 0, out = 0;
                for (int32_t b = 0; b < r->n_nodes; b++) {
                    int32_t u = ms.m[j].op[b];
                    for (int32_t p = 0; p < g->ops[v].n_inputs; p++)
                        in |= g->ops[v].inputs[p] == u;
                    for (int32_t p = 0; p < g->ops[u].n_inputs; p++)
                        out |= g->ops[u].inputs[p] == v;
                }
                capacity[v] += in && out;
            }
        lf_subst_matches_free(&ms);
    }
    return LF_OK;
}

/* Recursively assigns parts to ops[0..n); *parts counts them. */
static lf_status lf__recurse(const lf_graph *g, int32_t *ops, int32_t n, const int32_t *capacity,
                             int32_t *pos, int32_t limit, int32_t *part_of, int32_t *parts)
{
    if (n <= limit) {
        for (int32_t i = 0; i < n; i++)
            part_of[ops[i]] = *parts;
        (*parts)++;
        return LF_OK;
    }
    for (int32_t i = 0; i < n; i++)
        pos[ops[i]] = i;
    uint8_t *side = malloc((size_t)n);
    int32_t *tmp = malloc((size_t)n * sizeof *tmp);
    lf_status st = side && tmp ? lf__cut(g, ops, n, capacity, pos, side)
                               : lf_set_error(LF_ENOMEM, "split: out of memory");
    for (int32_t i = 0; i < n; i++)
        pos[ops[i]] = -1;
    int32_t n0 = 0;
    if (!st) {
        for (int32_t i = 0; i < n; i++)
            if (!side[i])
                tmp[n0++] = ops[i];
        for (int32_t i = 0, k = n0; i < n; i++)
            if (side[i])
                tmp[k++] = ops[i];
        memcpy(ops, tmp, (size_t)n * sizeof *ops);
    }
    free(side);
    free(tmp);
    if (!st)
        st = lf__recurse(g, ops, n0, capacity, pos, limit, part_of, parts);
    if (!st)
        st = lf__recurse(g, ops + n0, n - n0, capacity, pos, limit, part_of, parts);
    return st;
}

lf_status lf__split_search(lf__search *s, lf_graph *g, lf_graph **out, lf_subst_costs *costs, int32_t *parts)
{
    *out = NULL;
    *parts = 0;
    int32_t n = g->n_ops;
    int32_t *capacity = malloc((size_t)n * sizeof *capacity), *ops = malloc((size_t)n * sizeof *ops);
    int32_t *pos = malloc((size_t)n * sizeof *pos), *part_of = malloc((size_t)n * sizeof *part_of);
    lf__parts p;
    memset(&p, 0, sizeof p);
    lf_status st = capacity && ops && pos && part_of ? lf_strmap_init(&p.part_of, (size_t)n * 2)
                                                     : lf_set_error(LF_ENOMEM, "split: out of memory");
    int32_t np = 0;
    if (!st)
        st = lf__capacities(g, s->rs, s->o, capacity);
    if (!st) {
        for (int32_t v = 0; v < n; v++)
            ops[v] = v, pos[v] = -1;
        int32_t limit = s->o->split_size > 0 ? s->o->split_size : 30;
        st = lf__recurse(g, ops, n, capacity, pos, limit, part_of, &np);
    }
    for (int32_t v = 0; !st && v < n; v++)
        st = lf_strmap_put(&p.part_of, g->ops[v].name, (void *)(intptr_t)(part_of[v] + 1));
    free(capacity);
    free(ops);
    free(pos);
    free(part_of);
    s->filter = lf__filter;
    s->filter_ctx = &p;
    lf_graph *cur = g;
    g = NULL;
    /* each part, then the boundaries */
    for (int32_t k = 0; k <= np && !st; k++) {
        p.current = k < np ? k : -1;
        st = lf__search_start(s, cur);
        cur = NULL;
        if (!st) /* the budget is the whole search's: shared by the parts and the boundary pass */
            st = lf__backtrack(s, s->o->budget / (np + 1) > 0 ? s->o->budget / (np + 1) : 1);
        if (!st)
            st = lf__search_finish(s, &cur, costs);
    }
    s->filter = NULL;
    s->filter_ctx = NULL;
    lf_strmap_destroy(&p.part_of);
    lf_graph_free(g);
    if (st) {
        lf_graph_free(cur);
        return st;
    }
    *out = cur;
    *parts = np;
    return LF_OK;
}

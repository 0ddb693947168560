/* What OCGGS's three searches share: the wall-clock cap, the heap meter, the
 * best sequence found, and the dynamic programming step of Algorithm 2
 * (Theorems 5 and 6): a child's candidate steps are its parent's candidates
 * that the step did not touch, carried over by op names and re-checked
 * without matching again, plus new matches searched only around the ops the
 * step created.
 *
 * Peak memory is measured, not estimated: glibc's mallinfo2 (bytes in use
 * on the heap, mmapped blocks included) is sampled at every graph a search
 * builds, and the peak above the value at the search's start is reported.
 * Without glibc (or under a sanitizer's allocator, which mallinfo2 does not
 * see) the figure is -1 or 0. */
#include <stdlib.h>
#include <string.h>
#include "search/subst/ocggs_internal.h"
#include "search/subst/search_internal.h"

void lf__ocands_free(lf__ocands *cs)
{
    free(cs->c);
    memset(cs, 0, sizeof *cs);
}

static lf_status lf__ocands_push(lf__ocands *cs, const lf__ocand *c)
{
    if (cs->n == cs->cap) {
        int32_t cap = cs->cap ? 2 * cs->cap : 32;
        lf__ocand *p = realloc(cs->c, (size_t)cap * sizeof *p);
        if (!p)
            return lf_set_error(LF_ENOMEM, "ocggs: out of memory");
        cs->c = p;
        cs->cap = cap;
    }
    cs->c[cs->n++] = *c;
    return LF_OK;
}

lf_status lf__oc_init(lf__oc *x, const lf_subst_ruleset *rs, const lf_subst_coster *c, const lf_subst_options *o)
{
    memset(x, 0, sizeof *x);
    x->rs = rs;
    x->c = c;
    x->o = o;
    x->with_dram = lf_subst_objective_fused(c->objective);
    x->K = o->max_steps > 0 ? o->max_steps : 10;
    /* a new match containing a created op has its root within the diameter;
     * one more edge also finds matches a step made valid next to it (an
     * outside reader it removed) */
    x->radius = lf__rules_diameter(rs) + 1;
    x->t0 = lf__subst_clock(o);
    x->deadline = o->time_limit_s > 0 ? x->t0 + o->time_limit_s : 0;
    x->heap0 = lf__subst_heap_bytes();
    x->peak_heap = x->heap0 < 0 ? -1 : 0;
    return LF_OK;
}

static void lf__free_steps(lf_subst_step *s, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        free(s[i].ops);
    free(s);
}

void lf__oc_destroy(lf__oc *x)
{
    lf_graph_free(x->best);
    lf__free_steps(x->steps, x->n_steps);
    memset(x, 0, sizeof *x);
}

int lf__oc_expired(lf__oc *x)
{
    if (x->timed_out)
        return 1;
    if (x->deadline > 0 && lf__subst_clock(x->o) > x->deadline)
        x->timed_out = 1;
    return x->timed_out;
}

lf_status lf__oc_no_result(lf__oc *x, const char *name)
{
    return lf_set_error(LF_ELIMIT, "%s: no result within the time limit of %g s%s (%lld sequences examined)", name,
                        x->o->time_limit_s, x->o->time_limit_cpu ? " of CPU time" : "", (long long)x->sequences);
}

void lf__oc_meter(lf__oc *x)
{
    if (x->heap0 < 0)
        return;
    int64_t h = lf__subst_heap_bytes() - x->heap0;
    if (h > x->peak_heap)
        x->peak_heap = h;
}

lf_status lf__oc_cost(lf__oc *x, const lf_graph *g, lf_subst_costs *k, double *v)
{
    lf_status st = lf_subst_cost(x->c, g, x->with_dram, k);
    *v = lf_subst_cost_value(x->c, k);
    return st;
}

lf_status lf__oc_apply(lf__oc *x, const lf_graph *g, int32_t k, const lf_subst_match *m, lf_graph **out)
{
    lf_status st = lf_subst_apply(g, x->rs->rule[k], m, out);
    if (st == LF_ENOMEM)
        return st;
    if (st) { /* not shape-valid, a cycle: the rule does not apply here */
        x->rejected++;
        *out = NULL;
        return LF_OK;
    }
    x->sequences++;
    lf__oc_meter(x);
    return LF_OK;
}

char *lf__oc_op_names(const lf_graph *g, const lf_subst_rule *r, const lf_subst_match *m)
{
    return lf__subst_op_names(g, r, m);
}

uint64_t lf__oc_step_key(const lf_graph *g, int32_t rule, const lf_subst_match *m)
{
    uint64_t h = lf_hash_bytes(&rule, sizeof rule, 0x5eed);
    for (int32_t i = 0; i < LF_SUBST_MAX_NODES && m->op[i] >= 0; i++) {
        const char *nm = g->ops[m->op[i]].name;
        h = lf_hash_bytes(nm, strlen(nm) + 1, h);
    }
    return h;
}

lf_status lf__oc_offer(lf__oc *x, const lf_graph *g, const lf_subst_costs *k, double v, const lf__opath *path,
                       int32_t len, const int32_t *rules, char *const *names)
{
    /* strictly cheaper, beyond the rounding of summing the same ops in another order */
    if (x->best && !(v < x->best_cost - 1e-12 * (x->best_cost > 0 ? x->best_cost : -x->best_cost)))
        return LF_OK;
    lf_graph *copy = NULL;
    lf_subst_step *steps = calloc((size_t)(len ? len : 1), sizeof *steps);
    lf_status st = steps ? lf_subst_strip(g, &copy) : lf_set_error(LF_ENOMEM, "ocggs: out of memory");
    for (int32_t i = 0; i < len && !st; i++) {
        if (path) {
            steps[i].rule = path[i].rule;
            steps[i].ops = lf__oc_op_names(path[i].g, x->rs->rule[path[i].rule], &path[i].m);
        } else {
            steps[i].rule = rules[i];
            steps[i].ops = strdup(names[i]);
        }
        if (!steps[i].ops)
            st = lf_set_error(LF_ENOMEM, "ocggs: out of memory");
    }
    if (st) {
        lf__free_steps(steps, len);
        lf_graph_free(copy);
        return st;
    }
    lf_graph_free(x->best);
    lf__free_steps(x->steps, x->n_steps);
    x->best = copy;
    x->best_costs = *k;
    x->best_cost = v;
    x->steps = steps;
    x->n_steps = len;
    return LF_OK;
}

lf_status lf__oc_step(lf__oc *x, lf__opath *path, int32_t depth, const lf_graph *g, const lf__label *lab,
                      const lf__ocand *c, lf_graph **child, lf__label **clab, int32_t **created,
                      int32_t *n_created)
{
    *clab = NULL;
    *created = NULL;
    *n_created = 0;
    lf_status st = lf__oc_apply(x, g, c->rule, &c->m, child);
    if (st || !*child)
        return st;
    path[depth] = (lf__opath){c->rule, g, c->m};
    lf_subst_costs k;
    double v = 0;
    st = lf__oc_cost(x, *child, &k, &v);
    if (!st)
        st = lf__oc_offer(x, *child, &k, v, path, depth + 1, NULL, NULL);
    if (!st && depth + 1 < x->K)
        st = lf__labels_child(g, lab, x->rs->rule[c->rule], &c->m, *child, depth + 1, clab, created, n_created);
    return st;
}

lf_status lf__oc_matches(lf__oc *x, const lf_graph *g, const lf__label *lab, const uint8_t *roots, lf__ocands *out)
{
    lf_status st = LF_OK;
    uint64_t types = lf_subst_graph_types(g);
    for (int32_t k = 0; k < x->rs->n && !st; k++) {
        if (!lf_subst_rule_active(x->rs, x->o, k)) /* enabled and not filtered out (GSO) */
            continue;
        if (!lf_subst_rule_possible(x->rs->rule[k], types)) /* an op type g lacks */
            continue;
        const lf_subst_rule *r = x->rs->rule[k];
        lf_subst_matches ms = {0, 0, NULL};
        st = roots ? lf_subst_find_rooted(g, r, roots, &ms) : lf_subst_find(g, r, &ms);
        for (int32_t j = 0; j < ms.n && !st; j++) {
            lf__ocand c;
            memset(&c, 0, sizeof c);
            c.rule = k;
            c.m = ms.m[j];
            c.lab = lab ? lf__step_label(lab, r, &c.m) : LF__NO_STEP;
            c.key = lf__oc_step_key(g, k, &c.m);
            st = lf__ocands_push(out, &c);
        }
        lf_subst_matches_free(&ms);
    }
    return st;
}

/* A hash of the match's ops and bindings (to find a new match among the carried ones). */
static uint64_t lf__match_hash(int32_t rule, const lf_subst_rule *r, const lf_subst_match *m)
{
    uint64_t h = lf_hash_bytes(&rule, sizeof rule, 0x3a7c);
    h = lf_hash_bytes(m->op, (size_t)r->n_nodes * sizeof m->op[0], h);
    return lf_hash_bytes(m->var, (size_t)r->n_vars * sizeof m->var[0], h);
}

static int lf__same_match(const lf_subst_rule *r, const lf_subst_match *a, const lf_subst_match *b)
{
    for (int32_t i = 0; i < r->n_nodes; i++)
        if (a->op[i] != b->op[i])
            return 0;
    for (int32_t k = 0; k < r->n_vars; k++)
        if (a->var[k].id != b->var[k].id || (a->var[k].id >= 0 && a->var[k].kind != b->var[k].kind))
            return 0;
    return 1;
}

/* Carries match m of the parent over to the child by names; 0 when an op
 * or constant it names is gone. */
static int lf__carry(const lf_graph *parent, const lf_subst_rule *r, const lf_subst_match *m,
                     const lf_strmap *ops, const lf_strmap *consts, lf_subst_match *out)
{
    *out = *m;
    void *p = NULL;
    for (int32_t i = 0; i < r->n_nodes; i++) {
        if (!lf_strmap_get(ops, parent->ops[m->op[i]].name, &p))
            return 0;
        out->op[i] = (int32_t)(intptr_t)p - 1;
    }
    for (int32_t k = 0; k < r->n_vars; k++) {
        const lf_operand *o = &m->var[k];
        if (o->id < 0)
            continue;
        int found = o->kind == LF_OPND_CONST ? lf_strmap_get(consts, parent->consts[o->id].name, &p)
                                             : lf_strmap_get(ops, parent->ops[o->id].name, &p);
        if (!found)
            return 0;
        out->var[k].id = (int32_t)(intptr_t)p - 1;
    }
    return 1;
}

lf_status lf__oc_child_cands(lf__oc *x, const lf_graph *parent, const lf__ocands *pc, int32_t taken,
                             const lf_graph *child, const lf__label *clab, const int32_t *created,
                             int32_t n_created, int ordered, lf__ocands *out)
{
    const lf__ocand *t = &pc->c[taken];
    const lf_subst_rule *tr = x->rs->rule[t->rule];
    lf_strmap ops, consts;
    lf_hashmap seen;
    memset(&ops, 0, sizeof ops);
    memset(&consts, 0, sizeof consts);
    memset(&seen, 0, sizeof seen);
    uint8_t *mark = NULL;
    lf__ocands nw = {NULL, 0, 0};
    lf_status st = lf_strmap_init(&ops, (size_t)child->n_ops * 2 + 8);
    if (!st)
        st = lf_strmap_init(&consts, (size_t)child->n_consts * 2 + 8);
    if (!st)
        st = lf_hashmap_init(&seen, (size_t)pc->n * 2 + 16);
    for (int32_t v = 0; v < child->n_ops && !st; v++)
        st = lf_strmap_put(&ops, child->ops[v].name, (void *)(intptr_t)(v + 1));
    for (int32_t j = 0; j < child->n_consts && !st; j++)
        st = lf_strmap_put(&consts, child->consts[j].name, (void *)(intptr_t)(j + 1));
    /* the parent's candidates the step left alone, without matching again */
    for (int32_t j = 0; j < pc->n && !st; j++) {
        const lf__ocand *c = &pc->c[j];
        if (j == taken || (ordered && !lf__ordered(t->lab, c->lab)))
            continue;
        const lf_subst_rule *r = x->rs->rule[c->rule];
        int shares = 0;
        for (int32_t a = 0; a < r->n_nodes && !shares; a++)
            for (int32_t b = 0; b < tr->n_nodes; b++)
                shares |= c->m.op[a] == t->m.op[b];
        lf__ocand nc = *c;
        if (shares || !lf__carry(parent, r, &c->m, &ops, &consts, &nc.m) || !lf_subst_match_valid(child, r, &nc.m))
            continue;
        nc.lab = lf__step_label(clab, r, &nc.m);
        x->reused++;
        if (!(st = lf__ocands_push(out, &nc)))
            st = lf_hashmap_put(&seen, lf__match_hash(nc.rule, r, &nc.m), (void *)(intptr_t)out->n);
    }
    /* new matches around the created ops */
    if (!st && !(mark = calloc((size_t)(child->n_ops ? child->n_ops : 1), 1)))
        st = lf_set_error(LF_ENOMEM, "ocggs: out of memory");
    if (!st)
        st = lf__ball(child, created, n_created, x->radius, mark);
    if (!st)
        st = lf__oc_matches(x, child, clab, mark, &nw);
    for (int32_t j = 0; j < nw.n && !st; j++) {
        const lf__ocand *c = &nw.c[j];
        const lf_subst_rule *r = x->rs->rule[c->rule];
        if (ordered && !lf__ordered(t->lab, c->lab))
            continue;
        void *p = NULL;
        if (lf_hashmap_get(&seen, lf__match_hash(c->rule, r, &c->m), &p) &&
            out->c[(intptr_t)p - 1].rule == c->rule && lf__same_match(r, &out->c[(intptr_t)p - 1].m, &c->m))
            continue;
        st = lf__ocands_push(out, c);
    }
    free(mark);
    lf__ocands_free(&nw);
    lf_strmap_destroy(&ops);
    lf_strmap_destroy(&consts);
    lf_hashmap_destroy(&seen);
    return st;
}

/* Matcher: binds source nodes one at a time, depth first (MetaFlow's
 * GraphXfer::run). A node's candidates are the readers of an already bound
 * node or variable it reads, or every op when it reads none yet, always in
 * ascending op id, so the matches come out in one deterministic order. A
 * complete binding is accepted when its constraints hold, no removed source
 * op is read outside the match (or is a graph output), and the match is
 * convex (no path leaves it and comes back, which the rewrite would turn into
 * a cycle). */
#include <stdlib.h>
#include <string.h>

#include "search/subst/subst.h"

typedef struct lf__mctx {
    const lf_graph *g;
    const lf_subst_rule *r;
    lf_subst_matches *ms;
    lf_subst_match cur;
    int32_t *stamp;   /* per op: visit stamp of the convexity walk */
    int32_t *stack;
    int32_t epoch;
    const uint8_t *roots; /* NULL, or the ops node 0 may bind */
    lf_status st;
} lf__mctx;

void lf_subst_matches_free(lf_subst_matches *ms)
{
    if (!ms)
        return;
    free(ms->m);
    ms->m = NULL;
    ms->n = ms->cap = 0;
}

static int32_t lf__one(int32_t v) { return v ? v : 1; }

static int64_t lf__same_pad(const lf_attrs *a)
{
    int32_t kh = lf__one(a->kh), kw = lf__one(a->kw), dh = lf__one(a->dh), dw = lf__one(a->dw);
    if (!(kh & 1) || !(kw & 1))
        return 0;
    int32_t ph = (kh - 1) * dh / 2, pw = (kw - 1) * dw / 2;
    return a->pad_top == ph && a->pad_bottom == ph && a->pad_left == pw && a->pad_right == pw;
}

int64_t lf_subst_field_of(const lf_graph *g, int32_t v, lf_subst_field f)
{
    const lf_op *op = &g->ops[v];
    const lf_attrs *a = &op->attr;
    lf_shape in = {0, 0, 0, 0};
    if (op->n_operands > 0) {
        const lf_operand *o = &op->operands[0];
        in = o->kind == LF_OPND_CONST ? g->consts[o->id].shape : g->ops[o->id].out;
    }
    switch (f) {
    case LF_SF_KH: return lf__one(a->kh);
    case LF_SF_KW: return lf__one(a->kw);
    case LF_SF_SH: return lf__one(a->sh);
    case LF_SF_SW: return lf__one(a->sw);
    case LF_SF_DH: return lf__one(a->dh);
    case LF_SF_DW: return lf__one(a->dw);
    case LF_SF_PAD_T: return a->pad_top;
    case LF_SF_PAD_L: return a->pad_left;
    case LF_SF_PAD_B: return a->pad_bottom;
    case LF_SF_PAD_R: return a->pad_right;
    case LF_SF_GROUPS: return lf__one(a->groups);
    case LF_SF_ACT: return (int64_t)a->act;
    case LF_SF_AXES: return a->axes;
    case LF_SF_TRANS_A: return a->trans_a;
    case LF_SF_TRANS_B: return a->trans_b;
    case LF_SF_OUT_N: return op->out.n;
    case LF_SF_OUT_C: return op->out.c;
    case LF_SF_OUT_H: return op->out.h;
    case LF_SF_OUT_W: return op->out.w;
    case LF_SF_IN_N: return in.n;
    case LF_SF_IN_C: return in.c;
    case LF_SF_IN_H: return in.h;
    case LF_SF_IN_W: return in.w;
    case LF_SF_N_OPNDS: return op->n_operands;
    case LF_SF_SAME_PAD: return lf__same_pad(a);
    default: return 0;
    }
}

static int lf__cmp(int64_t a, lf_subst_cmp c, int64_t b)
{
    switch (c) {
    case LF_SC_EQ: return a == b;
    case LF_SC_NE: return a != b;
    case LF_SC_LT: return a < b;
    case LF_SC_LE: return a <= b;
    case LF_SC_GT: return a > b;
    case LF_SC_GE: return a >= b;
    }
    return 0;
}

static int lf__in_match(const lf__mctx *c, int32_t v)
{
    for (int32_t i = 0; i < c->r->n_nodes; i++)
        if (c->cur.op[i] == v)
            return 1;
    return 0;
}

/* 1 when some path leaves the match and re-enters it. Ops are in topological
 * order, so the walk stops at ids above the largest matched op. */
static int lf__leaves_and_returns(lf__mctx *c)
{
    const lf_graph *g = c->g;
    int32_t hi = -1;
    for (int32_t i = 0; i < c->r->n_nodes; i++)
        hi = c->cur.op[i] > hi ? c->cur.op[i] : hi;
    c->epoch++;
    int32_t sp = 0;
    for (int32_t i = 0; i < c->r->n_nodes; i++) {
        const lf_op *op = &g->ops[c->cur.op[i]];
        for (int32_t k = 0; k < op->n_consumers; k++) {
            int32_t w = op->consumers[k];
            if (w < hi && !lf__in_match(c, w) && c->stamp[w] != c->epoch) {
                c->stamp[w] = c->epoch;
                c->stack[sp++] = w;
            }
        }
    }
    while (sp > 0) {
        const lf_op *op = &g->ops[c->stack[--sp]];
        for (int32_t k = 0; k < op->n_consumers; k++) {
            int32_t w = op->consumers[k];
            if (w > hi || c->stamp[w] == c->epoch)
                continue;
            if (lf__in_match(c, w))
                return 1;
            c->stamp[w] = c->epoch;
            c->stack[sp++] = w;
        }
    }
    return 0;
}

static int lf__accept(lf__mctx *c)
{
    const lf_graph *g = c->g;
    const lf_subst_rule *r = c->r;
    for (int32_t i = 0; i < r->n_cons; i++) {
        const lf_subst_constraint *k = &r->cons[i];
        int64_t a = lf_subst_field_of(g, c->cur.op[k->node], k->field);
        int64_t b = k->other >= 0 ? lf_subst_field_of(g, c->cur.op[k->other], k->field) : k->value;
        if (!lf__cmp(a, k->cmp, b))
            return 0;
    }
    /* Variables are external: none may bind a matched op. */
    for (int32_t k = 0; k < r->n_vars; k++)
        if (c->cur.var[k].id >= 0 && c->cur.var[k].kind == LF_OPND_TENSOR &&
            lf__in_match(c, c->cur.var[k].id))
            return 0;
    for (int32_t i = 0; i < r->n_nodes; i++) {
        if (r->mapped & (1u << i))
            continue;
        const lf_op *op = &g->ops[c->cur.op[i]];
        if (op->is_output)
            return 0;
        for (int32_t k = 0; k < op->n_consumers; k++)
            if (!lf__in_match(c, op->consumers[k]))
                return 0;
    }
    if (r->check && !r->check(g, &c->cur, r))
        return 0;
    return !lf__leaves_and_returns(c);
}

static int lf__unify(lf__mctx *c, int32_t ref, const lf_operand *o)
{
    if (ref >= 0)
        return o->kind == LF_OPND_TENSOR && o->id == c->cur.op[ref];
    int32_t k = -1 - ref;
    lf_subst_var_kind want = c->r->var_kind[k];
    if (o->kind == LF_OPND_TENSOR && !(want & LF_SUBST_VAR_ACT))
        return 0;
    if (o->kind == LF_OPND_CONST && !(want & LF_SUBST_VAR_CONST))
        return 0;
    lf_operand *b = &c->cur.var[k];
    if (b->id >= 0)
        return b->kind == o->kind && b->id == o->id;
    *b = *o;
    return 1;
}

/* Binds node i's operands for op v with operand positions in order perm. */
static int lf__bind(lf__mctx *c, int32_t i, int32_t v, int swap)
{
    const lf_subst_node *n = &c->r->nodes[i];
    const lf_op *op = &c->g->ops[v];
    for (int32_t p = 0; p < n->n_refs && p < op->n_operands; p++) {
        int32_t q = swap && p < 2 ? 1 - p : p;
        if (!lf__unify(c, n->ref[p], &op->operands[q]))
            return 0;
    }
    return 1;
}

static void lf__dfs(lf__mctx *c, int32_t i);

static void lf__try(lf__mctx *c, int32_t i, int32_t v)
{
    const lf_subst_node *n = &c->r->nodes[i];
    const lf_op *op = &c->g->ops[v];
    if (!(n->types & LF_SUBST_TYPE(op->type)) || op->n_operands < n->min_opnds ||
        op->n_operands > n->max_opnds || lf__in_match(c, v))
        return;
    if (n->after >= 0 && v <= c->cur.op[n->after])
        return;
    int orders = n->commutative && op->n_operands == 2 ? 2 : 1;
    for (int s = 0; s < orders && !c->st; s++) {
        lf_subst_match save = c->cur;
        c->cur.op[i] = v;
        if (lf__bind(c, i, v, s))
            lf__dfs(c, i + 1);
        c->cur = save;
    }
}

static void lf__dfs(lf__mctx *c, int32_t i)
{
    if (c->st)
        return;
    const lf_graph *g = c->g;
    if (i == c->r->n_nodes) {
        if (!lf__accept(c))
            return;
        lf_subst_matches *ms = c->ms;
        if (ms->n == ms->cap) {
            int32_t cap = ms->cap ? ms->cap * 2 : 16;
            lf_subst_match *m = realloc(ms->m, (size_t)cap * sizeof *m);
            if (!m) {
                c->st = lf_set_error(LF_ENOMEM, "matcher: out of memory");
                return;
            }
            ms->m = m;
            ms->cap = cap;
        }
        ms->m[ms->n++] = c->cur;
        return;
    }
    /* Candidates: the readers of a bound node or activation variable. */
    const lf_subst_node *n = &c->r->nodes[i];
    int32_t from = -1;
    for (int32_t p = 0; p < n->n_refs && from < 0; p++) {
        int32_t ref = n->ref[p];
        if (ref >= 0)
            from = c->cur.op[ref];
        else if (c->cur.var[-1 - ref].id >= 0 && c->cur.var[-1 - ref].kind == LF_OPND_TENSOR)
            from = c->cur.var[-1 - ref].id;
    }
    if (from >= 0) {
        const lf_op *src = &g->ops[from];
        for (int32_t k = 0; k < src->n_consumers && !c->st; k++)
            lf__try(c, i, src->consumers[k]);
    } else {
        for (int32_t v = 0; v < g->n_ops && !c->st; v++)
            if (i > 0 || !c->roots || c->roots[v])
                lf__try(c, i, v);
    }
}

static lf_status lf__find(const lf_graph *g, const lf_subst_rule *r, const uint8_t *roots, lf_subst_matches *ms)
{
    if (r->n_nodes < 1 || r->n_nodes > LF_SUBST_MAX_NODES || r->n_vars > LF_SUBST_MAX_VARS)
        return lf_set_error(LF_EINVAL, "rule '%s': %d source ops, %d variables (at most %d and %d)",
                            r->name, (int)r->n_nodes, (int)r->n_vars, LF_SUBST_MAX_NODES,
                            LF_SUBST_MAX_VARS);
    lf__mctx c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.r = r;
    c.ms = ms;
    c.roots = roots;
    for (int32_t i = 0; i < LF_SUBST_MAX_NODES; i++)
        c.cur.op[i] = -1;
    for (int32_t k = 0; k < LF_SUBST_MAX_VARS; k++)
        c.cur.var[k].id = -1;
    size_t n = (size_t)(g->n_ops > 0 ? g->n_ops : 1);
    c.stamp = calloc(n, sizeof *c.stamp);
    c.stack = malloc(n * sizeof *c.stack);
    if (!c.stamp || !c.stack) {
        free(c.stamp);
        free(c.stack);
        return lf_set_error(LF_ENOMEM, "matcher: out of memory");
    }
    lf__dfs(&c, 0);
    free(c.stamp);
    free(c.stack);
    return c.st;
}

lf_status lf_subst_find(const lf_graph *g, const lf_subst_rule *r, lf_subst_matches *ms)
{
    return lf__find(g, r, NULL, ms);
}

lf_status lf_subst_find_rooted(const lf_graph *g, const lf_subst_rule *r, const uint8_t *roots,
                               lf_subst_matches *ms)
{
    return lf__find(g, r, roots, ms);
}

/* Binds nodes i.. of c->cur (ops fixed) against their operands, each
 * commutative node in either order; 1 when some choice binds them all. */
static int lf__rebind(lf__mctx *c, int32_t i)
{
    if (i == c->r->n_nodes)
        return 1;
    const lf_subst_node *n = &c->r->nodes[i];
    int32_t v = c->cur.op[i];
    const lf_op *op = &c->g->ops[v];
    if (!(n->types & LF_SUBST_TYPE(op->type)) || op->n_operands < n->min_opnds || op->n_operands > n->max_opnds)
        return 0;
    if (n->after >= 0 && v <= c->cur.op[n->after])
        return 0;
    int orders = n->commutative && op->n_operands == 2 ? 2 : 1;
    for (int s = 0; s < orders; s++) {
        lf_subst_match save = c->cur;
        if (lf__bind(c, i, v, s) && lf__rebind(c, i + 1))
            return 1;
        c->cur = save;
    }
    return 0;
}

int lf_subst_match_valid(const lf_graph *g, const lf_subst_rule *r, const lf_subst_match *m)
{
    if (r->n_nodes < 1 || r->n_nodes > LF_SUBST_MAX_NODES || r->n_vars > LF_SUBST_MAX_VARS)
        return 0;
    lf__mctx c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.r = r;
    for (int32_t i = 0; i < LF_SUBST_MAX_NODES; i++)
        c.cur.op[i] = i < r->n_nodes ? m->op[i] : -1;
    for (int32_t i = 0; i < r->n_nodes; i++) {
        if (c.cur.op[i] < 0 || c.cur.op[i] >= g->n_ops)
            return 0;
        for (int32_t j = 0; j < i; j++)
            if (c.cur.op[j] == c.cur.op[i])
                return 0;
    }
    /* the claimed bindings are taken as bound, so every operand must equal them */
    for (int32_t k = 0; k < LF_SUBST_MAX_VARS; k++)
        c.cur.var[k] = k < r->n_vars ? m->var[k] : (lf_operand){.id = -1};
    if (!lf__rebind(&c, 0))
        return 0;
    /* the bindings must be the ones the match claims */
    for (int32_t k = 0; k < r->n_vars; k++)
        if (c.cur.var[k].id != m->var[k].id || (m->var[k].id >= 0 && c.cur.var[k].kind != m->var[k].kind))
            return 0;
    size_t n = (size_t)(g->n_ops > 0 ? g->n_ops : 1);
    c.stamp = calloc(n, sizeof *c.stamp);
    c.stack = malloc(n * sizeof *c.stack);
    int ok = c.stamp && c.stack && lf__accept(&c);
    free(c.stamp);
    free(c.stack);
    return ok;
}

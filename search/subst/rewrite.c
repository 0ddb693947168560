/* Rewriter: builds the graph after one substitution. The graph's ops other
 * than the matched ones are added to a fresh builder under their own names,
 * then the rule's target adds its ops. Weight-only target ops (a Concat of
 * two weights, a padded kernel) are folded by the builder with the reference
 * executor. The old graph is only read.
 *
 * Names (docs/subst.md, "Names after a rewrite"): a target op that replaces
 * a source op's output is named after the first op of the chain it absorbs,
 * so a user maps it back to the op that does the work: conv_relu's fused
 * Conv keeps the Conv's name (not the Relu's), a Conv with a BatchNorm
 * folded in keeps the Conv's. The chain runs back from the replaced op
 * through removed source ops that only it reads. A replaced op that is a
 * graph output keeps its own name (an output's name is the model's
 * interface). Readers of the replaced op are renamed to match; ops the
 * target adds beyond those are named `<first matched op>~k`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/exec/exec.h"
#include "planner/util/arena.h"
#include "search/subst/subst_internal.h"

/* Old and new names of the replaced source ops (lf__rename). */
typedef struct lf__renames {
    int32_t n;
    const char *from[32], *to[32];
} lf__renames;

static const char *lf__renamed(const lf__renames *rn, const char *name)
{
    for (int32_t i = 0; rn && i < rn->n; i++)
        if (strcmp(rn->from[i], name) == 0)
            return rn->to[i];
    return name;
}

struct lf_subst_tctx {
    const lf_graph *g;
    const lf_subst_rule *r;
    const lf_subst_match *m;
    lf_graph_builder *b;
    lf_arena arena;
    const char *base;      /* prefix of fresh names */
    int32_t counter;
    uint32_t emitted;      /* bit i: the target replaced source node i */
    const char *name_of[32]; /* per mapped source node: its target op's name */
};

const lf_subst_rule *lf__subst_t_rule(const lf_subst_tctx *t) { return t->r; }
const lf_op *lf_subst_t_op(const lf_subst_tctx *t, int32_t node) { return &t->g->ops[t->m->op[node]]; }
const lf_graph *lf_subst_t_graph(const lf_subst_tctx *t) { return t->g; }

const char *lf_subst_t_var(const lf_subst_tctx *t, int32_t k)
{
    const lf_operand *o = &t->m->var[k];
    if (o->id < 0)
        return NULL;
    return o->kind == LF_OPND_CONST ? t->g->consts[o->id].name : t->g->ops[o->id].name;
}

lf_shape lf_subst_t_var_shape(const lf_subst_tctx *t, int32_t k)
{
    const lf_operand *o = &t->m->var[k];
    if (o->id < 0)
        return (lf_shape){0, 0, 0, 0};
    return o->kind == LF_OPND_CONST ? t->g->consts[o->id].shape : t->g->ops[o->id].out;
}

/* A name no op or constant of the old graph has and no earlier fresh name of
 * this rewrite has: base~k. Names of repeated rewrites do not grow, because
 * the base drops everything from the first '~'. */
static const char *lf__fresh(lf_subst_tctx *t)
{
    char buf[512];
    for (;;) {
        snprintf(buf, sizeof buf, "%s~%d", t->base, (int)++t->counter);
        if (lf_graph_find(t->g, buf) < 0 && lf_graph_find_const(t->g, buf) < 0)
            return lf_arena_strdup(&t->arena, buf);
    }
}

lf_status lf_subst_t_add(lf_subst_tctx *t, lf_op_type type, const lf_attrs *a,
                         const char *const *opnds, int32_t n, int32_t maps, const char **name)
{
    const char *nm;
    if (maps >= 0) {
        if (maps >= t->r->n_nodes || !(t->r->mapped & (1u << maps)) || (t->emitted & (1u << maps)))
            return lf_set_error(LF_EINVAL, "rule '%s': target maps source op %d twice or unmapped",
                                t->r->name, (int)maps);
        t->emitted |= 1u << maps;
        nm = t->name_of[maps];
    } else {
        nm = lf__fresh(t);
    }
    if (!nm)
        return lf_set_error(LF_ENOMEM, "rewrite: out of memory");
    int32_t id = lf_graph_builder_add_op(t->b, type, nm, a, opnds, n);
    if (id < 0)
        return (lf_status)id;
    if (name)
        *name = nm;
    return LF_OK;
}

lf_status lf_subst_t_const(lf_subst_tctx *t, lf_shape s, float *data, const char **name)
{
    const char *nm = lf__fresh(t);
    if (!nm) {
        free(data);
        return lf_set_error(LF_ENOMEM, "rewrite: out of memory");
    }
    int32_t id = data ? lf_graph_builder_add_const_owned(t->b, nm, s, data)
                      : lf_graph_builder_add_const(t->b, nm, s, NULL);
    if (id < 0)
        return (lf_status)id;
    if (name)
        *name = nm;
    return LF_OK;
}

/* The source node index op v has in match m, or -1. */
static int32_t lf__node_of(const lf_subst_match *m, const lf_subst_rule *r, int32_t v)
{
    for (int32_t i = 0; i < r->n_nodes; i++)
        if (m->op[i] == v)
            return i;
    return -1;
}

static int lf__matched(const lf_subst_match *m, const lf_subst_rule *r, int32_t v)
{
    return lf__node_of(m, r, v) >= 0;
}

/* The name of mapped source node i's target op (the rule above). */
static const char *lf__target_name(const lf_graph *g, const lf_subst_rule *r, const lf_subst_match *m, int32_t i)
{
    int32_t v = m->op[i];
    if (g->ops[v].is_output)
        return g->ops[v].name;
    for (int32_t steps = 0; steps < r->n_nodes; steps++) {
        int32_t next = -1, cnt = 0;
        for (int32_t k = 0; k < g->ops[v].n_inputs; k++) {
            int32_t u = g->ops[v].inputs[k], j = lf__node_of(m, r, u);
            if (j >= 0 && !(r->mapped & (1u << j)) && g->ops[u].n_consumers == 1 && !g->ops[u].is_output) {
                next = u;
                cnt++;
            }
        }
        if (cnt != 1)
            break;
        v = next;
    }
    return g->ops[v].name;
}

/* Adds op v of g to b unchanged (operands by name, those of replaced ops
 * renamed by rn). */
static lf_status lf__copy_op(const lf_graph *g, int32_t v, lf_graph_builder *b, const lf__renames *rn)
{
    const lf_op *op = &g->ops[v];
    const char *names[64];
    if (op->n_operands > 64)
        return lf_set_error(LF_ELIMIT, "rewrite: op '%s' has %d operands", op->name, (int)op->n_operands);
    for (int32_t p = 0; p < op->n_operands; p++) {
        const lf_operand *o = &op->operands[p];
        names[p] = o->kind == LF_OPND_CONST ? g->consts[o->id].name : lf__renamed(rn, g->ops[o->id].name);
    }
    int32_t id = lf_graph_builder_add_op(b, op->type, op->name, &op->attr, names, op->n_operands);
    if (id < 0)
        return (lf_status)id;
    if (op->is_output && op->n_consumers > 0)
        return lf_graph_builder_mark_output(b, op->name);
    return LF_OK;
}

/* Copies g into a new builder: every constant (values[j] for constant j, or
 * shape only when values is NULL) and every op except those matched by m
 * (NULL: none). */
static lf_status lf__copy(const lf_graph *g, const lf_subst_rule *r, const lf_subst_match *m,
                          const float *const *values, const lf__renames *rn, lf_graph_builder **out)
{
    lf_graph_builder *b = NULL;
    lf_status st = lf_graph_builder_create(&b, g->name);
    if (st)
        return st;
    lf_graph_builder_set_folder(b, lf_exec_fold, NULL);
    for (int32_t j = 0; j < g->n_consts && !st; j++) {
        const float *d = values ? values[j] : NULL;
        int32_t id = lf_graph_builder_add_const(b, g->consts[j].name, g->consts[j].shape, d);
        if (id < 0)
            st = (lf_status)id;
    }
    for (int32_t v = 0; v < g->n_ops && !st; v++)
        if (!m || !lf__matched(m, r, v))
            st = lf__copy_op(g, v, b, rn);
    if (st) {
        lf_graph_builder_free(b);
        return st;
    }
    *out = b;
    return LF_OK;
}

static int32_t lf__count_outputs(const lf_graph *g)
{
    int32_t n = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        n += g->ops[v].is_output != 0;
    return n;
}

lf_status lf_subst_apply(const lf_graph *g, const lf_subst_rule *r, const lf_subst_match *m,
                         lf_graph **out)
{
    *out = NULL;
    const float **vals = NULL;
    if (g->n_consts > 0) {
        vals = malloc((size_t)g->n_consts * sizeof *vals);
        if (!vals)
            return lf_set_error(LF_ENOMEM, "rewrite: out of memory");
        for (int32_t j = 0; j < g->n_consts; j++)
            vals[j] = g->consts[j].data;
    }
    lf_subst_tctx t;
    memset(&t, 0, sizeof t);
    t.g = g;
    t.r = r;
    t.m = m;
    lf_arena_init(&t.arena);
    lf__renames rn;
    rn.n = 0;
    for (int32_t i = 0; i < r->n_nodes && i < 32; i++)
        if (r->mapped & (1u << i)) {
            t.name_of[i] = lf__target_name(g, r, m, i);
            rn.from[rn.n] = g->ops[m->op[i]].name;
            rn.to[rn.n++] = t.name_of[i];
        }
    lf_status st = lf__copy(g, r, m, vals, &rn, &t.b);
    free(vals);
    if (!st) {
        char base[256];
        snprintf(base, sizeof base, "%s", g->ops[m->op[0]].name);
        char *tilde = strchr(base, '~');
        if (tilde)
            *tilde = '\0';
        t.base = lf_arena_strdup(&t.arena, base);
        st = t.base ? r->target(&t) : lf_set_error(LF_ENOMEM, "rewrite: out of memory");
    }
    if (!st && t.emitted != r->mapped)
        st = lf_set_error(LF_EINVAL, "rule '%s': the target does not replace every mapped op", r->name);
    /* Mapped graph outputs stay outputs even when something reads them. */
    for (int32_t i = 0; i < r->n_nodes && !st; i++) {
        const lf_op *op = &g->ops[m->op[i]];
        if ((r->mapped & (1u << i)) && op->is_output && op->n_consumers > 0)
            st = lf_graph_builder_mark_output(t.b, t.name_of[i]);
    }
    lf_graph *ng = NULL;
    if (!st)
        st = lf_graph_builder_build(t.b, &ng);
    if (!st && lf__count_outputs(ng) != lf__count_outputs(g))
        st = lf_set_error(LF_EGRAPH, "rule '%s' at '%s': the rewrite leaves an op nobody reads",
                          r->name, g->ops[m->op[0]].name);
    lf_graph_builder_free(t.b);
    lf_arena_destroy(&t.arena);
    if (st) {
        lf_graph_free(ng);
        return st;
    }
    *out = ng;
    return LF_OK;
}

lf_status lf_subst_strip(const lf_graph *g, lf_graph **out)
{
    lf_graph_builder *b = NULL;
    *out = NULL;
    lf_status st = lf__copy(g, NULL, NULL, NULL, NULL, &b);
    if (!st)
        st = lf_graph_builder_build(b, out);
    lf_graph_builder_free(b);
    return st;
}

lf_status lf_subst_materialize(const lf_graph *g, uint64_t seed, lf_graph **out)
{
    *out = NULL;
    lf_exec_options eo = {seed, 1, 0};
    lf_exec *ex = NULL;
    lf_status st = lf_exec_create(&ex, g, &eo);
    const float **vals = NULL;
    if (!st && g->n_consts > 0 && !(vals = malloc((size_t)g->n_consts * sizeof *vals)))
        st = lf_set_error(LF_ENOMEM, "materialize: out of memory");
    for (int32_t j = 0; !st && j < g->n_consts; j++)
        vals[j] = lf_exec_const_values(ex, j);
    lf_graph_builder *b = NULL;
    if (!st)
        st = lf__copy(g, NULL, NULL, vals, NULL, &b);
    if (!st)
        st = lf_graph_builder_build(b, out);
    lf_graph_builder_free(b);
    free(vals);
    lf_exec_free(ex);
    return st;
}

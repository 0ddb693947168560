/* Freezing: the ops that survive folding, in topological order, become the
 * graph's ops; their operands are resolved to op ids and constant ids, the
 * weights an op was built without are created shape-only, shapes are
 * inferred, and weights, MACs, consumers, the folded-op record and the hash
 * are computed. Constants are numbered in order of first use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/graph.h"
#include "planner/graph_internal.h"
#include "planner/optable.h"
#include "planner/util/arena.h"

#define LF__MAX_OPERANDS 68 /* the table's most (Concat: 64) plus implied weights */

typedef struct lf__freezer {
    lf_graph_builder *b;
    lf__build_scratch *s;
    lf_graph *g;
    lf_arena *arena;
    lf__graph_values *values;
    int32_t *const_id;    /* pending constant -> graph constant, -1 until used */
    lf_const *consts;     /* graph constants (capacity: pending + implied) */
    int32_t n_consts;
    uint8_t *counted;     /* graph constant already in an earlier op's param_count */
} lf__freezer;

/* Graph id of pending constant c, adding it on first use (its values move
 * to the graph). */
static lf_status lf__use_const(lf__freezer *z, int32_t c, int32_t *id)
{
    if (z->const_id[c] < 0) {
        lf__pending_const *p = &z->b->consts[c];
        lf_const *k = &z->consts[z->n_consts];
        k->name = lf_arena_strdup(z->arena, p->name);
        if (!k->name)
            return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", z->b->name);
        k->shape = p->shape;
        if (p->data) {
            lf__graph_values *vals = z->values;
            if (vals->n == vals->cap) {
                int32_t cap = vals->cap ? 2 * vals->cap : 64;
                float **bufs = realloc(vals->bufs, (size_t)cap * sizeof *bufs);
                if (!bufs)
                    return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", z->b->name);
                vals->bufs = bufs;
                vals->cap = cap;
            }
            if (!p->borrowed) /* else its adopted buffer is on the list */
                vals->bufs[vals->n++] = p->data;
            k->data = p->data;
            p->data = NULL;
        }
        z->const_id[c] = z->n_consts++;
    }
    *id = z->const_id[c];
    return LF_OK;
}

/* Resolves the operands of one op (pending index v) and creates its implied
 * weights. */
static lf_status lf__operands(lf__freezer *z, int32_t v, lf_op *op, lf_shape *shapes,
                              int32_t *n_shapes)
{
    const lf__pending_op *p = &z->b->ops[v];
    const lf__ref *refs = z->s->refs[v];
    lf_operand tmp[LF__MAX_OPERANDS];
    int32_t n = 0, n_act = 0;
    if (p->n_names > 64)
        return lf_set_error(LF_ELIMIT, "graph '%s': op '%s' has %d operands", z->b->name, p->name,
                            (int)p->n_names);
    for (int32_t j = 0; j < p->n_names; j++) {
        lf__ref r = refs[j];
        int32_t c = r.is_const ? r.id : z->s->fold_const[r.id];
        if (c >= 0) {
            lf_status st = lf__use_const(z, c, &tmp[n].id);
            if (st != LF_OK)
                return st;
            tmp[n].kind = LF_OPND_CONST;
            shapes[n] = z->consts[tmp[n].id].shape;
        } else {
            tmp[n].kind = LF_OPND_TENSOR;
            tmp[n].id = z->s->new_id[r.id];
            shapes[n] = z->g->ops[tmp[n].id].out;
            n_act++;
        }
        n++;
    }
    if (!p->explicit_operands) {
        lf_shape w[4];
        const char *suffix[4];
        int32_t k = lf_op_implied_consts(p->type, &p->attr, shapes, n, w, suffix);
        for (int32_t i = 0; i < k; i++) {
            if (w[i].n <= 0 || w[i].c <= 0 || w[i].h <= 0 || w[i].w <= 0 ||
                w[i].n > ((int64_t)1 << 40) / w[i].c / w[i].h / w[i].w)
                return lf_set_error(LF_ERANGE,
                                    "graph '%s': op '%s' implies a %s of %lldx%lldx%lldx%lld "
                                    "elements (empty or absurdly large)",
                                    z->b->name, p->name, suffix[i], (long long)w[i].n,
                                    (long long)w[i].c, (long long)w[i].h, (long long)w[i].w);
            size_t len = strlen(p->name) + strlen(suffix[i]) + 2;
            char *name = lf_arena_alloc(z->arena, len);
            if (!name)
                return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", z->b->name);
            snprintf(name, len, "%s.%s", p->name, suffix[i]);
            if (lf__builder_name_taken(z->b, z->s, name))
                return lf_set_error(LF_EGRAPH,
                                    "graph '%s': the weight '%s' of op '%s' clashes with a "
                                    "tensor of that name",
                                    z->b->name, name, p->name);
            lf_const *c = &z->consts[z->n_consts];
            c->name = name;
            c->shape = w[i];
            tmp[n] = (lf_operand){LF_OPND_CONST, z->n_consts++};
            shapes[n++] = w[i];
        }
    }
    lf_operand *ops = lf_arena_alloc(z->arena, (size_t)(n ? n : 1) * sizeof *ops);
    int32_t *ins = lf_arena_alloc(z->arena, (size_t)(n_act ? n_act : 1) * sizeof *ins);
    if (!ops || !ins)
        return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", z->b->name);
    n_act = 0;
    for (int32_t j = 0; j < n; j++) {
        ops[j] = tmp[j];
        if (tmp[j].kind == LF_OPND_TENSOR)
            ins[n_act++] = tmp[j].id;
    }
    op->operands = ops;
    op->n_operands = n;
    op->inputs = ins;
    op->n_inputs = n_act;
    *n_shapes = n;
    return LF_OK;
}

/* Infers the shape of op id and its weights and MACs. */
static lf_status lf__infer(lf__freezer *z, int32_t id, const lf_shape *shapes, int32_t n)
{
    lf_op *op = &z->g->ops[id];
    const lf_op_info *info = lf_op_info_of(op->type);
    const char *gname = z->b->name;
    if (op->type != LF_OP_INPUT && op->n_inputs == 0)
        return lf_set_error(LF_EGRAPH, "graph '%s': op '%s' (%s) has no operands", gname,
                            op->name, info->name);
    for (int32_t j = 0; j < n; j++)
        if ((info->weight_operands >> j & 1u) && op->operands[j].kind != LF_OPND_CONST)
            return lf_set_error(LF_EGRAPH,
                                "graph '%s': op '%s' (%s): operand %d is a weight and must be a "
                                "constant, but reads op '%s'",
                                gname, op->name, info->name, (int)j,
                                z->g->ops[op->operands[j].id].name);
    if (op->type == LF_OP_GATHER && n == 2 &&
        (op->operands[0].kind != LF_OPND_CONST || op->operands[1].kind == LF_OPND_CONST))
        return lf_set_error(LF_EGRAPH, "graph '%s': op '%s' (Gather): the table must be a constant and "
                            "the ids an activation", gname, op->name);
    char err[200];
    lf_status st = lf_op_infer(op->type, &op->attr, shapes, n, &op->out, err, sizeof err);
    if (st != LF_OK)
        return lf_set_error(st, "graph '%s': op '%s' (%s): %s", gname, op->name, info->name, err);
    if (op->out.n * op->out.c * op->out.h * op->out.w > ((int64_t)1 << 40))
        return lf_set_error(LF_ERANGE, "graph '%s': op '%s' output %lldx%lldx%lld is absurdly large",
                            gname, op->name, (long long)op->out.c, (long long)op->out.h,
                            (long long)op->out.w);
    op->weight_elems = 0;
    int64_t own = 0; /* a constant read by several ops (a tied LM head) counts once, at its first */
    for (int32_t j = 0; j < n; j++)
        if (op->operands[j].kind == LF_OPND_CONST) {
            int32_t c = op->operands[j].id;
            op->weight_elems += lf_const_elems(&z->consts[c]);
            if (!z->counted[c])
                own += lf_const_elems(&z->consts[c]);
            z->counted[c] = 1;
        }
    op->param_count = own + lf_op_param_extra(op->type, &op->attr, &op->out);
    op->macs = lf_op_macs(op->type, &op->attr, shapes, n, &op->out);
    return LF_OK;
}

static lf_status lf__consumers(lf__freezer *z)
{
    lf_graph *g = z->g;
    int32_t *ncons = z->s->consumer_count;
    memset(ncons, 0, (size_t)g->n_ops * sizeof(int32_t));
    for (int32_t id = 0; id < g->n_ops; id++)
        for (int32_t j = 0; j < g->ops[id].n_inputs; j++) {
            int32_t p = g->ops[id].inputs[j];
            int dup = 0;
            for (int32_t k = 0; k < j; k++)
                dup |= g->ops[id].inputs[k] == p;
            if (!dup)
                ncons[p]++;
        }
    for (int32_t id = 0; id < g->n_ops; id++) {
        g->ops[id].consumers = lf_arena_alloc(z->arena, (size_t)(ncons[id] ? ncons[id] : 1) * sizeof(int32_t));
        if (!g->ops[id].consumers)
            return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", z->b->name);
        g->ops[id].n_consumers = 0;
    }
    for (int32_t id = 0; id < g->n_ops; id++)
        for (int32_t j = 0; j < g->ops[id].n_inputs; j++) {
            lf_op *prod = &g->ops[g->ops[id].inputs[j]];
            if (prod->n_consumers > 0 && prod->consumers[prod->n_consumers - 1] == id)
                continue;
            ((int32_t *)prod->consumers)[prod->n_consumers++] = id;
        }
    for (int32_t id = 0; id < g->n_ops; id++)
        if (g->ops[id].n_consumers == 0 && g->ops[id].type != LF_OP_INPUT)
            g->ops[id].is_output = 1;
    return LF_OK;
}

static lf_status lf__folded_record(lf__freezer *z)
{
    lf_graph_builder *b = z->b;
    int32_t n = 0;
    for (int32_t i = 0; i < b->n; i++)
        n += z->s->fold_const[i] >= 0;
    lf_folded *f = lf_arena_alloc(z->arena, (size_t)(n ? n : 1) * sizeof *f);
    if (!f)
        return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name);
    n = 0;
    for (int32_t k = 0; k < b->n; k++) {
        int32_t v = z->s->order[k];
        if (z->s->fold_const[v] < 0)
            continue;
        f[n].name = lf_arena_strdup(z->arena, b->ops[v].name);
        if (!f[n].name)
            return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name);
        f[n].type = b->ops[v].type;
        f[n].const_id = z->const_id[z->s->fold_const[v]];
        n++;
    }
    z->g->folded = f;
    z->g->n_folded = n;
    return LF_OK;
}

static lf_status lf__freeze_ops(lf__freezer *z)
{
    lf_graph_builder *b = z->b;
    lf__build_scratch *s = z->s;
    lf_graph *g = z->g;
    int32_t id = 0;
    for (int32_t k = 0; k < b->n; k++) {
        int32_t v = s->order[k];
        s->new_id[v] = s->fold_const[v] >= 0 ? -1 : id++;
    }
    g->n_ops = id;
    g->ops = lf_arena_alloc(z->arena, (size_t)(id ? id : 1) * sizeof(lf_op));
    if (!g->ops)
        return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name);
    for (int32_t k = 0; k < b->n; k++) {
        int32_t v = s->order[k];
        if (s->new_id[v] < 0)
            continue;
        const lf__pending_op *p = &b->ops[v];
        lf_op *op = &g->ops[s->new_id[v]];
        op->name = lf_arena_strdup(z->arena, p->name);
        if (!op->name)
            return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name);
        op->type = p->type;
        op->attr = p->attr;
        op->is_output = p->marked_output;
        lf_shape shapes[LF__MAX_OPERANDS];
        int32_t n = 0;
        lf_status st = lf__operands(z, v, op, shapes, &n);
        if (st == LF_OK)
            st = lf__infer(z, s->new_id[v], shapes, n);
        if (st != LF_OK)
            return st;
    }
    return LF_OK;
}

lf_status lf__freeze(lf_graph_builder *b, lf__build_scratch *s, lf_graph **out)
{
    lf__freezer z = {0};
    z.b = b;
    z.s = s;
    z.g = calloc(1, sizeof *z.g);
    z.arena = malloc(sizeof *z.arena);
    z.values = calloc(1, sizeof *z.values);
    z.const_id = malloc((size_t)(b->nc ? b->nc : 1) * sizeof(int32_t));
    if (!z.g || !z.arena || !z.values || !z.const_id) {
        free(z.g);
        free(z.arena);
        free(z.values);
        free(z.const_id);
        return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name);
    }
    lf_arena_init(z.arena);
    z.g->arena_ = z.arena;
    z.g->values_ = z.values;
    /* The adopted buffers are the graph's from here, built or freed with it. */
    if (b->n_adopted) {
        z.values->bufs = b->adopted;
        z.values->n = z.values->cap = b->n_adopted;
        b->adopted = NULL;
        b->n_adopted = 0;
    }
    for (int32_t c = 0; c < b->nc; c++)
        z.const_id[c] = -1;
    /* every implied weight set has at most 4 constants */
    z.consts = lf_arena_alloc(z.arena, ((size_t)b->nc + 4 * (size_t)b->n + 1) * sizeof(lf_const));
    z.counted = calloc((size_t)b->nc + 4 * (size_t)b->n + 1, 1);
    z.g->name = lf_arena_strdup(z.arena, b->name);
    lf_status st = (!z.consts || !z.counted || !z.g->name)
                       ? lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name)
                       : lf__freeze_ops(&z);
    if (st == LF_OK)
        st = lf__consumers(&z);
    if (st == LF_OK)
        st = lf__folded_record(&z);
    free(z.const_id);
    free(z.counted);
    if (st != LF_OK) {
        lf_graph_free(z.g);
        return st;
    }
    z.g->consts = z.consts;
    z.g->n_consts = z.n_consts;
    z.g->hash = lf__graph_compute_hash(z.g);
    *out = z.g;
    return LF_OK;
}

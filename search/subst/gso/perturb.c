/* Random perturbations of a graph for the GSO dataset (GSO §3.3, method 2):
 * change an attribute (a conv's padding or stride), add an op (a ReLU, a
 * channel split + concat, a conv) after some op, or delete one (a ReLU, a
 * shape-preserving conv) by sending its readers to its input. The graph is
 * copied into a builder with the one edit; the builder's checks reject an
 * edit that breaks shapes (a stride change before a residual Add), and the
 * caller draws again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/exec/exec.h"
#include "planner/util/rng.h"
#include "search/subst/gso/gso.h"

enum { LF__P_PAD = 0, LF__P_STRIDE, LF__P_ADD_RELU, LF__P_DEL_RELU, LF__P_SPLIT, LF__P_CONV, LF__P_KINDS };

/* One edit: at op v, new attributes (attr != NULL), or readers of v sent to
 * `redirect` (a name: v's input for a delete, the last inserted op for an
 * insert, whose own ops are added by `insert`). */
typedef struct lf__edit {
    int32_t v;
    const lf_attrs *attr;
    int del;                 /* v is dropped, its readers read its first input */
    int32_t n_new;           /* inserted ops after v, the last one replaces v for its readers */
    lf_op_type type[3];
    lf_attrs nattr[3];
    char name[3][96];
    const char *in[3][2];
    int32_t n_in[3];
} lf__edit;

static const char *lf__opnd_name(const lf_graph *g, const lf_operand *o, const lf__edit *e)
{
    if (o->kind == LF_OPND_CONST)
        return g->consts[o->id].name;
    if (o->id == e->v && e->del)
        return g->ops[g->ops[e->v].inputs[0]].name;
    if (o->id == e->v && e->n_new > 0)
        return e->name[e->n_new - 1];
    return g->ops[o->id].name;
}

static lf_status lf__rebuild(const lf_graph *g, const lf__edit *e, lf_graph **out)
{
    lf_graph_builder *b = NULL;
    lf_status st = lf_graph_builder_create(&b, g->name);
    if (st)
        return st;
    lf_graph_builder_set_folder(b, lf_exec_fold, NULL);
    for (int32_t j = 0; j < g->n_consts && !st; j++) {
        int32_t id = lf_graph_builder_add_const(b, g->consts[j].name, g->consts[j].shape, g->consts[j].data);
        if (id < 0)
            st = (lf_status)id;
    }
    for (int32_t v = 0; v < g->n_ops && !st; v++) {
        const lf_op *op = &g->ops[v];
        if (v == e->v && e->del)
            continue;
        const char *names[64];
        if (op->n_operands > 64) {
            st = lf_set_error(LF_ELIMIT, "perturb: op '%s' has %d operands", op->name, (int)op->n_operands);
            break;
        }
        for (int32_t p = 0; p < op->n_operands; p++)
            names[p] = lf__opnd_name(g, &op->operands[p], e);
        int32_t id = lf_graph_builder_add_op(b, op->type, op->name, v == e->v && e->attr ? e->attr : &op->attr,
                                             names, op->n_operands);
        if (id < 0)
            st = (lf_status)id;
        if (!st && op->is_output && op->n_consumers > 0)
            st = lf_graph_builder_mark_output(b, op->name);
        if (v == e->v)
            for (int32_t k = 0; k < e->n_new && !st; k++) {
                id = lf_graph_builder_add(b, e->type[k], e->name[k], &e->nattr[k], e->in[k], e->n_in[k]);
                if (id < 0)
                    st = (lf_status)id;
            }
    }
    if (!st)
        st = lf_graph_builder_build(b, out);
    lf_graph_builder_free(b);
    return st;
}

static int lf__windowed_conv(const lf_op *op)
{
    return op->type == LF_OP_CONV && op->attr.kh > 1;
}

/* 1 when op v can take edit `kind`; fills e. */
static int lf__prepare(const lf_graph *g, int32_t v, int32_t kind, lf_rng *rng, lf__edit *e, lf_attrs *a)
{
    const lf_op *op = &g->ops[v];
    memset(e, 0, sizeof *e);
    e->v = v;
    int spatial = op->out.h > 1 || op->out.w > 1;
    switch (kind) {
    case LF__P_PAD:
        if (!lf__windowed_conv(op))
            return 0;
        *a = op->attr;
        {
            int32_t p = a->pad_top == 0 ? (a->kh - 1) / 2 : 0;
            a->pad_top = a->pad_bottom = a->pad_left = a->pad_right = p;
        }
        e->attr = a;
        return 1;
    case LF__P_STRIDE:
        if (op->type != LF_OP_CONV || !spatial)
            return 0;
        *a = op->attr;
        a->sh = a->sw = (a->sh > 1) ? 1 : 2;
        e->attr = a;
        return 1;
    case LF__P_DEL_RELU:
        if (op->type != LF_OP_RELU || op->is_output || op->n_inputs < 1)
            return 0;
        e->del = 1;
        return 1;
    case LF__P_ADD_RELU:
    case LF__P_SPLIT:
        if (op->type == LF_OP_INPUT || op->is_output || op->n_consumers == 0)
            return 0;
        if (kind == LF__P_ADD_RELU) {
            e->n_new = 1;
            e->type[0] = LF_OP_RELU;
            snprintf(e->name[0], sizeof e->name[0], "%s~gso_relu", op->name);
            e->in[0][0] = op->name;
            e->n_in[0] = 1;
            return 1;
        }
        if (op->out.c < 2 || op->out.c % 2)
            return 0;
        e->n_new = 3;
        for (int k = 0; k < 2; k++) {
            e->type[k] = LF_OP_SLICE;
            e->nattr[k].slice_begin = k ? (int32_t)(op->out.c / 2) : 0;
            e->nattr[k].slice_end = k ? (int32_t)op->out.c : (int32_t)(op->out.c / 2);
            snprintf(e->name[k], sizeof e->name[k], "%s~gso_split%d", op->name, k);
            e->in[k][0] = op->name;
            e->n_in[k] = 1;
        }
        e->type[2] = LF_OP_CONCAT;
        snprintf(e->name[2], sizeof e->name[2], "%s~gso_concat", op->name);
        e->in[2][0] = e->name[0];
        e->in[2][1] = e->name[1];
        e->n_in[2] = 2;
        return 1;
    case LF__P_CONV:
        if (op->type == LF_OP_CONV && !op->is_output && op->n_inputs == 1 && op->attr.sh <= 1 &&
            op->out.c == lf_subst_field_of(g, v, LF_SF_IN_C) && op->out.h == lf_subst_field_of(g, v, LF_SF_IN_H) &&
            lf_rng_bernoulli(rng, 0.5)) {
            e->del = 1; /* a shape-preserving conv */
            return 1;
        }
        if (op->type == LF_OP_INPUT || op->is_output || op->n_consumers == 0 || !spatial || op->out.n != 1 ||
            op->out.c > 4096)
            return 0;
        e->n_new = 1;
        e->type[0] = LF_OP_CONV;
        e->nattr[0].out_channels = (int32_t)op->out.c;
        e->nattr[0].kh = e->nattr[0].kw = lf_rng_bernoulli(rng, 0.5) ? 3 : 1;
        e->nattr[0].pad_top = e->nattr[0].pad_bottom = e->nattr[0].pad_left = e->nattr[0].pad_right =
            e->nattr[0].kh / 2;
        e->nattr[0].has_bias = lf_rng_bernoulli(rng, 0.5);
        snprintf(e->name[0], sizeof e->name[0], "%s~gso_conv", op->name);
        e->in[0][0] = op->name;
        e->n_in[0] = 1;
        return 1;
    default:
        return 0;
    }
}

lf_status lf_gso_perturb(const lf_graph *g, int32_t kind, lf_rng *rng, lf_graph **out)
{
    *out = NULL;
    /* Up to 16 draws of (kind, op) whose edit builds. */
    for (int tries = 0; tries < 16; tries++) {
        int32_t k = kind >= 0 ? kind : (int32_t)lf_rng_below(rng, LF__P_KINDS);
        lf__edit e;
        lf_attrs a;
        if (g->n_ops == 0)
            break;
        int32_t pick = (int32_t)lf_rng_below(rng, (uint32_t)g->n_ops);
        for (int32_t d = 0; d < g->n_ops; d++) {
            int32_t v = (pick + d) % g->n_ops;
            if (!lf__prepare(g, v, k, rng, &e, &a))
                continue;
            lf_status st = lf__rebuild(g, &e, out);
            if (st == LF_OK)
                return LF_OK;
            if (st == LF_ENOMEM)
                return st;
            break; /* does not build: draw again */
        }
    }
    return lf_set_error(LF_ENOTFOUND, "perturb: no perturbation of kind %d builds on '%s'", (int)kind, g->name);
}

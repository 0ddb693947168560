/* The graph's content hash (lf_graph.hash, set when a graph is frozen): op
 * names, types, attributes and inputs, and the operands where they differ
 * from what the op table implies for the type (graph_freeze.c calls it). */
#include <string.h>

#include "planner/graph_internal.h"
#include "planner/optable.h"

/* FNV-1a over an explicit serialisation (never raw struct bytes, whose
 * padding is unspecified), so the hash is stable across builds. */
static uint64_t lf__mix(uint64_t h, int64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (uint64_t)(v >> (8 * i)) & 0xffu;
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t lf__mix_str(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return lf__mix(h, 0);
}

static uint64_t lf__mix_float(uint64_t h, float f)
{
    int32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return lf__mix(h, bits);
}

static uint64_t lf__mix_shape(uint64_t h, const lf_shape *s)
{
    return lf__mix(lf__mix(lf__mix(lf__mix(h, s->n), s->c), s->h), s->w);
}

/* An op is canonical when its operands are its activation inputs followed by
 * exactly the weights its attributes imply (what lf_graph_builder_add makes,
 * and what the built-in networks make): its attributes and inputs then say
 * everything and the hash need not mention the constants, which keeps the
 * hashes of graphs from before constants existed. */
static int lf__canonical_operands(const lf_graph *g, const lf_op *op)
{
    lf_shape act[64], w[4];
    const char *suffix[4];
    if (op->n_inputs > 64)
        return 0;
    for (int32_t j = 0; j < op->n_inputs; j++) {
        if (op->operands[j].kind != LF_OPND_TENSOR)
            return 0;
        act[j] = g->ops[op->inputs[j]].out;
    }
    int32_t k = lf_op_implied_consts(op->type, &op->attr, act, op->n_inputs, w, suffix);
    if (op->n_operands != op->n_inputs + k)
        return 0;
    for (int32_t i = 0; i < k; i++) {
        const lf_const *c = lf_op_const(g, (int32_t)(op - g->ops), op->n_inputs + i);
        if (!c || c->shape.n != w[i].n || c->shape.c != w[i].c || c->shape.h != w[i].h ||
            c->shape.w != w[i].w)
            return 0;
    }
    return 1;
}

/* Attributes added with issue 11 enter the hash only when one is set, so
 * older graphs keep their hashes. */
static uint64_t lf__mix_new_attrs(uint64_t h, const lf_attrs *a)
{
    const int32_t fields[] = {a->axes,      a->slice_step,   a->perm[0],      a->perm[1],
                              a->perm[2],   a->perm[3],      a->trans_a,      a->trans_b,
                              a->out_pad_h, a->out_pad_w,    a->shape_n,      a->approximate,
                              a->coord_mode, a->nearest_mode, a->pad_mode};
    const float floats[] = {a->pad_value, a->epsilon, a->alpha, a->beta};
    int any = 0;
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
        any |= fields[k] != 0;
    for (size_t k = 0; k < sizeof floats / sizeof floats[0]; k++)
        any |= floats[k] != 0.0f;
    if (!any)
        return h;
    h = lf__mix_str(h, "attrs-v2");
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
        h = lf__mix(h, fields[k]);
    for (size_t k = 0; k < sizeof floats / sizeof floats[0]; k++)
        h = lf__mix_float(h, floats[k]);
    return h;
}

uint64_t lf__graph_compute_hash(const lf_graph *g)
{
    uint64_t h = 1469598103934665603ull;
    h = lf__mix(h, g->n_ops);
    for (int32_t i = 0; i < g->n_ops; i++) {
        const lf_op *op = &g->ops[i];
        const lf_attrs *a = &op->attr;
        h = lf__mix_str(h, op->name);
        h = lf__mix(h, op->type);
        const int32_t fields[] = {a->out_channels, a->kh, a->kw, a->sh, a->sw, a->dh, a->dw,
                                  a->pad_top, a->pad_left, a->pad_bottom, a->pad_right, a->groups,
                                  a->has_bias, a->folded_bn, (int32_t)a->act, a->ceil_mode,
                                  a->count_include_pad, a->slice_begin, a->slice_end, a->out_h,
                                  a->out_w, a->scale, a->linear, a->shape_c, a->shape_h,
                                  a->shape_w, a->batch, a->in_c, a->in_h, a->in_w};
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
            h = lf__mix(h, fields[k]);
        h = lf__mix_float(lf__mix_float(h, a->clip_min), a->clip_max);
        h = lf__mix_new_attrs(h, a);
        if (a->causal) /* issue 35: enters only when set, like the attributes above */
            h = lf__mix(lf__mix_str(h, "causal"), a->causal);
        if (!lf__canonical_operands(g, op)) {
            h = lf__mix_str(h, "operands");
            h = lf__mix(h, op->n_operands);
            for (int32_t j = 0; j < op->n_operands; j++) {
                h = lf__mix(h, op->operands[j].kind);
                if (op->operands[j].kind == LF_OPND_CONST)
                    h = lf__mix_shape(h, &g->consts[op->operands[j].id].shape);
                else
                    h = lf__mix(h, op->operands[j].id);
            }
        }
        h = lf__mix(h, op->n_inputs);
        for (int32_t j = 0; j < op->n_inputs; j++)
            h = lf__mix(h, op->inputs[j]);
        h = lf__mix(lf__mix(lf__mix(lf__mix(h, op->out.n), op->out.c), op->out.h), op->out.w);
        h = lf__mix(h, op->is_output);
    }
    return h;
}

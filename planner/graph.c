/* Queries on a frozen graph, its hash and its JSON dump. */
#include "planner/graph.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "planner/graph_internal.h"
#include "planner/io/json.h"
#include "planner/optable.h"
#include "planner/util/arena.h"

void lf_graph_free(lf_graph *g)
{
    if (!g)
        return;
    if (g->arena_) {
        lf_arena_destroy(g->arena_);
        free(g->arena_);
    }
    lf__graph_values *vals = g->values_;
    if (vals) {
        for (int32_t i = 0; i < vals->n; i++)
            free(vals->bufs[i]);
        free(vals->bufs);
        free(vals);
    }
    free(g);
}

int64_t lf_graph_params(const lf_graph *g)
{
    int64_t n = 0;
    for (int32_t i = 0; i < g->n_ops; i++)
        n += g->ops[i].param_count;
    return n;
}

int64_t lf_graph_macs(const lf_graph *g)
{
    int64_t n = 0;
    for (int32_t i = 0; i < g->n_ops; i++)
        n += g->ops[i].macs;
    return n;
}

int32_t lf_graph_compute_ops(const lf_graph *g)
{
    int32_t n = 0;
    for (int32_t i = 0; i < g->n_ops; i++)
        n += g->ops[i].type != LF_OP_INPUT;
    return n;
}

int32_t lf_graph_find(const lf_graph *g, const char *name)
{
    for (int32_t i = 0; i < g->n_ops; i++)
        if (strcmp(g->ops[i].name, name) == 0)
            return i;
    return -1;
}

int64_t lf_const_elems(const lf_const *c)
{
    return c->shape.n * c->shape.c * c->shape.h * c->shape.w;
}

const lf_const *lf_op_const(const lf_graph *g, int32_t v, int32_t pos)
{
    const lf_op *op = &g->ops[v];
    if (pos < 0 || pos >= op->n_operands || op->operands[pos].kind != LF_OPND_CONST)
        return NULL;
    return &g->consts[op->operands[pos].id];
}

int32_t lf_graph_find_const(const lf_graph *g, const char *name)
{
    for (int32_t i = 0; i < g->n_consts; i++)
        if (strcmp(g->consts[i].name, name) == 0)
            return i;
    return -1;
}

int64_t lf_tensor_bytes(const lf_graph *g, int32_t v, int32_t act_bytes)
{
    const lf_shape *s = &g->ops[v].out;
    return s->n * s->c * s->h * s->w * act_bytes;
}

int64_t lf_weight_bytes(const lf_graph *g, int32_t v, int32_t weight_bytes)
{
    return g->ops[v].weight_elems * weight_bytes;
}

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

void lf_graph_hash_hex(const lf_graph *g, char out[17])
{
    snprintf(out, 17, "%016" PRIx64, g->hash);
}

static void lf__json_attrs(FILE *f, const lf_op *op)
{
    const lf_attrs *a = &op->attr;
    fputs("{", f);
    const char *sep = "";
#define LF_ATTR(cond, key, val)                                \
    do {                                                       \
        if (cond) {                                            \
            fprintf(f, "%s\"%s\": %d", sep, key, (int)(val));  \
            sep = ", ";                                        \
        }                                                      \
    } while (0)
    switch (op->type) {
    case LF_OP_CONV:
    case LF_OP_CONVTRANSPOSE:
    case LF_OP_MAXPOOL:
    case LF_OP_AVGPOOL:
        LF_ATTR(op->type == LF_OP_CONV || op->type == LF_OP_CONVTRANSPOSE, "out_channels",
                a->out_channels);
        LF_ATTR(1, "kh", a->kh ? a->kh : 1);
        LF_ATTR(1, "kw", a->kw ? a->kw : 1);
        LF_ATTR(1, "sh", a->sh ? a->sh : 1);
        LF_ATTR(1, "sw", a->sw ? a->sw : 1);
        LF_ATTR(a->dh > 1, "dh", a->dh);
        LF_ATTR(a->dw > 1, "dw", a->dw);
        LF_ATTR(1, "pad_top", a->pad_top);
        LF_ATTR(1, "pad_left", a->pad_left);
        LF_ATTR(1, "pad_bottom", a->pad_bottom);
        LF_ATTR(1, "pad_right", a->pad_right);
        LF_ATTR(a->groups > 1, "groups", a->groups);
        LF_ATTR(a->has_bias, "has_bias", 1);
        LF_ATTR(a->folded_bn, "folded_bn", 1);
        LF_ATTR(a->ceil_mode, "ceil_mode", 1);
        LF_ATTR(a->count_include_pad, "count_include_pad", 1);
        break;
    case LF_OP_GEMM:
        LF_ATTR(1, "out_channels", a->out_channels);
        LF_ATTR(a->has_bias, "has_bias", 1);
        LF_ATTR(a->folded_bn, "folded_bn", 1);
        break;
    case LF_OP_CHANNELSHUFFLE:
        LF_ATTR(1, "groups", a->groups);
        break;
    case LF_OP_SLICE:
        LF_ATTR(1, "begin", a->slice_begin);
        LF_ATTR(1, "end", a->slice_end);
        break;
    case LF_OP_PAD:
        LF_ATTR(1, "pad_top", a->pad_top);
        LF_ATTR(1, "pad_left", a->pad_left);
        LF_ATTR(1, "pad_bottom", a->pad_bottom);
        LF_ATTR(1, "pad_right", a->pad_right);
        break;
    case LF_OP_RESIZE:
        LF_ATTR(a->scale, "scale", a->scale);
        LF_ATTR(a->out_h, "out_h", a->out_h);
        LF_ATTR(a->out_w, "out_w", a->out_w);
        LF_ATTR(1, "linear", a->linear);
        break;
    case LF_OP_RESHAPE:
    case LF_OP_EXPAND:
        LF_ATTR(a->shape_n || op->type == LF_OP_EXPAND, "shape_n", a->shape_n);
        LF_ATTR(1, "shape_c", a->shape_c);
        LF_ATTR(1, "shape_h", a->shape_h);
        LF_ATTR(1, "shape_w", a->shape_w);
        break;
    case LF_OP_INPUT:
        LF_ATTR(1, "batch", a->batch ? a->batch : 1);
        LF_ATTR(1, "c", a->in_c);
        LF_ATTR(1, "h", a->in_h);
        LF_ATTR(1, "w", a->in_w);
        break;
    case LF_OP_TRANSPOSE:
        fprintf(f, "%s\"perm\": [%d, %d, %d, %d]", sep, (int)a->perm[0], (int)a->perm[1],
                (int)a->perm[2], (int)a->perm[3]);
        sep = ", ";
        break;
    default:
        break;
    }
    /* issue-11 attributes, printed when set */
    LF_ATTR(a->axes, "axes", a->axes);
    LF_ATTR(a->slice_step > 1, "step", a->slice_step);
    LF_ATTR(a->trans_a, "trans_a", 1);
    LF_ATTR(a->trans_b, "trans_b", 1);
    LF_ATTR(a->out_pad_h, "out_pad_h", a->out_pad_h);
    LF_ATTR(a->out_pad_w, "out_pad_w", a->out_pad_w);
    LF_ATTR(a->approximate, "approximate", a->approximate);
    LF_ATTR(a->coord_mode, "coord_mode", a->coord_mode);
    LF_ATTR(a->nearest_mode, "nearest_mode", a->nearest_mode);
    LF_ATTR(a->pad_mode, "pad_mode", a->pad_mode);
    if (op->type == LF_OP_LAYERNORM) {
        fprintf(f, "%s\"epsilon\": %g", sep, (double)(a->epsilon > 0 ? a->epsilon : 1e-5f));
        sep = ", ";
    }
    if (a->pad_value != 0.0f) {
        fprintf(f, "%s\"pad_value\": %g", sep, (double)a->pad_value);
        sep = ", ";
    }
    if (a->alpha != 0.0f || a->beta != 0.0f) {
        fprintf(f, "%s\"alpha\": %g, \"beta\": %g", sep, (double)a->alpha, (double)a->beta);
        sep = ", ";
    }
#undef LF_ATTR
    if (op->type == LF_OP_CLIP)
        fprintf(f, "%s\"min\": %g, \"max\": %g", sep, (double)a->clip_min, (double)a->clip_max);
    else if (a->act != LF_ACT_NONE)
        fprintf(f, "%s\"act\": \"%s\"", sep, lf_act_name(a->act));
    fputs("}", f);
}

lf_status lf_graph_write_json(const lf_graph *g, FILE *f)
{
    char hex[17];
    lf_graph_hash_hex(g, hex);
    fputs("{\n  \"name\": ", f);
    lf_json_string(f, g->name);
    fprintf(f, ",\n  \"hash\": \"%s\",\n  \"params\": %" PRId64 ",\n  \"macs\": %" PRId64
               ",\n  \"ops\": [\n",
            hex, lf_graph_params(g), lf_graph_macs(g));
    for (int32_t i = 0; i < g->n_ops; i++) {
        const lf_op *op = &g->ops[i];
        fprintf(f, "    {\"id\": %d, \"name\": ", (int)i);
        lf_json_string(f, op->name);
        fprintf(f, ", \"type\": \"%s\", \"inputs\": [", lf_op_info_of(op->type)->name);
        for (int32_t j = 0; j < op->n_inputs; j++)
            fprintf(f, "%s%d", j ? ", " : "", (int)op->inputs[j]);
        fprintf(f, "], \"shape\": [%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 "], \"attrs\": ",
                op->out.n, op->out.c, op->out.h, op->out.w);
        lf__json_attrs(f, op);
        fprintf(f, ", \"weights\": %" PRId64 ", \"macs\": %" PRId64, op->weight_elems, op->macs);
        if (op->n_operands != op->n_inputs) {
            fputs(", \"operands\": [", f);
            for (int32_t j = 0; j < op->n_operands; j++)
                fprintf(f, "%s{\"%s\": %d}", j ? ", " : "",
                        op->operands[j].kind == LF_OPND_CONST ? "const" : "op",
                        (int)op->operands[j].id);
            fputs("]", f);
        }
        fprintf(f, "%s}%s\n", op->is_output ? ", \"output\": true" : "", i + 1 < g->n_ops ? "," : "");
    }
    fputs("  ],\n  \"consts\": [\n", f);
    for (int32_t i = 0; i < g->n_consts; i++) {
        const lf_const *c = &g->consts[i];
        fprintf(f, "    {\"id\": %d, \"name\": ", (int)i);
        lf_json_string(f, c->name);
        fprintf(f, ", \"shape\": [%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 "], \"values\": %s}%s\n",
                c->shape.n, c->shape.c, c->shape.h, c->shape.w, c->data ? "true" : "false",
                i + 1 < g->n_consts ? "," : "");
    }
    fputs("  ]", f);
    if (g->n_folded > 0) {
        fputs(",\n  \"folded\": [\n", f);
        for (int32_t i = 0; i < g->n_folded; i++) {
            fputs("    {\"name\": ", f);
            lf_json_string(f, g->folded[i].name);
            fprintf(f, ", \"type\": \"%s\", \"const\": %d}%s\n",
                    lf_op_info_of(g->folded[i].type)->name, (int)g->folded[i].const_id,
                    i + 1 < g->n_folded ? "," : "");
        }
        fputs("  ]", f);
    }
    fputs("\n}\n", f);
    return ferror(f) ? lf_set_error(LF_EIO, "error writing graph JSON") : LF_OK;
}

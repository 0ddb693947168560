/* The graph as JSON (`fusionplan info --json`, docs/ir.md): a dump of the
 * core types, kept in io/ so that the graph itself knows no file format. */
#include "planner/io/graph_json.h"

#include <inttypes.h>
#include <string.h>

#include "planner/graph_internal.h"
#include "planner/io/json.h"
#include "planner/optable.h"

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
    LF_ATTR(a->causal, "causal", a->causal);
    if (op->type == LF_OP_LAYERNORM || op->type == LF_OP_RMSNORM) {
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

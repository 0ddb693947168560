/* The graph of one piece of a graph, for bounds that take a whole graph
 * (separators.c): the ops with ids in (lo, hi], each tensor they read from
 * an op at or below lo as a graph input of the same name and shape, and
 * every tensor read past hi marked as a graph output. Between cuts that no
 * valid group spans, the piece's plans are exactly the plans of this graph,
 * at the same F_D group by group: a group reads what comes from outside it
 * and writes what is read outside it (or is a graph output) in both. */
#include <stdlib.h>
#include <string.h>

#include "planner/exact/separators.h"

lf_status lf__piece_graph(const lf_graph *g, int32_t lo, int32_t hi, lf_graph **out)
{
    *out = NULL;
    lf_graph_builder *b = NULL;
    lf_status st = lf_graph_builder_create(&b, g->name);
    uint8_t *outside = calloc((size_t)g->n_ops + 1, 1), *const_done = calloc((size_t)g->n_consts + 1, 1);
    const char **names = NULL;
    int32_t cap = 8;
    if (st == LF_OK && (!outside || !const_done || !(names = malloc((size_t)cap * sizeof *names))))
        st = lf_set_error(LF_ENOMEM, "out of memory building a piece of '%s'", g->name);
    for (int32_t v = lo + 1; v <= hi && st == LF_OK; v++) {
        const lf_op *op = &g->ops[v];
        if (op->n_operands > cap) {
            cap = op->n_operands;
            const char **grown = realloc(names, (size_t)cap * sizeof *names);
            if (!grown) {
                st = lf_set_error(LF_ENOMEM, "out of memory building a piece of '%s'", g->name);
                break;
            }
            names = grown;
        }
        for (int32_t j = 0; j < op->n_operands && st == LF_OK; j++) {
            const lf_operand *o = &op->operands[j];
            if (o->kind == LF_OPND_CONST) {
                const lf_const *c = &g->consts[o->id];
                if (!const_done[o->id]) {
                    int32_t r = lf_graph_builder_add_const(b, c->name, c->shape, NULL);
                    if (r < 0)
                        st = (lf_status)r;
                    const_done[o->id] = 1;
                }
                names[j] = c->name;
                continue;
            }
            const lf_op *p = &g->ops[o->id];
            if (o->id <= lo && !outside[o->id]) {
                lf_attrs a;
                memset(&a, 0, sizeof a);
                a.batch = (int32_t)p->out.n;
                a.in_c = (int32_t)p->out.c;
                a.in_h = (int32_t)p->out.h;
                a.in_w = (int32_t)p->out.w;
                int32_t r = lf_graph_builder_add(b, LF_OP_INPUT, p->name, &a, NULL, 0);
                if (r < 0)
                    st = (lf_status)r;
                outside[o->id] = 1;
            }
            names[j] = p->name;
        }
        if (st != LF_OK)
            break;
        if (op->type == LF_OP_INPUT) {
            int32_t r = lf_graph_builder_add(b, LF_OP_INPUT, op->name, &op->attr, NULL, 0);
            st = r < 0 ? (lf_status)r : LF_OK;
        } else {
            int32_t r = lf_graph_builder_add_op(b, op->type, op->name, &op->attr, names, op->n_operands);
            st = r < 0 ? (lf_status)r : LF_OK;
        }
        int read_past = op->n_consumers > 0 && op->consumers[op->n_consumers - 1] > hi;
        if (st == LF_OK && (read_past || (op->is_output && op->n_consumers > 0)))
            st = lf_graph_builder_mark_output(b, op->name);
    }
    if (st == LF_OK)
        st = lf_graph_builder_build(b, out);
    lf_graph_builder_free(b);
    free(outside);
    free(const_done);
    free(names);
    return st;
}

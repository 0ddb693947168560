/* The working view of one group: local indices for its members and external
 * inputs, which outputs leave the group, and the DRAM and weight sums shared
 * by every scheme. */
#include <stdlib.h>
#include <string.h>

#include "planner/cost/cost_internal.h"

lf_status lf__group_init(lf__group *G, const struct lf_cost_model *cm, const int32_t *members,
                         int32_t n)
{
    const lf_graph *g = cm->g;
    memset(G, 0, sizeof *G);
    G->cm = cm;
    G->n = n;
    /* Upper bound on local tensors: members plus every operand slot. */
    int32_t cap = n;
    for (int32_t i = 0; i < n; i++)
        cap += g->ops[members[i]].n_inputs;
    G->tensor = malloc((size_t)cap * sizeof(int32_t));
    G->loc = malloc((size_t)g->n_ops * sizeof(int32_t));
    G->out = calloc((size_t)n, 1);
    G->active = calloc((size_t)n, 1);
    G->sink = calloc((size_t)n, 1);
    G->terminal = calloc((size_t)n, 1);
    G->post = calloc((size_t)n, 1);
    G->hv = calloc((size_t)n, sizeof(int64_t));
    G->lo = malloc((size_t)cap * sizeof(int64_t));
    G->hi = malloc((size_t)cap * sizeof(int64_t));
    G->sigma = malloc((size_t)cap * sizeof(lf__rat));
    if (!G->tensor || !G->loc || !G->out || !G->active || !G->sink || !G->terminal || !G->post ||
        !G->hv || !G->lo || !G->hi || !G->sigma) {
        lf__group_destroy(G);
        return lf_set_error(LF_ENOMEM, "out of memory evaluating a group of %d ops", (int)n);
    }
    for (int32_t v = 0; v < g->n_ops; v++)
        G->loc[v] = -1;
    for (int32_t i = 0; i < n; i++) {
        int32_t v = members[i];
        if (v < 0 || v >= g->n_ops || g->ops[v].type == LF_OP_INPUT || G->loc[v] >= 0) {
            lf__group_destroy(G);
            return lf_set_error(LF_EINVAL, "group member %d is not a distinct compute op", (int)v);
        }
        if (i > 0 && v < members[i - 1]) {
            lf__group_destroy(G);
            return lf_set_error(LF_EINVAL, "group members must be ascending");
        }
        G->tensor[i] = v;
        G->loc[v] = i;
    }
    G->nt = n;
    for (int32_t i = 0; i < n; i++) {
        const lf_op *op = &g->ops[G->tensor[i]];
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t p = op->inputs[j];
            if (G->loc[p] < 0) {
                G->loc[p] = G->nt;
                G->tensor[G->nt++] = p;
            }
        }
        int leaves = op->is_output;
        for (int32_t c = 0; c < op->n_consumers && !leaves; c++) {
            int32_t l = G->loc[op->consumers[c]];
            leaves = l < 0 || l >= n;
        }
        G->out[i] = (uint8_t)leaves;
    }
    return LF_OK;
}

void lf__group_destroy(lf__group *G)
{
    if (G->loc && G->tensor)
        for (int32_t i = 0; i < G->nt; i++)
            G->loc[G->tensor[i]] = -1;
    free(G->tensor);
    free(G->loc);
    free(G->out);
    free(G->active);
    free(G->sink);
    free(G->terminal);
    free(G->post);
    free(G->hv);
    free(G->lo);
    free(G->hi);
    free(G->sigma);
    memset(G, 0, sizeof *G);
}

void lf__group_io(const lf__group *G, int64_t *in_bytes, int64_t *out_bytes)
{
    const lf__op_cost *oc = G->cm->ops;
    int64_t in = 0, out = 0;
    for (int32_t t = G->n; t < G->nt; t++)
        in += oc[G->tensor[t]].tensor_bytes;
    for (int32_t i = 0; i < G->n; i++)
        if (G->out[i])
            out += oc[G->tensor[i]].tensor_bytes;
    *in_bytes = in;
    *out_bytes = out;
}

int64_t lf__group_weights(const lf__group *G)
{
    int64_t w = 0;
    for (int32_t i = 0; i < G->n; i++)
        w += G->cm->ops[G->tensor[i]].weight_bytes;
    return w;
}

int64_t lf__group_wblk(const lf__group *G)
{
    int64_t w = 0;
    for (int32_t i = 0; i < G->n; i++)
        if (G->cm->ops[G->tensor[i]].wblk > w)
            w = G->cm->ops[G->tensor[i]].wblk;
    return w;
}

/* Repeated blocks: a group and its copy one block later cost the same.
 *
 * The twelve layers of GPT-2 (and of every built-in transformer, and the
 * blocks of a ResNet stage) are the same ops with their ids moved by a
 * period P. A group's price is a function of its members' per-op
 * constants, their attributes and shapes, the external inputs' constants,
 * and the edges among them in local order (group_view.c): the op ids
 * themselves enter only through their order. So when every member v of S
 * is the image of v - P (equal constants and attributes, inputs and
 * consumers moved by P, so that S - P has the same edges and the same
 * outputs leaving it) and every external input u of S is equal to u - P
 * or is a graph input both read alike (Llama's RoPE tables, read by every
 * layer: no group holding a RoPE op had a copy while only equal inputs
 * counted), S and S - P are priced alike. The memo keys a group by its
 * canonical copy, moved down by P as far as that holds: on GPT-2 at 256 KB
 * under BRR the exact planner prices each shape of group spanning m layers once
 * instead of 12 - m times (docs/search.md "Repeated blocks").
 *
 * The period is the most common distance between an op and the next op of
 * equal attributes; a graph without repeats gets no copies (nothing moves). */
#include <stdlib.h>
#include <string.h>

#include "planner/cost/cost_internal.h"

/* 1 when ops a and b have equal attributes, shapes, constants' shapes and
 * per-op cost constants (not their neighbours). */
static int lf__same_op(const lf_cost_model *cm, int32_t a, int32_t b)
{
    const lf_graph *g = cm->g;
    const lf_op *p = &g->ops[a], *q = &g->ops[b];
    if (p->type != q->type || p->n_inputs != q->n_inputs || p->n_consumers != q->n_consumers ||
        p->n_operands != q->n_operands || p->is_output != q->is_output ||
        p->weight_elems != q->weight_elems || cm->fusable[a] != cm->fusable[b] ||
        memcmp(&p->out, &q->out, sizeof p->out) != 0 || memcmp(&p->attr, &q->attr, sizeof p->attr) != 0 ||
        memcmp(&cm->ops[a], &cm->ops[b], sizeof cm->ops[a]) != 0)
        return 0;
    for (int32_t j = 0; j < p->n_operands; j++) {
        if (p->operands[j].kind != q->operands[j].kind)
            return 0;
        const lf_const *x = lf_op_const(g, a, j), *y = lf_op_const(g, b, j);
        if ((x == NULL) != (y == NULL) || (x && memcmp(&x->shape, &y->shape, sizeof x->shape) != 0))
            return 0;
    }
    return 1;
}

/* A hash of what lf__same_op compares, to find the period. */
static uint64_t lf__op_hash(const lf_cost_model *cm, int32_t v)
{
    const lf_op *op = &cm->g->ops[v];
    uint64_t h = 1469598103934665603ull;
    const int64_t f[] = {op->type, op->n_inputs, op->n_consumers, op->n_operands, op->weight_elems,
                         op->out.n, op->out.c, op->out.h, op->out.w, cm->ops[v].tensor_bytes,
                         cm->ops[v].weight_bytes};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        h = (h ^ (uint64_t)f[i]) * 1099511628211ull;
    return h;
}

static int lf__hash_cmp(const void *a, const void *b)
{
    const uint64_t *p = a, *q = b; /* (hash, op) pairs */
    if (p[0] != q[0])
        return p[0] < q[0] ? -1 : 1;
    return (p[1] > q[1]) - (p[1] < q[1]);
}

/* The most common distance between an op and the next one with the same
 * hash (ties: the smallest); 0 when none repeats. */
static int32_t lf__period(const lf_cost_model *cm)
{
    int32_t n = cm->g->n_ops;
    uint64_t *pairs = malloc((size_t)(n > 0 ? n : 1) * 2 * sizeof *pairs);
    int32_t *count = calloc((size_t)(n > 0 ? n : 1), sizeof *count);
    int32_t best = 0;
    if (pairs && count) {
        for (int32_t v = 0; v < n; v++) {
            pairs[2 * v] = lf__op_hash(cm, v);
            pairs[2 * v + 1] = (uint64_t)v;
        }
        qsort(pairs, (size_t)n, 2 * sizeof *pairs, lf__hash_cmp);
        for (int32_t i = 1; i < n; i++)
            if (pairs[2 * i] == pairs[2 * i - 2])
                count[pairs[2 * i + 1] - pairs[2 * i - 1]]++;
        for (int32_t d = 1; d < n; d++)
            if (count[d] > count[best])
                best = d;
    }
    free(pairs);
    free(count);
    return best;
}

/* Op v (>= p) is the image of v - p: equal, with its inputs and consumers
 * those of v - p moved by p, or, for an input, the same graph input (the
 * tables every layer reads: Llama's RoPE cos and sin). A graph input is
 * never a member, so it stays an external input of both copies, met at the
 * same place in their walks (group_view.c lists a group's external inputs
 * in the order its members read them), and equal to itself. */
static int lf__image(const lf_cost_model *cm, int32_t v, int32_t p)
{
    const lf_op *a = &cm->g->ops[v - p], *b = &cm->g->ops[v];
    if (!lf__same_op(cm, v - p, v))
        return 0;
    for (int32_t j = 0; j < a->n_inputs; j++)
        if (b->inputs[j] != a->inputs[j] + p &&
            !(b->inputs[j] == a->inputs[j] && cm->g->ops[b->inputs[j]].type == LF_OP_INPUT))
            return 0;
    for (int32_t j = 0; j < a->n_consumers; j++)
        if (b->consumers[j] != a->consumers[j] + p)
            return 0;
    return 1;
}

/* How many copies of op v one block down (*down) and up (*up) in a row
 * read input j of v, a graph input, in slot j as v does: the moves that
 * input allows v as a member (eq counts none for a graph input, which no
 * other op equals, and a copy that reads it elsewhere is no image). */
static void lf__shared_runs(const lf_graph *g, int32_t v, int32_t j, int32_t p, int32_t *down, int32_t *up)
{
    int32_t x = g->ops[v].inputs[j];
    *down = *up = 0;
    for (int32_t u = v - p; u >= 0 && j < g->ops[u].n_inputs && g->ops[u].inputs[j] == x; u -= p)
        (*down)++;
    for (int32_t u = v + p; u < g->n_ops && j < g->ops[u].n_inputs && g->ops[u].inputs[j] == x; u += p)
        (*up)++;
}

lf_status lf__shift_analyze(lf_cost_model *cm)
{
    int32_t n = cm->g->n_ops;
    cm->shift_p = 0;
    int32_t p = lf__period(cm);
    if (p <= 0 || p >= n)
        return LF_OK;
    /* Per op, how many moves down by p it allows as a member (down) and as
     * an external input (eq), and how many up (up, eq_up); then per op as a
     * member with its inputs (lf__shift_moves reads only these two). */
    int32_t nwords = (n + 63) / 64;
    int32_t *runs = calloc((size_t)n * 6 + 2 * (size_t)nwords, sizeof *runs);
    if (!runs)
        return lf_set_error(LF_ENOMEM, "out of memory analysing the graph's repeated blocks");
    int32_t *down = runs, *eq = runs + n, *up = runs + 2 * n, *eq_up = runs + 3 * n;
    int32_t images = 0;
    for (int32_t v = p; v < n; v++) {
        if (cm->g->ops[v].type == LF_OP_INPUT || cm->g->ops[v - p].type == LF_OP_INPUT)
            continue;
        if (lf__same_op(cm, v - p, v))
            eq[v] = eq[v - p] + 1;
        if (lf__image(cm, v, p)) {
            down[v] = down[v - p] + 1;
            images++;
        }
    }
    for (int32_t v = n - 1 - p; v >= 0; v--) {
        if (eq[v + p] > 0)
            eq_up[v] = eq_up[v + p] + 1;
        if (down[v + p] > 0)
            up[v] = up[v + p] + 1;
    }
    if (images == 0) {
        free(runs);
        return LF_OK;
    }
    /* A member's moves with every input of it counted as external: an
     * input inside the group bounds the moves by its own down (up), and
     * down <= eq (up <= eq_up: an image is an equal op, by induction along
     * the runs), so counting it as external as well changes no minimum. So
     * a group's moves are the minimum over its members alone, one read
     * each, where a walk over every member's inputs was a tenth of the
     * bert_large BRR staircase. */
    int32_t *mdown = runs + 4 * n, *mup = runs + 5 * n;
    for (int32_t v = 0; v < n; v++) {
        const lf_op *op = &cm->g->ops[v];
        mdown[v] = down[v];
        mup[v] = up[v];
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t x = op->inputs[j];
            int32_t d = eq[x], u = eq_up[x];
            if (cm->g->ops[x].type == LF_OP_INPUT)
                lf__shared_runs(cm->g, v, j, p, &d, &u);
            mdown[v] = d < mdown[v] ? d : mdown[v];
            mup[v] = u < mup[v] ? u : mup[v];
        }
    }
    /* And per word of 64 ops, the least of each over all of them: a group
     * is mostly runs of consecutive ops, whose full words are one read. */
    int32_t *wdown = runs + 6 * n, *wup = wdown + nwords;
    for (int32_t w = 0; w < nwords; w++) {
        wdown[w] = wup[w] = INT32_MAX;
        for (int32_t v = w * 64; v < n && v < (w + 1) * 64; v++) {
            wdown[w] = mdown[v] < wdown[w] ? mdown[v] : wdown[w];
            wup[w] = mup[v] < wup[w] ? mup[v] : wup[w];
        }
    }
    cm->shift_p = p;
    cm->shift_runs = runs;
    return LF_OK;
}

int32_t lf__shift_moves(const lf_cost_model *cm, const lf_bitset *group, int32_t *up_moves)
{
    *up_moves = 0;
    if (cm->shift_p <= 0)
        return 0;
    int32_t n = cm->g->n_ops;
    const int32_t *mdown = cm->shift_runs + 4 * n, *mup = cm->shift_runs + 5 * n;
    const int32_t *wdown = cm->shift_runs + 6 * n, *wup = wdown + (n + 63) / 64;
    int32_t k = INT32_MAX, u = INT32_MAX;
    for (int32_t w = 0; w < group->nwords && (k > 0 || u > 0); w++) {
        if (group->words[w] == UINT64_MAX) { /* 64 members: the word's least */
            k = wdown[w] < k ? wdown[w] : k;
            u = wup[w] < u ? wup[w] : u;
            continue;
        }
        for (uint64_t bits = group->words[w]; bits && (k > 0 || u > 0); bits &= bits - 1) {
            int32_t v = w * 64 + __builtin_ctzll(bits);
            k = mdown[v] < k ? mdown[v] : k;
            u = mup[v] < u ? mup[v] : u;
        }
    }
    if (k == INT32_MAX)
        return 0;
    *up_moves = u;
    return k;
}

void lf__shift_down(const lf_bitset *group, int32_t bits, lf_bitset *out)
{
    int32_t w0 = bits >> 6, b = bits & 63;
    for (int32_t w = 0; w < out->nwords; w++) {
        uint64_t lo = w + w0 < group->nwords ? group->words[w + w0] : 0;
        uint64_t hi = w + w0 + 1 < group->nwords ? group->words[w + w0 + 1] : 0;
        out->words[w] = b ? (lo >> b) | (hi << (64 - b)) : lo;
    }
}

void lf_cost_canonical(const lf_cost_model *cm, const lf_bitset *group, lf_bitset *key)
{
    int32_t up = 0, k = lf__shift_moves(cm, group, &up);
    if (k == 0)
        memcpy(key->words, group->words, (size_t)group->nwords * sizeof *key->words);
    else
        lf__shift_down(group, k * cm->shift_p, key);
}

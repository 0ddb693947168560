/* Squeeze-and-excite waits inside a window's parts under BRR (window_bound.c;
 * docs/search.md "Certified bounds", "Waits in a part").
 *
 * A wait is a map p read by a fusable streaming reduction r of it to one
 * pixel and by a fusable spatial reader m of p that descends from r through
 * ops of height one (cut_bound.c, lf__wait_forced, without its size test).
 * A group holding r and m holds the path between them, so m waits for r and
 * p is read on both sides of the wait: either kept resident, its whole map
 * (one image's) in the buffer at every step of the group's sinks (model.c,
 * lf__eval_waits), or read again from DRAM, its bytes once more in F_D
 * (rows.c, lf__wait_reread_bytes). The window relaxation's monotone floor
 * sees neither; lf__win_rereads (window_charge.c) charges the cheaper of the
 * two for a part that holds r and m. */
#include <stdlib.h>

#include "planner/exact/solve.h"
#include "planner/optable.h"

/* 1 when m descends from r through ops of height one (seen: n_ops + 1
 * entries, stamped with gen). */
static int lf__wait_pairs_below(const lf_graph *g, int32_t r, int32_t m, int64_t *seen, int64_t gen)
{
    seen[r] = gen;
    for (int32_t v = r; v < m; v++) {
        if (seen[v] != gen)
            continue;
        for (int32_t k = 0; k < g->ops[v].n_consumers; k++) {
            int32_t w = g->ops[v].consumers[k];
            if (w == m)
                return 1;
            if (g->ops[w].out.h == 1 && lf_op_row_kind(g, w) != LF_ROWS_REDUCTION)
                seen[w] = gen;
        }
    }
    return 0;
}

lf_status lf__wait_pairs_find(lf_cost_model *cm, lf__wait_pairs *out)
{
    const lf_graph *g = lf_cost_graph(cm);
    out->n = 0;
    out->r = out->m = out->map = NULL;
    int32_t cap = 0;
    int64_t gen = 0; /* a stamp per pair: 64-bit never wraps */
    int64_t *seen = calloc((size_t)g->n_ops + 1, sizeof *seen);
    if (!seen)
        return lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    for (int32_t p = 0; p < g->n_ops; p++) {
        const lf_op *op = &g->ops[p];
        if (op->out.h <= 1 || lf_op_row_kind(g, p) == LF_ROWS_VIEW)
            continue;
        for (int32_t j = 0; j < op->n_consumers; j++) {
            int32_t r = op->consumers[j];
            const lf_op *rop = &g->ops[r];
            if (!lf_cost_fusable(cm, r) || rop->out.h != 1 || rop->n_inputs != 1 || lf_op_row_kind(g, r) != LF_ROWS_REDUCTION)
                continue;
            for (int32_t k = 0; k < op->n_consumers; k++) {
                int32_t m = op->consumers[k];
                if (m <= r || !lf_cost_fusable(cm, m) || lf_op_row_kind(g, m) == LF_ROWS_REDUCTION ||
                    !lf__wait_pairs_below(g, r, m, seen, ++gen))
                    continue;
                if (out->n == cap) {
                    cap = cap ? 2 * cap : 16;
                    int32_t *a = realloc(out->r, (size_t)cap * sizeof *a);
                    if (a)
                        out->r = a;
                    int32_t *b = a ? realloc(out->m, (size_t)cap * sizeof *b) : NULL;
                    if (b)
                        out->m = b;
                    int32_t *c = b ? realloc(out->map, (size_t)cap * sizeof *c) : NULL;
                    if (!c) {
                        free(seen);
                        lf__wait_pairs_free(out);
                        return lf_set_error(LF_ENOMEM, "out of memory computing bounds");
                    }
                    out->map = c;
                }
                out->r[out->n] = r;
                out->m[out->n] = m;
                out->map[out->n++] = p;
            }
        }
    }
    free(seen);
    return LF_OK;
}

void lf__wait_pairs_free(lf__wait_pairs *w)
{
    free(w->r);
    free(w->m);
    free(w->map);
    w->r = w->m = w->map = NULL;
    w->n = 0;
}

/* Squeeze-and-excite waits below beta in the windows' relaxation
 * (window_bound.c; docs/search.md "Certified bounds", issue 46).
 *
 * The monotone floor of F_beta counts a few rows of every tensor, so the
 * relaxation lets a part keep a squeeze-and-excite block whole even where
 * its map, resident through the wait, leaves no room for the rest: on
 * PP-OCRv4 detection's neck (96 x 40 x 40 maps of 153,600 B at 256 KB) the
 * windows charged nothing beyond the forced floors, at any window size.
 *
 * The argument, under LBDF (F_beta = every member's weights + the largest
 * feature sum of the row engine's snapshots, planner/cost/lbdf.c). Let G be
 * a valid group holding a fusable reduction r of tensor p to one row (a
 * GlobalAveragePool) and a fusable spatial reader m of p that descends from
 * r through ops of height one (the excitation vector). G is convex, so it
 * holds that path, and m reads a member value only the reduction makes: m
 * is a wait op of G (planner/cost/rows.c, lf__is_phase_boundary), and p is
 * read on both sides of the wait. The cost model prices G both ways
 * (model.c, lf__eval_waits): resident, or p read again, which adds p's
 * bytes to F_D (twice when p is G's own and G has no reader of p outside:
 * rows.c, lf__wait_reread_bytes); under LBDF it keeps p resident whenever
 * that is valid. Resident, the snapshot at m's start (rows.c: only m's
 * ancestors in G active, m the sink at row 0) has r ask p's last row (r is
 * no terminal reduction: m, spatial, waits below it) and m p's row 0, so p
 * holds its whole map, H rows; every other active op asks each input it
 * reads (not a global operand) at least the rows its window needs (K for a
 * window op, 1 otherwise), capped at the input's height; and m stages one
 * row of its own output. These are distinct tensors, so the snapshot's
 * feature sum is at least the sum of those rows. For a part S of G (S
 * inside G): S's weights, p's map, and for every tensor other than p read
 * by an op of S that is an ancestor of m inside S (an ancestor in G too) the
 * largest window such a reader needs, capped at its height, plus a row of
 * m's output, is at most G's F_beta when G keeps p resident. When that floor
 * reaches beta, G cannot keep p resident and, being valid, pays p's re-read.
 *
 * The charge. p internal to the window (its op and readers in the window,
 * no graph output), the plan pays for it its write when a reader lies in
 * another group, a read per other group, and each group's re-read. A part
 * S = G n W whose floor reaches beta adds |p| when p lies outside S (then
 * outside G, an input read again) or has a reader outside S (outside G:
 * p is G's output), else 2|p|: what G pays beyond the windows' charges for
 * p, which count only the writes and reads between parts. G pays each map
 * once however many waits read it, so each p counts once per set. Under the
 * connected charge a group's components are charged apart; only a
 * component holding p charges its re-read (p's readers r and m neighbour
 * it, so at most one component of G holds p and the wait). Every charge
 * is what the plan pays for internal tensors of the window, so each
 * window's relaxed optimum stays at most what the plan pays there.
 *
 * Where the argument does not hold, nothing is charged: weights that may
 * stream (BRR: the floor has no weight term to add), products of two
 * activations (priced by attn.c without the wait snapshots), column-tiled
 * ops, batches (a map is one image's rows), and graphs with more ops that
 * may wait than the cost model snapshots (LF__MAX_WAITS, 64: a group past
 * that has waits it neither snapshots nor re-reads). */
#include "planner/exact/window_waits.h"

#include <stdlib.h>
#include <string.h>

#include "planner/optable.h"

/* The cost model snapshots at most this many waits of a group
 * (planner/cost/cost_internal.h, LF__MAX_WAITS). */
#define LF__WAITS_SNAPSHOTS 64

/* Ops that may wait in some group (rows.c, lf__is_phase_boundary: no
 * reduction, reading a value made after a reduction): every op but a plain
 * reduction that reads a reduction, a tensor one row high, or an op that
 * reshapes rows (the cost model may take it for a reduction). At most that
 * many waits in any group. */
static int32_t lf__may_wait(const lf_graph *g)
{
    int32_t count = 0;
    for (int32_t v = 0; v < g->n_ops; v++) {
        const lf_op *op = &g->ops[v];
        if (op->type == LF_OP_INPUT ||
            (lf_op_row_kind(g, v) == LF_ROWS_REDUCTION && !lf_op_has(op->type, LF_OPF_RESHAPES_ROWS)))
            continue;
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t t = op->inputs[j];
            if (g->ops[t].out.h == 1 || lf_op_row_kind(g, t) == LF_ROWS_REDUCTION ||
                lf_op_has(g->ops[t].type, LF_OPF_RESHAPES_ROWS)) {
                count++;
                break;
            }
        }
    }
    return count;
}

/* Marks m (with map p and reduction r) for every fusable spatial reader m
 * of p reached from r over ops of height one (as cut_bound.c finds a wait). */
static void lf__find_waits(lf__waits *w, lf_cost_model *cm, int32_t p, int32_t r)
{
    const lf_graph *g = lf_cost_graph(cm);
    int64_t stamp = ++w->stamp;
    int32_t top = 0;
    w->stack[top++] = r;
    w->mark[r] = stamp;
    while (top > 0) {
        int32_t v = w->stack[--top];
        for (int32_t k = 0; k < g->ops[v].n_consumers; k++) {
            int32_t m = g->ops[v].consumers[k];
            if (w->mark[m] == stamp)
                continue;
            w->mark[m] = stamp;
            if (g->ops[m].out.h == 1 && lf_op_row_kind(g, m) != LF_ROWS_REDUCTION) {
                w->stack[top++] = m;
                continue;
            }
            /* m at row 0 asks p's row 0 or above it (an upsampling window may
             * start lower: left out). */
            if (lf_op_row_kind(g, m) == LF_ROWS_REDUCTION || lf_op_row_kind(g, m) == LF_ROWS_UPSAMPLE ||
                lf_op_has(g->ops[m].type, LF_OPF_RESHAPES_ROWS) || !lf_cost_fusable(cm, m))
                continue;
            for (int32_t i = 0; i < g->ops[m].n_inputs; i++)
                if (g->ops[m].inputs[i] == p) {
                    w->p[m] = p;
                    w->r[m] = r;
                }
        }
    }
}

lf_status lf__waits_init(lf__waits *w, lf_cost_model *cm)
{
    memset(w, 0, sizeof *w);
    const lf_graph *g = lf_cost_graph(cm);
    int32_t n = g->n_ops;
    if (lf__may_wait(g) > LF__WAITS_SNAPSHOTS)
        return LF_OK;
    for (int32_t v = 0; v < n; v++) {
        if (lf_cost_column_tiled(cm, v) || g->ops[v].out.n > 1)
            return LF_OK;
        for (int32_t j = 0; j < g->ops[v].n_inputs; j++)
            if (lf_cost_global_operand(cm, v, j))
                return LF_OK;
    }
    w->p = malloc(((size_t)n + 1) * sizeof *w->p);
    w->r = malloc(((size_t)n + 1) * sizeof *w->r);
    w->need = calloc((size_t)n + 1, sizeof *w->need);
    w->stack = malloc(((size_t)n + 1) * sizeof *w->stack);
    w->mark = calloc((size_t)n + 1, sizeof *w->mark);
    w->done = malloc(((size_t)n + 1) * sizeof *w->done);
    if (!w->p || !w->r || !w->need || !w->stack || !w->mark || !w->done) {
        lf__waits_destroy(w);
        return lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    }
    int any = 0;
    for (int32_t v = 0; v < n; v++)
        w->p[v] = w->r[v] = -1;
    for (int32_t p = 0; p < n; p++) {
        const lf_op *op = &g->ops[p];
        if (op->out.h <= 1 || lf_op_row_kind(g, p) == LF_ROWS_VIEW || lf_cost_view(cm, p) ||
            lf_op_has(op->type, LF_OPF_RESHAPES_ROWS))
            continue;
        for (int32_t j = 0; j < op->n_consumers; j++) {
            int32_t r = op->consumers[j];
            const lf_op *rop = &g->ops[r];
            if (!lf_cost_fusable(cm, r) || rop->out.h != 1 || rop->n_inputs != 1 ||
                lf_op_row_kind(g, r) != LF_ROWS_REDUCTION || lf_op_has(rop->type, LF_OPF_RESHAPES_ROWS))
                continue;
            lf__find_waits(w, cm, p, r);
        }
    }
    for (int32_t v = 0; v < n; v++)
        any |= w->p[v] >= 0;
    if (!any) {
        lf__waits_destroy(w);
        return LF_OK;
    }
    w->charge = lf_cost_weights_resident(cm);
    return lf__wait_resident_init(&w->resident, g);
}


void lf__waits_destroy(lf__waits *w)
{
    free(w->p);
    free(w->r);
    free(w->need);
    free(w->stack);
    free(w->mark);
    free(w->done);
    lf__wait_resident_destroy(&w->resident);
    memset(w, 0, sizeof *w);
}

/* The floor of G's F_beta at m's wait snapshot when G keeps p resident,
 * from the set being grown (top of the file). need[] is zero on entry and
 * on return. */
static int64_t lf__wait_floor(lf__waits *w, const lf__exact *x, int32_t m, int32_t p)
{
    const lf_graph *g = x->g;
    int64_t f = x->lb_w + x->lb_blk + (int64_t)g->ops[p].out.h * x->row_bytes[p];
    if (!x->view[m])
        f += x->row_bytes[m]; /* m stages a row of its own output */
    /* m's ancestors inside the set (marked), and what each asks of the
     * inputs it reads. */
    int64_t stamp = ++w->stamp;
    int32_t top = 0;
    w->stack[top++] = m;
    w->mark[m] = stamp;
    while (top > 0) {
        int32_t v = w->stack[--top];
        const lf_op *op = &g->ops[v];
        int32_t k = 1, s, pad;
        /* The cost model's kind differs from the op table's only for ops
         * that reshape rows (model.c, lf__resolve_kind): one row for them. */
        if (lf_op_row_kind(g, v) == LF_ROWS_WINDOW && !lf_op_has(op->type, LF_OPF_RESHAPES_ROWS))
            lf_op_row_window(op, &k, &s, &pad);
        k = k < 1 ? 1 : k;
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t t = op->inputs[j];
            if (x->in_s[t] && w->mark[t] != stamp) {
                w->mark[t] = stamp;
                w->stack[top++] = t;
            }
            if (t != p && !x->view[t] && !lf_cost_global_operand(x->cm, v, j) && k > w->need[t])
                w->need[t] = k;
        }
    }
    /* Each tensor asked once (the largest window), then need[] cleared. */
    for (int32_t i = 0; i < x->n_sub; i++) {
        int32_t v = x->sub[i];
        if (w->mark[v] != stamp)
            continue;
        for (int32_t j = 0; j < g->ops[v].n_inputs; j++) {
            int32_t t = g->ops[v].inputs[j];
            if (w->need[t] == 0)
                continue;
            int64_t h = g->ops[t].out.h;
            f += (w->need[t] < h ? w->need[t] : h) * x->row_bytes[t];
            w->need[t] = 0;
        }
    }
    return f;
}

int64_t lf__waits_kept_floor(lf__waits *w, const lf__exact *x, int32_t m, int32_t p, int32_t r)
{
    if (!w->p || w->p[m] != p || w->r[m] != r)
        return 0;
    int64_t a = lf__wait_floor(w, x, m, p);
    if (a >= x->beta)
        return a;
    int64_t b = lf__wait_resident_floor(&w->resident, x, p, r);
    return a > b ? a : b;
}

void lf__waits_charge(lf__waits *w, const lf__exact *x, const uint8_t *internal, const int64_t *bytes,
                      int64_t *d_any, int64_t *d_conn)
{
    *d_any = *d_conn = 0;
    if (!w->p || !w->charge)
        return;
    const lf_graph *g = x->g;
    int32_t n_done = 0;
    for (int32_t i = 0; i < x->n_sub; i++) {
        int32_t m = x->sub[i], p = w->p[m];
        if (p < 0 || !x->in_s[w->r[m]] || !internal[p])
            continue;
        /* A map counts once per set (its group pays one re-read). */
        int dup = 0;
        for (int32_t k = 0; k < n_done && !dup; k++)
            dup = w->done[k] == p;
        /* Either snapshot's floor at beta rules p resident out (wait_resident.c). */
        if (dup || (lf__wait_floor(w, x, m, p) < x->beta && lf__wait_resident_floor(&w->resident, x, p, w->r[m]) < x->beta))
            continue;
        w->done[n_done++] = p;
        int out = !x->in_s[p];
        for (int32_t j = 0; j < g->ops[p].n_consumers && !out; j++)
            out = !x->in_s[g->ops[p].consumers[j]];
        int64_t d = out ? bytes[p] : 2 * bytes[p];
        *d_any += d;
        if (x->in_s[p])
            *d_conn += d;
    }
}

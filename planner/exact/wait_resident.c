/* A squeeze-and-excite map kept resident, at the sinks' first snapshot, in
 * the windows' relaxation (window_waits.c charges the re-read it forces;
 * docs/search.md "Certified bounds", issue 46).
 *
 * window_waits.c floors F_beta at the wait's own snapshot (m's start, only
 * m's ancestors active). The other snapshot that holds the whole map is the
 * sinks' first one: every member active, each sink at row 0 (rows.c, phase
 * 0 of the main snapshot). On PP-OCRv4 detection, a group holding Conv.40's
 * wait (ops 182-189) and the 160-wide path to Add.252 (206-211) keeps the
 * 153,600 B map beside a row of every tensor of the path: F_beta 262,296 B,
 * 152 B over a 256 KB beta, which m's snapshot (the path is no ancestor of
 * m) does not see.
 *
 * The argument (rows.c, lf__request_inputs). Let G be a valid group with
 * G n U = S (U the window's universe, S the set), holding a reduction r of
 * map p and a wait op m below it, and keeping p resident. At the sinks'
 * first snapshot r is no terminal reduction (m, spatial, lies below it in
 * G: G is convex), so it asks p's last row H - 1. Each member c sits at
 * row delta_c: 0 for a sink, else the top of what its readers in G ask;
 * since asks grow with the reader's row, delta_c <= LA_S(c) where
 *   LA_S(c) = max(0, max over readers d of c in G of ask_hi(d, LA_S(d))),
 * a reader d in S counted with LA_S(d), one outside U (it may be in G)
 * with the graph's LA(d) (the same over every fusable reader), one in U
 * outside S not at all (then it is outside G). A reduction asks at most
 * max(H_c - 1, its own row) (the last row when something spatial waits for
 * it, else its row), a reader of the whole map H_c - 1; an op whose rows
 * the cost model refines bounds nothing (LA taken as unbounded). So p holds the rows from
 * ask_lo(c, LA_S(c)) (or below) of any reader c of p in S to H - 1.
 * Besides p, each tensor t read by a member c (no stop, no view) holds the
 * rows c asks, at least one where c's ask meets [0, H_t - 1] at every row
 * up to LA_S(c); each member with a reader in U outside S, or a graph
 * output, stages a row (it leaves G). These are distinct windows of one
 * snapshot, so their bytes and G's weights (LBDF: F_beta = weights +
 * features) are at most F_beta(G). The lookahead is the part's: a reader
 * the window holds outside the part cannot run the member ahead (on the
 * neck, Add.248's 3x3 reader Conv.52 would drop 182's first row, 3,840 B,
 * far more than the 152 B margin).
 *
 * window_waits.c takes the larger of the two floors. */
#include "planner/exact/wait_resident.h"

#include <stdlib.h>
#include <string.h>

#include "planner/optable.h"

/* A lookahead past this many rows is as good as unbounded (no overflow). */
#define LF__RES_FAR ((int64_t)1 << 30)
/* Lookahead rows tried one by one for a window op's rows (lf__res_rows). */
#define LF__RES_ROW_TRIES 64

static int64_t lf__res_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Ops whose asks the formulas below do not bound (as window_siblings.c). */
static int lf__res_stop(const lf_graph *g, int32_t v)
{
    lf_row_kind k = lf_op_row_kind(g, v);
    return k == LF_ROWS_REDUCTION || k == LF_ROWS_FULL || k == LF_ROWS_NONE ||
           lf_op_has(g->ops[v].type, LF_OPF_RESHAPES_ROWS);
}

/* The last row reader c asks of an input of hin rows at its own row d (an
 * upper bound; rows.c, lf__request_inputs). */
static int64_t lf__res_ask_hi(const lf_graph *g, int32_t c, int64_t d, int64_t hin)
{
    const lf_op *op = &g->ops[c];
    int32_t k = 1, s = 1, pad = 0;
    lf_op_row_window(op, &k, &s, &pad);
    switch (lf_op_row_kind(g, c)) {
    case LF_ROWS_WINDOW:
        return (int64_t)s * d - pad + (k > 1 ? k : 1) - 1;
    case LF_ROWS_RESIZE:
        return lf__res_floor_div(d * hin, op->out.h) + (op->attr.linear > 0 ? op->attr.linear : 0);
    case LF_ROWS_UPSAMPLE:
        return lf__res_floor_div(d + pad, s);
    default: /* a view passes its own window on */
        return d;
    }
}

/* The first row reader c asks at its own row d (an upper bound). */
static int64_t lf__res_ask_lo(const lf_graph *g, int32_t c, int64_t d, int64_t hin)
{
    const lf_op *op = &g->ops[c];
    int32_t k = 1, s = 1, pad = 0;
    lf_op_row_window(op, &k, &s, &pad);
    switch (lf_op_row_kind(g, c)) {
    case LF_ROWS_WINDOW:
        return (int64_t)s * d - pad;
    case LF_ROWS_RESIZE:
        return lf__res_floor_div(d * hin, op->out.h);
    case LF_ROWS_UPSAMPLE: {
        int64_t b = lf__res_floor_div(d + pad, s), a = -lf__res_floor_div(-(d + pad - k + 1), s);
        return a < b ? a : b;
    }
    default:
        return d;
    }
}

/* The fewest rows of an input of hin rows that reader c asks at any row
 * of its own up to la: a window op's [s*d - pad, s*d - pad + K - 1] cut to
 * the map, tried row by row (a far lookahead: one row); one row for any
 * other op whose ask meets the map at every such row, else none. */
static int64_t lf__res_rows(const lf_graph *g, int32_t c, int64_t la, int64_t hin)
{
    if (lf__res_ask_hi(g, c, 0, hin) < 0 || lf__res_ask_lo(g, c, la, hin) > hin - 1)
        return 0;
    if (lf_op_row_kind(g, c) != LF_ROWS_WINDOW || la > LF__RES_ROW_TRIES)
        return 1;
    int32_t k = 1, s = 1, pad = 0;
    lf_op_row_window(&g->ops[c], &k, &s, &pad);
    int64_t least = hin;
    for (int64_t d = 0; d <= la; d++) {
        int64_t a = (int64_t)s * d - pad, b = a + (k > 1 ? k : 1) - 1;
        int64_t n = (b < hin - 1 ? b : hin - 1) - (a > 0 ? a : 0) + 1;
        least = n < least ? n : least;
    }
    return least > 1 ? least : 1;
}

/* What reader d at row la asks of c at most (LF__RES_FAR: unbounded). */
static int64_t lf__res_ask(const lf_graph *g, int32_t d, int64_t la, int32_t c)
{
    int64_t hin = g->ops[c].out.h;
    lf_row_kind k = lf_op_row_kind(g, d);
    if (la >= LF__RES_FAR || k == LF_ROWS_NONE || lf_op_has(g->ops[d].type, LF_OPF_RESHAPES_ROWS))
        return LF__RES_FAR;
    /* A reduction asks the last row (something spatial waits for it) or
     * its own; a reader of the whole map the last row. */
    if (k == LF_ROWS_REDUCTION)
        return la > hin - 1 ? la : hin - 1;
    if (k == LF_ROWS_FULL)
        return hin - 1;
    int64_t a = lf__res_ask_hi(g, d, la, hin);
    return a < LF__RES_FAR ? a : LF__RES_FAR;
}

lf_status lf__wait_resident_init(lf__wait_resident *w, const lf_graph *g)
{
    memset(w, 0, sizeof *w);
    size_t n = (size_t)g->n_ops + 1;
    w->la = malloc(n * sizeof *w->la);
    w->la_part = malloc(n * sizeof *w->la_part);
    w->seen = calloc(n, sizeof *w->seen);
    w->rows_seen = calloc(n, sizeof *w->rows_seen);
    if (!w->la || !w->la_part || !w->seen || !w->rows_seen) {
        lf__wait_resident_destroy(w);
        return lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    }
    /* Readers come after their inputs in the graph's order; where one does
     * not, nothing is bounded. */
    for (int32_t v = g->n_ops - 1; v >= 0; v--) {
        int64_t la = 0;
        for (int32_t j = 0; j < g->ops[v].n_consumers; j++) {
            int32_t d = g->ops[v].consumers[j];
            int64_t a = d > v ? lf__res_ask(g, d, w->la[d], v) : LF__RES_FAR;
            la = a > la ? a : la;
        }
        w->la[v] = la;
    }
    return LF_OK;
}

void lf__wait_resident_destroy(lf__wait_resident *w)
{
    free(w->la);
    free(w->la_part);
    free(w->seen);
    free(w->rows_seen);
    memset(w, 0, sizeof *w);
}

/* LA_S(c) for member c of the set (the top of the file), memoised under
 * w->stamp. Readers come later in the graph's order, so the recursion ends. */
static int64_t lf__res_la(lf__wait_resident *w, const lf__exact *x, int32_t c)
{
    if (w->seen[c] == w->stamp)
        return w->la_part[c];
    const lf_op *op = &x->g->ops[c];
    int64_t la = 0;
    for (int32_t j = 0; j < op->n_consumers && la < LF__RES_FAR; j++) {
        int32_t d = op->consumers[j];
        int64_t ask;
        if (d <= c)
            ask = LF__RES_FAR;
        else if (x->in_s[d])
            ask = lf__res_ask(x->g, d, lf__res_la(w, x, d), c);
        else if (x->in_u[d] || !lf_cost_fusable(x->cm, d))
            continue; /* outside G */
        else
            ask = lf__res_ask(x->g, d, w->la[d], c);
        la = ask > la ? ask : la;
    }
    w->seen[c] = w->stamp;
    w->la_part[c] = la;
    return la;
}

int64_t lf__wait_resident_floor(lf__wait_resident *w, const lf__exact *x, int32_t p, int32_t r)
{
    const lf_graph *g = x->g;
    if (!w->la)
        return 0;
    w->stamp++;
    int64_t H = g->ops[p].out.h, lo = LF__RES_FAR;
    for (int32_t j = 0; j < g->ops[p].n_consumers; j++) {
        int32_t c = g->ops[p].consumers[j];
        if (c == r || !x->in_s[c] || lf__res_stop(g, c))
            continue;
        int64_t la = lf__res_la(w, x, c);
        int64_t a = la < LF__RES_FAR ? lf__res_ask_lo(g, c, la, H) : LF__RES_FAR;
        lo = a < lo ? a : lo;
    }
    if (lo < 0)
        lo = 0;
    int64_t held = lo <= H - 1 ? H - lo : 1; /* r asks the last row */
    int64_t f = x->lb_w + x->lb_blk + held * x->row_bytes[p];
    w->rows_seen[p] = w->stamp;
    for (int32_t i = 0; i < x->n_sub; i++) {
        int32_t v = x->sub[i];
        const lf_op *op = &g->ops[v];
        if (!x->view[v]) {
            int leaves = op->is_output;
            for (int32_t j = 0; j < op->n_consumers && !leaves; j++)
                leaves = !x->in_s[op->consumers[j]] && x->in_u[op->consumers[j]];
            f += leaves ? x->row_bytes[v] : 0;
        }
        if (lf__res_stop(g, v))
            continue;
        int64_t la = lf__res_la(w, x, v);
        if (la >= LF__RES_FAR)
            continue;
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t t = op->inputs[j];
            if (x->view[t] || w->rows_seen[t] == w->stamp || lf_cost_global_operand(x->cm, v, j))
                continue;
            int64_t rows = lf__res_rows(g, v, la, g->ops[t].out.h);
            if (rows == 0)
                continue;
            w->rows_seen[t] = w->stamp;
            f += rows * x->row_bytes[t];
        }
    }
    return f;
}

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
 * it, else its row: rows.c makes it terminal unless an op of G below it
 * reads a spatial map, so a reduction in S that no op G may hold below it
 * -- members and fusable ops outside U, reached through such ops -- waits
 * for asks only its own row, and one a member waits for, through members,
 * puts c at H_c - 1 at least: lf__res_terminal), a reader of the whole map H_c - 1; an op whose rows
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
/* The two-sided floor: members at a fixed row at once, members tried, and
 * the tallest map tried row by row. */
#define LF__RES_MAX_OV 8
#define LF__RES_MAX_BOXES 8192
/* Steps of the walk from a reduction to the ops that wait on it. */
#define LF__RES_WAIT_STEPS 32
#define LF__RES_MAX_ROWS 256

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

/* The fewest rows of an input of hin rows that reader c holds at any row:
 * rows.c counts a window's span capped at the map's height, not the rows
 * inside the map (a padded row, or a broadcast vector's row past its one,
 * counts): K rows for a window op, one for any other. */
static int64_t lf__res_rows(const lf_graph *g, int32_t c, int64_t hin)
{
    if (lf_op_row_kind(g, c) != LF_ROWS_WINDOW)
        return 1;
    int32_t k = 1, s = 1, pad = 0;
    lf_op_row_window(&g->ops[c], &k, &s, &pad);
    int64_t n = k > 1 ? k : 1;
    return n < hin ? n : hin;
}

/* The least row reader c asks of an input of hin rows at any row of its
 * own from 0 (what puts a member from outside the universe in a case). */
static int64_t lf__res_ask_min(const lf_graph *g, int32_t c, int64_t hin)
{
    switch (lf_op_row_kind(g, c)) {
    case LF_ROWS_WINDOW:
    case LF_ROWS_RESIZE:
    case LF_ROWS_UPSAMPLE:
        return lf__res_ask_hi(g, c, 0, hin);
    case LF_ROWS_FULL:
        return hin - 1;
    default:
        return 0;
    }
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
    w->n_ov = 0;
    size_t n = (size_t)g->n_ops + 1;
    w->la = malloc(n * sizeof *w->la);
    w->la_part = malloc(n * sizeof *w->la_part);
    w->seen = calloc(n, sizeof *w->seen);
    w->lb = malloc(n * sizeof *w->lb);
    w->lb_seen = calloc(n, sizeof *w->lb_seen);
    w->rows_seen = calloc(n, sizeof *w->rows_seen);
    if (!w->la || !w->la_part || !w->seen || !w->rows_seen || !w->lb || !w->lb_seen) {
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
    /* Rows are never negative when no op asks below row 0 at its row 0:
     * the sinks sit at 0 and every other member at the top of what its
     * readers ask (rows.c). */
    w->nonneg = 1;
    for (int32_t v = 0; v < g->n_ops; v++) {
        lf_row_kind k = lf_op_row_kind(g, v);
        if (k != LF_ROWS_WINDOW && k != LF_ROWS_RESIZE && k != LF_ROWS_UPSAMPLE)
            continue;
        for (int32_t j = 0; j < g->ops[v].n_inputs; j++)
            if (lf__res_ask_hi(g, v, 0, g->ops[g->ops[v].inputs[j]].out.h) < 0)
                w->nonneg = 0;
    }
    return LF_OK;
}

void lf__wait_resident_destroy(lf__wait_resident *w)
{
    free(w->la);
    free(w->la_part);
    free(w->seen);
    free(w->rows_seen);
    free(w->lb);
    free(w->lb_seen);
    memset(w, 0, sizeof *w);
}

/* Whether op c reads a map of more than one row (the cost model's
 * reads_spatial, model.c). */
static int lf__res_spatial(const lf_graph *g, int32_t c)
{
    for (int32_t j = 0; j < g->ops[c].n_inputs; j++)
        if (g->ops[g->ops[c].inputs[j]].out.h > 1)
            return 1;
    return 0;
}

/* Whether reduction d of the set is terminal in the sinks' snapshot of
 * every group G with G n U = S: rows.c makes it terminal unless an op of
 * G below it (on a path inside G: G is convex) reads a spatial map. The
 * ops of G below d are reached through members and fusable ops outside
 * the universe (an op of U outside S is outside G). 1: terminal in every
 * such G (no op that G may hold below it reads a spatial map: it asks its
 * own row); -1: in none (a member, reached through members, does: it asks
 * the last row); 0: either, or the walk past its steps. */
static int lf__res_terminal(const lf__exact *x, int32_t d)
{
    const lf_graph *g = x->g;
    int32_t stack[LF__RES_WAIT_STEPS];
    uint8_t inside[LF__RES_WAIT_STEPS];
    int32_t n = 0, steps = 0;
    int maybe = 0;
    stack[n] = d;
    inside[n++] = 1;
    while (n > 0) {
        n--;
        int32_t v = stack[n];
        int in_path = inside[n];
        for (int32_t j = 0; j < g->ops[v].n_consumers; j++) {
            int32_t c = g->ops[v].consumers[j];
            if (++steps > LF__RES_WAIT_STEPS || c <= v)
                return 0;
            int member = x->in_s[c];
            if (!member && (x->in_u[c] || !lf_cost_fusable(x->cm, c)))
                continue; /* outside G */
            if (lf__res_spatial(g, c)) {
                if (member && in_path)
                    return -1;
                maybe = 1;
                continue;
            }
            if (n == LF__RES_WAIT_STEPS)
                return 0;
            stack[n] = c;
            inside[n++] = (uint8_t)(member && in_path);
        }
    }
    return maybe ? 0 : 1;
}

/* LA_S(c) for member c of the set (the top of the file), memoised under
 * w->stamp. Readers come later in the graph's order, so the recursion ends. */
static int64_t lf__res_la(lf__wait_resident *w, const lf__exact *x, int32_t c)
{
    for (int32_t k = 0; k < w->n_ov; k++)
        if (c == w->ov_op[k])
            return w->ov_hi[k]; /* a two-sided case: c at most at this row */
    if (w->seen[c] == w->stamp)
        return w->la_part[c];
    const lf_op *op = &x->g->ops[c];
    int64_t la = 0;
    for (int32_t j = 0; j < op->n_consumers && la < LF__RES_FAR; j++) {
        int32_t d = op->consumers[j];
        int64_t ask;
        if (d <= c)
            ask = LF__RES_FAR;
        else if (x->in_s[d]) {
            int64_t ld = lf__res_la(w, x, d);
            /* A reduction terminal in every G asks only its own row. */
            if (ld < LF__RES_FAR && lf_op_row_kind(x->g, d) == LF_ROWS_REDUCTION &&
                !lf_op_has(x->g->ops[d].type, LF_OPF_RESHAPES_ROWS) && lf__res_terminal(x, d) <= 0)
                ask = lf__res_ask(x->g, d, ld, c);
            else if (lf_op_row_kind(x->g, d) == LF_ROWS_REDUCTION && !lf_op_has(x->g->ops[d].type, LF_OPF_RESHAPES_ROWS) && ld < LF__RES_FAR)
                ask = ld;
            else
                ask = lf__res_ask(x->g, d, ld, c);
        }
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

static int64_t lf__res_lb_readers(lf__wait_resident *w, const lf__exact *x, int32_t c);

/* The least row member c sits at (rows never below 0: w->nonneg), from
 * what its readers in S ask at their least rows: rows.c puts c at the top
 * of what its readers ask. A case's member sits at least at its case's
 * first row. Memoised under w->stamp. */
static int64_t lf__res_lb(lf__wait_resident *w, const lf__exact *x, int32_t c)
{
    for (int32_t k = 0; k < w->n_ov; k++)
        if (c == w->ov_op[k])
            return w->ov_lo[k];
    if (w->lb_seen[c] == w->stamp)
        return w->lb[c];
    int64_t lb = lf__res_lb_readers(w, x, c);
    w->lb_seen[c] = w->stamp;
    w->lb[c] = lb;
    return lb;
}

/* The least row c's readers in S put c at (0 without them). */
static int64_t lf__res_lb_readers(lf__wait_resident *w, const lf__exact *x, int32_t c)
{
    const lf_graph *g = x->g;
    int64_t lb = 0, hin = g->ops[c].out.h;
    for (int32_t j = 0; j < g->ops[c].n_consumers; j++) {
        int32_t d = g->ops[c].consumers[j];
        if (d <= c || !x->in_s[d])
            continue;
        int64_t ld = lf__res_lb(w, x, d), a;
        switch (lf_op_row_kind(g, d)) {
        case LF_ROWS_WINDOW:
        case LF_ROWS_RESIZE:
        case LF_ROWS_UPSAMPLE:
            a = lf__res_ask_hi(g, d, ld, hin);
            break;
        case LF_ROWS_REDUCTION: /* no terminal one in G asks the last row */
            a = lf__res_terminal(x, d) < 0 ? hin - 1 : (ld < hin - 1 ? ld : hin - 1);
            break;
        case LF_ROWS_FULL:
            a = hin - 1;
            break;
        case LF_ROWS_VIEW:
            a = ld;
            break;
        default:
            a = 0;
            break;
        }
        lb = a > lb ? a : lb;
    }
    return lb;
}

/* The lowest row of map t that the ops waiting on reduction d (outside
 * the universe) may still ask when d is no terminal reduction in G: rows.c
 * makes d terminal unless an op of G below it reads something spatial, so G
 * holds the first such op f on some path from d (the ops before it read
 * one-by-one maps only); f reads t (else nothing is bounded: LF__RES_FAR),
 * from at most ask_lo at its graph-wide lookahead. The largest over d's
 * frontier, a few steps at most. */
static int64_t lf__res_wait_lo(const lf__wait_resident *w, const lf_graph *g, int32_t d, int32_t t)
{
    int32_t stack[LF__RES_WAIT_STEPS], n = 0, steps = 0;
    int64_t lo = -LF__RES_FAR;
    stack[n++] = d;
    while (n > 0) {
        int32_t v = stack[--n];
        for (int32_t j = 0; j < g->ops[v].n_consumers; j++) {
            int32_t c = g->ops[v].consumers[j];
            if (++steps > LF__RES_WAIT_STEPS || c <= v)
                return LF__RES_FAR;
            int flat = lf_op_row_kind(g, c) != LF_ROWS_REDUCTION;
            for (int32_t k = 0; k < g->ops[c].n_inputs && flat; k++) {
                const lf_op *in = &g->ops[g->ops[c].inputs[k]];
                flat = in->out.h == 1 && in->out.w == 1;
            }
            if (flat) {
                if (n == LF__RES_WAIT_STEPS)
                    return LF__RES_FAR;
                stack[n++] = c;
                continue;
            }
            int reads = 0;
            for (int32_t k = 0; k < g->ops[c].n_inputs; k++)
                reads |= g->ops[c].inputs[k] == t;
            if (!reads || lf__res_stop(g, c) || w->la[c] >= LF__RES_FAR)
                return LF__RES_FAR;
            int64_t a = lf__res_ask_lo(g, c, w->la[c], g->ops[t].out.h);
            lo = a > lo ? a : lo;
        }
    }
    return lo;
}

/* The floor in one case of the two-sided floor: each member ov_op[k] sits
 * at a row in [ov_lo[k], ov_hi[k]] (ov_hi[k] the lookahead the rows above
 * it take; n_ov 0: the one-sided floor). A case no schedule meets (a
 * member's readers in S put it past its case) bounds nothing: LF__RES_FAR.
 * A case member tt holds the hull from the lowest row a reader in S may
 * ask (ask_lo at its lookahead) to ov_lo, a span rows.c caps at its height
 * only; its readers outside the universe (rows from 0 when nonneg): one
 * that asks past ov_hi at its row 0 is no member in this case, so tt
 * leaves G and stages a row; past what its readers in S ask, one of them
 * is a member (its weights); else each one is a member or tt stages. */
static int64_t lf__res_floor_case(lf__wait_resident *w, const lf__exact *x, int32_t p, int32_t r)
{
    const lf_graph *g = x->g;
    int64_t rlo[LF__RES_MAX_OV] = {0};
    w->stamp++;
    if (w->n_ov > 0) {
        if (!w->nonneg)
            return 0; /* cases need rows from 0 */
        for (int32_t k = 0; k < w->n_ov; k++) {
            int64_t lb = lf__res_lb_readers(w, x, w->ov_op[k]);
            if (lb > w->ov_hi[k])
                return LF__RES_FAR;
            rlo[k] = lb > w->ov_lo[k] ? lb : w->ov_lo[k];
        }
    }
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
    int64_t t_rows[LF__RES_MAX_OV] = {0};
    int tt_leaves[LF__RES_MAX_OV] = {0};
    w->rows_seen[p] = w->stamp;
    for (int32_t i = 0; i < x->n_sub; i++) {
        int32_t v = x->sub[i];
        const lf_op *op = &g->ops[v];
        if (!x->view[v]) {
            int leaves = op->is_output;
            for (int32_t j = 0; j < op->n_consumers && !leaves; j++)
                leaves = !x->in_s[op->consumers[j]] && x->in_u[op->consumers[j]];
            f += leaves ? x->row_bytes[v] : 0;
            for (int32_t k = 0; k < w->n_ov; k++)
                tt_leaves[k] |= v == w->ov_op[k] && leaves;
        }
        if (lf__res_stop(g, v))
            continue;
        int64_t la = lf__res_la(w, x, v);
        if (la >= LF__RES_FAR)
            continue;
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t t = op->inputs[j];
            if (x->view[t] || lf_cost_global_operand(x->cm, v, j))
                continue;
            int64_t rows = lf__res_rows(g, v, g->ops[t].out.h);
            int k = 0;
            while (k < w->n_ov && w->ov_op[k] != t)
                k++;
            if (k < w->n_ov) { /* a case member's window, or its hull below */
                t_rows[k] = rows > t_rows[k] ? rows : t_rows[k];
                continue;
            }
            if (w->rows_seen[t] == w->stamp)
                continue;
            w->rows_seen[t] = w->stamp;
            f += rows * x->row_bytes[t];
        }
    }
    for (int32_t k = 0; k < w->n_ov; k++) {
        int32_t tt = w->ov_op[k];
        int64_t ht = g->ops[tt].out.h, tlo = LF__RES_FAR, la_in = 0, wsum = 0, wmin = LF__RES_FAR;
        int any = 0, stages = 0;
        for (int32_t j = 0; j < g->ops[tt].n_consumers; j++) {
            int32_t c = g->ops[tt].consumers[j];
            if (x->in_s[c]) {
                int64_t la = lf__res_la(w, x, c);
                int64_t a = la < LF__RES_FAR && !lf__res_stop(g, c) ? lf__res_ask_lo(g, c, la, ht) : LF__RES_FAR;
                tlo = a < tlo ? a : tlo;
                a = lf__res_ask(g, c, la, tt);
                la_in = a > la_in ? a : la_in;
            } else if (!x->in_u[c]) {
                any = 1;
                if (!lf_cost_fusable(x->cm, c) || lf__res_ask_min(g, c, ht) > w->ov_hi[k]) {
                    stages = 1;
                } else {
                    wsum += x->wterm[c];
                    wmin = x->wterm[c] < wmin ? x->wterm[c] : wmin;
                }
            }
        }
        /* Past what every reader but a reduction outside the universe may
         * ask, one of those is no terminal reduction: its waiting op holds
         * tt from low rows (lf__res_wait_lo). */
        int64_t la_nt = la_in, wlo = -LF__RES_FAR;
        int red = 0;
        for (int32_t j = 0; j < g->ops[tt].n_consumers; j++) {
            int32_t c = g->ops[tt].consumers[j];
            if (x->in_u[c] || !lf_cost_fusable(x->cm, c))
                continue;
            int64_t a;
            if (lf_op_row_kind(g, c) == LF_ROWS_REDUCTION) {
                red = 1;
                a = w->la[c]; /* terminal: its own row */
                int64_t l = lf__res_wait_lo(w, g, c, tt);
                wlo = l > wlo ? l : wlo;
            } else {
                a = lf__res_ask(g, c, w->la[c], tt);
            }
            la_nt = a > la_nt ? a : la_nt;
        }
        if (red && rlo[k] > la_nt && wlo < tlo)
            tlo = wlo;
        int64_t hull = tlo < LF__RES_FAR ? rlo[k] - tlo + 1 : 0;
        hull = hull < ht ? hull : ht;
        hull = hull > t_rows[k] ? hull : t_rows[k];
        f += hull * x->row_bytes[tt];
        if (tt_leaves[k])
            continue;
        int64_t w1 = rlo[k] > la_in && wmin < LF__RES_FAR ? wmin : 0;
        if (stages)
            f += x->row_bytes[tt] + w1;
        else if (any)
            f += w1 + (x->row_bytes[tt] < wsum - w1 ? x->row_bytes[tt] : wsum - w1);
    }
    return f;
}

/* Whether member t may hold a hull wider than one reader's window: two
 * readers that G may hold (in S, or fusable outside the universe), one of
 * them in S with rows bounded; and a map short enough to try row by row. */
static int lf__res_two_readers(const lf__exact *x, int32_t t)
{
    const lf_graph *g = x->g;
    if (x->view[t] || lf__res_stop(g, t) || g->ops[t].out.h > LF__RES_MAX_ROWS)
        return 0;
    int n = 0;
    for (int32_t j = 0; j < g->ops[t].n_consumers; j++) {
        int32_t c = g->ops[t].consumers[j];
        if (x->in_s[c]) {
            n++;
        } else if (!x->in_u[c] && lf_cost_fusable(x->cm, c)) {
            n++;
        }
    }
    return n >= 2;
}

/* Whether member k's case is one row, or every row from ht - 1 on (no
 * split narrows it). */
static int lf__res_atomic(const lf__wait_resident *w, const lf__exact *x, int32_t k)
{
    return w->ov_lo[k] >= w->ov_hi[k] || w->ov_lo[k] >= x->g->ops[w->ov_op[k]].out.h - 1;
}

/* Whether every case inside the box (each member's rows [ov_lo, ov_hi])
 * floors at beta: the box's own floor, else the box split in two at the
 * middle of its widest member (bytes), *budget evaluations at most. */
static int lf__res_box(lf__wait_resident *w, const lf__exact *x, int32_t p, int32_t r, int64_t *budget,
                       int64_t *least)
{
    if (--*budget < 0)
        return 0;
    int64_t f = lf__res_floor_case(w, x, p, r);
    if (f >= x->beta) {
        *least = f < *least ? f : *least;
        return 1;
    }
    int32_t best = -1;
    int64_t wide = 0;
    for (int32_t k = 0; k < w->n_ov; k++) {
        if (lf__res_atomic(w, x, k))
            continue;
        int64_t ht = x->g->ops[w->ov_op[k]].out.h;
        int64_t top = w->ov_hi[k] < ht - 1 ? w->ov_hi[k] : ht - 1;
        int64_t b = (top - w->ov_lo[k] + 1) * x->row_bytes[w->ov_op[k]];
        if (b > wide) {
            wide = b;
            best = k;
        }
    }
    if (best < 0)
        return 0; /* a case below beta */
    int64_t lo = w->ov_lo[best], hi = w->ov_hi[best], ht = x->g->ops[w->ov_op[best]].out.h;
    int64_t top = hi < ht - 1 ? hi : ht - 1, mid = lo + (top - lo) / 2;
    /* [lo, mid] and [mid + 1, hi]: from ht - 1 on stays one case */
    w->ov_hi[best] = mid;
    int ok = lf__res_box(w, x, p, r, budget, least);
    w->ov_hi[best] = hi;
    if (ok) {
        w->ov_lo[best] = mid + 1;
        ok = lf__res_box(w, x, p, r, budget, least);
        w->ov_lo[best] = lo;
    }
    return ok;
}

int64_t lf__wait_resident_floor(lf__wait_resident *w, const lf__exact *x, int32_t p, int32_t r)
{
    if (!w->la)
        return 0;
    w->n_ov = 0;
    int64_t f = lf__res_floor_case(w, x, p, r);
    if (f >= x->beta || !w->nonneg)
        return f;
    /* Two-sided: a reader that runs member t ahead (one outside the
     * universe, or a ghost in the part whose own reduction lies outside)
     * shrinks p's held rows but widens t's hull by as much. Every member
     * that may hold such a hull gets a row range, the ranges are split
     * (interval branch and bound) until each box floors at beta; the floor
     * is the least over the boxes. A box below beta that no split narrows,
     * or the budget spent, keeps the one-sided floor (the caller asks only
     * whether beta is reached). */
    w->stamp++;
    int32_t nc = 0;
    for (int32_t i = 0; i < x->n_sub && nc < LF__RES_MAX_OV; i++) {
        int32_t t = x->sub[i];
        if (t == p || !lf__res_two_readers(x, t))
            continue;
        w->ov_op[nc] = t;
        w->ov_lo[nc] = 0;
        w->ov_hi[nc] = lf__res_la(w, x, t);
        nc++;
    }
    /* Not only a reader outside the universe runs a member ahead: one in
     * S does through a reduction that may be no terminal one (it asks the
     * last row), while a wait's reduction below another reader that is
     * none puts the member at its last row (lf__res_lb_readers). On
     * PP-OCRv4 detection, {182-189, 207-211, 220-228, 236}: Conv.52 (220)
     * runs Add.248 (207) to its end for its wait, Resize.1 (208) holds it
     * from row 0 (F_beta 407,466 B; one-sided floors 238,530 B at most). */
    if (nc == 0)
        return f;
    /* One case first: each member where its readers in S put it (no
     * reader outside the universe runs it ahead), the usual least; below
     * beta, no split can help. */
    int64_t la_in[LF__RES_MAX_OV];
    for (int32_t k = 0; k < nc; k++) {
        int32_t t = w->ov_op[k];
        int64_t ht = x->g->ops[t].out.h, a = 0;
        for (int32_t j = 0; j < x->g->ops[t].n_consumers; j++) {
            int32_t c = x->g->ops[t].consumers[j];
            int64_t b = x->in_s[c] ? lf__res_ask(x->g, c, lf__res_la(w, x, c), t) : 0;
            a = b > a ? b : a;
        }
        la_in[k] = a < ht - 1 ? a : ht - 1;
    }
    w->n_ov = nc;
    int64_t save_lo[LF__RES_MAX_OV], save_hi[LF__RES_MAX_OV];
    for (int32_t k = 0; k < nc; k++) {
        save_lo[k] = w->ov_lo[k];
        save_hi[k] = w->ov_hi[k];
        w->ov_lo[k] = w->ov_hi[k] = la_in[k] < save_hi[k] ? la_in[k] : save_hi[k];
    }
    int64_t probe = lf__res_floor_case(w, x, p, r);
    for (int32_t k = 0; k < nc; k++) {
        w->ov_lo[k] = save_lo[k];
        w->ov_hi[k] = save_hi[k];
    }
    if (probe < x->beta) {
        w->n_ov = 0;
        return f;
    }
    int64_t budget = LF__RES_MAX_BOXES, least = LF__RES_FAR;
    int ok = lf__res_box(w, x, p, r, &budget, &least);
    w->n_ov = 0;
    return ok && least > f ? least : f;
}

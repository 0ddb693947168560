/* A floor of the DRAM of every valid plan from windows of consecutive ops
 * joined at their boundaries (docs/results/exact.md, "A join at NasNet-A's
 * cell boundaries"). window_bound.c solves each window W_k with some readers
 * past its end ("ghosts") on its own, so a reader g of W_k's last tensor can
 * sit with that tensor's producer in W_k's relaxation and with its own cell
 * in W_{k+1}'s: one op in two groups, and the tensor is charged almost
 * nothing. Here every window is solved under a state of each of its two
 * boundaries, and the bound is the least sum over consistent states.
 *
 * The charge is window_bound.c's connected one (what a connected part writes
 * for a reader outside it; the top of that file proves the relaxation), over
 * the same universes: W_k and its ghosts, the readers outside W_k of its
 * largest tensors whose forced-cut floor is 0.
 *
 * The state. At boundary k take one ghost g of W_k that lies in W_{k+1} (a
 * fusable one, reading the most bytes from W_k). For a valid plan P let G be
 * g's group and B = G n W_k. Its level L(B) is the weight term of B's ops
 * (lf_cost_weight_bound's first part, summed) plus the feature rows B's ops
 * need of the tensors in T_k: tensors that no op of U_{k+1} (W_{k+1} and
 * its ghosts) and no ghost of W_k produces or reads. Rows are counted as the
 * enumeration's floor counts them (downsets.c, lf__add: a tensor holds as
 * many rows as its most demanding member asks, at most its height). P is
 * "high" at k when L(B) >= theta_k, "low" otherwise.
 *
 * Why each constrained window still bounds P. Window k charges the parts
 * C n U_k of P's groups, or, in the connected charge, their components (a
 * component of a part writes for readers outside it exactly what the part
 * does: two components reading each other's tensors would be one). Both
 * constraints below hold for the part of g and are closed under subsets,
 * so they hold for its components too:
 * - k low, in window k: no set holding g has L(set n W_k) >= theta_k. The
 *   part of g meets W_k in B, L grows with the set (weights >= 0, rows a
 *   maximum), and L(B) < theta_k.
 * - k high, in window k + 1: no set S holding g has
 *   weights(S) + rows(S) + block(S) + theta_k >= beta. G holds S and B,
 *   which are disjoint (B lies before W_{k+1}, and B's ops are no ghost of
 *   window k+1: those lie past W_{k+1}); G's weight term is at least S's
 *   plus B's, its block term at least S's, and its rows at least S's over
 *   tensors outside T_k (S's ops touch none in T_k) plus B's over T_k. So
 *   the floor of G reaches beta, and the enumeration cuts every set whose
 *   floor does (G would not be valid). G has two ops or more, so the floor
 *   is that sum (a column-tiled op alone has floor 0; not G).
 * So with V_k(a, b) the relaxed optimum of window k under the states a of
 * boundary k-1 and b of boundary k (no constraint where there is no joined
 * ghost), each at least the forced-cut floors of its tensors, P pays at
 * least sum_k V_k(a_{k-1}(P), a_k(P)) for the windows' tensors (disjoint),
 * and the bound is the least such sum over all state sequences (a path DP),
 * plus the weights and the forced-cut floors of every other tensor. */
#include <stdlib.h>
#include <string.h>

#include "planner/exact/downsets.h"
#include "planner/exact/solve.h"
#include "planner/exact/window_reads.h"
#include "planner/exact/window_views.h"
#include "planner/util/clock.h"

#define LF__WJ_INF INT64_MAX
/* States per boundary at most (its levels + 1; state i: level in
 * [theta_i, theta_{i+1}), theta_0 = 0). */
#define LF__WJ_STATES 2

typedef struct lf__wj {
    lf_cost_model *cm;
    const lf_graph *g;
    int32_t n;
    int64_t *bytes;
    int64_t *cut_floor;
    uint8_t *internal;   /* tensors of the window being solved */
    uint8_t *in_win;     /* ops of the window being solved (not its ghosts) */
    uint8_t *in_t_out;   /* T_k of its outgoing boundary */
    int64_t *req;        /* scratch: rows asked per tensor (lf__wj_level) */
    int32_t *touched;
    uint8_t *open;        /* lf__win_open_ops of the window being solved */
    int64_t *seen, stamp; /* scratch of lf__win_closed_reads (64-bit: never wraps) */
    /* The constraints of the run: g_out low (theta_out) in this window,
     * g_in high (theta_in) in this window; -1: none. */
    int32_t g_out, g_in;
    int64_t theta_out, theta_in;
    lf__reader_apart apart; /* readers no valid group holds together (cut_bound.c) */
} lf__wj;

/* The level of the window's ops in the set `ops` (see the top). Mirrors
 * downsets.c's lf__add; any monotone value below the floor's own terms would
 * do, this is the largest. */
static int64_t lf__wj_level(const lf__exact *x, lf__wj *j, const int32_t *ops, int32_t n)
{
    int64_t level = 0;
    int32_t n_touched = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t w = ops[i];
        if (!j->in_win[w])
            continue;
        level += x->wterm[w];
        const lf_op *op = &x->g->ops[w];
        if (j->in_t_out[w] && !x->view[w] && (op->is_output || op->n_consumers > 0)) {
            if (j->req[w] == 0)
                j->touched[n_touched++] = w;
            if (j->req[w] < 1)
                j->req[w] = 1;
        }
        for (int32_t k = 0; k < op->n_inputs; k++) {
            int32_t t = op->inputs[k];
            if (!j->in_t_out[t] || x->view[t] || lf_cost_global_operand(x->cm, w, k))
                continue;
            if (j->req[t] == 0)
                j->touched[n_touched++] = t;
            if (j->req[t] < x->kwin[w])
                j->req[t] = x->kwin[w];
        }
    }
    for (int32_t i = 0; i < n_touched; i++) {
        int32_t t = j->touched[i];
        int64_t h = x->g->ops[t].out.h, k = j->req[t] < h ? j->req[t] : h;
        level += k * x->row_bytes[t];
        j->req[t] = 0;
    }
    return level;
}

static int lf__wj_holds(const lf__exact *x, int32_t v) { return v >= 0 && x->in_s[v]; }

/* window_bound.c's connected charge: each internal tensor the part writes
 * for a reader outside it, written once, read once more when a fusable op
 * reads it; and the reads a closed part's group pays (window_reads.c). */
static void lf__wj_group(lf__exact *x)
{
    lf__wj *j = x->user;
    if (lf__win_view_staged(x)) /* no plan's part (window_views.c) */
        return;
    if (lf__wj_holds(x, j->g_out) && lf__wj_level(x, j, x->sub, x->n_sub) >= j->theta_out)
        return;
    if (lf__wj_holds(x, j->g_in)) {
        int64_t w, rows, blk;
        lf__dp_set_need_terms(x, &w, &rows, &blk);
        if (w + rows + blk + j->theta_in >= x->beta)
            return;
    }
    int64_t d = 0;
    for (int32_t i = 0; i < x->n_sub; i++) {
        int32_t p = x->sub[i];
        const lf_op *op = &x->g->ops[p];
        if (!j->internal[p])
            continue;
        int64_t times = 0;
        for (int32_t k = 0; k < op->n_consumers && times < 2; k++) {
            int32_t c = op->consumers[k];
            if (!x->in_s[c])
                times = x->fusable[c] ? 2 : 1;
        }
        if (times == 2)
            times = 1 + lf__win_reads_apart(x, &j->apart, p);
        d += times * j->bytes[p];
    }
    d += lf__win_closed_reads(x, j->open, j->internal, j->apart.any, j->bytes, j->seen, ++j->stamp);
    lf__dp_relax_min(x, &x->sbits, x->n_sub, d);
}

/* An unfusable op: a group of its own, its internal tensor read at least
 * once when a fusable op reads it. */
static void lf__wj_forced(lf__exact *x, int32_t v)
{
    lf__wj *j = x->user;
    int64_t d = 0;
    if (j->internal[v])
        for (int32_t k = 0; k < x->g->ops[v].n_consumers && d == 0; k++)
            if (x->fusable[x->g->ops[v].consumers[k]])
                d = j->bytes[v];
    lf_bitset_set(&x->sbits, v);
    lf__dp_relax_min(x, &x->sbits, 1, d);
    lf_bitset_reset(&x->sbits, v);
}

/* The relaxed optimum of universe u under j's constraints into *d
 * (LF__WJ_INF: no relaxed plan obeys them). */
static lf_status lf__wj_dp(lf__wj *j, const lf_bitset *u, const lf_exact_config *k, int64_t *d)
{
    lf__exact x;
    lf_status st = lf__dp_setup(&x, j->cm, u, k);
    if (st == LF_OK) {
        lf__win_open_ops(&x, j->internal, j->open);
        x.any_set = 0;
        x.on_group = lf__wj_group;
        x.on_forced = lf__wj_forced;
        x.user = j;
        int32_t goal = lf__dp_run(&x);
        st = x.status;
        /* Every constraint admits singletons of the window's ops, but a
         * ghost alone may be past its level: no relaxed plan then. */
        *d = st == LF_OK && goal >= 0 ? x.dram[goal] : LF__WJ_INF;
    }
    lf__dp_teardown(&x);
    return st;
}

/* The level of ops[0..n) computed in a DP set up over u (no run). */
static lf_status lf__wj_theta(lf__wj *j, const lf_bitset *u, const int32_t *ops, int32_t n, int64_t *theta)
{
    lf__exact x;
    lf_status st = lf__dp_setup(&x, j->cm, u, NULL);
    if (st == LF_OK)
        *theta = lf__wj_level(&x, j, ops, n);
    lf__dp_teardown(&x);
    return st;
}

/* The share of a constrained run of window k with `left` seconds left: in
 * proportion to the time its window took without constraints (spent[k]),
 * among the runs left (runs_k of window k, runs[i] of each window i past
 * it). The windows differ in cost by far more than their number (NasNet-A
 * at 256 KB under LBDF, ops 0-140 in windows of 36 ops: 57 ms for the first
 * window, 2 ms for the last, 0.39 s in all), and an even share failed the
 * first window's runs within a limit twice what the join needs (0.72 s:
 * 31.33 MB, 32.13 whole; docs/results/exact.md, branch naslbdf). Only which
 * runs finish moves: a run past its share keeps the window's value without
 * constraints, a floor as before. */
static double lf__wj_run_share(double left, const double *spent, const int32_t *runs, int32_t k, int32_t n_win,
                               int32_t runs_k)
{
    double all = runs_k * spent[k];
    for (int32_t i = k + 1; i < n_win; i++)
        all += runs[i] * spent[i];
    double share = all > 0 ? left * spent[k] / all : left;
    return share < 1e-3 ? 1e-3 : share;
}

lf_status lf__window_join_bound(lf_cost_model *cm, const lf_exact_config *cfg, const int32_t *win_ends,
                                int32_t n_win, int join, int64_t *lower)
{
    const lf_graph *g = lf_cost_graph(cm);
    int32_t n = g->n_ops, n_ops = 0;
    lf__wj j;
    memset(&j, 0, sizeof j);
    j.cm = cm;
    j.g = g;
    j.n = n;
    int32_t *ops = malloc(((size_t)n + 1) * sizeof *ops);
    int32_t *ends = malloc(((size_t)n + 1) * sizeof *ends);
    int32_t *gk = malloc(((size_t)n + 1) * sizeof *gk);  /* joined ghost per boundary, -1 */
    int64_t *free_of = calloc((size_t)n + 1, sizeof *free_of);
    double *spent = calloc((size_t)n + 1, sizeof *spent); /* per window: its time without constraints */
    int32_t *runs = calloc((size_t)n + 1, sizeof *runs);  /* ... and its constrained runs */
    uint8_t *redo = calloc((size_t)n + 1, 1);             /* ... past its first share */
    int64_t *theta = calloc(((size_t)n + 1) * LF__WJ_STATES, sizeof *theta);
    int32_t *ns = calloc((size_t)n + 1, sizeof *ns);
    uint8_t *charged = calloc((size_t)n + 1, 1);
    lf_bitset *us = calloc((size_t)n + 1, sizeof *us);
    j.bytes = malloc(((size_t)n + 1) * sizeof *j.bytes);
    j.cut_floor = calloc((size_t)n + 1, sizeof *j.cut_floor);
    j.internal = calloc((size_t)n + 1, 1);
    j.in_win = calloc((size_t)n + 1, 1);
    j.in_t_out = calloc((size_t)n + 1, 1);
    j.req = calloc((size_t)n + 1, sizeof *j.req);
    j.touched = malloc(((size_t)n + 1) * sizeof *j.touched);
    j.seen = calloc((size_t)n + 1, sizeof *j.seen);
    j.open = calloc((size_t)n + 1, 1);
    int ok = ops && ends && gk && free_of && spent && runs && redo && theta && ns && charged && us && j.bytes &&
             j.cut_floor && j.internal && j.in_win && j.in_t_out && j.req && j.touched && j.seen && j.open;
    lf_status st = ok ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    int64_t weights = 0;
    for (int32_t v = 0; v < n && st == LF_OK; v++) {
        j.bytes[v] = lf_cost_tensor_bytes(cm, v);
        if (g->ops[v].type == LF_OP_INPUT)
            continue;
        ops[n_ops++] = v;
        if (lf_cost_fusable(cm, v))
            weights += lf_cost_weight_bytes(cm, v);
    }
    if (st == LF_OK)
        st = lf__cut_tensor_floors_apart(cm, j.cut_floor, &j.apart);
    for (int32_t k = 0; k < n_win && st == LF_OK; k++)
        ends[k] = win_ends[k];
    if (st == LF_OK && (n_win < 1 || ends[n_win - 1] != n_ops))
        st = lf_set_error(LF_EINVAL, "windows that do not cover '%s'", g->name);
    /* Universes. */
    int32_t n_us = 0;
    for (int32_t k = 0; k < n_win && st == LF_OK; k++, n_us++) {
        int32_t from = k > 0 ? ends[k - 1] : 0;
        if ((st = lf_bitset_init(&us[k], n)) != LF_OK)
            break;
        for (int32_t i = from; i < ends[k]; i++)
            lf_bitset_set(&us[k], ops[i]);
        lf__window_ghosts(g, j.bytes, j.cut_floor, j.apart.any, ops, from, ends[k], &us[k], NULL);
    }
    /* The joined ghost of each boundary k (between windows k and k + 1). */
    for (int32_t k = 0; k + 1 < n_win && st == LF_OK; k++) {
        int32_t from = k > 0 ? ends[k - 1] : 0, best = -1;
        int64_t best_bytes = 0;
        gk[k] = -1;
        for (int32_t i = ends[k]; i < ends[k + 1]; i++) {
            int32_t c = ops[i];
            if (!lf_bitset_test(&us[k], c) || !lf_cost_fusable(cm, c))
                continue;
            int64_t b = 0;
            for (int32_t m = 0; m < g->ops[c].n_inputs; m++) {
                int32_t p = g->ops[c].inputs[m];
                if (p >= ops[from] && p < ops[ends[k] - 1] + 1)
                    b += j.bytes[p];
            }
            if (b > best_bytes) {
                best_bytes = b;
                best = c;
            }
        }
        gk[k] = join ? best : -1;
    }
    /* The path DP over boundary states: best[s], the least sum of the
     * windows so far with the last boundary in state s (0 low, 1 high; a
     * boundary without a joined ghost has state 0 alone, unconstrained). */
    int64_t best[LF__WJ_STATES], traffic = LF__WJ_INF;
    for (int b = 0; b < LF__WJ_STATES; b++)
        best[b] = b == 0 ? 0 : LF__WJ_INF;
    /* Two phases: every window without constraints (what a constrained run
     * past its limits falls back to) on half of the time, then the
     * constrained runs and the path DP. Windows differ in cost by far more
     * than their number: the first phase keeps the join from being worse
     * than the windows unjoined. In the first, each window has an even
     * share of what is left, and those past it are tried again with what
     * the cheap ones left of the half (phase 1); the constrained runs then
     * have shares in proportion to their windows' time (lf__wj_run_share). */
    double end = cfg && cfg->time_limit_s > 0 ? lf_now_seconds() + cfg->time_limit_s : 0;
    double end0 = end > 0 ? lf_now_seconds() + cfg->time_limit_s / 2 : 0;
    int32_t n_redo = 0;
    for (int phase = 0; phase < 3 && st == LF_OK; phase++)
    for (int32_t k = 0; k < n_win && st == LF_OK; k++) {
        if (phase == 1 && !redo[k])
            continue;
        int32_t from = k > 0 ? ends[k - 1] : 0;
        int32_t g_in = k > 0 ? gk[k - 1] : -1, g_out = k + 1 < n_win ? gk[k] : -1;
        for (int32_t i = from; i < ends[k]; i++) {
            const lf_op *op = &g->ops[ops[i]];
            int inside = !op->is_output && op->n_consumers > 0;
            for (int32_t m = 0; m < op->n_consumers && inside; m++)
                inside = lf_bitset_test(&us[k], op->consumers[m]);
            j.internal[ops[i]] = (uint8_t)inside;
            j.in_win[ops[i]] = 1;
        }
        int64_t cut = 0;
        for (int32_t i = from; i < ends[k]; i++)
            cut += j.internal[ops[i]] ? j.cut_floor[ops[i]] : 0;
        if (g_out >= 0) {
            /* T_k: tensors no op of U_{k+1} and no ghost of W_k touches. */
            memset(j.in_t_out, 1, (size_t)n);
            for (int32_t v = 0; v < n; v++) {
                int other = lf_bitset_test(&us[k + 1], v) || (lf_bitset_test(&us[k], v) && !j.in_win[v]);
                if (!other)
                    continue;
                j.in_t_out[v] = 0;
                for (int32_t m = 0; m < g->ops[v].n_inputs; m++)
                    j.in_t_out[g->ops[v].inputs[m]] = 0;
            }
            /* The level of boundary k: that of g's largest input p in W_k
             * alone (any level is sound). On NasNet-A it is the concat's,
             * and levels of the concat with 1-5 of its adds join no better
             * (docs/results/exact.md). */
            int32_t p = -1;
            for (int32_t m = 0; m < g->ops[g_out].n_inputs; m++) {
                int32_t q = g->ops[g_out].inputs[m];
                if (j.in_win[q] && (p < 0 || j.bytes[q] > j.bytes[p]))
                    p = q;
            }
            int64_t *th = &theta[(size_t)k * LF__WJ_STATES], t = 0;
            st = lf__wj_theta(&j, &us[k], &p, 1, &t);
            ns[k] = 1;
            if (t > 0) /* level 0: every plan is high, one state */
                th[ns[k]++] = t;
        }
        int32_t ns_in = g_in >= 0 ? ns[k - 1] : 1, ns_out = g_out >= 0 ? ns[k] : 1;
        int64_t next[LF__WJ_STATES];
        for (int b = 0; b < LF__WJ_STATES; b++)
            next[b] = LF__WJ_INF;
        if (phase == 2 && k == 0) /* the constrained runs of each window (one pair is free) */
            for (int32_t i = 0; i < n_win; i++)
                runs[i] = (i > 0 && gk[i - 1] >= 0 ? ns[i - 1] : 1) * (i + 1 < n_win && gk[i] >= 0 ? ns[i] : 1) - 1;
        if (phase < 2) { /* the window without constraints */
            lf_exact_config kc;
            lf_exact_config_default(&kc);
            if (cfg)
                kc = *cfg;
            kc.time_limit_s = 0;
            double t0 = lf_now_seconds();
            if (end0 > 0) { /* an even share of the phase's time left */
                kc.time_limit_s = (end0 - t0) / (phase == 0 ? n_win - k : n_redo--);
                if (kc.time_limit_s < 1e-3)
                    kc.time_limit_s = 1e-3;
            }
            j.g_in = j.g_out = -1;
            int64_t d = cut;
            int tried = phase == 0 || end0 - t0 > 1e-3;
            if (tried)
                st = lf__wj_dp(&j, &us[k], &kc, &d);
            spent[k] += lf_now_seconds() - t0;
            redo[k] = 0;
            if (st == LF_ELIMIT || !tried) { /* past the limits: the forced-cut floors */
                lf_clear_error();
                st = LF_OK;
                d = cut;
                /* Without a time limit a second try would fail the same way. */
                redo[k] = phase == 0 && end0 > 0;
                n_redo += redo[k];
                if (phase == 1) /* its constrained runs would fail too: the least shares */
                    spent[k] = 0;
            }
            free_of[k] = d > cut ? d : cut;
            ns_in = ns_out = 0; /* no runs below */
        }
        int64_t free_d = free_of[k];
        int pairs[LF__WJ_STATES * LF__WJ_STATES][2], n_pairs = 0;
        for (int a = 0; a < ns_in; a++)
            for (int b = 0; b < ns_out; b++)
                if (best[a] != LF__WJ_INF) {
                    pairs[n_pairs][0] = a;
                    pairs[n_pairs++][1] = b;
                }
        for (int r = 0; r < n_pairs && st == LF_OK; r++) {
            int a = pairs[r][0], b = pairs[r][1];
            /* State a of boundary k - 1: its level at least theta_a;
             * state b of boundary k: below theta_{b+1}. */
            j.g_in = a > 0 ? g_in : -1;
            j.theta_in = a > 0 ? theta[(size_t)(k - 1) * LF__WJ_STATES + a] : 0;
            j.g_out = b + 1 < ns_out ? g_out : -1;
            j.theta_out = b + 1 < ns_out ? theta[(size_t)k * LF__WJ_STATES + b + 1] : 0;
            lf_exact_config kc;
            lf_exact_config_default(&kc);
            if (cfg)
                kc = *cfg;
            kc.time_limit_s = 0;
            if (end > 0) {
                int32_t runs_k = 0; /* this window's runs left */
                for (int32_t q = r; q < n_pairs; q++)
                    runs_k += pairs[q][0] > 0 || pairs[q][1] + 1 < ns_out;
                kc.time_limit_s = lf__wj_run_share(end - lf_now_seconds(), spent, runs, k, n_win, runs_k);
            }
            int64_t d = free_d;
            if (j.g_in >= 0 || j.g_out >= 0)
                st = lf__wj_dp(&j, &us[k], &kc, &d);
            if (st == LF_ELIMIT) {
                /* Past the limits: the window without constraints. */
                lf_clear_error();
                st = LF_OK;
                d = free_d;
            }
            /* Constraints only raise a window (and its floors stay). */
            if (d != LF__WJ_INF && d < free_d)
                d = free_d;
            if (d != LF__WJ_INF && best[a] != LF__WJ_INF && best[a] + d < next[b])
                next[b] = best[a] + d;
        }
        for (int b = 0; b < LF__WJ_STATES && phase == 2; b++)
            best[b] = next[b];
        for (int32_t i = from; i < ends[k]; i++) {
            charged[ops[i]] |= j.internal[ops[i]];
            j.internal[ops[i]] = 0;
            j.in_win[ops[i]] = 0;
        }
    }
    for (int b = 0; b < LF__WJ_STATES; b++)
        traffic = best[b] < traffic ? best[b] : traffic;
    int64_t rest = 0;
    for (int32_t p = 0; p < n; p++)
        rest += charged[p] ? 0 : j.cut_floor[p];
    *lower = st == LF_OK && traffic != LF__WJ_INF ? weights + traffic + rest : 0;
    /* cleanup */
    for (int32_t k = 0; k < n_us; k++)
        lf_bitset_destroy(&us[k]);
    free(us);
    free(ops);
    free(ends);
    free(gk);
    free(theta);
    free(free_of);
    free(spent);
    free(runs);
    free(redo);
    free(ns);
    free(charged);
    free(j.bytes);
    free(j.cut_floor);
    free(j.internal);
    free(j.in_win);
    free(j.in_t_out);
    free(j.req);
    free(j.touched);
    free(j.seen);
    free(j.open);
    lf__reader_apart_free(&j.apart);
    return st;
}

/* The per-state estimate of the exact DP (issue 46): h(D), a floor of what
 * every plan still pays after its chain of downsets passes D, so that the
 * frontier bound (frontier.c) can charge each reached state its DRAM so far
 * plus h instead of per-op floors alone.
 *
 * It is the window bound of window_bound.c split by state. Cut the compute
 * ops into windows W of consecutive ids; a tensor is internal to W when its
 * op and all its readers lie in W and it is no graph output. Any plan's
 * groups after D, cut to W and split into their connected parts, form a
 * chain of admitted sets of the relaxed DP over W (parts of valid groups
 * pass the monotone floor of F_beta; two parts of one group share no edge,
 * so no internal tensor passes between them) from the state D n W to W.
 * The relaxation charges each connected part the internal tensors it writes
 * for a reader outside it, written once and read at least once when a
 * fusable op reads it, plus the weight reads beyond the first its group
 * cannot avoid (window_bound.c: "the second charge"): never more than the
 * plan's groups after D pay for them. So togo_W(D n W), the relaxed
 * distance from D n W to all of W, solved by a second pass over W's states
 * from the largest down, is a floor of that part of the rest of the plan.
 * Windows charge disjoint tensors; add each fusable op's weights read once
 * and each other tensor's forced-cut floor (cut_bound.c) for the ops not in
 * D (their tensors are written after D, and a floor is paid by the groups
 * that hold the op and its readers):
 *
 *     h(D) = sum over windows of max(togo_W(D n W), cut_W(D))
 *          + sum over compute ops v not in D of (weights of v when fusable
 *            + v's forced-cut floor when v's tensor is internal to no window
 *            solved),
 *
 * cut_W(D) being the forced-cut floors of W's internal tensors whose ops are
 * not in D: a floor of the same traffic, which sees the squeeze-and-excite
 * waits the relaxation misses (cut_bound.c, lf__wait_forced).
 *
 * At the empty state it is window_bound.c's connected pass without readers
 * past a window's end; D n W is always a state of W's DP (the parts of the
 * plan's groups before D reach it), and a missing one counts 0. */
#include "planner/exact/togo.h"

#include <stdlib.h>
#include <string.h>

#include "planner/exact/downsets.h"
#include "planner/exact/solve.h"
#include "planner/util/clock.h"

typedef struct lf__togo_win {
    lf__exact x;      /* W's relaxed DP, kept for the lookups */
    int64_t *togo;    /* per state of x: the relaxed distance to all of W */
    uint64_t *mask;   /* W's ops */
    int64_t whole;    /* togo of the empty state */
    int64_t cut_all;  /* the forced-cut floors of W's internal tensors */
} lf__togo_win;

struct lf__togo {
    int32_t nwords, n_win, n_tried;
    lf__togo_win *win;
    int64_t *base;    /* per op: weights once and the forced-cut floor left outside the windows */
    int64_t *cut;     /* per op: its forced-cut floor when its tensor is internal to a window solved */
    int64_t base_all;
    uint64_t *scratch;
    int64_t bytes;
    /* While windows are solved. */
    lf_cost_model *cm;
    uint8_t *internal;
    int64_t *bytes_of, *wbytes;
    lf_cost_tiles *tiles;
    int64_t *back;    /* the window in its second pass: its togo */
};

/* What a connected part pays (window_bound.c's lf__win_component and
 * lf__win_rereads, without readers past the window). */
static int64_t lf__togo_part(lf__exact *x)
{
    lf__togo *t = x->user;
    int64_t d = 0, weights = 0;
    for (int32_t i = 0; i < x->n_sub; i++) {
        int32_t v = x->sub[i];
        const lf_op *op = &x->g->ops[v];
        weights += t->wbytes[v];
        if (!t->internal[v])
            continue;
        int times = 0;
        for (int32_t j = 0; j < op->n_consumers && times < 2; j++) {
            int32_t c = op->consumers[j];
            if (!x->in_s[c])
                times = x->fusable[c] ? 2 : 1;
        }
        d += times * t->bytes_of[v];
    }
    int64_t term, rows, block;
    lf__dp_set_need_terms(x, &term, &rows, &block);
    if (weights > 0 && weights + rows >= x->beta)
        d += (int64_t)(lf_cost_tiles_of_set(t->tiles, x->sub, x->n_sub) - 1) * weights;
    return d;
}

/* An unfusable op: its group is not DRAM over fusable ops; its tensor is
 * read at least once when a fusable op reads it. */
static int64_t lf__togo_forced_charge(const lf__exact *x, int32_t v)
{
    const lf__togo *t = x->user;
    if (t->internal[v])
        for (int32_t j = 0; j < x->g->ops[v].n_consumers; j++)
            if (x->fusable[x->g->ops[v].consumers[j]])
                return t->bytes_of[v];
    return 0;
}

static void lf__togo_fwd_group(lf__exact *x) { lf__dp_relax_min(x, &x->sbits, x->n_sub, lf__togo_part(x)); }

static void lf__togo_fwd_forced(lf__exact *x, int32_t v)
{
    lf_bitset_set(&x->sbits, v);
    lf__dp_relax_min(x, &x->sbits, 1, lf__togo_forced_charge(x, v));
    lf_bitset_reset(&x->sbits, v);
}

static void lf__togo_back_min(lf__exact *x, int64_t d)
{
    lf__togo *t = x->user;
    int32_t s = lf__dp_target_find(x, &x->sbits);
    if (s >= 0 && t->back[s] != INT64_MAX && t->back[s] + d < t->back[x->cur])
        t->back[x->cur] = t->back[s] + d;
}

static void lf__togo_back_group(lf__exact *x) { lf__togo_back_min(x, lf__togo_part(x)); }

static void lf__togo_back_forced(lf__exact *x, int32_t v)
{
    lf_bitset_set(&x->sbits, v);
    lf__togo_back_min(x, lf__togo_forced_charge(x, v));
    lf_bitset_reset(&x->sbits, v);
}

/* Both passes over window ops[from..to) within `share` seconds (0: none):
 * 1 when solved (w filled), 0 past the limits, -1 out of memory. */
static int lf__togo_window(lf__togo *t, const int32_t *ops, int32_t from, int32_t to, double share,
                           lf__togo_win *w)
{
    const lf_graph *g = lf_cost_graph(t->cm);
    lf_bitset u;
    if (lf_bitset_init(&u, g->n_ops) != LF_OK)
        return -1;
    for (int32_t i = from; i < to; i++)
        lf_bitset_set(&u, ops[i]);
    for (int32_t i = from; i < to; i++) {
        const lf_op *op = &g->ops[ops[i]];
        int inside = !op->is_output && op->n_consumers > 0;
        for (int32_t j = 0; j < op->n_consumers && inside; j++)
            inside = lf_bitset_test(&u, op->consumers[j]);
        t->internal[ops[i]] = (uint8_t)inside;
    }
    lf_exact_config k;
    lf_exact_config_default(&k);
    k.time_limit_s = share;
    k.memory_limit = 0;
    memset(w, 0, sizeof *w);
    lf_status st = lf__dp_setup(&w->x, t->cm, &u, &k);
    int ok = 0;
    if (st == LF_OK) {
        w->x.user = t;
        w->x.on_group = lf__togo_fwd_group;
        w->x.on_forced = lf__togo_fwd_forced;
        int32_t goal = lf__dp_run(&w->x);
        st = w->x.status;
        if (st == LF_OK && goal >= 0 && w->x.dram[goal] != INT64_MAX) {
            w->togo = malloc((size_t)w->x.n_states * sizeof *w->togo);
            w->mask = malloc((size_t)t->nwords * 8);
            if (!w->togo || !w->mask) {
                st = lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
            } else {
                for (int64_t s = 0; s < w->x.n_states; s++)
                    w->togo[s] = s == goal ? 0 : INT64_MAX;
                memcpy(w->mask, u.words, (size_t)t->nwords * 8);
                t->back = w->togo;
                w->x.on_group = lf__togo_back_group;
                w->x.on_forced = lf__togo_back_forced;
                st = lf__dp_run_back(&w->x);
                w->whole = w->togo[0]; /* the empty state is the first */
                /* Both passes see the same sets: the distance to W from the
                 * empty state is the forward optimum. */
                ok = st == LF_OK && w->whole == w->x.dram[goal];
            }
        }
    }
    lf_bitset_destroy(&u);
    for (int32_t i = from; i < to; i++)
        t->internal[ops[i]] = ok ? t->internal[ops[i]] : 0;
    if (!ok) {
        lf__dp_teardown(&w->x);
        free(w->togo);
        free(w->mask);
        memset(w, 0, sizeof *w);
    }
    if (st == LF_ENOMEM)
        return -1;
    if (st != LF_OK)
        lf_clear_error();
    return ok;
}

lf_status lf__togo_create(lf_cost_model *cm, int32_t window_ops, double seconds, lf__togo **out)
{
    const lf_graph *g = lf_cost_graph(cm);
    int32_t n = g->n_ops, n_ops = 0;
    double end = seconds > 0 ? lf_now_seconds() + seconds : 0;
    *out = NULL;
    lf__togo *t = calloc(1, sizeof *t);
    int32_t *ops = malloc(((size_t)n + 1) * sizeof *ops);
    int64_t *floor = calloc((size_t)n + 1, sizeof *floor);
    if (t) {
        t->cm = cm;
        t->nwords = (n + 63) / 64;
        t->base = calloc((size_t)n + 1, sizeof *t->base);
        t->cut = calloc((size_t)n + 1, sizeof *t->cut);
        t->scratch = calloc((size_t)t->nwords + 1, 8);
        t->internal = calloc((size_t)n + 1, 1);
        t->bytes_of = malloc(((size_t)n + 1) * sizeof *t->bytes_of);
        t->wbytes = calloc((size_t)n + 1, sizeof *t->wbytes);
        t->win = calloc((size_t)n + 1, sizeof *t->win);
    }
    lf_status st = t && ops && floor && t->base && t->cut && t->scratch && t->internal && t->bytes_of && t->wbytes &&
                           t->win
                       ? LF_OK
                       : lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
    if (st == LF_OK)
        st = lf__cut_tensor_floors(cm, floor);
    if (st == LF_OK)
        st = lf__tiles_create_sharp(cm, &t->tiles);
    for (int32_t v = 0; v < n && st == LF_OK; v++) {
        t->bytes_of[v] = lf_cost_tensor_bytes(cm, v);
        if (g->ops[v].type == LF_OP_INPUT)
            continue;
        ops[n_ops++] = v;
        if (lf_cost_fusable(cm, v))
            t->wbytes[v] = lf_cost_weight_bytes(cm, v);
    }
    /* Windows in order, each with an even share of what is left. */
    int32_t n_win = 0;
    for (int32_t from = 0; from < n_ops && st == LF_OK;) {
        int32_t to = lf__window_end(g, t->bytes_of, ops, n_ops, from, window_ops);
        n_win++;
        from = to;
    }
    for (int32_t from = 0, left = n_win; from < n_ops && st == LF_OK; left--) {
        int32_t to = lf__window_end(g, t->bytes_of, ops, n_ops, from, window_ops);
        double share = 0;
        if (end > 0) {
            share = (end - lf_now_seconds()) / left;
            if (share <= 0)
                break;
        }
        t->n_tried++;
        int r = lf__togo_window(t, ops, from, to, share, &t->win[t->n_win]);
        if (r < 0)
            st = lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
        else if (r > 0) {
            lf__togo_win *w = &t->win[t->n_win++];
            for (int32_t i = from; i < to; i++)
                if (t->internal[ops[i]]) {
                    t->cut[ops[i]] = floor[ops[i]];
                    w->cut_all += floor[ops[i]];
                }
            t->bytes += w->x.n_states * (int64_t)(t->nwords * 24 + 8);
        }
        from = to;
    }
    for (int32_t i = 0; i < n_ops && st == LF_OK; i++) {
        int32_t v = ops[i];
        t->base[v] = t->wbytes[v] + (t->internal[v] ? 0 : floor[v]);
        t->base_all += t->base[v];
    }
    free(ops);
    free(floor);
    if (t) {
        lf_cost_tiles_free(t->tiles);
        t->tiles = NULL;
        free(t->internal);
        t->internal = NULL;
        free(t->bytes_of);
        t->bytes_of = NULL;
        free(t->wbytes);
        t->wbytes = NULL;
    }
    if (st != LF_OK) {
        lf__togo_free(t);
        return st;
    }
    *out = t;
    return LF_OK;
}

void lf__togo_free(lf__togo *t)
{
    if (!t)
        return;
    for (int32_t i = 0; t->win && i < t->n_win; i++) {
        lf__dp_teardown(&t->win[i].x);
        free(t->win[i].togo);
        free(t->win[i].mask);
    }
    free(t->win);
    free(t->base);
    free(t->cut);
    free(t->scratch);
    free(t->internal);
    free(t->bytes_of);
    free(t->wbytes);
    lf_cost_tiles_free(t->tiles);
    free(t);
}

int64_t lf__togo_h(const lf__togo *t, const uint64_t *words)
{
    int64_t h = t->base_all;
    for (int32_t i = 0; i < t->nwords; i++)
        for (uint64_t b = words[i]; b; b &= b - 1)
            h -= t->base[i * 64 + __builtin_ctzll(b)];
    for (int32_t k = 0; k < t->n_win; k++) {
        const lf__togo_win *w = &t->win[k];
        int any = 0, all = 1;
        int64_t cut = w->cut_all;
        for (int32_t i = 0; i < t->nwords; i++) {
            uint64_t in = words[i] & w->mask[i];
            t->scratch[i] = in;
            any |= in != 0;
            all &= in == w->mask[i];
            for (uint64_t b = in; b; b &= b - 1)
                cut -= t->cut[i * 64 + __builtin_ctzll(b)];
        }
        /* W's internal tensors not yet written move at least their
         * forced-cut floors after D, all of it paid by the groups after D:
         * a floor of the same traffic as togo_W's (the relaxation does not
         * see a squeeze-and-excite wait: cut_bound.c). */
        int64_t part = 0;
        if (!any) {
            part = w->whole;
        } else if (!all) {
            int32_t s = lf__dp_find(&w->x, t->scratch);
            part = s >= 0 && w->togo[s] != INT64_MAX ? w->togo[s] : 0;
        }
        h += part > cut ? part : cut;
    }
    return h;
}

void lf__togo_stats(const lf__togo *t, int32_t *windows, int32_t *solved, int64_t *bytes)
{
    *windows = t->n_tried;
    *solved = t->n_win;
    *bytes = t->bytes;
}

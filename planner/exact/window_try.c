/* One try at a window (lf__win_try): its universe with the readers past its
 * end solved with it (window_ghosts.c), the relaxed DP under both charges
 * (window_charge.c), and what a solved window charges and claims. The
 * passes that cut the ops into windows (window_bound.c) and the cones of
 * their merges (window_cone.c) both try windows through it. */
#include <stdlib.h>
#include <string.h>

#include "planner/exact/downsets.h"
#include "planner/exact/set_memo.h"
#include "planner/exact/solve.h"
#include "planner/exact/window_reads.h"
#include "planner/exact/window_win.h"

/* The relaxed optima of window u under both charges (*d_any, *d_conn), or
 * LF_ELIMIT past k's limits. With w->connected only the second, over the
 * connected sets alone (its parts are connected: grown as such, far fewer
 * than the ideals on wide graphs), and *d_any is 0: the first charge over
 * connected sets would pay an input shared by two components twice. */
static lf_status lf__win_dp(lf__win *w, const lf_bitset *u, const lf_exact_config *k, int64_t *d_any,
                            int64_t *d_conn, int64_t *candidates)
{
    lf__exact x;
    lf_status st = lf__dp_setup(&x, w->cm, u, k);
    lf__set_memo_clear(&w->rereads); /* another window: other ghosts, claims, internal tensors */
    if (w->conn)
        for (int64_t i = 0; i < w->cap_conn; i++)
            w->conn[i] = i == 0 ? 0 : INT64_MAX;
    if (st == LF_OK) {
        lf__win_open_ops(&x, w->internal, w->open);
        lf__win_out_ops(&x, w->reach.outs);
        x.any_set = !w->connected;
        x.tell_connected = 1;
        x.on_group = lf__win_group;
        x.on_forced = lf__win_forced;
        x.user = w;
        int32_t goal = lf__dp_run(&x);
        st = x.status;
        *candidates = x.st.candidates;
        if (st == LF_OK && (goal < 0 || x.dram[goal] == INT64_MAX))
            st = lf_set_error(LF_EPLAN, "no relaxed plan of a window of '%s'", w->g->name);
        if (st == LF_OK) {
            *d_any = w->connected ? 0 : x.dram[goal];
            int64_t *c = lf__win_conn(&x, w, goal);
            *d_conn = c && *c != INT64_MAX ? *c : 0;
            st = x.status;
        }
    }
    lf__dp_teardown(&x);
    return st;
}

/* The window's ghosts (window_ghosts.c), flagged in w. */
static int32_t lf__win_ghosts(lf__win *w, const int32_t *ops, int32_t from, int32_t to, lf_bitset *u)
{
    int32_t n_ghosts = lf__window_ghosts(w->g, w->bytes, w->cut_floor, w->apart.any, ops, from, to, u, w->ghost_list);
    for (int32_t i = 0; i < n_ghosts; i++)
        w->ghost[w->ghost_list[i]] = 1;
    return n_ghosts;
}

/* One try at the window of compute ops ops[from..to) within `share`
 * seconds (0: no limit), under both charges (each a floor: the larger
 * counts): LF_OK when solved (its tensors charged), LF_ELIMIT past the
 * limits (nothing charged, the error cleared). */
lf_status lf__win_try(lf__win *w, const int32_t *ops, int32_t from, int32_t to, double share,
                      int64_t max_candidates)
{
    const lf_graph *g = w->g;
    lf_bitset u;
    lf_status st = lf_bitset_init(&u, g->n_ops);
    if (st != LF_OK)
        return st;
    for (int32_t i = from; i < to; i++)
        lf_bitset_set(&u, ops[i]);
    int32_t n_ghosts = lf__win_ghosts(w, ops, from, to, &u);
    for (int32_t i = from; i < to; i++)
        w->mine[ops[i]] = !w->claimed[ops[i]];
    for (int32_t i = 0; i < n_ghosts; i++)
        w->mine[w->ghost_list[i]] = !w->claimed[w->ghost_list[i]];
    for (int32_t i = from; i < to; i++) {
        const lf_op *op = &g->ops[ops[i]];
        int inside = !op->is_output && op->n_consumers > 0;
        for (int32_t j = 0; j < op->n_consumers && inside; j++)
            inside = lf_bitset_test(&u, op->consumers[j]);
        w->internal[ops[i]] = (uint8_t)inside;
    }
    lf_exact_config k = w->total;
    k.time_limit_s = share;
    if (max_candidates > 0 && (k.max_candidates <= 0 || max_candidates < k.max_candidates))
        k.max_candidates = max_candidates;
    int64_t d_any = 0, d_conn = 0, candidates = 0;
    st = lf__win_dp(w, &u, &k, &d_any, &d_conn, &candidates);
    w->last_candidates = candidates;
    if (w->recording)
        w->tried_end[to] = 1;
    lf_bitset_destroy(&u);
    if (st == LF_OK) {
        w->windows++;
        w->solved++;
        /* The forced-cut floors of the tensors charged here are a floor of
         * the same traffic (the relaxation does not see a squeeze-and-excite
         * wait: cut_bound.c, lf__wait_forced). */
        int64_t d = d_any > d_conn ? d_any : d_conn, cut = 0;
        for (int32_t i = from; i < to; i++)
            cut += w->internal[ops[i]] ? w->cut_floor[ops[i]] : 0;
        w->last_charge = d > cut ? d : cut;
        w->traffic += w->last_charge;
        if (w->keep_from) { /* its record (lf__window_lower_bound_keep) */
            w->keep_from[w->n_keep] = from;
            w->keep_to[w->n_keep] = to;
            w->keep_excess[w->n_keep++] = w->last_charge - cut;
        }
        if (w->recording) { /* window_cone.c */
            w->rec_from[w->n_rec] = from;
            w->rec_to[w->n_rec] = to;
            w->rec_charge[w->n_rec++] = w->last_charge;
        }
        for (int32_t i = from; i < to; i++)
            w->charged[ops[i]] |= w->internal[ops[i]];
        /* The weights it charged re-reads of are its own from now on. */
        w->n_claims = 0;
        for (int32_t i = from; i < to + n_ghosts; i++) {
            int32_t v = i < to ? ops[i] : w->ghost_list[i - to];
            if (w->mine[v]) {
                w->claimed[v] = 1;
                w->claim_from[v] = from;
                w->claims[w->n_claims++] = v;
            }
        }
    }
    for (int32_t i = from; i < to; i++)
        w->mine[ops[i]] = 0;
    for (int32_t i = 0; i < n_ghosts; i++)
        w->mine[w->ghost_list[i]] = 0;
    for (int32_t i = from; i < to; i++)
        w->internal[ops[i]] = 0;
    for (int32_t i = 0; i < n_ghosts; i++)
        w->ghost[w->ghost_list[i]] = 0;
    if (st == LF_ELIMIT)
        lf_clear_error();
    return st;
}

/* Certified bounds on the exact optimum from blocks between articulation ops
 * (see exact.h and docs/search.md "Certified bounds").
 *
 * Under energy or latency the upper bound is the block plan's figure (the
 * block DPs minimise the cost model's objective; a block past its limits
 * adds its ops' figures alone), and the lower bounds are proven in DRAM
 * bytes as under DRAM, then priced by lf_cost_objective_dram_floor
 * (objective.h): every valid plan moves at least that many bytes, so its
 * figure is at least the price of them with the network's MACs and the
 * buffer traffic every schedule has. */
#include <stdlib.h>
#include <string.h>

#include "planner/cost/objective.h"

#include "planner/exact/downsets.h"
#include "planner/exact/solve.h"
#include "planner/util/clock.h"

/* Articulation ops: cut ops c such that every op after c reads only tensors
 * of c and of ops after c (so splitting a group at c adds at most c's output
 * written once and read once). Marks them in art (n entries). */
static lf_status lf__articulation(const lf_graph *g, uint8_t *art)
{
    int32_t n = g->n_ops;
    uint8_t *in_u = calloc((size_t)n + 1, 1);
    if (!in_u)
        return lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    for (int32_t v = 0; v < n; v++)
        in_u[v] = g->ops[v].type != LF_OP_INPUT;
    if (lf__dp_cut_ops(g, in_u, art) < 0) {
        free(in_u);
        return lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    }
    /* low: the smallest input of any op after v (a graph input counts as -1). */
    int32_t low = n;
    for (int32_t v = n - 1; v >= 0; v--) {
        if (art[v] && low < v)
            art[v] = 0;
        const lf_op *op = &g->ops[v];
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t p = in_u[op->inputs[j]] ? op->inputs[j] : -1;
            if (p < low)
                low = p;
        }
    }
    free(in_u);
    return LF_OK;
}

/* The relaxed block DP: every candidate set (connected or not; the
 * enumeration only offers sets whose F_beta bound is below beta), charged
 * its inputs, outputs and weights once, and under BRR the weight reads
 * beyond the first that any group holding it pays (its tile floor, when
 * its weights and the floor of its windows reach beta: window_bound.c). */
static void lf__relaxed_group(lf__exact *x)
{
    lf_group_cost c;
    lf_status s = lf__dp_set_holds_cut(x) ? lf_cost_eval_once(x->cm, &x->sbits, &c)
                                          : lf_cost_eval(x->cm, &x->sbits, &c);
    if (s != LF_OK) {
        x->status = s;
        return;
    }
    int64_t rereads = 0, term, rows, block;
    lf__dp_set_need_terms(x, &term, &rows, &block);
    if (x->user && c.weights > 0 && c.weights + rows >= lf_cost_beta(x->cm))
        rereads = (int64_t)(lf_cost_tiles_of_set(x->user, x->sub, x->n_sub) - 1) * c.weights;
    lf__dp_relax_min(x, &x->sbits, x->n_sub, c.in_bytes + c.out_bytes + c.weights + rereads);
}

static void lf__relaxed_forced(lf__exact *x, int32_t v)
{
    lf_bitset_set(&x->sbits, v);
    lf__dp_relax_min(x, &x->sbits, 1, 0);
    lf_bitset_reset(&x->sbits, v);
}

lf_status lf__relaxed_solve(lf_cost_model *cm, lf_cost_tiles *tiles, const lf_bitset *u,
                            const lf_exact_config *cfg, int64_t *lower)
{
    lf__exact x;
    lf_status st = lf__dp_setup(&x, cm, u, cfg);
    if (st == LF_OK) {
        x.any_set = 1;
        x.user = tiles;
        x.on_group = lf__relaxed_group;
        x.on_forced = lf__relaxed_forced;
        int32_t goal = lf__dp_run(&x);
        st = x.status;
        if (st == LF_OK && (goal < 0 || x.dram[goal] == INT64_MAX))
            st = lf_set_error(LF_EPLAN, "no relaxed plan of a block of '%s'", x.g->name);
        if (st == LF_OK)
            *lower = x.dram[goal];
    }
    lf__dp_teardown(&x);
    return st;
}

/* What the block computations share. */
typedef struct lf__bctx {
    lf_cost_model *cm;
    const lf_graph *g;
    const uint8_t *art;
    lf_exact_config total;
    double t0;
    lf_plan *plan;
    lf_bitset u, one;
    lf_cost_tiles *tiles; /* weight-read floors of the relaxed DPs */
    int32_t out_of_time;  /* DPs skipped: the deadline had passed */
    int handover;         /* 1: a first block that runs out hands the rest on */
    int handed;           /* ... and it did: no more DPs here */
} lf__bctx;

/* 1 (and counted) when the shared deadline has passed: the DP is not run. */
static int lf__late(lf__bctx *c)
{
    if (c->handed || (c->total.deadline > 0 && lf_now_seconds() >= c->total.deadline)) {
        c->out_of_time++;
        return 1;
    }
    return 0;
}

/* The block of compute ops in [from, to] into c->u. */
static void lf__range(lf__bctx *c, int32_t from, int32_t to)
{
    lf_bitset_clear_all(&c->u);
    for (int32_t v = from; v <= to; v++)
        if (c->g->ops[v].type != LF_OP_INPUT)
            lf_bitset_set(&c->u, v);
}

/* A DP's limits with `seconds` of wall time (0: none when the total has none). */
static lf_exact_config lf__limits(const lf__bctx *c, double seconds)
{
    lf_exact_config k = c->total;
    if (k.time_limit_s > 0)
        k.time_limit_s = seconds > 1e-3 ? seconds : 1e-3;
    return k;
}

static double lf__left(const lf__bctx *c)
{
    return c->total.time_limit_s > 0 ? c->total.time_limit_s - (lf_now_seconds() - c->t0) : 0;
}

static lf_status lf__one(lf__bctx *c, int32_t v, lf_group_cost *gc)
{
    lf_bitset_set(&c->one, v);
    lf_status st = lf_cost_eval(c->cm, &c->one, gc);
    lf_bitset_reset(&c->one, v);
    return st;
}

/* Articulation ops strictly inside [from, to) that split it into atoms. */
static int32_t lf__inner_cuts(const lf__bctx *c, int32_t from, int32_t to)
{
    int32_t k = 0;
    for (int32_t v = from; v < to; v++)
        k += c->art[v];
    return k;
}

/* Upper bound of the block [from, to]: its own optimum, or (split) each of
 * its atoms' optima, or each op alone (a fusable op fits alone). The groups
 * go into c->plan. */
static lf_status lf__upper(lf__bctx *c, int32_t from, int32_t to, double seconds, int split,
                           int64_t *up, int32_t *exact)
{
    lf__range(c, from, to);
    lf_exact_config k = lf__limits(c, seconds);
    lf_plan bp;
    int64_t d = 0;
    double t = lf_now_seconds();
    int ran = !lf__late(c) && (c->total.time_limit_s <= 0 || seconds > 0);
    if (ran && lf__exact_solve(c->cm, &c->u, &k, &bp, &d, NULL) == LF_OK) {
        int32_t base = c->plan->n_groups;
        for (int32_t w = 0; w < c->g->n_ops; w++)
            if (bp.group_of[w] >= 0) {
                c->plan->group_of[w] = base + bp.group_of[w];
                if (c->plan->group_of[w] + 1 > c->plan->n_groups)
                    c->plan->n_groups = c->plan->group_of[w] + 1;
            }
        lf_plan_destroy(&bp);
        *up += d;
        *exact += 1;
        return LF_OK;
    }
    /* With a time limit, a first block whose DP stopped unsolved (at its
     * share, or early at its pace) predicts the rest: its atoms share what
     * is left of the block's share (not all that is left), then its relaxed
     * DP and the later blocks are not run, and the caller's windows take
     * their time (NasNet-A at 256 KB under BRR: the first block's DP gave
     * up at its pace in 0.14 s, its atoms in 1.4 s, then its relaxed DP
     * took the rest of the blocks' half, 5.3 s of wall, for a lower bound
     * of the weights alone; RandWire's atoms took all of it). A block
     * solved first keeps them (PP-OCRv4 detection solves its first block). */
    int hand = ran && split && c->handover && *exact == 0 && c->total.time_limit_s > 0;
    double block_end = t + seconds;
    int32_t atoms = lf__inner_cuts(c, from, to) + 1;
    if (split && atoms > 1) {
        int32_t whole = 0; /* atoms solved do not count as blocks solved */
        for (int32_t a = from, v = from; v <= to; v++)
            if (c->art[v] || v == to) {
                double share = hand ? block_end - lf_now_seconds() : lf__left(c);
                lf_status st = lf__upper(c, a, v, (share > 0 ? share : 0) / atoms--, 0, up, &whole);
                if (st != LF_OK)
                    return st;
                a = v + 1;
            }
        c->handed |= hand;
        return LF_OK;
    }
    c->handed |= hand;
    for (int32_t v = from; v <= to; v++) {
        if (c->g->ops[v].type == LF_OP_INPUT)
            continue;
        c->plan->group_of[v] = c->plan->n_groups++;
        lf_group_cost gc;
        if (!lf_cost_fusable(c->cm, v))
            continue;
        lf_status st = lf__one(c, v, &gc);
        if (st != LF_OK)
            return st;
        *up += lf_cost_objective_value(c->cm, &v, 1, &gc); /* F_D under DRAM */
    }
    return LF_OK;
}

/* Twice the output of articulation op v when a group may span it. */
static lf_status lf__saving(lf__bctx *c, int32_t v, int64_t *saving)
{
    if (!c->art[v] || c->g->ops[v].n_consumers == 0 || !lf_cost_fusable(c->cm, v))
        return LF_OK;
    lf_group_cost gc;
    lf_status st = lf__one(c, v, &gc);
    *saving += 2 * gc.out_bytes;
    return st;
}

/* Lower bound of the block [from, to] before the savings of its end: its
 * relaxed optimum, or (split) its atoms' minus their inner cuts' savings,
 * or the weight bytes of its fusable ops (each weight is read at least
 * once). */
static lf_status lf__lower(lf__bctx *c, int32_t from, int32_t to, double seconds, int split,
                           int64_t *lo, int32_t *exact)
{
    lf__range(c, from, to);
    lf_exact_config k = lf__limits(c, seconds);
    int64_t d = 0;
    if (!lf__late(c) && (c->total.time_limit_s <= 0 || seconds > 0) &&
        lf__relaxed_solve(c->cm, c->tiles, &c->u, &k, &d) == LF_OK) {
        *lo += d;
        *exact += 1;
        return LF_OK;
    }
    int32_t atoms = lf__inner_cuts(c, from, to) + 1;
    if (split && atoms > 1) {
        int64_t saving = 0, sum = 0;
        int32_t whole = 0;
        for (int32_t a = from, v = from; v <= to; v++)
            if (c->art[v] || v == to) {
                lf_status st = lf__lower(c, a, v, lf__left(c) / atoms--, 0, &sum, &whole);
                if (st == LF_OK && v != to)
                    st = lf__saving(c, v, &saving);
                if (st != LF_OK)
                    return st;
                a = v + 1;
            }
        *lo += sum - saving;
        return LF_OK;
    }
    for (int32_t v = from; v <= to; v++) {
        lf_group_cost gc;
        if (c->g->ops[v].type == LF_OP_INPUT || !lf_cost_fusable(c->cm, v))
            continue;
        lf_status st = lf__one(c, v, &gc);
        if (st != LF_OK)
            return st;
        *lo += gc.weights;
    }
    return LF_OK;
}

double lf_exact_bounds_gap(const lf_exact_bounds *b)
{
    if (b->upper <= b->lower)
        return 0.0;
    return b->lower > 0 ? 100.0 * (double)(b->upper - b->lower) / (double)b->lower : 100.0;
}

/* lf_exact_bounds_compute; handover: 1 when the caller's windows take what
 * the blocks leave (lf_exact_bounds_certify_spare). */
static lf_status lf__bounds_compute(lf_cost_model *cm, const lf_exact_config *cfg, int32_t min_block_ops,
                                    int handover, lf_plan *plan, lf_exact_bounds *b)
{
    if (min_block_ops <= 0)
        min_block_ops = LF_EXACT_BOUNDS_BLOCK_OPS;
    lf__bctx c;
    memset(&c, 0, sizeof c);
    c.cm = cm;
    c.g = lf_cost_graph(cm);
    c.t0 = lf_now_seconds();
    c.plan = plan;
    c.handover = handover;
    lf_exact_config_default(&c.total);
    if (cfg)
        c.total = *cfg;
    /* The shared deadline tightens the time the blocks share. */
    if (c.total.deadline > 0) {
        double left = c.total.deadline - c.t0;
        if (c.total.time_limit_s <= 0 || left < c.total.time_limit_s)
            c.total.time_limit_s = left > 1e-9 ? left : 1e-9;
    }
    memset(b, 0, sizeof *b);
    int32_t n = c.g->n_ops;
    uint8_t *art = calloc((size_t)n + 1, 1);
    int32_t *ends = calloc((size_t)n + 1, sizeof *ends), n_blocks = 0;
    c.art = art;
    lf_status st = art && ends ? lf_bitset_init(&c.u, n) : lf_set_error(LF_ENOMEM, "out of memory");
    if (st == LF_OK && (st = lf_bitset_init(&c.one, n)) == LF_OK &&
        (st = lf__articulation(c.g, art)) == LF_OK && (st = lf__tiles_create_sharp(cm, &c.tiles)) == LF_OK)
        st = lf_plan_init(plan, n);
    if (st != LF_OK) {
        free(art);
        free(ends);
        lf_bitset_destroy(&c.u);
        lf_bitset_destroy(&c.one);
        lf_cost_tiles_free(c.tiles);
        return st;
    }
    /* Block ends: articulation ops once the block is big enough, and the
     * last compute op. */
    int32_t last = -1, in_block = 0;
    for (int32_t v = 0; v < n; v++)
        if (c.g->ops[v].type != LF_OP_INPUT)
            last = v;
    for (int32_t v = 0; v < n; v++) {
        if (c.g->ops[v].type == LF_OP_INPUT)
            continue;
        if ((art[v] && ++in_block >= min_block_ops) || v == last) {
            ends[n_blocks++] = v;
            in_block = 0;
        } else if (!art[v]) {
            in_block++;
        }
    }
    int64_t saving = 0;
    /* Each block has an equal share of what is left of the time limit, half
     * for each bound. */
    for (int32_t k = 0, from = 0; k < n_blocks && st == LF_OK; k++) {
        int32_t to = ends[k];
        b->blocks++;
        st = lf__upper(&c, from, to, lf__left(&c) / (2 * (n_blocks - k)), 1, &b->upper,
                       &b->blocks_exact);
        if (st == LF_OK)
            st = lf__lower(&c, from, to, lf__left(&c) / (2 * (n_blocks - k) - 1), 1, &b->lower,
                           &b->blocks_lower);
        if (st == LF_OK && to != last)
            st = lf__saving(&c, to, &saving);
        from = to + 1;
    }
    /* Every plan reads each weight of a fusable op at least once, whatever
     * the cuts: a floor when blocks past their limits leave little else
     * (NasNet-A at 256 KB: the cut savings exceed what they contribute). */
    int64_t weights = 0;
    for (int32_t v = 0; v < n && st == LF_OK; v++) {
        lf_group_cost gc;
        if (c.g->ops[v].type == LF_OP_INPUT || !lf_cost_fusable(cm, v))
            continue;
        if ((st = lf__one(&c, v, &gc)) == LF_OK)
            weights += gc.weights;
    }
    if (st == LF_OK) {
        b->lower -= saving;
        if (b->lower < weights)
            b->lower = weights;
        b->lower = lf_cost_objective_plan_floor(cm, b->lower); /* bytes under DRAM */
        lf_plan_canonicalize(plan);
    } else {
        lf_plan_destroy(plan);
    }
    b->out_of_time = c.out_of_time;
    b->wall_s = lf_now_seconds() - c.t0;
    lf_bitset_destroy(&c.u);
    lf_bitset_destroy(&c.one);
    lf_cost_tiles_free(c.tiles);
    free(art);
    free(ends);
    return st;
}

lf_status lf_exact_bounds_compute(lf_cost_model *cm, const lf_exact_config *cfg,
                                  int32_t min_block_ops, lf_plan *plan, lf_exact_bounds *b)
{
    return lf__bounds_compute(cm, cfg, min_block_ops, 0, plan, b);
}

lf_status lf_exact_bounds_certify(lf_cost_model *cm, const lf_exact_config *cfg, lf_plan *plan,
                                  lf_exact_bounds *b)
{
    return lf_exact_bounds_certify_spare(cm, cfg, 0, plan, b);
}

lf_status lf_exact_bounds_certify_spare(lf_cost_model *cm, const lf_exact_config *cfg, double spare_s,
                                        lf_plan *plan, lf_exact_bounds *b)
{
    lf_exact_config half;
    lf_exact_config_default(&half);
    if (cfg)
        half = *cfg;
    /* Half of the time limit for the blocks, the rest and the spare time for
     * the windows: where the blocks finish they take less; where the DP
     * stopped early (NasNet-A, RandWire), so do the blocks, and the windows'
     * bound is the one that counts (NasNet-A LBDF 256 KB, --time-limit 4:
     * 48.5 MB with half of the limit, 59.7 with the spare time too). */
    double whole = half.time_limit_s > 0 ? half.time_limit_s + (spare_s > 0 ? spare_s : 0) : 0;
    double t0 = lf_now_seconds();
    if (half.deadline > 0 && (whole <= 0 || half.deadline - t0 < whole))
        whole = half.deadline - t0 > 1e-9 ? half.deadline - t0 : 1e-9;
    half.time_limit_s = whole / 2; /* the other limits hold per DP */
    /* With a time limit, a first block that stops unsolved ends the
     * blocks after its atoms (lf__upper): the windows take the rest. */
    lf_status st = lf__bounds_compute(cm, &half, 0, 1, plan, b);
    if (st != LF_OK)
        return st;
    b->lower_blocks = b->lower;
    /* One balanced cut per segment between cut ops: no search, a few
     * max-flows, so it runs whatever time is left (RandWire at 256 KB under
     * LBDF: 5.44 MB in 0.02 s, where the windows prove 4.45). */
    int64_t bal = 0;
    if ((st = lf__balance_lower_bound(cm, &bal)) != LF_OK) {
        lf_plan_destroy(plan);
        return st;
    }
    b->lower_balance = lf_cost_objective_plan_floor(cm, bal); /* bytes under DRAM */
    /* The windows take what the blocks left of the whole limit. */
    if (half.time_limit_s > 0) {
        half.time_limit_s = whole - (lf_now_seconds() - t0);
        if (half.time_limit_s < 1e-3)
            half.time_limit_s = 1e-3;
    }
    lf__window_stats ws;
    memset(&ws, 0, sizeof ws);
    lf__win_charges wc[LF__WIN_KEPT];
    memset(wc, 0, sizeof wc);
    if (half.deadline > 0 && lf_now_seconds() >= half.deadline)
        b->out_of_time++; /* no time for the windows: the blocks' bound stands */
    else
        st = lf__window_lower_bound_keep(cm, &half, 0, &ws, wc);
    /* Each pass's windows and the cuts segment by segment: each segment
     * keeps the better of its windows' charges and its cut, the windows'
     * tensors left out of it (RandWire at 256 KB: the windows charge in
     * conv5 alone, the cut in every stage). No search, a few max-flows a
     * pass kept. It is at most the cuts' bound plus the pass's charges
     * past the floors (dropping a window's tensors from a cut never raises
     * it), so a pass that cannot pass the windows' bound or the cuts' is
     * skipped (the CNNs, NasNet-A, PP-OCRv4: the cuts add little there). */
    for (int32_t i = 0; i < LF__WIN_KEPT; i++) {
        int64_t both = 0, excess = 0;
        for (int32_t r = 0; r < wc[i].n; r++)
            excess += wc[i].excess[r];
        if (st == LF_OK && wc[i].n > 0 && bal + excess > (ws.lower > bal ? ws.lower : bal) &&
            (st = lf__balance_window_bound(cm, &wc[i], &both)) == LF_OK) {
            both = lf_cost_objective_plan_floor(cm, both);
            if (both > b->lower_balance)
                b->lower_balance = both;
        }
        lf__win_charges_free(&wc[i]);
    }
    if (st != LF_OK) {
        lf_plan_destroy(plan);
        return st;
    }
    b->lower_windows = lf_cost_objective_plan_floor(cm, ws.lower); /* bytes under DRAM */
    b->window_ops = ws.window_ops;
    b->windows = ws.windows;
    b->windows_solved = ws.windows_solved;
    b->windows_halved = ws.halved;
    b->windows_grown = ws.grown;
    if (b->lower_windows > b->lower)
        b->lower = b->lower_windows;
    if (b->lower_balance > b->lower)
        b->lower = b->lower_balance;
    b->wall_s = lf_now_seconds() - t0;
    return LF_OK;
}

/* Repeated blocks (planner/cost/shift.c, steps_memo.c): the memo and the
 * staircase memo answer a group with its copy one block earlier or later.
 * On random stacks of 2-3 equal attention blocks (projections by constant
 * matrices, scores with or without a causal mask, softmax, value product,
 * residual add, maybe a ReLU), under both schemes at random buffers:
 *   - a group and its copy one block away share one memo entry (the second
 *     is a hit), so the sharing is exercised;
 *   - every random group's memoized price equals the direct evaluation
 *     (lf_cost_eval_at, no memo), and its steps equal those a fresh cost
 *     model computes for it first;
 *   - the exact planner's optimum equals an independent DP over downsets
 *     that prices every candidate directly.
 * On stacks of 40 blocks, runs of 64-140 ops (whole words of 64 ops, which
 * shift.c reads as one minimum each) move as far as their members allow
 * one by one, and price and step as above.
 * And on a hand-built stack whose group's external input is a t x d tensor
 * where its copy's is one broadcast row, the two price differently and the
 * memo gives each its own price (shift.c's external-input check).
 * shift.c's consumer check (consumers moved by P) has no such test: with
 * every member's inputs moved by P and consumer counts equal (consumers are
 * distinct ops), each member has as many consumers inside its group as its
 * copy has inside the copy, so the same members leave both groups, and no
 * consumer outside a group enters its price. */
#include <string.h>

#include "fixtures.h"
#include "graphs.h"
#include "planner/cost/cost.h"
#include "planner/cost/cost_internal.h"
#include "testlib.h"

typedef struct blocks {
    int layers, t, d, causal, relu;
} blocks;

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

static const char *mm(lf_graph_builder *b, const char *name, const char *x, const char *y, int tb)
{
    lf_attrs a = {0};
    a.trans_b = tb;
    const char *in[2] = {x, y};
    CHECK(lf_graph_builder_add_op(b, LF_OP_MATMUL, name, &a, in, 2) >= 0);
    return name;
}

static lf_graph *stack(const blocks *k)
{
    lf_graph_builder *b;
    char names[16][32];
    lf_graph_builder_create(&b, "stack");
    tg_input(b, "x", 1, k->t, k->d);
    char prev[32] = "x";
    for (int l = 0; l < k->layers; l++) {
        static const char *const parts[] = {"wq", "wk", "wv", "q", "k", "v", "s", "mask", "sm",
                                            "p", "o", "y", "r"};
        for (int i = 0; i < 13; i++)
            snprintf(names[i], sizeof names[i], "%s%d", parts[i], l);
        for (int i = 0; i < 3; i++)
            CHECK(lf_graph_builder_add_const(b, names[i], (lf_shape){1, 1, k->d, k->d}, NULL) >= 0);
        for (int i = 0; i < 3; i++)
            mm(b, names[3 + i], prev, names[i], 0);
        mm(b, names[6], names[3], names[4], 1);
        const char *scores = names[6];
        if (k->causal) {
            CHECK(lf_graph_builder_add_const(b, names[7], (lf_shape){1, 1, k->t, k->t}, NULL) >= 0);
            const char *add_in[2] = {names[6], names[7]};
            CHECK(lf_graph_builder_add_op(b, LF_OP_ADD, names[8], NULL, add_in, 2) >= 0);
            scores = names[8];
        }
        lf_attrs a = {0};
        a.axes = LF_AXES(LF_DIM_W);
        CHECK(lf_graph_builder_add(b, LF_OP_SOFTMAX, names[9], &a, &scores, 1) >= 0);
        mm(b, names[10], names[9], names[5], 0);
        tg_binary(b, LF_OP_ADD, names[11], names[10], prev);
        snprintf(prev, sizeof prev, "%s", names[11]);
        if (k->relu) {
            tg_unary(b, LF_OP_RELU, names[12], names[11]);
            snprintf(prev, sizeof prev, "%s", names[12]);
        }
    }
    return tf_build(b);
}

static int same_cost(const lf_group_cost *a, const lf_group_cost *b)
{
    return a->f_beta == b->f_beta && a->f_d == b->f_d && a->mbu == b->mbu && a->weights == b->weights &&
           a->features == b->features && a->in_bytes == b->in_bytes && a->out_bytes == b->out_bytes &&
           a->weight_reads == b->weight_reads && a->tile_rows == b->tile_rows && a->steps == b->steps &&
           a->valid == b->valid && a->wait_resident == b->wait_resident &&
           a->reread_bytes == b->reread_bytes && a->attn == b->attn && a->attn_br == b->attn_br &&
           a->attn_bc == b->attn_bc && a->kv_reads == b->kv_reads && a->kv_bytes == b->kv_bytes &&
           a->kv_dram == b->kv_dram && a->pass_dram == b->pass_dram && a->col_bc == b->col_bc &&
           a->col_blocks == b->col_blocks && a->col_able == b->col_able && a->col_dram == b->col_dram;
}

/* The ops of block l in id order (the builder keeps insertion order). */
/* Group s (members[0..n)) priced through cm's cache as directly, and its
 * steps the same as on a model made fresh for g. */
static void check_price_and_steps(lf_cost_model *cm, const lf_graph *g, int64_t beta, const char *scheme,
                                  const lf_bitset *s, const int32_t *members, int32_t n)
{
    lf_group_cost memo, direct;
    CHECK_OK(lf_cost_eval(cm, s, &memo));
    CHECK_OK(lf_cost_eval_at(cm, members, n, beta, &direct));
    CHECK(same_cost(&memo, &direct));
    lf_cost_step shared[LF_COST_MAX_STEPS], fresh[LF_COST_MAX_STEPS];
    int32_t ns = 0, nf = 0;
    CHECK_OK(lf_cost_steps(cm, s, (int64_t)1 << 40, shared, LF_COST_MAX_STEPS, &ns));
    lf_cost_model *alone = tf_model_hand(g, beta, scheme);
    CHECK_OK(lf_cost_steps(alone, s, (int64_t)1 << 40, fresh, LF_COST_MAX_STEPS, &nf));
    lf_cost_model_free(alone);
    CHECK(ns == nf && memcmp(shared, fresh, (size_t)ns * sizeof *shared) == 0);
}

static int32_t block_ops(const lf_graph *g, int l, int32_t *ops)
{
    int32_t n = 0;
    for (int32_t v = 0; v < g->n_ops; v++) {
        const char *nm = g->ops[v].name;
        size_t len = strlen(nm);
        if (g->ops[v].type != LF_OP_INPUT && len > 0 && nm[len - 1] - '0' == l)
            ops[n++] = v;
    }
    return n;
}

/* The same group in blocks 1 and 2 of four is one memo entry (block 0
 * reads the graph input, block 3 writes the graph output: no copies). */
static void test_copy_hits(void)
{
    blocks k = {4, 8, 4, 1, 1};
    lf_graph *g = stack(&k);
    lf_cost_model *cm = tf_model_hand(g, 4096, "brr");
    int32_t b0[16], b1[16];
    int32_t n0 = block_ops(g, 1, b0), n1 = block_ops(g, 2, b1);
    CHECK_EQ_I64(n0, n1);
    lf_bitset s;
    lf_bitset_init(&s, g->n_ops);
    lf_group_cost c0, c1;
    lf_cost_stats st;
    for (int32_t i = 0; i < n1; i++)
        lf_bitset_set(&s, b1[i]);
    CHECK_OK(lf_cost_eval(cm, &s, &c1));
    lf_cost_stats_get(cm, &st);
    CHECK_EQ_I64(st.hits, 0);
    lf_bitset_clear_all(&s);
    for (int32_t i = 0; i < n0; i++)
        lf_bitset_set(&s, b0[i]);
    CHECK_OK(lf_cost_eval(cm, &s, &c0));
    lf_cost_stats_get(cm, &st);
    CHECK_EQ_I64(st.hits, 1);
    CHECK_EQ_I64(st.entries, 1);
    CHECK(same_cost(&c0, &c1));
    CHECK(c0.attn & LF_ATTN_PRESENT);
    lf_bitset_destroy(&s);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* An attention group's prices at every buffer (lf_cost_attn_prices) are
 * kept by canonical copy too: block 1's, answered from block 2's entry,
 * equal block 1's priced on a fresh model, and an entry made for another
 * smallest buffer is not taken for this one. */
static int same_sched(const lf_cost_sched *a, int32_t na, const lf_cost_sched *b, int32_t nb)
{
    if (na != nb)
        return 0;
    for (int32_t k = 0; k < na; k++)
        if (a[k].at != b[k].at || a[k].f_d != b[k].f_d || a[k].steps != b[k].steps || a[k].valid != b[k].valid)
            return 0;
    return 1;
}

static void test_attn_prices_copies(void)
{
    blocks k = {4, 8, 4, 1, 1};
    lf_graph *g = stack(&k);
    int32_t b1[16], b2[16];
    int32_t n1 = block_ops(g, 1, b1), n2 = block_ops(g, 2, b2);
    CHECK_EQ_I64(n1, n2);
    const char *schemes[] = {"brr", "lbdf"};
    for (int s = 0; s < 2; s++) {
        lf_cost_model *cm = tf_model_hand(g, 4096, schemes[s]), *fresh = tf_model_hand(g, 4096, schemes[s]);
        lf_cost_model *fresh_lo = tf_model_hand(g, 4096, schemes[s]);
        lf_cost_sched *a = NULL, *b = NULL, *c = NULL, *d = NULL;
        int32_t na = 0, nb = 0, nc = 0, nd = 0;
        CHECK_OK(lf_cost_attn_prices(cm, b2, n2, 256, 1 << 20, &a, &na));
        CHECK_OK(lf_cost_attn_prices(cm, b1, n1, 256, 1 << 20, &b, &nb));
        CHECK_OK(lf_cost_attn_prices(fresh, b1, n1, 256, 1 << 20, &c, &nc));
        CHECK(nb > 1);
        CHECK(same_sched(b, nb, c, nc));
        free(b);
        /* another smallest buffer: priced, not read from the entry above */
        CHECK_OK(lf_cost_attn_prices(cm, b1, n1, 3000, 1 << 20, &b, &nb));
        CHECK_OK(lf_cost_attn_prices(fresh_lo, b1, n1, 3000, 1 << 20, &d, &nd));
        CHECK(same_sched(b, nb, d, nd));
        CHECK(nd > 0 && d[0].at == 3000);
        free(a);
        free(b);
        free(c);
        free(d);
        lf_cost_model_free(cm);
        lf_cost_model_free(fresh);
        lf_cost_model_free(fresh_lo);
    }
    lf_graph_free(g);
}

/* Prices group G and its copy G - P (both given by names, P ops apart)
 * through the memo in both orders (copy first, then G first, each on a
 * fresh model) against lf_cost_eval_at, and checks that the two direct
 * prices differ: were the group keyed by its copy, one of the memoized
 * answers would be the other group's price. */
static void check_not_shared(const lf_graph *g, int64_t beta, const char *scheme, const char *const *names,
                             int32_t n)
{
    int32_t gm[8], cp[8];
    CHECK(n <= 8);
    for (int32_t i = 0; i < n && i < 8; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "%s", names[i]);
        gm[i] = lf_graph_find(g, nm);
        nm[strlen(nm) - 1]--; /* the same op one block earlier */
        cp[i] = lf_graph_find(g, nm);
        CHECK(gm[i] >= 0 && cp[i] >= 0);
    }
    lf_cost_model *cm = tf_model_hand(g, beta, scheme);
    lf_group_cost dg, dc;
    CHECK_OK(lf_cost_eval_at(cm, gm, n, beta, &dg));
    CHECK_OK(lf_cost_eval_at(cm, cp, n, beta, &dc));
    CHECK(!same_cost(&dg, &dc));
    lf_cost_model_free(cm);
    for (int order = 0; order < 2; order++) {
        const int32_t *first = order ? gm : cp, *second = order ? cp : gm;
        const lf_group_cost *want1 = order ? &dg : &dc, *want2 = order ? &dc : &dg;
        cm = tf_model_hand(g, beta, scheme);
        lf_bitset s;
        lf_bitset_init(&s, g->n_ops);
        lf_group_cost got;
        for (int32_t i = 0; i < n; i++)
            lf_bitset_set(&s, first[i]);
        CHECK_OK(lf_cost_eval(cm, &s, &got));
        CHECK(same_cost(&got, want1));
        lf_bitset_clear_all(&s);
        for (int32_t i = 0; i < n; i++)
            lf_bitset_set(&s, second[i]);
        CHECK_OK(lf_cost_eval(cm, &s, &got));
        CHECK(same_cost(&got, want2));
        lf_bitset_destroy(&s);
        lf_cost_model_free(cm);
    }
}

/* Four blocks of three ops: s_l = Sigmoid(h_{l-1}), m_l = h_{l-1} + s_l,
 * h_l = Relu(m_l), except s1 = ReduceMean over the rows of h0, a 1 x d row
 * that m1 broadcasts. m and h of blocks 1 and 2 are the same ops with the
 * same inputs moved by the period, but the external input s2 of
 * {m2, h2} is a t x d tensor where its copy's s1 is one row: the copy
 * reads less, so {m2, h2} must not be keyed by {m1, h1} (the external
 * input check of shift.c). */
static void test_external_input_differs(void)
{
    const int t = 8, d = 4;
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "ext");
    tg_input(b, "h", 1, t, d);
    char prev[32] = "h", s[32], m[32], h[32];
    for (int l = 0; l < 4; l++) {
        snprintf(s, sizeof s, "s%d", l);
        snprintf(m, sizeof m, "m%d", l);
        snprintf(h, sizeof h, "h%d", l);
        const char *pin = prev;
        if (l == 1) {
            lf_attrs a = {0};
            a.axes = LF_AXES(LF_DIM_H);
            CHECK(lf_graph_builder_add(b, LF_OP_REDUCEMEAN, s, &a, &pin, 1) >= 0);
        } else {
            tg_unary(b, LF_OP_SIGMOID, s, prev);
        }
        tg_binary(b, LF_OP_ADD, m, prev, s);
        tg_unary(b, LF_OP_RELU, h, m);
        snprintf(prev, sizeof prev, "%s", h);
    }
    lf_graph *g = tf_build(b);
    CHECK_EQ_I64(g->ops[lf_graph_find(g, "s1")].out.h, 1);
    static const char *const grp[] = {"m2", "h2"};
    check_not_shared(g, 4096, "brr", grp, 2);
    check_not_shared(g, 4096, "lbdf", grp, 2);
    lf_graph_free(g);
}

/* Five blocks of three ops reading a table graph input, as every layer of
 * Llama reads RoPE's cos and sin: s_l = Sigmoid(h_{l-1}), m_l = s_l * T,
 * h_l = m_l + h_{l-1}. kind 0: every block's T is the one input "tab"
 * (t x d); kind 1: block 2's T is "row" (1 x d, broadcast) instead; kind 2:
 * each block has its own input tab_l (declared with the block, so the
 * inputs are P ops apart too), block 2's a row. */
static lf_graph *table_stack(int kind, int t, int d)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "tables");
    tg_input(b, "h", 1, t, d);
    if (kind < 2) {
        tg_input(b, "tab", 1, t, d);
        tg_input(b, "row", 1, 1, d);
    }
    char prev[32] = "h", sn[32], mn[32], hn[32], tn[32];
    for (int l = 0; l < 5; l++) {
        snprintf(sn, sizeof sn, "s%d", l);
        snprintf(mn, sizeof mn, "m%d", l);
        snprintf(hn, sizeof hn, "h%d", l);
        snprintf(tn, sizeof tn, "%s", kind == 1 && l == 2 ? "row" : "tab");
        if (kind == 2) {
            snprintf(tn, sizeof tn, "tab_%d", l);
            tg_input(b, tn, 1, l == 2 ? 1 : t, d);
        }
        tg_unary(b, LF_OP_SIGMOID, sn, prev);
        tg_binary(b, LF_OP_MUL, mn, sn, tn);
        tg_binary(b, LF_OP_ADD, hn, mn, prev);
        snprintf(prev, sizeof prev, "%s", hn);
    }
    return tf_build(b);
}

static int32_t find_ops(const lf_graph *g, const char *const *names, int32_t n, int32_t *ops, lf_bitset *s)
{
    lf_bitset_clear_all(s);
    for (int32_t i = 0; i < n; i++) {
        ops[i] = lf_graph_find(g, names[i]);
        CHECK(ops[i] >= 0);
        if (ops[i] >= 0)
            lf_bitset_set(s, ops[i]);
    }
    return n;
}

/* A graph input that every copy reads (shift.c's lf__image, lf__shared_runs):
 * block 3 and block 1 of kind 0 share one memo entry, each price equal to
 * the direct one; where a block reads another input (kinds 1 and 2, the
 * latter with per-block inputs P ops apart that the old external-input
 * check refused) the copies price differently and are not keyed together;
 * and random groups of every kind price through the memo as directly, and
 * step as on a fresh model. */
static void test_shared_input(void)
{
    lf_graph *g = table_stack(0, 8, 4);
    static const char *const b3[] = {"s3", "m3", "h3"}, *const b1[] = {"s1", "m1", "h1"};
    static const char *const b2[] = {"s2", "m2", "h2"};
    lf_bitset s;
    lf_bitset_init(&s, g->n_ops);
    for (int sc = 0; sc < 2; sc++) {
        lf_cost_model *cm = tf_model_hand(g, 4096, sc ? "lbdf" : "brr");
        CHECK_EQ_I64(cm->shift_p, 3);
        int32_t ops[3], up = 0;
        lf_group_cost memo, direct;
        lf_cost_stats st;
        const char *const *grp[] = {b3, b1, b2};
        for (int k = 0; k < 3; k++) {
            find_ops(g, grp[k], 3, ops, &s);
            /* block l moves down to block 1 (block 0 reads the graph's h)
             * and up to block 3 (block 4 writes the graph's output) */
            CHECK_EQ_I64(lf__shift_moves(cm, &s, &up), k == 0 ? 2 : k == 1 ? 0 : 1);
            CHECK_EQ_I64(up, k == 0 ? 0 : k == 1 ? 2 : 1);
            CHECK_OK(lf_cost_eval(cm, &s, &memo));
            CHECK_OK(lf_cost_eval_at(cm, ops, 3, 4096, &direct));
            CHECK(same_cost(&memo, &direct));
            lf_cost_stats_get(cm, &st);
            CHECK_EQ_I64(st.hits, k);
            CHECK_EQ_I64(st.entries, 1);
        }
        lf_cost_model_free(cm);
    }
    lf_bitset_destroy(&s);
    lf_graph_free(g);
    static const char *const grp[] = {"m3", "h3"};
    for (int kind = 1; kind <= 2; kind++) {
        g = table_stack(kind, 8, 4);
        check_not_shared(g, 4096, "brr", grp, 2);
        check_not_shared(g, 4096, "lbdf", grp, 2);
        lf_graph_free(g);
    }
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int it = 0; it < 12; it++) {
        int t = 2 + (int)(rnd(&x) % 10), d = 1 + (int)(rnd(&x) % 6);
        g = table_stack(it % 3, t, d);
        int64_t beta = 16 + (int64_t)(rnd(&x) % (uint64_t)(8 * t * d * 4));
        const char *scheme = it % 2 ? "brr" : "lbdf";
        lf_cost_model *cm = tf_model_hand(g, beta, scheme);
        lf_bitset_init(&s, g->n_ops);
        int32_t members[32];
        for (int q = 0; q < 40; q++) {
            int32_t a = (int32_t)(rnd(&x) % (uint64_t)g->n_ops), e = a + (int32_t)(rnd(&x) % 9), n = 0;
            uint64_t drop = rnd(&x);
            lf_bitset_clear_all(&s);
            for (int32_t v = a; v <= e && v < g->n_ops; v++)
                if (g->ops[v].type != LF_OP_INPUT && (n == 0 || !((drop >> (v - a)) & 1))) {
                    lf_bitset_set(&s, v);
                    members[n++] = v;
                }
            if (n == 0)
                continue;
            check_price_and_steps(cm, g, beta, scheme, &s, members, n);
        }
        lf_bitset_destroy(&s);
        lf_cost_model_free(cm);
        lf_graph_free(g);
    }
}

/* Random groups (a window of consecutive ops, some left out), priced
 * through the memo in a random order against the direct evaluation, and
 * their steps against a fresh model's. */
static void test_random_groups(void)
{
    uint64_t x = 0x51f15e3779b97f4aull;
    int64_t hits = 0;
    for (int it = 0; it < 24; it++) {
        blocks k = {2 + (int)(rnd(&x) % 2), 2 + (int)(rnd(&x) % 10), 1 + (int)(rnd(&x) % 6),
                    (int)(rnd(&x) & 1), (int)(rnd(&x) & 1)};
        lf_graph *g = stack(&k);
        int64_t beta = 16 + (int64_t)(rnd(&x) % (uint64_t)(6 * k.t * (k.t + 3 * k.d)));
        const char *scheme = it % 2 ? "brr" : "lbdf";
        lf_cost_model *cm = tf_model_hand(g, beta, scheme);
        int32_t first = 0;
        while (first < g->n_ops && g->ops[first].type == LF_OP_INPUT)
            first++;
        lf_bitset s;
        lf_bitset_init(&s, g->n_ops);
        int32_t members[64];
        for (int q = 0; q < 60; q++) {
            int32_t a = first + (int32_t)(rnd(&x) % (uint64_t)(g->n_ops - first));
            int32_t e = a + (int32_t)(rnd(&x) % 12);
            int32_t n = 0;
            uint64_t drop = rnd(&x);
            lf_bitset_clear_all(&s);
            for (int32_t v = a; v <= e && v < g->n_ops; v++)
                if (g->ops[v].type != LF_OP_INPUT && (n == 0 || !((drop >> (v - a)) & 1) || (drop & 3) == 0)) {
                    lf_bitset_set(&s, v);
                    members[n++] = v;
                }
            lf_group_cost memo, direct;
            CHECK_OK(lf_cost_eval(cm, &s, &memo));
            CHECK_OK(lf_cost_eval_at(cm, members, n, beta, &direct));
            CHECK(same_cost(&memo, &direct));
            lf_cost_step shared[LF_COST_MAX_STEPS], fresh[LF_COST_MAX_STEPS];
            int32_t ns = 0, nf = 0;
            CHECK_OK(lf_cost_steps(cm, &s, (int64_t)1 << 40, shared, LF_COST_MAX_STEPS, &ns));
            lf_cost_model *alone = tf_model_hand(g, beta, scheme);
            CHECK_OK(lf_cost_steps(alone, &s, (int64_t)1 << 40, fresh, LF_COST_MAX_STEPS, &nf));
            lf_cost_model_free(alone);
            CHECK_EQ_I64(ns, nf);
            CHECK(ns == nf && memcmp(shared, fresh, (size_t)ns * sizeof *shared) == 0);
        }
        lf_cost_stats st;
        lf_cost_stats_get(cm, &st);
        hits += st.hits;
        lf_bitset_destroy(&s);
        lf_cost_model_free(cm);
        lf_graph_free(g);
    }
    CHECK(hits > 0);
}

/* Groups that fill whole words of 64 ops (shift.c reads one minimum per
 * full word): on a stack of many blocks, random runs of 64-140 ops priced
 * through the memo equal their direct price, and their steps equal a fresh
 * model's. A wrong word minimum moves a group to another's key, and groups
 * of different lengths or ends would then share a price. */
static void test_full_words(void)
{
    uint64_t x = 0x2545f4914f6cdd1dull;
    int64_t hits = 0, full = 0;
    for (int it = 0; it < 4; it++) {
        blocks k = {40, 2 + (int)(rnd(&x) % 6), 1 + (int)(rnd(&x) % 4), (int)(rnd(&x) & 1), 1};
        lf_graph *g = stack(&k);
        CHECK(g->n_ops >= 200);
        int64_t beta = 64 + (int64_t)(rnd(&x) % (uint64_t)(64 * k.t * (k.t + 3 * k.d)));
        const char *scheme = it % 2 ? "brr" : "lbdf";
        lf_cost_model *cm = tf_model_hand(g, beta, scheme);
        CHECK(cm->shift_p > 0);
        lf_bitset s;
        lf_bitset_init(&s, g->n_ops);
        int32_t members[160];
        for (int q = 0; q < 40; q++) {
            int32_t a = (int32_t)(rnd(&x) % (uint64_t)(g->n_ops - 140));
            int32_t e = a + 64 + (int32_t)(rnd(&x) % 77), n = 0;
            lf_bitset_clear_all(&s);
            for (int32_t v = a; v < e && v < g->n_ops; v++)
                if (g->ops[v].type != LF_OP_INPUT) {
                    lf_bitset_set(&s, v);
                    members[n++] = v;
                }
            for (int32_t w = 0; w < s.nwords; w++)
                full += s.words[w] == UINT64_MAX;
            /* The moves from one minimum per full word equal those from
             * every member's own (shift.c's per-op runs). */
            const int32_t *mdown = cm->shift_runs + 4 * g->n_ops, *mup = cm->shift_runs + 5 * g->n_ops;
            int32_t kd = INT32_MAX, ku = INT32_MAX, up = 0;
            for (int32_t i = 0; i < n; i++) {
                kd = mdown[members[i]] < kd ? mdown[members[i]] : kd;
                ku = mup[members[i]] < ku ? mup[members[i]] : ku;
            }
            CHECK_EQ_I64(lf__shift_moves(cm, &s, &up), kd);
            CHECK_EQ_I64(up, ku);
            check_price_and_steps(cm, g, beta, scheme, &s, members, n);
        }
        lf_cost_stats st;
        lf_cost_stats_get(cm, &st);
        hits += st.hits;
        lf_bitset_destroy(&s);
        lf_cost_model_free(cm);
        lf_graph_free(g);
    }
    CHECK(full > 0);
    CHECK(hits > 0);
}

/* ---- an independent exact DP -------------------------------------------
 *
 * best(D) over downsets D (bit masks over the compute ops, at most 64): the
 * least sum of direct prices over partitions of the rest into connected
 * valid groups S with D u S a downset, found by trying every such S. */

typedef struct bf {
    lf_cost_model *cm;
    int32_t n, ops[64];
    uint64_t pred[64], adj[64];
    int64_t beta;
    uint64_t *keys;
    int64_t *vals;
    size_t cap;
} bf;

static int connected(const bf *b, uint64_t s)
{
    uint64_t seen = s & (~s + 1), grow = seen;
    while (grow) {
        uint64_t next = 0;
        for (uint64_t m = grow; m; m &= m - 1)
            next |= b->adj[__builtin_ctzll(m)];
        grow = next & s & ~seen;
        seen |= grow;
    }
    return seen == s;
}

static int64_t best(bf *b, uint64_t d);

/* Every S (bits from i on) with d u S a downset; *acc the least total. */
static void grow(bf *b, uint64_t d, uint64_t s, int32_t i, int64_t *acc)
{
    if (i == b->n) {
        if (!s || !connected(b, s))
            return;
        int32_t m[64], n = 0;
        for (uint64_t r = s; r; r &= r - 1)
            m[n++] = b->ops[__builtin_ctzll(r)];
        lf_group_cost c;
        CHECK_OK(lf_cost_eval_at(b->cm, m, n, b->beta, &c));
        if (!c.valid)
            return;
        int64_t rest = best(b, d | s);
        if (rest >= 0 && (*acc < 0 || c.f_d + rest < *acc))
            *acc = c.f_d + rest;
        return;
    }
    grow(b, d, s, i + 1, acc);
    if (!((d >> i) & 1) && (b->pred[i] & ~(d | s)) == 0)
        grow(b, d, s | (uint64_t)1 << i, i + 1, acc);
}

static int64_t best(bf *b, uint64_t d)
{
    uint64_t full = b->n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << b->n) - 1;
    if (d == full)
        return 0;
    size_t h = (size_t)((d * 0x9e3779b97f4a7c15ull) >> 20) & (b->cap - 1);
    while (b->keys[h] != ~(uint64_t)0 && b->keys[h] != d)
        h = (h + 1) & (b->cap - 1);
    if (b->keys[h] == d)
        return b->vals[h];
    int64_t acc = -1;
    grow(b, d, 0, 0, &acc);
    b->keys[h] = d;
    b->vals[h] = acc;
    return acc;
}

static void test_exact_vs_independent(void)
{
    uint64_t x = 0x2545f4914f6cdd1dull;
    int compared = 0;
    for (int it = 0; it < 40 && compared < 12; it++) {
        blocks k = {2 + (int)(rnd(&x) % 2), 2 + (int)(rnd(&x) % 8), 1 + (int)(rnd(&x) % 5),
                    (int)(rnd(&x) & 1), (int)(rnd(&x) & 1)};
        lf_graph *g = stack(&k);
        int64_t beta = 16 + (int64_t)(rnd(&x) % (uint64_t)(4 * k.t * (k.t + 3 * k.d)));
        lf_cost_model *cm = tf_model_hand(g, beta, it % 2 ? "brr" : "lbdf");
        bf b = {cm, 0, {0}, {0}, {0}, beta, NULL, NULL, 1 << 16};
        int32_t idx[256];
        int all = 1;
        for (int32_t v = 0; v < g->n_ops; v++) {
            idx[v] = -1;
            if (g->ops[v].type == LF_OP_INPUT)
                continue;
            all &= lf_cost_fusable(cm, v) && b.n < 64;
            if (b.n < 64) {
                idx[v] = b.n;
                b.ops[b.n++] = v;
            }
        }
        if (all) {
            for (int32_t i = 0; i < b.n; i++) {
                const lf_op *op = &g->ops[b.ops[i]];
                for (int32_t j = 0; j < op->n_inputs; j++) {
                    int32_t p = idx[op->inputs[j]];
                    if (p >= 0) {
                        b.pred[i] |= (uint64_t)1 << p;
                        b.adj[i] |= (uint64_t)1 << p;
                        b.adj[p] |= (uint64_t)1 << i;
                    }
                }
            }
            b.keys = malloc(b.cap * sizeof *b.keys);
            b.vals = malloc(b.cap * sizeof *b.vals);
            CHECK(b.keys && b.vals);
            if (b.keys && b.vals) {
                memset(b.keys, 0xff, b.cap * sizeof *b.keys);
                int64_t want = best(&b, 0);
                CHECK_EQ_I64(tf_exact_optimum(cm), want);
                compared++;
            }
            free(b.keys);
            free(b.vals);
        }
        lf_cost_model_free(cm);
        lf_graph_free(g);
    }
    CHECK(compared >= 8);
}

int main(void)
{
    test_copy_hits();
    test_attn_prices_copies();
    test_external_input_differs();
    test_shared_input();
    test_random_groups();
    test_full_words();
    test_exact_vs_independent();
    return lf_test_result();
}

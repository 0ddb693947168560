/* Attention groups in both cost models (DESIGN §16, docs/cost-models.md
 * "Attention"): K and V of a product of two activations resident or
 * streamed, heads one after another, online softmax, causal masks, partial
 * cores and a K/V made inside the group. Every expected number is derived in
 * the comment above its check (int8, N = 1).
 *
 * The core: Q {heads, T, dh}, Kt {heads, dh, T} and V {heads, T, dh} are
 * graph inputs; S = Q Kt, P = softmax_W(S), O = P V. With heads 2, T 8,
 * dh 4: |Q| = |Kt| = |V| = |O| = 64, S and P 128. The group {S, P, O} reads
 * Q, Kt, V (192) and writes O (64): F_D without re-reads 256. Rows: a row of
 * Q or O holds both heads (8 B), a row of S or P one head (8 B): the windows
 * at Br = h rows are Q, S, P and O's staging row, f(h) = 32 h, of which the
 * score windows are 16 h. One key row of one head of K or V: 64 / 16 = 4 B;
 * the accumulator dh = 4 (at 4 B) and the statistics 2 (at 4 B): 24 h. */
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "graphs.h"
#include "planner/cost/cost.h"
#include "testlib.h"

static const char *mm(lf_graph_builder *b, const char *name, const char *x, const char *y, int ta, int tb)
{
    lf_attrs a = {0};
    a.trans_a = ta;
    a.trans_b = tb;
    const char *in[2] = {x, y};
    CHECK(lf_graph_builder_add(b, LF_OP_MATMUL, name, &a, in, 2) >= 0);
    return name;
}

static const char *softmax_w(lf_graph_builder *b, const char *name, const char *x)
{
    lf_attrs a = {0};
    a.axes = LF_AXES(LF_DIM_W);
    CHECK(lf_graph_builder_add(b, LF_OP_SOFTMAX, name, &a, &x, 1) >= 0);
    return name;
}

static lf_graph *core(int heads, int t, int dh)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "core");
    tg_input(b, "q", heads, t, dh);
    tg_input(b, "kt", heads, dh, t);
    tg_input(b, "v", heads, t, dh);
    mm(b, "s", "q", "kt", 0, 0);
    softmax_w(b, "p", "s");
    mm(b, "o", "p", "v", 0, 0);
    return tf_build(b);
}

static lf_group_cost eval_names(const lf_graph *g, int64_t beta, const char *scheme, const char *const *names,
                                int n)
{
    lf_cost_model *cm = tf_model_hand(g, beta, scheme);
    lf_bitset s;
    lf_bitset_init(&s, g->n_ops);
    for (int i = 0; i < n; i++) {
        int32_t v = lf_graph_find(g, names[i]);
        CHECK(v >= 0);
        if (v >= 0)
            lf_bitset_set(&s, v);
    }
    lf_group_cost c;
    memset(&c, 0, sizeof c);
    CHECK_OK(lf_cost_eval(cm, &s, &c));
    lf_bitset_destroy(&s);
    lf_cost_model_free(cm);
    return c;
}

static const char *const core_ops[] = {"s", "p", "o"};

/* The step function of an attention group over the buffer (lf_cost_steps,
 * the curve's input) holds every balanced tile height of N_q = 16 query rows
 * (1, 2, 3, 4, 6, 8, 16: no balanced tile has 5 or 7 rows; the enumeration
 * once looped forever at 7): at every buffer from 1 byte to past the last
 * step, the step in force gives the F_D and validity lf_cost_eval gives. */
static void test_steps_balanced(void)
{
    lf_graph *g = core(1, 16, 4);
    lf_cost_model *cm = tf_model_hand(g, 1 << 20, "brr");
    lf_bitset s;
    lf_bitset_init(&s, g->n_ops);
    for (int i = 0; i < 3; i++)
        lf_bitset_set(&s, lf_graph_find(g, core_ops[i]));
    lf_cost_step st[LF_COST_MAX_STEPS];
    int32_t n = 0;
    CHECK_OK(lf_cost_steps(cm, &s, INT64_MAX, st, LF_COST_MAX_STEPS, &n));
    CHECK(n >= 2);
    for (int32_t k = 1; k < n; k++)
        CHECK(st[k].need > st[k - 1].need && st[k].f_d < st[k - 1].f_d);
    int bad = 0;
    for (int64_t beta = 1; n > 0 && beta <= st[n - 1].need + 2; beta++) {
        lf_group_cost c = eval_names(g, beta, "brr", core_ops, 3);
        int32_t k = -1;
        while (k + 1 < n && st[k + 1].need < beta)
            k++;
        bad += c.valid != (k >= 0) || (k >= 0 && c.f_d != st[k].f_d);
    }
    CHECK_EQ_I64(bad, 0);
    /* The walk (lf_cost_steps_priced, what the energy and latency
     * staircases read) gives an attention group its steps and prices none
     * of them: the staircase prices such a group at every buffer instead
     * (lf_cost_attn_prices), and lf_cost_group_attn says which groups those
     * are without pricing them. */
    int32_t ops[3], one_v = lf_graph_find(g, "s"), sm = lf_graph_find(g, "p");
    for (int i = 0; i < 3; i++)
        ops[i] = lf_graph_find(g, core_ops[i]);
    CHECK(lf_cost_group_attn(cm, ops, 3));
    CHECK(lf_cost_group_attn(cm, &one_v, 1));
    CHECK(!lf_cost_group_attn(cm, &sm, 1)); /* the softmax alone */
    for (int last = 0; last < 2; last++) {
        lf_cost_step ps[LF_COST_MAX_STEPS];
        lf_group_cost at[LF_COST_MAX_STEPS];
        int32_t np = 0;
        int priced = 0;
        memset(at, 0xff, sizeof at);
        CHECK_OK(lf_cost_steps_priced(cm, &s, INT64_MAX, last ? st[n - 1].need + 1 : 0, ps, at,
                                      LF_COST_MAX_STEPS, &np, &priced));
        CHECK(priced);
        CHECK_EQ_I64(np, n);
        bad = 0;
        for (int32_t k = 0; k < n && k < np; k++)
            bad += ps[k].need != st[k].need || ps[k].f_d != st[k].f_d || at[k].valid || at[k].attn;
        CHECK_EQ_I64(bad, 0);
    }
    lf_bitset_destroy(&s);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* The configurations' needs at Br = h (no weights, so LBDF and BRR agree):
 *   heads inside a tile, K/V resident, whole rows:   32 h + 128
 *   ... streamed, whole rows (one key row each, 8):  32 h + 8
 *   ... streamed, online (Bc = min(h, 8)):           16 h + h Bc + 24 h + 8 Bc
 *   heads one after another (rows 32 h - 16 h halved, + 16 h = 24 h):
 *     K/V of one head resident (32 + 32), whole rows:  24 h + 64
 *     streamed, whole rows:                            24 h + 8
 * F_beta is the least need at h = 1: 32 (one head, streamed). */
static void test_resident_and_streamed(const lf_graph *g)
{
    const char *schemes[2] = {"lbdf", "brr"};
    for (int k = 0; k < 2; k++) {
        /* 1,000 B: everything fits; the first configuration of least F_D,
         * K/V resident with all heads, one tile of 8 rows (need 384). */
        lf_group_cost c = eval_names(g, 1000, schemes[k], core_ops, 3);
        CHECK(c.valid);
        CHECK_EQ_I64(c.f_beta, 32);
        CHECK_EQ_I64(c.f_d, 256);
        CHECK_EQ_I64(c.attn, LF_ATTN_PRESENT | LF_ATTN_RESIDENT | LF_ATTN_CORE);
        CHECK_EQ_I64(c.attn_br, 8);
        CHECK_EQ_I64(c.kv_reads, 1);
        CHECK_EQ_I64(c.mbu, 384);
        CHECK_EQ_I64(c.kv_bytes, 128);

        /* 100 B: all heads' K/V (160 at h = 1) do not fit; one head's do
         * (88 at h = 1, 112 at h = 2): resident per head, Br 1, F_D 256. */
        c = eval_names(g, 100, schemes[k], core_ops, 3);
        CHECK(c.valid);
        CHECK_EQ_I64(c.f_d, 256);
        CHECK_EQ_I64(c.attn, LF_ATTN_PRESENT | LF_ATTN_HEADS | LF_ATTN_RESIDENT | LF_ATTN_CORE);
        CHECK_EQ_I64(c.attn_br, 1);
        CHECK_EQ_I64(c.mbu, 88);

        /* 80 B: no K/V fits whole. Streamed with whole rows, all heads:
         * 32 h + 8 < 80 up to h = 2 (72): 4 tiles, K and V read 4 times,
         * F_D = 256 + 3 x 128 = 640 (one head at a time, 24 h + 8, also
         * stops at h = 2 as 80 is not below 80; the first is kept). */
        c = eval_names(g, 80, schemes[k], core_ops, 3);
        CHECK(c.valid);
        CHECK_EQ_I64(c.f_d, 640);
        CHECK_EQ_I64(c.attn, LF_ATTN_PRESENT | LF_ATTN_CORE);
        CHECK_EQ_I64(c.attn_br, 2);
        CHECK_EQ_I64(c.attn_bc, 8);
        CHECK_EQ_I64(c.kv_reads, 4);
        CHECK_EQ_I64(c.kv_dram, 384);
        CHECK_EQ_I64(c.mbu, 72);

        /* 32 B: nothing fits (F_beta 32 is not below 32). */
        c = eval_names(g, 32, schemes[k], core_ops, 3);
        CHECK(!c.valid);
        CHECK_EQ_I64(c.f_beta, 32);
    }
}

/* Online softmax: heads 1, T 64, dh 2. |Q| = |Kt| = |V| = |O| = 128, F_D
 * without re-reads 384 + 128 = 512. Rows: Q and O 2 B, S and P 64 B:
 * f(h) = 132 h, scores 128 h; a key row of K or V 2 B; the accumulator and
 * statistics (2 + 2) x 4 = 16 h. One head: no heads-one-after-another.
 *   resident, whole rows: 132 h + 256          (388 at h = 1)
 *   resident, online:     4 h + h Bc + 16 h + 256  (277)
 *   streamed, whole rows: 132 h + 4            (136)
 *   streamed, online:     4 h + h Bc + 16 h + 2 Bc + 2 Bc  (25), Bc = min(h, 64) */
static void test_online(void)
{
    lf_graph *g = core(1, 64, 2);
    /* 300 B: only online keeps K and V resident (277 at h = 1, 300 at 2). */
    lf_group_cost c = eval_names(g, 300, "lbdf", core_ops, 3);
    CHECK(c.valid);
    CHECK_EQ_I64(c.f_beta, 25);
    CHECK_EQ_I64(c.f_d, 512);
    CHECK_EQ_I64(c.attn, LF_ATTN_PRESENT | LF_ATTN_RESIDENT | LF_ATTN_ONLINE | LF_ATTN_CORE);
    CHECK_EQ_I64(c.attn_br, 1);
    CHECK_EQ_I64(c.attn_bc, 1);
    CHECK_EQ_I64(c.mbu, 277);
    /* 200 B: streamed. Whole rows fit only h = 1 (64 tiles: F_D 512 + 63 x
     * 256); online 24 h + h^2 fits h = 6 (180; 7 needs 217): 11 balanced
     * tiles of 6 rows, F_D = 512 + 10 x 256 = 3,072. */
    c = eval_names(g, 200, "brr", core_ops, 3);
    CHECK(c.valid);
    CHECK_EQ_I64(c.f_d, 3072);
    CHECK_EQ_I64(c.attn, LF_ATTN_PRESENT | LF_ATTN_ONLINE | LF_ATTN_CORE);
    CHECK_EQ_I64(c.attn_br, 6);
    CHECK_EQ_I64(c.attn_bc, 6);
    CHECK_EQ_I64(c.kv_reads, 11);
    CHECK_EQ_I64(c.mbu, 180);
    lf_graph_free(g);
}

/* A causal mask added to the scores (a constant 0 on and below the
 * diagonal, -1e9 above): heads 2, T 8, dh 4 as above, the mask is made on
 * chip (no weights) and the masked scores are one more score window: f(h)
 * = 40 h, scores 24 h. At 90 B: all heads streamed with whole rows, 40 h +
 * 8 < 90 up to h = 2: 4 tiles reading 2, 4, 6 and 8 key rows of 8 B: 160 B
 * of K and of V instead of 4 x 64; F_D = 256 + 2 x (160 - 64) = 448. A
 * shape-only mask of that shape counts as causal too. */
static lf_graph *causal_core(int with_data)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "causal");
    tg_input(b, "q", 2, 8, 4);
    tg_input(b, "kt", 2, 4, 8);
    tg_input(b, "v", 2, 8, 4);
    float m[64];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            m[i * 8 + j] = j <= i ? 0.0f : -1e9f;
    if (with_data == 2)
        m[1] = 0.0f; /* not causal: an ordinary additive bias */
    CHECK(lf_graph_builder_add_const(b, "mask", (lf_shape){1, 1, 8, 8}, with_data ? m : NULL) >= 0);
    mm(b, "s", "q", "kt", 0, 0);
    const char *add_in[2] = {"s", "mask"};
    CHECK(lf_graph_builder_add_op(b, LF_OP_ADD, "sm", NULL, add_in, 2) >= 0);
    softmax_w(b, "p", "sm");
    mm(b, "o", "p", "v", 0, 0);
    return tf_build(b);
}

static void test_causal(void)
{
    static const char *const ops[] = {"s", "sm", "p", "o"};
    for (int data = 0; data <= 1; data++) {
        lf_graph *g = causal_core(data);
        lf_group_cost c = eval_names(g, 90, "lbdf", ops, 4);
        CHECK(c.valid);
        CHECK_EQ_I64(c.weights, 0);
        CHECK_EQ_I64(c.f_d, 448);
        CHECK_EQ_I64(c.attn, LF_ATTN_PRESENT | LF_ATTN_CAUSAL | LF_ATTN_CORE);
        CHECK_EQ_I64(c.attn_br, 2);
        CHECK_EQ_I64(c.kv_reads, 4);
        CHECK_EQ_I64(c.kv_dram, 192);
        lf_graph_free(g);
    }
    /* A mask that is not causal is a constant of the scores' rows (64 B)
     * read once, streaming with the query rows: one row (8 B) in flight in
     * the weight terms, the other 56 B an input; K and V are read in full
     * by every tile. */
    lf_graph *g = causal_core(2);
    lf_group_cost c = eval_names(g, 1000, "lbdf", ops, 4);
    CHECK_EQ_I64(c.weights, 8);
    CHECK_EQ_I64(c.in_bytes, 3 * 64 + 56);
    CHECK_EQ_I64(c.attn & LF_ATTN_CAUSAL, 0);
    CHECK_EQ_I64(c.f_d, 256 + 64);
    lf_graph_free(g);
}

/* A partial core {S, P}: P is written (128), Q and Kt read (128), only K is
 * a global operand and nothing is online. Rows: Q 8 h, S 8 h, P's staging
 * 8 h (f = 24 h, scores 16 h). One head at a time: 4 h + 16 h = 20 h, with
 * its K resident (32): 52 at h = 1. At 60 B all heads' K (88) does not fit,
 * one head's does: F_D 256; at 1,000 B the first configuration, all heads
 * resident, one tile of 8 rows (24 x 8 + 64 = 256). */
static void test_partial(const lf_graph *g)
{
    static const char *const ops[] = {"s", "p"};
    lf_group_cost c = eval_names(g, 60, "brr", ops, 2);
    CHECK(c.valid);
    CHECK_EQ_I64(c.f_d, 256);
    CHECK_EQ_I64(c.attn, LF_ATTN_PRESENT | LF_ATTN_HEADS | LF_ATTN_RESIDENT);
    CHECK_EQ_I64(c.mbu, 52);
    CHECK_EQ_I64(c.kv_bytes, 64);
    c = eval_names(g, 1000, "brr", ops, 2);
    CHECK_EQ_I64(c.attn, LF_ATTN_PRESENT | LF_ATTN_RESIDENT);
    CHECK_EQ_I64(c.mbu, 256);
    CHECK_EQ_I64(c.attn_br, 8);
}

/* V made inside the group: vr = relu(v) (per head, so heads may still run
 * one after another). It holds no rows (only the product reads it, whole);
 * F_D as the core, 256, when it stays resident (100 B: one head's K and V,
 * 88 at h = 1). At 80 B both stream (Br 2, 4 tiles): K read 3 more times
 * (192), V written once and read 4 times (320): F_D 768. */
static void test_made_inside(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "inside");
    tg_input(b, "q", 2, 8, 4);
    tg_input(b, "kt", 2, 4, 8);
    tg_input(b, "v", 2, 8, 4);
    mm(b, "s", "q", "kt", 0, 0);
    softmax_w(b, "p", "s");
    tg_unary(b, LF_OP_RELU, "vr", "v");
    mm(b, "o", "p", "vr", 0, 0);
    lf_graph *g = tf_build(b);
    static const char *const ops[] = {"s", "p", "vr", "o"};
    lf_group_cost c = eval_names(g, 100, "lbdf", ops, 4);
    CHECK(c.valid);
    CHECK_EQ_I64(c.f_d, 256);
    CHECK_EQ_I64(c.attn, LF_ATTN_PRESENT | LF_ATTN_HEADS | LF_ATTN_RESIDENT | LF_ATTN_CORE);
    CHECK_EQ_I64(c.pass_dram, 0);
    c = eval_names(g, 80, "lbdf", ops, 4);
    CHECK(c.valid);
    CHECK_EQ_I64(c.f_d, 768);
    CHECK_EQ_I64(c.kv_dram, 512);
    CHECK_EQ_I64(c.kv_reads, 4);
    lf_graph_free(g);

    /* vr = relu(q): q is read by the pass that makes V and again by the
     * scores after it: 64 more. In 128 (q, kt) + out 64 + 64 = 256. */
    lf_graph_builder_create(&b, "inside2");
    tg_input(b, "q", 2, 8, 4);
    tg_input(b, "kt", 2, 4, 8);
    mm(b, "s", "q", "kt", 0, 0);
    softmax_w(b, "p", "s");
    tg_unary(b, LF_OP_RELU, "vr", "q");
    mm(b, "o", "p", "vr", 0, 0);
    g = tf_build(b);
    c = eval_names(g, 1000, "lbdf", ops, 4);
    CHECK(c.valid);
    CHECK_EQ_I64(c.pass_dram, 64);
    CHECK_EQ_I64(c.f_d, 256);
    lf_graph_free(g);
}

/* Brute force: random cores (heads 1-3, T 2-12, dh 1-6, causal or not)
 * priced by the cost model and by an enumeration written here from
 * docs/cost-models.md, over every configuration and every tile height Br
 * from 1 to T (not only the balanced ones the model tries): the least F_D
 * of a valid (configuration, Br), and F_beta, must agree. */
typedef struct bf_core {
    int64_t heads, t, dh;
    int causal;
} bf_core;

static void bf_enumerate(const bf_core *k, int64_t beta, int64_t *f_beta, int64_t *f_d, int *valid)
{
    int64_t q = k->heads * k->dh, sc = 2 * k->t + (k->causal ? k->t : 0); /* row bytes per head */
    int64_t kv = k->heads * k->t * k->dh, base = 4 * kv;
    *f_beta = -1;
    *valid = 0;
    *f_d = 0;
    for (int per_head = 0; per_head <= (k->heads > 1); per_head++)
        for (int res = 0; res <= 1; res++)
            for (int online = 0; online <= 1; online++)
                for (int64_t br = 1; br <= k->t; br++) {
                    int64_t bc = online ? (br < k->t ? br : k->t) : k->t;
                    int64_t feat = per_head ? (br * 2 * q + k->heads - 1) / k->heads : br * 2 * q;
                    feat += online ? br * bc + (br * k->dh + 2 * br) * 4 : br * sc;
                    int64_t kvb = res ? (per_head ? 2 * k->t * k->dh : 2 * kv) : 2 * (online ? bc : 1) * k->dh;
                    int64_t need = feat + kvb, fd = base;
                    if (!res) {
                        int64_t tiles = (k->t + br - 1) / br, rows = 0;
                        for (int64_t i = 0; i < tiles; i++)
                            rows += k->causal ? ((i + 1) * br < k->t ? (i + 1) * br : k->t) : k->t;
                        fd += 2 * (rows * k->heads * k->dh - kv);
                    }
                    if (br == 1 && (*f_beta < 0 || need < *f_beta))
                        *f_beta = need;
                    if (need < beta && (!*valid || fd < *f_d)) {
                        *valid = 1;
                        *f_d = fd;
                    }
                }
}

static lf_graph *bf_graph(const bf_core *k)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "bf");
    tg_input(b, "q", (int)k->heads, (int)k->t, (int)k->dh);
    tg_input(b, "kt", (int)k->heads, (int)k->dh, (int)k->t);
    tg_input(b, "v", (int)k->heads, (int)k->t, (int)k->dh);
    mm(b, "s", "q", "kt", 0, 0);
    if (k->causal) {
        CHECK(lf_graph_builder_add_const(b, "mask", (lf_shape){1, 1, k->t, k->t}, NULL) >= 0);
        const char *add_in[2] = {"s", "mask"};
        CHECK(lf_graph_builder_add_op(b, LF_OP_ADD, "sm", NULL, add_in, 2) >= 0);
    }
    softmax_w(b, "p", k->causal ? "sm" : "s");
    mm(b, "o", "p", "v", 0, 0);
    return tf_build(b);
}

static void test_brute_force(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int it = 0; it < 300; it++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        bf_core k = {1 + (int64_t)(x % 3), 2 + (int64_t)((x >> 8) % 11), 1 + (int64_t)((x >> 16) % 6),
                     (int)((x >> 24) & 1)};
        int64_t beta = 8 + (int64_t)((x >> 32) % (uint64_t)(8 * k.heads * k.t * (k.dh + k.t)));
        lf_graph *g = bf_graph(&k);
        static const char *const ops3[] = {"s", "p", "o"}, *const ops4[] = {"s", "sm", "p", "o"};
        const char *scheme = it % 2 ? "brr" : "lbdf";
        lf_group_cost c = eval_names(g, beta, scheme, k.causal ? ops4 : ops3, k.causal ? 4 : 3);
        int64_t fb, fd;
        int valid;
        bf_enumerate(&k, beta, &fb, &fd, &valid);
        CHECK_EQ_I64(c.f_beta, fb);
        CHECK_EQ_I64(c.valid, valid);
        if (valid)
            CHECK_EQ_I64(c.f_d, fd);
        lf_graph_free(g);
    }
}

/* The Softmax's causal attribute (the built-in decoders) with g = 2 stacks
 * of query rows (grouped-query attention: two query heads of one K/V head
 * stacked along H): q {1, 16, 4} (query t of row r is r mod 8), kt {1, 4,
 * 8}, v {1, 8, 4}. In 128, out 64: 192. Rows: Q 4 h, S 8 h, P 8 h, O 4 h
 * (f = 24 h); a key row 4 B. At 60 B, streamed with whole rows, 24 h + 8
 * fits h = 2: 8 tiles of 2 rows read 2, 4, 6, 8, 2, 4, 6, 8 key rows (40 x
 * 4 = 160 B of K and of V): F_D = 192 + 2 x (160 - 32) = 448. */
static void test_causal_attribute(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "gqa");
    tg_input(b, "q", 1, 16, 4);
    tg_input(b, "kt", 1, 4, 8);
    tg_input(b, "v", 1, 8, 4);
    mm(b, "s", "q", "kt", 0, 0);
    lf_attrs a = {0};
    a.axes = LF_AXES(LF_DIM_W);
    a.causal = 2;
    const char *sin = "s";
    CHECK(lf_graph_builder_add(b, LF_OP_SOFTMAX, "p", &a, &sin, 1) >= 0);
    mm(b, "o", "p", "v", 0, 0);
    lf_graph *g = tf_build(b);
    lf_group_cost c = eval_names(g, 60, "brr", core_ops, 3);
    CHECK(c.valid);
    CHECK_EQ_I64(c.f_d, 448);
    CHECK_EQ_I64(c.attn, LF_ATTN_PRESENT | LF_ATTN_CAUSAL | LF_ATTN_CORE);
    CHECK_EQ_I64(c.attn_br, 2);
    CHECK_EQ_I64(c.kv_reads, 8);
    lf_graph_free(g);
}

/* The exact planner over attention cores (its pruning bound must stay a
 * floor of F_beta): its optimum equals the best segmentation of the chain
 * s -> [sm] -> p -> o into consecutive valid groups, on random cores and
 * buffers where every op is fusable. */
static void test_exact_chain(void)
{
    uint64_t x = 0x2545f4914f6cdd1dull;
    int compared = 0;
    for (int it = 0; it < 120; it++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        bf_core k = {1 + (int64_t)(x % 3), 2 + (int64_t)((x >> 8) % 11), 1 + (int64_t)((x >> 16) % 6),
                     (int)((x >> 24) & 1)};
        int64_t beta = 8 + (int64_t)((x >> 32) % (uint64_t)(4 * k.heads * k.t * (k.dh + k.t)));
        lf_graph *g = bf_graph(&k);
        lf_cost_model *cm = tf_model_hand(g, beta, it % 2 ? "brr" : "lbdf");
        int32_t chain[4], n = 0;
        for (int32_t v = 0; v < g->n_ops; v++)
            if (g->ops[v].type != LF_OP_INPUT)
                chain[n++] = v;
        int all = 1;
        for (int32_t i = 0; i < n; i++)
            all &= lf_cost_fusable(cm, chain[i]);
        if (all) {
            int64_t best = -1;
            lf_bitset s;
            lf_bitset_init(&s, g->n_ops);
            for (int cuts = 0; cuts < 1 << (n - 1); cuts++) {
                int64_t total = 0;
                int ok = 1;
                for (int32_t a = 0; a < n && ok;) {
                    int32_t e = a;
                    while (e + 1 < n && !((cuts >> e) & 1))
                        e++;
                    lf_bitset_clear_all(&s);
                    for (int32_t i = a; i <= e; i++)
                        lf_bitset_set(&s, chain[i]);
                    lf_group_cost c;
                    CHECK_OK(lf_cost_eval(cm, &s, &c));
                    ok = c.valid;
                    total += c.f_d;
                    a = e + 1;
                }
                if (ok && (best < 0 || total < best))
                    best = total;
            }
            lf_bitset_destroy(&s);
            lf_exact_config ec;
            lf_exact_config_default(&ec);
            lf_plan plan;
            lf_exact_stats es;
            lf_plan_metrics pm;
            CHECK_OK(lf_exact_plan(cm, &ec, &plan, &es));
            CHECK_OK(lf_plan_metrics_compute(&plan, cm, &pm));
            CHECK_EQ_I64(pm.dram_fusable, best);
            lf_plan_destroy(&plan);
            compared++;
        }
        lf_cost_model_free(cm);
        lf_graph_free(g);
    }
    CHECK(compared >= 40);
}

/* A lone MatMul by a constant over 16 rows, x 16 x 8 times B 8 x 32 (int8):
 * weights 256 B (one output column 8 B), x 128 B, y 512 B. By rows (BRR,
 * DESIGN §5): one row step holds x's row 8 + y's row 32 = 40 B plus a
 * column, F_beta 48; tiles of h rows need 40 h + 8. By column blocks
 * (DESIGN §16): one x row, Bc columns and Bc outputs, 8 + 9 Bc, the matrix
 * read once and x once per block. */
static void test_column_blocks(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "cols");
    tg_input(b, "x", 1, 16, 8);
    CHECK(lf_graph_builder_add_const(b, "w", (lf_shape){1, 1, 8, 32}, NULL) >= 0);
    const char *in[2] = {"x", "w"};
    CHECK(lf_graph_builder_add_op(b, LF_OP_MATMUL, "y", NULL, in, 2) >= 0);
    lf_graph *g = tf_build(b);
    static const char *const y[] = {"y"};
    /* beta 100: rows fit h = 2 (88 B), 8 weight reads: 128 + 512 + 8 x 256
     * = 2,688; columns fit Bc = 8 (80 B; 10 is not a width of the ladder
     * 32, 16, 11, 8, ...): 4 blocks, 128 + 512 + 256 + 3 x 128 = 1,280. */
    lf_group_cost c = eval_names(g, 100, "brr", y, 1);
    CHECK(c.valid);
    CHECK_EQ_I64(c.f_beta, 17);
    CHECK_EQ_I64(c.col_bc, 8);
    CHECK_EQ_I64(c.col_blocks, 4);
    CHECK_EQ_I64(c.col_dram, 384);
    CHECK_EQ_I64(c.f_d, 1280);
    CHECK_EQ_I64(c.mbu, 80);
    CHECK_EQ_I64(c.weight_reads, 1);
    /* beta 300: all weights fit beside the rows (296 B), as do 32 columns:
     * the same 896 B, and the tie keeps the rows. */
    c = eval_names(g, 300, "brr", y, 1);
    CHECK_EQ_I64(c.f_d, 896);
    CHECK_EQ_I64(c.col_blocks, 0);
    CHECK_EQ_I64(c.mbu, 296);
    /* beta 30: rows do not fit (48); columns of width 2 do (26 B), 16
     * blocks: 896 + 15 x 128. */
    c = eval_names(g, 30, "brr", y, 1);
    CHECK(c.valid);
    CHECK_EQ_I64(c.col_blocks, 16);
    CHECK_EQ_I64(c.f_d, 896 + 15 * 128);
    /* beta 17: one column needs 17 B, not < 17. */
    c = eval_names(g, 17, "brr", y, 1);
    CHECK(!c.valid);
    CHECK_EQ_I64(c.f_beta, 17);
    /* LBDF keeps its rule: all weights resident. */
    c = eval_names(g, 100, "lbdf", y, 1);
    CHECK(!c.valid);
    CHECK_EQ_I64(c.col_blocks, 0);
    lf_graph_free(g);
}

/* A constant of the output's rows added element-wise (a position table,
 * 16 x 8 int8 = 128 B) streams one row per output row: read once like an
 * input, one row (8 B) in flight in the weight terms, under both schemes
 * and whatever the tile height. */
static void test_streamed_constant(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "pos");
    tg_input(b, "x", 1, 16, 8);
    CHECK(lf_graph_builder_add_const(b, "pos", (lf_shape){1, 1, 16, 8}, NULL) >= 0);
    const char *in[2] = {"x", "pos"};
    CHECK(lf_graph_builder_add_op(b, LF_OP_ADD, "y", NULL, in, 2) >= 0);
    lf_graph *g = tf_build(b);
    static const char *const y[] = {"y"};
    for (int brr = 0; brr <= 1; brr++) {
        lf_group_cost c = eval_names(g, 40, brr ? "brr" : "lbdf", y, 1);
        CHECK(c.valid);
        CHECK_EQ_I64(c.weights, 8);
        CHECK_EQ_I64(c.in_bytes, 128 + 120);
        CHECK_EQ_I64(c.f_d, 128 + 128 + 128);
        CHECK_EQ_I64(c.weight_reads, 1);
    }
    lf_graph_free(g);
}

/* The staircase's prices of an attention group at every buffer of
 * [lo, below] (lf_cost_attn_prices: one sweep over the configurations'
 * tile heights, attn.c) against lf_cost_eval_at at each of those buffers,
 * on random cores: heads 1-3, key rows 2-9, K and V of one width or two
 * (their reads counted once for both or apart), and 0-3 causal stacks of
 * grouped query heads (the Softmax's attribute). */
static void test_prices_random(void)
{
    uint64_t x = 0xd1b54a32d192ed03ull;
    int64_t pieces = 0;
    for (int it = 0; it < 60; it++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int heads = 1 + (int)(x % 3), t = 2 + (int)((x >> 8) % 8), dk = 1 + (int)((x >> 16) % 5),
            dv = (x >> 20) & 1 ? dk : 1 + (int)((x >> 24) % 5), stacks = (int)((x >> 28) % 4);
        lf_graph_builder *b;
        lf_graph_builder_create(&b, "prices");
        tg_input(b, "q", heads, (stacks > 0 ? stacks : 1) * t, dk);
        tg_input(b, "kt", heads, dk, t);
        tg_input(b, "v", heads, t, dv);
        mm(b, "s", "q", "kt", 0, 0);
        lf_attrs a = {0};
        a.axes = LF_AXES(LF_DIM_W);
        a.causal = stacks;
        const char *sin = "s";
        CHECK(lf_graph_builder_add(b, LF_OP_SOFTMAX, "p", &a, &sin, 1) >= 0);
        mm(b, "o", "p", "v", 0, 0);
        lf_graph *g = tf_build(b);
        lf_cost_model *cm = tf_model_hand(g, 1 << 20, it % 2 ? "brr" : "lbdf");
        int32_t m[3];
        for (int i = 0; i < 3; i++)
            m[i] = lf_graph_find(g, core_ops[i]);
        int64_t lo = 1 + (int64_t)((x >> 32) % 200), below = lo + 1 + (int64_t)((x >> 40) % 3000);
        lf_cost_sched *sc = NULL;
        int32_t ns = 0;
        CHECK_OK(lf_cost_attn_prices(cm, m, 3, lo, below, &sc, &ns));
        CHECK(ns >= 1 && sc && sc[0].at == lo);
        int64_t bad = 0;
        for (int32_t k = 1; k < ns; k++) /* ascending, each piece another price */
            bad += sc[k].at <= sc[k - 1].at || sc[k].at > below ||
                   (sc[k].valid == sc[k - 1].valid && sc[k].f_d == sc[k - 1].f_d && sc[k].steps == sc[k - 1].steps);
        for (int64_t beta = lo, k = 0; ns > 0 && beta <= below; beta++) {
            while (k + 1 < ns && sc[k + 1].at <= beta)
                k++;
            lf_group_cost c;
            CHECK_OK(lf_cost_eval_at(cm, m, 3, beta, &c));
            bad += c.valid != sc[k].valid || (c.valid && (c.f_d != sc[k].f_d || c.steps != sc[k].steps));
        }
        CHECK_EQ_I64(bad, 0);
        pieces += ns;
        free(sc);
        lf_cost_model_free(cm);
        lf_graph_free(g);
    }
    CHECK(pieces > 120); /* prices that change inside the ranges, not one piece each */
}

int main(void)
{
    test_column_blocks();
    test_streamed_constant();
    lf_graph *g = core(2, 8, 4);
    test_resident_and_streamed(g);
    test_partial(g);
    test_online();
    test_causal();
    test_made_inside();
    test_brute_force();
    test_causal_attribute();
    test_exact_chain();
    test_steps_balanced();
    test_prices_random();
    lf_graph_free(g);
    return lf_test_result();
}

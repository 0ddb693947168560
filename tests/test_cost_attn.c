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

int main(void)
{
    lf_graph *g = core(2, 8, 4);
    test_resident_and_streamed(g);
    lf_graph_free(g);
    return lf_test_result();
}

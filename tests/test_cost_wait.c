/* The squeeze-and-excite wait (DESIGN §5): a tensor read before the wait
 * and again after it stays resident for the wait or is read from DRAM a
 * second time, whichever is valid with the lower F_D. Every expected number
 * is derived in the comment above its check (int8, N = 1).
 *
 * The block: X 16x8x8 -> e (1x1, 16 -> 32) -> gap -> s (sigmoid) ->
 * m = e * s -> p (1x1, 32 -> 16) -> add = p + X. The multiply m waits for
 * the pool to see e's last row; X is read by e before the wait and by the
 * add after it. Rows: X and p 128 B, e and m 256 B, vectors 32 B, the add's
 * staging row 128 B. Weights e 512 + p 512 = 1,024; the largest output
 * channel block is p's 32 B. F_D without a second read: X 1,024 + the add's
 * output 1,024 + weights 1,024 = 3,072.
 *
 * Kept resident (the sinks at row 0): e whole (8 rows, 2,048, the pool is
 * at its last row), X from the add's row 0 to e's row 7: 8 rows (1,024),
 * gap and s 32 each, m 256, p 128, staging 128: F_feat(1) = 3,648; with h
 * rows per step m, p and the staging row grow: F_feat(h) = 3,136 + 512 h.
 * The multiply's own start (e 2,048, X 1 row, vectors 64, m 256 = 2,496)
 * is smaller.
 * Read again: X holds e's window [7, 7] and the add's own [0, 0]: 2 rows,
 * F_feat(1) = 2,880; F_feat(h) = 2,112 + 768 h (X's two windows grow too);
 * F_D + 1,024. */
#include <string.h>

#include "graphs.h"
#include "planner/cost/cost.h"
#include "fixtures.h"
#include "testlib.h"

static lf_graph *mbconv_se(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "mbconv_se");
    tg_input(b, "x", 16, 8, 8);
    tg_conv(b, "e", "x", 32, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_unary(b, LF_OP_GLOBALAVGPOOL, "gap", "e");
    tg_unary(b, LF_OP_SIGMOID, "s", "gap");
    tg_binary(b, LF_OP_MUL, "m", "e", "s");
    tg_conv(b, "p", "m", 16, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "add", "p", "x");
    return tf_build(b);
}

static void whole_group(const lf_graph *g, lf_bitset *s)
{
    lf_bitset_init(s, g->n_ops);
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].type != LF_OP_INPUT)
            lf_bitset_set(s, v);
}

static lf_group_cost eval_all(const lf_graph *g, int64_t beta, const char *scheme)
{
    lf_cost_model *cm = tf_model_hand(g, beta, scheme);
    lf_bitset s;
    whole_group(g, &s);
    lf_group_cost c;
    memset(&c, 0, sizeof c);
    CHECK_OK(lf_cost_eval(cm, &s, &c));
    lf_bitset_destroy(&s);
    lf_cost_model_free(cm);
    return c;
}

/* LBDF keeps every weight: resident F_beta 1,024 + 3,648 = 4,672, read
 * again 1,024 + 2,880 = 3,904. At 8 KB both fit and resident moves less;
 * at 4,500 B only reading again fits; at 3,904 B neither does, and F_beta
 * is the smaller need. */
static void test_lbdf_choice(const lf_graph *g)
{
    lf_group_cost c = eval_all(g, 8192, "lbdf");
    CHECK(c.valid);
    CHECK_EQ_I64(c.f_beta, 4672);
    CHECK_EQ_I64(c.f_d, 3072);
    CHECK_EQ_I64(c.wait_resident, 1);
    CHECK_EQ_I64(c.reread_bytes, 0);

    c = eval_all(g, 4500, "lbdf");
    CHECK(c.valid);
    CHECK_EQ_I64(c.f_beta, 3904);
    CHECK_EQ_I64(c.f_d, 3072 + 1024);
    CHECK_EQ_I64(c.wait_resident, 0);
    CHECK_EQ_I64(c.reread_bytes, 1024);

    c = eval_all(g, 3904, "lbdf");
    CHECK(!c.valid);
    CHECK_EQ_I64(c.f_beta, 3904);
}

/* BRR: F_beta = F_feat(1) + 32. At 4,096 B resident fits (3,680) but not
 * with all weights (4,672), and its tiles stay at h = 1 (3,136 + 512 h +
 * 32 < 4,096 only for h = 1): 8 weight reads, F_D 2,048 + 8,192 = 10,240.
 * Read again, all weights fit beside the windows (1,024 + 2,880 = 3,904):
 * F_D 2,048 + 1,024 + 1,024 = 4,096, one tile of 8 rows, MBU 3,904.
 * At 3,800 B reading again tiles by h = 2 (2,112 + 1,536 + 32 = 3,680; h = 3
 * needs 4,448): 4 weight reads, F_D 2,048 + 4,096 + 1,024 = 7,168 against
 * resident 10,240. At 16 KB resident keeps everything: F_D 3,072. */
static void test_brr_choice(const lf_graph *g)
{
    lf_group_cost c = eval_all(g, 4096, "brr");
    CHECK(c.valid);
    CHECK_EQ_I64(c.wait_resident, 0);
    CHECK_EQ_I64(c.reread_bytes, 1024);
    CHECK_EQ_I64(c.f_beta, 2912);
    CHECK_EQ_I64(c.f_d, 4096);
    CHECK_EQ_I64(c.weight_reads, 1);
    CHECK_EQ_I64(c.tile_rows, 8);
    CHECK_EQ_I64(c.mbu, 3904);

    c = eval_all(g, 3800, "brr");
    CHECK(c.valid);
    CHECK_EQ_I64(c.reread_bytes, 1024);
    CHECK_EQ_I64(c.tile_rows, 2);
    CHECK_EQ_I64(c.weight_reads, 4);
    CHECK_EQ_I64(c.f_d, 7168);
    CHECK_EQ_I64(c.mbu, 2112 + 768 * 2 + 32);

    c = eval_all(g, 16384, "brr");
    CHECK_EQ_I64(c.wait_resident, 1);
    CHECK_EQ_I64(c.f_d, 3072);
    CHECK_EQ_I64(c.f_beta, 3648 + 32);
}

/* The explanation names the choice: read again, X has two windows of one
 * row each and moves 2,048 B; kept, one window of 8 rows. */
static void test_explain(const lf_graph *g)
{
    int32_t x = lf_graph_find(g, "x");
    const int64_t betas[2] = {4500, 8192};
    for (int k = 0; k < 2; k++) {
        lf_cost_model *cm = tf_model_hand(g, betas[k], "lbdf");
        lf_bitset s;
        whole_group(g, &s);
        lf_cost_report rep;
        CHECK_OK(lf_cost_explain(cm, &s, &rep));
        int found = 0;
        for (int32_t i = 0; i < rep.n_rows; i++) {
            const lf_window_row *r = &rep.rows[i];
            if (r->tensor != x) {
                CHECK_EQ_I64(r->wait, LF_WAIT_NONE);
                continue;
            }
            found = 1;
            if (k == 0) {
                CHECK_EQ_I64(r->wait, LF_WAIT_REREAD);
                CHECK_EQ_I64(r->lo, 7);
                CHECK_EQ_I64(r->hi, 7);
                CHECK_EQ_I64(r->lo2, 0);
                CHECK_EQ_I64(r->hi2, 0);
                CHECK_EQ_I64(r->rows + r->rows2, 2);
                CHECK_EQ_I64(r->bytes, 256);
                CHECK_EQ_I64(r->dram_bytes, 2048);
            } else {
                CHECK_EQ_I64(r->wait, LF_WAIT_RESIDENT);
                CHECK_EQ_I64(r->rows, 8);
                CHECK_EQ_I64(r->rows2, 0);
                CHECK_EQ_I64(r->dram_bytes, 1024);
            }
        }
        CHECK(found);
        CHECK_EQ_I64(rep.cost.f_beta, k == 0 ? 3904 : 4672);
        lf_cost_report_destroy(&rep);
        lf_bitset_destroy(&s);
        lf_cost_model_free(cm);
    }
}

/* lf_cost_steps_priced: the same steps as lf_cost_steps (steps[0..n)), each
 * priced from the walk's own view of the group as lf_cost_eval_at prices it
 * afresh one byte above its need (the energy and latency staircases read
 * the schedule there); from past the last step's need, only the last. */
static void check_priced(lf_cost_model *cm, const lf_bitset *s, const lf_cost_step *steps,
                         int32_t n)
{
    int32_t members[64];
    CHECK(s->nbits <= 64);
    if (s->nbits > 64)
        return;
    int32_t nm = lf_bitset_to_list(s, members);
    for (int last = 0; last < 2; last++) {
        lf_cost_step ps[LF_COST_MAX_STEPS];
        lf_group_cost at[LF_COST_MAX_STEPS];
        int32_t np = 0;
        int priced = 0;
        CHECK_OK(lf_cost_steps_priced(cm, s, INT64_MAX, last ? steps[n - 1].need + 1 : 0, ps, at,
                                      LF_COST_MAX_STEPS, &np, &priced));
        CHECK(priced);
        CHECK_EQ_I64(np, n);
        for (int32_t k = 0; k < n && k < np; k++) {
            lf_group_cost c;
            CHECK_EQ_I64(ps[k].need, steps[k].need);
            CHECK_EQ_I64(ps[k].f_d, steps[k].f_d);
            if (last && k + 1 < n) {
                CHECK(!at[k].valid);
                continue;
            }
            CHECK_OK(lf_cost_eval_at(cm, members, nm, steps[k].need + 1, &c));
            CHECK(c.valid && at[k].valid);
            CHECK_EQ_I64(at[k].f_d, c.f_d);
            CHECK_EQ_I64(at[k].f_beta, c.f_beta);
            CHECK_EQ_I64(at[k].mbu, c.mbu);
            CHECK_EQ_I64(at[k].steps, c.steps);
            CHECK_EQ_I64(at[k].tile_rows, c.tile_rows);
            CHECK_EQ_I64(at[k].weight_reads, c.weight_reads);
            CHECK_EQ_I64(at[k].wait_resident, c.wait_resident);
            CHECK_EQ_I64(at[k].reread_bytes, c.reread_bytes);
        }
    }
}

/* The whole block's steps under `scheme` are need[k] / f_d[k]. They come
 * from one evaluation that takes both ways through the wait; each must also
 * be what pricing the group (one way at a time, the other code path) gives
 * one byte above its need, and one byte below its need the step before it. */
static void check_steps(const lf_graph *g, const char *scheme, const int64_t *need,
                        const int64_t *f_d, int32_t n_expected)
{
    lf_cost_model *cm = tf_model_hand(g, 8192, scheme);
    lf_bitset s;
    whole_group(g, &s);
    lf_cost_step steps[LF_COST_MAX_STEPS];
    int32_t n = 0;
    CHECK_OK(lf_cost_steps(cm, &s, INT64_MAX, steps, LF_COST_MAX_STEPS, &n));
    CHECK_EQ_I64(n, n_expected);
    for (int32_t k = 0; k < n && k < n_expected; k++) {
        CHECK_EQ_I64(steps[k].need, need[k]);
        CHECK_EQ_I64(steps[k].f_d, f_d[k]);
        for (int below = 0; below < 2; below++) {
            lf_cost_model *at = tf_model_hand(g, steps[k].need + (below ? 0 : 1), scheme);
            lf_group_cost c;
            CHECK_OK(lf_cost_eval(at, &s, &c));
            if (below && k == 0)
                CHECK(!c.valid);
            else
                CHECK_EQ_I64(c.f_d, steps[below ? k - 1 : k].f_d);
            lf_cost_model_free(at);
        }
    }
    check_priced(cm, &s, steps, n);
    lf_bitset_destroy(&s);
    lf_cost_model_free(cm);
}

/* Both ways are steps of the group's staircase. LBDF: read again (3,904,
 * 4,096), kept resident (4,672, 3,072).
 * BRR: every re-read count is a step, each way through the wait, and one
 * step has every weight resident. F_D = 2,048 + reads x 1,024 (+ 1,024 read
 * again); need = F_feat(h) + 32 at the smallest h of each count over H = 8.
 * Kept: h = 1 (8 reads) 3,680 / 10,240; h = 2 (4) 4,192 / 6,144; weights
 * resident 1,024 + 3,648 = 4,672 / 3,072 (which beats h = 3, 4 and 8).
 * Read again: h = 1 2,912 / 11,264; h = 2 3,680 / 7,168 (beats the kept way's
 * 10,240 at the same need); weights resident 1,024 + 2,880 = 3,904 / 4,096
 * (which beats the kept way's h = 2 and the other heights). */
static void test_steps(const lf_graph *g)
{
    static const int64_t lbdf_need[] = {3904, 4672}, lbdf_f_d[] = {4096, 3072};
    check_steps(g, "lbdf", lbdf_need, lbdf_f_d, 2);
    static const int64_t brr_need[] = {2912, 3680, 3904, 4672}, brr_f_d[] = {11264, 7168, 4096, 3072};
    check_steps(g, "brr", brr_need, brr_f_d, 4);
}

/* Without the add nothing is read after the wait: no choice to make. A
 * tensor made inside the group and read on both sides is written and read:
 * with e -> relu r before the block, r is X's role, and reading it again
 * costs 2 x 1,024. */
static void test_no_wait_and_internal(const lf_graph *g)
{
    lf_cost_model *cm = tf_model_hand(g, 8192, "lbdf");
    lf_bitset s;
    whole_group(g, &s);
    lf_bitset_reset(&s, lf_graph_find(g, "add"));
    lf_group_cost c;
    CHECK_OK(lf_cost_eval(cm, &s, &c));
    CHECK_EQ_I64(c.wait_resident, 0);
    CHECK_EQ_I64(c.reread_bytes, 0);
    lf_bitset_destroy(&s);
    lf_cost_model_free(cm);

    lf_graph_builder *b;
    lf_graph_builder_create(&b, "mbconv_se_internal");
    tg_input(b, "x", 16, 8, 8);
    tg_unary(b, LF_OP_RELU, "r", "x");
    tg_conv(b, "e", "r", 32, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_unary(b, LF_OP_GLOBALAVGPOOL, "gap", "e");
    tg_unary(b, LF_OP_SIGMOID, "s", "gap");
    tg_binary(b, LF_OP_MUL, "m", "e", "s");
    tg_conv(b, "p", "m", 16, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "add", "p", "r");
    lf_graph *g2 = tf_build(b);
    /* Resident: r 8 rows like X above, X itself 1 row (r's window [7, 7]):
     * 3,648 + 128 = 3,776 + weights 1,024 = 4,800. Read again: r 2 rows,
     * X 1: 2,880 + 128 = 3,008 + 1,024 = 4,032. At 4,500 B only reading
     * again fits: F_D 3,072 + 2 x 1,024. */
    lf_group_cost d = eval_all(g2, 4500, "lbdf");
    CHECK(d.valid);
    CHECK_EQ_I64(d.f_beta, 4032);
    CHECK_EQ_I64(d.reread_bytes, 2048);
    CHECK_EQ_I64(d.f_d, 3072 + 2048);
    d = eval_all(g2, 8192, "lbdf");
    CHECK_EQ_I64(d.f_beta, 4800);
    CHECK_EQ_I64(d.f_d, 3072);
    lf_graph_free(g2);
}

int main(void)
{
    lf_graph *g = mbconv_se();
    test_lbdf_choice(g);
    test_brr_choice(g);
    test_explain(g);
    test_steps(g);
    test_no_wait_and_internal(g);
    lf_graph_free(g);
    return lf_test_result();
}

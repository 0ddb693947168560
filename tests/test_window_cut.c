/* Reads a part pays where its group holds no reader still to come
 * (planner/exact/window_reads.c, lf__win_closed_reads with reach): a part
 * with an edge out of the universe pays a second read of tensor p when
 * that edge reaches an ancestor of p only, or when every reader of p to
 * come is reached from the part inside the universe or lies in a free
 * component with no edge out of it but to ancestors of p. Hand-built
 * universes of one graph, each asked of one set; soundness on random DAGs
 * is test_window_reads', test_window_join's and test_cut_bounds'. */
#include <string.h>

#include "fixtures.h"
#include "graphs.h"
#include "planner/exact/downsets.h"
#include "planner/exact/window_reads.h"
#include "testlib.h"

/* x -> y, z, w (1x1 convs); p = conv(y), read by
 *   c  = p + z  (z outside every universe below, not an ancestor of p),
 *   c2 = p + y  (y outside, an ancestor of p),
 *   d1 = p + c  (reached from c),
 *   d2 = conv(p) (no other edge),
 *   d3 = p + w  (w outside, not an ancestor of p).
 * Op ids follow the builder's order. */
enum { X, Y, Z, W, P, C, C2, D1, D2, D3, N_OPS };

static lf_graph *build(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "cut");
    tg_input(b, "x", 8, 8, 8);
    tg_conv(b, "y", "x", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "z", "x", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "w", "x", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "p", "y", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "c", "p", "z");
    tg_binary(b, LF_OP_ADD, "c2", "p", "y");
    tg_binary(b, LF_OP_ADD, "d1", "p", "c");
    tg_conv(b, "d2", "p", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "d3", "p", "w");
    return tf_build(b);
}

/* What lf__win_closed_reads charges the set {s} over universe {p, s, r}
 * with p placed, p's tensor internal (bytes 1,000 per op); with reach
 * (lf__win_out_ops) or without (closed parts only). */
static int64_t charge(lf_cost_model *cm, int32_t s, int32_t r, int with_reach)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_bitset u;
    lf_bitset_init(&u, g->n_ops);
    lf_bitset_set(&u, P);
    lf_bitset_set(&u, s);
    lf_bitset_set(&u, r);
    lf__exact x;
    int64_t d = -1;
    uint8_t internal[N_OPS] = {0}, open[N_OPS] = {0};
    int64_t bytes[N_OPS], seen[N_OPS];
    lf__win_reach reach;
    memset(&reach, 0, sizeof reach);
    for (int32_t v = 0; v < N_OPS; v++)
        bytes[v] = 1000, seen[v] = -1;
    internal[P] = 1;
    if (lf__dp_setup(&x, cm, &u, NULL) == LF_OK && lf__win_reach_init(&reach, g->n_ops) == LF_OK) {
        lf__win_open_ops(&x, internal, open);
        lf__win_out_ops(&x, reach.outs);
        x.in_d[P] = 1;
        x.in_s[s] = 1;
        x.sub[0] = s; /* the DP's own array: teardown frees it */
        x.n_sub = 1;
        d = lf__win_closed_reads(&x, open, with_reach ? &reach : NULL, internal, NULL, bytes, seen, 1);
        x.in_d[P] = 0;
        x.in_s[s] = 0;
        x.n_sub = 0;
    }
    lf__win_reach_free(&reach);
    lf__dp_teardown(&x);
    lf_bitset_destroy(&u);
    return d;
}

static void test_hand(void)
{
    lf_graph *g = build();
    if (!g)
        return;
    CHECK_EQ_I64(g->n_ops, N_OPS);
    lf_cost_model *cm = tf_model_hand(g, 1 << 20, "lbdf");
    /* c is open (z is outside, no ancestor of p): only the new rules pay. */
    CHECK_EQ_I64(charge(cm, C, D1, 0), 0);
    CHECK_EQ_I64(charge(cm, C, D1, 1), 1000); /* d1 reached from c: not in c's group */
    CHECK_EQ_I64(charge(cm, C, D2, 1), 1000); /* d2's free component {d2} has no edge out */
    /* d3's component has an edge out (to w): not cut. (Here the only link
     * between w and z is the input x, which no group holds; the rule looks
     * no further than the universe's edges.) */
    CHECK_EQ_I64(charge(cm, C, D3, 1), 0);
    /* c2's only edge out reaches y, an ancestor of p: c2 is its whole group. */
    CHECK_EQ_I64(charge(cm, C2, D3, 0), 0);
    CHECK_EQ_I64(charge(cm, C2, D3, 1), 1000);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

int main(void)
{
    test_hand();
    return lf_test_result();
}

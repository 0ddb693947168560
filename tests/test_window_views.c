/* A view's staging row in the windows' relaxation
 * (planner/exact/window_views.c): a hand-computed concat where only the
 * staging row reaches the optimum, then random DAGs of the families with
 * concats (more seeds and sizes than test_window_reads), both schemes and
 * three buffers, where the windows' bound and their connected pass joined
 * never exceed the exact optimum (itself checked against brute force in
 * test_exact). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "graphs.h"
#include "planner/exact/exact.h"
#include "planner/exact/solve.h"
#include "random_dags.h"
#include "testlib.h"

/* x (16 x 8 x 8, int8: 1,024 B) read by two 1x1 convs a and b (16 ch,
 * 1,024 B, weights 256 B each), joined by a zero-copy concat c (2,048 B,
 * rows of 256 B) read by d, a 1x1 conv to 16 channels (weights 512 B). At
 * 800 B d is unfusable (its weights and rows pass beta alone). The monotone
 * floor of {a, c}: weights 256 + a row of x, a and b (c reads b) = 640 B,
 * under beta, but c's reader d lies outside the group, so c holds a
 * staging row: 896 B, and the group is invalid ({b, c} the same; {a, b, c}
 * has floor 896 already). So c is a group alone: a and b written and read,
 * x read twice, c written: 8,704 B with the weights, the optimum. Windows
 * without the staging row take {a, c} and pay 6,656 B. */
static void test_hand_concat(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "concat2");
    tg_input(b, "x", 16, 8, 8);
    tg_conv(b, "a", "x", 16, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "b", "x", 16, 1, 1, 0, 1, 0, LF_ACT_NONE);
    const char *in[2] = {"a", "b"};
    tg_concat(b, "c", in, 2);
    tg_conv(b, "d", "c", 16, 1, 1, 0, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    if (!g)
        return;
    lf_cost_model *cm = tf_model_hand(g, 800, "lbdf");
    CHECK_EQ_I64(tf_fusable_weights(cm), 512);
    CHECK_EQ_I64(tf_exact_optimum(cm), 8704);
    lf__window_stats ws;
    CHECK_OK(lf__window_lower_bound(cm, NULL, 0, &ws));
    CHECK_EQ_I64(ws.lower, 8704);
    lf_cost_model_free(cm);
    /* At 1,300 B {a, b, c} fits with its staging row (1,152 B): the
     * windows stay below the optimum, as before the rule. */
    cm = tf_model_hand(g, 1300, "lbdf");
    CHECK_EQ_I64(tf_exact_optimum(cm), 6144);
    CHECK_OK(lf__window_lower_bound(cm, NULL, 0, &ws));
    CHECK_EQ_I64(ws.lower, 5120);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* The same concat read by seven global average pools (a 32 B row each, no
 * weights): more readers than a window takes as ghosts, so windows of 3
 * ops see {a, b, c} alone. At 880 B the optimum is {a} then {b, c, and the
 * pools} (4,832 B): c's readers all join, so c holds no staging row. The
 * floor of {b, c} (weights 256 + a row of x, a and b: 640 B) with c's
 * staging row (256 B) passes beta, but with the seven readers instead
 * (7 x 32 B of rows) it stays under it, so the rule must keep {b, c}:
 * skipping it whenever the staging row passes beta gives 6,880 B, above the
 * optimum. */
static void test_hand_concat_readers(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "concat7");
    tg_input(b, "x", 16, 8, 8);
    tg_conv(b, "a", "x", 16, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "b", "x", 16, 1, 1, 0, 1, 0, LF_ACT_NONE);
    const char *in[2] = {"a", "b"};
    tg_concat(b, "c", in, 2);
    const char *names[7] = {"p0", "p1", "p2", "p3", "p4", "p5", "p6"};
    for (int i = 0; i < 7; i++)
        tg_pool(b, LF_OP_GLOBALAVGPOOL, names[i], "c", 0, 0, 0);
    lf_graph *g = tf_build(b);
    if (!g)
        return;
    lf_cost_model *cm = tf_model_hand(g, 880, "lbdf");
    CHECK_EQ_I64(tf_exact_optimum(cm), 4832);
    lf__window_stats ws;
    CHECK_OK(lf__window_lower_bound(cm, NULL, 3, &ws));
    CHECK_EQ_I64(ws.lower, 4832);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

static void test_random_concats(void)
{
    const int64_t betas[] = {RDAG_BETA_SMALL, RDAG_BETA_MEDIUM, RDAG_BETA_LARGE};
    const char *schemes[] = {"lbdf", "brr"};
    const int fams[] = {RDAG_CONCAT, RDAG_MIXED};
    int runs = 0, meets = 0;
    for (int fi = 0; fi < 2; fi++)
        for (uint64_t seed = 0; seed < 24; seed++) {
            lf_graph *g = rdag_build(seed, fams[fi], 8 + (int)(seed % 6) * 6);
            CHECK(g != NULL);
            if (!g)
                continue;
            for (int bi = 0; bi < 3; bi++)
                for (int si = 0; si < 2; si++) {
                    lf_cost_model *cm = tf_model_default(g, betas[bi], schemes[si]);
                    int64_t opt = tf_exact_optimum(cm), weights = tf_fusable_weights(cm), traffic = -1;
                    CHECK(opt >= 0);
                    CHECK_OK(lf__cut_lower_bound(cm, NULL, &traffic));
                    for (int32_t size = 3; size <= 9; size += 3) {
                        lf__window_stats ws;
                        CHECK_OK(lf__window_lower_bound(cm, NULL, size, &ws));
                        CHECK(ws.lower >= weights + traffic && ws.lower <= opt);
                        if (ws.lower > opt)
                            fprintf(stderr, "  %s seed %llu beta %lld %s size %d: windows %lld optimum %lld\n",
                                    rdag_family_names[fams[fi]], (unsigned long long)seed, (long long)betas[bi],
                                    schemes[si], (int)size, (long long)ws.lower, (long long)opt);
                        runs++;
                        meets += ws.lower == opt;
                    }
                    lf_cost_model_free(cm);
                }
            lf_graph_free(g);
        }
    printf("  %d runs, the windows meet the optimum in %d\n", runs, meets);
    CHECK(runs == 2 * 24 * 3 * 2 * 3);
    CHECK(meets > 0 && meets < runs);
}

int main(void)
{
    test_hand_concat();
    test_hand_concat_readers();
    test_random_concats();
    return lf_test_result();
}

/* Reads per group in the windows' connected charge
 * (planner/exact/window_reads.c): a hand-computed fan-out where only the
 * new reads reach the optimum, then random DAGs of every family, both
 * schemes and three buffers, where the windows' bound and its connected
 * pass joined or alone (window_join.c) never exceed the exact optimum
 * (itself checked against brute force in test_exact). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "graphs.h"
#include "planner/exact/exact.h"
#include "planner/exact/solve.h"
#include "random_dags.h"
#include "testlib.h"

/* x (32 x 8 x 8, int8: 2,048 B) -> a: 1x1 conv to 64 channels (4,096 B,
 * weights 2,048 B) read by c and d, 1x1 convs to 16 channels (graph
 * outputs, 1,024 B and weights 1,024 B each). Floors of F_beta (weights +
 * a row of each tensor touched; rows: x 256, a 512, c and d 128): {a}
 * 2,816, {a, c} 3,968, {c, d} 2,816. At 3,000 B a shares no group with a
 * reader, and c and d share none either: no op joins them but a. So a is
 * written and read twice; x read, c and d written: 16,384 B of traffic,
 * + 4,096 of weights = 20,480, the optimum (three singletons).
 *
 * The forced cuts see one read of a (c and d are not apart: their hull is
 * the two ops, under beta): 16,384 B. The windows' first charge may take
 * {c, d} as one part (disconnected, under the floor): one read, 16,384.
 * The connected charge pays a's component a write and one read; the part
 * {c} (or {d}) first is closed, its group whole, and the other reader is
 * still to come, so it pays the second read: 20,480, the optimum. */
static void test_hand_fanout(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "fanout2");
    tg_input(b, "x", 32, 8, 8);
    tg_conv(b, "a", "x", 64, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "c", "a", 16, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "d", "a", 16, 1, 1, 0, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    if (!g)
        return;
    lf_cost_model *cm = tf_model_hand(g, 3000, "lbdf");
    int64_t traffic = -1, conn = -1;
    CHECK_OK(lf__cut_lower_bound(cm, NULL, &traffic));
    CHECK_EQ_I64(traffic, 12288);
    CHECK_EQ_I64(tf_fusable_weights(cm), 4096);
    CHECK_EQ_I64(tf_exact_optimum(cm), 20480);
    lf__window_stats ws;
    CHECK_OK(lf__window_lower_bound(cm, NULL, 0, &ws));
    CHECK_EQ_I64(ws.lower, 20480);
    CHECK_EQ_I64(ws.connected, 1);
    CHECK_OK(tf_window_join_bound(cm, 8, 0, &conn));
    CHECK_EQ_I64(conn, 20480);
    lf_cost_model_free(cm);
    /* At 4,500 B {a, c} fits: a is written and read by d alone (x read,
     * c's tensor stays in the group, d written): 2,048 + 8,192 + 2,048 +
     * weights 4,096 = 16,384, and the windows meet it without the second
     * read (c's part holds a, so no closed part reads a). */
    cm = tf_model_hand(g, 4500, "lbdf");
    CHECK_EQ_I64(tf_exact_optimum(cm), 16384);
    CHECK_OK(lf__window_lower_bound(cm, NULL, 0, &ws));
    CHECK_EQ_I64(ws.lower, 16384);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

static void test_random_dags(void)
{
    const int64_t betas[] = {RDAG_BETA_SMALL, RDAG_BETA_MEDIUM, RDAG_BETA_LARGE};
    const char *schemes[] = {"lbdf", "brr"};
    const int32_t sizes[] = {3, 4, 6, 8};
    int runs = 0, meets = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 8; seed++) {
            lf_graph *g = rdag_build(seed, fam, 8 + (int)(seed % 4) * 8);
            CHECK(g != NULL);
            if (!g)
                continue;
            for (int bi = 0; bi < 3; bi++)
                for (int si = 0; si < 2; si++) {
                    lf_cost_model *cm = tf_model_default(g, betas[bi], schemes[si]);
                    int64_t opt = tf_exact_optimum(cm), weights = tf_fusable_weights(cm), traffic = -1;
                    CHECK(opt >= 0);
                    CHECK_OK(lf__cut_lower_bound(cm, NULL, &traffic));
                    for (size_t zi = 0; zi < sizeof sizes / sizeof *sizes; zi++) {
                        lf__window_stats ws;
                        int64_t joined = -1, alone = -1;
                        CHECK_OK(lf__window_lower_bound(cm, NULL, sizes[zi], &ws));
                        CHECK_OK(tf_window_join_bound(cm, sizes[zi], 1, &joined));
                        CHECK_OK(tf_window_join_bound(cm, sizes[zi], 0, &alone));
                        CHECK(ws.lower >= weights + traffic && ws.lower <= opt);
                        CHECK(joined >= alone && joined <= opt && alone >= weights + traffic);
                        if (ws.lower > opt || joined > opt)
                            fprintf(stderr, "  %s seed %llu beta %lld %s size %d: windows %lld joined %lld optimum %lld\n",
                                    rdag_family_names[fam], (unsigned long long)seed, (long long)betas[bi],
                                    schemes[si], (int)sizes[zi], (long long)ws.lower, (long long)joined,
                                    (long long)opt);
                        runs++;
                        meets += ws.lower == opt;
                    }
                    lf_cost_model_free(cm);
                }
            lf_graph_free(g);
        }
    printf("  %d runs, the windows meet the optimum in %d\n", runs, meets);
    CHECK(runs == RDAG_FAMILIES * 8 * 3 * 2 * 4);
    CHECK(meets > 0 && meets < runs);
}

int main(void)
{
    test_hand_fanout();
    test_random_dags();
    return lf_test_result();
}

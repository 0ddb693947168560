/* A grown window takes in the next one where its ghosts lie
 * (planner/exact/window_merge.c, window_bound.c's lf__win_grow): the end it
 * merges to on a hand graph, and the merged windows' bound against the
 * exact optimum on random DAGs (itself checked against brute force in
 * test_exact). */
#include <stdio.h>
#include <stdlib.h>

#include "fixtures.h"
#include "graphs.h"
#include "planner/exact/solve.h"
#include "random_dags.h"
#include "testlib.h"

/* x -> c1 -> c2 -> r -> s, x -> p -> q -> s (ids 1..6: c1, c2, p, q, r, s).
 * With a buffer that holds everything no tensor is forced out, so the
 * window {c1, c2} has one ghost, r (c2's reader past it). */
static void test_merge_end_hand(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "merge_hand");
    tg_input(b, "x", 8, 8, 8);
    tg_conv(b, "c1", "x", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "c2", "c1", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "p", "x", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "q", "p", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "r", "c2", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "s", "q", "r");
    lf_graph *g = tf_build(b);
    if (!g)
        return;
    CHECK_EQ_I64(g->n_ops, 7);
    lf_cost_model *cm = tf_model_hand(g, (int64_t)1 << 20, "lbdf");
    int64_t bytes[7], floors[7];
    int32_t ops[6];
    for (int32_t v = 0; v < 7; v++)
        bytes[v] = lf_cost_tensor_bytes(cm, v);
    for (int32_t i = 0; i < 6; i++)
        ops[i] = i + 1;
    CHECK_OK(lf__cut_tensor_floors(cm, floors));
    CHECK_EQ_I64(floors[2], 0);
    int32_t end = 0;
    /* The rest (p, q, r, s) is one window of 4 ops and holds the ghost r. */
    CHECK_OK(lf__window_merge_end(g, bytes, floors, ops, 6, 0, 2, 4, &end));
    CHECK_EQ_I64(end, 6);
    /* Windows of 2: the next one is {p, q} (its end where the fewest bytes
     * cross: q's 512 B, a tie with p's, the longer kept), no ghost there. */
    CHECK_EQ_I64(lf__window_end(g, bytes, ops, 6, 2, 2), 4);
    CHECK_OK(lf__window_merge_end(g, bytes, floors, ops, 6, 0, 2, 2, &end));
    CHECK_EQ_I64(end, -1);
    /* From {c1, c2, p, q}: the next window {r, s} holds r (c2's reader) and s. */
    CHECK_OK(lf__window_merge_end(g, bytes, floors, ops, 6, 0, 4, 2, &end));
    CHECK_EQ_I64(end, 6);
    /* The last window has nothing after it; an empty one no ghosts. */
    CHECK_OK(lf__window_merge_end(g, bytes, floors, ops, 6, 0, 6, 2, &end));
    CHECK_EQ_I64(end, -1);
    CHECK_OK(lf__window_merge_end(g, bytes, floors, ops, 6, 2, 2, 2, &end));
    CHECK_EQ_I64(end, -1);
    /* A tensor forced out takes no ghosts: none for c2 at a buffer that
     * holds no two ops together. */
    lf_cost_model *tiny = tf_model_hand(g, 1100, "lbdf");
    int64_t tiny_floors[7];
    CHECK_OK(lf__cut_tensor_floors(tiny, tiny_floors));
    if (tiny_floors[2] > 0) {
        CHECK_OK(lf__window_merge_end(g, bytes, tiny_floors, ops, 6, 0, 2, 4, &end));
        CHECK_EQ_I64(end, -1);
    }
    lf_cost_model_free(tiny);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* The windows of 4 ops with each one taken into the one before it where
 * that one's ghosts lie (as lf__win_grow does past its growth; random DAGs
 * are too narrow for a grown window to stop short of their end), solved
 * under the connected charge: the bound into *lower, the merges into
 * *merges. */
static lf_status merged_bound(lf_cost_model *cm, int64_t *lower, int *merges)
{
    const lf_graph *g = lf_cost_graph(cm);
    int32_t ops[512], ends[512], n_win = 0;
    int64_t bytes[512], floors[512];
    int32_t n_ops = tf_window_ops(cm, ops, bytes);
    *merges = 0;
    lf_status st = lf__cut_tensor_floors(cm, floors);
    for (int32_t from = 0; from < n_ops && st == LF_OK; from = ends[n_win++]) {
        int32_t to = lf__window_end(g, bytes, ops, n_ops, from, 4), end = -1;
        st = lf__window_merge_end(g, bytes, floors, ops, n_ops, from, to, 4, &end);
        *merges += end > 0;
        ends[n_win] = end > 0 ? end : to;
    }
    return st == LF_OK ? lf__window_join_bound(cm, NULL, ends, n_win, 0, lower) : st;
}

/* On random DAGs of every family, both schemes and three buffers, the
 * merged windows bound every plan (at most the exact optimum), merges
 * happen, and they sometimes charge more than the windows unmerged. */
static void test_random_dags(void)
{
    const int64_t betas[] = {RDAG_BETA_SMALL, RDAG_BETA_MEDIUM, RDAG_BETA_LARGE};
    const char *schemes[] = {"lbdf", "brr"};
    int runs = 0, merged = 0, beats = 0, meets = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 8; seed++) {
            lf_graph *g = rdag_build(seed, fam, 8 + (int)(seed % 4) * 8);
            CHECK(g != NULL);
            if (!g)
                continue;
            for (int bi = 0; bi < 3; bi++)
                for (int si = 0; si < 2; si++) {
                    lf_cost_model *cm = tf_model_default(g, betas[bi], schemes[si]);
                    int64_t opt = tf_exact_optimum(cm), lower = -1, alone = -1;
                    int merges = 0;
                    CHECK(opt >= 0);
                    CHECK_OK(merged_bound(cm, &lower, &merges));
                    CHECK_OK(tf_window_join_bound(cm, 4, 0, &alone));
                    CHECK(lower >= 0 && lower <= opt);
                    if (lower > opt)
                        fprintf(stderr, "  %s seed %llu beta %lld %s: merged %lld optimum %lld\n",
                                rdag_family_names[fam], (unsigned long long)seed, (long long)betas[bi],
                                schemes[si], (long long)lower, (long long)opt);
                    runs++;
                    merged += merges > 0;
                    beats += lower > alone;
                    meets += lower == opt;
                    lf_cost_model_free(cm);
                }
            lf_graph_free(g);
        }
    fprintf(stderr,
            "  %d runs: windows merged in %d, above the windows unmerged in %d, at the optimum in %d\n",
            runs, merged, beats, meets);
    CHECK(merged > runs / 4);
    CHECK(beats > 0);
}

int main(void)
{
    test_merge_end_hand();
    test_random_dags();
    return lf_test_result();
}

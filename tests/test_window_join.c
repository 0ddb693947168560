/* The windows joined at their boundaries (planner/exact/window_join.c): on
 * random DAGs of every family, both schemes and three buffers, with windows
 * of 3 to 8 ops (several per graph), the joined floor never exceeds the
 * exact optimum (itself checked against brute force in test_exact), under
 * DRAM and, priced by lf_cost_objective_plan_floor, under energy and
 * latency; it is never below the same windows unjoined, and not vacuous:
 * it adds to the forced cuts, sometimes beats the unjoined windows and
 * sometimes meets the optimum. */
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "planner/cost/objective.h"
#include "planner/exact/exact.h"
#include "planner/exact/solve.h"
#include "planner/plan.h"
#include "random_dags.h"
#include "testlib.h"

static void test_random_dags(void)
{
    const int64_t betas[] = {RDAG_BETA_SMALL, RDAG_BETA_MEDIUM, RDAG_BETA_LARGE};
    const char *schemes[] = {"lbdf", "brr"};
    const int32_t sizes[] = {3, 4, 6, 8};
    int runs = 0, adds = 0, beats = 0, meets = 0, priced = 0;
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
                        int64_t joined = -1, alone = -1;
                        CHECK_OK(tf_window_join_bound(cm, sizes[zi], 1, &joined));
                        CHECK_OK(tf_window_join_bound(cm, sizes[zi], 0, &alone));
                        CHECK(joined >= alone);
                        CHECK(joined >= weights + traffic && joined <= opt);
                        if (joined > opt)
                            fprintf(stderr, "  %s seed %llu beta %lld %s size %d: joined %lld optimum %lld\n",
                                    rdag_family_names[fam], (unsigned long long)seed, (long long)betas[bi],
                                    schemes[si], (int)sizes[zi], (long long)joined, (long long)opt);
                        runs++;
                        adds += joined > weights + traffic;
                        beats += joined > alone;
                        meets += joined == opt;
                    }
                    lf_cost_model_free(cm);
                    /* Energy and latency: the floor in bytes, priced. */
                    for (int o = LF_PLAN_OBJ_ENERGY; o <= LF_PLAN_OBJ_LATENCY; o++) {
                        lf_hw hw;
                        lf_hw_default(&hw);
                        hw.buffer_bytes = betas[bi];
                        hw.has_energy = 1;
                        lf_cost_model *om = NULL;
                        CHECK_OK(lf_cost_model_create(&om, g, &hw, schemes[si]));
                        if (!om)
                            continue;
                        CHECK_OK(lf_cost_set_objective(om, (lf_plan_objective)o));
                        int64_t fig = tf_exact_objective(om), joined = -1;
                        CHECK(fig >= 0);
                        CHECK_OK(tf_window_join_bound(om, 4, 1, &joined));
                        CHECK(lf_cost_objective_plan_floor(om, joined) <= fig);
                        priced++;
                        lf_cost_model_free(om);
                    }
                }
            lf_graph_free(g);
        }
    fprintf(stderr,
            "  %d runs: the join adds to the forced cuts in %d, beats the same windows unjoined in "
            "%d, meets the optimum in %d; %d priced under energy and latency\n",
            runs, adds, beats, meets, priced);
    CHECK(adds > runs / 8);
    CHECK(beats > 0);
    CHECK(meets > 0 && meets < runs);
}

/* The join under a time limit (window_join.c: the windows past their first
 * share tried again, the constrained runs' shares after their windows'
 * time) with a candidate cap that stops some windows: the same floor as
 * without a time limit under the same cap (the cap, not the clock, decides
 * which windows finish, so the tries again and the shares move nothing),
 * the cap binds in some runs, and the floor stays at most the optimum. */
static void test_time_limit(void)
{
    int runs = 0, capped = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 4; seed++) {
            lf_graph *g = rdag_build(seed, fam, 16 + (int)(seed % 2) * 8);
            CHECK(g != NULL);
            if (!g)
                continue;
            lf_cost_model *cm = tf_model_default(g, RDAG_BETA_MEDIUM, "lbdf");
            int64_t opt = tf_exact_optimum(cm), full = -1;
            CHECK_OK(tf_window_join_bound(cm, 8, 1, &full));
            int32_t ends[512];
            int32_t n_win = tf_window_ends(cm, 8, ends);
            lf_exact_config k;
            lf_exact_config_default(&k);
            k.max_candidates = 40;
            int64_t untimed = -1, timed = -1;
            CHECK_OK(lf__window_join_bound(cm, &k, ends, n_win, 1, &untimed));
            k.time_limit_s = 30;
            CHECK_OK(lf__window_join_bound(cm, &k, ends, n_win, 1, &timed));
            CHECK(timed == untimed && untimed <= full && full <= opt);
            runs++;
            capped += untimed < full;
            lf_cost_model_free(cm);
            lf_graph_free(g);
        }
    fprintf(stderr, "  %d runs with a time limit and a cap of 40 candidate sets, the cap binding in %d\n", runs,
            capped);
    CHECK(capped > 0);
}

int main(void)
{
    test_random_dags();
    test_time_limit();
    return lf_test_result();
}

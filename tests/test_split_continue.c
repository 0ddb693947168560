/* The tree splitter's cost-aware continuation (splitter/tree.h
 * cost_continue) against the paper's rule on random DAGs under both schemes. */
#include <stdio.h>

#include "planner/exact/exact.h"
#include "random_dags.h"
#include "splitter/proposer.h"
#include "splitter/splitter.h"
#include "splitter/tree.h"
#include "fixtures.h"
#include "testlib.h"

/* The cost-aware continuation (lf_tree_options.cost_continue): on random
 * DAGs under both schemes, every split is still valid, never costs more DRAM
 * than the paper's rule (the same cuts, a valid part replaced only by a
 * cheaper split of it), never less than the optimal split, and is strictly
 * cheaper on some groups under BRR, where a valid part re-reads its weights
 * per row tile. */
static int64_t split_fd(lf_cost_model *cm, const lf_split_result *r)
{
    int64_t sum = 0;
    for (int32_t q = 0; q < r->n_parts; q++) {
        lf_group_cost c;
        CHECK_OK(lf_cost_eval(cm, &r->parts[q], &c));
        sum += c.f_d;
    }
    return sum;
}

int main(void)
{
    int64_t compared = 0, cheaper_brr = 0;
    for (int f = 0; f < RDAG_FAMILIES; f++)
        for (uint64_t seed = 0; seed < 4; seed++)
            for (int scheme = 0; scheme < 2; scheme++) {
                lf_graph *g = rdag_build(700 + seed, f, 24);
                if (!g)
                    continue;
                lf_cost_model *cm = tf_model_default(g, RDAG_BETA_SMALL, scheme ? "brr" : "lbdf");
                lf_bitset grp[8];
                for (int i = 0; i < 8; i++)
                    CHECK_OK(lf_bitset_init(&grp[i], g->n_ops));
                int32_t ng = cm ? tf_invalid_components(cm, grp, 8) : 0;
                lf_splitter *s[2] = {NULL, NULL};
                for (int k = 0; k < 2; k++) {
                    lf_tree_options o;
                    lf_tree_options_default(&o);
                    o.cost_continue = k;
                    CHECK_OK(lf_splitter_tree_create(&s[k], lf_proposer_all(), 3, &o));
                }
                if (s[1])
                    CHECK_STR(s[1]->name, "tree-all+continue");
                lf_split_result r[2];
                CHECK_OK(lf_split_result_init(&r[0], g->n_ops));
                CHECK_OK(lf_split_result_init(&r[1], g->n_ops));
                for (int32_t i = 0; s[0] && s[1] && i < ng; i++) {
                    CHECK_OK(s[0]->split(s[0], cm, &grp[i], seed, &r[0]));
                    CHECK_OK(s[1]->split(s[1], cm, &grp[i], seed, &r[1]));
                    CHECK_OK(lf_split_result_check(cm, &grp[i], &r[1]));
                    if (!r[0].rectified || !r[1].rectified)
                        continue;
                    int64_t plain = split_fd(cm, &r[0]), cont = split_fd(cm, &r[1]);
                    CHECK(cont <= plain);
                    lf_plan opt;
                    int64_t best = 0;
                    if (lf_exact_split(cm, &grp[i], NULL, &opt, &best, NULL) == LF_OK) {
                        CHECK(cont >= best);
                        lf_plan_destroy(&opt);
                    }
                    compared++;
                    cheaper_brr += scheme && cont < plain;
                }
                lf_split_result_destroy(&r[0]);
                lf_split_result_destroy(&r[1]);
                lf_splitter_free(s[0]);
                lf_splitter_free(s[1]);
                for (int i = 0; i < 8; i++)
                    lf_bitset_destroy(&grp[i]);
                lf_cost_model_free(cm);
                lf_graph_free(g);
            }
    printf("cost continuation: %lld groups compared, %lld cheaper under BRR\n", (long long)compared,
           (long long)cheaper_brr);
    CHECK(compared > 20);
    CHECK(cheaper_brr > 0);
    return lf_test_result();
}

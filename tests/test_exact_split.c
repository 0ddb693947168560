/* The exact splitter (--split exact): on the invalid whole-graph groups of
 * random DAGs its parts meet the splitter contract, cost exactly the optimal
 * split's F_D (lf_exact_split), never more than the random split's, and past
 * its candidate limit it returns no parts (the search's fallback). */
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "planner/exact/exact.h"
#include "random_dags.h"
#include "splitter/exact_split.h"
#include "testlib.h"

static int64_t parts_dram(lf_cost_model *cm, const lf_split_result *r)
{
    int64_t d = 0;
    for (int32_t i = 0; i < r->n_parts; i++) {
        lf_group_cost c;
        CHECK_OK(lf_cost_eval(cm, &r->parts[i], &c));
        d += c.f_d;
    }
    return d;
}

int main(void)
{
    lf_splitter *xs = NULL, *tiny = NULL;
    CHECK_OK(lf_splitter_exact_create(&xs, LF_EXACT_SPLIT_DEFAULT_CANDIDATES));
    CHECK_OK(lf_splitter_exact_create(&tiny, 1));
    lf_splitter *none = NULL;
    CHECK_EQ_I64(lf_splitter_exact_create(&none, 0), LF_EINVAL);
    CHECK(none == NULL);
    int split = 0, cheaper = 0;
    const char *schemes[] = {"lbdf", "brr"};
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 14; seed++)
            for (int si = 0; si < 2; si++) {
                lf_graph *g = rdag_build(seed, fam, 10);
                lf_hw hw;
                lf_hw_default(&hw);
                hw.buffer_bytes = RDAG_BETA_MEDIUM;
                lf_cost_model *cm = NULL;
                CHECK_OK(lf_cost_model_create(&cm, g, &hw, schemes[si]));
                lf_bitset grp;
                lf_bitset_init(&grp, g->n_ops);
                int ok = 1;
                for (int32_t v = 0; v < g->n_ops; v++)
                    if (g->ops[v].type != LF_OP_INPUT) {
                        ok &= lf_cost_fusable(cm, v);
                        lf_bitset_set(&grp, v);
                    }
                lf_group_cost c;
                CHECK_OK(lf_cost_eval(cm, &grp, &c));
                if (ok && !c.valid) {
                    lf_split_result r, rr, rt;
                    lf_split_result_init(&r, g->n_ops);
                    lf_split_result_init(&rr, g->n_ops);
                    lf_split_result_init(&rt, g->n_ops);
                    CHECK_OK(xs->split(xs, cm, &grp, 7, &r));
                    CHECK(r.n_parts >= 2 && r.rectified);
                    CHECK_OK(lf_split_result_check(cm, &grp, &r));
                    lf_plan opt;
                    int64_t best = 0;
                    CHECK_OK(lf_exact_split(cm, &grp, NULL, &opt, &best, NULL));
                    CHECK_EQ_I64(parts_dram(cm, &r), best);
                    const lf_splitter *rs = lf_splitter_random();
                    CHECK_OK(rs->split(rs, cm, &grp, 7, &rr));
                    int64_t rd = parts_dram(cm, &rr);
                    CHECK(best <= rd);
                    cheaper += best < rd;
                    CHECK_OK(tiny->split(tiny, cm, &grp, 7, &rt));
                    CHECK(rt.n_parts == 0);
                    split++;
                    lf_plan_destroy(&opt);
                    lf_split_result_destroy(&r);
                    lf_split_result_destroy(&rr);
                    lf_split_result_destroy(&rt);
                }
                lf_bitset_destroy(&grp);
                lf_cost_model_free(cm);
                lf_graph_free(g);
            }
    fprintf(stderr, "  %d invalid groups split, %d cheaper than the random split\n", split, cheaper);
    CHECK(split >= 20 && cheaper >= 8);
    lf_splitter_free(xs);
    lf_splitter_free(tiny);
    return lf_test_result();
}

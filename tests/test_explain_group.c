/* One group's explanation (splitter/explain_group.h), the work of `fusionplan
 * explain`: resnet18's first basic block without its skip input (ops 4-8:
 * conv1, relu, conv2, add, relu_1) at a 64 KB buffer under LBDF needs
 * 109,696 B, so it is invalid, and the shipped GNN says so; the saliency
 * ranking is the explainer's own scores, sorted; the report and the DOT
 * picture carry them. A single op has no edge to rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "models/registry.h"
#include "splitter/explain_group.h"
#include "splitter/splitter.h"
#include "testlib.h"

static char *memtext(void (*fill)(FILE *, const void *), const void *arg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fill(f, arg);
    fclose(f);
    return text;
}

typedef struct {
    const lf_cost_model *cm;
    const lf_group_explanation *e;
} report_args;

static void fill_report(FILE *f, const void *arg)
{
    const report_args *a = arg;
    lf_group_explanation_write(f, a->cm, a->e, 3);
}

static void fill_dot(FILE *f, const void *arg)
{
    const report_args *a = arg;
    lf_group_explanation_dot(f, lf_cost_graph(a->cm), a->e, 3);
}

static void test_block(lf_cost_model *cm, const char *gnn)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_bitset grp;
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    for (int32_t v = 4; v <= 8; v++)
        lf_bitset_set(&grp, v);
    lf_group_explain_config cfg = {"saliency", gnn, NULL, NULL, 1};
    lf_group_explanation e;
    CHECK_OK(lf_group_explain(cm, &grp, &cfg, &e));
    CHECK_EQ_I64(e.xg.n_nodes, 5);
    CHECK_EQ_I64(e.n_edges, 4);
    CHECK_EQ_I64(e.whole.f_beta, 109696);
    CHECK(!e.whole.valid);
    CHECK(e.prob[0] > e.prob[1]);
    CHECK_STR(e.explainer, "saliency");
    /* the explainer run directly gives the same scores */
    lf_gnn_graph view = lf_xgraph_view(&e.xg);
    double score[4];
    CHECK_OK(lf_explainer_run(lf_explainer_saliency(), &e.np_.gnn, &view, lf_split_seed(1, &grp), score));
    lf_edge_score want[4];
    for (int32_t i = 0; i < 4; i++)
        want[i] = (lf_edge_score){e.xg.ops[e.xg.src[i]], e.xg.ops[e.xg.dst[i]], score[i]};
    lf_proposal_rank(want, 4);
    for (int32_t i = 0; i < 4 && e.ranked; i++) {
        CHECK_EQ_I64(e.ranked[i].u, want[i].u);
        CHECK_EQ_I64(e.ranked[i].v, want[i].v);
        CHECK(e.ranked[i].score == want[i].score);
    }
    CHECK(e.ranked && e.ranked[0].score >= e.ranked[3].score);
    report_args a = {cm, &e};
    char *t = memtext(fill_report, &a);
    CHECK(t && strncmp(t, "group     5 ops, 4 edges of resnet18 under lbdf, beta 65,536 B\n"
                          "F_beta    109,696 B -> INVALID\nGNN       p(valid) ", 111) == 0);
    CHECK(t && strstr(t, " -> predicts INVALID\n\nexplainer saliency ("));
    CHECK(t && strstr(t, "  *\n   4  "));
    free(t);
    t = memtext(fill_dot, &a);
    CHECK(t && strstr(t, "  n4 [label=\"layer1.0.conv1\"];\n"));
    CHECK(t && strstr(t, "[style=dashed, label="));
    int solid = 0;
    for (const char *p = t; p && (p = strstr(p, "style=solid")); p++)
        solid++;
    CHECK_EQ_I64(solid, 3);
    free(t);
    lf_group_explanation_destroy(&e);

    /* one op: nothing to rank */
    lf_bitset_clear_all(&grp);
    lf_bitset_set(&grp, 4);
    CHECK_OK(lf_group_explain(cm, &grp, &cfg, &e));
    CHECK_EQ_I64(e.n_edges, 0);
    CHECK(e.whole.valid);
    t = memtext(fill_report, &a);
    CHECK(t && strstr(t, "\nthe group has no edges: nothing to explain\n"));
    free(t);
    lf_group_explanation_destroy(&e);

    cfg.explainer = "oracle";
    CHECK(lf_group_explain(cm, &grp, &cfg, &e) == LF_EINVAL);
    lf_group_explanation_destroy(&e);
    lf_bitset_destroy(&grp);
}

int main(void)
{
    lf_graph *g = NULL;
    lf_model_options mo = {0, 1};
    CHECK_OK(lf_model_build("resnet18", &mo, &g));
    if (!g)
        return lf_test_result();
    const char *gnn = LF_SOURCE_DIR "/explain/weights/gnn-lbdf.bin";
    lf_cost_model *cm = tf_model_default(g, 65536, "lbdf");
    if (cm)
        test_block(cm, gnn);
    lf_cost_model_free(cm);
    /* a GNN trained for another scheme is refused */
    cm = tf_model_default(g, 65536, "brr");
    if (cm) {
        lf_bitset grp;
        CHECK_OK(lf_bitset_init(&grp, g->n_ops));
        lf_bitset_set(&grp, 4);
        lf_group_explain_config cfg = {"gnne", gnn, NULL, NULL, 1};
        lf_group_explanation e;
        CHECK(lf_group_explain(cm, &grp, &cfg, &e) == LF_EINVAL);
        CHECK(strstr(lf_last_error(), "was trained for scheme lbdf, the cost model uses brr") != NULL);
        lf_group_explanation_destroy(&e);
        lf_bitset_destroy(&grp);
    }
    lf_cost_model_free(cm);
    lf_graph_free(g);
    return lf_test_result();
}

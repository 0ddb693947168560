/* One group's explanation (splitter/explain_group.h): the explainer opened by
 * name (splitter/proposer_named.h), the GNN's prediction, the ranked edges. */
#include <stdlib.h>
#include <string.h>

#include "planner/util/format.h"
#include "planner/util/clock.h"
#include "splitter/explain_group.h"
#include "splitter/splitter.h"

static const char *const lf__explainers[] = {"gnne", "pg", "rg", "saliency", "occlusion"};

static lf_status lf__rank(lf_group_explanation *e, const lf_bitset *group, uint64_t seed)
{
    lf_gnn_graph view = lf_xgraph_view(&e->xg);
    e->n_edges = e->xg.n_edges;
    if (e->n_edges == 0)
        return LF_OK;
    double *score = malloc(sizeof(double) * (size_t)e->n_edges);
    e->ranked = malloc(sizeof(lf_edge_score) * (size_t)e->n_edges);
    lf_status st = LF_OK;
    if (!score || !e->ranked)
        st = lf_set_error(LF_ENOMEM, "out of memory for %d edges", (int)e->n_edges);
    double t0 = lf_now_seconds();
    if (st == LF_OK)
        st = lf_explainer_run(e->np_.explainer, &e->np_.gnn, &view, lf_split_seed(seed, group), score);
    e->seconds = lf_now_seconds() - t0;
    for (int32_t i = 0; st == LF_OK && i < e->n_edges; i++) {
        e->ranked[i].u = e->xg.ops[e->xg.src[i]];
        e->ranked[i].v = e->xg.ops[e->xg.dst[i]];
        e->ranked[i].score = score[i];
    }
    if (st == LF_OK)
        lf_proposal_rank(e->ranked, e->n_edges);
    free(score);
    return st;
}

int lf_group_explainer_known(const char *name)
{
    if (!name)
        return 0;
    size_t len = strcspn(name, ":"); /* settings after a colon: lf_named_proposer_check */
    for (size_t i = 0; i < sizeof lf__explainers / sizeof lf__explainers[0]; i++)
        if (strlen(lf__explainers[i]) == len && strncmp(name, lf__explainers[i], len) == 0)
            return 1;
    return 0;
}

lf_status lf_group_explain(lf_cost_model *cm, const lf_bitset *group, const lf_group_explain_config *cfg,
                           lf_group_explanation *out)
{
    memset(out, 0, sizeof *out);
    if (!lf_group_explainer_known(cfg->explainer))
        return lf_set_error(LF_EINVAL, "unknown explainer '%s' (gnne, pg, rg, saliency or occlusion)",
                            cfg->explainer ? cfg->explainer : "");
    lf_status st = lf_named_proposer_open(&out->np_, cfg->explainer, cm, cfg->gnn_path, cfg->pg_path, cfg->rg_path);
    const char *scheme = lf_cost_scheme_name(cm), *trained = out->np_.gnn.scheme;
    if (st == LF_OK && trained[0] && strcmp(trained, scheme) != 0)
        st = lf_set_error(LF_EINVAL, "%s was trained for scheme %s, the cost model uses %s",
                          cfg->gnn_path ? cfg->gnn_path : "the GNN", trained, scheme);
    if (st != LF_OK)
        return st;
    out->explainer = out->np_.explainer->name;
    lf_gnn_graph view;
    if ((st = lf_xgraph_build(&out->xg, &out->np_.gnn, cm, group)) == LF_OK &&
        (st = lf_cost_eval(cm, group, &out->whole)) == LF_OK) {
        view = lf_xgraph_view(&out->xg);
        st = lf_explain_predict(&out->np_.gnn, &view, out->prob);
    }
    return st == LF_OK ? lf__rank(out, group, cfg->seed) : st;
}

void lf_group_explanation_destroy(lf_group_explanation *e)
{
    free(e->ranked);
    e->ranked = NULL;
    lf_xgraph_destroy(&e->xg);
    lf_named_proposer_close(&e->np_);
}

void lf_group_explanation_write(FILE *f, const lf_cost_model *cm, const lf_group_explanation *e, int32_t k)
{
    const lf_graph *g = lf_cost_graph(cm);
    char fb[32], beta[32];
    lf_format_commas(e->whole.f_beta, fb, sizeof fb);
    lf_format_commas(lf_cost_beta(cm), beta, sizeof beta);
    fprintf(f, "group     %d ops, %d edges of %s under %s, beta %s B\n", (int)e->xg.n_nodes, (int)e->xg.n_edges,
            g->name, lf_cost_scheme_name(cm), beta);
    fprintf(f, "F_beta    %s B -> %s\n", fb, e->whole.valid ? "valid" : "INVALID");
    fprintf(f, "GNN       p(valid) %.4f -> predicts %s\n", (double)e->prob[1],
            e->prob[1] > e->prob[0] ? "valid" : "INVALID");
    if (e->n_edges == 0) {
        fprintf(f, "the group has no edges: nothing to explain\n");
        return;
    }
    fprintf(f, "\nexplainer %s (%.1f ms): edges by responsibility for \"invalid\"\n", e->explainer,
            e->seconds * 1e3);
    for (int32_t i = 0; i < e->n_edges; i++)
        fprintf(f, "  %2d  %-28s -> %-28s score %.6g%s\n", (int)i + 1, g->ops[e->ranked[i].u].name,
                g->ops[e->ranked[i].v].name, e->ranked[i].score, i < k ? "  *" : "");
}

void lf_group_explanation_dot(FILE *f, const lf_graph *g, const lf_group_explanation *e, int32_t k)
{
    fprintf(f, "digraph explanation {\n  rankdir=TB;\n  node [shape=box, fontsize=10];\n");
    for (int32_t i = 0; i < e->xg.n_nodes; i++)
        fprintf(f, "  n%d [label=\"%s\"];\n", (int)e->xg.ops[i], g->ops[e->xg.ops[i]].name);
    for (int32_t i = 0; i < e->n_edges; i++)
        fprintf(f, "  n%d -> n%d [style=%s, label=\"%.3g\"%s];\n", (int)e->ranked[i].u, (int)e->ranked[i].v,
                i < k ? "solid" : "dashed", e->ranked[i].score, i < k ? ", penwidth=2, color=red" : "");
    fprintf(f, "}\n");
}

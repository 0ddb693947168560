/* fusionplan explain: show what an explainer blames for one fusion group's
 * "invalid" prediction (DESIGN §8, §9): the GNN's p(valid), the edges ranked
 * by the explainer, and optionally a DOT picture with the top-k edges solid
 * and the rest dashed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explainer.h"
#include "explain/weights.h"
#include "planner/cli/cli.h"
#include "planner/util/fileio.h"
#include "planner/util/progress.h"
#include "splitter/splitter.h"

static int lf__explainer_name_ok(const char *n)
{
    static const char *const names[] = {"gnne", "pg", "rg", "saliency", "occlusion"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(n, names[i]) == 0)
            return 1;
    return 0;
}

static lf_status lf__write_dot(const char *path, const lf_graph *g, const lf_xgraph *xg,
                               const lf_edge_score *ranked, int32_t n, int32_t k)
{
    /* Atomic, like every output: a full disk leaves no truncated file. */
    lf_atomic_file af;
    lf_status st = lf_atomic_open(&af, path);
    if (st != LF_OK)
        return st;
    FILE *f = af.f;
    fprintf(f, "digraph explanation {\n  rankdir=TB;\n  node [shape=box, fontsize=10];\n");
    for (int32_t i = 0; i < xg->n_nodes; i++)
        fprintf(f, "  n%d [label=\"%s\"];\n", (int)xg->ops[i], g->ops[xg->ops[i]].name);
    for (int32_t i = 0; i < n; i++)
        fprintf(f, "  n%d -> n%d [style=%s, label=\"%.3g\"%s];\n", (int)ranked[i].u,
                (int)ranked[i].v, i < k ? "solid" : "dashed", ranked[i].score,
                i < k ? ", penwidth=2, color=red" : "");
    fprintf(f, "}\n");
    return lf_atomic_commit(&af);
}

int lf_cmd_explain(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"group", "OPS", "ops of the group: names or ids, comma-separated; id ranges like 3-9", NULL},
        {"explainer", "NAME", "gnne, pg, rg, saliency or occlusion (default gnne)", NULL},
        {"weights", "FILE", "GNN weight file from `fusionplan train` (required)", NULL},
        {"pg-weights", "FILE", "PGExplainer weights from `fusionplan train-explainer` (for pg)", NULL},
        {"rg-weights", "FILE", "RG-Explainer weights from `fusionplan train-explainer` (for rg)", NULL},
        {"k", "N", "edges drawn solid in the DOT picture (default 3)", NULL},
        {"seed", "S", "seed of GNNExplainer's initialisation (default 1)", NULL},
        {"dot", "FILE", "write the group as Graphviz DOT: top-k edges solid, others dashed", NULL},
    };
    lf_cli_command cmd = {
        "explain", "Rank the edges an explainer blames for a group's invalidity.",
        "explain --group OPS --weights GNN.bin [--model NAME] [--buffer SIZE] "
        "[--explainer gnne|pg|rg|saliency|occlusion] [--pg-weights FILE] [--rg-weights FILE] [--k N] "
        "[--dot FILE]",
        "Featurises the group under the buffer size and scheme, prints the GNN's p(valid), and "
        "ranks the\ngroup's edges by how much the explainer holds them responsible for the "
        "\"invalid\" prediction\n(class 0). pg and rg need weights from `fusionplan train-explainer`.",
        opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    const char *list = lf_cli_get(&cmd, "group");
    const char *wpath = lf_cli_get(&cmd, "weights");
    const char *ename = lf_cli_get(&cmd, "explainer");
    const char *pgpath = lf_cli_get(&cmd, "pg-weights");
    const char *rgpath = lf_cli_get(&cmd, "rg-weights");
    const char *dot = lf_cli_get(&cmd, "dot");
    if (!ename)
        ename = "gnne";
    if (!list)
        return lf_cli_usage_error(&cmd, "--group is required");
    if (!wpath)
        return lf_cli_usage_error(&cmd, "--weights is required");
    if ((rc = lf_cli_check_outputs(&dot, 1)))
        return rc;
    if (!lf__explainer_name_ok(ename))
        return lf_cli_usage_error(&cmd, "--explainer must be gnne, pg, rg, saliency or occlusion");
    if (strcmp(ename, "pg") == 0 && !pgpath)
        return lf_cli_usage_error(&cmd, "--explainer pg needs --pg-weights FILE");
    if (strcmp(ename, "rg") == 0 && !rgpath)
        return lf_cli_usage_error(&cmd, "--explainer rg needs --rg-weights FILE");
    int64_t k, seed;
    if ((rc = lf_cli_int(&cmd, "k", 3, 0, 1000000, &k)) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)))
        return rc;
    lf_cli_session s;
    if ((rc = lf_cli_session_open(&s, &cmd)))
        return rc;
    const lf_graph *g = s.graph;
    lf_gnn m = {0};
    lf_pgx pg = {0};
    lf_rgx rg = {0};
    lf_explainer *owned = NULL;
    const lf_explainer *ex = NULL;
    lf_xgraph xg = {0};
    lf_bitset grp = {0};
    double *score = NULL;
    lf_edge_score *ranked = NULL;
    lf_status st = lf_bitset_init(&grp, g->n_ops);
    if (st == LF_OK)
        st = lf_cli_parse_ops(g, list, &grp);
    if (st == LF_OK)
        st = lf_gnn_load(&m, wpath, NULL);
    if (st == LF_OK && m.scheme[0] && strcmp(m.scheme, lf_cost_scheme_name(s.cm)) != 0)
        st = lf_set_error(LF_EINVAL, "%s was trained for scheme %s, the cost model uses %s",
                          wpath, m.scheme, lf_cost_scheme_name(s.cm));
    if (st != LF_OK)
        goto out;
    if (strcmp(ename, "saliency") == 0)
        ex = lf_explainer_saliency();
    else if (strcmp(ename, "occlusion") == 0)
        ex = lf_explainer_occlusion();
    else if (strcmp(ename, "gnne") == 0)
        st = lf_explainer_gnne_create(&owned, NULL);
    else if (strcmp(ename, "rg") == 0) {
        if ((st = lf_rgx_load(&rg, rgpath)) == LF_OK)
            st = lf_explainer_rg_create(&owned, &rg);
    } else if ((st = lf_pgx_load(&pg, pgpath)) == LF_OK)
        st = lf_explainer_pg_create(&owned, &pg);
    if (owned)
        ex = owned;
    if (st == LF_OK)
        st = lf_xgraph_build(&xg, &m, s.cm, &grp);
    if (st != LF_OK)
        goto out;
    lf_group_cost whole;
    if ((st = lf_cost_eval(s.cm, &grp, &whole)) != LF_OK)
        goto out;
    lf_gnn_graph view = lf_xgraph_view(&xg);
    float prob[2];
    if ((st = lf_explain_predict(&m, &view, prob)) != LF_OK)
        goto out;
    char fb[32], beta[32];
    lf_cli_commas(whole.f_beta, fb, sizeof fb);
    lf_cli_commas(lf_cost_beta(s.cm), beta, sizeof beta);
    printf("group     %d ops, %d edges of %s under %s, beta %s B\n", (int)xg.n_nodes,
           (int)xg.n_edges, g->name, lf_cost_scheme_name(s.cm), beta);
    printf("F_beta    %s B -> %s\n", fb, whole.valid ? "valid" : "INVALID");
    printf("GNN       p(valid) %.4f -> predicts %s\n", (double)prob[1],
           prob[1] > prob[0] ? "valid" : "INVALID");
    if (xg.n_edges == 0) {
        printf("the group has no edges: nothing to explain\n");
        goto out;
    }
    score = malloc(sizeof(double) * (size_t)xg.n_edges);
    ranked = malloc(sizeof(lf_edge_score) * (size_t)xg.n_edges);
    if (!score || !ranked) {
        st = lf_set_error(LF_ENOMEM, "out of memory for %d edges", (int)xg.n_edges);
        goto out;
    }
    double t0 = lf_now_seconds();
    if ((st = lf_explainer_run(ex, &m, &view, lf_split_seed((uint64_t)seed, &grp), score)) !=
        LF_OK)
        goto out;
    double secs = lf_now_seconds() - t0;
    for (int32_t i = 0; i < xg.n_edges; i++) {
        ranked[i].u = xg.ops[xg.src[i]];
        ranked[i].v = xg.ops[xg.dst[i]];
        ranked[i].score = score[i];
    }
    lf_proposal_rank(ranked, xg.n_edges);
    printf("\nexplainer %s (%.1f ms): edges by responsibility for \"invalid\"\n", ex->name,
           secs * 1e3);
    for (int32_t i = 0; i < xg.n_edges; i++)
        printf("  %2d  %-28s -> %-28s score %.6g%s\n", (int)i + 1, g->ops[ranked[i].u].name,
               g->ops[ranked[i].v].name, ranked[i].score, i < k ? "  *" : "");
    if (dot) {
        if ((st = lf__write_dot(dot, g, &xg, ranked, xg.n_edges, (int32_t)k)) != LF_OK)
            goto out;
        printf("wrote     %s\n", dot);
    }
out:
    free(score);
    free(ranked);
    lf_xgraph_destroy(&xg);
    lf_explainer_free(owned);
    lf_pgx_destroy(&pg);
    lf_rgx_destroy(&rg);
    lf_gnn_destroy(&m);
    lf_bitset_destroy(&grp);
    lf_cli_session_close(&s);
    return st == LF_OK ? LF_EXIT_OK : lf_cli_fail(st);
}

/* fusionplan explain: show what an explainer blames for one fusion group's
 * "invalid" prediction (DESIGN §8, §9): the GNN's p(valid), the edges ranked
 * by the explainer, and optionally a DOT picture with the top-k edges solid
 * and the rest dashed. */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/util/fileio.h"
#include "splitter/explain_group.h"

/* The DOT picture (lf_atomic_writer). */
typedef struct lf__dot_out {
    const lf_graph *g;
    const lf_group_explanation *e;
    int32_t k;
} lf__dot_out;

static lf_status lf__write_dot(FILE *f, const void *user)
{
    const lf__dot_out *d = user;
    lf_group_explanation_dot(f, d->g, d->e, d->k);
    return LF_OK;
}

int lf_cmd_explain(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"group", "OPS", "ops of the group: names or ids, comma-separated; id ranges like 3-9", NULL},
        {"explainer", "NAME", "gnne, pg, rg, saliency or occlusion (default gnne); gnne:epochs=N:patience=N:top=N "
                              "sets GNNExplainer's iterations (100) and early stop", NULL},
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
    if (!lf_group_explainer_known(ename))
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
    lf_bitset grp = {0};
    lf_group_explanation e = {0};
    lf_group_explain_config cfg = {ename, wpath, pgpath, rgpath, (uint64_t)seed};
    lf_status st = lf_bitset_init(&grp, s.graph->n_ops);
    if (st == LF_OK)
        st = lf_cli_parse_ops(s.graph, list, &grp);
    if (st == LF_OK)
        st = lf_group_explain(s.cm, &grp, &cfg, &e);
    if (st == LF_OK)
        lf_group_explanation_write(stdout, s.cm, &e, (int32_t)k);
    lf__dot_out d = {s.graph, &e, (int32_t)k};
    if (st == LF_OK && dot && e.n_edges > 0 && (st = lf_atomic_write(dot, lf__write_dot, &d)) == LF_OK)
        printf("wrote     %s\n", dot);
    lf_group_explanation_destroy(&e);
    lf_bitset_destroy(&grp);
    lf_cli_session_close(&s);
    return st == LF_OK ? LF_EXIT_OK : lf_cli_fail(st);
}

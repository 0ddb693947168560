/* fusionplan split: how the tree splitter (paper Algorithm 1) repairs one
 * group: the proposed edges, every candidate cut of the first level with its
 * category and parts, the split it returns and the optimal split beside it
 * (splitter/split_report.h writes it). */
#include <stdio.h>
#include <stdlib.h>

#include "planner/app/cli/cli.h"
#include "planner/io/split_dot.h"
#include "splitter/split_report.h"

int lf_cmd_split(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"group", "OPS", "ops of the group: names or ids, comma-separated; id ranges like 3-9", NULL},
        {"proposer", "NAME", "edge proposer: all, random, attrib (default), or the GNN explainers "
                             "gnne, pg, rg, saliency, occlusion; gnne:epochs=N:patience=N:top=N sets GNNExplainer's "
                             "iterations (100) and early stop (docs/explainers.md)", NULL},
        {"gnn-weights", "FILE", "GNN weights for the explainers (default: the shipped gnn-SCHEME.bin)", NULL},
        {"pg-weights", "FILE", "PGExplainer weights (default: the shipped pg-SCHEME.bin)", NULL},
        {"rg-weights", "FILE", "RG-Explainer weights (default: the shipped rg-SCHEME.bin)", NULL},
        {"k", "N", "edges the proposer may return (default 3; 0: all; `all` ignores it)", NULL},
        {"seed", "S", "search seed; the group's stream is derived from it (default 1)", NULL},
        {"dot", "FILE", "write the split as Graphviz (parts as clusters, cut edges red)", NULL},
    };
    lf_cli_command cmd = {
        "split", "Show how the tree splitter repairs one invalid group.",
        "split --group OPS [--model NAME] [--buffer SIZE] [--proposer all|random|attrib] [--k N] "
        "[--seed S] [--dot FILE]",
        "Prints the group's F_beta, the edges the proposer ranks highest, every candidate cut of\n"
        "the first level of the greedy tree splitter (paper Algorithm 1) with its category and\n"
        "its parts, the split the recursion returns and the optimal split of the group beside it\n"
        "(the split gap). See docs/splitter.md.",
        opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    const char *list = lf_cli_get(&cmd, "group");
    if (!list)
        return lf_cli_usage_error(&cmd, "--group is required");
    const char *pname = lf_cli_get(&cmd, "proposer");
    int64_t k = 0, seed = 0;
    if ((rc = lf_cli_int(&cmd, "k", LF_PROPOSER_DEFAULT_K, 0, 1000000, &k)) ||
        (rc = lf_cli_search_opt(&cmd, "seed", 1, &seed)))
        return rc;
    const char *dot = lf_cli_get(&cmd, "dot");
    if ((rc = lf_cli_check_outputs(&dot, 1)))
        return rc;
    lf_cli_session s;
    if ((rc = lf_cli_session_open(&s, &cmd)))
        return rc;
    lf_bitset grp = {0};
    lf_split_result res = {0};
    lf_named_proposer cp = {0};
    lf_status st = lf_named_proposer_open(&cp, pname ? pname : "attrib", s.cm,
                                          lf_cli_get(&cmd, "gnn-weights"),
                                          lf_cli_get(&cmd, "pg-weights"),
                                          lf_cli_get(&cmd, "rg-weights"));
    if (st == LF_OK)
        st = lf_bitset_init(&grp, s.graph->n_ops);
    if (st == LF_OK)
        st = lf_cli_parse_ops(s.graph, list, &grp);
    /* The report is kept in memory and printed only once the picture is
     * written: a failed --dot prints nothing on stdout (one error line). */
    char *text = NULL;
    size_t text_len = 0;
    FILE *mem = NULL;
    if (st == LF_OK && !(mem = open_memstream(&text, &text_len)))
        st = lf_set_error(LF_ENOMEM, "out of memory for the report");
    if (st == LF_OK)
        st = lf_split_report(mem, s.cm, cp.proposer, (int32_t)k, &grp, (uint64_t)seed, &res);
    if (mem && fclose(mem) != 0 && st == LF_OK)
        st = lf_set_error(LF_ENOMEM, "out of memory for the report");
    if (st == LF_OK && dot && res.n_parts > 0)
        st = lf_split_save_dot(dot, s.graph, s.cm, res.parts, res.n_parts);
    if (st == LF_OK && text_len > 0)
        fwrite(text, 1, text_len, stdout);
    free(text);
    lf_split_result_destroy(&res);
    lf_bitset_destroy(&grp);
    lf_named_proposer_close(&cp);
    lf_cli_session_close(&s);
    return st == LF_OK ? LF_EXIT_OK : lf_cli_fail(st);
}

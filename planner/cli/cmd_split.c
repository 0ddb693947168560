/* fusionplan split: how the tree splitter (paper Algorithm 1) repairs one
 * group: the proposed edges, every candidate cut of the first level with its
 * category and parts, the split it returns and the optimal split beside it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/exact/exact.h"
#include "planner/io/split_dot.h"
#include "planner/util/fileio.h"
#include "splitter/tree.h"

static const char *lf__cat_name(int32_t c)
{
    switch (c) {
    case LF_CUT_CAT_ALL_VALID: return "1 all valid";
    case LF_CUT_CAT_SOME_VALID: return "2 some valid";
    default: return "3 none valid";
    }
}

/* The split as a Graphviz picture (planner/io/split_dot.h), all or nothing. */
static lf_status lf__write_dot(const char *path, const lf_graph *g, lf_cost_model *cm,
                               const lf_split_result *r)
{
    lf_atomic_file af;
    lf_status st = lf_atomic_open(&af, path);
    if (st == LF_OK && (st = lf_split_write_dot(af.f, g, cm, r->parts, r->n_parts)) != LF_OK)
        lf_atomic_abort(&af);
    return st == LF_OK ? lf_atomic_commit(&af) : st;
}

static void lf__print_parts(const lf_graph *g, const lf_cut_set *cs, const lf_tree_level *lv,
                            int32_t c)
{
    const lf_cut *cut = &cs->cuts[c];
    for (int32_t q = 0; q < cut->n_parts; q++) {
        const lf_group_cost *pc = &lv->part_cost[lv->part_start[c] + q];
        int32_t n = 0, first = -1;
        for (int32_t i = 0; i < cs->n_members; i++)
            if (cut->part_of[i] == q) {
                if (first < 0)
                    first = cs->members[i];
                n++;
            }
        char fb[32], fd[32];
        lf_cli_commas(pc->f_beta, fb, sizeof fb);
        lf_cli_commas(pc->f_d, fd, sizeof fd);
        printf("        part %d: %3d ops from %-28s F_beta %10s  F_D %10s  %s\n", (int)q, (int)n,
               g->ops[first].name, fb, fd, pc->valid ? "valid" : "INVALID");
    }
}

int lf_cmd_split(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"group", "OPS", "ops of the group: names or ids, comma-separated; id ranges like 3-9", NULL},
        {"proposer", "NAME", "edge proposer: all, random, attrib (default), or the GNN explainers "
                             "gnne, pg, rg, saliency, occlusion", NULL},
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
    const lf_graph *g = s.graph;
    lf_bitset grp = {0};
    lf_tree_level lv = {0};
    lf_split_result res = {0};
    lf_splitter *sp = NULL;
    lf_plan opt = {0};
    int have_lv = 0, have_opt = 0;
    lf_named_proposer cp = {0};
    lf_status st = lf_named_proposer_open(&cp, pname ? pname : "attrib", s.cm,
                                          lf_cli_get(&cmd, "gnn-weights"),
                                          lf_cli_get(&cmd, "pg-weights"),
                                          lf_cli_get(&cmd, "rg-weights"));
    const lf_proposer *p = cp.proposer;
    if (st == LF_OK)
        st = lf_bitset_init(&grp, g->n_ops);
    if (st == LF_OK)
        st = lf_cli_parse_ops(g, list, &grp);
    for (int32_t v = lf_bitset_next(&grp, 0); st == LF_OK && v >= 0; v = lf_bitset_next(&grp, v + 1))
        if (g->ops[v].type == LF_OP_INPUT || !lf_cost_fusable(s.cm, v))
            st = lf_set_error(LF_EINVAL, "op '%s' cannot be split: it is %s", g->ops[v].name,
                              g->ops[v].type == LF_OP_INPUT ? "a graph input"
                                                            : "unfusable (invalid even alone)");
    lf_group_cost whole;
    if (st == LF_OK)
        st = lf_cost_eval(s.cm, &grp, &whole);
    if (st != LF_OK)
        goto out;
    uint64_t gseed = lf_split_seed((uint64_t)seed, &grp);
    char fb[32], fd[32], beta[32];
    lf_cli_commas(whole.f_beta, fb, sizeof fb);
    lf_cli_commas(whole.f_d, fd, sizeof fd);
    lf_cli_commas(lf_cost_beta(s.cm), beta, sizeof beta);
    printf("group     %d ops of %s under %s, beta %s B\n", (int)lf_bitset_count(&grp), g->name,
           lf_cost_scheme_name(s.cm), beta);
    printf("F_beta    %s B -> %s;  F_D %s B\n", fb, whole.valid ? "valid" : "INVALID", fd);
    if (whole.valid) {
        printf("the group is valid: nothing to split\n");
        goto out;
    }

    st = lf_tree_level_eval(&lv, s.cm, p, (int32_t)k, &grp, gseed);
    have_lv = 1;
    if (st != LF_OK)
        goto out;
    printf("\nproposer  %s, k %d: %d edge(s)\n", p->name, (int)k, (int)lv.n_edges);
    for (int32_t i = 0; i < lv.n_edges; i++)
        printf("  %2d  %-28s -> %-28s score %.4f\n", (int)i + 1, g->ops[lv.edges[i].u].name,
               g->ops[lv.edges[i].v].name, lv.edges[i].score);
    printf("\ncandidates (position p: the group's first p+1 ops in topological order | the rest)\n");
    for (int32_t c = 0; c < lv.cuts.n_cuts; c++) {
        const lf_cut *cut = &lv.cuts.cuts[c];
        char cfd[32];
        lf_cli_commas(lv.f_d[c], cfd, sizeof cfd);
        printf("  p=%-4d from edge %-3d cuts %d edge(s): ", (int)cut->pos, (int)cut->edge + 1,
               (int)cut->n_cut);
        int first = 1;
        for (int32_t e = 0; e < lv.cuts.n_edges; e++)
            if (lf_cut_edge_is_cut(&lv.cuts, c, e)) {
                printf("%s%s>%s", first ? "" : ", ", g->ops[lv.cuts.members[lv.cuts.eu[e]]].name,
                       g->ops[lv.cuts.members[lv.cuts.ev[e]]].name);
                first = 0;
            }
        printf("\n        category %s, %d part(s), F_D %s B%s\n", lf__cat_name(lv.category[c]),
               (int)cut->n_parts, cfd, c == lv.chosen ? "   <- chosen" : "");
        lf__print_parts(g, &lv.cuts, &lv, c);
    }
    printf("\nrectify   %s (a category-1 cut among the top-%d edges)\n",
           lv.best_category == LF_CUT_CAT_ALL_VALID ? "yes" : "no", (int)k);

    lf_tree_options o;
    lf_tree_options_default(&o);
    if ((st = lf_splitter_tree_create(&sp, p, (int32_t)k, &o)) != LF_OK ||
        (st = lf_split_result_init(&res, g->n_ops)) != LF_OK ||
        (st = sp->split(sp, s.cm, &grp, gseed, &res)) != LF_OK)
        goto out;
    int64_t tree_fd = 0;
    for (int32_t q = 0; q < res.n_parts && st == LF_OK; q++) {
        lf_group_cost c;
        st = lf_cost_eval(s.cm, &res.parts[q], &c);
        tree_fd += c.f_d;
    }
    if (st != LF_OK)
        goto out;
    char tfd[32];
    lf_cli_commas(tree_fd, tfd, sizeof tfd);
    printf("split     %d parts, F_D %s B (%s)\n", (int)res.n_parts, tfd,
           res.rectified ? "tree split" : "tree failed: random split fallback");
    for (int32_t q = 0; q < res.n_parts; q++) {
        printf("  part %d:", (int)q);
        for (int32_t v = lf_bitset_next(&res.parts[q], 0); v >= 0;
             v = lf_bitset_next(&res.parts[q], v + 1))
            printf(" %s", g->ops[v].name);
        printf("\n");
    }
    int64_t best = 0;
    lf_status est = lf_exact_split(s.cm, &grp, NULL, &opt, &best, NULL);
    if (est == LF_OK) {
        have_opt = 1;
        char ofd[32];
        lf_cli_commas(best, ofd, sizeof ofd);
        int32_t n_parts = 0;
        for (int32_t v = 0; v < opt.n_ops; v++)
            n_parts = opt.group_of[v] + 1 > n_parts ? opt.group_of[v] + 1 : n_parts;
        printf("optimal   %d parts, F_D %s B (lf_exact_split)\n", (int)n_parts, ofd);
        printf("gap       %.4f (split F_D / optimal F_D)\n", best > 0 ? (double)tree_fd / (double)best : 0.0);
    } else {
        printf("optimal   not computed: %s\n", lf_last_error());
    }
    if (dot)
        st = lf__write_dot(dot, g, s.cm, &res);
out:
    if (have_opt)
        lf_plan_destroy(&opt);
    if (have_lv)
        lf_tree_level_destroy(&lv);
    lf_split_result_destroy(&res);
    lf_splitter_free(sp);
    lf_bitset_destroy(&grp);
    lf_named_proposer_close(&cp);
    lf_cli_session_close(&s);
    return st == LF_OK ? LF_EXIT_OK : lf_cli_fail(st);
}

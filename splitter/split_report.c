/* The text report of one group's split (`fusionplan split`): the first
 * level of the tree splitter in full, then the split it returns and the
 * optimal split beside it. */
#include "splitter/split_report.h"

#include "planner/exact/exact.h"
#include "planner/plan.h"
#include "planner/util/format.h"
#include "splitter/tree.h"

static const char *lf__cat_name(int32_t c)
{
    switch (c) {
    case LF_CUT_CAT_ALL_VALID: return "1 all valid";
    case LF_CUT_CAT_SOME_VALID: return "2 some valid";
    default: return "3 none valid";
    }
}

lf_status lf_split_group_check(lf_cost_model *cm, const lf_bitset *group)
{
    const lf_graph *g = lf_cost_graph(cm);
    for (int32_t v = lf_bitset_next(group, 0); v >= 0; v = lf_bitset_next(group, v + 1))
        if (g->ops[v].type == LF_OP_INPUT || !lf_cost_fusable(cm, v))
            return lf_set_error(LF_EINVAL, "op '%s' cannot be split: it is %s", g->ops[v].name,
                                g->ops[v].type == LF_OP_INPUT ? "a graph input"
                                                              : "unfusable (invalid even alone)");
    return LF_OK;
}

/* The parts of candidate cut c, one line each. */
static void lf__print_parts(FILE *f, const lf_graph *g, const lf_tree_level *lv, int32_t c)
{
    const lf_cut_set *cs = &lv->cuts;
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
        lf_format_commas(pc->f_beta, fb, sizeof fb);
        lf_format_commas(pc->f_d, fd, sizeof fd);
        fprintf(f, "        part %d: %3d ops from %-28s F_beta %10s  F_D %10s  %s\n", (int)q, (int)n,
                g->ops[first].name, fb, fd, pc->valid ? "valid" : "INVALID");
    }
}

/* The first level: the proposed edges, every candidate cut, the rectify test. */
static void lf__print_level(FILE *f, const lf_graph *g, const lf_proposer *p, int32_t k,
                            const lf_tree_level *lv)
{
    fprintf(f, "\nproposer  %s, k %d: %d edge(s)\n", p->name, (int)k, (int)lv->n_edges);
    for (int32_t i = 0; i < lv->n_edges; i++)
        fprintf(f, "  %2d  %-28s -> %-28s score %.4f\n", (int)i + 1, g->ops[lv->edges[i].u].name,
                g->ops[lv->edges[i].v].name, lv->edges[i].score);
    fprintf(f, "\ncandidates (position p: the group's first p+1 ops in topological order | the rest)\n");
    for (int32_t c = 0; c < lv->cuts.n_cuts; c++) {
        const lf_cut *cut = &lv->cuts.cuts[c];
        char cfd[32];
        lf_format_commas(lv->f_d[c], cfd, sizeof cfd);
        fprintf(f, "  p=%-4d from edge %-3d cuts %d edge(s): ", (int)cut->pos, (int)cut->edge + 1,
                (int)cut->n_cut);
        int first = 1;
        for (int32_t e = 0; e < lv->cuts.n_edges; e++)
            if (lf_cut_edge_is_cut(&lv->cuts, c, e)) {
                fprintf(f, "%s%s>%s", first ? "" : ", ", g->ops[lv->cuts.members[lv->cuts.eu[e]]].name,
                        g->ops[lv->cuts.members[lv->cuts.ev[e]]].name);
                first = 0;
            }
        fprintf(f, "\n        category %s, %d part(s), F_D %s B%s\n", lf__cat_name(lv->category[c]),
                (int)cut->n_parts, cfd, c == lv->chosen ? "   <- chosen" : "");
        lf__print_parts(f, g, lv, c);
    }
    fprintf(f, "\nrectify   %s (a category-1 cut among the top-%d edges)\n",
            lv->best_category == LF_CUT_CAT_ALL_VALID ? "yes" : "no", (int)k);
}

/* The tree splitter's split of group, its parts, and the optimum beside it. */
static lf_status lf__print_split(FILE *f, lf_cost_model *cm, const lf_proposer *p, int32_t k,
                                 const lf_bitset *group, uint64_t gseed, lf_split_result *res)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_splitter *sp = NULL;
    lf_tree_options o;
    lf_tree_options_default(&o);
    lf_status st;
    if ((st = lf_splitter_tree_create(&sp, p, k, &o)) == LF_OK &&
        (st = lf_split_result_init(res, g->n_ops)) == LF_OK)
        st = sp->split(sp, cm, group, gseed, res);
    lf_splitter_free(sp);
    int64_t tree_fd = 0;
    for (int32_t q = 0; q < res->n_parts && st == LF_OK; q++) {
        lf_group_cost c;
        st = lf_cost_eval(cm, &res->parts[q], &c);
        tree_fd += c.f_d;
    }
    if (st != LF_OK)
        return st;
    char tfd[32];
    lf_format_commas(tree_fd, tfd, sizeof tfd);
    fprintf(f, "split     %d parts, F_D %s B (%s)\n", (int)res->n_parts, tfd,
            res->rectified ? "tree split" : "tree failed: random split fallback");
    for (int32_t q = 0; q < res->n_parts; q++) {
        fprintf(f, "  part %d:", (int)q);
        for (int32_t v = lf_bitset_next(&res->parts[q], 0); v >= 0;
             v = lf_bitset_next(&res->parts[q], v + 1))
            fprintf(f, " %s", g->ops[v].name);
        fprintf(f, "\n");
    }
    lf_plan opt;
    int64_t best = 0;
    if (lf_exact_split(cm, group, NULL, &opt, &best, NULL) != LF_OK) {
        fprintf(f, "optimal   not computed: %s\n", lf_last_error());
        return LF_OK;
    }
    char ofd[32];
    lf_format_commas(best, ofd, sizeof ofd);
    int32_t n_parts = 0;
    for (int32_t v = 0; v < opt.n_ops; v++)
        n_parts = opt.group_of[v] + 1 > n_parts ? opt.group_of[v] + 1 : n_parts;
    fprintf(f, "optimal   %d parts, F_D %s B (lf_exact_split)\n", (int)n_parts, ofd);
    fprintf(f, "gap       %.4f (split F_D / optimal F_D)\n",
            best > 0 ? (double)tree_fd / (double)best : 0.0);
    lf_plan_destroy(&opt);
    return LF_OK;
}

lf_status lf_split_report(FILE *f, lf_cost_model *cm, const lf_proposer *p, int32_t k,
                          const lf_bitset *group, uint64_t seed, lf_split_result *res)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_group_cost whole;
    lf_status st = lf_split_group_check(cm, group);
    if (st != LF_OK || (st = lf_cost_eval(cm, group, &whole)) != LF_OK)
        return st;
    uint64_t gseed = lf_split_seed(seed, group);
    char fb[32], fd[32], beta[32];
    lf_format_commas(whole.f_beta, fb, sizeof fb);
    lf_format_commas(whole.f_d, fd, sizeof fd);
    lf_format_commas(lf_cost_beta(cm), beta, sizeof beta);
    fprintf(f, "group     %d ops of %s under %s, beta %s B\n", (int)lf_bitset_count(group), g->name,
            lf_cost_scheme_name(cm), beta);
    fprintf(f, "F_beta    %s B -> %s;  F_D %s B\n", fb, whole.valid ? "valid" : "INVALID", fd);
    if (whole.valid) {
        fprintf(f, "the group is valid: nothing to split\n");
        return LF_OK;
    }
    lf_tree_level lv;
    st = lf_tree_level_eval(&lv, cm, p, k, group, gseed);
    if (st == LF_OK)
        lf__print_level(f, g, p, k, &lv);
    lf_tree_level_destroy(&lv);
    return st == LF_OK ? lf__print_split(f, cm, p, k, group, gseed, res) : st;
}

/* One level of Algorithm 1: propose edges, build their cuts, price and
 * classify every candidate and pick the category-1 or category-2 winner.
 * The recursion (tree_split.c), the rectify test and `fusionplan split` all
 * share it, so the rate reported is exactly what the splitter sees. */
#include <stdlib.h>
#include <string.h>

#include "splitter/tree.h"

void lf_tree_level_destroy(lf_tree_level *lv)
{
    free(lv->edges);
    lf_cut_set_destroy(&lv->cuts);
    free(lv->category);
    free(lv->f_d);
    free(lv->valid_f_d);
    free(lv->valid_ops);
    free(lv->part_start);
    free(lv->part_cost);
    memset(lv, 0, sizeof *lv);
    lv->chosen = -1;
}

/* Category 1: least total F_D. Category 2: most ops in valid parts, then the
 * least F_D of the valid parts. Cuts are visited by ascending position and
 * only a strictly better one replaces the incumbent, which breaks the
 * remaining ties towards the smaller position. */
static int lf__better(const lf_tree_level *lv, int32_t a, int32_t b)
{
    if (lv->category[a] == LF_CUT_CAT_ALL_VALID)
        return lv->f_d[a] < lv->f_d[b];
    if (lv->valid_ops[a] != lv->valid_ops[b])
        return lv->valid_ops[a] > lv->valid_ops[b];
    return lv->valid_f_d[a] < lv->valid_f_d[b];
}

lf_status lf_tree_level_eval(lf_tree_level *lv, lf_cost_model *cm, const lf_proposer *p, int32_t k,
                             const lf_bitset *group, uint64_t seed)
{
    memset(lv, 0, sizeof *lv);
    lv->chosen = -1;
    const lf_graph *g = lf_cost_graph(cm);
    int32_t ne = lf_group_edge_count(g, group);
    lv->edges = malloc((size_t)(ne > 0 ? ne : 1) * sizeof *lv->edges);
    if (!lv->edges)
        return lf_set_error(LF_ENOMEM, "out of memory proposing edges");
    lf_status st = lf_proposer_run(p, cm, group, seed, k, lv->edges, &lv->n_edges);
    if (st == LF_OK)
        st = lf_cut_set_build(&lv->cuts, g, group, lv->edges, lv->n_edges);
    if (st != LF_OK)
        return st;
    int32_t nc = lv->cuts.n_cuts, total_parts = 0;
    for (int32_t c = 0; c < nc; c++)
        total_parts += lv->cuts.cuts[c].n_parts;
    size_t m = (size_t)(nc > 0 ? nc : 1);
    lv->category = calloc(m, sizeof *lv->category);
    lv->f_d = calloc(m, sizeof *lv->f_d);
    lv->valid_f_d = calloc(m, sizeof *lv->valid_f_d);
    lv->valid_ops = calloc(m, sizeof *lv->valid_ops);
    lv->part_start = calloc(m + 1, sizeof *lv->part_start);
    lv->part_cost = calloc((size_t)(total_parts > 0 ? total_parts : 1), sizeof *lv->part_cost);
    int32_t *sizes = calloc((size_t)(lv->cuts.n_members + 1), sizeof *sizes);
    lf_bitset part = {0};
    if (!lv->category || !lv->f_d || !lv->valid_f_d || !lv->valid_ops || !lv->part_start ||
        !lv->part_cost || !sizes || lf_bitset_init(&part, g->n_ops) != LF_OK) {
        free(sizes);
        lf_bitset_destroy(&part);
        return lf_set_error(LF_ENOMEM, "out of memory pricing %d cuts", (int)nc);
    }
    int32_t at = 0;
    for (int32_t c = 0; c < nc && st == LF_OK; c++) {
        const lf_cut *cut = &lv->cuts.cuts[c];
        lv->part_start[c] = at;
        for (int32_t q = 0; q < cut->n_parts; q++)
            sizes[q] = 0;
        for (int32_t i = 0; i < lv->cuts.n_members; i++)
            sizes[cut->part_of[i]]++;
        int32_t n_valid = 0;
        for (int32_t q = 0; q < cut->n_parts && st == LF_OK; q++) {
            lf_group_cost *pc = &lv->part_cost[at + q];
            lf_cut_part(&lv->cuts, c, q, &part);
            st = lf_cost_eval(cm, &part, pc);
            lv->cost_queries++;
            if (st != LF_OK)
                break;
            lv->f_d[c] += pc->f_d;
            if (pc->valid) {
                n_valid++;
                lv->valid_f_d[c] += pc->f_d;
                lv->valid_ops[c] += sizes[q];
            }
        }
        at += cut->n_parts;
        lv->category[c] = n_valid == cut->n_parts ? LF_CUT_CAT_ALL_VALID
                          : n_valid > 0           ? LF_CUT_CAT_SOME_VALID
                                                  : LF_CUT_CAT_NONE_VALID;
    }
    lv->part_start[nc] = at;
    free(sizes);
    lf_bitset_destroy(&part);
    if (st != LF_OK)
        return st;
    for (int32_t c = 0; c < nc; c++)
        if (lv->best_category == 0 || lv->category[c] < lv->best_category)
            lv->best_category = lv->category[c];
    if (lv->best_category == LF_CUT_CAT_ALL_VALID || lv->best_category == LF_CUT_CAT_SOME_VALID)
        for (int32_t c = 0; c < nc; c++)
            if (lv->category[c] == lv->best_category && (lv->chosen < 0 || lf__better(lv, c, lv->chosen)))
                lv->chosen = c;
    return LF_OK;
}

lf_status lf_tree_rectify_test(lf_cost_model *cm, const lf_proposer *p, int32_t k,
                               const lf_bitset *group, uint64_t seed, int *hit)
{
    lf_tree_level lv;
    lf_status st = lf_tree_level_eval(&lv, cm, p, k, group, seed);
    *hit = st == LF_OK && lv.best_category == LF_CUT_CAT_ALL_VALID;
    lf_tree_level_destroy(&lv);
    return st;
}

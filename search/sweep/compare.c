/* One comparison table: every (search, proposer) pair over every seed
 * through the library pipeline (lf_plan_network), then the exact optimum. */
#include "search/sweep/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cost/cost.h"
#include "planner/pipeline.h"
#include "planner/registry.h"

/* Budget curves keep at most this many evenly spaced points. */
#define LF_CMP_CURVE_POINTS 100

lf_status lf_cmp_table_alloc(lf_cmp_table *t, int32_t n_rows, int32_t n_seeds, int64_t budget)
{
    t->budget = budget;
    t->n_seeds = n_seeds;
    /* At most LF_CMP_CURVE_POINTS evenly spaced points, the last at the budget. */
    int64_t step = (budget + LF_CMP_CURVE_POINTS - 1) / LF_CMP_CURVE_POINTS;
    t->n_points = (int32_t)((budget + step - 1) / step);
    t->points = malloc((size_t)t->n_points * sizeof *t->points);
    t->rows = calloc((size_t)n_rows, sizeof *t->rows);
    if (!t->points || !t->rows)
        return lf_set_error(LF_ENOMEM, "out of memory for the comparison table");
    for (int32_t p = 0; p < t->n_points; p++)
        t->points[p] = p + 1 < t->n_points ? (p + 1) * step : budget;
    t->n_rows = n_rows;
    size_t n = (size_t)n_seeds;
    for (int32_t r = 0; r < n_rows; r++) {
        lf_cmp_row *row = &t->rows[r];
        row->dram = calloc(n, sizeof *row->dram);
        row->dram_all = calloc(n, sizeof *row->dram_all);
        row->mbu = calloc(n, sizeof *row->mbu);
        row->groups = calloc(n, sizeof *row->groups);
        row->rectify = malloc(n * sizeof *row->rectify);
        row->split_gap = malloc(n * sizeof *row->split_gap);
        row->wall = calloc(n, sizeof *row->wall);
        row->invalid = calloc(n, sizeof *row->invalid);
        row->curve = calloc(n * (size_t)t->n_points, sizeof *row->curve);
        if (!row->dram || !row->dram_all || !row->mbu || !row->groups || !row->rectify ||
            !row->split_gap || !row->wall || !row->invalid || !row->curve)
            return lf_set_error(LF_ENOMEM, "out of memory for the comparison table");
        for (size_t s = 0; s < n; s++)
            row->rectify[s] = row->split_gap[s] = NAN;
    }
    return LF_OK;
}

void lf_cmp_table_free(lf_cmp_table *t)
{
    for (int32_t r = 0; t->rows && r < t->n_rows; r++) {
        lf_cmp_row *row = &t->rows[r];
        free(row->dram);
        free(row->dram_all);
        free(row->mbu);
        free(row->groups);
        free(row->rectify);
        free(row->split_gap);
        free(row->wall);
        free(row->invalid);
        free(row->curve);
    }
    free(t->rows);
    free(t->points);
    t->rows = NULL;
    t->points = NULL;
}

const char *lf_cmp_search_name(const char *s)
{
    if (!strcmp(s, "ls") || !strcmp(s, "local"))
        return "local";
    if (!strcmp(s, "rs") || !strcmp(s, "random"))
        return "random";
    if (!strcmp(s, "nsga2") || !strcmp(s, "nsga-ii") || !strcmp(s, "nsga"))
        return "nsga2";
    return NULL;
}

int lf_cmp_proposer_known(const char *name)
{
    return !strcmp(name, "none") || lf_name_known(LF_NAMES_PROPOSER, name);
}

/* One search with one splitter and one seed; fills column s of row r. */
static lf_status lf__run_one(const lf_cmp_config *c, lf_cmp_table *t, int32_t r, int32_t s,
                             const lf_graph *g, lf_cost_model *shared)
{
    lf_cmp_row *row = &t->rows[r];
    lf_cost_model *cm = shared;
    lf_status st = LF_OK;
    if (c->fresh_memo && (st = lf_cost_model_create(&cm, g, c->hw, t->scheme)) != LF_OK)
        return st;
    lf_planner_config pc;
    lf_planner_config_default(&pc);
    pc.search = row->search;
    pc.budget = t->budget;
    pc.seed = t->seeds[s];
    pc.threads = (int32_t)c->threads;
    pc.population = (int32_t)c->population;
    pc.trace = 1;
    pc.k = (int32_t)c->k;
    pc.split_gap = c->split_gap;
    if (strcmp(row->proposer, "none") != 0) {
        pc.split = "tree";
        pc.proposer = row->proposer;
        pc.split_continue = c->split_continue;
    }
    lf_planned res;
    st = lf_plan_network(cm, &pc, &res);
    if (st == LF_OK) {
        row->dram[s] = res.metrics.dram_fusable;
        row->dram_all[s] = res.metrics.dram_all;
        row->mbu[s] = res.metrics.mbu;
        row->groups[s] = res.metrics.n_groups;
        row->wall[s] = res.search_result.wall_s;
        row->invalid[s] = res.search_result.invalid_groups;
        for (int32_t p = 0; p < t->n_points; p++)
            row->curve[(int64_t)s * t->n_points + p] =
                (double)res.search_result.trace[t->points[p] - 1];
        if (res.have_tree_stats) {
            row->rectify[s] = res.tree_stats.groups > 0 ? res.tree_stats.rectify_rate : NAN;
            row->split_gap[s] = res.tree_stats.gap_groups > 0 ? res.tree_stats.mean_gap : NAN;
        }
    }
    lf_planned_destroy(&res);
    if (cm != shared)
        lf_cost_model_free(cm);
    return st;
}

static lf_status lf__run_exact(lf_cmp_table *t, lf_cost_model *cm)
{
    lf_planner_config pc;
    lf_planner_config_default(&pc);
    pc.search = "exact";
    lf_planned r;
    lf_status st = lf_plan_network(cm, &pc, &r);
    t->exact_wall = r.wall_s;
    if (st == LF_OK) {
        t->has_exact = 1;
        t->exact_dram = r.metrics.dram_fusable;
        t->exact_dram_all = r.metrics.dram_all;
        t->exact_mbu = r.metrics.mbu;
        t->exact_groups = r.metrics.n_groups;
    }
    lf_planned_destroy(&r);
    return st;
}

lf_status lf_cmp_run_table(const lf_cmp_config *c, lf_cmp_table *t, const lf_graph *g,
                           lf_cmp_progress_fn progress, void *user)
{
    if (t->n_rows != c->n_searches * c->n_proposers)
        return lf_set_error(LF_EINVAL, "compare: the table has %d rows for %d searches x %d "
                                       "proposers", (int)t->n_rows, (int)c->n_searches,
                            (int)c->n_proposers);
    for (int32_t q = 0; q < c->n_searches; q++)
        if (!lf_cmp_search_name(c->searches[q]))
            return lf_set_error(LF_EINVAL, "compare: unknown search '%s'", c->searches[q]);
    for (int32_t p = 0; p < c->n_proposers; p++)
        if (!lf_cmp_proposer_known(c->proposers[p]))
            return lf_set_error(LF_EINVAL, "compare: unknown proposer '%s'", c->proposers[p]);
    lf_cost_model *cm = NULL;
    lf_status st = lf_cost_model_create(&cm, g, c->hw, t->scheme);
    if (st != LF_OK)
        return st;
    t->n_ops = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].type != LF_OP_INPUT) {
            t->n_ops++;
            t->n_unfusable += !lf_cost_fusable(cm, v);
        }
    for (int32_t q = 0, r = 0; q < c->n_searches; q++)
        for (int32_t p = 0; p < c->n_proposers; p++, r++) {
            t->rows[r].search = lf_cmp_search_name(c->searches[q]);
            t->rows[r].proposer = c->proposers[p];
            t->rows[r].baseline = -1;
            for (int32_t b = 0; b < c->n_proposers; b++)
                if (b != p && !strcmp(c->proposers[b], "none"))
                    t->rows[r].baseline = q * c->n_proposers + b;
        }
    for (int32_t r = 0; r < t->n_rows && st == LF_OK; r++)
        for (int32_t s = 0; s < t->n_seeds && st == LF_OK; s++) {
            st = lf__run_one(c, t, r, s, g, cm);
            if (st == LF_OK && progress)
                progress(user, t, r, s, 1);
        }
    if (st == LF_OK && c->exact) {
        int ok = lf__run_exact(t, cm) == LF_OK;
        if (progress)
            progress(user, t, -1, -1, ok);
    }
    lf_cost_model_free(cm);
    return st;
}

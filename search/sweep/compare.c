/* One comparison table: every (search, proposer) pair over every seed
 * through the library pipeline (lf_plan_network), then the exact optimum. */
#include "search/sweep/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "splitter/proposer_named.h"
#include "planner/cost/cost.h"
#include "planner/app/pipeline.h"
#include "planner/app/registry.h"

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
    return !strcmp(name, "none") || lf_named_proposer_known(name);
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

lf_status lf_cmp_grid_check(const lf_cmp_config *cfg, const lf_cmp_grid *grid)
{
    for (int32_t i = 0; i < grid->n_schemes; i++)
        if (!lf_name_known(LF_NAMES_SCHEME, grid->schemes[i]))
            return lf_set_error(LF_EINVAL, "unknown scheme '%s' (use lbdf or brr)", grid->schemes[i]);
    for (int32_t i = 0; i < cfg->n_searches; i++)
        if (!lf_cmp_search_name(cfg->searches[i]))
            return lf_set_error(LF_EINVAL, "unknown search '%s' (use ls, rs or nsga2)", cfg->searches[i]);
    for (int32_t i = 0; i < cfg->n_proposers; i++)
        if (!lf_cmp_proposer_known(cfg->proposers[i]))
            return lf_set_error(LF_EINVAL, "unknown proposer '%s' (use none, gnne, pg, rg, attrib, all, "
                                           "random, saliency or occlusion)", cfg->proposers[i]);
    return LF_OK;
}

lf_status lf_cmp_run_grid(const lf_cmp_config *cfg, const lf_cmp_grid *grid, lf_cmp_table **tables,
                          int32_t *n_tables, lf_cmp_progress_fn progress, void *user)
{
    int32_t n = grid->n_models * grid->n_schemes * grid->n_betas;
    *n_tables = 0;
    *tables = calloc((size_t)(n > 0 ? n : 1), sizeof **tables);
    if (!*tables)
        return lf_set_error(LF_ENOMEM, "out of memory");
    *n_tables = n;
    lf_cmp_config c = *cfg;
    lf_hw hw = *cfg->hw;
    c.hw = &hw;
    lf_status st = LF_OK;
    int32_t ti = 0;
    for (int32_t mi = 0; mi < grid->n_models && st == LF_OK; mi++)
        for (int32_t si = 0; si < grid->n_schemes && st == LF_OK; si++)
            for (int32_t bi = 0; bi < grid->n_betas && st == LF_OK; bi++) {
                lf_cmp_table *t = &(*tables)[ti++];
                t->model = grid->models[mi];
                t->scheme = grid->schemes[si];
                t->beta = grid->betas[bi];
                t->k = (int32_t)cfg->k;
                t->threads = (int32_t)cfg->threads;
                t->population = (int32_t)cfg->population;
                t->fresh_memo = cfg->fresh_memo;
                t->seeds = malloc((size_t)(grid->n_seeds > 0 ? grid->n_seeds : 1) * sizeof *t->seeds);
                if (!t->seeds) {
                    st = lf_set_error(LF_ENOMEM, "out of memory");
                    break;
                }
                for (int32_t k = 0; k < grid->n_seeds; k++)
                    t->seeds[k] = grid->first_seed + (uint64_t)k;
                if ((st = lf_cmp_table_alloc(t, cfg->n_searches * cfg->n_proposers, grid->n_seeds,
                                             grid->budget)) != LF_OK)
                    break;
                hw.buffer_bytes = grid->betas[bi];
                st = lf_cmp_run_table(&c, t, grid->graphs[mi], progress, user);
            }
    return st;
}

void lf_cmp_tables_free(lf_cmp_table *tables, int32_t n)
{
    for (int32_t i = 0; tables && i < n; i++) {
        free(tables[i].seeds);
        lf_cmp_table_free(&tables[i]);
    }
    free(tables);
}

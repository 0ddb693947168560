/* One sweep cell: build (or reuse) the network, a fresh cost model for the
 * cell's scheme and buffer, the cell's splitter, one search with a budget
 * trace, the split gap, the exact optimum (cached per network, scheme and
 * buffer: it does not depend on the search), and the JSON line.
 *
 * The line depends only on the grid and the cell index, except the two wall
 * times, which are its last members so that tools can strip them:
 *   ..., "wall_s": 0.12, "exact_wall_s": 0.5}
 * Each cell gets a cold cost memo, so its wall time does not depend on which
 * cells ran before it in the same process (compare --fresh-memo). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/cost/objective.h"
#include "planner/exact/exact.h"
#include "planner/io/json.h"
#include "planner/io/onnx.h"
#include "planner/app/pipeline.h"
#include "planner/plan.h"
#include "planner/util/clock.h"
#include "search/sweep/sweep_internal.h"

/* The exact optimum of one (network, scheme, buffer). */
typedef struct lf__exact_entry {
    int32_t state; /* 0 not computed, 1 found, -1 failed */
    int64_t dram_fusable, dram_all, mbu;
    int64_t objective; /* the grid's objective over fusable ops (its unit) */
    int32_t groups;
    double wall_s;
    char *error;
} lf__exact_entry;

struct lf_sweep_runner {
    const lf_sweep_grid *grid;
    lf_graph **graphs;         /* per model, built on first use */
    lf_status *graph_status;
    char **graph_error;
    lf__exact_entry *exact;    /* per (model, scheme, buffer) */
};

lf_status lf_sweep_runner_create(lf_sweep_runner **out, const lf_sweep_grid *g)
{
    lf_sweep_runner *r = calloc(1, sizeof *r);
    *out = NULL;
    if (!r)
        return lf_set_error(LF_ENOMEM, "out of memory");
    r->grid = g;
    size_t nn = (size_t)lf_sweep_n_networks(g), nt = nn * g->n_schemes * g->n_buffers;
    r->graphs = calloc(nn ? nn : 1, sizeof *r->graphs);
    r->graph_status = calloc(nn ? nn : 1, sizeof *r->graph_status);
    r->graph_error = calloc(nn ? nn : 1, sizeof *r->graph_error);
    r->exact = calloc(nt ? nt : 1, sizeof *r->exact);
    if (!r->graphs || !r->graph_status || !r->graph_error || !r->exact) {
        lf_sweep_runner_free(r);
        return lf_set_error(LF_ENOMEM, "out of memory");
    }
    *out = r;
    return LF_OK;
}

void lf_sweep_runner_free(lf_sweep_runner *r)
{
    if (!r)
        return;
    for (int32_t i = 0; r->graphs && i < lf_sweep_n_networks(r->grid); i++) {
        lf_graph_free(r->graphs[i]);
        free(r->graph_error[i]);
    }
    size_t nt = (size_t)lf_sweep_n_networks(r->grid) * r->grid->n_schemes * r->grid->n_buffers;
    for (size_t i = 0; r->exact && i < nt; i++)
        free(r->exact[i].error);
    free(r->graphs);
    free(r->graph_status);
    free(r->graph_error);
    free(r->exact);
    free(r);
}

/* Index of the network, and of its (network, scheme, buffer) table. */
static void lf__cell_tables(const lf_sweep_grid *g, int64_t i, int32_t *model, int64_t *table)
{
    int64_t t = i / ((int64_t)g->n_searches * g->n_proposers * g->n_seeds);
    *table = t;
    *model = (int32_t)(t / ((int64_t)g->n_schemes * g->n_buffers));
}

static lf_status lf__graph(lf_sweep_runner *r, int32_t m, const lf_graph **out)
{
    if (!r->graphs[m] && r->graph_status[m] == LF_OK) {
        const lf_sweep_grid *g = r->grid;
        lf_onnx_input_shape shapes[16];
        lf_onnx_options opt;
        memset(&opt, 0, sizeof opt);
        if (m < g->n_models)
            r->graph_status[m] = lf_model_build(g->models[m], NULL, &r->graphs[m]);
        else if (g->input_shape &&
                 (r->graph_status[m] = lf_sweep_onnx_shapes(g->input_shape, shapes, 16, &opt.n_input_shapes)) != LF_OK)
            ;
        else {
            opt.input_shapes = g->input_shape ? shapes : NULL;
            r->graph_status[m] = lf_onnx_import(g->onnx[m - g->n_models], &opt, &r->graphs[m], NULL);
        }
        if (r->graph_status[m] != LF_OK)
            r->graph_error[m] = strdup(lf_last_error());
    }
    *out = r->graphs[m];
    if (r->graph_status[m] != LF_OK)
        return lf_set_error(r->graph_status[m], "%s", r->graph_error[m] ? r->graph_error[m] : "?");
    return LF_OK;
}

double lf_sweep_cell_cost(lf_sweep_runner *r, int64_t i)
{
    lf_sweep_cell c;
    int32_t m;
    int64_t t;
    const lf_graph *g;
    if (lf_sweep_cell_get(r->grid, i, &c) != LF_OK)
        return 0.0;
    lf__cell_tables(r->grid, i, &m, &t);
    double ops = lf__graph(r, m, &g) == LF_OK ? (double)g->n_ops : 1.0;
    /* Rough factors from the measured Table II/V times: GNNExplainer
     * optimizes a mask per group, random search meets the most invalid
     * groups. Only the order of the hand-out depends on them. */
    double prop = !strncmp(c.proposer, "gnne", 4) ? 100.0 : !strcmp(c.proposer, "rg") ? 5.0
                : !strcmp(c.proposer, "none") ? 1.0 : 2.0;
    double search = !strcmp(c.search, "random") ? 3.0 : 1.0;
    return ops * (double)r->grid->budget * prop * search;
}

/* The exact optimum of the cell's table, computed on first use with the
 * cell's cost model (after its search, so that it warms nothing for it). */
static const lf__exact_entry *lf__exact(lf_sweep_runner *r, int64_t table, lf_cost_model *cm)
{
    lf__exact_entry *e = &r->exact[table];
    if (e->state)
        return e;
    lf_plan p;
    lf_plan_metrics m;
    double t0 = lf_now_seconds();
    lf_status st = lf_exact_plan(cm, NULL, &p, NULL);
    if (st == LF_OK) {
        st = lf_plan_metrics_compute(&p, cm, &m);
        lf_plan_destroy(&p);
    }
    e->wall_s = lf_now_seconds() - t0;
    if (st != LF_OK) {
        e->state = -1;
        e->error = strdup(lf_last_error());
        return e;
    }
    e->state = 1;
    e->dram_fusable = m.dram_fusable;
    e->objective = m.objective;
    e->dram_all = m.dram_all;
    e->mbu = m.mbu;
    e->groups = m.n_groups;
    return e;
}

/* What one cell measured. */
typedef struct lf__cell_out {
    int32_t ops, unfusable, groups;
    int64_t dram_fusable, dram_all, mbu, invalid;
    int64_t objective; /* the grid's objective over fusable ops */
    double rectify, split_gap, wall;
    int64_t *curve;
    int32_t n_curve;
    const lf__exact_entry *exact;
} lf__cell_out;

static lf_status lf__measure(lf_sweep_runner *r, const lf_sweep_cell *c, const lf_graph *g, int64_t table,
                             lf__cell_out *o)
{
    const lf_sweep_grid *grid = r->grid;
    lf_hw hw = grid->hw;
    hw.buffer_bytes = c->buffer;
    lf_cost_model *cm = NULL;
    lf_status st = lf_cost_model_create(&cm, g, &hw, c->scheme);
    if (st == LF_OK)
        st = lf_cost_set_objective(cm, (lf_plan_objective)grid->objective);
    if (st != LF_OK) {
        lf_cost_model_free(cm);
        return st;
    }
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].type != LF_OP_INPUT) {
            o->ops++;
            o->unfusable += !lf_cost_fusable(cm, v);
        }
    /* The run through the library pipeline (planner/app/pipeline.h). */
    lf_planner_config pc;
    lf_planner_config_default(&pc);
    pc.search = c->search;
    pc.budget = grid->budget;
    pc.seed = c->seed;
    pc.threads = grid->threads;
    pc.population = grid->population;
    pc.trace = 1;
    pc.k = grid->k;
    pc.split_gap = grid->split_gap;
    pc.objective = lf_plan_objective_name((lf_plan_objective)grid->objective);
    if (strcmp(c->proposer, "none") != 0) {
        pc.split = "tree";
        pc.proposer = c->proposer;
    }
    lf_planned res;
    st = lf_plan_network(cm, &pc, &res);
    if (st == LF_OK) {
        o->dram_fusable = res.metrics.dram_fusable;
        o->objective = res.metrics.objective;
        o->dram_all = res.metrics.dram_all;
        o->mbu = res.metrics.mbu;
        o->groups = res.metrics.n_groups;
        o->invalid = res.search_result.invalid_groups;
        o->wall = res.search_result.wall_s;
        o->n_curve = lf_sweep_curve_points(grid->budget, NULL);
        int64_t *points = malloc((size_t)o->n_curve * sizeof *points);
        o->curve = malloc((size_t)o->n_curve * sizeof *o->curve);
        if (!points || !o->curve || res.search_result.n_trace < grid->budget)
            st = lf_set_error(LF_ENOMEM, "out of memory for the budget curve");
        else {
            lf_sweep_curve_points(grid->budget, points);
            for (int32_t p = 0; p < o->n_curve; p++)
                o->curve[p] = res.search_result.trace[points[p] - 1];
        }
        free(points);
        if (res.have_tree_stats) {
            o->rectify = res.tree_stats.groups > 0 ? res.tree_stats.rectify_rate : NAN;
            o->split_gap = res.tree_stats.gap_groups > 0 ? res.tree_stats.mean_gap : NAN;
        }
    }
    lf_planned_destroy(&res);
    if (st == LF_OK && grid->exact)
        o->exact = lf__exact(r, table, cm);
    lf_cost_model_free(cm);
    return st;
}

static void lf__line(FILE *f, const lf_sweep_grid *grid, const lf_sweep_cell *c, const char *key,
                     const lf_graph *g, const lf__cell_out *o, const char *error)
{
    char hash[17] = "";
    if (g)
        lf_graph_hash_hex(g, hash);
    fprintf(f, "{\"cell\": %" PRId64 ", \"key\": ", c->index);
    lf_json_string(f, key);
    fprintf(f, ", \"model\": ");
    lf_json_string(f, c->model);
    fprintf(f, ", \"onnx\": %s, \"graph_hash\": ", c->onnx ? "true" : "false");
    if (g)
        lf_json_string(f, hash);
    else
        fprintf(f, "null");
    fprintf(f, ", \"scheme\": \"%s\", \"buffer_bytes\": %" PRId64 ", \"search\": \"%s\", \"proposer\": ",
            c->scheme, c->buffer, c->search);
    lf_json_string(f, c->proposer);
    fprintf(f, ", \"seed\": %" PRIu64 ", \"budget\": %" PRId64 ", \"k\": %d, \"population\": %d, "
               "\"threads\": %d, \"exact_on\": %s, \"split_gap_on\": %s, \"hw\": ",
            c->seed, grid->budget, (int)grid->k, (int)grid->population, (int)grid->threads,
            grid->exact ? "true" : "false", grid->split_gap ? "true" : "false");
    if (grid->hw_path)
        lf_json_string(f, grid->hw_path);
    else
        fprintf(f, "null");
    fprintf(f, ", \"input_shape\": ");
    if (c->onnx && grid->input_shape)
        lf_json_string(f, grid->input_shape);
    else
        fprintf(f, "null");
    /* Named only when it is not DRAM (lines as before under DRAM). */
    int obj = grid->objective != LF_PLAN_OBJ_DRAM;
    if (obj)
        fprintf(f, ", \"objective\": \"%s\", \"objective_unit\": \"%s\"",
                lf_plan_objective_name((lf_plan_objective)grid->objective),
                lf_plan_objective_unit((lf_plan_objective)grid->objective));
    fprintf(f, ", \"version\": \"%s\"", LF_VERSION);
    if (error) {
        fprintf(f, ", \"error\": ");
        lf_json_string(f, error);
        fprintf(f, ", \"wall_s\": ");
        lf_json_double(f, o->wall);
        fprintf(f, ", \"exact_wall_s\": null}\n");
        return;
    }
    fprintf(f, ", \"ops\": %d, \"unfusable\": %d, \"dram_fusable\": %" PRId64 ", \"dram_all\": %" PRId64
               ", \"mbu\": %" PRId64 ", \"groups\": %d, \"invalid_groups\": %" PRId64 ", \"rectify_rate\": ",
            (int)o->ops, (int)o->unfusable, o->dram_fusable, o->dram_all, o->mbu, (int)o->groups,
            o->invalid);
    lf_json_double(f, o->rectify);
    fprintf(f, ", \"split_gap\": ");
    lf_json_double(f, o->split_gap);
    if (obj)
        fprintf(f, ", \"objective_fusable\": %" PRId64, o->objective);
    const lf__exact_entry *e = o->exact;
    fprintf(f, ", \"exact\": ");
    if (e && e->state == 1 && obj)
        fprintf(f, "{\"dram_fusable\": %" PRId64 ", \"dram_all\": %" PRId64 ", \"mbu\": %" PRId64
                   ", \"groups\": %d, \"objective_fusable\": %" PRId64 "}, \"gap_pct\": ",
                e->dram_fusable, e->dram_all, e->mbu, (int)e->groups, e->objective);
    else if (e && e->state == 1)
        fprintf(f, "{\"dram_fusable\": %" PRId64 ", \"dram_all\": %" PRId64 ", \"mbu\": %" PRId64
                   ", \"groups\": %d}, \"gap_pct\": ",
                e->dram_fusable, e->dram_all, e->mbu, (int)e->groups);
    else
        fprintf(f, "null, \"gap_pct\": ");
    /* The gap is the objective's: the search's figure over the optimum's. */
    int64_t mine = obj ? o->objective : o->dram_fusable, best = e && obj ? e->objective : e ? e->dram_fusable : 0;
    lf_json_double(f, e && e->state == 1 && best > 0 ? 100.0 * (double)(mine - best) / (double)best : NAN);
    if (e && e->state == -1) {
        fprintf(f, ", \"exact_error\": ");
        lf_json_string(f, e->error ? e->error : "exact planner failed");
    }
    fprintf(f, ", \"curve\": [");
    for (int32_t p = 0; p < o->n_curve; p++)
        fprintf(f, "%s%" PRId64, p ? ", " : "", o->curve[p]);
    fprintf(f, "], \"wall_s\": ");
    lf_json_double(f, o->wall);
    fprintf(f, ", \"exact_wall_s\": ");
    lf_json_double(f, e ? e->wall_s : NAN);
    fprintf(f, "}\n");
}

lf_status lf_sweep_run_cell(lf_sweep_runner *r, int64_t i, char **line, int *cell_failed)
{
    lf_sweep_cell c;
    *line = NULL;
    *cell_failed = 0;
    lf_status st = lf_sweep_cell_get(r->grid, i, &c);
    if (st != LF_OK)
        return st;
    char key[512];
    lf_sweep_cell_key(&c, key, sizeof key);
    int32_t m;
    int64_t table;
    lf__cell_tables(r->grid, i, &m, &table);
    const lf_graph *g = NULL;
    lf__cell_out o;
    memset(&o, 0, sizeof o);
    o.rectify = o.split_gap = NAN;
    double t0 = lf_now_seconds();
    st = lf__graph(r, m, &g);
    if (st == LF_OK)
        st = lf__measure(r, &c, g, table, &o);
    char *error = NULL;
    if (st != LF_OK) {
        o.wall = lf_now_seconds() - t0;
        error = strdup(lf_last_error());
        *cell_failed = 1;
    }
    size_t len = 0;
    FILE *f = open_memstream(line, &len);
    if (!f) {
        free(error);
        free(o.curve);
        return lf_set_error(LF_ENOMEM, "out of memory for a sweep line");
    }
    lf__line(f, r->grid, &c, key, g, &o, st != LF_OK ? (error ? error : "out of memory") : NULL);
    int bad = ferror(f);
    fclose(f);
    free(error);
    free(o.curve);
    if (bad || !*line) {
        free(*line);
        *line = NULL;
        return lf_set_error(LF_ENOMEM, "out of memory for a sweep line");
    }
    return LF_OK;
}

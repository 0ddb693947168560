/* fusionplan compare: every search with every splitter on the same network,
 * scheme and buffer, over several seeds, next to the exact optimum — the
 * paper's Tables II–V and Fig. 5 in one command.
 *
 * The runs of one table share a cost model, hence its F_beta/F_D memo (as the
 * paper caches them), unless --fresh-memo gives each run a cold one: then the
 * wall times compare fairly (Table V), at the price of recomputing costs. The
 * exact optimum is computed after the searches so that it warms no memo for
 * them. Each run gets its own splitter (and its own split memo), so the
 * rectify rate and split gap of a row are per seed, then averaged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/cli/compare.h"
#include "planner/registry.h"
#include "planner/util/fileio.h"
#include "planner/util/pool.h"

#define LF_CMP_MAX_ITEMS 16

/* Accepts the paper's abbreviations and the planner's names. */
static const char *lf__search_name(const char *s)
{
    if (!strcmp(s, "ls") || !strcmp(s, "local"))
        return "local";
    if (!strcmp(s, "rs") || !strcmp(s, "random"))
        return "random";
    if (!strcmp(s, "nsga2") || !strcmp(s, "nsga-ii") || !strcmp(s, "nsga"))
        return "nsga2";
    return NULL;
}

static int lf__known_proposer(const char *p)
{
    const char *names[] = {"none", "all", "random", "attrib", "gnne", "pg", "rg", "saliency", "occlusion"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(p, names[i]))
            return 1;
    return 0;
}

typedef struct lf__cmp_args {
    char **searches, **proposers;
    int n_searches, n_proposers;
    int64_t budget, seeds, seed, k, threads, population;
    int exact, split_gap, fresh_memo, quiet, curves;
    const lf_hw *hw;
} lf__cmp_args;

/* One search with one splitter and one seed (lf_plan_network); fills
 * column s of row r. */
static lf_status lf__run_one(const lf__cmp_args *a, lf_cmp_table *t, int32_t r, int32_t s,
                             const lf_graph *g, lf_cost_model *shared)
{
    lf_cmp_row *row = &t->rows[r];
    lf_cost_model *cm = shared;
    lf_status st = LF_OK;
    if (a->fresh_memo && (st = lf_cost_model_create(&cm, g, a->hw, t->scheme)) != LF_OK)
        return st;
    lf_planner_config pc;
    lf_planner_config_default(&pc);
    pc.search = row->search;
    pc.budget = a->budget;
    pc.seed = t->seeds[s];
    pc.threads = (int32_t)a->threads;
    pc.population = (int32_t)a->population;
    pc.trace = 1;
    pc.k = (int32_t)a->k;
    pc.split_gap = a->split_gap;
    if (strcmp(row->proposer, "none") != 0) {
        pc.split = "tree";
        pc.proposer = row->proposer;
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

/* Fills one table: every (search, proposer) pair over every seed, then the
 * optimum. */
static lf_status lf__run_table(const lf__cmp_args *a, lf_cmp_table *t, const lf_graph *g)
{
    lf_cost_model *cm = NULL;
    lf_status st = lf_cost_model_create(&cm, g, a->hw, t->scheme);
    if (st != LF_OK)
        return st;
    t->n_ops = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].type != LF_OP_INPUT) {
            t->n_ops++;
            t->n_unfusable += !lf_cost_fusable(cm, v);
        }
    for (int32_t q = 0, r = 0; q < a->n_searches; q++)
        for (int32_t p = 0; p < a->n_proposers; p++, r++) {
            t->rows[r].search = lf__search_name(a->searches[q]);
            t->rows[r].proposer = a->proposers[p];
            t->rows[r].baseline = -1;
            for (int32_t b = 0; b < a->n_proposers; b++)
                if (b != p && !strcmp(a->proposers[b], "none"))
                    t->rows[r].baseline = q * a->n_proposers + b;
        }
    for (int32_t r = 0; r < t->n_rows && st == LF_OK; r++)
        for (int32_t s = 0; s < t->n_seeds && st == LF_OK; s++) {
            st = lf__run_one(a, t, r, s, g, cm);
            if (st == LF_OK && !a->quiet)
                fprintf(stderr, "compare: %s %s %lld KB, %s + %s, seed %llu: %.3f MB in %.2f s\n",
                        t->model, t->scheme, (long long)(t->beta / 1024),
                        lf_cmp_search_label(t->rows[r].search),
                        lf_cmp_proposer_label(t->rows[r].proposer), (unsigned long long)t->seeds[s],
                        (double)t->rows[r].dram[s] / 1e6, t->rows[r].wall[s]);
        }
    if (st == LF_OK && a->exact) {
        if (lf__run_exact(t, cm) != LF_OK)
            fprintf(stderr, "fusionplan compare: %s %s: no exact optimum: %s\n", t->model, t->scheme,
                    lf_last_error());
        else if (!a->quiet)
            fprintf(stderr, "compare: %s %s exact optimum %.3f MB in %.2f s\n", t->model, t->scheme,
                    (double)t->exact_dram / 1e6, t->exact_wall);
    }
    lf_cost_model_free(cm);
    return st;
}

int lf_cmd_compare(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"model", "LIST", "networks, comma-separated (default mobilenet_v2)", NULL},
        LF_CLI_ONNX_OPTS,
        {"scheme", "LIST", "cost models: lbdf, brr or lbdf,brr (default lbdf)", NULL},
        {"buffer", "LIST", "on-chip buffer sizes, e.g. 128KB or 128KB,256KB (default: the hardware's)", NULL},
        {"hw", "FILE", "hardware description XML (default: built-in 256 KB accelerator)", NULL},
        {"search", "LIST", "searches: ls, rs, nsga2 (also local, random; default ls,rs,nsga2)", NULL},
        {"proposer", "LIST", "splitters: none (the random split) and tree proposers gnne, pg, rg, attrib, "
                             "all, random, saliency, occlusion (default none,gnne,pg,rg)", NULL},
        {"budget", "N", "plans proposed per search (default 2000)", NULL},
        {"seeds", "K", "runs per pair, seeds S .. S+K-1 (default 3)", NULL},
        {"seed", "S", "first seed (default 1)", NULL},
        {"k", "N", "edges a tree proposer may return (default 3)", NULL},
        {"population", "K", "LS top-K and NSGA-II population (default 10)", NULL},
        {"threads", "T", "threads per search (default: all cores or OMP_NUM_THREADS)", NULL},
        {"no-exact", NULL, "skip the exact optimum (no gap column, no last row)", NULL},
        {"split-gap", NULL, "measure the split gap after each search (an exact split per distinct "
                            "group; not in the wall time)", NULL},
        {"no-split-gap", NULL, "no split gap (the default; kept for old scripts)", NULL},
        {"fresh-memo", NULL, "give every run a cold cost memo (fair wall times; slower)", NULL},
        {"format", "FMT", "md (default), csv or json", NULL},
        {"output", "FILE", "(or -o) write the tables to FILE instead of standard output", NULL},
        {"csv", "FILE", "also write the tables as CSV to FILE", NULL},
        {"json", "FILE", "also write the tables as JSON (with per-seed figures) to FILE", NULL},
        {"curves", "PREFIX", "write budget curves to PREFIX.csv and PREFIX.svg (one SVG per table: "
                             "PREFIX-<model>-<scheme>-<buffer>.svg when there are several)", NULL},
        {"quiet", NULL, "no progress lines on standard error", NULL},
    };
    lf_cli_command cmd = {
        "compare", "Compare searches and explainer-guided splitters over seeds, with the optimum.",
        "compare [--model LIST | --onnx FILE] [--scheme LIST] [--buffer LIST] [--search LIST] [--proposer LIST] "
        "[--budget N] [--seeds K] [--format md|csv|json] [--curves PREFIX]",
        "Runs every search with every splitter at the same budget on each seed and prints, per\n"
        "network, scheme and buffer, one table: DRAM over fusable ops (MB; mean and standard\n"
        "deviation over the seeds, best and worst), the change against the same search with the\n"
        "random split and on how many seeds it is lower, the gap of the mean to the exact optimum,\n"
        "maximum buffer usage, groups, the tree splitter's rectify rate and split gap, and the mean\n"
        "wall time per search. The exact optimum is the last row. Runs share the cost memo unless\n"
        "--fresh-memo; see docs/experiments.md.",
        opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    lf__cmp_args a;
    memset(&a, 0, sizeof a);
    lf_cli_search_values sv;
    if ((rc = lf_cli_search_opts(&cmd, &sv)))
        return rc;
    a.budget = sv.budget;
    a.seeds = sv.seeds;
    a.seed = sv.seed;
    a.k = sv.k;
    a.population = sv.population;
    a.threads = sv.threads;
    a.threads = lf_pool_default_threads((int32_t)a.threads); /* printed in the report */
    a.exact = !lf_cli_get(&cmd, "no-exact");
    a.split_gap = lf_cli_get(&cmd, "split-gap") != NULL;
    a.fresh_memo = lf_cli_get(&cmd, "fresh-memo") != NULL;
    a.quiet = lf_cli_get(&cmd, "quiet") != NULL;
    lf_cmp_out o = {lf_cli_get(&cmd, "format"), lf_cli_get(&cmd, "output"), lf_cli_get(&cmd, "csv"),
                     lf_cli_get(&cmd, "json"), lf_cli_get(&cmd, "curves")};
    if (!o.format)
        o.format = "md";
    if (strcmp(o.format, "md") && strcmp(o.format, "csv") && strcmp(o.format, "json"))
        return lf_cli_usage_error(&cmd, "unknown --format '%s' (use md, csv or json)", o.format);
    {
        /* Every output is checked before the work; the SVG curves go next to
         * PREFIX.csv, so its folder stands for theirs. */
        char curves_csv[1024] = "";
        if (o.curves)
            snprintf(curves_csv, sizeof curves_csv, "%s.csv", o.curves);
        const char *outs[4] = {o.output, o.csv, o.json, o.curves ? curves_csv : NULL};
        int orc = lf_cli_check_outputs(outs, 4);
        if (orc)
            return orc;
    }

    char models_buf[1024], schemes_buf[64], buffers_buf[256], searches_buf[256], proposers_buf[256];
    const char *v, *onnx = lf_cli_get(&cmd, "onnx");
    if (onnx && lf_cli_get(&cmd, "model"))
        return lf_cli_usage_error(&cmd, "give either --model or --onnx, not both");
    snprintf(models_buf, sizeof models_buf, "%s",
             onnx ? "" : (v = lf_cli_get(&cmd, "model")) ? v : "mobilenet_v2");
    snprintf(schemes_buf, sizeof schemes_buf, "%s", (v = lf_cli_get(&cmd, "scheme")) ? v : "lbdf");
    snprintf(buffers_buf, sizeof buffers_buf, "%s", (v = lf_cli_get(&cmd, "buffer")) ? v : "");
    snprintf(searches_buf, sizeof searches_buf, "%s", (v = lf_cli_get(&cmd, "search")) ? v : "ls,rs,nsga2");
    snprintf(proposers_buf, sizeof proposers_buf, "%s",
             (v = lf_cli_get(&cmd, "proposer")) ? v : "none,gnne,pg,rg");
    char *models[LF_CMP_MAX_ITEMS], *schemes[4], *buffers[LF_CMP_MAX_ITEMS], *searches[8], *proposers[12];
    int nm = onnx ? 1 : lf_cli_split_list(models_buf, models, LF_CMP_MAX_ITEMS);
    if (onnx)
        models[0] = (char *)onnx;
    int ns = lf_cli_split_list(schemes_buf, schemes, 4);
    int nb = lf_cli_split_list(buffers_buf, buffers, LF_CMP_MAX_ITEMS);
    a.n_searches = lf_cli_split_list(searches_buf, searches, 8);
    a.n_proposers = lf_cli_split_list(proposers_buf, proposers, 12);
    if (nm <= 0 || ns <= 0 || nb < 0 || a.n_searches <= 0 || a.n_proposers <= 0 ||
        nm > LF_CMP_MAX_ITEMS || ns > 4 || nb > LF_CMP_MAX_ITEMS || a.n_searches > 8 ||
        a.n_proposers > 12)
        return lf_cli_usage_error(&cmd, "empty or too long list (at most %d networks and buffers, "
                                        "4 schemes, 8 searches, 12 proposers)", LF_CMP_MAX_ITEMS);
    a.searches = searches;
    a.proposers = proposers;
    for (int i = 0; i < ns; i++)
        if (!lf_name_known(LF_NAMES_SCHEME, schemes[i]))
            return lf_cli_usage_error(&cmd, "unknown scheme '%s' (use lbdf or brr)", schemes[i]);
    for (int i = 0; i < a.n_searches; i++)
        if (!lf__search_name(searches[i]))
            return lf_cli_usage_error(&cmd, "unknown search '%s' (use ls, rs or nsga2)", searches[i]);
    for (int i = 0; i < a.n_proposers; i++)
        if (!lf__known_proposer(proposers[i]))
            return lf_cli_usage_error(&cmd, "unknown proposer '%s' (use none, gnne, pg, rg, attrib, all, "
                                            "random, saliency or occlusion)", proposers[i]);
    lf_hw hw;
    lf_hw_default(&hw);
    lf_status st;
    const char *hwfile = lf_cli_get(&cmd, "hw");
    if (hwfile && (st = lf_hw_load(&hw, hwfile)) != LF_OK)
        return lf_cli_fail(st);
    int64_t betas[LF_CMP_MAX_ITEMS];
    if (nb == 0)
        betas[nb++] = hw.buffer_bytes;
    else
        for (int i = 0; i < nb; i++)
            if (lf_hw_parse_size(buffers[i], &betas[i]) != LF_OK)
                return lf_cli_usage_error(&cmd, "--buffer: %s", lf_last_error());
    /* Names are checked before any long run starts. */
    lf_graph **graphs = calloc((size_t)nm, sizeof *graphs);
    int32_t n_tables = nm * ns * nb;
    lf_cmp_table *tables = calloc((size_t)n_tables, sizeof *tables);
    uint64_t *seeds = malloc((size_t)a.seeds * sizeof *seeds);
    rc = LF_EXIT_OK;
    if (!graphs || !tables || !seeds) {
        rc = lf_cli_fail(lf_set_error(LF_ENOMEM, "out of memory"));
        goto done;
    }
    for (int64_t s = 0; s < a.seeds; s++)
        seeds[s] = (uint64_t)(a.seed + s);
    for (int i = 0; i < nm; i++) {
        if ((rc = lf_cli_load_listed(&cmd, models[i], &graphs[i])))
            goto done;
        if (onnx)
            models[i] = (char *)graphs[i]->name; /* the tables name the network, not the path */
    }
    a.curves = o.curves != NULL;
    int32_t ti = 0;
    for (int mi = 0; mi < nm && rc == LF_EXIT_OK; mi++)
        for (int si = 0; si < ns && rc == LF_EXIT_OK; si++)
            for (int bi = 0; bi < nb && rc == LF_EXIT_OK; bi++) {
                lf_cmp_table *t = &tables[ti++];
                t->model = models[mi];
                t->scheme = schemes[si];
                t->beta = betas[bi];
                t->k = (int32_t)a.k;
                t->threads = (int32_t)a.threads;
                t->population = (int32_t)a.population;
                t->fresh_memo = a.fresh_memo;
                t->seeds = seeds;
                if ((st = lf_cmp_table_alloc(t, a.n_searches * a.n_proposers, (int32_t)a.seeds,
                                             a.budget)) != LF_OK) {
                    rc = lf_cli_fail(st);
                    break;
                }
                lf_hw thw = hw;
                thw.buffer_bytes = betas[bi];
                a.hw = &thw;
                if ((st = lf__run_table(&a, t, graphs[mi])) != LF_OK)
                    rc = lf_cli_fail(st);
            }
    if (rc == LF_EXIT_OK && (st = lf_cmp_emit(&o, tables, n_tables)) != LF_OK)
        rc = lf_cli_fail(st);
done:
    for (int32_t i = 0; tables && i < n_tables; i++)
        lf_cmp_table_free(&tables[i]);
    free(tables);
    for (int i = 0; graphs && i < nm; i++)
        lf_graph_free(graphs[i]);
    free(graphs);
    free(seeds);
    return rc;
}

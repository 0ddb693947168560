/* fusionplan compare: every search with every splitter on the same network,
 * scheme and buffer, over several seeds, next to the exact optimum — the
 * paper's Tables II–V and Fig. 5 in one command.
 * The runs themselves are the library's (search/sweep/compare.h); this file
 * parses the lists and writes the reports. */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/app/cli/compare.h"
#include "planner/util/pool.h"

#define LF_CMP_MAX_ITEMS 16

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
                             "all, random, saliency, occlusion (default none,gnne,pg,rg); gnne:epochs=N:patience=N:top=N "
                             "sets GNNExplainer's iterations (100) and early stop", NULL},
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
        {"split-continue", NULL, "tree proposers: keep splitting a valid part while that lowers its DRAM, then merge, "
                                 "move and re-split parts while that lowers it (beyond the paper's Algorithm 1)", NULL},
        {"fresh-memo", NULL, "give every run a cold cost memo (fair wall times; slower)", NULL},
        {"format", "FMT", "md (default), csv or json", NULL},
        {"output", "FILE", "(or -o) write the tables to FILE instead of standard output", NULL},
        {"csv", "FILE", "also write the tables as CSV to FILE", NULL},
        {"json", "FILE", "also write the tables as JSON (with per-seed figures) to FILE", NULL},
        {"curves", "PREFIX", "write budget curves to PREFIX.csv and PREFIX.svg (one SVG per table: "
                             "PREFIX-<model>-<scheme>-<buffer>.svg when there are several)", NULL},
        {"html", "FILE", "also write the tables and budget curves as one self-contained HTML page", NULL},
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
    lf_cmp_config a;
    memset(&a, 0, sizeof a);
    lf_cli_search_values sv;
    if ((rc = lf_cli_search_opts(&cmd, &sv)))
        return rc;
    a.k = sv.k;
    a.population = sv.population;
    a.threads = lf_pool_default_threads((int32_t)sv.threads); /* printed in the report */
    a.exact = !lf_cli_get(&cmd, "no-exact");
    a.split_gap = lf_cli_get(&cmd, "split-gap") != NULL;
    a.fresh_memo = lf_cli_get(&cmd, "fresh-memo") != NULL;
    a.split_continue = lf_cli_get(&cmd, "split-continue") != NULL;
    int quiet = lf_cli_get(&cmd, "quiet") != NULL;
    lf_cmp_out o;
    if ((rc = lf_cmp_out_parse(&cmd, &o, 1)))
        return rc;
    char models_buf[1024], schemes_buf[64], buffers_buf[256], searches_buf[256], proposers_buf[256];
    const char *onnx = lf_cli_get(&cmd, "onnx");
    if (onnx && lf_cli_get(&cmd, "model"))
        return lf_cli_usage_error(&cmd, "give either --model or --onnx, not both");
    snprintf(models_buf, sizeof models_buf, "%s", onnx ? "" : lf_cli_get_or(&cmd, "model", "mobilenet_v2"));
    snprintf(schemes_buf, sizeof schemes_buf, "%s", lf_cli_get_or(&cmd, "scheme", "lbdf"));
    snprintf(buffers_buf, sizeof buffers_buf, "%s", lf_cli_get_or(&cmd, "buffer", ""));
    snprintf(searches_buf, sizeof searches_buf, "%s", lf_cli_get_or(&cmd, "search", "ls,rs,nsga2"));
    snprintf(proposers_buf, sizeof proposers_buf, "%s", lf_cli_get_or(&cmd, "proposer", "none,gnne,pg,rg"));
    char *models[LF_CMP_MAX_ITEMS], *schemes[4], *buffers[LF_CMP_MAX_ITEMS], *searches[8], *proposers[12];
    lf_cmp_grid grid = {.models = (const char *const *)models, .schemes = (const char *const *)schemes,
                        .first_seed = (uint64_t)sv.seed, .n_seeds = (int32_t)sv.seeds, .budget = sv.budget};
    grid.n_models = onnx ? 1 : lf_cli_split_list(models_buf, models, LF_CMP_MAX_ITEMS);
    if (onnx)
        models[0] = (char *)onnx;
    grid.n_schemes = lf_cli_split_list(schemes_buf, schemes, 4);
    int nb = lf_cli_split_list(buffers_buf, buffers, LF_CMP_MAX_ITEMS);
    a.n_searches = lf_cli_split_list(searches_buf, searches, 8);
    a.n_proposers = lf_cli_split_list(proposers_buf, proposers, 12);
    if (grid.n_models <= 0 || grid.n_schemes <= 0 || nb < 0 || a.n_searches <= 0 || a.n_proposers <= 0 ||
        grid.n_models > LF_CMP_MAX_ITEMS || grid.n_schemes > 4 || nb > LF_CMP_MAX_ITEMS || a.n_searches > 8 ||
        a.n_proposers > 12)
        return lf_cli_usage_error(&cmd, "empty or too long list (at most %d networks and buffers, "
                                        "4 schemes, 8 searches, 12 proposers)", LF_CMP_MAX_ITEMS);
    a.searches = (const char *const *)searches;
    a.proposers = (const char *const *)proposers;
    if (lf_cmp_grid_check(&a, &grid) != LF_OK)
        return lf_cli_usage_error(&cmd, "%s", lf_last_error());
    lf_hw hw;
    lf_hw_default(&hw);
    lf_status st;
    const char *hwfile = lf_cli_get(&cmd, "hw");
    if (hwfile && (st = lf_hw_load(&hw, hwfile)) != LF_OK)
        return lf_cli_fail(st);
    int64_t betas[LF_CMP_MAX_ITEMS] = {hw.buffer_bytes};
    if ((rc = lf_cli_sizes(&cmd, "buffer", buffers, nb, betas)))
        return rc;
    grid.n_betas = nb ? nb : 1;
    grid.betas = betas;
    a.hw = &hw;
    /* Names are checked before any long run starts. */
    lf_graph *graphs[LF_CMP_MAX_ITEMS] = {0};
    lf_cmp_table *tables = NULL;
    int32_t n_tables = 0;
    for (int i = 0; i < grid.n_models && !rc; i++)
        if (!(rc = lf_cli_load_listed(&cmd, models[i], &graphs[i])) && onnx)
            models[i] = (char *)graphs[i]->name; /* the tables name the network, not the path */
    grid.graphs = (const lf_graph *const *)graphs;
    if (!rc && (st = lf_cmp_run_grid(&a, &grid, &tables, &n_tables, lf_cmp_progress_print, &quiet)) != LF_OK)
        rc = lf_cli_fail(st);
    if (!rc && (st = lf_cmp_emit(&o, tables, n_tables)) != LF_OK)
        rc = lf_cli_fail(st);
    lf_cmp_tables_free(tables, n_tables);
    for (int i = 0; i < grid.n_models; i++)
        lf_graph_free(graphs[i]);
    return rc;
}

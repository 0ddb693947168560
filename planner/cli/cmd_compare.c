/* fusionplan compare: every search with every splitter on the same network,
 * scheme and buffer, over several seeds, next to the exact optimum — the
 * paper's Tables II–V and Fig. 5 in one command.
 * The runs themselves are the library's (search/sweep/compare.h); this file
 * parses the lists and writes the reports. */
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

/* Progress lines on stderr; a missing optimum is said even with --quiet. */
static void lf__progress(void *user, const lf_cmp_table *t, int32_t r, int32_t s, int ok)
{
    int quiet = *(const int *)user;
    if (r >= 0 && !quiet)
        fprintf(stderr, "compare: %s %s %lld KB, %s + %s, seed %llu: %.3f MB in %.2f s\n", t->model,
                t->scheme, (long long)(t->beta / 1024), lf_cmp_search_label(t->rows[r].search),
                lf_cmp_proposer_label(t->rows[r].proposer), (unsigned long long)t->seeds[s],
                (double)t->rows[r].dram[s] / 1e6, t->rows[r].wall[s]);
    else if (r < 0 && !ok)
        fprintf(stderr, "fusionplan compare: %s %s: no exact optimum: %s\n", t->model, t->scheme,
                lf_last_error());
    else if (r < 0 && !quiet)
        fprintf(stderr, "compare: %s %s exact optimum %.3f MB in %.2f s\n", t->model, t->scheme,
                (double)t->exact_dram / 1e6, t->exact_wall);
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
        {"split-continue", NULL, "tree proposers: keep splitting a valid part while that lowers its DRAM "
                                 "(beyond the paper's Algorithm 1)", NULL},
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
    a.searches = (const char *const *)searches;
    a.proposers = (const char *const *)proposers;
    for (int i = 0; i < ns; i++)
        if (!lf_name_known(LF_NAMES_SCHEME, schemes[i]))
            return lf_cli_usage_error(&cmd, "unknown scheme '%s' (use lbdf or brr)", schemes[i]);
    for (int i = 0; i < a.n_searches; i++)
        if (!lf_cmp_search_name(searches[i]))
            return lf_cli_usage_error(&cmd, "unknown search '%s' (use ls, rs or nsga2)", searches[i]);
    for (int i = 0; i < a.n_proposers; i++)
        if (!lf_cmp_proposer_known(proposers[i]))
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
    uint64_t *seeds = malloc((size_t)sv.seeds * sizeof *seeds);
    rc = LF_EXIT_OK;
    if (!graphs || !tables || !seeds) {
        rc = lf_cli_fail(lf_set_error(LF_ENOMEM, "out of memory"));
        goto done;
    }
    for (int64_t s = 0; s < sv.seeds; s++)
        seeds[s] = (uint64_t)(sv.seed + s);
    for (int i = 0; i < nm; i++) {
        if ((rc = lf_cli_load_listed(&cmd, models[i], &graphs[i])))
            goto done;
        if (onnx)
            models[i] = (char *)graphs[i]->name; /* the tables name the network, not the path */
    }
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
                if ((st = lf_cmp_table_alloc(t, a.n_searches * a.n_proposers, (int32_t)sv.seeds,
                                             sv.budget)) != LF_OK) {
                    rc = lf_cli_fail(st);
                    break;
                }
                lf_hw thw = hw;
                thw.buffer_bytes = betas[bi];
                a.hw = &thw;
                if ((st = lf_cmp_run_table(&a, t, graphs[mi], lf__progress, &quiet)) != LF_OK)
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

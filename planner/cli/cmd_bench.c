/* fusionplan bench search: every search at a fixed budget and seed next to
 * the exact optimum, for a list of networks, buffers and schemes. A benchmark
 * command, not a test: it prints figures and never fails on timing. Each row
 * is one lf_plan_network run (planner/pipeline.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/registry.h"

#define LF_BENCH_MAX_ITEMS 32

typedef struct lf__bench_row {
    const char *model, *scheme, *search, *split;
    double rectify, gap; /* tree splitter only; < 0 when not applicable */
    int64_t beta;
    lf_plan_metrics m;
    int64_t proposed;
    double wall, cpu; /* cpu < 0: not measured */
    int64_t exact_dram;
    int has_exact;
} lf__bench_row;

static void lf__print_row(const lf__bench_row *r, int csv)
{
    char beta[32];
    lf_hw_format_size(r->beta, beta, sizeof beta);
    double gap = r->has_exact && r->exact_dram > 0
                     ? 100.0 * (double)(r->m.dram_fusable - r->exact_dram) / (double)r->exact_dram
                     : 0.0;
    double rate = r->wall > 0 && r->proposed > 0 ? (double)r->proposed / r->wall : 0.0;
    char gap_s[32], rate_s[32];
    if (r->has_exact)
        snprintf(gap_s, sizeof gap_s, "%.2f", gap);
    else
        snprintf(gap_s, sizeof gap_s, "-");
    if (rate > 0)
        snprintf(rate_s, sizeof rate_s, "%.0f", rate);
    else
        snprintf(rate_s, sizeof rate_s, "-");
    char rect_s[32] = "-", sgap_s[32] = "-";
    if (r->rectify >= 0)
        snprintf(rect_s, sizeof rect_s, "%.1f", 100.0 * r->rectify);
    if (r->gap >= 0)
        snprintf(sgap_s, sizeof sgap_s, "%.3f", r->gap);
    char cpu_s[32] = "-";
    if (r->cpu >= 0)
        snprintf(cpu_s, sizeof cpu_s, "%.3f", r->cpu);
    if (csv)
        printf("%s,%lld,%s,%s,%s,%lld,%s,%lld,%d,%lld,%.3f,%s,%s,%s,%s\n", r->model,
               (long long)r->beta, r->scheme, r->search, r->split, (long long)r->m.dram_fusable,
               r->has_exact ? gap_s : "", (long long)r->m.dram_all, (int)r->m.n_groups,
               (long long)r->proposed, r->wall, rate > 0 ? rate_s : "", r->rectify >= 0 ? rect_s : "",
               r->gap >= 0 ? sgap_s : "", r->cpu >= 0 ? cpu_s : "");
    else
        printf("| %s | %s | %s | %s | %s | %.3f | %s | %.3f | %d | %lld | %.3f | %s | %s | %s | %s |\n",
               r->model, beta, r->scheme, r->search, r->split, (double)r->m.dram_fusable / 1e6, gap_s,
               (double)r->m.dram_all / 1e6, (int)r->m.n_groups, (long long)r->proposed, r->wall,
               rate_s, rect_s, sgap_s, cpu_s);
    fflush(stdout);
}

/* Plans with `search` (and, for the budgeted searches, the split "random" or
 * "tree-PROPOSER") and prints the row; a failed search is reported and
 * skipped. */
static void lf__bench_one(lf_cost_model *cm, lf_planner_config pc, const char *search,
                          const char *split, lf__bench_row row, int csv)
{
    pc.search = search;
    if (!lf_name_known(LF_NAMES_HEURISTIC, search)) {
        pc.seed_plans = NULL; /* the reference rows (layer, greedy, exact) take no search options */
        pc.guided = 0;
    }
    if (strcmp(split, "random") != 0) {
        pc.split = "tree";
        pc.proposer = split + 5;
    } else {
        pc.split_continue = 0; /* a tree splitter's option */
    }
    lf_planned r;
    lf_status st = lf_plan_network(cm, &pc, &r);
    if (st != LF_OK) {
        fprintf(stderr, "fusionplan bench: %s\n", lf_last_error());
        lf_planned_destroy(&r);
        return;
    }
    row.search = search;
    row.m = r.metrics;
    row.wall = r.wall_s;
    if (r.heuristic) {
        row.split = split;
        row.proposed = r.search_result.plans_proposed;
        row.wall = r.search_result.wall_s;
        row.cpu = r.search_result.cpu_s;
    }
    if (r.have_tree_stats) {
        row.rectify = r.tree_stats.rectify_rate;
        row.gap = r.tree_stats.gap_groups > 0 ? r.tree_stats.mean_gap : -1.0;
    }
    lf__print_row(&row, csv);
    lf_planned_destroy(&r);
}

int lf_cmd_bench(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks (default vgg16,resnet18,resnet50,resnet152,squeezenet1_0,"
                           "mobilenet_v2,efficientnet_b0,efficientnet_b3)", NULL},
        LF_CLI_ONNX_OPTS,
        {"buffers", "LIST", "buffer sizes (default 128KB,256KB)", NULL},
        {"schemes", "LIST", "cost models (default lbdf)", NULL},
        {"searches", "LIST", "searches (default random,local,nsga2)", NULL},
        {"splits", "LIST", "repairs: random, tree-all, tree-random, tree-attrib (default random)", NULL},
        {"k", "N", "edges a tree proposer may return (default 3)", NULL},
        {"split-continue", NULL, "tree splits: keep splitting a valid part while that lowers its DRAM", NULL},
        {"budget", "N", "plans proposed per search (default 2000)", NULL},
        {"seed", "S", "seed (default 1)", NULL},
        {"threads", "T", "threads (default: all cores or OMP_NUM_THREADS)", NULL},
        {"seed-plans", "LIST", "local, nsga2: start the population from these plans: greedy, blocks", NULL},
        {"guided", NULL, "every local/nsga2 child also takes its best merge or move by DRAM saved", NULL},
        {"no-exact", NULL, "skip the exact optimum (no gap column)", NULL},
        {"split-gap", NULL, "tree splits: measure the split gap after each search (not timed)", NULL},
        {"format", "FMT", "md (default) or csv", NULL},
    };
    lf_cli_command cmd = {"bench", "Benchmark the partition searches against the exact optimum.",
                          "bench search [--models LIST | --onnx FILE] [--buffers LIST] [--schemes LIST] "
                          "[--searches LIST] [--budget N] [--seed S] [--threads T]",
                          "Runs, for every network, buffer and scheme, the layer-by-layer and "
                          "greedy plans, every search at\nthe same budget and seed, and the exact "
                          "optimum, and prints one table: DRAM over fusable ops\n(MB), gap to the "
                          "optimum (%), DRAM over all ops (MB), groups, plans proposed, wall time "
                          "(s)\nand plans per second. Record figures in docs/RESULTS.md with the "
                          "command, machine and threads.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    if (argc >= 1 && strcmp(argv[0], "exec") == 0)
        return lf_cmd_bench_exec(argc - 1, argv + 1);
    if (argc >= 1 && strcmp(argv[0], "exact") == 0)
        return lf_cmd_bench_exact(argc - 1, argv + 1);
    if (argc >= 1 && strcmp(argv[0], "threads") == 0)
        return lf_cmd_bench_threads(argc - 1, argv + 1);
    if (argc >= 1 && strcmp(argv[0], "subst") == 0)
        return lf_cmd_bench_subst(argc - 1, argv + 1);
    if (argc >= 1 && strcmp(argv[0], "gso") == 0)
        return lf_cmd_bench_gso(argc - 1, argv + 1);
    if (argc >= 1 && strcmp(argv[0], "ocggs") == 0)
        return lf_cmd_bench_ocggs(argc - 1, argv + 1);
    if (argc < 1 || strcmp(argv[0], "search") != 0) {
        if (argc >= 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
            lf_cli_help(&cmd, stdout);
            return LF_EXIT_OK;
        }
        return lf_cli_usage_error(&cmd, "expected 'search', 'threads', 'exact', 'exec', 'subst', 'gso' or 'ocggs' (bench --help)");
    }
    int rc = lf_cli_parse(&cmd, argc - 1, argv + 1);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    lf_cli_search_values sv;
    if ((rc = lf_cli_search_opts(&cmd, &sv)))
        return rc;
    lf_planner_config pc;
    lf_planner_config_default(&pc);
    lf_cli_search_apply(&sv, &pc);
    pc.seed_plans = lf_cli_get(&cmd, "seed-plans");
    pc.split_continue = lf_cli_get(&cmd, "split-continue") != NULL;
    pc.split_gap = lf_cli_get(&cmd, "split-gap") != NULL;
    const char *fmt = lf_cli_get(&cmd, "format");
    if (fmt && strcmp(fmt, "md") != 0 && strcmp(fmt, "csv") != 0)
        return lf_cli_usage_error(&cmd, "unknown --format '%s' (use md or csv)", fmt);
    int csv = fmt && strcmp(fmt, "csv") == 0;
    const char *onnx = lf_cli_get(&cmd, "onnx");
    if (onnx && lf_cli_get(&cmd, "models"))
        return lf_cli_usage_error(&cmd, "give either --models or --onnx, not both");
    char models_buf[1024], buffers_buf[256], schemes_buf[64], searches_buf[256], splits_buf[256];
    char *models[LF_BENCH_MAX_ITEMS], *buffers[LF_BENCH_MAX_ITEMS], *schemes[4], *searches[8], *splits[8];
    int nm = 1, nb, ns, nq, nsp;
    if ((!onnx && (rc = lf_cli_list(&cmd, "models", "vgg16,resnet18,resnet50,resnet152,squeezenet1_0,"
                                    "mobilenet_v2,efficientnet_b0,efficientnet_b3", -1, models_buf,
                                    sizeof models_buf, models, LF_BENCH_MAX_ITEMS, &nm))) ||
        (rc = lf_cli_list(&cmd, "buffers", "128KB,256KB", -1, buffers_buf, sizeof buffers_buf,
                          buffers, LF_BENCH_MAX_ITEMS, &nb)) ||
        (rc = lf_cli_list(&cmd, "schemes", "lbdf", LF_NAMES_SCHEME, schemes_buf, sizeof schemes_buf,
                          schemes, 4, &ns)) ||
        (rc = lf_cli_list(&cmd, "searches", "random,local,nsga2", LF_NAMES_HEURISTIC, searches_buf,
                          sizeof searches_buf, searches, 8, &nq)) ||
        (rc = lf_cli_list(&cmd, "splits", "random", -1, splits_buf, sizeof splits_buf, splits, 8,
                          &nsp)))
        return rc;
    if (onnx)
        models[0] = (char *)onnx;
    if (nm > LF_BENCH_MAX_ITEMS || nb > LF_BENCH_MAX_ITEMS || ns > 4 || nq > 8 || nsp > 8)
        return lf_cli_usage_error(&cmd, "list too long (at most %d networks and buffers, 4 schemes, "
                                        "8 searches, 8 splits)", LF_BENCH_MAX_ITEMS);
    for (int i = 0; i < nsp; i++)
        if (strcmp(splits[i], "random") != 0 &&
            (strncmp(splits[i], "tree-", 5) != 0 || !lf_name_known(LF_NAMES_PROPOSER, splits[i] + 5)))
            return lf_cli_usage_error(&cmd, "unknown split '%s' (use random or tree-<proposer>: "
                                            "tree-all, tree-random, tree-attrib, tree-gnne, tree-pg, "
                                            "tree-rg, tree-saliency, tree-occlusion)",
                                      splits[i]);
    int64_t betas[LF_BENCH_MAX_ITEMS];
    for (int i = 0; i < nb; i++)
        if (lf_hw_parse_size(buffers[i], &betas[i]) != LF_OK)
            return lf_cli_usage_error(&cmd, "--buffers: %s", lf_last_error());
    if (csv)
        printf("model,beta,scheme,search,split,dram_fusable,gap_pct,dram_all,groups,proposed,wall_s,"
               "plans_per_s,rectify_pct,split_gap,cpu_s\n");
    else
        printf("| model | buffer | scheme | search | split | DRAM fusable (MB) | gap (%%) | DRAM all (MB) | "
               "groups | plans | wall (s) | plans/s | rectify (%%) | split gap | CPU (s) |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int do_exact = !lf_cli_get(&cmd, "no-exact");
    for (int mi = 0; mi < nm; mi++) {
        lf_graph *g = NULL;
        if ((rc = lf_cli_load_listed(&cmd, models[mi], &g)))
            return rc;
        const char *name = onnx ? g->name : models[mi];
        for (int bi = 0; bi < nb; bi++)
            for (int si = 0; si < ns; si++) {
                lf_hw hw;
                lf_hw_default(&hw);
                hw.buffer_bytes = betas[bi];
                lf_cost_model *cm = NULL;
                lf_status st = lf_cost_model_create(&cm, g, &hw, schemes[si]);
                if (st != LF_OK) {
                    lf_graph_free(g);
                    return lf_cli_fail(st);
                }
                lf__bench_row row = {name, schemes[si], "", "-", -1.0, -1.0, betas[bi], {0}, 0, 0,
                                     -1.0, 0, 0};
                /* The optimum first, so every other row can show its gap. */
                lf_planned ex;
                lf_planner_config xc = pc;
                xc.search = "exact";
                if (do_exact && (st = lf_plan_network(cm, &xc, &ex)) == LF_OK) {
                    row.m = ex.metrics;
                    row.wall = ex.wall_s;
                    row.exact_dram = ex.exact_dram;
                    row.has_exact = 1;
                } else if (do_exact) {
                    fprintf(stderr, "fusionplan bench: %s\n", lf_last_error());
                }
                if (do_exact)
                    lf_planned_destroy(&ex);
                lf__bench_one(cm, pc, "layer", "random", row, csv);
                lf__bench_one(cm, pc, "greedy", "random", row, csv);
                for (int qi = 0; qi < nq; qi++)
                    for (int pi = 0; pi < nsp; pi++)
                        lf__bench_one(cm, pc, searches[qi], splits[pi], row, csv);
                if (row.has_exact) {
                    row.search = "exact";
                    lf__print_row(&row, csv);
                }
                lf_cost_model_free(cm);
            }
        lf_graph_free(g);
    }
    return LF_EXIT_OK;
}

/* fusionplan bench search: every search at a fixed budget and seed next to
 * the exact optimum, for a list of networks, buffers and schemes. A benchmark
 * command, not a test: it prints figures and never fails on timing. The rows
 * come from the library (search/sweep/bench_search.h); this file parses the
 * lists and prints them. */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/app/registry.h"
#include "search/sweep/bench_search.h"

#define LF_BENCH_MAX_ITEMS 32

static void lf__row(void *user, const lf_bench_row *r)
{
    lf_bench_print_row(stdout, r, *(const int *)user);
}

static void lf__notice(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "fusionplan bench: %s\n", message);
}

/* The other benchmarks, `bench NAME ...`. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} lf__subcommands[] = {{"exec", lf_cmd_bench_exec},   {"exact", lf_cmd_bench_exact},
                       {"threads", lf_cmd_bench_threads}, {"subst", lf_cmd_bench_subst},
                       {"gso", lf_cmd_bench_gso},     {"ocggs", lf_cmd_bench_ocggs},
                       {"attention", lf_cmd_bench_attention}};

int lf_cmd_bench(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks (default vgg16,resnet18,resnet50,resnet152,squeezenet1_0,"
                           "mobilenet_v2,efficientnet_b0,efficientnet_b3)", NULL},
        LF_CLI_ONNX_OPTS,
        {"buffers", "LIST", "buffer sizes (default 128KB,256KB)", NULL},
        {"schemes", "LIST", "cost models (default lbdf)", NULL},
        {"searches", "LIST", "searches (default random,local,nsga2)", NULL},
        {"splits", "LIST", "repairs: random, tree-all, tree-random, tree-attrib, tree-gnne, tree-pg, tree-rg, "
                           "tree-gnne:epochs=N:patience=N:top=N, ... (default random)", NULL},
        {"k", "N", "edges a tree proposer may return (default 3)", NULL},
        {"split-continue", NULL,
         "tree splits: keep splitting a valid part while that lowers its DRAM, then merge, move and re-split "
         "parts while that lowers it",
         NULL},
        {"budget", "N", "plans proposed per search (default 2000)", NULL},
        {"seed", "S", "seed (default 1)", NULL},
        {"threads", "T", "threads (default: all cores or OMP_NUM_THREADS)", NULL},
        {"seed-plans", "LIST", "local, nsga2: start the population from these plans: greedy, blocks", NULL},
        {"guided", NULL, "every local/nsga2 child also takes its best merge or move by DRAM saved", NULL},
        {"polish", "N", "random, local, nsga2: re-plan every run of consecutive groups of at most N ops "
                        "exactly afterwards (docs/search.md)", NULL},
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
    for (size_t i = 0; argc >= 1 && i < sizeof lf__subcommands / sizeof lf__subcommands[0]; i++)
        if (strcmp(argv[0], lf__subcommands[i].name) == 0)
            return lf__subcommands[i].run(argc - 1, argv + 1);
    if (argc < 1 || strcmp(argv[0], "search") != 0) {
        if (argc >= 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
            lf_cli_help(&cmd, stdout);
            return LF_EXIT_OK;
        }
        return lf_cli_usage_error(&cmd, "expected 'search', 'threads', 'exact', 'exec', 'subst', 'gso', 'ocggs' or 'attention' (bench --help)");
    }
    int rc = lf_cli_parse(&cmd, argc - 1, argv + 1);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    lf_cli_search_values sv;
    if ((rc = lf_cli_search_opts(&cmd, &sv)))
        return rc;
    lf_bench_search_config bc = {.do_exact = !lf_cli_get(&cmd, "no-exact")};
    lf_planner_config *pc = &bc.planner;
    lf_planner_config_default(pc);
    lf_cli_search_apply(&sv, pc);
    pc->seed_plans = lf_cli_get(&cmd, "seed-plans");
    pc->split_continue = lf_cli_get(&cmd, "split-continue") != NULL;
    pc->split_gap = lf_cli_get(&cmd, "split-gap") != NULL;
    static const char *const formats[] = {"md", "csv", NULL};
    const char *fmt;
    if ((rc = lf_cli_choice(&cmd, "format", formats, &fmt)))
        return rc;
    int csv = strcmp(fmt, "csv") == 0;
    const char *onnx = lf_cli_get(&cmd, "onnx");
    if (onnx && lf_cli_get(&cmd, "models"))
        return lf_cli_usage_error(&cmd, "give either --models or --onnx, not both");
    char models_buf[1024], buffers_buf[256], schemes_buf[64], searches_buf[256], splits_buf[256];
    char *models[LF_BENCH_MAX_ITEMS], *buffers[LF_BENCH_MAX_BUFFERS];
    int nm = 1;
    if ((!onnx && (rc = lf_cli_list(&cmd, "models", "vgg16,resnet18,resnet50,resnet152,squeezenet1_0,"
                                    "mobilenet_v2,efficientnet_b0,efficientnet_b3", -1, models_buf,
                                    sizeof models_buf, models, LF_BENCH_MAX_ITEMS, &nm))) ||
        (rc = lf_cli_list(&cmd, "buffers", "128KB,256KB", -1, buffers_buf, sizeof buffers_buf,
                          buffers, LF_BENCH_MAX_BUFFERS, &bc.n_betas)) ||
        (rc = lf_cli_list(&cmd, "schemes", "lbdf", LF_NAMES_SCHEME, schemes_buf, sizeof schemes_buf,
                          bc.schemes, LF_BENCH_MAX_SCHEMES, &bc.n_schemes)) ||
        (rc = lf_cli_list(&cmd, "searches", "random,local,nsga2", LF_NAMES_HEURISTIC, searches_buf,
                          sizeof searches_buf, bc.searches, LF_BENCH_MAX_SEARCHES, &bc.n_searches)) ||
        (rc = lf_cli_list(&cmd, "splits", "random", -1, splits_buf, sizeof splits_buf, bc.splits,
                          LF_BENCH_MAX_SPLITS, &bc.n_splits)))
        return rc;
    if (onnx)
        models[0] = (char *)onnx;
    if (nm > LF_BENCH_MAX_ITEMS || bc.n_betas > LF_BENCH_MAX_BUFFERS || bc.n_schemes > LF_BENCH_MAX_SCHEMES ||
        bc.n_searches > LF_BENCH_MAX_SEARCHES || bc.n_splits > LF_BENCH_MAX_SPLITS)
        return lf_cli_usage_error(&cmd, "list too long (at most %d networks and buffers, 4 schemes, "
                                        "8 searches, 8 splits)", LF_BENCH_MAX_ITEMS);
    for (int i = 0; i < bc.n_splits; i++)
        if (lf_bench_split_check(bc.splits[i]) != LF_OK)
            return lf_cli_usage_error(&cmd, "%s", lf_last_error());
    if ((rc = lf_cli_sizes(&cmd, "buffers", buffers, bc.n_betas, bc.betas)))
        return rc;
    lf_bench_print_header(stdout, csv);
    for (int mi = 0; mi < nm; mi++) {
        lf_graph *g = NULL;
        if ((rc = lf_cli_load_listed(&cmd, models[mi], &g)))
            return rc;
        lf_status st = lf_bench_search_run(g, onnx ? g->name : models[mi], NULL, &bc, lf__row,
                                           lf__notice, &csv);
        lf_graph_free(g);
        if (st != LF_OK)
            return lf_cli_fail(st);
    }
    return LF_EXIT_OK;
}

/* fusionplan bench search: every search at a fixed budget and seed next to
 * the exact optimum, for a list of networks, buffers and schemes. A benchmark
 * command, not a test: it prints figures and never fails on timing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/cli/cli.h"
#include "planner/exact/exact.h"
#include "planner/plan.h"
#include "planner/util/progress.h"
#include "search/partition/search.h"
#include "search/partition/simple.h"
#include "splitter/tree.h"

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

int lf_cmd_bench(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks (default vgg16,resnet18,resnet50,resnet152,squeezenet1_0,"
                           "mobilenet_v2,efficientnet_b0,efficientnet_b3)", NULL},
        {"buffers", "LIST", "buffer sizes (default 128KB,256KB)", NULL},
        {"schemes", "LIST", "cost models (default lbdf)", NULL},
        {"searches", "LIST", "searches (default random,local,nsga2)", NULL},
        {"splits", "LIST", "repairs: random, tree-all, tree-random, tree-attrib (default random)", NULL},
        {"k", "N", "edges a tree proposer may return (default 3)", NULL},
        {"budget", "N", "plans proposed per search (default 2000)", NULL},
        {"seed", "S", "seed (default 1)", NULL},
        {"threads", "T", "threads (default: all cores or OMP_NUM_THREADS)", NULL},
        {"no-exact", NULL, "skip the exact optimum (no gap column)", NULL},
        {"split-gap", NULL, "tree splits: measure the split gap after each search (not timed)", NULL},
        {"format", "FMT", "md (default) or csv", NULL},
    };
    lf_cli_command cmd = {"bench", "Benchmark the partition searches against the exact optimum.",
                          "bench search [--models LIST] [--buffers LIST] [--schemes LIST] "
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
    if (argc < 1 || strcmp(argv[0], "search") != 0) {
        if (argc >= 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
            lf_cli_help(&cmd, stdout);
            return LF_EXIT_OK;
        }
        return lf_cli_usage_error(&cmd, "expected 'search', 'threads', 'exact' or 'exec' (bench --help)");
    }
    int rc = lf_cli_parse(&cmd, argc - 1, argv + 1);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    int64_t budget, seed, threads, k;
    if ((rc = lf_cli_int(&cmd, "budget", 2000, 1, 100000000, &budget)) ||
        (rc = lf_cli_int(&cmd, "k", 3, 0, 1000000, &k)) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)) ||
        (rc = lf_cli_int(&cmd, "threads", 0, 0, 1024, &threads)))
        return rc;
    const char *fmt = lf_cli_get(&cmd, "format");
    if (fmt && strcmp(fmt, "md") != 0 && strcmp(fmt, "csv") != 0)
        return lf_cli_usage_error(&cmd, "unknown --format '%s' (use md or csv)", fmt);
    int csv = fmt && strcmp(fmt, "csv") == 0;
    char models_buf[1024], buffers_buf[256], schemes_buf[64], searches_buf[256], splits_buf[256];
    snprintf(splits_buf, sizeof splits_buf, "%s",
             lf_cli_get(&cmd, "splits") ? lf_cli_get(&cmd, "splits") : "random");
    snprintf(models_buf, sizeof models_buf, "%s",
             lf_cli_get(&cmd, "models") ? lf_cli_get(&cmd, "models")
                                        : "vgg16,resnet18,resnet50,resnet152,squeezenet1_0,"
                                          "mobilenet_v2,efficientnet_b0,efficientnet_b3");
    snprintf(buffers_buf, sizeof buffers_buf, "%s",
             lf_cli_get(&cmd, "buffers") ? lf_cli_get(&cmd, "buffers") : "128KB,256KB");
    snprintf(schemes_buf, sizeof schemes_buf, "%s",
             lf_cli_get(&cmd, "schemes") ? lf_cli_get(&cmd, "schemes") : "lbdf");
    snprintf(searches_buf, sizeof searches_buf, "%s",
             lf_cli_get(&cmd, "searches") ? lf_cli_get(&cmd, "searches") : "random,local,nsga2");
    char *models[LF_BENCH_MAX_ITEMS], *buffers[LF_BENCH_MAX_ITEMS], *schemes[4], *searches[8];
    int nm = lf_cli_split_list(models_buf, models, LF_BENCH_MAX_ITEMS);
    int nb = lf_cli_split_list(buffers_buf, buffers, LF_BENCH_MAX_ITEMS);
    int ns = lf_cli_split_list(schemes_buf, schemes, 4);
    int nq = lf_cli_split_list(searches_buf, searches, 8);
    char *splits[8];
    int nsp = lf_cli_split_list(splits_buf, splits, 8);
    if (nm > LF_BENCH_MAX_ITEMS || nb > LF_BENCH_MAX_ITEMS || ns > 4 || nq > 8 || nsp > 8)
        return lf_cli_usage_error(&cmd, "list too long (at most %d networks and buffers, 4 schemes, "
                                        "8 searches, 8 splits)", LF_BENCH_MAX_ITEMS);
    const char *const known_proposers[] = {"all", "random", "attrib", "gnne", "pg",
                                            "rg", "saliency", "occlusion"};
    for (int i = 0; i < nsp; i++) {
        int ok = strcmp(splits[i], "random") == 0;
        for (size_t j = 0; !ok && j < sizeof known_proposers / sizeof known_proposers[0]; j++)
            ok = strncmp(splits[i], "tree-", 5) == 0 && strcmp(splits[i] + 5, known_proposers[j]) == 0;
        if (!ok)
            return lf_cli_usage_error(&cmd, "unknown split '%s' (use random or tree-<proposer>: "
                                            "tree-all, tree-random, tree-attrib, tree-gnne, tree-pg, "
                                            "tree-rg, tree-saliency, tree-occlusion)",
                                      splits[i]);
    }
    int64_t betas[LF_BENCH_MAX_ITEMS];
    for (int i = 0; i < nb; i++)
        if (lf_hw_parse_size(buffers[i], &betas[i]) != LF_OK)
            return lf_cli_usage_error(&cmd, "--buffers: %s", lf_last_error());
    for (int i = 0; i < ns; i++)
        if (strcmp(schemes[i], "lbdf") != 0 && strcmp(schemes[i], "brr") != 0)
            return lf_cli_usage_error(&cmd, "unknown scheme '%s' (use lbdf or brr)", schemes[i]);
    for (int i = 0; i < nq; i++)
        if (strcmp(searches[i], "random") != 0 && strcmp(searches[i], "local") != 0 &&
            strcmp(searches[i], "nsga2") != 0)
            return lf_cli_usage_error(&cmd, "unknown search '%s' (use random, local or nsga2)",
                                      searches[i]);
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
        lf_model_options mo = {0, 1};
        lf_status st = lf_model_build(models[mi], &mo, &g);
        if (st != LF_OK)
            return lf_cli_fail(st);
        for (int bi = 0; bi < nb; bi++)
            for (int si = 0; si < ns; si++) {
                lf_hw hw;
                lf_hw_default(&hw);
                hw.buffer_bytes = betas[bi];
                lf_cost_model *cm = NULL;
                if ((st = lf_cost_model_create(&cm, g, &hw, schemes[si])) != LF_OK) {
                    lf_graph_free(g);
                    return lf_cli_fail(st);
                }
                lf__bench_row row = {models[mi], schemes[si], "", "-", -1.0, -1.0, betas[bi], {0}, 0, 0,
                                     -1.0, 0, 0};
                lf_plan p;
                /* The optimum first, so every other row can show its gap. */
                if (do_exact) {
                    double t0 = lf_now_seconds();
                    st = lf_exact_plan(cm, NULL, &p, NULL);
                    row.wall = lf_now_seconds() - t0;
                    if (st == LF_OK) {
                        lf_plan_metrics_compute(&p, cm, &row.m);
                        lf_plan_destroy(&p);
                        row.exact_dram = row.m.dram_fusable;
                        row.has_exact = 1;
                    } else {
                        fprintf(stderr, "fusionplan bench: %s\n", lf_last_error());
                    }
                }
                lf__bench_row exact = row;
                for (int k = 0; k < 2; k++) {
                    lf__bench_row r = exact;
                    r.search = k ? "greedy" : "layer";
                    double t0 = lf_now_seconds();
                    st = k ? lf_plan_greedy(cm, &p) : lf_plan_layer(cm, &p);
                    r.wall = lf_now_seconds() - t0;
                    r.proposed = 0;
                    if (st == LF_OK) {
                        lf_plan_canonicalize(&p);
                        lf_plan_metrics_compute(&p, cm, &r.m);
                        lf_plan_destroy(&p);
                        lf__print_row(&r, csv);
                    }
                }
                for (int qi = 0; qi < nq; qi++)
                    for (int pi = 0; pi < nsp; pi++) {
                        lf_splitter *sp = NULL;
                        lf_cli_proposer cp = {0};
                        if (strcmp(splits[pi], "random") != 0) {
                            lf_tree_options topt;
                            lf_tree_options_default(&topt);
                            st = lf_cli_proposer_open(&cp, splits[pi] + 5, cm, NULL, NULL, NULL);
                            if (st == LF_OK)
                                st = lf_splitter_tree_create(&sp, cp.proposer, (int32_t)k, &topt);
                            if (st != LF_OK) {
                                lf_cli_proposer_close(&cp);
                                lf_cost_model_free(cm);
                                lf_graph_free(g);
                                return lf_cli_fail(st);
                            }
                        }
                        lf_search_config cfg;
                        lf_search_config_default(&cfg);
                        cfg.algorithm = searches[qi];
                        cfg.budget = budget;
                        cfg.seed = (uint64_t)seed;
                        cfg.threads = (int32_t)threads;
                        cfg.quiet = 1;
                        cfg.splitter = sp;
                        lf_search_result res;
                        st = lf_search_run(cm, &cfg, &res);
                        if (st != LF_OK) {
                            fprintf(stderr, "fusionplan bench: %s\n", lf_last_error());
                            lf_search_result_destroy(&res);
                            lf_splitter_free(sp);
                            lf_cli_proposer_close(&cp);
                            continue;
                        }
                        lf__bench_row r = exact;
                        r.search = searches[qi];
                        r.split = splits[pi];
                        r.m = res.metrics;
                        r.proposed = res.plans_proposed;
                        r.wall = res.wall_s;
                        r.cpu = res.cpu_s;
                        lf_tree_stats ts;
                        if (sp && lf_cli_get(&cmd, "split-gap") &&
                            lf_splitter_tree_measure_gaps(sp, cm) != LF_OK)
                            fprintf(stderr, "fusionplan bench: %s\n", lf_last_error());
                        if (sp && lf_splitter_tree_stats(sp, &ts) == LF_OK) {
                            r.rectify = ts.rectify_rate;
                            r.gap = ts.gap_groups > 0 ? ts.mean_gap : -1.0;
                        }
                        lf__print_row(&r, csv);
                        lf_search_result_destroy(&res);
                        lf_splitter_free(sp);
                        lf_cli_proposer_close(&cp);
                    }
                if (exact.has_exact) {
                    exact.search = "exact";
                    lf__print_row(&exact, csv);
                }
                lf_cost_model_free(cm);
            }
        lf_graph_free(g);
    }
    return LF_EXIT_OK;
}

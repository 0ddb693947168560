/* fusionplan plan: partition a network into fusion groups. */
#include <stdio.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/cli/exact_opts.h"
#include "planner/exact/exact.h"
#include "planner/io/plan_export.h"
#include "planner/plan.h"
#include "planner/util/fileio.h"
#include "planner/util/progress.h"
#include "search/partition/search.h"
#include "search/partition/simple.h"
#include "splitter/exact_split.h"
#include "splitter/tree.h"

static void lf__print_groups(const lf_plan *p, lf_cost_model *cm)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_bitset s;
    if (lf_bitset_init(&s, g->n_ops) != LF_OK)
        return;
    printf("\n%6s %5s  %-30s %-30s %12s %12s %s\n", "group", "ops", "first op", "last op",
           "F_beta B", "F_D B", "");
    for (int32_t gi = 0; gi < p->n_groups; gi++) {
        lf_plan_group_bitset(p, gi, &s);
        int32_t first = lf_bitset_next(&s, 0), last = first, n = 0;
        for (int32_t v = first; v >= 0; v = lf_bitset_next(&s, v + 1)) {
            last = v;
            n++;
        }
        lf_group_cost c;
        char fb[32], fd[32];
        int unfusable = n == 1 && !lf_cost_fusable(cm, first);
        if (lf_cost_eval(cm, &s, &c) != LF_OK)
            break;
        if (unfusable)
            lf_cost_unfusable_dram(cm, first, &c.f_d);
        lf_cli_commas(c.f_beta, fb, sizeof fb);
        lf_cli_commas(c.f_d, fd, sizeof fd);
        printf("%6d %5d  %-30s %-30s %12s %12s %s\n", (int)gi, (int)n, g->ops[first].name,
               g->ops[last].name, fb, fd,
               unfusable ? "unfusable (weights streamed)" : (c.valid ? "" : "INVALID"));
    }
    lf_bitset_destroy(&s);
}

/* Runs the planner named by --search; fills the plan and the search figures. */
static lf_status lf__run_search(const lf_cli_command *cmd, lf_cost_model *cm, const char *search,
                                const int64_t *knobs, const lf_splitter *splitter,
                                const lf_exact_config *ec, lf_plan *plan, lf_search_result *res,
                                lf_exact_stats *es)
{
    memset(res, 0, sizeof *res);
    memset(es, 0, sizeof *es);
    if (strcmp(search, "layer") == 0)
        return lf_plan_layer(cm, plan);
    if (strcmp(search, "greedy") == 0)
        return lf_plan_greedy(cm, plan);
    if (strcmp(search, "exact") == 0)
        return lf_exact_plan(cm, ec, plan, es);
    lf_search_config cfg;
    lf_search_config_default(&cfg);
    cfg.algorithm = search;
    cfg.budget = knobs[0];
    cfg.seed = (uint64_t)knobs[1];
    cfg.threads = (int32_t)knobs[2];
    cfg.population = (int32_t)knobs[3];
    cfg.quiet = lf_cli_get(cmd, "no-progress") != NULL;
    cfg.splitter = splitter;
    const char *obj = lf_cli_get(cmd, "objectives");
    if (obj)
        cfg.objectives = strcmp(obj, "dram") == 0 ? 1 : 3;
    lf_status st = lf_search_run(cm, &cfg, res);
    if (st == LF_OK)
        st = lf_plan_copy(plan, &res->best);
    return st;
}

int lf_cmd_plan(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"search", "NAME", "greedy (default), layer, random, local, nsga2 or exact", NULL},
        {"budget", "N", "plans proposed by random/local/nsga2 (default 2000)", NULL},
        {"seed", "S", "seed of the search (default 1)", NULL},
        {"threads", "T", "threads (default: all cores or OMP_NUM_THREADS; results do not depend on it)", NULL},
        {"population", "K", "local search top-K and NSGA-II population (default 10)", NULL},
        {"objectives", "LIST", "nsga2: dram,groups (default, the paper's) or dram", NULL},
        {"split", "NAME", "repair of invalid groups: random (default, the paper's baseline), tree, "
                          "or exact (each group's optimal split where it takes at most 1,000,000 "
                          "candidate sets, else random)", NULL},
        {"proposer", "NAME", "tree splitter's edge proposer: all (default), random, attrib, or the "
                             "GNN explainers gnne, pg, rg, saliency, occlusion", NULL},
        {"gnn-weights", "FILE", "GNN weights for the explainers (default: the shipped gnn-SCHEME.bin)", NULL},
        {"pg-weights", "FILE", "PGExplainer weights (default: the shipped pg-SCHEME.bin)", NULL},
        {"rg-weights", "FILE", "RG-Explainer weights (default: the shipped rg-SCHEME.bin)", NULL},
        {"k", "N", "edges the proposer may return (default 3; 0: all)", NULL},
        {"split-gap", NULL, "tree splitter: after the search, price each distinct split against the "
                            "optimal split (an exact split per group; not in the wall time)", NULL},
        {"no-split-gap", NULL, "no split-gap measurement (the default; kept for old scripts)", NULL},
        {"compare-exact", NULL, "also compute the exact optimum and print the gap to it", NULL},
        LF_CLI_EXACT_OPTS,
        {"output", "FILE", "(or -o) write the plan to FILE (.json or .dot; see docs/plan-format.md)", NULL},
        {"format", "FMT", "json or dot (default: from the file extension)", NULL},
        {"pareto", "FILE", "nsga2: write the plan with its Pareto front (DRAM vs groups) as JSON", NULL},
        {"quiet", NULL, "print only the summary line, not the group table", NULL},
        {"no-progress", NULL, "no progress bar even on a terminal", NULL},
    };
    lf_cli_command cmd = {"plan", "Partition a network into fusion groups.",
                          "plan [--model NAME] [--hw FILE] [--buffer SIZE] [--scheme lbdf|brr] "
                          "[--search NAME] [--budget N] [--seed S] [--threads T] [--output FILE]",
                          "Every group must fit the on-chip buffer (F_beta < beta); the plan "
                          "minimises DRAM traffic,\nreported over fusable ops (the paper's "
                          "convention) and over all ops (unfusable ops charged with\nweights "
                          "streamed per row tile). random, local and nsga2 propose --budget plans "
                          "and repair\ninvalid groups by random splitting; exact is the optimum "
                          "under the cost model (docs/search.md).\nWithout options: resnet50, "
                          "256 KB, LBDF, greedy.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    const char *search = lf_cli_get(&cmd, "search");
    if (!search)
        search = "greedy";
    const char *known[] = {"greedy", "layer", "random", "local", "nsga2", "exact"};
    int ok = 0, heuristic = 0;
    for (int i = 0; i < 6; i++)
        if (strcmp(search, known[i]) == 0) {
            ok = 1;
            heuristic = i >= 2 && i <= 4;
        }
    if (!ok)
        return lf_cli_usage_error(&cmd, "unknown --search '%s' (use greedy, layer, random, local, "
                                        "nsga2 or exact)",
                                  search);
    int64_t knobs[5];
    if ((rc = lf_cli_int(&cmd, "budget", 2000, 1, 100000000, &knobs[0])) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &knobs[1])) ||
        (rc = lf_cli_int(&cmd, "threads", 0, 0, 1024, &knobs[2])) ||
        (rc = lf_cli_int(&cmd, "population", 10, 2, 100000, &knobs[3])) ||
        (rc = lf_cli_int(&cmd, "k", 3, 0, 1000000, &knobs[4])))
        return rc;
    lf_exact_config ec;
    if ((rc = lf_cli_exact_config(&cmd, &ec)))
        return rc;
    if (lf_cli_exact_opts_given(&cmd) && strcmp(search, "exact") != 0 &&
        !lf_cli_get(&cmd, "compare-exact"))
        return lf_cli_usage_error(&cmd, "--time-limit, --memory-limit and --max-candidates apply "
                                        "to --search exact or --compare-exact");
    const char *split = lf_cli_get(&cmd, "split");
    const char *pname = lf_cli_get(&cmd, "proposer");
    if (split && !heuristic)
        return lf_cli_usage_error(&cmd, "--split applies to --search random, local or nsga2");
    if (split && strcmp(split, "random") != 0 && strcmp(split, "tree") != 0 &&
        strcmp(split, "exact") != 0)
        return lf_cli_usage_error(&cmd, "unknown --split '%s' (use random, tree or exact)", split);
    int tree = split && strcmp(split, "tree") == 0;
    if (pname && !tree)
        return lf_cli_usage_error(&cmd, "--proposer needs --split tree");
    if (lf_cli_get(&cmd, "split-gap") && !tree)
        return lf_cli_usage_error(&cmd, "--split-gap needs --split tree");
    const char *format = lf_cli_get(&cmd, "format");
    if (format && strcmp(format, "json") != 0 && strcmp(format, "dot") != 0)
        return lf_cli_usage_error(&cmd, "unknown --format '%s' (use json or dot)", format);
    const char *output = lf_cli_get(&cmd, "output");
    if (format && !output)
        return lf_cli_usage_error(&cmd, "--format needs --output FILE");
    if (output && !format) {
        const char *dot = strrchr(output, '.');
        if (!dot || (strcmp(dot, ".json") != 0 && strcmp(dot, ".dot") != 0))
            return lf_cli_usage_error(&cmd, "cannot tell the format of '%s': use a .json or .dot "
                                            "name, or --format",
                                      output);
    }
    const char *pareto = lf_cli_get(&cmd, "pareto");
    if (pareto && strcmp(search, "nsga2") != 0)
        return lf_cli_usage_error(&cmd, "--pareto needs --search nsga2");
    const char *objectives = lf_cli_get(&cmd, "objectives");
    if (objectives && strcmp(search, "nsga2") != 0)
        return lf_cli_usage_error(&cmd, "--objectives needs --search nsga2");
    if (objectives && strcmp(objectives, "dram") != 0 && strcmp(objectives, "dram,groups") != 0)
        return lf_cli_usage_error(&cmd, "unknown --objectives '%s' (use dram,groups or dram)",
                                  objectives);
    const char *outputs[2] = {output, pareto};
    if ((rc = lf_cli_check_outputs(outputs, 2)))
        return rc;
    lf_cli_session s;
    if ((rc = lf_cli_session_open(&s, &cmd)))
        return rc;
    lf_cli_proposer cp = {0};
    lf_splitter *splitter = NULL;
    if (split && strcmp(split, "exact") == 0) {
        lf_status xs = lf_splitter_exact_create(&splitter, LF_EXACT_SPLIT_DEFAULT_CANDIDATES);
        if (xs != LF_OK) {
            lf_cli_session_close(&s);
            return lf_cli_fail(xs);
        }
    }
    if (tree) {
        lf_status ps = lf_cli_proposer_open(&cp, pname ? pname : "all", s.cm,
                                            lf_cli_get(&cmd, "gnn-weights"),
                                            lf_cli_get(&cmd, "pg-weights"),
                                            lf_cli_get(&cmd, "rg-weights"));
        if (ps != LF_OK) {
            lf_cli_session_close(&s);
            return lf_cli_fail(ps);
        }
        if ((rc = lf_cli_make_splitter(&cmd, split, cp.proposer, (int32_t)knobs[4], 0,
                                       &splitter))) {
            lf_cli_proposer_close(&cp);
            lf_cli_session_close(&s);
            return rc;
        }
    }
    double t0 = lf_now_seconds();
    lf_plan plan = {0}; /* destroying it is safe whether or not a planner filled it */
    lf_search_result res;
    lf_exact_stats es;
    lf_status st = lf__run_search(&cmd, s.cm, search, knobs, splitter, &ec, &plan, &res, &es);
    double wall = lf_now_seconds() - t0;
    /* A measurement, not part of planning: after the clock stopped. */
    if (st == LF_OK && splitter && lf_cli_get(&cmd, "split-gap"))
        st = lf_splitter_tree_measure_gaps(splitter, s.cm);
    lf_plan_metrics m;
    if (st == LF_OK) {
        lf_plan_canonicalize(&plan);
        st = lf_plan_check(&plan, s.cm);
        if (st == LF_OK)
            st = lf_plan_metrics_compute(&plan, s.cm, &m);
    }
    int64_t exact_dram = -1;
    if (st == LF_OK && strcmp(search, "exact") == 0)
        exact_dram = m.dram_fusable; /* the plan is the optimum: no second run */
    else if (st == LF_OK && lf_cli_get(&cmd, "compare-exact")) {
        lf_plan opt;
        lf_plan_metrics mo;
        lf_status xs = lf_exact_plan(s.cm, &ec, &opt, NULL);
        if (xs == LF_OK && lf_plan_metrics_compute(&opt, s.cm, &mo) == LF_OK)
            exact_dram = mo.dram_fusable;
        else
            fprintf(stderr, "fusionplan: no exact optimum to compare with: %s\n", lf_last_error());
        if (xs == LF_OK)
            lf_plan_destroy(&opt);
    }
    /* The plan and its Pareto front are written together or not at all. */
    lf_output_batch_begin();
    for (int k = 0; k < 2 && st == LF_OK; k++) {
        if (!outputs[k])
            continue;
        lf_plan_meta meta = {s.model_name, search, heuristic ? (uint64_t)knobs[1] : 0,
                             heuristic ? knobs[0] : -1, k ? res.n_pareto : 0, k ? res.pareto : NULL};
        st = lf_plan_save(outputs[k], k ? "json" : format, &plan, s.cm, &meta);
    }
    if (st == LF_OK)
        st = lf_output_batch_commit();
    else
        lf_output_batch_abort();
    if (st != LF_OK) {
        lf_plan_destroy(&plan);
        lf_search_result_destroy(&res);
        lf_splitter_free(splitter);
        lf_cli_proposer_close(&cp);
        lf_cli_session_close(&s);
        return lf_cli_fail(st);
    }
    char beta[32], fus[32], all[32], mbu[32], gap[48] = "";
    lf_hw_format_size(lf_cost_beta(s.cm), beta, sizeof beta);
    lf_cli_commas(m.dram_fusable, fus, sizeof fus);
    lf_cli_commas(m.dram_all, all, sizeof all);
    lf_cli_commas(m.mbu, mbu, sizeof mbu);
    if (exact_dram > 0)
        snprintf(gap, sizeof gap, "; gap to optimum %.2f%%",
                 100.0 * (double)(m.dram_fusable - exact_dram) / (double)exact_dram);
    printf("%s %s %s %s: DRAM %s B fusable ops (%.3f MB), %s B all ops; MBU %s B; %d groups, "
           "%d unfusable",
           s.model_name, beta, lf_cost_scheme_name(s.cm), search, fus, (double)m.dram_fusable / 1e6,
           all, mbu, (int)m.n_groups, (int)m.n_unfusable);
    printf("; DRAM time %.3f ms", m.dram_time_s * 1e3);
    if (m.energy_j >= 0)
        printf(", energy %.3f mJ", m.energy_j * 1e3);
    if (heuristic) {
        int64_t lookups = res.cache_hits + res.cache_misses;
        printf("; %lld plans proposed, %lld invalid groups met, %lld splits, memo hits %.1f%%",
               (long long)res.plans_proposed, (long long)res.invalid_groups, (long long)res.splits,
               lookups ? 100.0 * (double)res.cache_hits / (double)lookups : 0.0);
        lf_tree_stats ts;
        if (splitter && lf_splitter_tree_stats(splitter, &ts) == LF_OK) {
            printf("; %s: %lld distinct invalid groups, rectify rate %.1f%%, rectified without "
                   "fallback %lld",
                   splitter->name, (long long)ts.groups, 100.0 * ts.rectify_rate,
                   (long long)ts.tree_success);
            if (ts.gap_groups > 0)
                printf(", mean split gap %.3f", ts.mean_gap);
            printf(", %.3f s in the splitter (wall)", ts.split_s);
        } else {
            printf("; %s split, %.3f s in the splitter (wall)", splitter ? splitter->name : "random",
                   res.split_s);
        }
    }
    if (es.states > 0)
        printf("; %lld downsets, %lld candidate sets, %lld groups priced", (long long)es.states,
               (long long)es.candidates, (long long)es.groups);
    printf("%s; wall %.3f s\n", gap, wall);
    if (!lf_cli_get(&cmd, "quiet"))
        lf__print_groups(&plan, s.cm);
    for (int k = 0; k < 2; k++)
        if (outputs[k])
            fprintf(stderr, "wrote %s\n", outputs[k]);
    lf_plan_destroy(&plan);
    lf_search_result_destroy(&res);
    lf_splitter_free(splitter);
    lf_cli_proposer_close(&cp);
    lf_cli_session_close(&s);
    return LF_EXIT_OK;
}

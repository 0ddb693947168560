/* fusionplan plan: partition a network into fusion groups — a thin wrapper
 * over the library pipeline (lf_plan_network): options in, figures out. */
#include <stdio.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/cli/exact_opts.h"
#include "planner/registry.h"
#include "planner/util/fileio.h"

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

/* The summary line's search figures: plans, invalid groups, splits, memo
 * hits and the splitter's own. */
static void lf__print_search(const lf_planned *r)
{
    const lf_search_result *res = &r->search_result;
    int64_t lookups = res->cache_hits + res->cache_misses;
    printf("; %lld plans proposed, %lld invalid groups met, %lld splits, memo hits %.1f%%",
           (long long)res->plans_proposed, (long long)res->invalid_groups, (long long)res->splits,
           lookups ? 100.0 * (double)res->cache_hits / (double)lookups : 0.0);
    if (r->have_tree_stats) {
        const lf_tree_stats *ts = &r->tree_stats;
        printf("; %s: %lld distinct invalid groups, rectify rate %.1f%%, rectified without "
               "fallback %lld",
               r->split_name, (long long)ts->groups, 100.0 * ts->rectify_rate,
               (long long)ts->tree_success);
        if (ts->gap_groups > 0)
            printf(", mean split gap %.3f", ts->mean_gap);
        printf(", %.3f s in the splitter (wall)", ts->split_s);
    } else {
        printf("; %s split, %.3f s in the splitter (wall)", r->split_name, res->split_s);
    }
}

int lf_cmd_plan(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"search", "NAME", "greedy (default), layer, random, local, nsga2 or exact", NULL},
        LF_CLI_SEARCH_OPTS,
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
        {"split-continue", NULL, "tree: keep splitting a valid part while that lowers its DRAM "
                                 "(beyond the paper's Algorithm 1)", NULL},
        {"split-gap", NULL, "tree splitter: after the search, price each distinct split against the "
                            "optimal split (an exact split per group; not in the wall time)", NULL},
        {"no-split-gap", NULL, "no split-gap measurement (the default; kept for old scripts)", NULL},
        {"compare-exact", NULL, "also compute the exact optimum and print the gap to it", NULL},
        {"seed-plans", "LIST", "local, nsga2: start the population from these plans, comma-separated: "
                               "greedy, blocks (each block's optimum; exact limits apply)", NULL},
        {"optimize", "SEARCH", "rewrite the graph first with the substitution optimizer's built-in "
                               "rules (backtrack, enum or split; docs/substitution.md), then plan it", NULL},
        {"optimize-objective", "NAME", "--optimize: dram (default: the exact fusion DRAM at the "
                                       "buffer), time, flops, bytes or kernels", NULL},
        {"optimize-budget", "N", "--optimize: graphs expanded (default 30)", NULL},
        {"optimize-filter", "NAME", "--optimize: GSO rule filter gso, lr or none (default; "
                                    "docs/substitution.md)", NULL},
        {"optimize-gso-weights", "FILE", "--optimize-filter: the models (default: the shipped ones)", NULL},
        LF_CLI_EXACT_OPTS,
        {"output", "FILE", "(or -o) write the plan to FILE (.json, .xml, .dot, .svg/.png drawn by Graphviz, .onnx annotated ONNX, .yaml Stream mapping; docs/exports.md)", NULL},
        {"format", "FMT", "json, dot, xml, svg, png, onnx or stream (default: from the file extension)", NULL},
        {"pareto", "FILE", "nsga2: write the plan with its Pareto front (DRAM vs groups) as JSON", NULL},
        {"quiet", NULL, "print only the summary line, not the group table", NULL},
        {"from-annotations", NULL, "with --onnx PLAN.onnx (an annotated ONNX export): take its plan, "
                                   "re-checked by the cost model, instead of searching", NULL},
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
    static const lf_cli_rule rules[] = {
        {"split", "search", "greedy", LF_NAMES_HEURISTIC, NULL,
         "--split applies to --search random, local or nsga2"},
        {"proposer", "split", NULL, -1, "tree", "--proposer needs --split tree"},
        {"split-gap", "split", NULL, -1, "tree", "--split-gap needs --split tree"},
        {"format", "output", NULL, -1, NULL, "--format needs --output FILE"},
        {"from-annotations", "onnx", NULL, -1, NULL, "--from-annotations needs --onnx PLAN.onnx"},
        {"pareto", "search", "greedy", -1, "nsga2", "--pareto needs --search nsga2"},
        {"objectives", "search", "greedy", -1, "nsga2", "--objectives needs --search nsga2"},
        {"optimize-objective", "optimize", NULL, -1, NULL, "--optimize-objective needs --optimize SEARCH"},
        {"optimize-budget", "optimize", NULL, -1, NULL, "--optimize-budget needs --optimize SEARCH"},
        {"optimize-filter", "optimize", NULL, -1, NULL, "--optimize-filter needs --optimize SEARCH"},
        {"optimize-gso-weights", "optimize", NULL, -1, NULL, "--optimize-gso-weights needs --optimize SEARCH"},
    };
    lf_planner_config pc;
    lf_planner_config_default(&pc);
    const char *search, *split, *format, *proposer;
    lf_cli_search_values sv;
    if ((rc = lf_cli_name(&cmd, "search", LF_NAMES_SEARCH, pc.search, &search)) ||
        (rc = lf_cli_search_opts(&cmd, &sv)) || (rc = lf_cli_exact_config(&cmd, &pc.exact)) ||
        (rc = lf_cli_check_rules(&cmd, rules, (int)(sizeof rules / sizeof rules[0]))) ||
        (rc = lf_cli_name(&cmd, "split", LF_NAMES_SPLIT, pc.split, &split)) ||
        (rc = lf_cli_name(&cmd, "proposer", LF_NAMES_PROPOSER, pc.proposer, &proposer)) ||
        (rc = lf_cli_name(&cmd, "format", LF_NAMES_EXPORTER, NULL, &format)))
        return rc;
    lf_cli_search_apply(&sv, &pc);
    pc.search = search;
    pc.seed_plans = lf_cli_get(&cmd, "seed-plans");
    pc.split_continue = lf_cli_get(&cmd, "split-continue") != NULL;
    if (pc.seed_plans && strcmp(search, "local") != 0 && strcmp(search, "nsga2") != 0)
        return lf_cli_usage_error(&cmd, "--seed-plans applies to --search local or nsga2");
    int heuristic = lf_name_known(LF_NAMES_HEURISTIC, search);
    if (lf_cli_exact_opts_given(&cmd) && strcmp(search, "exact") != 0 &&
        !lf_cli_get(&cmd, "compare-exact") && !pc.seed_plans)
        return lf_cli_usage_error(&cmd, "--time-limit, --memory-limit and --max-candidates apply "
                                        "to --search exact, --compare-exact or --seed-plans");
    const char *output = lf_cli_get(&cmd, "output");
    if (output && !format) {
        const char *dot = strrchr(output, '.');
        if (!dot || (strcmp(dot, ".json") != 0 && strcmp(dot, ".dot") != 0 &&
                     strcmp(dot, ".xml") != 0 && strcmp(dot, ".svg") != 0 && strcmp(dot, ".png") != 0 &&
                     strcmp(dot, ".onnx") != 0 && strcmp(dot, ".yaml") != 0 && strcmp(dot, ".yml") != 0))
            return lf_cli_usage_error(&cmd, "cannot tell the format of '%s': use a .json, .xml, "
                                            ".dot, .svg, .png, .onnx or .yaml name, or --format",
                                      output);
    }
    const char *pareto = lf_cli_get(&cmd, "pareto");
    const char *objectives = lf_cli_get(&cmd, "objectives");
    if (objectives && strcmp(objectives, "dram") != 0 && strcmp(objectives, "dram,groups") != 0)
        return lf_cli_usage_error(&cmd, "unknown --objectives '%s' (use dram,groups or dram)",
                                  objectives);
    pc.objectives = objectives && strcmp(objectives, "dram") == 0 ? 1 : 3;
    const char *outputs[2] = {output, pareto};
    if ((rc = lf_cli_check_outputs(outputs, 2)))
        return rc;
    pc.split = split;
    pc.proposer = proposer;
    pc.gnn_weights = lf_cli_get(&cmd, "gnn-weights");
    pc.pg_weights = lf_cli_get(&cmd, "pg-weights");
    pc.rg_weights = lf_cli_get(&cmd, "rg-weights");
    pc.split_gap = lf_cli_get(&cmd, "split-gap") != NULL;
    pc.compare_exact = lf_cli_get(&cmd, "compare-exact") != NULL;
    lf_cli_progress bar = {0};
    if (!lf_cli_get(&cmd, "no-progress")) {
        pc.progress = lf_cli_progress_report;
        pc.progress_user = &bar;
    }
    lf_cli_session s;
    if ((rc = lf_cli_session_open(&s, &cmd)))
        return rc;
    if ((rc = lf_cli_plan_optimize(&cmd, &s, &pc))) {
        lf_cli_session_close(&s);
        return rc;
    }
    lf_pipeline p;
    memset(&p, 0, sizeof p);
    p.graph = s.graph;
    p.cm = s.cm;
    p.model_name = s.model_name;
    /* the annotated ONNX keeps the input file's nodes unless the graph was rewritten */
    p.onnx_source = lf_cli_get(&cmd, "optimize") ? NULL : lf_cli_get(&cmd, "onnx");
    lf_status st = LF_OK;
    if (lf_cli_get(&cmd, "from-annotations")) {
        if ((rc = lf_cli_plan_from_annotations(&cmd, &s, &p.result))) {
            lf_planned_destroy(&p.result);
            lf_cli_session_close(&s);
            return rc;
        }
        search = p.result.search;
        heuristic = 0;
    } else {
        st = lf_plan_network(s.cm, &pc, &p.result);
    }
    lf_cli_progress_end(&bar);
    const lf_planned *r = &p.result;
    if (st == LF_OK && pc.compare_exact && r->exact_dram < 0)
        fprintf(stderr, "fusionplan: no exact optimum to compare with: %s\n", r->exact_error);
    /* The plan and its Pareto front are written together or not at all. */
    lf_output_batch_begin();
    for (int k = 0; k < 2 && st == LF_OK; k++)
        if (outputs[k])
            st = lf_pipeline_save(&p, outputs[k], k ? "json" : format, k);
    if (st == LF_OK)
        st = lf_output_batch_commit();
    if (st == LF_OK && output && lf_cli_is_stream(output, format))
        lf_cli_warn_stream(p.graph);
    else
        lf_output_batch_abort();
    if (st != LF_OK) {
        lf_planned_destroy(&p.result);
        lf_cli_session_close(&s);
        return lf_cli_fail(st);
    }
    const lf_plan_metrics m = r->metrics;
    char beta[32], fus[32], all[32], mbu[32], gap[48] = "";
    lf_hw_format_size(lf_cost_beta(s.cm), beta, sizeof beta);
    lf_cli_commas(m.dram_fusable, fus, sizeof fus);
    lf_cli_commas(m.dram_all, all, sizeof all);
    lf_cli_commas(m.mbu, mbu, sizeof mbu);
    if (r->exact_dram > 0)
        snprintf(gap, sizeof gap, "; gap to optimum %.2f%%",
                 100.0 * (double)(m.dram_fusable - r->exact_dram) / (double)r->exact_dram);
    printf("%s %s %s %s: DRAM %s B fusable ops (%.3f MB), %s B all ops; MBU %s B; %d groups, "
           "%d unfusable",
           s.model_name, beta, lf_cost_scheme_name(s.cm), search, fus, (double)m.dram_fusable / 1e6,
           all, mbu, (int)m.n_groups, (int)m.n_unfusable);
    printf("; DRAM time %.3f ms", m.dram_time_s * 1e3);
    if (m.energy_j >= 0)
        printf(", energy %.3f mJ", m.energy_j * 1e3);
    if (heuristic)
        lf__print_search(r);
    const lf_exact_stats *es = &r->exact_stats;
    if (es->states > 0)
        printf("; %lld downsets, %lld candidate sets, %lld groups priced", (long long)es->states,
               (long long)es->candidates, (long long)es->groups);
    printf("%s; wall %.3f s\n", gap, r->wall_s);
    if (!lf_cli_get(&cmd, "quiet"))
        lf__print_groups(&r->plan, s.cm);
    for (int k = 0; k < 2; k++)
        if (outputs[k])
            fprintf(stderr, "wrote %s\n", outputs[k]);
    lf_planned_destroy(&p.result);
    lf_cli_session_close(&s);
    return LF_EXIT_OK;
}

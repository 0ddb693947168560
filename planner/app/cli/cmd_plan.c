/* fusionplan plan: partition a network into fusion groups — a thin wrapper
 * over the library pipeline (lf_plan_network): options in, figures out. */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/app/cli/exact_opts.h"
#include "planner/app/registry.h"
#include "planner/residency.h"
#include "planner/io/plan_export.h"
#include "planner/util/fileio.h"

int lf_cmd_plan(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"search", "NAME", "{search} (default greedy; below)", NULL},
        LF_CLI_OBJECTIVE_OPT,
        LF_CLI_SEARCH_OPTS,
        {"objectives", "LIST", "nsga2: dram,groups (default, the paper's) or dram", NULL},
        {"split", "NAME", "repair of invalid groups: random (default, the paper's baseline), tree, "
                          "or exact (each group's optimal split where it takes at most 1,000,000 "
                          "candidate sets, else random)", NULL},
        {"proposer", "NAME", "tree splitter's edge proposer: {proposer} (default all); gnne:epochs=N:patience=N:top=N sets "
                             "GNNExplainer's iterations (100) and early stop (docs/explainers.md)", NULL},
        {"gnn-weights", "FILE", "GNN weights for the explainers (default: the shipped gnn-SCHEME.bin)", NULL},
        {"pg-weights", "FILE", "PGExplainer weights (default: the shipped pg-SCHEME.bin)", NULL},
        {"rg-weights", "FILE", "RG-Explainer weights (default: the shipped rg-SCHEME.bin)", NULL},
        {"k", "N", "edges the proposer may return (default 3; 0: all)", NULL},
        {"split-continue", NULL, "tree: keep splitting a valid part while that lowers its DRAM, then merge, move and "
                                 "re-split parts while that lowers it (beyond the paper's Algorithm 1)", NULL},
        {"split-gap", NULL, "tree splitter: after the search, price each distinct split against the "
                            "optimal split (an exact split per group; not in the wall time)", NULL},
        {"no-split-gap", NULL, "no split-gap measurement (the default; kept for old scripts)", NULL},
        {"compare-exact", NULL, "also compute the exact optimum of --objective and print the gap to it", NULL},
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
        LF_CLI_UPPER_BOUND_OPTS,
        {"best-effort", NULL, "exact: past a limit, keep the best plan found (the block plan, the greedy "
                              "plan or NSGA-II seeded with it, at --budget, polished) and print "
                              "certified bounds on the optimum of --objective (the DP's frontier, blocks, "
                              "windows, forced cuts; energy and latency priced from DRAM floors), "
                              "instead of failing", NULL},
        {"output", "FILE", "(or -o) write the plan to FILE (.json, .xml, .dot, .svg/.png drawn by Graphviz, .onnx annotated ONNX, .yaml Stream mapping; docs/exports.md)", NULL},
        {"format", "FMT", "json, dot, xml, svg, png, onnx, onnx-groups (each group one ONNX function, for Netron), stream (Stream 1.13), stream-stacks (Stream's layer_stacks API) or html (default: from the file extension)", NULL},
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
        {"upper-bound", "search", "greedy", -1, "exact", "--upper-bound needs --search exact"},
        {"upper-bound-plan", "search", "greedy", -1, "exact", "--upper-bound-plan needs --search exact"},
    };
    lf_planner_config pc;
    lf_planner_config_default(&pc);
    const char *search, *split, *format, *proposer, *objectives;
    static const char *const objective_sets[] = {"dram,groups", "dram", NULL};
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
    pc.compare_exact = lf_cli_get(&cmd, "compare-exact") != NULL;
    pc.best_effort = lf_cli_get(&cmd, "best-effort") != NULL;
    pc.objective = lf_cli_get(&cmd, "objective");
    if (lf_planner_config_check(&pc, lf_cli_exact_opts_given(&cmd)) != LF_OK)
        return lf_cli_usage_error(&cmd, "%s", lf_last_error());
    const char *output = lf_cli_get(&cmd, "output"), *pareto = lf_cli_get(&cmd, "pareto");
    if (output && !format && lf_plan_format_of(output, NULL) != LF_OK)
        return lf_cli_usage_error(&cmd, "%s", lf_last_error()); /* the exporter table's extensions */
    if ((rc = lf_cli_choice(&cmd, "objectives", objective_sets, &objectives)) ||
        (rc = lf_cli_choice(&cmd, "objective", lf_cli_plan_objectives, &pc.objective)))
        return rc;
    pc.objectives = strcmp(objectives, "dram") == 0 ? 1 : 3;
    if (lf_cli_get(&cmd, "upper-bound") && lf_cli_get(&cmd, "upper-bound-plan"))
        return lf_cli_usage_error(&cmd, "give --upper-bound or --upper-bound-plan, not both");
    if ((rc = lf_cli_upper_bound(&cmd, pc.objective, &pc.exact.upper_bound)))
        return rc;
    const char *outputs[2] = {output, pareto};
    if ((rc = lf_cli_check_outputs(outputs, 2)))
        return rc;
    pc.split = split;
    pc.proposer = proposer;
    pc.gnn_weights = lf_cli_get(&cmd, "gnn-weights");
    pc.pg_weights = lf_cli_get(&cmd, "pg-weights");
    pc.rg_weights = lf_cli_get(&cmd, "rg-weights");
    pc.split_gap = lf_cli_get(&cmd, "split-gap") != NULL;
    lf_cli_progress bar = {0};
    if (!lf_cli_get(&cmd, "no-progress")) {
        pc.progress = lf_cli_progress_report;
        pc.progress_user = &bar;
    }
    lf_cli_session s;
    if ((rc = lf_cli_session_open(&s, &cmd)))
        return rc;
    if ((rc = lf_cli_plan_optimize(&cmd, &s, &pc)) ||
        (rc = lf_cli_upper_bound_plan(&cmd, s.cm, pc.objective, &pc.exact.upper_bound))) {
        lf_cli_session_close(&s);
        return rc;
    }
    /* the annotated ONNX keeps the input file's nodes unless the graph was rewritten */
    lf_pipeline p = {.graph = s.graph, .cm = s.cm, .model_name = s.model_name,
                     .onnx_source = lf_cli_get(&cmd, "optimize") ? NULL : lf_cli_get(&cmd, "onnx")};
    const char *phase = lf_cli_get(&cmd, "phase");
    p.residency = phase && strcmp(phase, "decode") == 0;
    lf_status st = LF_OK;
    if (lf_cli_get(&cmd, "from-annotations"))
        rc = lf_cli_plan_from_annotations(&cmd, &s, &p.result);
    else
        st = lf_plan_network(s.cm, &pc, &p.result);
    lf_cli_progress_end(&bar);
    if (st == LF_OK && !rc && pc.compare_exact && p.result.exact_dram < 0)
        fprintf(stderr, "fusionplan: no exact optimum to compare with: %s%s\n", p.result.exact_error,
                p.result.lower_bound > 0 ? "; the gap printed is against a certified lower bound" : "");
    /* The plan and its Pareto front are written together or not at all. */
    lf_output_batch_begin();
    for (int k = 0; k < 2 && st == LF_OK && !rc; k++)
        if (outputs[k])
            st = lf_pipeline_save(&p, outputs[k], k ? "json" : format, k);
    if (st == LF_OK && !rc)
        st = lf_output_batch_commit();
    if (st == LF_OK && !rc && output && lf_cli_is_stream(output, format))
        lf_cli_warn_stream(&p, output, format);
    else
        lf_output_batch_abort();
    if (st != LF_OK)
        rc = lf_cli_fail(st);
    if (!rc) {
        lf_planned_print_summary(stdout, &p.result, s.cm, s.model_name);
        if (p.residency) {
            lf_residency r;
            lf_status rs = lf_residency_compute(&p.result.plan, s.cm, &r);
            if (rs == LF_OK)
                lf_residency_print(stdout, &r, s.graph, !lf_cli_get(&cmd, "quiet"));
            else
                rc = lf_cli_fail(rs);
            lf_residency_destroy(&r);
        }
        if (!lf_cli_get(&cmd, "quiet"))
            (void)lf_plan_print_groups(stdout, &p.result.plan, s.cm); /* a failure cuts the table short */
        for (int k = 0; k < 2; k++)
            if (outputs[k])
                fprintf(stderr, "wrote %s\n", outputs[k]);
    }
    lf_planned_destroy(&p.result);
    lf_cli_session_close(&s);
    return rc;
}

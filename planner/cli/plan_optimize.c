/* plan --optimize SEARCH: the substitution optimizer (search/subst) as the
 * first stage of planning. The session's graph is rewritten with the
 * built-in rules (every one verified numerically first), by default under the
 * fusion-aware objective (the exact fusion DRAM at the session's buffer and
 * scheme), checked against the original with the executor, and then planned
 * in its place; the original graph's plan is reported next to it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "search/subst/gso/gso.h"
#include "search/subst/job.h"

/* Plans g with the session's planner settings and prints the one line the
 * optimized plan is compared with. */
static int lf__plan_original(lf_cli_session *s, const lf_planner_config *pc, int64_t *fusable,
                             int64_t *all)
{
    lf_planner_config quiet = *pc;
    quiet.progress = NULL;
    quiet.compare_exact = 0;
    lf_planned r;
    lf_status st = lf_plan_network(s->cm, &quiet, &r);
    if (st != LF_OK) {
        lf_planned_destroy(&r);
        return lf_cli_fail(st);
    }
    *fusable = r.metrics.dram_fusable;
    *all = r.metrics.dram_all;
    lf_planned_destroy(&r);
    return 0;
}

int lf_cli_plan_optimize(const lf_cli_command *cmd, lf_cli_session *s, const lf_planner_config *pc)
{
    const char *search = lf_cli_get(cmd, "optimize");
    if (!search)
        return 0;
    const char *objective = lf_cli_get(cmd, "optimize-objective");
    lf_subst_options o;
    lf_subst_options_default(&o);
    o.search = lf_subst_search_from_name(search);
    /* the OCGGS searches (prune, dpp, sample) build thousands of graphs: with the dram
     * objective each is an exact planning problem, so plan --optimize keeps to these three */
    if (o.search == LF_SEARCH_COUNT || o.search >= LF_SEARCH_PRUNE)
        return lf_cli_usage_error(cmd, "unknown --optimize '%s' (backtrack, enum, split)", search);
    lf_subst_objective obj = objective ? lf_subst_objective_from_name(objective) : LF_OBJ_DRAM;
    if (obj == LF_OBJ_COUNT)
        return lf_cli_usage_error(cmd, "unknown --optimize-objective '%s' (dram, time, flops, bytes, "
                                       "kernels)", objective);
    int64_t budget = 0;
    int rc;
    if ((rc = lf_cli_int(cmd, "optimize-budget", 30, 1, 100000000, &budget)))
        return rc;
    o.budget = budget;
    o.seed = (uint64_t)pc->seed;
    int64_t orig_fusable = 0, orig_all = 0;
    if ((rc = lf__plan_original(s, pc, &orig_fusable, &orig_all)))
        return rc;
    lf_subst_job_config cfg;
    lf_subst_job_config_default(&cfg);
    cfg.options = o;
    lf_gso_set set;
    if ((rc = lf_cli_gso_filter(cmd, "optimize-filter", "optimize-gso-weights", &set, &cfg.filter)))
        return rc;
    lf_subst_coster_init(&cfg.coster, obj, &s->hw, lf_cost_scheme_name(s->cm));
    lf_cli_gpu_costs gc = {0}; /* time objective on a GPU: measured op times (docs/gpu.md) */
    lf_cli_gpu_costs_begin(&gc, NULL, &cfg.coster, &s->hw, s->graph); /* no options of its own: exit status 0 */
    lf_subst_job job;
    lf_status st = lf_subst_job_run(s->graph, &cfg, &job, lf_cli_gso_filtered, NULL);
    lf_cli_gpu_costs_end(&gc);
    lf_gso_set_destroy(&set);
    const lf_subst_result *res = &job.result;
    lf_cost_model *cm = NULL;
    if (st == LF_OK && res->n_steps > 0)
        st = lf_cost_model_create(&cm, res->graph, &s->hw, lf_cost_scheme_name(s->cm));
    if (st != LF_OK) {
        lf_subst_job_destroy(&job);
        return lf_cli_fail(st);
    }
    char fus[32], all[32];
    lf_cli_commas(orig_fusable, fus, sizeof fus);
    lf_cli_commas(orig_all, all, sizeof all);
    printf("optimize: %s search, objective %s, %d built-in rules (%d disabled by verification): "
           "%d rewrites",
           lf_subst_search_name(o.search), lf_subst_objective_name(obj), (int)job.rules.n, (int)job.failed,
           (int)res->n_steps);
    if (res->n_steps > 0)
        printf(", outputs equal to the original's (max relative error %.2g)", res->max_err);
    printf("; the original graph's plan: DRAM %s B fusable ops, %s B all ops\n", fus, all);
    for (int32_t i = 0; i < res->n_steps; i++)
        printf("  rewrite %d: %s at %s\n", (int)i + 1, job.rules.rule[res->steps[i].rule]->name, res->steps[i].ops);
    if (res->n_steps > 0) { /* the optimized graph replaces the session's */
        lf_cost_model_free(s->cm);
        lf_graph_free(s->graph);
        s->graph = job.result.graph;
        s->cm = cm;
        job.result.graph = NULL;
    }
    lf_subst_job_destroy(&job);
    return 0;
}

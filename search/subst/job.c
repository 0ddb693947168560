/* The optimize command's work as one library call: rules, filter, search,
 * check, DRAM (search/subst/job.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "search/subst/job.h"

void lf_subst_job_config_default(lf_subst_job_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->rules = "builtin";
    lf_subst_options_default(&cfg->options);
    lf_subst_coster_init(&cfg->coster, LF_OBJ_TIME, NULL, NULL);
    cfg->filter_threshold = 0.5;
}

/* Runs the filter into job->keep and job->filter. */
static lf_status lf__filter(const lf_graph *g, const lf_subst_job_config *cfg, lf_subst_job *job)
{
    job->keep = calloc((size_t)(job->rules.n ? job->rules.n : 1), 1);
    if (!job->keep)
        return lf_set_error(LF_ENOMEM, "out of memory");
    return lf_gso_filter_timed(cfg->filter, g, &job->rules, cfg->filter_threshold, job->keep, &job->filter);
}

lf_status lf_subst_job_run(const lf_graph *g, const lf_subst_job_config *cfg, lf_subst_job *job,
                           lf_subst_job_filtered_fn filtered, void *user)
{
    memset(job, 0, sizeof *job);
    job->options = cfg->options;
    job->options.rule_mask = NULL;
    job->coster = cfg->coster;
    lf_status st = lf_subst_ruleset_open(&job->rules, cfg->rules ? cfg->rules : "builtin", cfg->taso_path);
    if (!st)
        st = lf_subst_ruleset_verify(&job->rules, &job->failed);
    if (!st && cfg->filter && !(st = lf__filter(g, cfg, job))) {
        job->options.rule_mask = job->keep;
        if (filtered)
            filtered(user, job);
    }
    if (!st)
        st = lf_subst_optimize(g, &job->rules, &job->coster, &job->options, &job->result);
    /* the planner's view of both graphs, for any objective */
    if (!st && cfg->with_dram && !lf_subst_objective_fused(job->coster.objective)) {
        st = lf_subst_cost(&job->coster, g, 1, &job->result.before);
        if (!st)
            st = lf_subst_cost(&job->coster, job->result.graph, 1, &job->result.after);
    }
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        job->peak_rss_kb = (int64_t)ru.ru_maxrss;
    return st;
}

void lf_subst_job_destroy(lf_subst_job *job)
{
    lf_subst_result_destroy(&job->result);
    lf_subst_ruleset_close(&job->rules);
    free(job->keep);
    job->keep = NULL;
    job->options.rule_mask = NULL;
}

/* One substitution optimization as `fusionplan optimize` and `plan
 * --optimize` run it (DESIGN §11): open the rule sources and verify every
 * rule, optionally let the GSO filter choose the rules to search, search for
 * a cheaper equivalent graph, check it against the input, and (on request)
 * price the exact fusion DRAM of both graphs. Reports are written by
 * search/subst/report.h; nothing here prints. */
#ifndef LF_SUBST_JOB_H
#define LF_SUBST_JOB_H

#include <stdint.h>

#include "planner/graph.h"
#include "planner/status.h"
#include "search/subst/gso/gso.h"
#include "search/subst/subst.h"

typedef struct lf_subst_job_config {
    const char *rules;          /* rule sources for lf_subst_ruleset_open (NULL: "builtin") */
    const char *taso_path;      /* TASO's rule file for the "taso" source (NULL: none) */
    lf_subst_options options;   /* the search's; rule_mask is set by the job from filter */
    lf_subst_coster coster;     /* objective, hardware, scheme and any measured op times */
    int with_dram;              /* also the exact fusion DRAM of both graphs when the objective
                                   is not dram (which computes it anyway) */
    const lf_gso_set *filter;   /* NULL: every enabled rule; else the rules its models keep */
    double filter_threshold;    /* default 0.5 (GSO's) */
} lf_subst_job_config;

/* Defaults: built-in rules, lf_subst_options_default, the time objective on
 * the roofline defaults (no hardware), no DRAM, no filter. */
void lf_subst_job_config_default(lf_subst_job_config *cfg);

typedef struct lf_subst_job {
    lf_subst_ruleset rules;     /* opened and verified */
    int32_t failed;             /* rules disabled by verification */
    lf_subst_options options;   /* as searched (rule_mask points at keep) */
    lf_subst_coster coster;
    uint8_t *keep;              /* the filter's choice, rules.n entries (NULL without a filter) */
    lf_gso_filter_stats filter; /* valid when keep is not NULL */
    lf_subst_result result;     /* the search's result; before/after carry the DRAM with_dram */
    int64_t peak_rss_kb;        /* the process's peak resident set after the run (getrusage) */
} lf_subst_job;

/* Called once the filter has chosen the rules, before the search (a caller
 * shows what was kept); not called without a filter. */
typedef void (*lf_subst_job_filtered_fn)(void *user, const lf_subst_job *job);

/* Runs cfg on g into job (always safe to destroy afterwards, also after a
 * failure; a failed search leaves the filter's figures in job). filtered may
 * be NULL. */
lf_status lf_subst_job_run(const lf_graph *g, const lf_subst_job_config *cfg, lf_subst_job *job,
                           lf_subst_job_filtered_fn filtered, void *user);
void lf_subst_job_destroy(lf_subst_job *job);

#endif

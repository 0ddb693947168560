/* --filter gso|lr|none for the substitution commands (optimize, plan
 * --optimize): loads the GSO models (the shipped ones, or --gso-weights) for
 * the substitution job, which runs them once on the input graph and searches
 * the rules they keep (search/subst/job.h); one line says what was kept. */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "search/subst/gso/gso.h"
#include "search/subst/job.h"

int lf_cli_gso_filter(const lf_cli_command *cmd, const char *opt, const char *weights_opt, lf_gso_set *set,
                      const lf_gso_set **filter)
{
    memset(set, 0, sizeof *set);
    *filter = NULL;
    const char *name = lf_cli_get(cmd, opt), *wpath = lf_cli_get(cmd, weights_opt);
    lf_gso_kind kind = name ? lf_gso_kind_from_name(name) : LF_GSO_NONE;
    if (kind > LF_GSO_NONE)
        return lf_cli_usage_error(cmd, "unknown --%s '%s' (gso, lr, none)", opt, name);
    if (kind == LF_GSO_NONE) {
        if (wpath)
            return lf_cli_usage_error(cmd, "--%s needs --%s gso or lr", weights_opt, opt);
        return 0;
    }
    lf_status st = lf_gso_load_or_shipped(set, kind, wpath);
    if (st)
        return lf_cli_fail(st);
    if (set->kind != kind) {
        lf_gso_kind has = set->kind;
        lf_gso_set_destroy(set);
        return lf_cli_usage_error(cmd, "%s holds %s models, --%s asks for %s",
                                  wpath ? wpath : kind == LF_GSO_LR ? LF_GSO_SHIPPED_LR : LF_GSO_SHIPPED_GCN,
                                  lf_gso_kind_name(has), opt, lf_gso_kind_name(kind));
    }
    *filter = set;
    return 0;
}

void lf_cli_gso_filtered(void *user, const lf_subst_job *job)
{
    (void)user;
    lf_gso_filter_stats_write(stdout, &job->filter, &job->rules, job->keep);
}

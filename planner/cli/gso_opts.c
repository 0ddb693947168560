/* --filter gso|lr|none for the substitution commands (optimize, plan
 * --optimize): loads the GSO models (the shipped ones, or --gso-weights),
 * runs them once on the input graph and hands the search the rules they keep
 * (lf_subst_options.rule_mask). Prints one line saying what was kept. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "explain/weights_dir.h"
#include "planner/cli/cli.h"
#include "search/subst/gso/gso.h"

static double lf__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int lf_cli_gso_filter(const lf_cli_command *cmd, const char *opt, const char *weights_opt, const lf_graph *g,
                      const lf_subst_ruleset *rs, uint8_t **mask)
{
    *mask = NULL;
    const char *name = lf_cli_get(cmd, opt), *wpath = lf_cli_get(cmd, weights_opt);
    lf_gso_kind kind = name ? lf_gso_kind_from_name(name) : LF_GSO_NONE;
    if (kind > LF_GSO_NONE)
        return lf_cli_usage_error(cmd, "unknown --%s '%s' (gso, lr, none)", opt, name);
    if (kind == LF_GSO_NONE) {
        if (wpath)
            return lf_cli_usage_error(cmd, "--%s needs --%s gso or lr", weights_opt, opt);
        return 0;
    }
    char path[4200];
    lf_status st = LF_OK;
    if (wpath)
        snprintf(path, sizeof path, "%s", wpath);
    else
        st = lf_weights_find(kind == LF_GSO_GCN ? LF_GSO_SHIPPED_GCN : LF_GSO_SHIPPED_LR, path, sizeof path);
    lf_gso_set set;
    if (st || (st = lf_gso_load(&set, path)))
        return lf_cli_fail(st);
    if (set.kind != kind) {
        lf_gso_kind has = set.kind;
        lf_gso_set_destroy(&set);
        return lf_cli_usage_error(cmd, "%s holds %s models, --%s asks for %s", path, lf_gso_kind_name(has), opt,
                                  lf_gso_kind_name(kind));
    }
    *mask = calloc((size_t)(rs->n ? rs->n : 1), 1);
    int32_t kept = 0, enabled = 0, unknown = 0;
    double t0 = lf__now();
    if (!*mask)
        st = lf_set_error(LF_ENOMEM, "out of memory");
    else
        st = lf_gso_filter(&set, g, rs, 0.5, *mask, &kept);
    double t = lf__now() - t0;
    for (int32_t k = 0; k < rs->n && !st; k++) {
        enabled += rs->enabled[k] != 0;
        unknown += rs->enabled[k] && lf_gso_set_find(&set, rs->rule[k]->name) < 0;
    }
    lf_gso_set_destroy(&set);
    if (st) {
        free(*mask);
        *mask = NULL;
        return lf_cli_fail(st);
    }
    printf("filter %s: %d of %d rules kept (%.1f%% of the search space removed) in %.1f ms",
           lf_gso_kind_name(kind), (int)kept, (int)enabled, enabled ? 100.0 * (enabled - kept) / enabled : 0.0,
           t * 1e3);
    if (unknown)
        printf(", %d without a model kept", (int)unknown);
    printf(":");
    for (int32_t k = 0; k < rs->n; k++)
        if ((*mask)[k])
            printf(" %s", rs->rule[k]->name);
    printf("\n");
    return 0;
}

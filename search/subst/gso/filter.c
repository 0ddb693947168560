/* The GSO filter at search time (GSO §3.5): run every rule's model once on
 * the input graph and keep the rules some op of which scores >= the
 * threshold; the search then tries only those (lf_subst_options.rule_mask).
 * The graph's features and P X are computed once and shared by the models. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain/weights_dir.h"
#include "planner/util/clock.h"
#include "search/subst/gso/gso.h"

lf_status lf_gso_filter(const lf_gso_set *s, const lf_graph *g, const lf_subst_ruleset *rs,
                        double threshold, uint8_t *keep, int32_t *kept)
{
    *kept = 0;
    lf_gso_graph gg;
    lf_status st = lf_gso_graph_init(&gg, g);
    if (st)
        return st;
    float *ws = malloc((size_t)lf_gso_ws_floats(gg.n) * sizeof *ws);
    float *prob = malloc((size_t)(gg.n > 0 ? gg.n : 1) * sizeof *prob);
    if (!ws || !prob)
        st = lf_set_error(LF_ENOMEM, "gso: out of memory for the filter of '%s'", g->name);
    for (int32_t k = 0; k < rs->n && !st; k++) {
        keep[k] = 0;
        if (!rs->enabled[k])
            continue;
        int32_t i = lf_gso_set_find(s, rs->rule[k]->name);
        if (i < 0) {
            keep[k] = 1; /* no model: never dropped */
        } else if (s->positives[i] == 0) {
            keep[k] = threshold <= 1.0 / (1.0 + exp(8.0)); /* the constant "no" model (gso_internal.h) */
        } else {
            lf_gso_predict(s->kind, lf_gso_set_params(s, i), &gg, ws, prob);
            for (int32_t v = 0; v < gg.n && !keep[k]; v++)
                keep[k] = prob[v] >= threshold;
        }
        *kept += keep[k];
    }
    free(ws);
    free(prob);
    lf_gso_graph_destroy(&gg);
    return st;
}

lf_status lf_gso_truth(const lf_graph *g, const lf_subst_ruleset *rs, uint8_t *truth)
{
    lf_status st = LF_OK;
    for (int32_t k = 0; k < rs->n && !st; k++) {
        truth[k] = 0;
        if (!rs->enabled[k])
            continue;
        lf_subst_matches ms = {0, 0, NULL};
        st = lf_subst_find(g, rs->rule[k], &ms);
        truth[k] = ms.n > 0;
        lf_subst_matches_free(&ms);
    }
    return st;
}

double lf_gso_jaccard_distance(const uint8_t *a, const uint8_t *b, int32_t n)
{
    int32_t both = 0, any = 0;
    for (int32_t i = 0; i < n; i++) {
        both += a[i] && b[i];
        any += a[i] || b[i];
    }
    return any ? 1.0 - (double)both / any : 0.0;
}

lf_status lf_gso_load_or_shipped(lf_gso_set *s, lf_gso_kind kind, const char *path)
{
    memset(s, 0, sizeof *s);
    if (path)
        return lf_gso_load(s, path);
    char found[4200];
    lf_status st = lf_weights_find(kind == LF_GSO_LR ? LF_GSO_SHIPPED_LR : LF_GSO_SHIPPED_GCN, found, sizeof found);
    return st ? st : lf_gso_load(s, found);
}

/* 1 when the comma-separated list has the item word. */
static int lf__list_has(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, word, n) == 0)
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

lf_status lf_gso_load_for_rules(lf_gso_set *s, lf_gso_kind kind, const char *path, const char *rules,
                                const char **file)
{
    memset(s, 0, sizeof *s);
    int gen = lf__list_has(rules, "generated");
    const char *name = kind == LF_GSO_LR ? (gen ? LF_GSO_SHIPPED_LR_GENERATED : LF_GSO_SHIPPED_LR)
                                         : (gen ? LF_GSO_SHIPPED_GCN_GENERATED : LF_GSO_SHIPPED_GCN);
    if (file)
        *file = path ? path : name;
    if (path)
        return lf_gso_load(s, path);
    char found[4200];
    lf_status st = lf_weights_find(name, found, sizeof found);
    return st ? st : lf_gso_load(s, found);
}

lf_status lf_gso_filter_timed(const lf_gso_set *s, const lf_graph *g, const lf_subst_ruleset *rs,
                              double threshold, uint8_t *keep, lf_gso_filter_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    stats->kind = s->kind;
    double t0 = lf_now_seconds();
    lf_status st = lf_gso_filter(s, g, rs, threshold, keep, &stats->kept);
    stats->seconds = lf_now_seconds() - t0;
    for (int32_t k = 0; k < rs->n && !st; k++) {
        stats->enabled += rs->enabled[k] != 0;
        stats->unknown += rs->enabled[k] && lf_gso_set_find(s, rs->rule[k]->name) < 0;
    }
    return st;
}

void lf_gso_filter_stats_write(FILE *f, const lf_gso_filter_stats *stats, const lf_subst_ruleset *rs,
                               const uint8_t *keep)
{
    int32_t kept = stats->kept, enabled = stats->enabled;
    fprintf(f, "filter %s: %d of %d rules kept (%.1f%% of the search space removed) in %.1f ms",
            lf_gso_kind_name(stats->kind), (int)kept, (int)enabled,
            enabled ? 100.0 * (enabled - kept) / enabled : 0.0, stats->seconds * 1e3);
    if (stats->unknown)
        fprintf(f, ", %d without a model kept", (int)stats->unknown);
    fprintf(f, ":");
    for (int32_t k = 0; k < rs->n; k++)
        if (keep[k])
            fprintf(f, " %s", rs->rule[k]->name);
    fprintf(f, "\n");
}

/* Name registries (see registry.h). The lists of schemes and analytic
 * proposers and the export formats come from their owners (cost/model.c,
 * splitter/proposer.c, io/plan_save.c); the
 * others are the library's entry points, kept here once. */
#include "planner/app/registry.h"

#include <stdio.h>
#include <string.h>

#include "planner/cost/cost.h"
#include "planner/io/plan_export.h"

static const char *const lf__searches[] = {"greedy", "layer", "random", "local", "nsga2", "exact", NULL};
static const char *const lf__heuristics[] = {"random", "local", "nsga2", NULL};
static const char *const lf__splits[] = {"random", "tree", "exact", NULL};
/* The analytic proposers (splitter/proposer.c), then the explainers that
 * splitter/proposer_named.c opens with their weights. */
static const char *const lf__proposers[] = {"all", "random", "attrib", "gnne", "pg",
                                            "rg", "saliency", "occlusion", NULL};

static const char *const lf__nouns[LF_NAMES_COUNT] = {"search", "search", "scheme",
                                                      "split",  "proposer", "format"};

const char *const *lf_names(lf_name_kind kind)
{
    switch (kind) {
    case LF_NAMES_SEARCH:
        return lf__searches;
    case LF_NAMES_HEURISTIC:
        return lf__heuristics;
    case LF_NAMES_SCHEME:
        return lf_cost_scheme_names();
    case LF_NAMES_SPLIT:
        return lf__splits;
    case LF_NAMES_PROPOSER:
        return lf__proposers;
    case LF_NAMES_EXPORTER:
        return lf_plan_formats(); /* the exporter table, planner/io/plan_save.c */
    default:
        return NULL;
    }
}

int lf_name_known(lf_name_kind kind, const char *name)
{
    const char *const *n = lf_names(kind);
    /* A proposer may carry settings after a colon ("gnne:epochs=20"): the
     * name is what precedes it; splitter/proposer_named.c checks the rest. */
    size_t len = name ? strlen(name) : 0;
    const char *colon = kind == LF_NAMES_PROPOSER && name ? strchr(name, ':') : NULL;
    if (colon)
        len = (size_t)(colon - name);
    for (int i = 0; name && n && n[i]; i++)
        if (strlen(n[i]) == len && strncmp(n[i], name, len) == 0)
            return 1;
    return 0;
}

const char *lf_names_format(lf_name_kind kind, char *buf, size_t len)
{
    const char *const *n = lf_names(kind);
    size_t used = 0;
    int count = 0;
    while (n && n[count])
        count++;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < count && used < len; i++) {
        const char *sep = i == 0 ? "" : i == count - 1 ? " or " : ", ";
        int w = snprintf(buf + used, len - used, "%s%s", sep, n[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}

lf_status lf_name_check(lf_name_kind kind, const char *name)
{
    if (lf_name_known(kind, name))
        return LF_OK;
    char list[256];
    lf_names_format(kind, list, sizeof list);
    return lf_set_error(LF_EINVAL, "unknown %s '%s' (use %s)",
                        (unsigned)kind < LF_NAMES_COUNT ? lf__nouns[kind] : "name",
                        name ? name : "(none)", list);
}

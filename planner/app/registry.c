/* Name registries (see registry.h). Each list comes from its owner's table:
 * the searches from search/partition/searches.def, the schemes from
 * cost/model.c, the proposers from splitter/proposer_named.c, the export
 * formats from io/plan_save.c, the rule sources from search/subst/ruleset.c;
 * the splits are kept here once. (This file
 * names searches and proposers, so it belongs with the pipeline above the
 * core.) */
#include "planner/app/registry.h"

#include <stdio.h>
#include <string.h>

#include "splitter/proposer_named.h"
#include "planner/cost/cost.h"
#include "planner/io/plan_export.h"
#include "search/partition/search.h"
#include "search/subst/subst.h"

static const char *const lf__splits[] = {"random", "tree", "exact", NULL};

static const char *const lf__nouns[LF_NAMES_COUNT] = {"search", "search", "scheme",      "split",
                                                      "proposer", "format", "rule source"};

static const char *const lf__keys[LF_NAMES_COUNT] = {"search",   "heuristic", "scheme", "split",
                                                     "proposer", "format",    "rules"};

lf_status lf_name_kind_parse(const char *key, lf_name_kind *kind)
{
    for (int k = 0; k < LF_NAMES_COUNT; k++)
        if (key && strcmp(key, lf__keys[k]) == 0) {
            *kind = (lf_name_kind)k;
            return LF_OK;
        }
    return lf_set_error(LF_EINVAL, "unknown kind of name '%s' (search, heuristic, scheme, split, proposer, "
                                   "format or rules)", key ? key : "(none)");
}

const char *const *lf_names(lf_name_kind kind)
{
    switch (kind) {
    case LF_NAMES_SEARCH:
        return lf_search_names(0);
    case LF_NAMES_HEURISTIC:
        return lf_search_names(1);
    case LF_NAMES_SCHEME:
        return lf_cost_scheme_names();
    case LF_NAMES_SPLIT:
        return lf__splits;
    case LF_NAMES_PROPOSER:
        return lf_named_proposer_names(); /* splitter/proposer_named.c */
    case LF_NAMES_EXPORTER:
        return lf_plan_formats(); /* the exporter table, planner/io/plan_save.c */
    case LF_NAMES_RULES:
        return lf_subst_rule_sources(); /* search/subst/ruleset.c */
    default:
        return NULL;
    }
}

int lf_name_known(lf_name_kind kind, const char *name)
{
    const char *const *n = lf_names(kind);
    /* A proposer may carry settings after a colon ("gnne:epochs=20"), a rule
     * source a file after '=' ("generated=FILE"): the name is what precedes
     * it; splitter/proposer_named.c and search/subst/ruleset.c check the rest. */
    size_t len = name ? strlen(name) : 0;
    const char *colon = !name                       ? NULL
                        : kind == LF_NAMES_PROPOSER ? strchr(name, ':')
                        : kind == LF_NAMES_RULES    ? strchr(name, '=')
                                                    : NULL;
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

/* Name registries: the searches, cost-model schemes, splits, edge proposers
 * and export formats the library resolves by name, so that front ends (the
 * CLI, the sweep runner, a library user) list and check names in one place
 * instead of keeping their own copies. Every list is NULL-terminated and in
 * the order help texts show it. */
#ifndef LF_REGISTRY_H
#define LF_REGISTRY_H

#include <stddef.h>

#include "planner/status.h"

typedef enum lf_name_kind {
    LF_NAMES_SEARCH,    /* greedy, layer, random, local, nsga2, exact */
    LF_NAMES_HEURISTIC, /* the budgeted searches: random, local, nsga2 */
    LF_NAMES_SCHEME,    /* cost models: lbdf, brr */
    LF_NAMES_SPLIT,     /* repairs of invalid groups: random, tree, exact */
    LF_NAMES_PROPOSER,  /* tree splitter's edge proposers: all, random, attrib, gnne, ... */
    LF_NAMES_EXPORTER,  /* plan export formats: json, dot, xml, svg, png */
    LF_NAMES_RULES,     /* substitution rule sources: builtin, taso, generated[=FILE] */
    LF_NAMES_COUNT
} lf_name_kind;

const char *const *lf_names(lf_name_kind kind);

/* The kind a key names: "search", "heuristic", "scheme", "split",
 * "proposer", "format" or "rules" (for bindings, which pass strings).
 * LF_EINVAL naming the keys otherwise. */
lf_status lf_name_kind_parse(const char *key, lf_name_kind *kind);

/* 1 when name is in the list of kind. */
int lf_name_known(lf_name_kind kind, const char *name);

/* The list as prose for messages: "greedy, layer, random, local, nsga2 or
 * exact". Returns buf. */
const char *lf_names_format(lf_name_kind kind, char *buf, size_t len);

/* LF_OK for a known name, else LF_EINVAL with "unknown WHAT 'name' (use
 * a, b or c)", WHAT being the kind's noun ("search", "scheme", ...). */
lf_status lf_name_check(lf_name_kind kind, const char *name);

#endif

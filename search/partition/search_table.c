/* The table of searches (searches.def) as data: the rows, lookups by name or
 * alias and the name lists the registry hands out. The only reader of the
 * table besides the declarations in search_internal.h, so a test build can
 * compile this file again with extra rows (tests/plugins/). */
#include <stdio.h>
#include <string.h>

#include "search/partition/search_internal.h" /* declares the rows' functions, extra rows too */

static const lf_search_entry lf__rows[] = {
#define LF_SEARCH_PLAN(n, a, fn, h) {#n, a, h, LF_SEARCH_KIND_PLAN, fn},
#define LF_SEARCH_BUDGET(n, a, fn, h) {#n, a, h, LF_SEARCH_KIND_BUDGET, NULL},
#define LF_SEARCH_EXACT(n, a, h) {#n, a, h, LF_SEARCH_KIND_EXACT, NULL},
#include "search/partition/searches.def"
#undef LF_SEARCH_PLAN
#undef LF_SEARCH_BUDGET
#undef LF_SEARCH_EXACT
};

/* The budgeted rows' entry points, row for row (lf__search is internal, so
 * not in the public entry). */
static const lf__search_fn lf__runs[] = {
#define LF_SEARCH_PLAN(n, a, fn, h) NULL,
#define LF_SEARCH_BUDGET(n, a, fn, h) fn,
#define LF_SEARCH_EXACT(n, a, h) NULL,
#include "search/partition/searches.def"
#undef LF_SEARCH_PLAN
#undef LF_SEARCH_BUDGET
#undef LF_SEARCH_EXACT
};
#define LF__N_ROWS ((int)(sizeof lf__rows / sizeof lf__rows[0]))

static const char *const lf__all[] = {
#define LF_SEARCH_PLAN(n, a, fn, h) #n,
#define LF_SEARCH_BUDGET(n, a, fn, h) #n,
#define LF_SEARCH_EXACT(n, a, h) #n,
#include "search/partition/searches.def"
#undef LF_SEARCH_PLAN
#undef LF_SEARCH_BUDGET
#undef LF_SEARCH_EXACT
    NULL};

static const char *const lf__budgeted[] = {
#define LF_SEARCH_PLAN(n, a, fn, h)
#define LF_SEARCH_BUDGET(n, a, fn, h) #n,
#define LF_SEARCH_EXACT(n, a, h)
#include "search/partition/searches.def"
#undef LF_SEARCH_PLAN
#undef LF_SEARCH_BUDGET
#undef LF_SEARCH_EXACT
    NULL};

const lf_search_entry *lf_search_table(int *n)
{
    *n = LF__N_ROWS;
    return lf__rows;
}

const char *const *lf_search_names(int budgeted) { return budgeted ? lf__budgeted : lf__all; }

/* 1 when `name` is one of the comma-separated aliases. */
static int lf__alias_of(const char *aliases, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = aliases; *p;) {
        size_t l = strcspn(p, ",");
        if (l == len && strncmp(p, name, len) == 0)
            return 1;
        p += l + (p[l] == ',');
    }
    return 0;
}

static int lf__find(const char *name)
{
    for (int i = 0; name && i < LF__N_ROWS; i++)
        if (strcmp(lf__rows[i].name, name) == 0 || lf__alias_of(lf__rows[i].aliases, name))
            return i;
    return -1;
}

const lf_search_entry *lf_search_find(const char *name)
{
    int i = lf__find(name);
    return i < 0 ? NULL : &lf__rows[i];
}

lf__search_fn lf__search_budget_fn(const char *name)
{
    int i = lf__find(name);
    return i < 0 ? NULL : lf__runs[i];
}

const char *lf_search_aliases_format(char *buf, size_t len)
{
    int count = 0, k = 0;
    size_t used = 0;
    for (int i = 0; i < LF__N_ROWS; i++)
        count += lf__rows[i].kind == LF_SEARCH_KIND_BUDGET;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < LF__N_ROWS && used < len; i++) {
        const lf_search_entry *e = &lf__rows[i];
        if (e->kind != LF_SEARCH_KIND_BUDGET)
            continue;
        const char *sep = k == 0 ? "" : k == count - 1 ? " or " : ", ";
        int w = *e->aliases ? snprintf(buf + used, len - used, "%s%s (", sep, e->name)
                            : snprintf(buf + used, len - used, "%s%s", sep, e->name);
        for (const char *p = e->aliases; w >= 0 && *p;) {
            used += (size_t)w;
            size_t l = strcspn(p, ",");
            w = used < len ? snprintf(buf + used, len - used, "%.*s%s", (int)l, p, p[l] ? ", " : ")")
                           : -1;
            p += l + (p[l] == ',');
        }
        if (w < 0 || (used += (size_t)w) >= len)
            break;
        k++;
    }
    return buf;
}

/* Rule sets: the built-in table and/or TASO's generated rules, each with its
 * verification result (a rule that fails is disabled, never used). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/weights_dir.h"
#include "planner/util/fileio.h"
#include "search/subst/subst_internal.h"

lf_status lf_subst_generated_path(char *out, size_t len)
{
    return lf_weights_find(LF_SUBST_GENERATED_FILE, out, len);
}

/* Loads the generated rules of path (NULL: the shipped file). */
static lf_status lf__load_generated(const char *path, lf__taso_rules **out)
{
    char found[4400];
    if (!path) {
        lf_status st = lf_subst_generated_path(found, sizeof found);
        if (st)
            return st;
        path = found;
    }
    char *data = NULL;
    long len = 0;
    lf_status st = lf_read_file_capped(path, (int64_t)64 << 20, "generated rule file", &data, &len);
    if (st)
        return st;
    lf_taso_stats ts;
    st = lf__taso_load_mem((const uint8_t *)data, (size_t)len, path, "gen", "generated", out, &ts);
    free(data);
    if (!st && ts.mapped != ts.loaded) {
        lf__taso_free(*out);
        *out = NULL;
        return lf_set_error(LF_EPARSE, "%s: %d of its %d rules do not map onto the IR (not a generated rule set)",
                            path, (int)(ts.loaded - ts.mapped), (int)ts.loaded);
    }
    return st;
}

/* The rule sources, one row each: X(NAME, takes "=FILE"), in the order
 * their rules are numbered in a set and help texts list them. The names
 * reach the registry (lf_names(LF_NAMES_RULES)) and the messages from here;
 * each source's loading is its branch in lf_subst_ruleset_open. */
#define LF__RULE_SOURCES(X) X(builtin, 0) X(taso, 0) X(generated, 1)

enum {
#define LF__ENUM(n, f) LF__SRC_##n,
    LF__RULE_SOURCES(LF__ENUM) LF__N_SOURCES
#undef LF__ENUM
};
static const struct {
    const char *name;
    int file;
} lf__sources[] = {
#define LF__ROW(n, f) {#n, f},
    LF__RULE_SOURCES(LF__ROW)
#undef LF__ROW
};
static const char *const lf__source_names[] = {
#define LF__NAME(n, f) #n,
    LF__RULE_SOURCES(LF__NAME)
#undef LF__NAME
        NULL};

const char *const *lf_subst_rule_sources(void) { return lf__source_names; }

/* The source row of one item of a spec ("generated=FILE": *file gets FILE),
 * -1 when none. */
static int lf__source(const char *tok, const char **file)
{
    *file = NULL;
    for (int i = 0; i < LF__N_SOURCES; i++) {
        size_t n = strlen(lf__sources[i].name);
        if (strncmp(tok, lf__sources[i].name, n) != 0)
            continue;
        if (tok[n] == '\0')
            return i;
        if (lf__sources[i].file && tok[n] == '=' && tok[n + 1]) {
            *file = tok + n + 1;
            return i;
        }
    }
    return -1;
}

lf_status lf_subst_ruleset_open(lf_subst_ruleset *rs, const char *spec, const char *taso_path)
{
    memset(rs, 0, sizeof *rs);
    int on[LF__N_SOURCES] = {0};
    const char *gen_path = NULL;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", spec && *spec ? spec : "builtin");
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const char *file;
        int i = lf__source(tok, &file);
        if (i < 0) {
            char list[128] = "";
            for (int k = 0, used = 0; k < LF__N_SOURCES && used < (int)sizeof list; k++)
                used += snprintf(list + used, sizeof list - (size_t)used, "%s%s%s%s%s", k ? ", " : "",
                                 lf__sources[k].name, lf__sources[k].file ? ", " : "",
                                 lf__sources[k].file ? lf__sources[k].name : "",
                                 lf__sources[k].file ? "=FILE" : "");
            return lf_set_error(LF_EINVAL, "unknown rule source '%s' (%s)", tok, list);
        }
        on[i] = 1;
        if (i == LF__SRC_generated)
            gen_path = file;
    }
    int builtin = on[LF__SRC_builtin], taso = on[LF__SRC_taso], generated = on[LF__SRC_generated];
    int32_t nb = 0, nt = 0, ng = 0;
    const lf_subst_rule *b = builtin ? lf_subst_builtin_rules(&nb) : NULL;
    if (taso) {
        lf__taso_rules *t = NULL;
        if (!(rs->taso = calloc(1, sizeof *rs->taso)))
            return lf_set_error(LF_ENOMEM, "rule set: out of memory");
        lf_status st = lf__taso_load(taso_path, &t, rs->taso);
        if (st) {
            lf_subst_ruleset_close(rs);
            return st;
        }
        rs->loaded_ = t;
        nt = lf__taso_count(t);
    }
    if (generated) {
        lf__taso_rules *g = NULL;
        lf_status st = lf__load_generated(gen_path, &g);
        if (st) {
            lf_subst_ruleset_close(rs);
            return st;
        }
        rs->generated_ = g;
        ng = lf__taso_count(g);
    }
    int32_t n = nb + nt + ng;
    rs->rule = calloc((size_t)(n ? n : 1), sizeof *rs->rule);
    rs->enabled = calloc((size_t)(n ? n : 1), sizeof *rs->enabled);
    rs->why = calloc((size_t)(n ? n : 1), sizeof *rs->why);
    if (!rs->rule || !rs->enabled || !rs->why) {
        lf_subst_ruleset_close(rs);
        return lf_set_error(LF_ENOMEM, "rule set: out of memory");
    }
    for (int32_t i = 0; i < nb; i++)
        rs->rule[i] = &b[i];
    for (int32_t i = 0; i < nt; i++)
        rs->rule[nb + i] = lf__taso_rule(rs->loaded_, i);
    for (int32_t i = 0; i < ng; i++)
        rs->rule[nb + nt + i] = lf__taso_rule(rs->generated_, i);
    for (int32_t i = 0; i < n; i++)
        rs->enabled[i] = 1;
    rs->n = n;
    rs->n_builtin = nb;
    rs->n_generated = ng;
    return LF_OK;
}

void lf_subst_ruleset_close(lf_subst_ruleset *rs)
{
    if (!rs)
        return;
    for (int32_t i = 0; rs->why && i < rs->n; i++)
        free(rs->why[i]);
    free(rs->why);
    free(rs->rule);
    free(rs->enabled);
    lf__taso_free(rs->loaded_);
    lf__taso_free(rs->generated_);
    free(rs->taso);
    memset(rs, 0, sizeof *rs);
}

lf_status lf_subst_ruleset_verify(lf_subst_ruleset *rs, int32_t *failed)
{
    int32_t bad = 0;
    for (int32_t i = 0; i < rs->n; i++) {
        int ok = 0;
        char why[512];
        lf_status st = lf_subst_verify(rs->rule[i], &ok, why, sizeof why);
        if (st)
            return st;
        free(rs->why[i]);
        if (!(rs->why[i] = strdup(why)))
            return lf_set_error(LF_ENOMEM, "rule set: out of memory");
        rs->enabled[i] = ok;
        bad += !ok;
    }
    if (failed)
        *failed = bad;
    return LF_OK;
}

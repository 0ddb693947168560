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

lf_status lf_subst_ruleset_open(lf_subst_ruleset *rs, const char *spec, const char *taso_path)
{
    memset(rs, 0, sizeof *rs);
    int builtin = 0, taso = 0, generated = 0;
    const char *gen_path = NULL;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", spec && *spec ? spec : "builtin");
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "builtin") == 0)
            builtin = 1;
        else if (strcmp(tok, "taso") == 0)
            taso = 1;
        else if (strcmp(tok, "generated") == 0)
            generated = 1, gen_path = NULL;
        else if (strncmp(tok, "generated=", 10) == 0 && tok[10])
            generated = 1, gen_path = tok + 10;
        else
            return lf_set_error(LF_EINVAL, "unknown rule source '%s' (builtin, generated, generated=FILE, taso)", tok);
    }
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

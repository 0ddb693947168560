/* Rule sets: the built-in table and/or TASO's generated rules, each with its
 * verification result (a rule that fails is disabled, never used). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/subst/subst_internal.h"

lf_status lf_subst_ruleset_open(lf_subst_ruleset *rs, const char *spec, const char *taso_path)
{
    memset(rs, 0, sizeof *rs);
    int builtin = 0, taso = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec && *spec ? spec : "builtin");
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "builtin") == 0)
            builtin = 1;
        else if (strcmp(tok, "taso") == 0)
            taso = 1;
        else
            return lf_set_error(LF_EINVAL, "unknown rule source '%s' (builtin, taso)", tok);
    }
    int32_t nb = 0, nt = 0;
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
    int32_t n = nb + nt;
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
    for (int32_t i = 0; i < n; i++)
        rs->enabled[i] = 1;
    rs->n = n;
    rs->n_builtin = nb;
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

/* plan --search exact --upper-bound VALUE | --upper-bound-plan FILE: the
 * exact planner's branch and bound (lf_exact_config.upper_bound, exact.h)
 * from the command line. The value is the objective's figure over fusable
 * ops, in the unit the CLI prints its certified bounds in: bytes (a size
 * as --buffer takes it, or a bare integer, thousands separated by commas as
 * printed), fJ or fs, or under energy and latency a decimal with a unit,
 * rounded up to the fJ or fs: a bound rounded up still admits every plan
 * the exact value admits, so a plan costing exactly the figure is found. */
#include "planner/app/cli/exact_opts.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "planner/cost/objective.h"
#include "planner/io/plan_read.h"

/* A bare integer, commas allowed only as thousands separators (the CLI's
 * own figures, lf_format_commas): 16584601 or 16,584,601. 0 when text is
 * not one or overflows. */
static int lf__bare_integer(const char *text, int64_t *out)
{
    int64_t v = 0;
    int digits = 0, group = -1; /* digits since the last comma; -1: no comma yet */
    for (const char *c = text; *c; c++) {
        if (*c == ',') {
            if (digits == 0 || (group >= 0 && group != 3) || (group < 0 && digits > 3))
                return 0;
            group = 0;
            continue;
        }
        if (!isdigit((unsigned char)*c))
            return 0;
        if (v > (INT64_MAX - 9) / 10)
            return 0;
        v = v * 10 + (*c - '0');
        digits++;
        if (group >= 0)
            group++;
    }
    if (digits == 0 || (group >= 0 && group != 3))
        return 0;
    *out = v;
    return 1;
}

/* A decimal with one of units[] (10^(3 i) times the base unit), rounded up
 * to the base unit: "1.5mJ" is 1,500,000,000,000 fJ. 0 when text is not one. */
static int lf__decimal_with_unit(const char *text, const char *const *units, int64_t *out)
{
    const char *c = text;
    int64_t whole = 0;
    int frac_digits = 0, digits = 0;
    for (; isdigit((unsigned char)*c); c++, digits++) {
        if (whole > (INT64_MAX - 9) / 10)
            return 0;
        whole = whole * 10 + (*c - '0');
    }
    const char *frac_start = NULL;
    if (*c == '.')
        for (frac_start = ++c; isdigit((unsigned char)*c); c++, digits++)
            frac_digits++;
    if (digits == 0)
        return 0;
    while (*c == ' ')
        c++;
    int exp3 = -1;
    for (int i = 0; units[i]; i++)
        if (strcmp(c, units[i]) == 0)
            exp3 = i;
    if (exp3 < 0)
        return 0;
    /* value = (whole + 0.frac) * 10^(3 exp3), exactly, then rounded up. */
    int64_t scale = 1;
    for (int i = 0; i < 3 * exp3; i++)
        scale *= 10;
    if (whole > (INT64_MAX - scale) / scale)
        return 0; /* the fraction adds less than one more scale */
    int64_t v = whole * scale, up = 0;
    int64_t place = scale;
    for (int i = 0; i < frac_digits; i++) {
        int d = frac_start[i] - '0';
        if (place >= 10) {
            place /= 10;
            v += d * place;
        } else if (d) {
            up = 1; /* a digit below the base unit */
        }
    }
    *out = v + up;
    return 1;
}

int lf_cli_upper_bound(const lf_cli_command *cmd, const char *objective, int64_t *out)
{
    *out = 0;
    const char *t = lf_cli_get(cmd, "upper-bound");
    if (!t)
        return 0;
    static const char *const joules[] = {"fJ", "pJ", "nJ", "uJ", "mJ", "J", NULL};
    static const char *const seconds[] = {"fs", "ps", "ns", "us", "ms", "s", NULL};
    lf_plan_objective o = lf_plan_objective_from_name(objective);
    int64_t v = 0;
    int ok = lf__bare_integer(t, &v);
    if (!ok && o == LF_PLAN_OBJ_DRAM) {
        ok = lf_hw_parse_size(t, &v) == LF_OK;
        lf_clear_error();
    } else if (!ok) {
        ok = lf__decimal_with_unit(t, o == LF_PLAN_OBJ_ENERGY ? joules : seconds, &v);
    }
    if (!ok || v <= 0)
        return lf_cli_usage_error(
            cmd, "--upper-bound expects a positive %s figure over fusable ops, %s; got '%s'",
            o == LF_PLAN_OBJ_DRAM ? "DRAM" : lf_plan_objective_name(o),
            o == LF_PLAN_OBJ_DRAM ? "in bytes (16584601, 16,584,601) or a size (16MB)"
            : o == LF_PLAN_OBJ_ENERGY ? "in fJ (integer) or with a unit (fJ, pJ, nJ, uJ, mJ, J)"
                                      : "in fs (integer) or with a unit (fs, ps, ns, us, ms, s)",
            t);
    *out = v;
    return 0;
}

int lf_cli_upper_bound_plan(const lf_cli_command *cmd, lf_cost_model *cm, const char *objective,
                            int64_t *out)
{
    const char *file = lf_cli_get(cmd, "upper-bound-plan");
    if (!file)
        return 0;
    lf_plan_doc doc;
    lf_status st = lf_plan_doc_read(&doc, file);
    /* Only its partition counts: figures written under another buffer,
     * scheme or objective are recomputed below (validate's discrepancies are
     * not errors here), but it must be a plan of this graph. */
    int32_t n_issues = 0;
    if (st == LF_OK)
        st = lf_plan_validate(&doc, cm, NULL, NULL, &n_issues);
    lf_plan p;
    memset(&p, 0, sizeof p);
    lf_plan_metrics m;
    lf_plan_objective o = lf_plan_objective_from_name(objective), was = lf_cost_objective(cm);
    int checked = 0; /* the reader's messages name the file, the checks' do not */
    if (st == LF_OK && (st = lf_plan_copy(&p, &doc.plan)) == LF_OK) {
        lf_plan_canonicalize(&p);
        checked = 1;
        if ((st = lf_cost_set_objective(cm, o)) == LF_OK && (st = lf_plan_check(&p, cm)) == LF_OK)
            st = lf_plan_metrics_compute(&p, cm, &m);
        lf_cost_set_objective(cm, was);
    }
    lf_plan_destroy(&p);
    lf_plan_doc_destroy(&doc);
    if (st != LF_OK) {
        if (checked)
            fprintf(stderr, "fusionplan: --upper-bound-plan: %s is not a valid plan here: %s\n", file,
                    lf_last_error());
        else
            fprintf(stderr, "fusionplan: --upper-bound-plan: %s\n", lf_last_error());
        return LF_EXIT_FAIL;
    }
    *out = m.objective > 0 ? m.objective : 1; /* 0 would mean no bound */
    return 0;
}

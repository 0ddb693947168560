/* Numeric verification (DESIGN §11): a rule is used only if its target
 * computes what its source computes. Each example graph (inputs and constants
 * with values, shapes meeting the rule's constraints) is rewritten at the
 * rule's first match and both graphs run through the reference executor on
 * the same inputs; outputs are paired by name (mapped ops keep their names). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "planner/exec/exec.h"
#include "search/subst/subst.h"

lf_status lf_subst_compare(const lf_graph *a, const lf_graph *b, uint64_t seed, double tol,
                           double *max_err)
{
    lf_exec_options eo = {seed, 1, 0};
    lf_exec *ea = NULL, *eb = NULL;
    double worst = 0.0;
    lf_status st = lf_exec_create(&ea, a, &eo);
    if (!st)
        st = lf_exec_create(&eb, b, &eo);
    if (!st)
        st = lf_exec_run(ea);
    if (!st)
        st = lf_exec_run(eb);
    int32_t outs_a = 0, outs_b = 0;
    for (int32_t v = 0; !st && v < a->n_ops; v++)
        outs_a += a->ops[v].is_output != 0;
    for (int32_t v = 0; !st && v < b->n_ops; v++) {
        if (!b->ops[v].is_output)
            continue;
        outs_b++;
        int32_t u = lf_graph_find(a, b->ops[v].name);
        lf_shape sa, sb;
        const float *xa = u >= 0 ? lf_exec_output(ea, u, &sa) : NULL;
        const float *xb = lf_exec_output(eb, v, &sb);
        if (!xa || !xb || memcmp(&sa, &sb, sizeof sa) != 0) {
            st = lf_set_error(LF_EGRAPH, "output '%s' has no counterpart of its shape in the original",
                              b->ops[v].name);
            break;
        }
        int64_t n = lf_shape_count(sb);
        for (int64_t i = 0; i < n; i++) {
            double d = fabs((double)xa[i] - (double)xb[i]) / fmax(1.0, fabs((double)xa[i]));
            if (!(d <= worst)) /* NaN counts as the worst */
                worst = isnan(d) ? INFINITY : d;
        }
        if (worst > tol) {
            st = lf_set_error(LF_EGRAPH, "output '%s' differs: relative error %.3g > %.1g",
                              b->ops[v].name, worst, tol);
            break;
        }
    }
    if (!st && outs_a != outs_b)
        st = lf_set_error(LF_EGRAPH, "%d outputs after the rewrite, %d before", (int)outs_b, (int)outs_a);
    lf_exec_free(ea);
    lf_exec_free(eb);
    if (max_err)
        *max_err = worst;
    return st;
}

lf_status lf_subst_verify(const lf_subst_rule *r, int *ok, char *why, size_t why_len)
{
    *ok = 0;
    if (!r->example) {
        snprintf(why, why_len, "no example generator for its shapes");
        return LF_OK;
    }
    for (int32_t k = 0; k < 3; k++) {
        lf_graph_builder *b = NULL;
        lf_graph *src = NULL, *dst = NULL;
        lf_subst_matches ms = {0, 0, NULL};
        lf_status st = lf_graph_builder_create(&b, r->name);
        if (st)
            return st;
        lf_graph_builder_set_folder(b, lf_exec_fold, NULL);
        st = r->example(r, k, b);
        if (!st)
            st = lf_graph_builder_build(b, &src);
        lf_graph_builder_free(b);
        if (!st)
            st = lf_subst_find(src, r, &ms);
        if (st == LF_ENOMEM) {
            lf_graph_free(src);
            lf_subst_matches_free(&ms);
            return st;
        }
        if (st)
            snprintf(why, why_len, "example %d: %s", (int)k, lf_last_error());
        else if (ms.n == 0)
            snprintf(why, why_len, "example %d: the source pattern does not match its own example", (int)k);
        else if ((st = lf_subst_apply(src, r, &ms.m[0], &dst)))
            snprintf(why, why_len, "example %d: target not built: %s", (int)k, lf_last_error());
        else if ((st = lf_subst_compare(src, dst, (uint64_t)k + 1, 1e-4, NULL)))
            snprintf(why, why_len, "example %d: %s", (int)k, lf_last_error());
        int failed = st != LF_OK || ms.n == 0;
        lf_graph_free(src);
        lf_graph_free(dst);
        lf_subst_matches_free(&ms);
        if (failed)
            return LF_OK;
    }
    *ok = 1;
    snprintf(why, why_len, "ok");
    return LF_OK;
}

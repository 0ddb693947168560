/* The curve's figures per step (its plan's metrics and the layer-by-layer
 * reference at the step's buffer) and its reports. */
#include "search/sweep/curve_report.h"

#include <stdlib.h>
#include <string.h>

#include "planner/cost/cost.h"
#include "planner/cost/objective.h"
#include "planner/io/svg_chart.h"
#include "planner/util/format.h"
#include "search/partition/simple.h"

lf_status lf_curve_report_compute(lf_curve_report *r, const lf_graph *g, const char *model,
                                  const lf_hw *hw, const char *scheme, int64_t lo, int64_t hi,
                                  const lf_exact_config *ec)
{
    memset(r, 0, sizeof *r);
    r->model = model;
    r->scheme = scheme;
    r->objective = ec ? ec->objective : 0;
    lf_status st = lf_curve_compute(g, hw, scheme, lo, hi, ec, &r->curve);
    if (st != LF_OK)
        return st;
    const lf_curve *c = &r->curve;
    r->metrics = calloc((size_t)c->n + 1, sizeof *r->metrics);
    r->layer_all = calloc((size_t)c->n + 1, sizeof *r->layer_all);
    if (!r->metrics || !r->layer_all)
        return lf_set_error(LF_ENOMEM, "out of memory");
    /* One model, its buffer moved from step to step (by ascending buffers:
     * lf_cost_model_rebuffer prices again only the ops not yet fusable),
     * where a model made at each step cost gpt2_medium's energy staircase
     * half its time (docs/results/energy.md). */
    lf_cost_model *cm = NULL;
    /* The ops alone priced once per step: every op unfusable there is alone
     * in the step's plan and in the layer-by-layer plan (gpt2_medium LBDF
     * energy: lf_cost_unfusable_dram was a tenth of the run, twice per
     * step; docs/results/energy.md). */
    lf_plan_alone *alone = NULL;
    st = lf_plan_alone_create(&alone, g->n_ops);
    for (int32_t k = 0; k < c->n && st == LF_OK; k++) {
        if (!cm) {
            lf_hw h = *hw;
            if (r->objective != 0)
                lf_curve_fix_sram(&h);
            h.buffer_bytes = c->points[k].beta;
            st = lf_cost_model_create(&cm, g, &h, scheme);
            if (st == LF_OK)
                st = lf_cost_set_objective(cm, (lf_plan_objective)r->objective);
        } else {
            st = lf_cost_model_rebuffer(cm, c->points[k].beta);
        }
        if (st == LF_OK)
            st = lf_plan_metrics_compute_alone(&c->points[k].plan, cm, alone, &r->metrics[k]);
        if (st == LF_OK && r->metrics[k].objective_all != c->points[k].dram_all)
            st = lf_set_error(LF_EPLAN, "curve: internal error: the plan at %lld B costs %lld %s, "
                                        "not %lld",
                              (long long)c->points[k].beta, (long long)r->metrics[k].objective_all,
                              lf_plan_objective_unit((lf_plan_objective)r->objective),
                              (long long)c->points[k].dram_all);
        /* Layer by layer at the same buffer (unfusable ops stream their weights). */
        lf_plan lp;
        lf_plan_metrics lm;
        if (st == LF_OK && (st = lf_plan_layer(cm, &lp)) == LF_OK) {
            st = lf_plan_metrics_compute_alone(&lp, cm, alone, &lm);
            r->layer_all[k] = lm.objective_all;
            lf_plan_destroy(&lp);
        }
    }
    lf_plan_alone_free(alone);
    lf_cost_model_free(cm);
    return st;
}

void lf_curve_report_destroy(lf_curve_report *r)
{
    free(r->metrics);
    free(r->layer_all);
    lf_curve_destroy(&r->curve);
    memset(r, 0, sizeof *r);
}

/* What the staircase's figures are: name, unit, the large unit and its scale. */
static void lf__what(const lf_curve_report *r, const char **name, const char **unit, const char **big,
                     double *scale)
{
    static const char *const names[] = {"DRAM", "energy", "latency"}, *const bigs[] = {"MB", "uJ", "us"};
    int o = r->objective >= 0 && r->objective < 3 ? r->objective : 0;
    *name = names[o];
    *unit = lf_plan_objective_unit((lf_plan_objective)o);
    *big = bigs[o];
    *scale = o == 0 ? 1e6 : 1e9;
}

void lf_curve_report_print(FILE *f, const lf_curve_report *r, int64_t lo, int64_t hi)
{
    const lf_curve *c = &r->curve;
    const char *what, *unit, *big;
    double scale;
    lf__what(r, &what, &unit, &big, &scale);
    char col1[32], col2[32];
    snprintf(col1, sizeof col1, "%s all (%s)", what, unit);
    snprintf(col2, sizeof col2, "%s (%s)", what, big);
    char los[32], his[32];
    lf_hw_format_size(lo, los, sizeof los);
    lf_hw_format_size(hi, his, sizeof his);
    fprintf(f, "%s %s: optimal %s over all ops from %s to %s in %d steps; %lld downsets, %lld "
               "candidate sets, %lld groups priced, %lld front points; wall %.3f s\n\n",
            r->model, r->scheme, what, los, his, (int)c->n, (long long)c->stats.states,
            (long long)c->stats.candidates, (long long)(c->stats.groups - c->stats.groups_skipped),
            (long long)c->front_points,
            c->stats.wall_s);
    fprintf(f, "%14s %16s %11s %7s %10s %12s %9s\n", "from buffer", col1, col2,
            "groups", "unfusable", "MBU (B)", "vs layer");
    for (int32_t k = 0; k < c->n; k++) {
        char b[32], d[32], u[32];
        const lf_plan_metrics *m = &r->metrics[k];
        lf_format_commas(c->points[k].beta, b, sizeof b);
        lf_format_commas(c->points[k].dram_all, d, sizeof d);
        lf_format_commas(m->mbu, u, sizeof u);
        fprintf(f, "%14s %16s %11.3f %7d %10d %12s %8.1f%%\n", b, d, (double)c->points[k].dram_all / scale,
                (int)m->n_groups, (int)m->n_unfusable, u,
                r->layer_all[k] > 0 ? 100.0 * (double)(c->points[k].dram_all - r->layer_all[k]) /
                                          (double)r->layer_all[k]
                                    : 0.0);
    }
}

void lf_curve_report_csv(FILE *f, const lf_curve_report *r)
{
    const lf_curve *c = &r->curve;
    fprintf(f, "model,scheme,buffer_from,dram_all,groups,unfusable,mbu,layer_dram_all\n");
    for (int32_t k = 0; k < c->n; k++)
        fprintf(f, "%s,%s,%lld,%lld,%d,%d,%lld,%lld\n", r->model, r->scheme,
                (long long)c->points[k].beta, (long long)c->points[k].dram_all,
                (int)r->metrics[k].n_groups, (int)r->metrics[k].n_unfusable,
                (long long)r->metrics[k].mbu, (long long)r->layer_all[k]);
}

void lf_curve_report_json(FILE *f, const lf_curve_report *r)
{
    const lf_curve *c = &r->curve;
    fprintf(f, "{\n  \"model\": \"%s\",\n  \"scheme\": \"%s\",\n", r->model, r->scheme);
    if (r->objective != 0) /* only when not the default: dram_all holds its figure */
        fprintf(f, "  \"objective\": \"%s\",\n  \"unit\": \"%s\",\n",
                lf_plan_objective_name((lf_plan_objective)r->objective),
                lf_plan_objective_unit((lf_plan_objective)r->objective));
    fprintf(f, "  \"min\": %lld,\n  \"max\": %lld,\n  \"points\": [", (long long)c->beta_min,
            (long long)c->beta_max);
    for (int32_t k = 0; k < c->n; k++) {
        const lf_plan *p = &c->points[k].plan;
        const lf_plan_metrics *m = &r->metrics[k];
        fprintf(f, "%s\n    {\"buffer_from\": %lld, \"dram_all\": %lld, \"groups\": %d, "
                   "\"unfusable\": %d, \"mbu\": %lld, \"layer_dram_all\": %lld, ",
                k ? "," : "", (long long)c->points[k].beta, (long long)c->points[k].dram_all,
                (int)m->n_groups, (int)m->n_unfusable, (long long)m->mbu, (long long)r->layer_all[k]);
        if (r->objective != 0)
            fprintf(f, "\"dram\": %lld, ", (long long)m->dram_all);
        fputs("\"group_of\": [", f);
        for (int32_t v = 0; v < p->n_ops; v++)
            fprintf(f, "%s%d", v ? ", " : "", (int)p->group_of[v]);
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ]\n}\n");
}

lf_status lf_curve_report_svg(FILE *f, const lf_curve_report *r)
{
    const lf_curve *c = &r->curve;
    const char *what, *unit, *big;
    double scale;
    lf__what(r, &what, &unit, &big, &scale);
    int32_t n = 2 * c->n + 1;
    double *x = malloc((size_t)n * 2 * sizeof(double));
    if (!x)
        return lf_set_error(LF_ENOMEM, "out of memory drawing the curve");
    double *y = x + n;
    int32_t j = 0;
    for (int32_t k = 0; k < c->n; k++) {
        if (k > 0) {
            x[j] = (double)c->points[k].beta / 1024.0;
            y[j++] = (double)c->points[k - 1].dram_all / scale;
        }
        x[j] = (double)c->points[k].beta / 1024.0;
        y[j++] = (double)c->points[k].dram_all / scale;
    }
    x[j] = (double)c->beta_max / 1024.0;
    y[j++] = (double)c->points[c->n - 1].dram_all / scale;
    char title[160], label[96], axis[64];
    snprintf(title, sizeof title, "%s, %s: optimal %s against the buffer", r->model, r->scheme, what);
    snprintf(axis, sizeof axis, "%s over all ops (%s)", what, big);
    snprintf(label, sizeof label, "%s %s optimum", r->model, r->scheme);
    lf_chart_series s = {label, x, y, j};
    lf_chart ch = {title, "buffer (KB)", axis, 1, 0, 0, &s, 1, 0};
    char *svg = NULL;
    lf_status st = lf_chart_svg(&ch, &svg);
    if (st == LF_OK)
        fputs(svg, f);
    free(svg);
    free(x);
    return st;
}

/* fusionplan curve: the optimal DRAM over all ops at every buffer size in a
 * range, as a staircase computed in one run (planner/exact/curve.h), with a
 * table, CSV, JSON (each step's plan as group_of) and an SVG step chart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/cli/exact_opts.h"
#include "planner/exact/curve.h"
#include "planner/io/svg_chart.h"
#include "planner/plan.h"
#include "planner/util/fileio.h"
#include "search/partition/simple.h"

static void lf__write_csv(FILE *f, const char *model, const char *scheme, const lf_curve *c,
                          const lf_plan_metrics *m, const int64_t *layer)
{
    fprintf(f, "model,scheme,buffer_from,dram_all,groups,unfusable,mbu,layer_dram_all\n");
    for (int32_t k = 0; k < c->n; k++)
        fprintf(f, "%s,%s,%lld,%lld,%d,%d,%lld,%lld\n", model, scheme, (long long)c->points[k].beta,
                (long long)c->points[k].dram_all, (int)m[k].n_groups, (int)m[k].n_unfusable,
                (long long)m[k].mbu, (long long)layer[k]);
}

static void lf__write_json(FILE *f, const char *model, const char *scheme, const lf_curve *c,
                           const lf_plan_metrics *m, const int64_t *layer)
{
    fprintf(f, "{\n  \"model\": \"%s\",\n  \"scheme\": \"%s\",\n  \"min\": %lld,\n  \"max\": %lld,\n"
               "  \"points\": [",
            model, scheme, (long long)c->beta_min, (long long)c->beta_max);
    for (int32_t k = 0; k < c->n; k++) {
        const lf_plan *p = &c->points[k].plan;
        fprintf(f, "%s\n    {\"buffer_from\": %lld, \"dram_all\": %lld, \"groups\": %d, "
                   "\"unfusable\": %d, \"mbu\": %lld, \"layer_dram_all\": %lld, \"group_of\": [",
                k ? "," : "", (long long)c->points[k].beta, (long long)c->points[k].dram_all,
                (int)m[k].n_groups, (int)m[k].n_unfusable, (long long)m[k].mbu, (long long)layer[k]);
        for (int32_t v = 0; v < p->n_ops; v++)
            fprintf(f, "%s%d", v ? ", " : "", (int)p->group_of[v]);
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ]\n}\n");
}

/* The staircase as a line through (beta_k, DRAM_{k-1}) and (beta_k, DRAM_k). */
static lf_status lf__write_svg(FILE *f, const char *model, const char *scheme, const lf_curve *c)
{
    int32_t n = 2 * c->n + 1;
    double *x = malloc((size_t)n * 2 * sizeof(double));
    if (!x)
        return lf_set_error(LF_ENOMEM, "out of memory drawing the curve");
    double *y = x + n;
    int32_t j = 0;
    for (int32_t k = 0; k < c->n; k++) {
        if (k > 0) {
            x[j] = (double)c->points[k].beta / 1024.0;
            y[j++] = (double)c->points[k - 1].dram_all / 1e6;
        }
        x[j] = (double)c->points[k].beta / 1024.0;
        y[j++] = (double)c->points[k].dram_all / 1e6;
    }
    x[j] = (double)c->beta_max / 1024.0;
    y[j++] = (double)c->points[c->n - 1].dram_all / 1e6;
    char title[160], label[96];
    snprintf(title, sizeof title, "%s, %s: optimal DRAM against the buffer", model, scheme);
    snprintf(label, sizeof label, "%s %s optimum", model, scheme);
    lf_chart_series s = {label, x, y, j};
    lf_chart ch = {title, "buffer (KB)", "DRAM over all ops (MB)", 1, 0, 0, &s, 1, 0};
    char *svg = NULL;
    lf_status st = lf_chart_svg(&ch, &svg);
    if (st == LF_OK)
        fputs(svg, f);
    free(svg);
    free(x);
    return st;
}

int lf_cmd_curve(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"min", "SIZE", "smallest buffer of the range (default 64KB)", NULL},
        {"max", "SIZE", "largest buffer of the range (default 4MB)", NULL},
        {"csv", "FILE", "write the steps as CSV", NULL},
        {"json", "FILE", "write the steps with each step's plan (group_of) as JSON", NULL},
        {"svg", "FILE", "draw the staircase as an SVG step chart", NULL},
        LF_CLI_EXACT_OPTS,
    };
    lf_cli_command cmd = {"curve", "The optimal DRAM at every buffer size, in one run.",
                          "curve [--model NAME] [--scheme lbdf|brr] [--min SIZE] [--max SIZE] "
                          "[--csv FILE] [--json FILE] [--svg FILE]",
                          "Prints every step of the optimal DRAM over all ops as a function of the "
                          "buffer size:\nthe smallest buffer at which each lower DRAM becomes "
                          "reachable, with its plan (the exact\nplanner's optimum at that buffer; "
                          "docs/search.md). Without options: resnet50, LBDF,\n64 KB to 4 MB.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    if (lf_cli_get(&cmd, "buffer"))
        return lf_cli_usage_error(&cmd, "curve covers a range of buffers: use --min and --max");
    int64_t range[2] = {64 * 1024, 4 * 1024 * 1024};
    const char *names[2] = {"min", "max"};
    for (int i = 0; i < 2; i++) {
        const char *v = lf_cli_get(&cmd, names[i]);
        if (v && lf_hw_parse_size(v, &range[i]) != LF_OK)
            return lf_cli_usage_error(&cmd, "--%s: %s", names[i], lf_last_error());
    }
    if (range[1] <= range[0])
        return lf_cli_usage_error(&cmd, "--max must be larger than --min");
    lf_exact_config ec;
    if ((rc = lf_cli_exact_config(&cmd, &ec)))
        return rc;
    /* Every output is opened before the work and committed all or none. */
    const char *paths[3] = {lf_cli_get(&cmd, "csv"), lf_cli_get(&cmd, "json"), lf_cli_get(&cmd, "svg")};
    lf_cli_session s;
    if ((rc = lf_cli_session_open(&s, &cmd)))
        return rc;
    lf_atomic_file af[3] = {{0}, {0}, {0}};
    lf_status st = LF_OK;
    for (int i = 0; i < 3 && st == LF_OK; i++)
        if (paths[i])
            st = lf_atomic_open(&af[i], paths[i]);
    lf_curve c = {0};
    if (st == LF_OK)
        st = lf_curve_compute(s.graph, &s.hw, lf_cost_scheme_name(s.cm), range[0], range[1], &ec, &c);
    lf_plan_metrics *m = st == LF_OK ? calloc((size_t)c.n, sizeof *m) : NULL;
    int64_t *layer = st == LF_OK ? calloc((size_t)c.n, sizeof *layer) : NULL;
    if (st == LF_OK && (!m || !layer))
        st = lf_set_error(LF_ENOMEM, "out of memory");
    for (int32_t k = 0; k < c.n && st == LF_OK; k++) {
        lf_hw hw = s.hw;
        hw.buffer_bytes = c.points[k].beta;
        lf_cost_model *cm = NULL;
        st = lf_cost_model_create(&cm, s.graph, &hw, lf_cost_scheme_name(s.cm));
        if (st == LF_OK)
            st = lf_plan_metrics_compute(&c.points[k].plan, cm, &m[k]);
        if (st == LF_OK && m[k].dram_all != c.points[k].dram_all)
            st = lf_set_error(LF_EPLAN, "curve: internal error: the plan at %lld B costs %lld B, "
                                        "not %lld B",
                              (long long)c.points[k].beta, (long long)m[k].dram_all,
                              (long long)c.points[k].dram_all);
        /* Layer by layer at the same buffer (unfusable ops stream their weights). */
        lf_plan lp;
        lf_plan_metrics lm;
        if (st == LF_OK && (st = lf_plan_layer(cm, &lp)) == LF_OK) {
            st = lf_plan_metrics_compute(&lp, cm, &lm);
            layer[k] = lm.dram_all;
            lf_plan_destroy(&lp);
        }
        lf_cost_model_free(cm);
    }
    const char *scheme = lf_cost_scheme_name(s.cm);
    if (st == LF_OK && paths[0])
        lf__write_csv(af[0].f, s.model_name, scheme, &c, m, layer);
    if (st == LF_OK && paths[1])
        lf__write_json(af[1].f, s.model_name, scheme, &c, m, layer);
    if (st == LF_OK && paths[2])
        st = lf__write_svg(af[2].f, s.model_name, scheme, &c);
    for (int i = 0; i < 3 && st == LF_OK; i++)
        if (paths[i])
            st = lf_atomic_commit(&af[i]);
    if (st != LF_OK) {
        for (int i = 0; i < 3; i++)
            lf_atomic_abort(&af[i]);
        free(m);
        free(layer);
        lf_curve_destroy(&c);
        lf_cli_session_close(&s);
        return lf_cli_fail(st);
    }
    char lo[32], hi[32];
    lf_hw_format_size(range[0], lo, sizeof lo);
    lf_hw_format_size(range[1], hi, sizeof hi);
    printf("%s %s: optimal DRAM over all ops from %s to %s in %d steps; %lld downsets, %lld "
           "candidate sets, %lld groups priced, %lld front points; wall %.3f s\n\n",
           s.model_name, scheme, lo, hi, (int)c.n, (long long)c.stats.states,
           (long long)c.stats.candidates, (long long)c.stats.groups, (long long)c.front_points,
           c.stats.wall_s);
    printf("%14s %16s %11s %7s %10s %12s %9s\n", "from buffer", "DRAM all (B)", "DRAM (MB)",
           "groups", "unfusable", "MBU (B)", "vs layer");
    for (int32_t k = 0; k < c.n; k++) {
        char b[32], d[32], u[32];
        lf_cli_commas(c.points[k].beta, b, sizeof b);
        lf_cli_commas(c.points[k].dram_all, d, sizeof d);
        lf_cli_commas(m[k].mbu, u, sizeof u);
        printf("%14s %16s %11.3f %7d %10d %12s %8.1f%%\n", b, d, (double)c.points[k].dram_all / 1e6,
               (int)m[k].n_groups, (int)m[k].n_unfusable, u,
               layer[k] > 0 ? 100.0 * (double)(c.points[k].dram_all - layer[k]) / (double)layer[k]
                            : 0.0);
    }
    free(m);
    free(layer);
    lf_curve_destroy(&c);
    lf_cli_session_close(&s);
    return LF_EXIT_OK;
}

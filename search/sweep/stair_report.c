/* The best-effort staircase's reports (stair_report.h). */
#include "search/sweep/stair_report.h"

#include <math.h>
#include <stdlib.h>

#include "planner/io/svg_chart.h"
#include "planner/util/format.h"

void lf_stair_report_print(FILE *f, const lf_stair *s, const char *model, const char *scheme)
{
    char los[32], his[32];
    lf_hw_format_size(s->beta_min, los, sizeof los);
    lf_hw_format_size(s->beta_max, his, sizeof his);
    int32_t at;
    double worst = lf_stair_worst_gap(s, &at);
    if (s->exact) {
        fprintf(f, "%s %s: optimal DRAM over all ops from %s to %s in %d steps, every one proven (the exact "
                   "staircase ended in %.3f s); wall %.3f s\n\n",
                model, scheme, los, his, (int)s->n, s->curve_s, s->wall_s);
    } else {
        char wb[32] = "";
        if (at >= 0)
            lf_hw_format_size(s->steps[at].beta, wb, sizeof wb);
        fprintf(f, "%s %s: best-effort DRAM over all ops from %s to %s at %d buffers, %d proven, worst gap "
                   "%.2f%%%s%s; wall %.3f s\n",
                model, scheme, los, his, (int)s->n, (int)lf_stair_proven(s), worst, at >= 0 ? " at " : "", wb,
                s->wall_s);
        fprintf(f, "the exact staircase stopped after %.3f s: %s\n\n", s->curve_s, s->stopped);
    }
    fprintf(f, "%14s %16s %16s %8s %7s %10s%s\n", s->exact ? "from buffer" : "buffer", "lower all (B)",
            "upper all (B)", "gap", "groups", "unfusable", s->exact ? "" : "  wall (s)  plan found at / lower from");
    for (int32_t k = 0; k < s->n; k++) {
        const lf_stair_step *t = &s->steps[k];
        char b[32], lo[32], up[32], fa[32], la[32];
        lf_format_commas(t->beta, b, sizeof b);
        lf_format_commas(t->lower, lo, sizeof lo);
        lf_format_commas(t->upper, up, sizeof up);
        lf_hw_format_size(t->found_at, fa, sizeof fa);
        lf_hw_format_size(t->lower_at, la, sizeof la);
        fprintf(f, "%14s %16s %16s %7.2f%% %7d %10d", b, lo, up, lf_stair_gap(s, k), (int)t->metrics.n_groups,
                (int)t->metrics.n_unfusable);
        /* Where the exact staircase ended every row is its own optimum. */
        if (!s->exact)
            fprintf(f, "  %8.1f  %s / %s%s", t->wall_s, fa, la,
                    t->solved ? "  optimal here" : t->lower == t->upper ? "  proven" : "");
        fputc('\n', f);
    }
    if (!s->exact)
        fprintf(f, "\nat every buffer from one row's to the next row's, the optimum is at least the next "
                   "row's lower and at most this row's upper\n");
}

void lf_stair_report_csv(FILE *f, const lf_stair *s, const char *model, const char *scheme)
{
    fprintf(f, "model,scheme,buffer,lower_all,upper_all,gap_pct,proven,groups,unfusable,found_at,lower_at\n");
    for (int32_t k = 0; k < s->n; k++) {
        const lf_stair_step *t = &s->steps[k];
        fprintf(f, "%s,%s,%lld,%lld,%lld,%.4f,%d,%d,%d,%lld,%lld\n", model, scheme, (long long)t->beta,
                (long long)t->lower, (long long)t->upper, lf_stair_gap(s, k), t->lower == t->upper,
                (int)t->metrics.n_groups, (int)t->metrics.n_unfusable, (long long)t->found_at,
                (long long)t->lower_at);
    }
}

void lf_stair_report_json(FILE *f, const lf_stair *s, const char *model, const char *scheme)
{
    int32_t at;
    double worst = lf_stair_worst_gap(s, &at);
    fprintf(f, "{\n  \"model\": \"%s\",\n  \"scheme\": \"%s\",\n  \"min\": %lld,\n  \"max\": %lld,\n", model,
            scheme, (long long)s->beta_min, (long long)s->beta_max);
    /* exact: each step holds from its buffer to the next; else each holds
     * at its buffer, and between two the band is [next lower, this upper].
     * (Why the exact staircase stopped is the table's: its message holds
     * wall seconds, and the file is the same on any machine.) */
    fprintf(f, "  \"exact\": %s,\n  \"proven\": %d,\n  \"worst_gap_pct\": %.4f,\n  \"steps\": [", s->exact ? "true" : "false", (int)lf_stair_proven(s),
            worst);
    for (int32_t k = 0; k < s->n; k++) {
        const lf_stair_step *t = &s->steps[k];
        fprintf(f, "%s\n    {\"buffer\": %lld, \"lower_all\": %lld, \"upper_all\": %lld, \"gap_pct\": %.4f, "
                   "\"solved\": %s, \"groups\": %d, \"unfusable\": %d, \"found_at\": %lld, \"lower_at\": %lld, "
                   "\"group_of\": [",
                k ? "," : "", (long long)t->beta, (long long)t->lower, (long long)t->upper, lf_stair_gap(s, k),
                t->solved ? "true" : "false", (int)t->metrics.n_groups, (int)t->metrics.n_unfusable,
                (long long)t->found_at, (long long)t->lower_at);
        for (int32_t v = 0; v < t->plan.n_ops; v++)
            fprintf(f, "%s%d", v ? ", " : "", (int)t->plan.group_of[v]);
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ]\n}\n");
}

lf_status lf_stair_report_svg(FILE *f, const lf_stair *s, const char *model, const char *scheme)
{
    if (s->n < 1)
        return lf_set_error(LF_EINVAL, "best-effort staircase: no step to draw");
    int32_t n = 2 * s->n + 1;
    double *x = malloc((size_t)n * 4 * sizeof(double));
    if (!x)
        return lf_set_error(LF_ENOMEM, "out of memory drawing the staircase");
    double *y = x + n, *lx = y + n, *ly = lx + n;
    int32_t j = 0, m = 0;
    for (int32_t k = 0; k < s->n; k++) {
        const lf_stair_step *t = &s->steps[k];
        double b = (double)t->beta / 1024.0;
        if (k > 0) {
            x[j] = b;
            y[j++] = (double)s->steps[k - 1].upper / 1e6;
        }
        x[j] = b;
        y[j++] = (double)t->upper / 1e6;
        /* The bound at this buffer holds down to the previous one. */
        if (k > 0) {
            lx[m] = (double)s->steps[k - 1].beta / 1024.0;
            ly[m++] = (double)t->lower / 1e6;
        }
        lx[m] = b;
        ly[m++] = (double)t->lower / 1e6;
    }
    x[j] = (double)s->beta_max / 1024.0;
    y[j] = y[j - 1];
    j++;
    char title[160], up[96], low[96];
    snprintf(title, sizeof title, "%s, %s: %s DRAM against the buffer", model, scheme,
             s->exact ? "optimal" : "best-effort bounds of the optimal");
    snprintf(up, sizeof up, "%s %s %s", model, scheme, s->exact ? "optimum" : "upper (plans found)");
    snprintf(low, sizeof low, "%s %s lower (certified)", model, scheme);
    lf_chart_series sr[2] = {{up, x, y, j}, {low, lx, ly, m}};
    lf_chart ch = {title, "buffer (KB)", "DRAM over all ops (MB)", 1, 0, 0, sr, s->exact ? 1 : 2, 0};
    char *svg = NULL;
    lf_status st = lf_chart_svg(&ch, &svg);
    if (st == LF_OK)
        fputs(svg, f);
    free(svg);
    free(x);
    return st;
}

/* Reports of `fusionplan compare`: the per-table statistics over seeds and
 * their markdown, CSV and JSON forms, and the budget curves (CSV, SVG). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/app/cli/compare.h"
#include "planner/io/json.h"
#include "planner/io/plan_export.h"
#include "planner/io/svg_chart.h"
#include "planner/util/fileio.h"

const char *lf_cmp_search_label(const char *search)
{
    if (!strcmp(search, "local"))
        return "LS";
    if (!strcmp(search, "random"))
        return "RS";
    if (!strcmp(search, "nsga2"))
        return "NSGA-II";
    return search;
}

const char *lf_cmp_proposer_label(const char *proposer)
{
    static const char *const names[][2] = {
        {"none", "random split"}, {"gnne", "GNNE"},         {"pg", "PG"},
        {"rg", "RG"},             {"attrib", "attrib"},     {"all", "all edges"},
        {"random", "random edges"}, {"saliency", "saliency"}, {"occlusion", "occlusion"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(proposer, names[i][0]))
            return names[i][1];
    return proposer;
}

int32_t lf_cmp_stats(const double *v, int32_t n, double *mean, double *sd, double *min, double *max)
{
    int32_t k = 0;
    double sum = 0.0;
    *mean = *sd = *min = *max = NAN;
    for (int32_t i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            continue;
        if (k == 0 || v[i] < *min)
            *min = v[i];
        if (k == 0 || v[i] > *max)
            *max = v[i];
        sum += v[i];
        k++;
    }
    if (k == 0)
        return 0;
    *mean = sum / k;
    double ss = 0.0;
    for (int32_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            ss += (v[i] - *mean) * (v[i] - *mean);
    *sd = k > 1 ? sqrt(ss / (k - 1)) : 0.0;
    return k;
}

/* Everything a report line shows, derived from the per-seed arrays. */
typedef struct lf__summary {
    double mean, sd, min, max;   /* DRAM over fusable ops, MB */
    double vs_base;              /* % change of the mean against the baseline row; NaN if none */
    int32_t lower, has_base;     /* seeds on which this row is below the baseline's same seed */
    double gap;                  /* % of the mean above the optimum; NaN without it */
    double mbu_kb, groups, rectify, split_gap, wall;
} lf__summary;

static double lf__mean_of(const double *v, int32_t n)
{
    double m, sd, lo, hi;
    return lf_cmp_stats(v, n, &m, &sd, &lo, &hi) ? m : NAN;
}

static void lf__summarize(const lf_cmp_table *t, int32_t r, lf__summary *out)
{
    const lf_cmp_row *row = &t->rows[r];
    int32_t n = t->n_seeds;
    double *tmp = malloc((size_t)n * 3 * sizeof *tmp);
    memset(out, 0, sizeof *out);
    out->vs_base = out->gap = NAN;
    if (!tmp) {
        out->mean = out->sd = out->min = out->max = NAN;
        out->mbu_kb = out->groups = out->rectify = out->split_gap = out->wall = NAN;
        return;
    }
    double *mbu = tmp + n, *grp = tmp + 2 * n;
    for (int32_t s = 0; s < n; s++) {
        tmp[s] = (double)row->dram[s] / 1e6;
        mbu[s] = (double)row->mbu[s] / 1024.0;
        grp[s] = row->groups[s];
    }
    lf_cmp_stats(tmp, n, &out->mean, &out->sd, &out->min, &out->max);
    out->mbu_kb = lf__mean_of(mbu, n);
    out->groups = lf__mean_of(grp, n);
    out->rectify = 100.0 * lf__mean_of(row->rectify, n);
    out->split_gap = lf__mean_of(row->split_gap, n);
    out->wall = lf__mean_of(row->wall, n);
    if (row->baseline >= 0) {
        const lf_cmp_row *b = &t->rows[row->baseline];
        double bm = 0.0;
        for (int32_t s = 0; s < n; s++) {
            bm += (double)b->dram[s] / 1e6;
            out->lower += row->dram[s] < b->dram[s];
        }
        bm /= n;
        out->has_base = 1;
        out->vs_base = bm > 0 ? 100.0 * (out->mean - bm) / bm : NAN;
    }
    if (t->has_exact && t->exact_dram > 0) {
        /* From the integer sum: no search is below the optimum, so the gap is
         * never negative (not even -0.000 from rounding). */
        int64_t sum = 0;
        for (int32_t s = 0; s < n; s++)
            sum += row->dram[s] - t->exact_dram;
        out->gap = 100.0 * ((double)sum / n) / (double)t->exact_dram;
    }
    free(tmp);
}

/* "%.Nf" of v, or "-" when v is not finite. */
static const char *lf__num(char *buf, size_t len, double v, int digits, const char *suffix)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f%s", digits, v, suffix);
    return buf;
}

static void lf__upper(char *out, size_t len, const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 1 < len; i++)
        out[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 'a' + 'A' : s[i]);
    out[i] = '\0';
}

static void lf__seed_range(const lf_cmp_table *t, char *buf, size_t len)
{
    if (t->n_seeds == 1)
        snprintf(buf, len, "seed %llu", (unsigned long long)t->seeds[0]);
    else
        snprintf(buf, len, "seeds %llu-%llu", (unsigned long long)t->seeds[0],
                 (unsigned long long)t->seeds[t->n_seeds - 1]);
}

void lf_cmp_print_md(FILE *f, const lf_cmp_table *t)
{
    char seeds[64];
    lf__seed_range(t, seeds, sizeof seeds);
    char scheme[8];
    lf__upper(scheme, sizeof scheme, t->scheme);
    fprintf(f, "### %s, %s, %lld KB buffer, budget %lld, %s, k %d\n\n", t->model, scheme,
            (long long)(t->beta / 1024), (long long)t->budget, seeds, (int)t->k);
    fprintf(f, "| search | splitter | DRAM (MB) mean ± sd | best | worst | vs random split | lower on "
               "| gap to optimum | MBU (KB) | groups | rectify | split gap | wall (s) |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int32_t r = 0; r < t->n_rows; r++) {
        lf__summary s;
        lf__summarize(t, r, &s);
        char v[12][32];
        if (s.has_base)
            snprintf(v[11], sizeof v[11], "%d/%d", (int)s.lower, (int)t->n_seeds);
        else
            snprintf(v[11], sizeof v[11], "-");
        fprintf(f, "| %s | %s | %s ± %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                lf_cmp_search_label(t->rows[r].search), lf_cmp_proposer_label(t->rows[r].proposer),
                lf__num(v[0], 32, s.mean, 3, ""), lf__num(v[1], 32, s.sd, 3, ""),
                lf__num(v[2], 32, s.min, 3, ""), lf__num(v[3], 32, s.max, 3, ""),
                s.has_base && isfinite(s.vs_base) ? (snprintf(v[4], 32, "%+.1f%%", s.vs_base), v[4]) : "-",
                v[11],
                lf__num(v[5], 32, s.gap, 2, "%"), lf__num(v[6], 32, s.mbu_kb, 3, ""),
                lf__num(v[7], 32, s.groups, 1, ""), lf__num(v[8], 32, s.rectify, 1, "%"),
                lf__num(v[9], 32, s.split_gap, 3, ""), lf__num(v[10], 32, s.wall, 3, ""));
    }
    if (t->has_exact)
        fprintf(f, "| exact | - | %.3f | - | - | - | - | 0.00%% | %.3f | %d | - | - | %.3f |\n",
                (double)t->exact_dram / 1e6, (double)t->exact_mbu / 1024.0, (int)t->exact_groups,
                t->exact_wall);
    fprintf(f, "\nDRAM over the %d fusable of %d ops (%d unfusable); means over %d seed%s; "
               "population %d; %s cost memo; %d thread%s.\n",
            (int)(t->n_ops - t->n_unfusable), (int)t->n_ops, (int)t->n_unfusable, (int)t->n_seeds,
            t->n_seeds == 1 ? "" : "s", (int)t->population, t->fresh_memo ? "a fresh" : "one shared",
            (int)t->threads, t->threads == 1 ? "" : "s");
}

void lf_cmp_print_csv_header(FILE *f)
{
    fprintf(f, "model,scheme,buffer_bytes,budget,seeds,search,proposer,dram_mean_mb,dram_sd_mb,"
               "dram_min_mb,dram_max_mb,vs_random_split_pct,lower_on,gap_pct,mbu_kb,groups,"
               "rectify_pct,split_gap,wall_s\n");
}

void lf_cmp_print_csv(FILE *f, const lf_cmp_table *t)
{
    for (int32_t r = 0; r < t->n_rows; r++) {
        lf__summary s;
        lf__summarize(t, r, &s);
        char v[12][32];
        fprintf(f, "%s,%s,%lld,%lld,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", t->model,
                t->scheme, (long long)t->beta, (long long)t->budget, (int)t->n_seeds,
                t->rows[r].search, t->rows[r].proposer, lf__num(v[0], 32, s.mean, 6, ""),
                lf__num(v[1], 32, s.sd, 6, ""), lf__num(v[2], 32, s.min, 6, ""),
                lf__num(v[3], 32, s.max, 6, ""),
                s.has_base ? lf__num(v[4], 32, s.vs_base, 3, "") : "",
                s.has_base ? (snprintf(v[5], 32, "%d", (int)s.lower), v[5]) : "",
                isfinite(s.gap) ? lf__num(v[6], 32, s.gap, 3, "") : "",
                lf__num(v[7], 32, s.mbu_kb, 3, ""), lf__num(v[8], 32, s.groups, 1, ""),
                isfinite(s.rectify) ? lf__num(v[9], 32, s.rectify, 2, "") : "",
                isfinite(s.split_gap) ? lf__num(v[10], 32, s.split_gap, 4, "") : "",
                lf__num(v[11], 32, s.wall, 3, ""));
    }
    if (t->has_exact)
        fprintf(f, "%s,%s,%lld,%lld,%d,exact,,%.6f,0.000000,%.6f,%.6f,,,0.000,%.3f,%d.0,,,%.3f\n",
                t->model, t->scheme, (long long)t->beta, (long long)t->budget, (int)t->n_seeds,
                (double)t->exact_dram / 1e6, (double)t->exact_dram / 1e6,
                (double)t->exact_dram / 1e6, (double)t->exact_mbu / 1024.0, (int)t->exact_groups,
                t->exact_wall);
}

static void lf__json_i64s(FILE *f, const char *name, const int64_t *v, int32_t n)
{
    fprintf(f, "\"%s\": [", name);
    for (int32_t i = 0; i < n; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)v[i]);
    fprintf(f, "]");
}

static void lf__json_doubles(FILE *f, const char *name, const double *v, int32_t n)
{
    fprintf(f, "\"%s\": [", name);
    for (int32_t i = 0; i < n; i++) {
        fprintf(f, "%s", i ? ", " : "");
        lf_json_double(f, v[i]);
    }
    fprintf(f, "]");
}

void lf_cmp_print_json(FILE *f, const lf_cmp_table *t)
{
    fprintf(f, "  {\"model\": ");
    lf_json_string(f, t->model);
    fprintf(f, ", \"scheme\": ");
    lf_json_string(f, t->scheme);
    fprintf(f, ", \"buffer_bytes\": %lld, \"budget\": %lld, \"k\": %d, \"population\": %d, "
               "\"threads\": %d, \"fresh_memo\": %s,\n   \"ops\": %d, \"unfusable\": %d, \"seeds\": [",
            (long long)t->beta, (long long)t->budget, (int)t->k, (int)t->population, (int)t->threads,
            t->fresh_memo ? "true" : "false", (int)t->n_ops, (int)t->n_unfusable);
    for (int32_t s = 0; s < t->n_seeds; s++)
        fprintf(f, "%s%llu", s ? ", " : "", (unsigned long long)t->seeds[s]);
    fprintf(f, "],\n   \"rows\": [\n");
    for (int32_t r = 0; r < t->n_rows; r++) {
        const lf_cmp_row *row = &t->rows[r];
        lf__summary s;
        lf__summarize(t, r, &s);
        int32_t n = t->n_seeds;
        fprintf(f, "    {\"search\": \"%s\", \"proposer\": \"%s\", \"dram_mean_mb\": ", row->search,
                row->proposer);
        lf_json_double(f, s.mean);
        fprintf(f, ", \"dram_sd_mb\": ");
        lf_json_double(f, s.sd);
        fprintf(f, ", \"vs_random_split_pct\": ");
        lf_json_double(f, s.has_base ? s.vs_base : NAN);
        fprintf(f, ", \"lower_on\": ");
        if (s.has_base)
            fprintf(f, "%d", (int)s.lower);
        else
            fprintf(f, "null");
        fprintf(f, ", \"gap_pct\": ");
        lf_json_double(f, s.gap);
        fprintf(f, ",\n     ");
        lf__json_i64s(f, "dram_fusable", row->dram, n);
        fprintf(f, ", ");
        lf__json_i64s(f, "dram_all", row->dram_all, n);
        fprintf(f, ", ");
        lf__json_i64s(f, "mbu", row->mbu, n);
        fprintf(f, ",\n     \"groups\": [");
        for (int32_t i = 0; i < n; i++)
            fprintf(f, "%s%d", i ? ", " : "", (int)row->groups[i]);
        fprintf(f, "], ");
        lf__json_i64s(f, "invalid_groups", row->invalid, n);
        fprintf(f, ", ");
        lf__json_doubles(f, "rectify_rate", row->rectify, n);
        fprintf(f, ", ");
        lf__json_doubles(f, "split_gap", row->split_gap, n);
        fprintf(f, ", ");
        lf__json_doubles(f, "wall_s", row->wall, n);
        fprintf(f, "}%s\n", r + 1 < t->n_rows ? "," : "");
    }
    fprintf(f, "   ],\n   \"exact\": ");
    if (t->has_exact) {
        fprintf(f, "{\"dram_fusable\": %lld, \"dram_all\": %lld, \"mbu\": %lld, \"groups\": %d, "
                   "\"wall_s\": ",
                (long long)t->exact_dram, (long long)t->exact_dram_all, (long long)t->exact_mbu,
                (int)t->exact_groups);
        lf_json_double(f, t->exact_wall);
        fprintf(f, "}}");
    } else {
        fprintf(f, "null}");
    }
}

void lf_cmp_curve_csv_header(FILE *f)
{
    fprintf(f, "model,scheme,buffer_bytes,search,proposer,plans,best_dram_mean_mb,best_dram_min_mb,"
               "best_dram_max_mb\n");
}

void lf_cmp_curve_csv(FILE *f, const lf_cmp_table *t)
{
    for (int32_t r = 0; r < t->n_rows; r++) {
        const lf_cmp_row *row = &t->rows[r];
        for (int32_t p = 0; p < t->n_points; p++) {
            double sum = 0.0, lo = 0.0, hi = 0.0;
            for (int32_t s = 0; s < t->n_seeds; s++) {
                double v = row->curve[(int64_t)s * t->n_points + p] / 1e6;
                sum += v;
                lo = s == 0 || v < lo ? v : lo;
                hi = s == 0 || v > hi ? v : hi;
            }
            fprintf(f, "%s,%s,%lld,%s,%s,%lld,%.6f,%.6f,%.6f\n", t->model, t->scheme,
                    (long long)t->beta, row->search, row->proposer, (long long)t->points[p],
                    sum / t->n_seeds, lo, hi);
        }
    }
}

lf_status lf_cmp_curve_svg(const lf_cmp_table *t, const char *path)
{
    int32_t n_series = t->n_rows + (t->has_exact ? 1 : 0);
    lf_chart_series *series = calloc((size_t)n_series, sizeof *series);
    double *xs = malloc((size_t)t->n_points * sizeof *xs);
    double *ys = malloc((size_t)(t->n_rows * t->n_points + 2) * sizeof *ys);
    char(*labels)[64] = calloc((size_t)n_series, sizeof *labels);
    lf_status st = LF_OK;
    if (!series || !xs || !ys || !labels) {
        st = lf_set_error(LF_ENOMEM, "out of memory drawing %s", path);
        goto done;
    }
    for (int32_t p = 0; p < t->n_points; p++)
        xs[p] = (double)t->points[p];
    for (int32_t r = 0; r < t->n_rows; r++) {
        const lf_cmp_row *row = &t->rows[r];
        double *y = ys + (int64_t)r * t->n_points;
        for (int32_t p = 0; p < t->n_points; p++) {
            double sum = 0.0;
            for (int32_t s = 0; s < t->n_seeds; s++)
                sum += row->curve[(int64_t)s * t->n_points + p];
            y[p] = sum / t->n_seeds / 1e6;
        }
        if (!strcmp(row->proposer, "none"))
            snprintf(labels[r], sizeof labels[r], "%s (random split)", lf_cmp_search_label(row->search));
        else
            snprintf(labels[r], sizeof labels[r], "%s + %s", lf_cmp_search_label(row->search),
                     lf_cmp_proposer_label(row->proposer));
        series[r] = (lf_chart_series){labels[r], xs, y, t->n_points};
    }
    double ex[2] = {xs[0], xs[t->n_points - 1]};
    if (t->has_exact) {
        double *y = ys + (int64_t)t->n_rows * t->n_points;
        y[0] = y[1] = (double)t->exact_dram / 1e6;
        snprintf(labels[t->n_rows], sizeof labels[t->n_rows], "exact optimum");
        series[t->n_rows] = (lf_chart_series){labels[t->n_rows], ex, y, 2};
    }
    char title[200];
    char scheme[8];
    lf__upper(scheme, sizeof scheme, t->scheme);
    snprintf(title, sizeof title, "%s, %s, %lld KB: best DRAM against budget (mean of %d seed%s)",
             t->model, scheme, (long long)(t->beta / 1024), (int)t->n_seeds,
             t->n_seeds == 1 ? "" : "s");
    lf_chart c = {title, "plans proposed", "best DRAM over fusable ops (MB)", 0, 0, 0, series, n_series, 0};
    st = lf_chart_save_svg(&c, path);
done:
    free(series);
    free(xs);
    free(ys);
    free(labels);
    return st;
}

/* The report goes to standard output or --output in --format, and also to
 * --csv and --json files when given; then the curves. */
static lf_status lf__emit_one(const char *format, const char *path, lf_cmp_table *tables, int32_t n)
{
    lf_atomic_file af = {0};
    FILE *f = stdout;
    lf_status st = LF_OK;
    if (path) {
        if ((st = lf_atomic_open(&af, path)) != LF_OK)
            return st;
        f = af.f;
    }
    if (!strcmp(format, "csv"))
        lf_cmp_print_csv_header(f);
    if (!strcmp(format, "json"))
        fprintf(f, "[\n");
    for (int32_t i = 0; i < n; i++) {
        if (!strcmp(format, "md")) {
            if (i)
                fprintf(f, "\n");
            lf_cmp_print_md(f, &tables[i]);
        } else if (!strcmp(format, "csv")) {
            lf_cmp_print_csv(f, &tables[i]);
        } else {
            lf_cmp_print_json(f, &tables[i]);
            fprintf(f, i + 1 < n ? ",\n" : "\n");
        }
    }
    if (!strcmp(format, "json"))
        fprintf(f, "]\n");
    if (path)
        return lf_atomic_commit(&af);
    fflush(stdout);
    return LF_OK;
}

/* compare --html and sweep-report --html: the tables and budget curves on
 * one self-contained page (DESIGN §20). The page embeds the same CSV that
 * --csv and --curves write (one data source) and its script draws a table
 * per network, scheme and buffer and a budget-curve chart next to it. */

/* One CSV report into memory, then as a JSON string member. */
static lf_status lf__csv_member(FILE *f, const char *name, const lf_cmp_table *tables, int32_t n, int curves)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return lf_set_error(LF_ENOMEM, "out of memory writing the HTML report");
    if (curves)
        lf_cmp_curve_csv_header(mem);
    else
        lf_cmp_print_csv_header(mem);
    for (int32_t i = 0; i < n; i++)
        if (curves)
            lf_cmp_curve_csv(mem, &tables[i]);
        else
            lf_cmp_print_csv(mem, &tables[i]);
    lf_status st = fclose(mem) == 0 ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory writing the HTML report");
    if (st == LF_OK) {
        fprintf(f, ", \"%s\": ", name);
        lf_json_string(f, buf);
    }
    free(buf);
    return st;
}

lf_status lf_cmp_write_html(FILE *f, const char *title, const lf_cmp_table *tables, int32_t n)
{
    char *json = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&json, &len);
    if (!mem)
        return lf_set_error(LF_ENOMEM, "out of memory writing the HTML report");
    fputs("{\"kind\": \"report\", \"title\": ", mem);
    lf_json_string(mem, title);
    lf_status st = lf__csv_member(mem, "tables_csv", tables, n, 0);
    if (st == LF_OK)
        st = lf__csv_member(mem, "curves_csv", tables, n, 1);
    fputs("}", mem);
    if (fclose(mem) != 0 && st == LF_OK)
        st = lf_set_error(LF_ENOMEM, "out of memory writing the HTML report");
    if (st == LF_OK)
        st = lf_html_write_report(f, title, json);
    free(json);
    return st;
}

static lf_status lf__emit_files(const lf_cmp_out *o, lf_cmp_table *tables, int32_t n)
{
    lf_status st = lf__emit_one(o->format, o->output, tables, n);
    if (st == LF_OK && o->csv)
        st = lf__emit_one("csv", o->csv, tables, n);
    if (st == LF_OK && o->json)
        st = lf__emit_one("json", o->json, tables, n);
    lf_atomic_file af = {0};
    if (st == LF_OK && o->html && (st = lf_atomic_open(&af, o->html)) == LF_OK) {
        st = lf_cmp_write_html(af.f, o->title ? o->title : "compare", tables, n);
        st = st == LF_OK ? lf_atomic_commit(&af) : (lf_atomic_abort(&af), st);
    }
    if (st != LF_OK || !o->curves)
        return st;
    char path[1024];
    snprintf(path, sizeof path, "%s.csv", o->curves);
    if ((st = lf_atomic_open(&af, path)) != LF_OK)
        return st;
    lf_cmp_curve_csv_header(af.f);
    for (int32_t i = 0; i < n; i++)
        lf_cmp_curve_csv(af.f, &tables[i]);
    if ((st = lf_atomic_commit(&af)) != LF_OK)
        return st;
    for (int32_t i = 0; i < n && st == LF_OK; i++) {
        if (n == 1)
            snprintf(path, sizeof path, "%s.svg", o->curves);
        else
            snprintf(path, sizeof path, "%s-%s-%s-%lldKB.svg", o->curves, tables[i].model,
                     tables[i].scheme, (long long)(tables[i].beta / 1024));
        st = lf_cmp_curve_svg(&tables[i], path);
    }
    return st;
}

/* Every file of one report (output, CSV, JSON, curves and their SVGs) in one
 * output batch: all of them are written, or none. */
lf_status lf_cmp_emit(const lf_cmp_out *o, lf_cmp_table *tables, int32_t n)
{
    lf_output_batch_begin();
    lf_status st = lf__emit_files(o, tables, n);
    if (st == LF_OK)
        return lf_output_batch_commit();
    lf_output_batch_abort();
    return st;
}

int lf_cmp_out_parse(const lf_cli_command *cmd, lf_cmp_out *o, int check)
{
    static const char *const formats[] = {"md", "csv", "json", NULL};
    o->output = lf_cli_get(cmd, "output");
    o->csv = lf_cli_get(cmd, "csv");
    o->json = lf_cli_get(cmd, "json");
    o->curves = lf_cli_get(cmd, "curves");
    o->html = lf_cli_get(cmd, "html");
    o->title = cmd->name;
    int rc = lf_cli_choice(cmd, "format", formats, &o->format);
    if (rc)
        return rc;
    char curves_csv[1024] = "", curves_svg[1024] = "";
    if (o->curves) {
        snprintf(curves_csv, sizeof curves_csv, "%s.csv", o->curves);
        snprintf(curves_svg, sizeof curves_svg, "%s.svg", o->curves);
    }
    /* One file for two outputs would keep only the last written (--csv
     * T.csv with --curves T overwrote the tables with the curves). */
    const char *outs[6] = {o->output, o->csv, o->json, o->html, o->curves ? curves_csv : NULL,
                           o->curves ? curves_svg : NULL};
    static const char *const what[6] = {"--output", "--csv", "--json", "--html", "--curves (its .csv)",
                                        "--curves (its .svg)"};
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            if (outs[i] && outs[j] && strcmp(outs[i], outs[j]) == 0)
                return lf_cli_usage_error(cmd, "%s and %s both name '%s'", what[i], what[j], outs[i]);
    if (!check)
        return 0;
    return lf_cli_check_outputs(outs, 5);
}

/* Progress lines on stderr; a missing optimum is said even with --quiet. */
void lf_cmp_progress_print(void *user, const lf_cmp_table *t, int32_t r, int32_t s, int ok)
{
    int quiet = *(const int *)user;
    if (r >= 0 && !quiet)
        fprintf(stderr, "compare: %s %s %lld KB, %s + %s, seed %llu: %.3f MB in %.2f s\n", t->model,
                t->scheme, (long long)(t->beta / 1024), lf_cmp_search_label(t->rows[r].search),
                lf_cmp_proposer_label(t->rows[r].proposer), (unsigned long long)t->seeds[s],
                (double)t->rows[r].dram[s] / 1e6, t->rows[r].wall[s]);
    else if (r < 0 && !ok)
        fprintf(stderr, "fusionplan compare: %s %s: no exact optimum: %s\n", t->model, t->scheme,
                lf_last_error());
    else if (r < 0 && !quiet)
        fprintf(stderr, "compare: %s %s exact optimum %.3f MB in %.2f s\n", t->model, t->scheme,
                (double)t->exact_dram / 1e6, t->exact_wall);
}

/* Reports of `fusionplan sweep-buffer`: markdown, CSV and JSON tables, and
 * the SVG charts of DRAM and of the valid-group share against the buffer. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/app/cli/sweep.h"
#include "planner/io/json.h"
#include "planner/io/svg_chart.h"

/* A value rounded to 4 decimals, so that JSON shows what the tables show. */
static double lf__round4(double v)
{
    return round(v * 1e4) / 1e4;
}

static void lf__kb(int64_t bytes, char *buf, size_t len)
{
    if (bytes % 1024 == 0)
        snprintf(buf, len, "%lld", (long long)(bytes / 1024));
    else
        snprintf(buf, len, "%.3f", (double)bytes / 1024.0);
}

/* Scheme names in capitals, as the paper writes them ("LBDF", "BRR"). */
static const char *lf__upper_scheme(const char *s)
{
    static _Thread_local char buf[32];
    size_t i = 0;
    for (; s[i] && i + 1 < sizeof buf; i++)
        buf[i] = (char)toupper((unsigned char)s[i]);
    buf[i] = '\0';
    return buf;
}
/* ---- output ------------------------------------------------------------- */

void lf_sweep_print_head(FILE *f, const char *fmt, const lf_sweep_setup *o)
{
    if (strcmp(fmt, "csv") == 0)
        lf_sweep_print_csv_header(f);
    else if (strcmp(fmt, "json") == 0)
        lf_sweep_print_json_head(f, o);
}

void lf_sweep_print(FILE *f, const char *fmt, const lf_sweep_setup *o, const lf_sweep *sw, int i)
{
    if (strcmp(fmt, "csv") == 0)
        lf_sweep_print_csv(f, o, sw);
    else if (strcmp(fmt, "json") == 0)
        lf_sweep_print_json(f, o, sw, i == 0);
    else
        lf_sweep_print_md(f, o, sw, i == 0);
    fflush(f);
}

void lf_sweep_print_tail(FILE *f, const char *fmt)
{
    if (strcmp(fmt, "json") == 0)
        fprintf(f, "\n  ]\n}\n");
}

static void lf__split_desc(const lf_sweep_setup *o, char *buf, size_t len)
{
    if (o->run.tree)
        snprintf(buf, len, "tree split (%s, k %lld)", o->run.proposer, (long long)o->run.k);
    else
        snprintf(buf, len, "random split");
}

void lf_sweep_print_md(FILE *f, const lf_sweep_setup *o, const lf_sweep *sw, int first)
{
    char split[96];
    lf__split_desc(o, split, sizeof split);
    fprintf(f, "%s### %s, %s: %s search, budget %lld, seed %lld, %s", first ? "" : "\n", sw->model,
            lf__upper_scheme(sw->scheme), o->run.search, (long long)o->run.budget, (long long)o->run.seed,
            split);
    if (sw->sampled >= 0)
        fprintf(f, "; valid groups over %lld sampled groups", (long long)sw->sampled);
    fprintf(f, "\n\n| buffer (KB) | fusable / unfusable ops | DRAM all (MB) | DRAM fusable (MB) | "
               "groups | MBU (KB) |");
    if (o->run.do_exact)
        fprintf(f, " exact DRAM all (MB) | gap (%%) |");
    fprintf(f, " layer-by-layer (MB) | reduction (%%) |");
    if (sw->sampled >= 0)
        fprintf(f, " valid groups (%%) |");
    fprintf(f, "\n|---|---|---|---|---|---|");
    if (o->run.do_exact)
        fprintf(f, "---|---|");
    fprintf(f, "---|---|");
    if (sw->sampled >= 0)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (int32_t b = 0; b < o->run.nb; b++) {
        const lf_sweep_point *p = &sw->pts[b];
        char kb[32], mbu[32];
        lf__kb(p->beta, kb, sizeof kb);
        snprintf(mbu, sizeof mbu, "%.1f", (double)p->m.mbu / 1024.0);
        fprintf(f, "| %s | %d / %d | %.3f | %.3f | %d | %s |", kb, (int)p->n_fusable,
                (int)p->n_unfusable, (double)p->m.dram_all / 1e6, (double)p->m.dram_fusable / 1e6,
                (int)p->m.n_groups, mbu);
        if (o->run.do_exact) {
            if (p->has_exact)
                fprintf(f, " %.3f | %.2f |", (double)p->exact_all / 1e6,
                        lf_buffer_sweep_pct(p->m.dram_all - p->exact_all, p->exact_all));
            else
                fprintf(f, " - | - |");
        }
        fprintf(f, " %.3f | %.1f |", (double)p->layer_all / 1e6,
                lf_buffer_sweep_pct(p->layer_all - p->m.dram_all, p->layer_all));
        if (sw->sampled >= 0 && p->has_valid)
            fprintf(f, " %.1f |", p->valid_pct);
        else if (sw->sampled >= 0)
            fprintf(f, " - |");
        fprintf(f, "\n");
    }
}

void lf_sweep_print_csv_header(FILE *f)
{
    fprintf(f, "model,scheme,buffer_bytes,fusable_ops,unfusable_ops,dram_all,dram_fusable,groups,"
               "mbu,exact_dram_all,gap_pct,layer_dram_all,reduction_pct,valid_pct,sampled_groups\n");
}

void lf_sweep_print_csv(FILE *f, const lf_sweep_setup *o, const lf_sweep *sw)
{
    for (int32_t b = 0; b < o->run.nb; b++) {
        const lf_sweep_point *p = &sw->pts[b];
        fprintf(f, "%s,%s,%lld,%d,%d,%lld,%lld,%d,%lld,", sw->model, sw->scheme,
                (long long)p->beta, (int)p->n_fusable, (int)p->n_unfusable,
                (long long)p->m.dram_all, (long long)p->m.dram_fusable, (int)p->m.n_groups,
                (long long)p->m.mbu);
        if (p->has_exact)
            fprintf(f, "%lld,%.2f,", (long long)p->exact_all,
                    lf_buffer_sweep_pct(p->m.dram_all - p->exact_all, p->exact_all));
        else
            fprintf(f, ",,");
        fprintf(f, "%lld,%.2f,", (long long)p->layer_all,
                lf_buffer_sweep_pct(p->layer_all - p->m.dram_all, p->layer_all));
        if (p->has_valid)
            fprintf(f, "%.2f,%lld\n", p->valid_pct, (long long)sw->sampled);
        else
            fprintf(f, ",\n");
    }
}

void lf_sweep_print_json_head(FILE *f, const lf_sweep_setup *o)
{
    fprintf(f, "{\n  \"tool\": \"fusionplan\",\n  \"version\": ");
    lf_json_string(f, LF_VERSION);
    fprintf(f, ",\n  \"command\": \"sweep-buffer\",\n  \"search\": {\"algorithm\": ");
    lf_json_string(f, o->run.search);
    fprintf(f, ", \"budget\": %lld, \"seed\": %lld, \"split\": \"%s\", \"proposer\": ",
            (long long)o->run.budget, (long long)o->run.seed, o->run.tree ? "tree" : "random");
    if (o->run.tree) {
        lf_json_string(f, o->run.proposer);
        fprintf(f, ", \"k\": %lld},\n", (long long)o->run.k);
    } else {
        fprintf(f, "null, \"k\": null},\n");
    }
    fprintf(f, "  \"exact\": %s,\n  \"exact_limit\": ", o->run.do_exact ? "true" : "false");
    if (o->run.do_exact && o->run.exact_limit > 0)
        fprintf(f, "%lld", (long long)o->run.exact_limit);
    else
        fprintf(f, "null");
    fprintf(f, ",\n  \"samples\": %lld,\n  \"hardware\": {\"source\": ", (long long)o->run.samples);
    lf_json_string(f, o->run.hw.source);
    fprintf(f, ", \"act_bytes\": %d, \"weight_bytes\": %d},\n  \"buffers\": [", (int)o->run.hw.act_bytes,
            (int)o->run.hw.weight_bytes);
    for (int32_t b = 0; b < o->run.nb; b++)
        fprintf(f, "%s%lld", b ? ", " : "", (long long)o->run.betas[b]);
    fprintf(f, "],\n  \"sweeps\": [");
}

void lf_sweep_print_json(FILE *f, const lf_sweep_setup *o, const lf_sweep *sw, int first)
{
    fprintf(f, "%s\n    {\n      \"model\": ", first ? "" : ",");
    lf_json_string(f, sw->model);
    fprintf(f, ",\n      \"scheme\": ");
    lf_json_string(f, sw->scheme);
    fprintf(f, ",\n      \"sampled_groups\": ");
    if (sw->sampled >= 0)
        fprintf(f, "%lld", (long long)sw->sampled);
    else
        fprintf(f, "null");
    fprintf(f, ",\n      \"points\": [");
    for (int32_t b = 0; b < o->run.nb; b++) {
        const lf_sweep_point *p = &sw->pts[b];
        fprintf(f, "%s\n        {\"buffer_bytes\": %lld, \"fusable_ops\": %d, \"unfusable_ops\": %d, "
                   "\"dram_all\": %lld, \"dram_fusable\": %lld, \"groups\": %d, \"mbu\": %lld, "
                   "\"exact_dram_all\": ",
                b ? "," : "", (long long)p->beta, (int)p->n_fusable, (int)p->n_unfusable,
                (long long)p->m.dram_all, (long long)p->m.dram_fusable, (int)p->m.n_groups,
                (long long)p->m.mbu);
        if (p->has_exact) {
            fprintf(f, "%lld, \"gap_pct\": ", (long long)p->exact_all);
            lf_json_double(f, lf__round4(lf_buffer_sweep_pct(p->m.dram_all - p->exact_all, p->exact_all)));
        } else {
            fprintf(f, "null, \"gap_pct\": null");
        }
        fprintf(f, ", \"layer_dram_all\": %lld, \"reduction_pct\": ", (long long)p->layer_all);
        lf_json_double(f, lf__round4(lf_buffer_sweep_pct(p->layer_all - p->m.dram_all, p->layer_all)));
        fprintf(f, ", \"valid_pct\": ");
        if (p->has_valid)
            lf_json_double(f, lf__round4(p->valid_pct));
        else
            fprintf(f, "null");
        fprintf(f, "}");
    }
    fprintf(f, "\n      ]\n    }");
}

/* ---- charts ------------------------------------------------------------- */

/* FILE's ".svg" suffix replaced by "-valid.svg" (appended when it has none). */
static char *lf__valid_path(const char *path)
{
    size_t n = strlen(path);
    if (n >= 4 && strcmp(path + n - 4, ".svg") == 0)
        n -= 4;
    char *s = malloc(n + sizeof "-valid.svg");
    if (s) {
        memcpy(s, path, n);
        memcpy(s + n, "-valid.svg", sizeof "-valid.svg");
    }
    return s;
}

lf_status lf_sweep_save_charts(const lf_sweep_setup *o, const lf_sweep *sw, int n_sw,
                            const char *path)
{
    int n_max = 2 * n_sw;
    lf_chart_series *series = calloc((size_t)n_max, sizeof *series);
    double *x = calloc((size_t)LF_SWEEP_MAX_BUFFERS, sizeof *x);
    double *y = calloc((size_t)n_max * LF_SWEEP_MAX_BUFFERS, sizeof *y);
    char(*labels)[96] = calloc((size_t)n_max, sizeof *labels);
    char *vpath = lf__valid_path(path);
    lf_status st = LF_OK;
    if (!series || !x || !y || !labels || !vpath) {
        st = lf_set_error(LF_ENOMEM, "out of memory for the charts");
        goto done;
    }
    for (int32_t b = 0; b < o->run.nb; b++)
        x[b] = (double)o->run.betas[b] / 1024.0;
    char schemes[32], split[96], title[256];
    snprintf(schemes, sizeof schemes, "%s",
             o->n_schemes > 1 ? "LBDF and BRR" : lf__upper_scheme(sw[0].scheme));
    lf__split_desc(o, split, sizeof split);

    /* DRAM over all ops: the search, then the optimum where computed. */
    int ns = 0;
    for (int i = 0; i < n_sw; i++) {
        for (int exact = 0; exact < 2; exact++) {
            int any = 0;
            double *yy = y + (size_t)ns * LF_SWEEP_MAX_BUFFERS;
            for (int32_t b = 0; b < o->run.nb; b++) {
                const lf_sweep_point *p = &sw[i].pts[b];
                if (!exact)
                    yy[b] = (double)p->m.dram_all / 1e6;
                else
                    yy[b] = p->has_exact ? (double)p->exact_all / 1e6 : NAN;
                any |= !exact || p->has_exact;
            }
            if (!any)
                continue;
            snprintf(labels[ns], sizeof labels[ns], "%s%s%s%s", sw[i].model,
                     o->n_schemes > 1 ? " " : "", o->n_schemes > 1 ? sw[i].scheme : "",
                     exact ? " exact" : "");
            series[ns] = (lf_chart_series){labels[ns], x, yy, o->run.nb};
            ns++;
        }
    }
    snprintf(title, sizeof title, "DRAM against buffer size (%s, %s search, budget %lld%s%s)",
             schemes, o->run.search, (long long)o->run.budget, o->run.tree ? ", " : "", o->run.tree ? split : "");
    /* Networks differ by orders of magnitude (VGG16's weights against
     * SqueezeNet's): then a log scale keeps every line readable. */
    double lo = HUGE_VAL, hi = 0.0;
    for (int i = 0; i < ns; i++)
        for (int32_t b = 0; b < series[i].n; b++)
            if (isfinite(series[i].y[b]) && series[i].y[b] > 0) {
                lo = fmin(lo, series[i].y[b]);
                hi = fmax(hi, series[i].y[b]);
            }
    int log_y = hi > 0 && hi / lo > 20.0;
    lf_chart c = {title, "on-chip buffer (KB)",
                  log_y ? "DRAM over all ops (MB, log scale)" : "DRAM over all ops (MB)", 1, 0, 0,
                  series, ns, log_y};
    if ((st = lf_chart_save_svg(&c, path)) != LF_OK)
        goto done;
    if (o->run.samples <= 0)
        goto done;

    /* Valid groups: one line per network and scheme. */
    ns = 0;
    for (int i = 0; i < n_sw; i++) {
        double *yy = y + (size_t)ns * LF_SWEEP_MAX_BUFFERS;
        for (int32_t b = 0; b < o->run.nb; b++)
            yy[b] = sw[i].pts[b].has_valid ? sw[i].pts[b].valid_pct : NAN;
        snprintf(labels[ns], sizeof labels[ns], "%s%s%s", sw[i].model, o->n_schemes > 1 ? " " : "",
                 o->n_schemes > 1 ? sw[i].scheme : "");
        series[ns] = (lf_chart_series){labels[ns], x, yy, o->run.nb};
        ns++;
    }
    snprintf(title, sizeof title, "Valid fusion groups against buffer size (%s, up to %lld groups "
                                  "sampled per network)",
             schemes, (long long)o->run.samples);
    lf_chart v = {title, "on-chip buffer (KB)", "valid groups (%)", 1, 0, 0, series, ns, 0};
    st = lf_chart_save_svg(&v, vpath);
done:
    free(series);
    free(x);
    free(y);
    free(labels);
    free(vpath);
    return st;
}

lf_status lf_sweep_out_open(lf_sweep_out *out)
{
    out->f = stdout;
    if (out->output) {
        lf_status st = lf_atomic_open(&out->af, out->output);
        if (st != LF_OK)
            return st;
        out->f = out->af.f;
    }
    lf_sweep_print_head(out->f, out->fmt, out->o);
    return LF_OK;
}

lf_status lf_sweep_out_close(lf_sweep_out *out, int ok, const lf_sweep *sw, int n_sw)
{
    if (!ok) {
        if (out->output)
            lf_atomic_abort(&out->af);
        return LF_OK;
    }
    lf_sweep_print_tail(out->f, out->fmt);
    lf_output_batch_begin();
    lf_status st = out->output ? lf_atomic_commit(&out->af) : LF_OK;
    if (st == LF_OK && out->svg)
        st = lf_sweep_save_charts(out->o, sw, n_sw, out->svg);
    if (st == LF_OK)
        st = lf_output_batch_commit();
    lf_output_batch_abort(); /* no-op after a commit */
    /* Said only once the batch is committed: a failed write of any output
     * rolls the charts back too, and the message must not claim them. */
    if (st == LF_OK && out->svg && !out->o->quiet) {
        char *vpath = lf__valid_path(out->svg);
        if (out->o->run.samples > 0 && vpath)
            fprintf(stderr, "wrote %s and %s\n", out->svg, vpath);
        else
            fprintf(stderr, "wrote %s\n", out->svg);
        free(vpath);
    }
    return st;
}

/* fusionplan sweep-buffer: how DRAM traffic falls as the on-chip buffer
 * grows (the paper's Fig. 3, and the first question an architect asks).
 *
 * For every network, scheme and buffer size: the fusable and unfusable op
 * counts, the search's best plan (DRAM over all ops and over fusable ops,
 * groups, MBU), the exact optimum over all ops and the search's gap to it,
 * layer-by-layer DRAM over all ops and the reduction against it, and the
 * share of sampled fusion groups that fit the buffer. DESIGN §4: the
 * fusable-op set changes with the buffer, so the sweep's headline figure
 * is DRAM over all ops. The output depends only on the arguments, never on
 * --threads (no wall times in it; progress and timings go to stderr). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/dataset.h"
#include "models/registry.h"
#include "planner/cli/cli.h"
#include "planner/exact/exact.h"
#include "planner/io/json.h"
#include "planner/io/svg_chart.h"
#include "planner/plan.h"
#include "planner/util/fileio.h"
#include "planner/util/progress.h"
#include "search/partition/search.h"
#include "search/partition/simple.h"

#define LF_SWEEP_MAX_MODELS 32
#define LF_SWEEP_MAX_BUFFERS LF_DS_MAX_BETAS
#define LF_SWEEP_DEFAULT_MODELS "vgg16,resnet18,resnet50,squeezenet1_0,mobilenet_v2"

typedef struct lf__sweep_point {
    int64_t beta;
    int32_t n_fusable, n_unfusable;
    lf_plan_metrics m;   /* the search's best plan */
    int has_exact;
    int64_t exact_all;
    int64_t layer_all;
    int has_valid;
    double valid_pct;
} lf__sweep_point;

typedef struct lf__sweep {
    const char *model, *scheme;
    int64_t sampled;     /* groups behind the valid fraction; -1 when not sampled */
    lf__sweep_point pts[LF_SWEEP_MAX_BUFFERS];
} lf__sweep;

typedef struct lf__sweep_setup {
    const char *search, *split, *proposer, *hw_file;
    int64_t budget, seed, threads, k, samples, exact_limit;
    int do_exact, tree, quiet, n_schemes;
    int32_t nb;
    int64_t betas[LF_SWEEP_MAX_BUFFERS];
    lf_hw hw;
} lf__sweep_setup;

static int lf__known_model(const char *name)
{
    int32_t n;
    const lf_model_entry *m = lf_models(&n);
    for (int32_t i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0)
            return 1;
    return 0;
}

static double lf__pct(int64_t num, int64_t den)
{
    return den > 0 ? 100.0 * (double)num / (double)den : 0.0;
}

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

static const char *lf__upper_scheme(const char *s)
{
    return strcmp(s, "brr") == 0 ? "BRR" : "LBDF";
}

/* ---- one point --------------------------------------------------------- */

/* Fills everything but the valid fraction. Returns 0 or an exit status after
 * printing the error. */
static int lf__run_point(const lf_cli_command *cmd, const lf__sweep_setup *o, const lf_graph *g,
                         const char *model, const char *scheme, int64_t beta, lf__sweep_point *pt)
{
    memset(pt, 0, sizeof *pt);
    pt->beta = beta;
    lf_hw hw = o->hw;
    hw.buffer_bytes = beta;
    lf_cost_model *cm = NULL;
    lf_status st = lf_cost_model_create(&cm, g, &hw, scheme);
    if (st != LF_OK)
        return lf_cli_fail(st);
    int32_t compute = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        compute += g->ops[v].type != LF_OP_INPUT;
    pt->n_unfusable = lf_cost_unfusable_count(cm);
    pt->n_fusable = compute - pt->n_unfusable;

    int rc = 0;
    lf_plan p = {0};
    lf_plan_metrics m;
    /* Layer by layer: the no-fusion reference. */
    if ((st = lf_plan_layer(cm, &p)) != LF_OK ||
        (st = lf_plan_metrics_compute(&p, cm, &m)) != LF_OK) {
        lf_plan_destroy(&p);
        lf_cost_model_free(cm);
        return lf_cli_fail(st);
    }
    lf_plan_destroy(&p);
    pt->layer_all = m.dram_all;

    /* The exact optimum; over its limits it is left out ('-'). */
    if (o->do_exact) {
        lf_exact_config ec;
        lf_exact_config_default(&ec);
        if (o->exact_limit > 0)
            ec.max_candidates = o->exact_limit;
        st = lf_exact_plan(cm, &ec, &p, NULL);
        if (st == LF_OK) {
            st = lf_plan_metrics_compute(&p, cm, &m);
            lf_plan_destroy(&p);
            if (st != LF_OK) {
                lf_cost_model_free(cm);
                return lf_cli_fail(st);
            }
            pt->has_exact = 1;
            pt->exact_all = m.dram_all;
        } else if (st == LF_ELIMIT) {
            char b[32];
            lf_hw_format_size(beta, b, sizeof b);
            fprintf(stderr, "fusionplan sweep-buffer: no exact optimum for %s %s at %s: %s\n",
                    model, scheme, b, lf_last_error());
        } else {
            lf_cost_model_free(cm);
            return lf_cli_fail(st);
        }
    }

    /* The search, with the random split or the tree splitter. */
    lf_cli_proposer cp = {0};
    lf_splitter *sp = NULL;
    if (o->tree) {
        st = lf_cli_proposer_open(&cp, o->proposer, cm, NULL, NULL, NULL);
        if (st != LF_OK) {
            lf_cost_model_free(cm);
            return lf_cli_fail(st);
        }
        if ((rc = lf_cli_make_splitter(cmd, o->split, cp.proposer, (int32_t)o->k, 0, &sp))) {
            lf_cli_proposer_close(&cp);
            lf_cost_model_free(cm);
            return rc;
        }
    }
    lf_search_config cfg;
    lf_search_config_default(&cfg);
    cfg.algorithm = o->search;
    cfg.budget = o->budget;
    cfg.seed = (uint64_t)o->seed;
    cfg.threads = (int32_t)o->threads;
    cfg.quiet = 1;
    cfg.splitter = sp;
    lf_search_result res;
    st = lf_search_run(cm, &cfg, &res);
    if (st == LF_OK)
        pt->m = res.metrics;
    else
        rc = lf_cli_fail(st);
    lf_search_result_destroy(&res);
    lf_splitter_free(sp);
    lf_cli_proposer_close(&cp);
    lf_cost_model_free(cm);
    return rc;
}

/* The valid fraction per buffer size over groups sampled once for the
 * network and scheme (the dataset sampler, labels at every buffer). */
static int lf__run_valid(const lf__sweep_setup *o, const char *model, const char *scheme,
                         lf__sweep *sw)
{
    sw->sampled = -1;
    if (o->samples <= 0)
        return 0;
    lf_ds_config dc;
    lf_ds_config_default(&dc);
    dc.scheme = scheme;
    dc.seed = (uint64_t)o->seed;
    dc.threads = (int32_t)o->threads;
    dc.hw = &o->hw;
    dc.only = model;
    dc.any_network = 1;
    dc.groups = (int32_t)o->samples;
    dc.n_betas = o->nb;
    for (int32_t b = 0; b < o->nb; b++)
        dc.betas[b] = o->betas[b];
    lf_dataset ds;
    lf_dataset_init(&ds, scheme);
    lf_status st = lf_dataset_build(&ds, &dc);
    if (st != LF_OK) {
        lf_dataset_destroy(&ds);
        return lf_cli_fail(st);
    }
    sw->sampled = ds.n_groups;
    for (int32_t b = 0; b < o->nb && ds.n_groups > 0; b++) {
        int64_t valid = 0;
        for (int64_t i = 0; i < ds.n_groups; i++)
            valid += ds.groups[i].valid[b];
        sw->pts[b].has_valid = 1;
        sw->pts[b].valid_pct = lf__pct(valid, ds.n_groups);
    }
    if (ds.n_groups < o->samples && !o->quiet)
        fprintf(stderr, "fusionplan sweep-buffer: %s %s: only %lld distinct groups found of %lld "
                        "asked\n",
                model, scheme, (long long)ds.n_groups, (long long)o->samples);
    lf_dataset_destroy(&ds);
    return 0;
}

/* ---- output ------------------------------------------------------------- */

static void lf__split_desc(const lf__sweep_setup *o, char *buf, size_t len)
{
    if (o->tree)
        snprintf(buf, len, "tree split (%s, k %lld)", o->proposer, (long long)o->k);
    else
        snprintf(buf, len, "random split");
}

static void lf__md_sweep(FILE *f, const lf__sweep_setup *o, const lf__sweep *sw, int first)
{
    char split[96];
    lf__split_desc(o, split, sizeof split);
    fprintf(f, "%s### %s, %s: %s search, budget %lld, seed %lld, %s", first ? "" : "\n", sw->model,
            lf__upper_scheme(sw->scheme), o->search, (long long)o->budget, (long long)o->seed,
            split);
    if (sw->sampled >= 0)
        fprintf(f, "; valid groups over %lld sampled groups", (long long)sw->sampled);
    fprintf(f, "\n\n| buffer (KB) | fusable / unfusable ops | DRAM all (MB) | DRAM fusable (MB) | "
               "groups | MBU (KB) |");
    if (o->do_exact)
        fprintf(f, " exact DRAM all (MB) | gap (%%) |");
    fprintf(f, " layer-by-layer (MB) | reduction (%%) |");
    if (sw->sampled >= 0)
        fprintf(f, " valid groups (%%) |");
    fprintf(f, "\n|---|---|---|---|---|---|");
    if (o->do_exact)
        fprintf(f, "---|---|");
    fprintf(f, "---|---|");
    if (sw->sampled >= 0)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (int32_t b = 0; b < o->nb; b++) {
        const lf__sweep_point *p = &sw->pts[b];
        char kb[32], mbu[32];
        lf__kb(p->beta, kb, sizeof kb);
        snprintf(mbu, sizeof mbu, "%.1f", (double)p->m.mbu / 1024.0);
        fprintf(f, "| %s | %d / %d | %.3f | %.3f | %d | %s |", kb, (int)p->n_fusable,
                (int)p->n_unfusable, (double)p->m.dram_all / 1e6, (double)p->m.dram_fusable / 1e6,
                (int)p->m.n_groups, mbu);
        if (o->do_exact) {
            if (p->has_exact)
                fprintf(f, " %.3f | %.2f |", (double)p->exact_all / 1e6,
                        lf__pct(p->m.dram_all - p->exact_all, p->exact_all));
            else
                fprintf(f, " - | - |");
        }
        fprintf(f, " %.3f | %.1f |", (double)p->layer_all / 1e6,
                lf__pct(p->layer_all - p->m.dram_all, p->layer_all));
        if (sw->sampled >= 0 && p->has_valid)
            fprintf(f, " %.1f |", p->valid_pct);
        else if (sw->sampled >= 0)
            fprintf(f, " - |");
        fprintf(f, "\n");
    }
}

static void lf__csv_header(FILE *f)
{
    fprintf(f, "model,scheme,buffer_bytes,fusable_ops,unfusable_ops,dram_all,dram_fusable,groups,"
               "mbu,exact_dram_all,gap_pct,layer_dram_all,reduction_pct,valid_pct,sampled_groups\n");
}

static void lf__csv_sweep(FILE *f, const lf__sweep_setup *o, const lf__sweep *sw)
{
    for (int32_t b = 0; b < o->nb; b++) {
        const lf__sweep_point *p = &sw->pts[b];
        fprintf(f, "%s,%s,%lld,%d,%d,%lld,%lld,%d,%lld,", sw->model, sw->scheme,
                (long long)p->beta, (int)p->n_fusable, (int)p->n_unfusable,
                (long long)p->m.dram_all, (long long)p->m.dram_fusable, (int)p->m.n_groups,
                (long long)p->m.mbu);
        if (p->has_exact)
            fprintf(f, "%lld,%.2f,", (long long)p->exact_all,
                    lf__pct(p->m.dram_all - p->exact_all, p->exact_all));
        else
            fprintf(f, ",,");
        fprintf(f, "%lld,%.2f,", (long long)p->layer_all,
                lf__pct(p->layer_all - p->m.dram_all, p->layer_all));
        if (p->has_valid)
            fprintf(f, "%.2f,%lld\n", p->valid_pct, (long long)sw->sampled);
        else
            fprintf(f, ",\n");
    }
}

static void lf__json_head(FILE *f, const lf__sweep_setup *o)
{
    fprintf(f, "{\n  \"tool\": \"fusionplan\",\n  \"version\": ");
    lf_json_string(f, LF_VERSION);
    fprintf(f, ",\n  \"command\": \"sweep-buffer\",\n  \"search\": {\"algorithm\": ");
    lf_json_string(f, o->search);
    fprintf(f, ", \"budget\": %lld, \"seed\": %lld, \"split\": \"%s\", \"proposer\": ",
            (long long)o->budget, (long long)o->seed, o->tree ? "tree" : "random");
    if (o->tree) {
        lf_json_string(f, o->proposer);
        fprintf(f, ", \"k\": %lld},\n", (long long)o->k);
    } else {
        fprintf(f, "null, \"k\": null},\n");
    }
    fprintf(f, "  \"exact\": %s,\n  \"exact_limit\": ", o->do_exact ? "true" : "false");
    if (o->do_exact && o->exact_limit > 0)
        fprintf(f, "%lld", (long long)o->exact_limit);
    else
        fprintf(f, "null");
    fprintf(f, ",\n  \"samples\": %lld,\n  \"hardware\": {\"source\": ", (long long)o->samples);
    lf_json_string(f, o->hw.source);
    fprintf(f, ", \"act_bytes\": %d, \"weight_bytes\": %d},\n  \"buffers\": [", (int)o->hw.act_bytes,
            (int)o->hw.weight_bytes);
    for (int32_t b = 0; b < o->nb; b++)
        fprintf(f, "%s%lld", b ? ", " : "", (long long)o->betas[b]);
    fprintf(f, "],\n  \"sweeps\": [");
}

static void lf__json_sweep(FILE *f, const lf__sweep_setup *o, const lf__sweep *sw, int first)
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
    for (int32_t b = 0; b < o->nb; b++) {
        const lf__sweep_point *p = &sw->pts[b];
        fprintf(f, "%s\n        {\"buffer_bytes\": %lld, \"fusable_ops\": %d, \"unfusable_ops\": %d, "
                   "\"dram_all\": %lld, \"dram_fusable\": %lld, \"groups\": %d, \"mbu\": %lld, "
                   "\"exact_dram_all\": ",
                b ? "," : "", (long long)p->beta, (int)p->n_fusable, (int)p->n_unfusable,
                (long long)p->m.dram_all, (long long)p->m.dram_fusable, (int)p->m.n_groups,
                (long long)p->m.mbu);
        if (p->has_exact) {
            fprintf(f, "%lld, \"gap_pct\": ", (long long)p->exact_all);
            lf_json_double(f, lf__round4(lf__pct(p->m.dram_all - p->exact_all, p->exact_all)));
        } else {
            fprintf(f, "null, \"gap_pct\": null");
        }
        fprintf(f, ", \"layer_dram_all\": %lld, \"reduction_pct\": ", (long long)p->layer_all);
        lf_json_double(f, lf__round4(lf__pct(p->layer_all - p->m.dram_all, p->layer_all)));
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

static lf_status lf__charts(const lf__sweep_setup *o, const lf__sweep *sw, int n_sw,
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
    for (int32_t b = 0; b < o->nb; b++)
        x[b] = (double)o->betas[b] / 1024.0;
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
            for (int32_t b = 0; b < o->nb; b++) {
                const lf__sweep_point *p = &sw[i].pts[b];
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
            series[ns] = (lf_chart_series){labels[ns], x, yy, o->nb};
            ns++;
        }
    }
    snprintf(title, sizeof title, "DRAM against buffer size (%s, %s search, budget %lld%s%s)",
             schemes, o->search, (long long)o->budget, o->tree ? ", " : "", o->tree ? split : "");
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
    if (o->samples <= 0)
        goto done;

    /* Valid groups: one line per network and scheme. */
    ns = 0;
    for (int i = 0; i < n_sw; i++) {
        double *yy = y + (size_t)ns * LF_SWEEP_MAX_BUFFERS;
        for (int32_t b = 0; b < o->nb; b++)
            yy[b] = sw[i].pts[b].has_valid ? sw[i].pts[b].valid_pct : NAN;
        snprintf(labels[ns], sizeof labels[ns], "%s%s%s", sw[i].model, o->n_schemes > 1 ? " " : "",
                 o->n_schemes > 1 ? sw[i].scheme : "");
        series[ns] = (lf_chart_series){labels[ns], x, yy, o->nb};
        ns++;
    }
    snprintf(title, sizeof title, "Valid fusion groups against buffer size (%s, up to %lld groups "
                                  "sampled per network)",
             schemes, (long long)o->samples);
    lf_chart v = {title, "on-chip buffer (KB)", "valid groups (%)", 1, 0, 0, series, ns, 0};
    st = lf_chart_save_svg(&v, vpath);
done:
    if (st == LF_OK && !o->quiet)
        fprintf(stderr, "wrote %s%s%s\n", path, o->samples > 0 ? " and " : "",
                o->samples > 0 ? vpath : "");
    free(series);
    free(x);
    free(y);
    free(labels);
    free(vpath);
    return st;
}

/* ---- the command -------------------------------------------------------- */

/* Parses --buffers, or --from/--to doubling. Returns 0 or an exit status. */
static int lf__parse_buffers(const lf_cli_command *cmd, lf__sweep_setup *o)
{
    const char *list = lf_cli_get(cmd, "buffers");
    const char *from = lf_cli_get(cmd, "from"), *to = lf_cli_get(cmd, "to");
    if (list) {
        if (from || to)
            return lf_cli_usage_error(cmd, "--buffers cannot be combined with --from or --to");
        char buf[1024], *items[LF_SWEEP_MAX_BUFFERS];
        if (strlen(list) >= sizeof buf)
            return lf_cli_usage_error(cmd, "--buffers list too long");
        snprintf(buf, sizeof buf, "%s", list);
        int n = lf_cli_split_list(buf, items, LF_SWEEP_MAX_BUFFERS);
        if (n < 1)
            return lf_cli_usage_error(cmd, "--buffers names no size");
        if (n > LF_SWEEP_MAX_BUFFERS)
            return lf_cli_usage_error(cmd, "--buffers has %d sizes; at most %d", n,
                                      LF_SWEEP_MAX_BUFFERS);
        for (int i = 0; i < n; i++) {
            if (lf_hw_parse_size(items[i], &o->betas[i]) != LF_OK)
                return lf_cli_usage_error(cmd, "--buffers: %s", lf_last_error());
            if (i && o->betas[i] <= o->betas[i - 1])
                return lf_cli_usage_error(cmd, "--buffers must be strictly ascending ('%s' after "
                                               "'%s')",
                                          items[i], items[i - 1]);
        }
        o->nb = n;
        return 0;
    }
    int64_t lo = 128 * 1024, hi = 2048 * 1024;
    if (from && lf_hw_parse_size(from, &lo) != LF_OK)
        return lf_cli_usage_error(cmd, "--from: %s", lf_last_error());
    if (to && lf_hw_parse_size(to, &hi) != LF_OK)
        return lf_cli_usage_error(cmd, "--to: %s", lf_last_error());
    if (lo > hi)
        return lf_cli_usage_error(cmd, "--from (%s) is larger than --to (%s)", from ? from : "128KB",
                                  to ? to : "2048KB");
    int n = 0;
    for (int64_t b = lo; b <= hi && n <= LF_SWEEP_MAX_BUFFERS; b *= 2)
        if (n++ < LF_SWEEP_MAX_BUFFERS)
            o->betas[n - 1] = b;
    if (n > LF_SWEEP_MAX_BUFFERS)
        return lf_cli_usage_error(cmd, "--from %s --to %s doubles past %d sizes; narrow the range",
                                  from ? from : "128KB", to ? to : "2048KB", LF_SWEEP_MAX_BUFFERS);
    if (o->betas[n - 1] != hi)
        return lf_cli_usage_error(cmd, "--to (%s) must be --from (%s) times a power of two",
                                  to ? to : "2048KB", from ? from : "128KB");
    o->nb = n;
    return 0;
}

int lf_cmd_sweep_buffer(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "built-in networks (default " LF_SWEEP_DEFAULT_MODELS ")", NULL},
        {"scheme", "LIST", "cost models: lbdf (default), brr or lbdf,brr", NULL},
        {"from", "SIZE", "smallest buffer (default 128KB); doubles up to --to", NULL},
        {"to", "SIZE", "largest buffer (default 2048KB), --from times a power of two", NULL},
        {"buffers", "LIST", "explicit buffer sizes instead, ascending, at most 8", NULL},
        {"hw", "FILE", "hardware description XML (element sizes; the buffer is swept)", NULL},
        {"search", "NAME", "random, local (default) or nsga2", NULL},
        {"budget", "N", "plans proposed per point (default 1000)", NULL},
        {"seed", "S", "seed of the search and the group sample (default 1)", NULL},
        {"threads", "T", "OpenMP threads (default: all cores; the output does not depend on it)",
         NULL},
        {"split", "NAME", "repair of invalid groups: random (default) or tree", NULL},
        {"proposer", "NAME", "tree splitter's edge proposer: all (default), random, attrib, gnne, "
                             "pg, rg, saliency, occlusion", NULL},
        {"k", "N", "edges the proposer may return (default 3; 0: all)", NULL},
        {"no-exact", NULL, "skip the exact optimum (no exact and gap columns)", NULL},
        {"exact-limit", "N", "candidate sets the exact planner may visit per point (default "
                             "200000000); past it the point shows '-'", NULL},
        {"samples", "N", "groups sampled per network for the valid fraction (default 1000; 0: "
                         "no such column)", NULL},
        {"format", "FMT", "md (default), csv or json", NULL},
        {"output", "FILE", "(or -o) write the table to FILE instead of stdout", NULL},
        {"svg", "FILE", "also draw DRAM against buffer to FILE.svg and the valid fraction to "
                        "FILE-valid.svg", NULL},
        {"quiet", NULL, "no progress lines on stderr", NULL},
    };
    lf_cli_command cmd = {
        "sweep-buffer", "DRAM traffic and valid-group fraction as the buffer doubles (paper Fig. 3).",
        "sweep-buffer [--models LIST] [--scheme lbdf|brr] [--from SIZE] [--to SIZE] "
        "[--search NAME] [--budget N] [--format md|csv|json] [-o FILE] [--svg FILE]",
        "For every network, scheme and buffer size: fusable / unfusable ops; the search's best "
        "plan (DRAM\nover all ops and over fusable ops in MB of 10^6 bytes, groups, MBU in KB); "
        "the exact optimum over\nall ops and the search's gap to it (%); layer-by-layer DRAM over "
        "all ops and the reduction\nagainst it (%); and the share of --samples fusion groups, "
        "sampled once per network and scheme,\nthat fit the buffer (%). DRAM over all ops "
        "charges unfusable ops with their weights streamed\nper row tile; it is the figure "
        "to compare across buffers, since the fusable-op set changes with\nthe buffer. The "
        "output is identical for any --threads and contains no timings (progress and\ntimings "
        "go to stderr). See docs/experiments.md.",
        opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;

    lf__sweep_setup o;
    memset(&o, 0, sizeof o);
    if ((rc = lf_cli_int(&cmd, "budget", 1000, 1, 100000000, &o.budget)) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &o.seed)) ||
        (rc = lf_cli_int(&cmd, "threads", 0, 0, 1024, &o.threads)) ||
        (rc = lf_cli_int(&cmd, "k", 3, 0, 1000000, &o.k)) ||
        (rc = lf_cli_int(&cmd, "samples", 1000, 0, 1000000, &o.samples)) ||
        (rc = lf_cli_int(&cmd, "exact-limit", 0, 1, INT64_MAX, &o.exact_limit)))
        return rc;
    o.search = lf_cli_get(&cmd, "search");
    if (!o.search)
        o.search = "local";
    if (strcmp(o.search, "random") != 0 && strcmp(o.search, "local") != 0 &&
        strcmp(o.search, "nsga2") != 0)
        return lf_cli_usage_error(&cmd, "unknown --search '%s' (use random, local or nsga2)",
                                  o.search);
    o.split = lf_cli_get(&cmd, "split");
    if (o.split && strcmp(o.split, "random") != 0 && strcmp(o.split, "tree") != 0)
        return lf_cli_usage_error(&cmd, "unknown --split '%s' (use random or tree)", o.split);
    o.tree = o.split && strcmp(o.split, "tree") == 0;
    o.proposer = lf_cli_get(&cmd, "proposer");
    if (o.proposer && !o.tree)
        return lf_cli_usage_error(&cmd, "--proposer needs --split tree");
    if (lf_cli_get(&cmd, "k") && !o.tree)
        return lf_cli_usage_error(&cmd, "--k needs --split tree");
    if (!o.proposer)
        o.proposer = "all";
    if (o.tree) {
        const char *known[] = {"all", "random", "attrib",   "gnne",
                               "pg",  "rg",     "saliency", "occlusion"};
        int ok = 0;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            ok |= strcmp(o.proposer, known[i]) == 0;
        if (!ok)
            return lf_cli_usage_error(&cmd, "unknown --proposer '%s' (use all, random, attrib, "
                                            "gnne, pg, rg, saliency or occlusion)",
                                      o.proposer);
    }
    const char *fmt = lf_cli_get(&cmd, "format");
    if (!fmt)
        fmt = "md";
    if (strcmp(fmt, "md") != 0 && strcmp(fmt, "csv") != 0 && strcmp(fmt, "json") != 0)
        return lf_cli_usage_error(&cmd, "unknown --format '%s' (use md, csv or json)", fmt);
    o.do_exact = !lf_cli_get(&cmd, "no-exact");
    if (!o.do_exact && lf_cli_get(&cmd, "exact-limit"))
        return lf_cli_usage_error(&cmd, "--exact-limit and --no-exact exclude each other");
    o.quiet = lf_cli_get(&cmd, "quiet") != NULL;
    if ((rc = lf__parse_buffers(&cmd, &o)))
        return rc;

    char models_buf[1024], schemes_buf[64];
    const char *ml = lf_cli_get(&cmd, "models"), *sl = lf_cli_get(&cmd, "scheme");
    if (ml && strlen(ml) >= sizeof models_buf)
        return lf_cli_usage_error(&cmd, "--models list too long");
    if (sl && strlen(sl) >= sizeof schemes_buf)
        return lf_cli_usage_error(&cmd, "unknown --scheme '%s' (use lbdf, brr or lbdf,brr)", sl);
    snprintf(models_buf, sizeof models_buf, "%s", ml ? ml : LF_SWEEP_DEFAULT_MODELS);
    snprintf(schemes_buf, sizeof schemes_buf, "%s", sl ? sl : "lbdf");
    char *models[LF_SWEEP_MAX_MODELS], *schemes[2];
    int nm = lf_cli_split_list(models_buf, models, LF_SWEEP_MAX_MODELS);
    int ns = lf_cli_split_list(schemes_buf, schemes, 2);
    if (nm < 1)
        return lf_cli_usage_error(&cmd, "--models names no network");
    if (nm > LF_SWEEP_MAX_MODELS)
        return lf_cli_usage_error(&cmd, "--models has %d networks; at most %d", nm,
                                  LF_SWEEP_MAX_MODELS);
    for (int i = 0; i < nm; i++)
        if (!lf__known_model(models[i]))
            return lf_cli_usage_error(&cmd, "unknown model '%s'; 'fusionplan models' lists the "
                                            "built-in networks",
                                      models[i]);
    if (ns < 1 || ns > 2)
        return lf_cli_usage_error(&cmd, "unknown --scheme '%s' (use lbdf, brr or lbdf,brr)", sl);
    for (int i = 0; i < ns; i++)
        if (strcmp(schemes[i], "lbdf") != 0 && strcmp(schemes[i], "brr") != 0)
            return lf_cli_usage_error(&cmd, "unknown scheme '%s' (use lbdf or brr)", schemes[i]);
    if (ns == 2 && strcmp(schemes[0], schemes[1]) == 0)
        return lf_cli_usage_error(&cmd, "--scheme names %s twice", schemes[0]);
    o.n_schemes = ns;
    const char *svg = lf_cli_get(&cmd, "svg");
    const char *output = lf_cli_get(&cmd, "output");
    o.hw_file = lf_cli_get(&cmd, "hw");
    lf_hw_default(&o.hw);
    lf_status st;
    if (o.hw_file && (st = lf_hw_load(&o.hw, o.hw_file)) != LF_OK)
        return lf_cli_fail(st);

    lf__sweep *sweeps = calloc((size_t)(nm * ns), sizeof *sweeps);
    if (!sweeps)
        return lf_cli_fail(lf_set_error(LF_ENOMEM, "out of memory"));
    lf_atomic_file af = {0};
    FILE *f = stdout;
    if (output) {
        if ((st = lf_atomic_open(&af, output)) != LF_OK) {
            free(sweeps);
            return lf_cli_fail(st);
        }
        f = af.f;
    }
    int csv = strcmp(fmt, "csv") == 0, json = strcmp(fmt, "json") == 0;
    if (csv)
        lf__csv_header(f);
    else if (json)
        lf__json_head(f, &o);
    int n_sw = 0;
    double t_all = lf_now_seconds();
    for (int mi = 0; mi < nm && !rc; mi++) {
        lf_graph *g = NULL;
        if ((st = lf_model_build(models[mi], NULL, &g)) != LF_OK) {
            rc = lf_cli_fail(st);
            break;
        }
        for (int si = 0; si < ns && !rc; si++) {
            lf__sweep *sw = &sweeps[n_sw];
            sw->model = models[mi];
            sw->scheme = schemes[si];
            double t0 = lf_now_seconds();
            if ((rc = lf__run_valid(&o, models[mi], schemes[si], sw)))
                break;
            for (int32_t b = 0; b < o.nb && !rc; b++) {
                int has_valid = sw->pts[b].has_valid;
                double valid = sw->pts[b].valid_pct;
                rc = lf__run_point(&cmd, &o, g, models[mi], schemes[si], o.betas[b], &sw->pts[b]);
                sw->pts[b].has_valid = has_valid;
                sw->pts[b].valid_pct = valid;
            }
            if (rc)
                break;
            if (!o.quiet)
                fprintf(stderr, "sweep-buffer: %s %s, %d buffer size%s: %.2f s\n", models[mi],
                        schemes[si], (int)o.nb, o.nb == 1 ? "" : "s", lf_now_seconds() - t0);
            if (csv)
                lf__csv_sweep(f, &o, sw);
            else if (json)
                lf__json_sweep(f, &o, sw, n_sw == 0);
            else
                lf__md_sweep(f, &o, sw, n_sw == 0);
            fflush(f);
            n_sw++;
        }
        lf_graph_free(g);
    }
    if (!rc && json)
        fprintf(f, "\n  ]\n}\n");
    if (output) {
        if (rc)
            lf_atomic_abort(&af);
        else if ((st = lf_atomic_commit(&af)) != LF_OK)
            rc = lf_cli_fail(st);
        else if (!o.quiet)
            fprintf(stderr, "wrote %s\n", output);
    }
    if (!rc && svg && (st = lf__charts(&o, sweeps, n_sw, svg)) != LF_OK)
        rc = lf_cli_fail(st);
    if (!rc && !o.quiet)
        fprintf(stderr, "sweep-buffer: total %.2f s\n", lf_now_seconds() - t_all);
    free(sweeps);
    return rc;
}

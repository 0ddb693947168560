/* OCGGS's Table 3 as a library run (search/subst/ocggs_bench.h): the
 * configuration's lists, the run over networks x K x searches, the paper's
 * tables and the charts of Figures 4 and 5. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/svg_chart.h"
#include "search/subst/ocggs_bench.h"

void lf_ocggs_bench_config_default(lf_ocggs_bench_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    lf_ocggs_bench_set_models(cfg, "inception_v3,resnet_blocks:8,resnext50_32x4d,nasnet_a,bert:8,sru:1,nasrnn:5");
    lf_ocggs_bench_set_searches(cfg, "enum,prune,dpp,split,backtrack,sample");
    lf_ocggs_bench_set_ks(cfg, "10");
    cfg->time_limit_s = 60;
    cfg->cpu_clock = 1;
    cfg->budget = 1000;
    cfg->seed = 1;
    cfg->objective = LF_OBJ_TIME;
}

/* Splits list at commas into items (empty ones skipped, at most max stored;
 * returns the true count). */
static int32_t lf__split(const char *list, char *buf, size_t len, char **items, int32_t max)
{
    snprintf(buf, len, "%s", list);
    int32_t n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n < max)
            items[n] = t;
        n++;
    }
    return n;
}

lf_status lf_ocggs_bench_set_models(lf_ocggs_bench_config *cfg, const char *list)
{
    return lf_subst_network_list(list, cfg->models, LF_OCGGS_BENCH_MODELS, &cfg->n_models);
}

lf_status lf_ocggs_bench_set_searches(lf_ocggs_bench_config *cfg, const char *list)
{
    char buf[256], *items[LF_OCGGS_BENCH_SEARCHES];
    lf_subst_search s[LF_OCGGS_BENCH_SEARCHES];
    int32_t n = lf__split(list, buf, sizeof buf, items, LF_OCGGS_BENCH_SEARCHES);
    if (n > LF_OCGGS_BENCH_SEARCHES || n < 1)
        return lf_set_error(LF_EINVAL, "1 to %d searches", LF_OCGGS_BENCH_SEARCHES);
    for (int32_t i = 0; i < n; i++)
        if ((s[i] = lf_subst_search_from_name(items[i])) == LF_SEARCH_COUNT)
            return lf_set_error(LF_EINVAL, "unknown search '%s' (enum, prune, dpp, split, backtrack, sample)",
                                items[i]);
    memcpy(cfg->searches, s, (size_t)n * sizeof s[0]);
    cfg->n_searches = n;
    return LF_OK;
}

lf_status lf_ocggs_bench_set_ks(lf_ocggs_bench_config *cfg, const char *list)
{
    char buf[256], *items[LF_OCGGS_BENCH_KS];
    int32_t ks[LF_OCGGS_BENCH_KS];
    int32_t n = lf__split(list, buf, sizeof buf, items, LF_OCGGS_BENCH_KS);
    if (n > LF_OCGGS_BENCH_KS || n < 1)
        return lf_set_error(LF_EINVAL, "1 to %d lengths", LF_OCGGS_BENCH_KS);
    for (int32_t i = 0; i < n; i++) {
        char *end = NULL;
        long v = strtol(items[i], &end, 10);
        if (!*items[i] || *end || v < 1 || v > 64)
            return lf_set_error(LF_EINVAL, "'%s' is not a length from 1 to 64", items[i]);
        ks[i] = (int32_t)v;
    }
    memcpy(cfg->ks, ks, (size_t)n * sizeof ks[0]);
    cfg->n_ks = n;
    return LF_OK;
}

const char *lf_ocggs_bench_title(lf_subst_search s)
{
    switch (s) {
    case LF_SEARCH_ENUM: return "ENU";
    case LF_SEARCH_PRUNE: return "Pruning";
    case LF_SEARCH_DPP: return "DPP";
    case LF_SEARCH_SPLIT: return "MF (split)";
    case LF_SEARCH_BACKTRACK: return "TS (backtrack)";
    case LF_SEARCH_SAMPLE: return "Sampling";
    default: return "?";
    }
}

lf_status lf_ocggs_bench_open(lf_ocggs_bench *b, const lf_ocggs_bench_config *cfg)
{
    memset(b, 0, sizeof *b);
    b->cfg = *cfg;
    if (lf_subst_objective_fused(cfg->objective) || cfg->objective < 0 || cfg->objective >= LF_OBJ_COUNT)
        return lf_set_error(LF_EINVAL, "bench ocggs: objective time, flops, bytes or kernels");
    if (cfg->n_models < 1 || cfg->n_ks < 1 || cfg->n_searches < 1)
        return lf_set_error(LF_EINVAL, "bench ocggs: no networks, searches or lengths");
    lf_status st = lf_subst_ruleset_open(&b->rules, cfg->rules ? cfg->rules : "builtin", cfg->taso_path);
    if (!st)
        st = lf_subst_ruleset_verify(&b->rules, &b->failed);
    b->cells = calloc((size_t)(cfg->n_models * cfg->n_ks * cfg->n_searches), sizeof *b->cells);
    if (!st && !b->cells)
        st = lf_set_error(LF_ENOMEM, "bench ocggs: out of memory");
    lf_subst_coster_init(&b->coster, cfg->objective, cfg->hw, "lbdf");
    b->scale = cfg->objective == LF_OBJ_TIME ? 1e6 : 1.0;
    return st;
}

void lf_ocggs_bench_close(lf_ocggs_bench *b)
{
    free(b->cells);
    b->cells = NULL;
    lf_subst_ruleset_close(&b->rules);
}

const lf_ocggs_cell *lf_ocggs_bench_cell(const lf_ocggs_bench *b, int32_t model, int32_t k, int32_t search)
{
    return &b->cells[(model * b->cfg.n_ks + k) * b->cfg.n_searches + search];
}

/* One search on g at K: its cell, or (LF_ELIMIT: no result) a notice. */
static lf_status lf__cell(lf_ocggs_bench *b, const lf_graph *g, int32_t m, int32_t k, int32_t s,
                          lf_ocggs_bench_notice_fn notice, void *user)
{
    const lf_ocggs_bench_config *cfg = &b->cfg;
    lf_subst_options o;
    lf_subst_options_default(&o);
    o.search = cfg->searches[s];
    o.max_steps = o.max_len = o.bt_max_steps = cfg->ks[k];
    o.time_limit_s = cfg->time_limit_s;
    o.time_limit_cpu = cfg->cpu_clock;
    o.budget = o.search == LF_SEARCH_ENUM ? INT64_MAX / 4 : cfg->budget;
    o.seed = cfg->seed;
    o.skip_check = 1; /* figures only: `fusionplan optimize` checks what it writes */
    lf_subst_result r;
    memset(&r, 0, sizeof r);
    lf_status st = lf_subst_optimize(g, &b->rules, &b->coster, &o, &r);
    lf_ocggs_cell *cell = &b->cells[(m * cfg->n_ks + k) * cfg->n_searches + s];
    char line[1200];
    if (st == LF_ELIMIT) { /* an exact search at the cap: no result */
        snprintf(line, sizeof line, "%s K %lld: %s\n", cfg->models[m], (long long)cfg->ks[k], lf_last_error());
        st = LF_OK;
    } else if (!st) {
        cell->ok = 1;
        cell->cost = lf_subst_cost_value(&b->coster, &r.after);
        cell->secs = r.search_s;
        cell->cpu = r.search_cpu_s;
        cell->mb = r.peak_heap >= 0 ? (double)r.peak_heap / 1048576.0 : NAN;
        cell->timed_out = r.timed_out;
        cell->work = r.sequences ? r.sequences : r.expanded;
        snprintf(line, sizeof line, "%s K %lld %s: %.3f in %.3f s\n", cfg->models[m], (long long)cfg->ks[k],
                 lf_subst_search_name(o.search), cell->cost * b->scale, cell->secs);
    }
    if (!st && notice)
        notice(user, line);
    lf_subst_result_destroy(&r);
    return st;
}

lf_status lf_ocggs_bench_run(lf_ocggs_bench *b, lf_ocggs_bench_notice_fn notice, void *user)
{
    const lf_ocggs_bench_config *cfg = &b->cfg;
    lf_status st = LF_OK;
    for (int32_t m = 0; m < cfg->n_models && !st; m++) {
        lf_graph *g = NULL;
        if ((st = lf_subst_network_spec(cfg->models[m], &g, &b->blocks[m])))
            break;
        b->ops[m] = lf_graph_compute_ops(g);
        lf_subst_costs k0;
        if (!(st = lf_subst_cost(&b->coster, g, 0, &k0)))
            b->start[m] = lf_subst_cost_value(&b->coster, &k0);
        for (int32_t k = 0; k < cfg->n_ks && !st; k++)
            for (int32_t s = 0; s < cfg->n_searches && !st; s++)
                st = lf__cell(b, g, m, k, s, notice, user);
        lf_graph_free(g);
    }
    return st;
}

void lf_ocggs_bench_write_header(FILE *f, const lf_ocggs_bench *b)
{
    const lf_ocggs_bench_config *cfg = &b->cfg;
    fprintf(f, "objective %s; K ", lf_subst_objective_name(cfg->objective));
    for (int32_t k = 0; k < cfg->n_ks; k++)
        fprintf(f, "%s%d", k ? "," : "", (int)cfg->ks[k]);
    fprintf(f, "; time cap %g s (%s) per search; backtrack/split budget %lld, alpha 1.05; sample Q 20, eta 1, seed "
               "%lld; %d %s rules (%d disabled by verification); one thread; memory: peak heap above the "
               "search's start (glibc mallinfo2)\n",
            cfg->time_limit_s, cfg->cpu_clock ? "CPU time" : "wall clock", (long long)cfg->budget,
            (long long)cfg->seed, (int)b->rules.n, cfg->rules ? cfg->rules : "built-in", (int)b->failed);
}

/* One table: what 0 cost, 1 wall seconds, 2 peak heap, 3 CPU seconds. */
static void lf__table(FILE *f, const lf_ocggs_bench *b, const char *title, int what)
{
    const lf_ocggs_bench_config *cfg = &b->cfg;
    fprintf(f, "\n%s\n\n| network | K |%s", title, what == 0 ? " start |" : "");
    for (int32_t s = 0; s < cfg->n_searches; s++)
        fprintf(f, " %s |", lf_ocggs_bench_title(cfg->searches[s]));
    fprintf(f, "\n|---|---:|%s", what == 0 ? "---:|" : "");
    for (int32_t s = 0; s < cfg->n_searches; s++)
        fprintf(f, "---:|");
    fprintf(f, "\n");
    for (int32_t m = 0; m < cfg->n_models; m++)
        for (int32_t k = 0; k < cfg->n_ks; k++) {
            fprintf(f, "| %s | %lld |", cfg->models[m], (long long)cfg->ks[k]);
            if (what == 0)
                fprintf(f, " %.3f |", b->start[m] * b->scale);
            for (int32_t s = 0; s < cfg->n_searches; s++) {
                const lf_ocggs_cell *c = lf_ocggs_bench_cell(b, m, k, s);
                if (!c->ok)
                    fprintf(f, " - |");
                else if (what == 0)
                    fprintf(f, " %.3f |", c->cost * b->scale);
                else if (what == 1)
                    fprintf(f, " %s%.3f |", c->timed_out ? "> " : "", c->secs);
                else if (what == 3)
                    fprintf(f, " %.3f |", c->cpu);
                else
                    fprintf(f, " %s%.2f |", c->timed_out ? "> " : "", c->mb);
            }
            fprintf(f, "\n");
        }
}

void lf_ocggs_bench_write_tables(FILE *f, const lf_ocggs_bench *b)
{
    const lf_ocggs_bench_config *cfg = &b->cfg;
    fprintf(f, "\nnetworks:");
    for (int32_t m = 0; m < cfg->n_models; m++)
        fprintf(f, "%s %s %d ops", m ? "," : "", cfg->models[m], (int)b->ops[m]);
    fprintf(f, "\n");
    lf__table(f, b, cfg->objective == LF_OBJ_TIME ? "(a) Optimized cost (us, analytic roofline)" : "(a) Optimized cost",
              0);
    lf__table(f, b, "(b) Search time (s, wall clock)", 1);
    lf__table(f, b, "(b') Search time (s, CPU time of the process: the wall time on an idle machine)", 3);
    lf__table(f, b, "(c) Peak heap of the search (MB)", 2);
}

lf_status lf_ocggs_bench_save_chart(const lf_ocggs_bench *b, const char *prefix, int what, char *path,
                                    size_t len)
{
    static const char *const whats[3] = {"cost", "time", "memory"};
    const lf_ocggs_bench_config *cfg = &b->cfg;
    if (what < 0 || what > 2)
        return lf_set_error(LF_EINVAL, "bench ocggs: chart %d (0 cost, 1 time, 2 memory)", what);
    /* x: K when several are given, else the networks' blocks */
    int32_t nk = cfg->n_ks, ns = cfg->n_searches, nx = nk > 1 ? nk : cfg->n_models;
    double x[LF_OCGGS_BENCH_MODELS > LF_OCGGS_BENCH_KS ? LF_OCGGS_BENCH_MODELS : LF_OCGGS_BENCH_KS];
    double *y = calloc((size_t)(nx * ns + 1), sizeof *y);
    lf_chart_series series[LF_OCGGS_BENCH_SEARCHES];
    if (!y)
        return lf_set_error(LF_ENOMEM, "bench ocggs: out of memory");
    for (int32_t i = 0; i < nx; i++)
        x[i] = nk > 1 ? (double)cfg->ks[i] : (double)(b->blocks[i] ? b->blocks[i] : 1);
    for (int32_t s = 0; s < ns; s++) {
        for (int32_t i = 0; i < nx; i++) {
            const lf_ocggs_cell *c = nk > 1 ? lf_ocggs_bench_cell(b, 0, i, s) : lf_ocggs_bench_cell(b, i, 0, s);
            double v = what == 0 ? c->cost * b->scale : what == 1 ? c->cpu : c->mb;
            y[s * nx + i] = c->ok && (what != 1 || v > 0) ? (what == 1 && v < 1e-4 ? 1e-4 : v) : NAN;
        }
        series[s] = (lf_chart_series){lf_ocggs_bench_title(cfg->searches[s]), x, y + s * nx, nx};
    }
    char title[256];
    snprintf(path, len, "%s-%s.svg", prefix, whats[what]);
    /* the network's name without its blocks, e.g. "resnet_blocks" */
    snprintf(title, sizeof title, "%.*s%s: %s", (int)strcspn(cfg->models[0], ":"), cfg->models[0],
             nk > 1 ? "" : " by blocks", whats[what]);
    const char *ylab = what == 0 ? (cfg->objective == LF_OBJ_TIME ? "optimized cost (us)" : "optimized cost")
                       : what == 1 ? "search CPU time (s)" : "peak heap (MB)";
    lf_chart ch = {title, nk > 1 ? "K (longest sequence)" : "blocks", ylab, 0, 0, 0, series, ns, what == 1};
    lf_status st = lf_chart_save_svg(&ch, path);
    free(y);
    return st;
}

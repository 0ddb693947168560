/* fusionplan bench ocggs: OCGGS's Table 3 (and Figures 4 and 5) under the
 * analytic cost: every search (ENU, Pruning, DPP, MetaFlow's split, TASO's
 * backtracking, Sampling) on every network at sequence length K with a
 * wall-clock cap, printing the optimized cost, the search time (wall clock,
 * and the process's CPU time, which on a shared machine is what the wall
 * time would be on an idle one) and the peak heap of each as tables shaped
 * like the paper's. The exact searches
 * (ENU, Pruning, DPP) report "-" when the cap ends them, as the paper does;
 * the others the best found by then, marked ">" on the time. --svg charts
 * cost, time and memory against the blocks of a network or against K. A
 * benchmark: it prints figures and never fails on timing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/cli/cli.h"
#include "planner/io/svg_chart.h"
#include "search/subst/subst.h"

#define LF__OB_MODELS 16
#define LF__OB_KS 8
#define LF__OB_SEARCHES 6

typedef struct lf__ob_cell {
    int ok;            /* a result */
    double cost, secs, cpu, mb;
    int timed_out;
    int64_t work;      /* sequences examined (OCGGS) or graphs expanded */
} lf__ob_cell;

static const char *lf__ob_title(lf_subst_search s)
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

/* name or name:blocks */
static lf_status lf__ob_build(const char *spec, lf_graph **g, int32_t *blocks)
{
    char name[128];
    snprintf(name, sizeof name, "%s", spec);
    char *colon = strchr(name, ':');
    *blocks = 0;
    if (colon) {
        char *end = NULL;
        long b = strtol(colon + 1, &end, 10);
        if (!colon[1] || *end || b < 1 || b > 64)
            return lf_set_error(LF_EINVAL, "--models: '%s': blocks must be 1 to 64", spec);
        *colon = '\0';
        *blocks = (int32_t)b;
    }
    lf_status st = lf_subst_network_blocks(name, 0, *blocks, g);
    if (st == LF_ENOTFOUND && !*blocks) {
        lf_model_options mo = {0, 1};
        st = lf_model_build(name, &mo, g);
    }
    return st;
}

static void lf__ob_table(const char *title, int what, char **models, int nm, const int64_t *ks, int nk,
                         const lf_subst_search *ss, int ns, lf__ob_cell *cells, const double *start, double scale)
{
    printf("\n%s\n\n| network | K |%s", title, what == 0 ? " start |" : "");
    for (int s = 0; s < ns; s++)
        printf(" %s |", lf__ob_title(ss[s]));
    printf("\n|---|---:|%s", what == 0 ? "---:|" : "");
    for (int s = 0; s < ns; s++)
        printf("---:|");
    printf("\n");
    for (int m = 0; m < nm; m++)
        for (int k = 0; k < nk; k++) {
            printf("| %s | %lld |", models[m], (long long)ks[k]);
            if (what == 0)
                printf(" %.3f |", start[m] * scale);
            for (int s = 0; s < ns; s++) {
                const lf__ob_cell *c = &cells[(m * nk + k) * ns + s];
                if (!c->ok)
                    printf(" - |");
                else if (what == 0)
                    printf(" %.3f |", c->cost * scale);
                else if (what == 1)
                    printf(" %s%.3f |", c->timed_out ? "> " : "", c->secs);
                else if (what == 3)
                    printf(" %.3f |", c->cpu);
                else
                    printf(" %s%.2f |", c->timed_out ? "> " : "", c->mb);
            }
            printf("\n");
        }
}

/* One chart: y (0 cost, 1 seconds, 2 MB) of each search against x. */
static lf_status lf__ob_chart(const char *path, const char *title, int what, const double *x, int nx, int ns,
                              const lf_subst_search *ss, const lf__ob_cell *const *col, const char *x_label,
                              double scale, const char *unit)
{
    double *y = calloc((size_t)(nx * ns + 1), sizeof *y);
    lf_chart_series series[LF__OB_SEARCHES];
    if (!y)
        return lf_set_error(LF_ENOMEM, "bench ocggs: out of memory");
    for (int s = 0; s < ns; s++) {
        for (int i = 0; i < nx; i++) {
            const lf__ob_cell *c = &col[i][s];
            double v = what == 0 ? c->cost * scale : what == 1 ? c->cpu : c->mb;
            y[s * nx + i] = c->ok && (what != 1 || v > 0) ? (what == 1 && v < 1e-4 ? 1e-4 : v) : NAN;
        }
        series[s] = (lf_chart_series){lf__ob_title(ss[s]), x, y + s * nx, nx};
    }
    char ylab[64];
    snprintf(ylab, sizeof ylab, "%s", what == 0 ? unit : what == 1 ? "search CPU time (s)" : "peak heap (MB)");
    lf_chart ch = {title, x_label, ylab, 0, 0, 0, series, ns, what == 1};
    lf_status st = lf_chart_save_svg(&ch, path);
    free(y);
    return st;
}

int lf_cmd_bench_ocggs(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks, NAME or NAME:BLOCKS, comma-separated (default: Table 3's seven: "
                           "inception_v3, resnet_blocks:8, resnext50_32x4d, nasnet_a, bert:8, sru:1, nasrnn:5)", NULL},
        {"searches", "LIST", "enum, prune, dpp, split, backtrack, sample (default all, in that order)", NULL},
        {"max-steps", "LIST", "sequence lengths K, comma-separated (default 10); backtrack and split are bounded "
                              "by K too (split: per part)", NULL},
        {"time-limit", "SECONDS", "cap per search (default 60)", NULL},
        {"clock", "NAME", "what the cap counts: cpu (default: the process's CPU time, reproducible on a "
                          "shared machine) or wall", NULL},
        {"budget", "N", "backtrack and split: graphs expanded (default 1000)", NULL},
        {"hw", "FILE", "hardware description XML: the roofline's <gpu> figures", NULL},
        {"objective", "NAME", "time (default), flops, bytes or kernels", NULL},
        {"seed", "S", "sample's tie-breaking seed (default 1)", NULL},
        {"svg", "PREFIX", "charts PREFIX-cost.svg, PREFIX-time.svg, PREFIX-memory.svg against K (several K) "
                          "or against the networks' blocks", NULL},
    };
    lf_cli_command cmd = {"bench ocggs", "OCGGS's searches against ENU, MetaFlow and TASO (OCGGS Table 3).",
                          "bench ocggs [--models LIST] [--searches LIST] [--max-steps LIST] [--time-limit S] "
                          "[--svg PREFIX]",
                          "For each network and K: the optimized cost, the search time (wall and CPU) and the "
                          "peak heap of each\nsearch (tables as OCGGS's Table 3a-c). Built-in rules, verified first; "
                          "one thread. The exact\nsearches print '-' when the time cap ends them; backtrack, "
                          "split and sample the best found\nby then ('>' on the time).",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    int64_t budget = 0, seed = 0;
    if ((rc = lf_cli_int(&cmd, "budget", 1000, 1, 100000000, &budget)) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)))
        return rc;
    double limit = 60;
    const char *lim = lf_cli_get(&cmd, "time-limit");
    if (lim) {
        char *end = NULL;
        limit = strtod(lim, &end);
        if (!*lim || *end || !(limit >= 1e-3 && limit <= 1e7))
            return lf_cli_usage_error(&cmd, "--time-limit: '%s' is not a number in [0.001, 1e7]", lim);
    }
    const char *clock = lf_cli_get(&cmd, "clock");
    if (clock && strcmp(clock, "cpu") != 0 && strcmp(clock, "wall") != 0)
        return lf_cli_usage_error(&cmd, "--clock: '%s' (cpu or wall)", clock);
    int cpu_clock = !clock || strcmp(clock, "cpu") == 0;
    const char *obj_name = lf_cli_get(&cmd, "objective");
    lf_subst_objective obj = obj_name ? lf_subst_objective_from_name(obj_name) : LF_OBJ_TIME;
    if (obj == LF_OBJ_COUNT || obj == LF_OBJ_DRAM)
        return lf_cli_usage_error(&cmd, "--objective: '%s' (time, flops, bytes or kernels)", obj_name);
    char mbuf[1024], sbuf[256], kbuf[256], *models[LF__OB_MODELS + 1], *sn[LF__OB_SEARCHES + 1], *kn[LF__OB_KS + 1];
    snprintf(mbuf, sizeof mbuf, "%s", lf_cli_get(&cmd, "models") ? lf_cli_get(&cmd, "models")
                                      : "inception_v3,resnet_blocks:8,resnext50_32x4d,nasnet_a,bert:8,sru:1,nasrnn:5");
    snprintf(sbuf, sizeof sbuf, "%s", lf_cli_get(&cmd, "searches") ? lf_cli_get(&cmd, "searches")
                                                                     : "enum,prune,dpp,split,backtrack,sample");
    snprintf(kbuf, sizeof kbuf, "%s", lf_cli_get(&cmd, "max-steps") ? lf_cli_get(&cmd, "max-steps") : "10");
    int nm = lf_cli_split_list(mbuf, models, LF__OB_MODELS + 1);
    int ns = lf_cli_split_list(sbuf, sn, LF__OB_SEARCHES + 1);
    int nk = lf_cli_split_list(kbuf, kn, LF__OB_KS + 1);
    if (nm > LF__OB_MODELS || ns > LF__OB_SEARCHES || nk > LF__OB_KS || nm < 1 || ns < 1 || nk < 1)
        return lf_cli_usage_error(&cmd, "--models, --searches, --max-steps: 1 to %d, %d and %d items", LF__OB_MODELS,
                                  LF__OB_SEARCHES, LF__OB_KS);
    lf_subst_search ss[LF__OB_SEARCHES];
    int64_t ks[LF__OB_KS];
    for (int s = 0; s < ns; s++) {
        ss[s] = lf_subst_search_from_name(sn[s]);
        if (ss[s] == LF_SEARCH_COUNT)
            return lf_cli_usage_error(&cmd, "--searches: unknown search '%s' (enum, prune, dpp, split, backtrack, "
                                            "sample)", sn[s]);
    }
    for (int k = 0; k < nk; k++) {
        char *end = NULL;
        long v = strtol(kn[k], &end, 10);
        if (!*kn[k] || *end || v < 1 || v > 64)
            return lf_cli_usage_error(&cmd, "--max-steps: '%s' is not a length from 1 to 64", kn[k]);
        ks[k] = v;
    }
    lf_hw hw;
    lf_graph *none = NULL;
    if ((rc = lf_cli_subst_graph(&cmd, NULL, &none, &hw)))
        return rc;
    lf_subst_ruleset rs;
    lf_status st = lf_subst_ruleset_open(&rs, "builtin", NULL);
    int32_t failed = 0;
    if (!st)
        st = lf_subst_ruleset_verify(&rs, &failed);
    lf__ob_cell *cells = calloc((size_t)(nm * nk * ns), sizeof *cells);
    double *start = calloc((size_t)nm, sizeof *start);
    int32_t *blocks = calloc((size_t)nm, sizeof *blocks), *ops = calloc((size_t)nm, sizeof *ops);
    if (!st && (!cells || !start || !blocks || !ops))
        st = lf_set_error(LF_ENOMEM, "bench ocggs: out of memory");
    lf_subst_coster c;
    lf_subst_coster_init(&c, obj, &hw, "lbdf");
    double scale = obj == LF_OBJ_TIME ? 1e6 : 1.0;
    const char *unit = obj == LF_OBJ_TIME ? "optimized cost (us)" : "optimized cost";
    if (!st)
        printf("objective %s; K %s; time cap %g s (%s) per search; backtrack/split budget %lld, alpha 1.05; sample Q 20, "
               "eta 1, seed %lld; %d built-in rules (%d disabled by verification); one thread; memory: peak heap "
               "above the search's start (glibc mallinfo2)\n",
               lf_subst_objective_name(obj), kbuf, limit, cpu_clock ? "CPU time" : "wall clock", (long long)budget, (long long)seed, (int)rs.n, (int)failed);
    for (int m = 0; m < nm && !st; m++) {
        lf_graph *g = NULL;
        if ((st = lf__ob_build(models[m], &g, &blocks[m])))
            break;
        ops[m] = lf_graph_compute_ops(g);
        lf_subst_costs k0;
        if (!(st = lf_subst_cost(&c, g, 0, &k0)))
            start[m] = lf_subst_cost_value(&c, &k0);
        for (int k = 0; k < nk && !st; k++)
            for (int s = 0; s < ns && !st; s++) {
                lf_subst_options o;
                lf_subst_options_default(&o);
                o.search = ss[s];
                o.max_steps = o.max_len = o.bt_max_steps = (int32_t)ks[k];
                o.time_limit_s = limit;
                o.time_limit_cpu = cpu_clock;
                o.budget = ss[s] == LF_SEARCH_ENUM ? INT64_MAX / 4 : budget;
                o.seed = (uint64_t)seed;
                o.skip_check = 1; /* figures only: `fusionplan optimize` checks what it writes */
                lf_subst_result r;
                memset(&r, 0, sizeof r);
                lf_status rst = lf_subst_optimize(g, &rs, &c, &o, &r);
                lf__ob_cell *cell = &cells[(m * nk + k) * ns + s];
                if (rst == LF_ELIMIT) { /* an exact search at the cap: no result */
                    fprintf(stderr, "%s K %lld: %s\n", models[m], (long long)ks[k], lf_last_error());
                } else if (rst) {
                    st = rst;
                } else {
                    cell->ok = 1;
                    cell->cost = lf_subst_cost_value(&c, &r.after);
                    cell->secs = r.search_s;
                    cell->cpu = r.search_cpu_s;
                    cell->mb = r.peak_heap >= 0 ? (double)r.peak_heap / 1048576.0 : NAN;
                    cell->timed_out = r.timed_out;
                    cell->work = r.sequences ? r.sequences : r.expanded;
                    fprintf(stderr, "%s K %lld %s: %.3f in %.3f s\n", models[m], (long long)ks[k],
                            lf_subst_search_name(ss[s]), cell->cost * scale, cell->secs);
                }
                lf_subst_result_destroy(&r);
            }
        lf_graph_free(g);
    }
    if (!st) {
        printf("\nnetworks:");
        for (int m = 0; m < nm; m++)
            printf("%s %s %d ops", m ? "," : "", models[m], (int)ops[m]);
        printf("\n");
        lf__ob_table(obj == LF_OBJ_TIME ? "(a) Optimized cost (us, analytic roofline)" : "(a) Optimized cost", 0,
                     models, nm, ks, nk, ss, ns, cells, start, scale);
        lf__ob_table("(b) Search time (s, wall clock)", 1, models, nm, ks, nk, ss, ns, cells, start, scale);
        lf__ob_table("(b') Search time (s, CPU time of the process: the wall time on an idle machine)", 3, models,
                     nm, ks, nk, ss, ns, cells, start, scale);
        lf__ob_table("(c) Peak heap of the search (MB)", 2, models, nm, ks, nk, ss, ns, cells, start, scale);
    }
    const char *svg = lf_cli_get(&cmd, "svg");
    if (!st && svg) {
        /* x: K when several are given, else the networks' blocks */
        int nx = nk > 1 ? nk : nm;
        double x[LF__OB_MODELS > LF__OB_KS ? LF__OB_MODELS : LF__OB_KS];
        const lf__ob_cell *col[LF__OB_MODELS > LF__OB_KS ? LF__OB_MODELS : LF__OB_KS];
        for (int i = 0; i < nx; i++) {
            x[i] = nk > 1 ? (double)ks[i] : (double)(blocks[i] ? blocks[i] : 1);
            col[i] = nk > 1 ? &cells[i * ns] : &cells[(i * nk) * ns];
        }
        const char *what[3] = {"cost", "time", "memory"};
        char path[1024], title[256];
        for (int w = 0; w < 3 && !st; w++) {
            snprintf(path, sizeof path, "%s-%s.svg", svg, what[w]);
            /* the network's name without its blocks, e.g. "resnet_blocks" */
            snprintf(title, sizeof title, "%.*s%s: %s", (int)strcspn(models[0], ":"), models[0],
                     nk > 1 ? "" : " by blocks", what[w]);
            st = lf__ob_chart(path, title, w, x, nx, ns, ss, col, nk > 1 ? "K (longest sequence)" : "blocks", scale,
                              unit);
            if (!st)
                printf("wrote %s\n", path);
        }
    }
    free(cells);
    free(start);
    free(blocks);
    free(ops);
    lf_subst_ruleset_close(&rs);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

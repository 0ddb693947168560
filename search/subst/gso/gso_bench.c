/* The GSO filter benchmark (search/subst/gso/gso_bench.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "planner/util/clock.h"
#include "search/subst/gso/gso_bench.h"

void lf_gso_bench_config_default(lf_gso_bench_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    lf_gso_bench_set_models(cfg, "resnet18,resnet50,inception_e,alexnet,vgg16,sru");
    cfg->rules = "builtin,taso";
    cfg->search = LF_SEARCH_BACKTRACK;
    cfg->budget = 1000;
    cfg->max_len = 3;
    cfg->max_steps = 10;
    cfg->repeat = 21;
    cfg->with_search = 1;
}

lf_status lf_gso_bench_set_models(lf_gso_bench_config *cfg, const char *list)
{
    return lf_subst_network_list(list, cfg->models, LF_GSO_BENCH_MODELS, &cfg->n_models);
}

lf_status lf_gso_bench_open(lf_gso_bench *b, const lf_gso_bench_config *cfg)
{
    memset(b, 0, sizeof *b);
    b->cfg = *cfg;
    if (cfg->repeat < 1 || cfg->repeat > 64)
        return lf_set_error(LF_EINVAL, "bench gso: %d filter runs (1 to 64)", (int)cfg->repeat);
    /* the shipped models trained on the rules benchmarked */
    lf_status st = lf_gso_load_for_rules(&b->sets[0], LF_GSO_GCN, cfg->gcn_weights, cfg->rules, NULL);
    if (!st)
        st = lf_gso_load_for_rules(&b->sets[1], LF_GSO_LR, cfg->lr_weights, cfg->rules, NULL);
    if (!st)
        st = lf_subst_ruleset_open(&b->rules, cfg->rules ? cfg->rules : "builtin,taso", cfg->taso_path);
    if (!st)
        st = lf_subst_ruleset_verify(&b->rules, &b->failed);
    for (int32_t k = 0; !st && k < b->rules.n; k++)
        b->enabled += b->rules.enabled[k] != 0;
    if (!st) {
        b->mask[0] = malloc((size_t)b->rules.n + 1);
        b->mask[1] = malloc((size_t)b->rules.n + 1);
        b->truth = malloc((size_t)b->rules.n + 1);
        if (!b->mask[0] || !b->mask[1] || !b->truth)
            st = lf_set_error(LF_ENOMEM, "out of memory");
    }
    lf_subst_coster_init(&b->coster, LF_OBJ_TIME, cfg->hw, "lbdf");
    return st;
}

void lf_gso_bench_close(lf_gso_bench *b)
{
    free(b->mask[0]);
    free(b->mask[1]);
    free(b->truth);
    b->mask[0] = b->mask[1] = b->truth = NULL;
    lf_gso_set_destroy(&b->sets[0]);
    lf_gso_set_destroy(&b->sets[1]);
    lf_subst_ruleset_close(&b->rules);
}

static int lf__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double lf__median(double *t, int32_t n)
{
    qsort(t, (size_t)n, sizeof t[0], lf__cmp_double);
    return t[n / 2];
}

/* Median time of `repeat` filter runs (ms) and the mask of the last. */
static lf_status lf__filter(const lf_gso_set *s, const lf_graph *g, const lf_subst_ruleset *rs, int32_t repeat,
                            uint8_t *mask, int32_t *kept, double *ms)
{
    double t[64];
    lf_status st = LF_OK;
    for (int32_t r = 0; r < repeat && !st; r++) {
        double t0 = lf_now_seconds();
        st = lf_gso_filter(s, g, rs, 0.5, mask, kept);
        t[r] = (lf_now_seconds() - t0) * 1e3;
    }
    *ms = lf__median(t, repeat);
    return st;
}

/* Median time (ms) of running every model of s on g, the constant ones too
 * (the filter skips those): the cost when every rule has a trained model. */
static lf_status lf__every_model(const lf_gso_set *s, const lf_graph *g, int32_t repeat, double *ms)
{
    double t[64];
    lf_status st = LF_OK;
    for (int32_t r = 0; r < repeat && !st; r++) {
        double t0 = lf_now_seconds();
        lf_gso_graph gg;
        st = lf_gso_graph_init(&gg, g);
        float *ws = st ? NULL : malloc((size_t)lf_gso_ws_floats(gg.n) * sizeof *ws);
        float *prob = st ? NULL : malloc((size_t)(gg.n > 0 ? gg.n : 1) * sizeof *prob);
        if (!st && (!ws || !prob))
            st = lf_set_error(LF_ENOMEM, "out of memory");
        for (int32_t i = 0; i < s->n && !st; i++)
            lf_gso_predict(s->kind, lf_gso_set_params(s, i), &gg, ws, prob);
        free(ws);
        free(prob);
        lf_gso_graph_destroy(&gg);
        t[r] = (lf_now_seconds() - t0) * 1e3;
    }
    *ms = lf__median(t, repeat);
    return st;
}

/* CPU seconds of the calling thread (the searches run on one thread here, so
 * a co-runner on the machine does not inflate them as it does wall time). */
static double lf__cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The searches without a filter, with the GCNs' rules and with LR's. */
static lf_status lf__searches(lf_gso_bench *b, const lf_graph *m, lf_gso_bench_row *row)
{
    lf_status st = LF_OK;
    for (int f = 0; f < 3 && !st; f++) {
        lf_subst_result res;
        memset(&res, 0, sizeof res);
        double c0 = lf__cpu();
        lf_subst_options o;
        lf_subst_options_default(&o);
        o.search = b->cfg.search;
        o.budget = b->cfg.budget;
        o.max_len = b->cfg.max_len;
        o.max_steps = b->cfg.max_steps;
        o.skip_check = 1;
        o.rule_mask = f == 0 ? NULL : b->mask[f - 1];
        st = lf_subst_optimize(m, &b->rules, &b->coster, &o, &res);
        row->cpu[f] = lf__cpu() - c0;
        if (!st)
            row->cost_us[f] = lf_subst_cost_value(&b->coster, &res.after) * 1e6;
        lf_subst_result_destroy(&res);
    }
    return st;
}

static lf_status lf__row(lf_gso_bench *b, const lf_graph *m, lf_gso_bench_row *row)
{
    const lf_subst_ruleset *rs = &b->rules;
    int32_t repeat = b->cfg.repeat;
    memset(row, 0, sizeof *row);
    row->ops = m->n_ops;
    lf_status st = LF_OK;
    for (int f = 0; f < 2 && !st; f++)
        st = lf__filter(&b->sets[f], m, rs, repeat, b->mask[f], &row->kept[f], &row->ms[f]);
    if (!st && b->cfg.every_model)
        st = lf__every_model(&b->sets[0], m, repeat, &row->all_ms);
    if (!st)
        st = lf_gso_truth(m, rs, b->truth);
    for (int32_t k = 0; !st && k < rs->n; k++)
        row->matching += b->truth[k];
    for (int f = 0; f < 2 && !st; f++)
        row->jaccard[f] = lf_gso_jaccard_distance(b->mask[f], b->truth, rs->n);
    if (!st && b->cfg.with_search)
        st = lf__searches(b, m, row);
    return st;
}

lf_status lf_gso_bench_run(lf_gso_bench *b, lf_gso_bench_row_fn row, void *user)
{
    lf_status st = LF_OK;
    b->n_rows = 0;
    for (int32_t i = 0; i < b->cfg.n_models && !st; i++) {
        lf_graph *m = NULL;
        if (!(st = lf_subst_network_spec(b->cfg.models[i], &m, NULL)))
            st = lf__row(b, m, &b->rows[i]);
        lf_graph_free(m);
        if (!st) {
            b->n_rows = i + 1;
            if (row)
                row(user, b, i);
        }
    }
    return st;
}

void lf_gso_bench_write_header(FILE *f, const lf_gso_bench *b)
{
    const lf_gso_bench_config *cfg = &b->cfg;
    int every = cfg->every_model, with_search = cfg->with_search;
    fprintf(f, "%d rules (%d disabled by verification); filter threshold 0.5; search %s, budget %lld%s, "
               "objective time; 1 thread\n\n", (int)b->rules.n, (int)b->failed, lf_subst_search_name(cfg->search),
            (long long)cfg->budget, cfg->search == LF_SEARCH_ENUM ? " (K as --max-len)" : "");
    fprintf(f, "| model | ops | gso ms |%s lr ms | matching | gso kept | lr kept | all | gso Jaccard | lr Jaccard |%s\n",
            every ? " all GCNs ms |" : "",
            with_search ? " search CPU s (none) | cost us (none) | search CPU s (gso) | cost us (gso) | speed-up | "
                          "search CPU s (lr) | cost us (lr) | same optimum gso / lr |" : "");
    fprintf(f, "|---|---:|---:|%s---:|---:|---:|---:|---:|---:|---:|%s\n", every ? "---:|" : "",
            with_search ? "---:|---:|---:|---:|---:|---:|---:|---|" : "");
}

void lf_gso_bench_write_row(FILE *f, const lf_gso_bench *b, int32_t i)
{
    const lf_gso_bench_row *r = &b->rows[i];
    fprintf(f, "| %s | %d | %.2f |", b->cfg.models[i], (int)r->ops, r->ms[0]);
    if (b->cfg.every_model)
        fprintf(f, " %.2f |", r->all_ms);
    fprintf(f, " %.2f | %d | %d | %d | %d | %.3f | %.3f |", r->ms[1], (int)r->matching, (int)r->kept[0],
            (int)r->kept[1], (int)b->enabled, r->jaccard[0], r->jaccard[1]);
    if (b->cfg.with_search) {
        const double *cpu = r->cpu, *cost = r->cost_us;
        fprintf(f, " %.3f | %.3f | %.3f | %.3f | %.2fx | %.3f | %.3f | %s / %s |", cpu[0], cost[0], cpu[1], cost[1],
                cpu[0] / (cpu[1] > 0 ? cpu[1] : 1e-9), cpu[2], cost[2], cost[1] <= cost[0] * (1 + 1e-12) ? "yes" : "no",
                cost[2] <= cost[0] * (1 + 1e-12) ? "yes" : "no");
    }
    fprintf(f, "\n");
}

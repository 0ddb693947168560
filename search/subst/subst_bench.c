/* Backtracking against exhaustive search (search/subst/subst_bench.h). */
#include <stdio.h>
#include <string.h>

#include "models/registry.h"
#include "search/subst/subst_bench.h"

void lf_subst_bench_config_default(lf_subst_bench_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    lf_subst_bench_set_models(cfg, "alexnet,vgg16,inception_e13,resnet18");
    cfg->threads = 1;
    cfg->budget = 1000;
    cfg->enum_budget = 200000;
    cfg->alpha = 1.05;
    cfg->objective = LF_OBJ_TIME;
}

lf_status lf_subst_bench_set_models(lf_subst_bench_config *cfg, const char *list)
{
    char buf[1024], *items[LF_SUBST_BENCH_MODELS];
    int32_t n = 0;
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n < LF_SUBST_BENCH_MODELS)
            items[n] = t;
        n++;
    }
    if (n > LF_SUBST_BENCH_MODELS)
        return lf_set_error(LF_EINVAL, "at most %d", LF_SUBST_BENCH_MODELS);
    for (int32_t i = 0; i < n; i++)
        if (strlen(items[i]) >= LF_SUBST_SPEC_MAX)
            return lf_set_error(LF_EINVAL, "'%s': name too long", items[i]);
    for (int32_t i = 0; i < n; i++)
        snprintf(cfg->models[i], LF_SUBST_SPEC_MAX, "%s", items[i]);
    cfg->n_models = n;
    return LF_OK;
}

lf_status lf_subst_bench_open(lf_subst_bench *b, const lf_subst_bench_config *cfg)
{
    memset(b, 0, sizeof *b);
    b->cfg = *cfg;
    lf_status st = lf_subst_ruleset_open(&b->rules, cfg->rules ? cfg->rules : "builtin", cfg->taso_path);
    if (!st)
        st = lf_subst_ruleset_verify(&b->rules, &b->failed);
    lf_subst_coster_init(&b->coster, cfg->objective, cfg->hw, "lbdf");
    return st;
}

void lf_subst_bench_close(lf_subst_bench *b)
{
    lf_subst_ruleset_close(&b->rules);
}

/* Both searches on m into row. */
static lf_status lf__row(lf_subst_bench *b, const lf_graph *m, lf_subst_bench_row *row)
{
    const lf_subst_bench_config *cfg = &b->cfg;
    lf_subst_options o;
    lf_subst_options_default(&o);
    o.alpha = cfg->alpha;
    o.budget = cfg->budget;
    o.threads = cfg->threads;
    o.skip_check = 1; /* figures only: `fusionplan optimize` checks what it writes */
    lf_subst_result bt, en;
    memset(&bt, 0, sizeof bt);
    memset(&en, 0, sizeof en);
    lf_status st = lf_subst_optimize(m, &b->rules, &b->coster, &o, &bt);
    o.search = LF_SEARCH_ENUM;
    o.max_len = 1 << 20;
    o.budget = cfg->enum_budget;
    if (!st)
        st = lf_subst_optimize(m, &b->rules, &b->coster, &o, &en);
    if (!st) {
        double k = cfg->objective == LF_OBJ_TIME ? 1e6 : 1.0;
        row->ops = lf_graph_compute_ops(m);
        row->start = lf_subst_cost_value(&b->coster, &bt.before) * k;
        row->backtrack = lf_subst_cost_value(&b->coster, &bt.after) * k;
        row->exhaustive = lf_subst_cost_value(&b->coster, &en.after) * k;
        row->bt_expanded = bt.expanded, row->en_expanded = en.expanded;
        row->bt_s = bt.search_s, row->en_s = en.search_s;
        row->complete = en.expanded < cfg->enum_budget;
    }
    lf_subst_result_destroy(&bt);
    lf_subst_result_destroy(&en);
    return st;
}

lf_status lf_subst_bench_run(lf_subst_bench *b, void (*row)(void *user, const lf_subst_bench *b, int32_t i),
                             void *user)
{
    lf_status st = LF_OK;
    b->n_rows = 0;
    for (int32_t i = 0; i < b->cfg.n_models && !st; i++) {
        lf_graph *m = NULL;
        st = lf_subst_network(b->cfg.models[i], b->cfg.input_size, &m);
        if (st == LF_ENOTFOUND) {
            lf_model_options mo = {b->cfg.input_size, 1};
            st = lf_model_build(b->cfg.models[i], &mo, &m);
        }
        if (!st)
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

void lf_subst_bench_write_header(FILE *f, const lf_subst_bench *b)
{
    const lf_subst_bench_config *cfg = &b->cfg;
    fprintf(f, "objective %s; backtracking alpha %g budget %lld; exhaustive budget %lld; %d rules (%s; "
               "%d disabled by verification)\n\n",
            lf_subst_objective_name(cfg->objective), cfg->alpha, (long long)cfg->budget, (long long)cfg->enum_budget,
            (int)b->rules.n, cfg->rules ? cfg->rules : "builtin", (int)b->failed);
    fprintf(f, "| model | ops | start | backtrack best | expanded | s | graphs/s | exhaustive best | expanded | "
               "complete | s | graphs/s | same optimum |\n");
    fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|\n");
}

void lf_subst_bench_write_row(FILE *f, const lf_subst_bench *b, int32_t i)
{
    const lf_subst_bench_row *r = &b->rows[i];
    int better = r->backtrack <= r->exhaustive * (1 + 1e-12);
    const char *same = r->complete ? (better ? "yes" : "no")
                                   : (better ? "not proven (backtrack <= exhaustive so far)"
                                             : "no (exhaustive so far is better)");
    fprintf(f, "| %s | %d | %.3f | %.3f | %lld | %.2f | %.0f | %.3f | %lld | %s | %.2f | %.0f | %s |\n",
            b->cfg.models[i], (int)r->ops, r->start, r->backtrack, (long long)r->bt_expanded, r->bt_s,
            (double)r->bt_expanded / (r->bt_s > 0 ? r->bt_s : 1e-9), r->exhaustive, (long long)r->en_expanded,
            r->complete ? "yes" : "no", r->en_s, (double)r->en_expanded / (r->en_s > 0 ? r->en_s : 1e-9), same);
}

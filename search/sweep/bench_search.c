/* bench search: the rows of one (network, buffer, scheme) table, each one
 * lf_plan_network run, and how a row is printed. */
#include "search/sweep/bench_search.h"

#include <string.h>

#include "splitter/proposer_named.h"
#include "hwdesc/hw.h"
#include "planner/app/registry.h"

lf_status lf_bench_split_check(const char *split)
{
    if (strcmp(split, "random") == 0)
        return LF_OK;
    if (strncmp(split, "tree-", 5) == 0 && lf_name_known(LF_NAMES_PROPOSER, split + 5))
        return lf_named_proposer_check(split + 5); /* settings of a tree-gnne:... */
    return lf_set_error(LF_EINVAL, "unknown split '%s' (use random or tree-<proposer>: tree-all, "
                                   "tree-random, tree-attrib, tree-gnne, tree-pg, tree-rg, "
                                   "tree-saliency, tree-occlusion)",
                        split);
}

/* Plans with `search` (and, for the budgeted searches, the split "random"
 * or "tree-PROPOSER") and reports the row; a failed search is a notice. */
static void lf__one(lf_cost_model *cm, lf_planner_config pc, const char *search, const char *split,
                    lf_bench_row row, lf_bench_row_fn report, lf_bench_notice_fn notice, void *user)
{
    pc.search = search;
    if (!lf_name_known(LF_NAMES_HEURISTIC, search)) {
        pc.seed_plans = NULL; /* the reference rows (layer, greedy, exact) take no search options */
        pc.guided = 0;
        pc.polish = 0;
    }
    if (strcmp(split, "random") != 0) {
        pc.split = "tree";
        pc.proposer = split + 5;
    } else {
        pc.split_continue = 0; /* a tree splitter's option */
    }
    lf_planned r;
    lf_status st = lf_plan_network(cm, &pc, &r);
    if (st != LF_OK) {
        if (notice)
            notice(user, lf_last_error());
        lf_planned_destroy(&r);
        return;
    }
    row.search = search;
    row.m = r.metrics;
    row.wall = r.wall_s;
    if (r.heuristic) {
        row.split = split;
        row.proposed = r.search_result.plans_proposed;
        row.wall = r.search_result.wall_s;
        row.cpu = r.search_result.cpu_s;
    }
    if (r.have_tree_stats) {
        row.rectify = r.tree_stats.rectify_rate;
        row.gap = r.tree_stats.gap_groups > 0 ? r.tree_stats.mean_gap : -1.0;
    }
    if (report)
        report(user, &row);
    lf_planned_destroy(&r);
}

static void lf__table(lf_cost_model *cm, const char *model, const char *scheme,
                      const lf_bench_search_config *cfg, lf_bench_row_fn report,
                      lf_bench_notice_fn notice, void *user)
{
    lf_bench_row row = {model, scheme, "", "-", -1.0, -1.0, lf_cost_beta(cm), {0}, 0, 0, -1.0, 0, 0};
    /* The optimum first, so every other row can show its gap. */
    if (cfg->do_exact) {
        lf_planned ex;
        lf_planner_config xc = cfg->planner;
        xc.search = "exact";
        if (lf_plan_network(cm, &xc, &ex) == LF_OK) {
            row.m = ex.metrics;
            row.wall = ex.wall_s;
            row.exact_dram = ex.exact_dram;
            row.has_exact = 1;
        } else if (notice) {
            notice(user, lf_last_error());
        }
        lf_planned_destroy(&ex);
    }
    lf__one(cm, cfg->planner, "layer", "random", row, report, notice, user);
    lf__one(cm, cfg->planner, "greedy", "random", row, report, notice, user);
    for (int32_t qi = 0; qi < cfg->n_searches; qi++)
        for (int32_t pi = 0; pi < cfg->n_splits; pi++)
            lf__one(cm, cfg->planner, cfg->searches[qi], cfg->splits[pi], row, report, notice, user);
    if (row.has_exact && report) {
        row.search = "exact";
        report(user, &row);
    }
}

lf_status lf_bench_search_run(const lf_graph *g, const char *model, const lf_hw *hw,
                              const lf_bench_search_config *cfg, lf_bench_row_fn report,
                              lf_bench_notice_fn notice, void *user)
{
    if (cfg->n_betas > LF_BENCH_MAX_BUFFERS || cfg->n_schemes > LF_BENCH_MAX_SCHEMES ||
        cfg->n_searches > LF_BENCH_MAX_SEARCHES || cfg->n_splits > LF_BENCH_MAX_SPLITS)
        return lf_set_error(LF_EINVAL, "bench search: list too long");
    for (int32_t i = 0; i < cfg->n_splits; i++)
        if (lf_bench_split_check(cfg->splits[i]) != LF_OK)
            return LF_EINVAL;
    lf_hw h;
    if (hw)
        h = *hw;
    else
        lf_hw_default(&h);
    for (int32_t bi = 0; bi < cfg->n_betas; bi++)
        for (int32_t si = 0; si < cfg->n_schemes; si++) {
            h.buffer_bytes = cfg->betas[bi];
            lf_cost_model *cm = NULL;
            lf_status st = lf_cost_model_create(&cm, g, &h, cfg->schemes[si]);
            if (st != LF_OK)
                return st;
            lf__table(cm, model, cfg->schemes[si], cfg, report, notice, user);
            lf_cost_model_free(cm);
        }
    return LF_OK;
}

void lf_bench_print_header(FILE *f, int csv)
{
    if (csv)
        fprintf(f, "model,beta,scheme,search,split,dram_fusable,gap_pct,dram_all,groups,proposed,"
                   "wall_s,plans_per_s,rectify_pct,split_gap,cpu_s\n");
    else
        fprintf(f, "| model | buffer | scheme | search | split | DRAM fusable (MB) | gap (%%) | DRAM all "
                   "(MB) | groups | plans | wall (s) | plans/s | rectify (%%) | split gap | CPU (s) |\n"
                   "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
}

void lf_bench_print_row(FILE *f, const lf_bench_row *r, int csv)
{
    char beta[32];
    lf_hw_format_size(r->beta, beta, sizeof beta);
    double gap = r->has_exact && r->exact_dram > 0
                     ? 100.0 * (double)(r->m.dram_fusable - r->exact_dram) / (double)r->exact_dram
                     : 0.0;
    double rate = r->wall > 0 && r->proposed > 0 ? (double)r->proposed / r->wall : 0.0;
    char gap_s[32] = "-", rate_s[32] = "-", rect_s[32] = "-", sgap_s[32] = "-", cpu_s[32] = "-";
    if (r->has_exact)
        snprintf(gap_s, sizeof gap_s, "%.2f", gap);
    if (rate > 0)
        snprintf(rate_s, sizeof rate_s, "%.0f", rate);
    if (r->rectify >= 0)
        snprintf(rect_s, sizeof rect_s, "%.1f", 100.0 * r->rectify);
    if (r->gap >= 0)
        snprintf(sgap_s, sizeof sgap_s, "%.3f", r->gap);
    if (r->cpu >= 0)
        snprintf(cpu_s, sizeof cpu_s, "%.3f", r->cpu);
    if (csv)
        fprintf(f, "%s,%lld,%s,%s,%s,%lld,%s,%lld,%d,%lld,%.3f,%s,%s,%s,%s\n", r->model,
                (long long)r->beta, r->scheme, r->search, r->split, (long long)r->m.dram_fusable,
                r->has_exact ? gap_s : "", (long long)r->m.dram_all, (int)r->m.n_groups,
                (long long)r->proposed, r->wall, rate > 0 ? rate_s : "", r->rectify >= 0 ? rect_s : "",
                r->gap >= 0 ? sgap_s : "", r->cpu >= 0 ? cpu_s : "");
    else
        fprintf(f, "| %s | %s | %s | %s | %s | %.3f | %s | %.3f | %d | %lld | %.3f | %s | %s | %s | %s |\n",
                r->model, beta, r->scheme, r->search, r->split, (double)r->m.dram_fusable / 1e6, gap_s,
                (double)r->m.dram_all / 1e6, (int)r->m.n_groups, (long long)r->proposed, r->wall,
                rate_s, rect_s, sgap_s, cpu_s);
    fflush(f);
}

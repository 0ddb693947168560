/* How a planned network is reported: the summary line of `fusionplan plan`
 * and its group table, into a caller's stream. */
#include <stdio.h>

#include "planner/pipeline.h"
#include "planner/util/format.h"

/* The summary line's search figures: plans, invalid groups, splits, memo
 * hits and the splitter's own. */
static void lf__print_search(FILE *f, const lf_planned *r)
{
    const lf_search_result *res = &r->search_result;
    int64_t lookups = res->cache_hits + res->cache_misses;
    fprintf(f, "; %lld plans proposed, %lld invalid groups met, %lld splits, memo hits %.1f%%",
            (long long)res->plans_proposed, (long long)res->invalid_groups, (long long)res->splits,
            lookups ? 100.0 * (double)res->cache_hits / (double)lookups : 0.0);
    if (r->have_tree_stats) {
        const lf_tree_stats *ts = &r->tree_stats;
        fprintf(f, "; %s: %lld distinct invalid groups, rectify rate %.1f%%, rectified without "
                   "fallback %lld",
                r->split_name, (long long)ts->groups, 100.0 * ts->rectify_rate,
                (long long)ts->tree_success);
        if (ts->gap_groups > 0)
            fprintf(f, ", mean split gap %.3f", ts->mean_gap);
        fprintf(f, ", %.3f s in the splitter (wall)", ts->split_s);
    } else {
        fprintf(f, "; %s split, %.3f s in the splitter (wall)", r->split_name, res->split_s);
    }
}

void lf_planned_print_summary(FILE *f, const lf_planned *r, lf_cost_model *cm, const char *model)
{
    const lf_plan_metrics *m = &r->metrics;
    char beta[32], fus[32], all[32], mbu[32], gap[48] = "";
    lf_hw_format_size(lf_cost_beta(cm), beta, sizeof beta);
    lf_format_commas(m->dram_fusable, fus, sizeof fus);
    lf_format_commas(m->dram_all, all, sizeof all);
    lf_format_commas(m->mbu, mbu, sizeof mbu);
    if (r->exact_dram > 0)
        snprintf(gap, sizeof gap, "; gap to optimum %.2f%%",
                 100.0 * (double)(m->dram_fusable - r->exact_dram) / (double)r->exact_dram);
    fprintf(f, "%s %s %s %s: DRAM %s B fusable ops (%.3f MB), %s B all ops; MBU %s B; %d groups, "
               "%d unfusable",
            model, beta, lf_cost_scheme_name(cm), r->search, fus, (double)m->dram_fusable / 1e6, all,
            mbu, (int)m->n_groups, (int)m->n_unfusable);
    fprintf(f, "; DRAM time %.3f ms", m->dram_time_s * 1e3);
    if (m->energy_j >= 0)
        fprintf(f, ", energy %.3f mJ", m->energy_j * 1e3);
    if (r->heuristic)
        lf__print_search(f, r);
    const lf_exact_stats *es = &r->exact_stats;
    if (es->states > 0)
        fprintf(f, "; %lld downsets, %lld candidate sets, %lld groups priced", (long long)es->states,
                (long long)es->candidates, (long long)es->groups);
    fprintf(f, "%s; wall %.3f s\n", gap, r->wall_s);
}

lf_status lf_plan_print_groups(FILE *f, const lf_plan *p, lf_cost_model *cm)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_bitset s;
    lf_status st = lf_bitset_init(&s, g->n_ops);
    if (st != LF_OK)
        return st;
    fprintf(f, "\n%6s %5s  %-30s %-30s %12s %12s %s\n", "group", "ops", "first op", "last op",
            "F_beta B", "F_D B", "");
    for (int32_t gi = 0; gi < p->n_groups; gi++) {
        lf_plan_group_bitset(p, gi, &s);
        int32_t first = lf_bitset_next(&s, 0), last = first, n = 0;
        for (int32_t v = first; v >= 0; v = lf_bitset_next(&s, v + 1)) {
            last = v;
            n++;
        }
        lf_group_cost c;
        char fb[32], fd[32];
        int unfusable = n == 1 && !lf_cost_fusable(cm, first);
        if ((st = lf_cost_eval(cm, &s, &c)) != LF_OK)
            break;
        if (unfusable)
            lf_cost_unfusable_dram(cm, first, &c.f_d);
        lf_format_commas(c.f_beta, fb, sizeof fb);
        lf_format_commas(c.f_d, fd, sizeof fd);
        fprintf(f, "%6d %5d  %-30s %-30s %12s %12s %s\n", (int)gi, (int)n, g->ops[first].name,
                g->ops[last].name, fb, fd,
                unfusable ? "unfusable (weights streamed)" : (c.valid ? "" : "INVALID"));
    }
    lf_bitset_destroy(&s);
    return st;
}

/* Text and JSON reports of a substitution job (search/subst/report.h). The
 * JSON keeps to what is reproducible: measured memory, which varies from run
 * to run like wall times, is in the text report only. */
#include <stdio.h>

#include "hwdesc/hw.h"
#include "planner/io/json.h"
#include "planner/util/fileio.h"
#include "search/subst/report.h"
#include "planner/io/graph_json.h"

void lf_subst_roofline_write(FILE *f, const lf_subst_coster *c)
{
    const lf_hw *hw = c->hw;
    fprintf(f, "roofline: %.4g TFLOP/s, %.4g GB/s, %.3g us per kernel (%s)\n", c->peak_flops / 1e12,
            c->bandwidth / 1e9, c->launch_s * 1e6, hw && hw->has_gpu ? hw->name : "defaults: no <gpu> section");
}

void lf_subst_costs_write(FILE *f, const lf_subst_costs *b, const lf_subst_costs *a)
{
    fprintf(f, "%-14s %16s %16s %9s\n", "", "before", "after", "change");
    const char *names[] = {"time (us)", "GFLOPs", "MB moved", "kernels", "DRAM (bytes)", "energy (uJ)",
                           "latency (us)"};
    double x[] = {b->time_s * 1e6, b->flops / 1e9, b->bytes / 1e6, b->kernels, b->dram, b->energy_pj / 1e6,
                  b->latency_s * 1e6};
    double y[] = {a->time_s * 1e6, a->flops / 1e9, a->bytes / 1e6, a->kernels, a->dram, a->energy_pj / 1e6,
                  a->latency_s * 1e6};
    for (int i = 0; i < 7; i++) {
        if ((i == 4 && b->dram < 0) || (i == 5 && b->energy_pj < 0) || (i == 6 && b->latency_s < 0))
            continue;
        fprintf(f, "%-14s %16.3f %16.3f %+8.2f%%\n", names[i], x[i], y[i],
                x[i] != 0 ? 100.0 * (y[i] - x[i]) / x[i] : 0.0);
    }
}

static int lf__ocggs(lf_subst_search s)
{
    return s == LF_SEARCH_PRUNE || s == LF_SEARCH_DPP || s == LF_SEARCH_SAMPLE;
}

/* "model M (N ops), R rules (D disabled by verification: names), search S
 * (its settings)[, time limit], objective O" */
static void lf__settings(FILE *f, const lf_subst_job *job, const char *model, const lf_graph *g)
{
    const lf_subst_options *o = &job->options;
    const lf_subst_ruleset *rs = &job->rules;
    fprintf(f, "model %s (%d ops), %d rules (%d disabled by verification", model, (int)lf_graph_compute_ops(g),
            (int)rs->n, (int)job->failed);
    for (int32_t i = 0, k = 0; i < rs->n; i++)
        if (!rs->enabled[i])
            fprintf(f, "%s%s", k++ ? ", " : ": ", rs->rule[i]->name);
    fprintf(f, "), search %s", lf_subst_search_name(o->search));
    if (o->search == LF_SEARCH_PRUNE || o->search == LF_SEARCH_DPP)
        fprintf(f, " (K %d)", (int)o->max_steps);
    else if (o->search == LF_SEARCH_SAMPLE)
        fprintf(f, " (K %d, Q %d, eta %d, seed %llu)", (int)o->max_steps, (int)o->sample_size, (int)o->eta,
                (unsigned long long)o->seed);
    else if (o->search != LF_SEARCH_ENUM && o->bt_max_steps > 0)
        fprintf(f, " (alpha %g, budget %lld, K %d)", o->alpha, (long long)o->budget, (int)o->bt_max_steps);
    else if (o->search != LF_SEARCH_ENUM)
        fprintf(f, " (alpha %g, budget %lld)", o->alpha, (long long)o->budget);
    else
        fprintf(f, " (K %d, budget %lld)", (int)o->max_len, (long long)o->budget);
    if (o->time_limit_s > 0)
        fprintf(f, ", time limit %g s%s", o->time_limit_s, o->time_limit_cpu ? " of CPU time" : "");
    fprintf(f, ", objective %s\n", lf_subst_objective_name(job->coster.objective));
}

static void lf__statistics(FILE *f, const lf_subst_job *job)
{
    const lf_subst_result *r = &job->result;
    double heap_mb = r->peak_heap >= 0 ? (double)r->peak_heap / 1048576.0 : -1.0;
    double rss_mb = (double)job->peak_rss_kb / 1024.0;
    if (lf__ocggs(job->options.search)) {
        fprintf(f, "search: %lld sequences examined, %lld matches reused, %lld rejected; search %.3f s, with the "
                   "check %.2f s; peak heap of the search %.1f MB (mallinfo2)%s; process peak RSS %.0f MB\n",
                (long long)r->sequences, (long long)r->reused, (long long)r->rejected, r->search_s, r->wall_s,
                heap_mb, r->peak_heap >= 0 ? "" : " (not measurable here)", rss_mb);
        if (r->timed_out)
            fprintf(f, "time limit reached: the best sequence found so far\n");
        return;
    }
    fprintf(f, "search: %lld graphs expanded, %lld generated, %lld deduplicated, %lld rejected", (long long)r->expanded,
            (long long)r->generated, (long long)r->deduplicated, (long long)r->rejected);
    if (job->options.search == LF_SEARCH_SPLIT)
        fprintf(f, ", %d parts", (int)r->parts);
    fprintf(f, "; %lld graphs held at most; search %.2f s (%.0f graphs/s), with the check %.2f s; peak heap of the "
               "search %.1f MB (mallinfo2); peak memory %.0f MB\n",
            (long long)r->peak_graphs, r->search_s, (double)r->expanded / (r->search_s > 0 ? r->search_s : 1e-9),
            r->wall_s, heap_mb, rss_mb);
    if (r->timed_out)
        fprintf(f, "time limit reached: the best graph found so far\n");
}

void lf_subst_job_report(FILE *f, const lf_subst_job *job, const char *model, const lf_graph *g,
                         const char *op_times)
{
    const lf_subst_result *r = &job->result;
    lf__settings(f, job, model, g);
    lf_subst_roofline_write(f, &job->coster);
    if (op_times)
        fprintf(f, "op times: %s, roofline elsewhere\n", op_times);
    lf_subst_costs_write(f, &r->before, &r->after);
    fprintf(f, "applied sequence: %d steps\n", (int)r->n_steps);
    for (int32_t i = 0; i < r->n_steps; i++)
        fprintf(f, "  %3d %-18s %s\n", (int)i + 1, job->rules.rule[r->steps[i].rule]->name, r->steps[i].ops);
    lf__statistics(f, job);
    if (r->n_steps == 0)
        fprintf(f, "nothing to do: no sequence of rewrites lowers the %s\n",
                lf_subst_objective_name(job->coster.objective));
    else
        fprintf(f, "check: the optimized graph's outputs equal the original's (max relative error %.2g, seed %llu)\n",
                r->max_err, (unsigned long long)job->options.seed);
}

static void lf__json_costs(FILE *f, const char *key, const lf_subst_costs *k)
{
    fprintf(f, "  \"%s\": {\"time_s\": ", key);
    lf_json_double(f, k->time_s);
    fprintf(f, ", \"flops\": ");
    lf_json_double(f, k->flops);
    fprintf(f, ", \"bytes\": ");
    lf_json_double(f, k->bytes);
    fprintf(f, ", \"kernels\": ");
    lf_json_double(f, k->kernels);
    if (k->dram >= 0) {
        fprintf(f, ", \"dram\": ");
        lf_json_double(f, k->dram);
    }
    if (k->energy_pj >= 0) {
        fprintf(f, ", \"energy_pj\": ");
        lf_json_double(f, k->energy_pj);
    }
    if (k->latency_s >= 0) {
        fprintf(f, ", \"latency_s\": ");
        lf_json_double(f, k->latency_s);
    }
    fprintf(f, "},\n");
}

lf_status lf_subst_job_write_json(FILE *f, const lf_subst_job *job, const char *model)
{
    const lf_subst_options *o = &job->options;
    const lf_subst_ruleset *rs = &job->rules;
    const lf_subst_result *r = &job->result;
    fprintf(f, "{\n  \"model\": ");
    lf_json_string(f, model);
    fprintf(f, ",\n  \"search\": \"%s\",\n  \"objective\": \"%s\",\n  \"alpha\": ", lf_subst_search_name(o->search),
            lf_subst_objective_name(job->coster.objective));
    lf_json_double(f, o->alpha);
    fprintf(f, ",\n  \"budget\": %lld,\n  \"max_steps\": %d,\n", (long long)o->budget,
            (int)(o->search == LF_SEARCH_ENUM ? o->max_len : o->search >= LF_SEARCH_PRUNE ? o->max_steps
                                                                                           : o->bt_max_steps));
    if (o->rule_mask) {
        fprintf(f, "  \"rules_searched\": [");
        for (int32_t k = 0, j = 0; k < rs->n; k++)
            if (o->rule_mask[k]) {
                fprintf(f, "%s", j++ ? ", " : "");
                lf_json_string(f, rs->rule[k]->name);
            }
        fprintf(f, "],\n");
    }
    lf__json_costs(f, "before", &r->before);
    lf__json_costs(f, "after", &r->after);
    fprintf(f, "  \"steps\": [");
    for (int32_t i = 0; i < r->n_steps; i++) {
        fprintf(f, "%s\n    {\"rule\": ", i ? "," : "");
        lf_json_string(f, rs->rule[r->steps[i].rule]->name);
        fprintf(f, ", \"ops\": ");
        lf_json_string(f, r->steps[i].ops);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n  \"stats\": {\"expanded\": %lld, \"generated\": %lld, \"deduplicated\": %lld, "
               "\"rejected\": %lld, \"parts\": %d, \"peak_graphs\": %lld, \"sequences\": %lld, "
               "\"reused\": %lld, \"timed_out\": %s, \"search_s\": ",
            (long long)r->expanded, (long long)r->generated, (long long)r->deduplicated, (long long)r->rejected,
            (int)r->parts, (long long)r->peak_graphs, (long long)r->sequences, (long long)r->reused,
            r->timed_out ? "true" : "false");
    lf_json_double(f, r->search_s);
    fprintf(f, ", \"wall_s\": ");
    lf_json_double(f, r->wall_s);
    fprintf(f, ", \"max_rel_error\": ");
    lf_json_double(f, r->max_err);
    fprintf(f, "},\n  \"graph\": ");
    lf_status st = lf_graph_write_json(r->graph, f);
    fprintf(f, "}\n");
    return st;
}

typedef struct lf__json_out {
    const lf_subst_job *job;
    const char *model;
} lf__json_out;

static lf_status lf__write_json(FILE *f, const void *user)
{
    const lf__json_out *o = user;
    return lf_subst_job_write_json(f, o->job, o->model);
}

lf_status lf_subst_job_save_json(const char *path, const lf_subst_job *job, const char *model)
{
    lf__json_out o = {job, model};
    return lf_atomic_write(path, lf__write_json, &o);
}

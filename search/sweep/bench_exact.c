/* bench exact: one exact run per network, scheme and buffer (or one
 * staircase per network and scheme), timed, and its row. */
#include "search/sweep/bench_exact.h"

#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/cost/cost.h"
#include "planner/exact/curve.h"
#include "planner/util/clock.h"

const char *lf_bench_exact_outcome(lf_status st)
{
    if (st == LF_OK)
        return "optimal";
    const char *e = lf_last_error();
    if (st != LF_ELIMIT)
        return "error";
    if (strstr(e, "time limit"))
        return "time limit";
    if (strstr(e, "memory limit"))
        return "memory limit";
    /* "more than N states (reached ... candidate sets ...)": the limit is
     * named before "(reached", which names every count. */
    if (strstr(e, "candidate groups (reached"))
        return "candidate limit";
    return "state limit";
}

/* One run into r (model, scheme, staircase or beta set). */
static lf_status lf__run(const lf_bench_exact_config *cfg, const lf_graph *g, lf_bench_exact_row *r)
{
    lf_hw hw;
    lf_hw_default(&hw);
    double t0 = lf_now_seconds();
    lf_status st;
    if (!r->staircase) {
        hw.buffer_bytes = r->beta;
        lf_cost_model *cm = NULL;
        st = lf_cost_model_create(&cm, g, &hw, r->scheme);
        lf_plan p;
        if (st == LF_OK && (st = lf_exact_plan(cm, &cfg->exact, &p, &r->stats)) == LF_OK) {
            st = lf_plan_metrics_compute(&p, cm, &r->m);
            lf_plan_destroy(&p);
        }
        lf_cost_model_free(cm);
    } else {
        lf_curve c;
        st = lf_curve_compute(g, &hw, r->scheme, cfg->min, cfg->max, &cfg->exact, &c);
        r->stats = c.stats;
        r->front = c.front_points;
        r->steps = c.n;
        if (st == LF_OK)
            lf_curve_destroy(&c);
    }
    r->wall = lf_now_seconds() - t0;
    r->status = st;
    r->outcome = lf_bench_exact_outcome(st);
    return st;
}

lf_status lf_bench_exact_run(const lf_bench_exact_config *cfg, lf_bench_exact_row_fn row,
                             void *user)
{
    for (int32_t mi = 0; mi < cfg->n_models; mi++) {
        lf_graph *g = NULL;
        lf_status st = lf_model_build(cfg->models[mi], NULL, &g);
        if (st != LF_OK)
            return st;
        for (int32_t si = 0; si < cfg->n_schemes; si++)
            for (int32_t bi = 0; bi < (cfg->n_betas ? cfg->n_betas : 1); bi++) {
                lf_bench_exact_row r = {.model = cfg->models[mi], .scheme = cfg->schemes[si],
                                        .staircase = cfg->n_betas == 0,
                                        .beta = cfg->n_betas ? cfg->betas[bi] : 0,
                                        .min = cfg->min, .max = cfg->max};
                st = lf__run(cfg, g, &r);
                if (st != LF_OK && st != LF_ELIMIT) {
                    lf_graph_free(g);
                    return st;
                }
                if (row)
                    row(user, &r);
            }
        lf_graph_free(g);
    }
    return LF_OK;
}

void lf_bench_exact_print_header(FILE *f, int csv, int buffers)
{
    if (csv)
        fputs(buffers ? "model,buffer,scheme,dram_fusable,dram_all,groups,downsets,candidates,"
                        "groups_priced,memory_bytes,wall_s,outcome\n"
                      : "model,scheme,min,max,steps,downsets,candidates,groups_priced,front_points,"
                        "memory_bytes,wall_s,outcome\n",
              f);
    else if (buffers)
        fputs("| model | buffer | scheme | DRAM fusable (MB) | DRAM all (MB) | groups | downsets | "
              "candidate sets | groups priced | memory (MB) | wall (s) | outcome |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|\n",
              f);
    else
        fputs("| model | scheme | range | steps | downsets | candidate sets | groups priced | "
              "front points | memory (MB) | wall (s) | outcome |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|\n",
              f);
}

void lf_bench_exact_print_row(FILE *f, const lf_bench_exact_row *r, int csv)
{
    const lf_exact_stats *es = &r->stats;
    const lf_plan_metrics *m = &r->m;
    long long priced = (long long)(es->groups - es->groups_skipped); /* counted, then skipped by the floor */
    char lo[32], hi[32], b[32];
    lf_hw_format_size(r->min, lo, sizeof lo);
    lf_hw_format_size(r->max, hi, sizeof hi);
    if (!r->staircase)
        lf_hw_format_size(r->beta, b, sizeof b);
    if (csv && !r->staircase)
        fprintf(f, "%s,%lld,%s,%lld,%lld,%d,%lld,%lld,%lld,%lld,%.3f,%s\n", r->model,
                (long long)r->beta, r->scheme, (long long)m->dram_fusable, (long long)m->dram_all,
                (int)m->n_groups, (long long)es->states, (long long)es->candidates,
                priced, (long long)es->memory_bytes, r->wall, r->outcome);
    else if (csv)
        fprintf(f, "%s,%s,%lld,%lld,%d,%lld,%lld,%lld,%lld,%lld,%.3f,%s\n", r->model, r->scheme,
                (long long)r->min, (long long)r->max, (int)r->steps, (long long)es->states,
                (long long)es->candidates, priced, (long long)r->front,
                (long long)es->memory_bytes, r->wall, r->outcome);
    else if (!r->staircase && r->status == LF_OK)
        fprintf(f, "| %s | %s | %s | %.3f | %.3f | %d | %lld | %lld | %lld | %.1f | %.3f | %s |\n",
                r->model, b, r->scheme, (double)m->dram_fusable / 1e6, (double)m->dram_all / 1e6,
                (int)m->n_groups, (long long)es->states, (long long)es->candidates,
                priced, (double)es->memory_bytes / 1e6, r->wall, r->outcome);
    else if (!r->staircase)
        fprintf(f, "| %s | %s | %s | - | - | - | %lld | %lld | %lld | %.1f | %.3f | %s |\n", r->model,
                b, r->scheme, (long long)es->states, (long long)es->candidates,
                priced, (double)es->memory_bytes / 1e6, r->wall, r->outcome);
    else
        fprintf(f, "| %s | %s | %s .. %s | %s%d | %lld | %lld | %lld | %lld | %.1f | %.3f | %s |\n",
                r->model, r->scheme, lo, hi, r->status == LF_OK ? "" : "- ", (int)r->steps,
                (long long)es->states, (long long)es->candidates, priced,
                (long long)r->front, (double)es->memory_bytes / 1e6, r->wall, r->outcome);
    fflush(f);
}

void lf_bench_exact_print_total(FILE *f, int csv, int finished, int runs, double seconds,
                                int32_t workers)
{
    if (!csv && workers > 0)
        fprintf(f, "\n%d of %d runs finished (optimal); %.1f s in total (%d worker%s for the "
                   "staircases' joined pairs)\n",
                finished, runs, seconds, (int)workers, workers == 1 ? "" : "s");
    else if (!csv)
        fprintf(f, "\n%d of %d runs finished (optimal); %.1f s in total\n", finished, runs, seconds);
}

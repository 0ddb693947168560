/* Text report and chart of the schedules (search/schedule/report.h). */
#include <stdio.h>
#include <stdlib.h>

#include "planner/io/svg_chart.h"
#include "planner/util/fileio.h"
#include "search/schedule/report.h"
#include "search/subst/report.h"
#include "search/subst/subst.h"

void lf_schedule_write(FILE *f, const lf_graph *g, const char *name, const lf_schedule *s)
{
    int32_t merged = 0;
    for (int32_t i = 0; i < s->n_stages; i++)
        merged += s->strategy[i] == LF_SCHED_MERGE;
    fprintf(f, "\n%s: %.4f ms, %d stages (%d merged)\n", name, s->latency_total_s * 1e3, (int)s->n_stages,
            (int)merged);
    for (int32_t i = 0; i < s->n_stages; i++) {
        fprintf(f, "  %4d %-10s %9.4f ms ", (int)i + 1, lf_sched_strategy_name(s->strategy[i]),
                s->latency_s[i] * 1e3);
        for (int32_t j = s->stage_start[i]; j < s->stage_start[i + 1]; j++) {
            fprintf(f, "%s", j > s->stage_start[i] ? (s->strategy[i] == LF_SCHED_MERGE ? " + " : " | ") : " ");
            for (int32_t u = s->group_start[j]; u < s->group_start[j + 1]; u++)
                fprintf(f, "%s%s", u > s->group_start[j] ? " > " : "", g->ops[s->ops[s->op_start[u]]].name);
        }
        fprintf(f, "\n");
    }
}

void lf_sched_report_write(FILE *f, const lf_graph *g, const char *model, const lf_sched_options *o,
                           const lf_sched_result *r)
{
    const lf_sched_stats *st = &r->stats;
    lf_subst_coster c;
    lf_subst_coster_init(&c, LF_OBJ_TIME, o->hw, NULL);
    fprintf(f, "model %s: %d ops, %d scheduling units (ops with their activation), %d blocks; latency %s\n", model,
            (int)lf_graph_compute_ops(g), (int)st->units, (int)st->blocks, lf_sched_latency_name(o->latency));
    lf_subst_roofline_write(f, &c);
    char timed[64] = "";
    if (o->memo_configs)
        snprintf(timed, sizeof timed, " (%lld timed, the rest alike)", (long long)st->stage_timed);
    fprintf(f, "DOS: r %d, s %d, %s; %d parts (largest %d units), %lld states, %lld endings, %lld stages priced%s; "
               "search %.3f s\n",
            (int)o->max_group_ops, (int)o->max_groups,
            o->merge && o->concurrent ? "concurrent and merged stages"
            : o->merge                ? "merged stages only"
                                      : "concurrent stages only",
            (int)st->parts, (int)st->largest_part, (long long)st->states, (long long)st->endings,
            (long long)st->stage_evals, timed, st->search_s);
    lf_schedule_write(f, g, "sequential", &r->sequential);
    lf_schedule_write(f, g, "greedy", &r->greedy);
    lf_schedule_write(f, g, "dos", &r->dos);
    double seq = r->sequential.latency_total_s, gr = r->greedy.latency_total_s, dos = r->dos.latency_total_s;
    fprintf(f, "\nsummary: sequential %.4f ms, greedy %.4f ms (%.3fx), dos %.4f ms (%.3fx)\n", seq * 1e3, gr * 1e3,
            gr > 0 ? seq / gr : 1.0, dos * 1e3, dos > 0 ? seq / dos : 1.0);
}

void lf_sched_evaluated_write(FILE *f, const char *path, const lf_schedule *ev, const lf_sched_result *r)
{
    fprintf(f, "evaluated: the dos schedule of %s here: %.4f ms, %d stages (this graph's own dos: %.4f ms)\n", path,
            ev->latency_total_s * 1e3, (int)ev->n_stages, r->dos.latency_total_s * 1e3);
}

typedef struct lf__json_out {
    const lf_graph *g;
    const char *model;
    const lf_sched_options *o;
    const lf_sched_result *r;
} lf__json_out;

static lf_status lf__write_json(FILE *f, const void *user)
{
    const lf__json_out *j = user;
    return lf_sched_write_json(j->g, j->model, j->o, j->r, f);
}

lf_status lf_sched_save_json(const char *path, const lf_graph *g, const char *model, const lf_sched_options *o,
                             const lf_sched_result *r)
{
    lf__json_out j = {g, model, o, r};
    return lf_atomic_write(path, lf__write_json, &j);
}

lf_status lf_sched_chart_save(const char *path, const char *model, const lf_sched_result *r)
{
    const lf_schedule *s[3] = {&r->sequential, &r->greedy, &r->dos};
    static const char *const names[3] = {"sequential", "greedy", "DOS"};
    lf_chart_series series[3];
    double *buf[6] = {NULL};
    lf_status st = LF_OK;
    for (int k = 0; k < 3 && !st; k++) {
        int32_t n = s[k]->n_stages + 1;
        buf[2 * k] = malloc(sizeof(double) * (size_t)n);
        buf[2 * k + 1] = malloc(sizeof(double) * (size_t)n);
        if (!buf[2 * k] || !buf[2 * k + 1]) {
            st = lf_set_error(LF_ENOMEM, "schedule: out of memory for the chart");
            break;
        }
        double t = 0.0;
        buf[2 * k][0] = 0.0, buf[2 * k + 1][0] = 0.0;
        for (int32_t i = 0; i < s[k]->n_stages; i++) {
            t += s[k]->latency_s[i] * 1e3;
            buf[2 * k][i + 1] = i + 1;
            buf[2 * k + 1][i + 1] = t;
        }
        series[k] = (lf_chart_series){names[k], buf[2 * k], buf[2 * k + 1], n};
    }
    char title[200];
    snprintf(title, sizeof title, "%s: latency of the stages run so far", model);
    lf_chart ch = {title, "stages run", "latency (ms)", 0, 0, 0, series, 3, 0};
    if (!st)
        st = lf_chart_save_svg(&ch, path);
    for (int k = 0; k < 6; k++)
        free(buf[k]);
    return st;
}

/* The scheduler's entry point: options, the three schedules (sequential,
 * greedy, DOS block by block) and their JSON form. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "planner/io/json.h"
#include "search/schedule/schedule_internal.h"

void lf_sched_options_default(lf_sched_options *o)
{
    memset(o, 0, sizeof *o);
    o->max_group_ops = 3;
    o->max_groups = 8;
    o->max_part_ops = 16;
    o->max_states = (int64_t)1 << 20;
    o->max_endings = (int64_t)1 << 22;
    o->greedy_streams = 10;
    o->merge = 1;
    o->concurrent = 1;
    o->latency = LF_SCHED_ANALYTIC;
}

static double lf__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static lf_status lf__check(const lf_sched_options *o)
{
    if (o->max_group_ops < 1 || o->max_group_ops > 64)
        return lf_set_error(LF_EINVAL, "schedule: r (ops per group) %d is not in 1..64", (int)o->max_group_ops);
    if (o->max_groups < 1 || o->max_groups > 64)
        return lf_set_error(LF_EINVAL, "schedule: s (groups per stage) %d is not in 1..64", (int)o->max_groups);
    if (o->max_part_ops < 1 || o->max_part_ops > 64)
        return lf_set_error(LF_EINVAL, "schedule: part size %d is not in 1..64", (int)o->max_part_ops);
    if (o->max_states < 1 || o->max_endings < 1)
        return lf_set_error(LF_EINVAL, "schedule: max_states and max_endings must be positive");
    if (o->greedy_streams < 1 || o->greedy_streams > 64)
        return lf_set_error(LF_EINVAL, "schedule: greedy streams %d is not in 1..64", (int)o->greedy_streams);
    if (o->latency != LF_SCHED_ANALYTIC && o->latency != LF_SCHED_MEASURED && o->latency != LF_SCHED_CUSTOM)
        return lf_set_error(LF_EINVAL, "schedule: unknown latency model %d", (int)o->latency);
    if (o->latency != LF_SCHED_ANALYTIC && !o->latency_fn)
        return lf_set_error(o->latency == LF_SCHED_MEASURED ? LF_ENOSYS : LF_EINVAL,
                            "schedule: %s stage latency needs %s; use the analytic model (--latency analytic)",
                            lf_sched_latency_name(o->latency),
                            o->latency == LF_SCHED_MEASURED ? "a GPU build and a device, which this build has not"
                                                            : "a latency function");
    return LF_OK;
}

lf_status lf_sched_run(const lf_graph *g, const lf_sched_options *o, lf_sched_result *r)
{
    memset(r, 0, sizeof *r);
    if (!g || !o)
        return lf_set_error(LF_EINVAL, "lf_sched_run: no graph or options");
    lf_status s = lf__check(o);
    if (s)
        return s;
    lf__sched x;
    lf__sbuf b;
    lf__sbuf_init(&b);
    uint8_t *cut = NULL;
    int32_t *start = NULL;
    s = lf__sched_init(&x, g, o, &r->stats);
    if (!s && !(s = lf__sched_sequential(&x, &b)))
        s = lf__sbuf_finish(&b, &r->sequential);
    if (!s && !(s = lf__sched_greedy(&x, &b)))
        s = lf__sbuf_finish(&b, &r->greedy);
    if (!s) {
        double t0 = lf__now();
        cut = malloc((size_t)x.n);
        start = malloc(sizeof *start * (size_t)(x.n + 1));
        if (!cut || !start)
            s = lf_set_error(LF_ENOMEM, "schedule: out of memory");
        int32_t nb = s ? 0 : lf__sched_blocks(&x, cut, start);
        r->stats.stage_evals = 0; /* count the search's own */
        r->stats.stage_timed = 0;
        for (int32_t i = 0; !s && i < nb; i++)
            s = lf__dos_block(&x, start[i], start[i + 1], &b);
        if (!s)
            s = lf__sbuf_finish(&b, &r->dos);
        r->stats.search_s = lf__now() - t0;
    }
    free(cut);
    free(start);
    lf__sbuf_free(&b);
    lf__sched_teardown(&x);
    if (s)
        lf_sched_result_destroy(r);
    return s;
}

void lf_sched_result_destroy(lf_sched_result *r)
{
    if (!r)
        return;
    lf_schedule_destroy(&r->sequential);
    lf_schedule_destroy(&r->greedy);
    lf_schedule_destroy(&r->dos);
}

static void lf__json_schedule(FILE *f, const lf_graph *g, const char *key, const lf_schedule *s)
{
    fprintf(f, "  \"%s\": {\n    \"latency_ms\": ", key);
    lf_json_double(f, s->latency_total_s * 1e3);
    if (s->measured_s) {
        fprintf(f, ",\n    \"measured_ms\": ");
        lf_json_double(f, s->measured_total_s * 1e3);
    }
    fprintf(f, ",\n    \"stages\": [");
    for (int32_t i = 0; i < s->n_stages; i++) {
        fprintf(f, "%s\n      {\"strategy\": \"%s\", \"latency_ms\": ", i ? "," : "",
                lf_sched_strategy_name(s->strategy[i]));
        lf_json_double(f, s->latency_s[i] * 1e3);
        if (s->measured_s) {
            fprintf(f, ", \"measured_ms\": ");
            lf_json_double(f, s->measured_s[i] * 1e3);
        }
        fprintf(f, ", \"groups\": [");
        for (int32_t j = s->stage_start[i]; j < s->stage_start[i + 1]; j++) {
            fprintf(f, "%s[", j > s->stage_start[i] ? ", " : "");
            int32_t o0 = s->op_start[s->group_start[j]], o1 = s->op_start[s->group_start[j + 1]];
            for (int32_t k = o0; k < o1; k++) {
                fprintf(f, "%s", k > o0 ? ", " : "");
                lf_json_string(f, g->ops[s->ops[k]].name);
            }
            fprintf(f, "]");
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n    ]\n  }");
}

lf_status lf_sched_write_json(const lf_graph *g, const char *model, const lf_sched_options *o,
                              const lf_sched_result *r, FILE *f)
{
    fprintf(f, "{\n  \"model\": ");
    lf_json_string(f, model ? model : g->name);
    fprintf(f, ",\n  \"latency_model\": \"%s\",\n  \"r\": %d,\n  \"s\": %d,\n  \"merge\": %s,\n",
            lf_sched_latency_name(o->latency), (int)o->max_group_ops, (int)o->max_groups,
            o->merge ? "true" : "false");
    fprintf(f, "  \"stats\": {\"units\": %d, \"blocks\": %d, \"parts\": %d, \"largest_part\": %d, "
               "\"states\": %lld, \"endings\": %lld, \"stage_evals\": %lld, \"search_s\": ",
            (int)r->stats.units, (int)r->stats.blocks, (int)r->stats.parts, (int)r->stats.largest_part,
            (long long)r->stats.states, (long long)r->stats.endings, (long long)r->stats.stage_evals);
    lf_json_double(f, r->stats.search_s);
    fprintf(f, "},\n");
    lf__json_schedule(f, g, "sequential", &r->sequential);
    fprintf(f, ",\n");
    lf__json_schedule(f, g, "greedy", &r->greedy);
    fprintf(f, ",\n");
    lf__json_schedule(f, g, "dos", &r->dos);
    fprintf(f, "\n}\n");
    return ferror(f) ? lf_set_error(LF_EIO, "schedule: writing the JSON failed") : LF_OK;
}

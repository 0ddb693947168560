/* The GPU behind the scheduler (DESIGN §12): the measured stage latency, a
 * concurrent stage's groups run on CUDA streams through planner/gpu's
 * lf_gpu_stage_latency (2 warm-up runs, 6 x 6 timed, mean), and a whole
 * schedule run end to end through lf_gpu_schedule_latency (3 warm-up runs,
 * median of 11), which gives the measured latency the CLI prints beside the
 * predicted one.
 *
 * Ops that launch no kernel (views such as Flatten: LF_OPF_NO_KERNEL, which
 * the analytic model charges nothing) are left out of what the GPU runs; a
 * stage of nothing else takes no time. A merged stage is one convolution
 * that is not an op of the graph: the stage timing cannot run it alone, so
 * schedules searched under the measured backend use concurrent stages only
 * (lf_sched_measured_options switches merging off), while a schedule run
 * end to end runs its merged stages as the widened convolution. */
#include "search/schedule/measured.h"

#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "planner/optable.h"

static int lf__runs_kernel(const lf_graph *g, int32_t v) { return !lf_op_has(g->ops[v].type, LF_OPF_NO_KERNEL); }

/* Stages [s0, s1) of a schedule's arrays (groups of units of ops) as the GPU
 * runs them: groups of ops with the views dropped, and empty groups too in
 * concurrent stages. ops and group_start have room for every op and group
 * (+1); stage_start (s1 - s0 + 1 entries) may be NULL. Returns the groups. */
static int32_t lf__gpu_groups(const lf_graph *g, const int32_t *stage_start, const lf_sched_strategy *strategy,
                              const int32_t *group_start, const int32_t *op_start, const int32_t *ops_in, int32_t s0,
                              int32_t s1, int32_t *ops, int32_t *starts, int32_t *stage_out)
{
    int32_t k = 0, n = 0;
    for (int32_t i = s0; i < s1; i++) {
        if (stage_out)
            stage_out[i - s0] = n;
        for (int32_t j = stage_start[i]; j < stage_start[i + 1]; j++) {
            int32_t k0 = k;
            for (int32_t u = group_start[j]; u < group_start[j + 1]; u++)
                for (int32_t q = op_start[u]; q < op_start[u + 1]; q++)
                    if (lf__runs_kernel(g, ops_in[q]))
                        ops[k++] = ops_in[q];
            if (k > k0 || strategy[i] == LF_SCHED_MERGE)
                starts[n++] = k0;
        }
    }
    starts[n] = k;
    if (stage_out)
        stage_out[s1 - s0] = n;
    return n;
}

lf_status lf_sched_gpu_latency(void *profiler, const lf_sched_stage_view *st, double *seconds)
{
    *seconds = 0.0;
    if (st->strategy == LF_SCHED_MERGE)
        return lf_set_error(LF_EUNSUPPORTED, "measured stage latency: a merged convolution is not an op "
                                             "of the graph and cannot be timed alone");
    int32_t n_units = st->group_start[st->n_groups];
    int32_t n_ops = st->op_start[n_units] - st->op_start[st->group_start[0]];
    int32_t *ops = malloc((size_t)(n_ops > 0 ? n_ops : 1) * sizeof *ops);
    int32_t *starts = malloc((size_t)(st->n_groups + 1) * sizeof *starts);
    if (!ops || !starts) {
        free(ops);
        free(starts);
        return lf_set_error(LF_ENOMEM, "out of memory");
    }
    /* the view as one stage: its groups are stage 0's */
    int32_t stage_start[2] = {0, st->n_groups};
    lf_sched_strategy strategy = st->strategy;
    int32_t n = lf__gpu_groups(st->g, stage_start, &strategy, st->group_start, st->op_start, st->ops, 0, 1, ops,
                               starts, NULL);
    lf_status s = n > 0 ? lf_gpu_stage_latency(profiler, st->g, ops, starts, n, seconds) : LF_OK;
    free(ops);
    free(starts);
    return s;
}

void lf_sched_measured_options(lf_sched_options *o, lf_gpu_profiler *profiler)
{
    o->latency = LF_SCHED_MEASURED;
    o->latency_fn = lf_sched_gpu_latency;
    o->latency_ctx = profiler;
    o->memo_configs = 1;
    o->merge = 0;
}

lf_status lf_sched_measured_begin(lf_sched_options *o, lf_gpu_profiler **profiler)
{
    const lf_hw *hw = o->hw;
    int32_t device = hw && hw->has_gpu && hw->gpu.device_index >= 0 ? hw->gpu.device_index : 0;
    lf_status st = lf_gpu_profiler_create(profiler, device, NULL);
    if (st == LF_OK && o->latency == LF_SCHED_MEASURED)
        lf_sched_measured_options(o, *profiler);
    return st;
}

lf_status lf_sched_execute(lf_gpu_profiler *profiler, const lf_graph *g, lf_schedule *s)
{
    free(s->measured_s);
    s->measured_s = NULL;
    s->measured_total_s = 0.0;
    if (!profiler || !g || s->n_stages < 1)
        return lf_set_error(LF_EINVAL, "schedule run: no GPU profiler, graph or stages");
    int32_t n_groups = s->stage_start[s->n_stages];
    int32_t n_ops = s->op_start[s->group_start[n_groups]];
    int32_t *ops = malloc(sizeof *ops * (size_t)(n_ops > 0 ? n_ops : 1));
    int32_t *starts = malloc(sizeof *starts * (size_t)(n_groups + 1));
    int32_t *stages = malloc(sizeof *stages * (size_t)(s->n_stages + 1));
    uint8_t *merged = malloc((size_t)s->n_stages);
    double *times = calloc((size_t)s->n_stages, sizeof *times);
    lf_status st = LF_OK;
    if (!ops || !starts || !stages || !merged || !times)
        st = lf_set_error(LF_ENOMEM, "out of memory for a schedule run");
    if (!st) {
        lf__gpu_groups(g, s->stage_start, s->strategy, s->group_start, s->op_start, s->ops, 0, s->n_stages, ops,
                       starts, stages);
        for (int32_t i = 0; i < s->n_stages; i++)
            merged[i] = s->strategy[i] == LF_SCHED_MERGE;
        lf_gpu_schedule_desc d = {s->n_stages, stages, merged, starts, ops};
        st = lf_gpu_schedule_latency(profiler, g, &d, &s->measured_total_s, times);
    }
    if (!st) {
        s->measured_s = times;
        times = NULL;
    } else {
        s->measured_total_s = 0.0;
    }
    free(ops);
    free(starts);
    free(stages);
    free(merged);
    free(times);
    return st;
}

lf_status lf_sched_execute_all(lf_gpu_profiler *profiler, const lf_graph *g, lf_sched_result *r)
{
    lf_schedule *s[3] = {&r->sequential, &r->greedy, &r->dos};
    for (int k = 0; k < 3; k++) {
        lf_status st = lf_sched_execute(profiler, g, s[k]);
        if (st) {
            for (int j = 0; j < 3; j++) { /* all or nothing */
                free(s[j]->measured_s);
                s[j]->measured_s = NULL;
                s[j]->measured_total_s = 0.0;
            }
            return st;
        }
    }
    return LF_OK;
}

lf_status lf_sched_write_measured(FILE *f, const lf_sched_result *r, const char *device)
{
    const lf_schedule *s[3] = {&r->sequential, &r->greedy, &r->dos};
    static const char *const names[3] = {"sequential", "greedy", "dos"};
    fprintf(f, "run end to end on %s: %d warm-up runs, median of %d\n", device ? device : "the GPU",
            LF_GPU_SCHEDULE_WARMUP, LF_GPU_SCHEDULE_REPEATS);
    for (int k = 0; k < 3; k++) {
        if (!s[k]->measured_s)
            continue;
        double p = s[k]->latency_total_s, m = s[k]->measured_total_s;
        fprintf(f, "  %-10s predicted %9.4f ms  measured %9.4f ms  measured/predicted %.3f\n", names[k], p * 1e3,
                m * 1e3, p > 0 ? m / p : 0.0);
    }
    double seq = s[0]->measured_total_s;
    if (s[0]->measured_s && s[1]->measured_s && s[2]->measured_s && s[1]->measured_total_s > 0 &&
        s[2]->measured_total_s > 0)
        fprintf(f, "  measured speed-up over sequential: greedy %.3fx, dos %.3fx\n", seq / s[1]->measured_total_s,
                seq / s[2]->measured_total_s);
    return ferror(f) ? lf_set_error(LF_EIO, "schedule: writing the measured latencies failed") : LF_OK;
}

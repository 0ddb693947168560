/* A whole inter-operator schedule run end to end on the GPU (DESIGN §12,
 * lf_gpu_schedule_latency; built only with LF_HAVE_CUDA).
 *
 * Every op is prepared once, before anything is timed, with the same
 * runners as a single op or a stage (oprun_cuda.c: its own operand buffers,
 * the convolution algorithm cuDNN finds); a merged stage gets one widened
 * convolution and its epilogue. Each stream has a convolution workspace of
 * its own (lf__streams). A run then launches stage after stage with
 * no host synchronisation: stream j of stage i first waits on the
 * end-of-group events of every stream of stage i - 1 but itself (its own
 * earlier work is ordered already), then runs its group and records its own
 * event. All waits of a stage are issued before any of its events is
 * recorded again, since cudaStreamWaitEvent binds to the event's latest
 * record at the time of the call. The launching stream only watches: it
 * waits on each stage's events and records a timing event (marks), which
 * gives the stage times and, first to last, the run's time; nothing waits on
 * it except the next run's first stage, which keeps runs from overlapping. */
#include <stdlib.h>
#include <string.h>

#include "planner/gpu/oprun_internal.h"
#include "planner/optable.h"

#define LF__CU(call, what)                                                                        \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess)                                                                    \
            return lf_set_error(LF_EIO, "GPU %s failed: %s", what, cudaGetErrorString(e_));       \
    } while (0)

/* The schedule prepared on the device. */
typedef struct lf__srun {
    const lf_gpu_schedule_desc *s;
    lf__oprun *runs;   /* one per entry of s->ops (concurrent stages; zeroed in merged ones) */
    lf__oprun *merged; /* per stage: [2i] the merged convolution, [2i + 1] its epilogue (zeroed: none) */
    int32_t n_ops;
    lf__streams ss;
    cudaEvent_t *mark; /* n_stages + 1 timing events on the launching stream */
    int32_t n_marks;   /* created */
} lf__srun;

static int32_t lf__group_size(const lf_gpu_schedule_desc *s, int32_t j)
{
    return s->group_start[j + 1] - s->group_start[j];
}

static int lf__is_merged(const lf_gpu_schedule_desc *s, int32_t i) { return s->merged && s->merged[i]; }

/* Non-empty groups of concurrent stage i: the streams it uses. */
static int32_t lf__busy_groups(const lf_gpu_schedule_desc *s, int32_t i)
{
    int32_t k = 0;
    for (int32_t j = s->stage_start[i]; j < s->stage_start[i + 1]; j++)
        k += lf__group_size(s, j) > 0;
    return k;
}

/* The shape of s, and what the runners need of each op; *streams is the
 * most streams a stage uses (at least 1). */
static lf_status lf__check(const lf_graph *g, const lf_gpu_schedule_desc *s, int32_t *streams)
{
    if (!s || s->n_stages < 1 || !s->stage_start || !s->group_start || !s->ops)
        return lf_set_error(LF_EINVAL, "schedule run: no stages");
    if (s->stage_start[0] != 0 || s->group_start[0] != 0)
        return lf_set_error(LF_EINVAL, "schedule run: the first stage and group must start at 0");
    *streams = 1;
    for (int32_t i = 0; i < s->n_stages; i++) {
        int32_t g0 = s->stage_start[i], g1 = s->stage_start[i + 1];
        if (g1 < g0)
            return lf_set_error(LF_EINVAL, "schedule run: stage %d has a negative number of groups", (int)i + 1);
        for (int32_t j = g0; j < g1; j++)
            if (lf__group_size(s, j) < 0)
                return lf_set_error(LF_EINVAL, "schedule run: stage %d has a group of negative size", (int)i + 1);
        const int32_t *ops = s->ops + s->group_start[g0];
        int32_t n = s->group_start[g1] - s->group_start[g0];
        if (!lf__is_merged(s, i)) {
            int32_t k = lf__busy_groups(s, i);
            if (k > LF__MAX_STREAMS)
                return lf_set_error(LF_EINVAL, "schedule run: stage %d has %d groups (at most %d)", (int)i + 1,
                                    (int)k, LF__MAX_STREAMS);
            *streams = k > *streams ? k : *streams;
            lf_status st = lf__ops_runnable(g, ops, n, "schedule run");
            if (st)
                return st;
            continue;
        }
        int32_t per = g1 > g0 ? lf__group_size(s, g0) : 0; /* a merged stage: conv [, epilogue] per group */
        for (int32_t j = g0; j < g1 && per >= 1 && per <= 2; j++)
            if (lf__group_size(s, j) != per)
                per = 0;
        if (per < 1 || per > 2)
            return lf_set_error(LF_EINVAL, "schedule run: merged stage %d is not one convolution (and the same "
                                           "epilogue) per group", (int)i + 1);
        for (int32_t k = 0; k < n; k++)
            if (ops[k] < 0 || ops[k] >= g->n_ops)
                return lf_set_error(LF_EINVAL, "schedule run: stage %d names op %d of %d", (int)i + 1, (int)ops[k],
                                    (int)g->n_ops);
        for (int32_t j = 0; j < g1 - g0; j++) {
            const lf_op *c = &g->ops[ops[j * per]];
            if (!lf_gpu_op_measurable(g, ops[j * per]) || lf_op_info_of(c->type)->gpu != LF_GPU_CONV)
                return lf_set_error(LF_EUNSUPPORTED, "schedule run: merged stage %d: op %s is not a convolution "
                                                     "the GPU runs", (int)i + 1, c->name);
            if (per == 2 && g->ops[ops[j * per + 1]].type != g->ops[ops[1]].type)
                return lf_set_error(LF_EINVAL, "schedule run: merged stage %d: epilogues %s and %s differ",
                                    (int)i + 1, g->ops[ops[1]].name, g->ops[ops[j * per + 1]].name);
        }
    }
    return LF_OK;
}

static lf_status lf__prepare_merged(lf__gpu_ctx *ctx, const lf_graph *g, const lf_gpu_schedule_desc *s, int32_t i,
                                    lf__oprun *conv, lf__oprun *epi)
{
    int32_t g0 = s->stage_start[i], g1 = s->stage_start[i + 1];
    int32_t per = lf__group_size(s, g0);
    int32_t *convs = malloc(sizeof *convs * (size_t)(g1 - g0));
    if (!convs)
        return lf_set_error(LF_ENOMEM, "out of memory for a merged stage");
    for (int32_t j = g0; j < g1; j++)
        convs[j - g0] = s->ops[s->group_start[j]];
    lf_status st = lf__oprun_prepare_merged(ctx, g, convs, g1 - g0, per == 2 ? s->ops[s->group_start[g0] + 1] : -1,
                                            conv, epi);
    free(convs);
    return st;
}

static void lf__srun_free(lf__srun *r)
{
    lf__streams_destroy(&r->ss); /* waits for the device first */
    for (int32_t i = 0; i < r->n_marks; i++)
        cudaEventDestroy(r->mark[i]);
    if (r->runs)
        lf__ops_release(r->runs, r->n_ops);
    if (r->merged)
        lf__ops_release(r->merged, 2 * r->s->n_stages);
    free(r->runs);
    free(r->merged);
    free(r->mark);
    memset(r, 0, sizeof *r);
}

static lf_status lf__srun_prepare(lf_gpu_profiler *p, const lf_graph *g, const lf_gpu_schedule_desc *s,
                                  int32_t streams, lf__srun *r)
{
    memset(r, 0, sizeof *r);
    r->s = s;
    r->n_ops = s->group_start[s->stage_start[s->n_stages]];
    r->runs = calloc((size_t)(r->n_ops > 0 ? r->n_ops : 1), sizeof *r->runs);
    r->merged = calloc((size_t)(2 * s->n_stages), sizeof *r->merged);
    r->mark = calloc((size_t)(s->n_stages + 1), sizeof *r->mark);
    if (!r->runs || !r->merged || !r->mark)
        return lf_set_error(LF_ENOMEM, "out of memory for a schedule of %d stages", (int)s->n_stages);
    lf_status st = LF_OK;
    for (int32_t i = 0; i < s->n_stages && !st; i++) {
        int32_t a = s->group_start[s->stage_start[i]], b = s->group_start[s->stage_start[i + 1]];
        st = lf__is_merged(s, i) ? lf__prepare_merged(&p->ctx, g, s, i, &r->merged[2 * i], &r->merged[2 * i + 1])
                                 : lf__ops_prepare(&p->ctx, g, s->ops + a, b - a, r->runs + a);
    }
    if (!st) { /* each stream its own workspace: the largest any runner needs */
        size_t ws = lf__ops_workspace(r->runs, r->n_ops), wm = lf__ops_workspace(r->merged, 2 * s->n_stages);
        st = lf__streams_create(&r->ss, streams, &p->ctx, ws > wm ? ws : wm);
    }
    for (int32_t i = 0; i <= s->n_stages && !st; i++) {
        cudaError_t e = cudaEventCreate(&r->mark[i]);
        if (e != cudaSuccess)
            return lf_set_error(LF_EIO, "GPU event creation failed: %s", cudaGetErrorString(e));
        r->n_marks = i + 1;
    }
    return st;
}

/* Launches one run of the whole schedule (see the top of the file). */
static lf_status lf__srun_launch(lf_gpu_profiler *p, lf__srun *r)
{
    const lf_gpu_schedule_desc *s = r->s;
    lf__streams *ss = &r->ss;
    LF__CU(cudaEventRecord(r->mark[0], p->stream), "event record");
    int32_t n_prev = 0; /* streams of the last stage that ran anything; 0: wait on mark[0] */
    for (int32_t i = 0; i < s->n_stages; i++) {
        int32_t g0 = s->stage_start[i], g1 = s->stage_start[i + 1];
        int32_t k = lf__is_merged(s, i) ? 1 : lf__busy_groups(s, i);
        /* all waits first: the events still hold the previous stage's records */
        for (int32_t j = 0; j < k; j++) {
            if (n_prev == 0)
                LF__CU(cudaStreamWaitEvent(ss->s[j], r->mark[0], 0), "stream wait");
            for (int32_t q = 0; q < n_prev; q++)
                if (q != j)
                    LF__CU(cudaStreamWaitEvent(ss->s[j], ss->done[q], 0), "stream wait");
        }
        lf_status st;
        if (lf__is_merged(s, i)) {
            if ((st = lf__oprun_enqueue(&ss->ctx[0], &r->merged[2 * i], ss->s[0])))
                return st;
            if (r->merged[2 * i + 1].kind && (st = lf__oprun_enqueue(&ss->ctx[0], &r->merged[2 * i + 1], ss->s[0])))
                return st;
        } else {
            for (int32_t j = g0, m = 0; j < g1; j++) {
                if (lf__group_size(s, j) == 0)
                    continue;
                if ((st = lf__ops_enqueue(&ss->ctx[m], r->runs, s->group_start[j], s->group_start[j + 1], ss->s[m])))
                    return st;
                m++;
            }
        }
        for (int32_t j = 0; j < k; j++) {
            LF__CU(cudaEventRecord(ss->done[j], ss->s[j]), "event record");
            LF__CU(cudaStreamWaitEvent(p->stream, ss->done[j], 0), "stream wait");
        }
        LF__CU(cudaEventRecord(r->mark[i + 1], p->stream), "event record");
        if (k > 0) /* an empty stage passes the previous one's events on */
            n_prev = k;
    }
    return LF_OK;
}

static int lf__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double lf__median(double *v, int32_t n)
{
    qsort(v, (size_t)n, sizeof *v, lf__cmp_double);
    return v[n / 2];
}

static lf_status lf__srun_time(lf_gpu_profiler *p, lf__srun *r, double *seconds, double *stage_seconds)
{
    int32_t ns = r->s->n_stages;
    double total[LF_GPU_SCHEDULE_REPEATS];
    double *per = stage_seconds ? malloc(sizeof *per * (size_t)ns * LF_GPU_SCHEDULE_REPEATS) : NULL;
    if (stage_seconds && !per)
        return lf_set_error(LF_ENOMEM, "out of memory for stage times");
    lf_status st = LF_OK;
    for (int i = 0; i < LF_GPU_SCHEDULE_WARMUP && !st; i++)
        st = lf__srun_launch(p, r);
    for (int rep = 0; rep < LF_GPU_SCHEDULE_REPEATS && !st; rep++) {
        if ((st = lf__srun_launch(p, r)))
            break;
        cudaError_t e = cudaEventSynchronize(r->mark[ns]);
        float ms = 0.0f;
        if (e == cudaSuccess)
            e = cudaEventElapsedTime(&ms, r->mark[0], r->mark[ns]);
        total[rep] = (double)ms * 1e-3;
        for (int32_t i = 0; per && i < ns && e == cudaSuccess; i++) {
            e = cudaEventElapsedTime(&ms, r->mark[i], r->mark[i + 1]);
            per[(size_t)i * LF_GPU_SCHEDULE_REPEATS + (size_t)rep] = (double)ms * 1e-3;
        }
        if (e != cudaSuccess)
            st = lf_set_error(LF_EIO, "GPU timing of the schedule failed: %s", cudaGetErrorString(e));
    }
    if (!st) {
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            st = lf_set_error(LF_EIO, "GPU kernel launch failed: %s", cudaGetErrorString(e));
    }
    if (!st) {
        *seconds = lf__median(total, LF_GPU_SCHEDULE_REPEATS);
        for (int32_t i = 0; per && i < ns; i++)
            stage_seconds[i] = lf__median(per + (size_t)i * LF_GPU_SCHEDULE_REPEATS, LF_GPU_SCHEDULE_REPEATS);
    }
    free(per);
    return st;
}

static lf_status lf__schedule_locked(lf_gpu_profiler *p, const lf_graph *g, const lf_gpu_schedule_desc *s,
                                     double *seconds, double *stage_seconds)
{
    int32_t streams = 1;
    lf_status st = lf__check(g, s, &streams);
    if (st)
        return st;
    LF__CU(cudaSetDevice(p->device), "device selection");
    lf__srun r;
    if (!(st = lf__srun_prepare(p, g, s, streams, &r)))
        st = lf__srun_time(p, &r, seconds, stage_seconds);
    lf__srun_free(&r); /* also after a failure half way: waits for the device, then frees */
    return st;
}

lf_status lf_gpu_schedule_latency(lf_gpu_profiler *p, const lf_graph *g, const lf_gpu_schedule_desc *s,
                                  double *seconds, double *stage_seconds)
{
    *seconds = 0.0;
    if (stage_seconds && s && s->n_stages > 0)
        memset(stage_seconds, 0, sizeof *stage_seconds * (size_t)s->n_stages);
    if (!p || !g)
        return lf_set_error(LF_EINVAL, "no GPU profiler or graph");
    lf_mutex_lock(&p->lock);
    lf_status st = lf__schedule_locked(p, g, s, seconds, stage_seconds);
    lf_mutex_unlock(&p->lock);
    return st;
}

/* search/schedule/measured.h without a GPU: what a schedule run end to end
 * leaves in the JSON (measured_ms beside latency_ms, in all and per stage,
 * only when it ran) and in the measured-against-predicted table; a stage of
 * views costs nothing and needs no GPU; without CUDA support or a device the
 * runs fail with one line and leave no measurement. The runs themselves are
 * in test_gpu_schedule (skipped without a GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/gpu/device.h"
#include "search/schedule/measured.h"
#include "testlib.h"

static char *json_of(const lf_graph *g, const lf_sched_options *o, lf_sched_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    lf_sched_write_json(g, "m", o, r, f);
    fclose(f);
    return buf;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; p && (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

/* Fabricated measurements: the JSON carries them where the schedule has one. */
static void test_json(const lf_graph *g, const lf_sched_options *o, lf_sched_result *r)
{
    char *plain = json_of(g, o, r);
    CHECK(plain && !strstr(plain, "measured_ms"));
    lf_schedule *d = &r->dos;
    d->measured_s = calloc((size_t)d->n_stages, sizeof *d->measured_s);
    if (!d->measured_s) {
        free(plain);
        CHECK(0);
        return;
    }
    for (int32_t i = 0; i < d->n_stages; i++)
        d->measured_s[i] = 0.25e-3;
    d->measured_total_s = 0.25e-3 * d->n_stages;
    char *with = json_of(g, o, r);
    CHECK(with != NULL);
    /* the DOS object and each of its stages, and nothing else */
    CHECK_EQ_I64(count(with, "\"measured_ms\""), 1 + d->n_stages);
    CHECK_EQ_I64(count(with, "\"measured_ms\": 0.25,"), d->n_stages);
    const char *dos = with ? strstr(with, "\"dos\": {") : NULL;
    const char *first = with ? strstr(with, "\"measured_ms\"") : NULL;
    CHECK(dos && first && first > dos); /* none before the DOS object */
    char want[64];
    snprintf(want, sizeof want, "\"measured_ms\": %g,", 0.25 * d->n_stages);
    CHECK(dos && strstr(dos, want) != NULL);
    /* the rest is the plain JSON: drop the measured fields and compare */
    free(d->measured_s);
    d->measured_s = NULL;
    d->measured_total_s = 0.0;
    char *again = json_of(g, o, r);
    CHECK(plain && again && strcmp(plain, again) == 0);
    free(plain);
    free(with);
    free(again);
}

/* The table the CLI prints: one row per measured schedule, the ratio, the
 * speed-ups once all three are measured. */
static void test_table(lf_sched_result *r)
{
    lf_schedule *s[3] = {&r->sequential, &r->greedy, &r->dos};
    double pred[3] = {2e-3, 1.6e-3, 1e-3}, meas[3] = {3e-3, 2e-3, 1.5e-3};
    for (int k = 0; k < 3; k++) {
        s[k]->latency_total_s = pred[k];
        s[k]->measured_s = calloc((size_t)s[k]->n_stages, sizeof(double));
        s[k]->measured_total_s = meas[k];
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK_OK(lf_sched_write_measured(f, r, "Test GPU"));
    fclose(f);
    const char *want = "run end to end on Test GPU: 3 warm-up runs, median of 11\n"
                       "  sequential predicted    2.0000 ms  measured    3.0000 ms  measured/predicted 1.500\n"
                       "  greedy     predicted    1.6000 ms  measured    2.0000 ms  measured/predicted 1.250\n"
                       "  dos        predicted    1.0000 ms  measured    1.5000 ms  measured/predicted 1.500\n"
                       "  measured speed-up over sequential: greedy 1.500x, dos 2.000x\n";
    CHECK_STR(buf, want);
    free(buf);
    for (int k = 0; k < 3; k++) {
        free(s[k]->measured_s);
        s[k]->measured_s = NULL;
        s[k]->measured_total_s = 0.0;
    }
}

/* The view of stage i of s, as the scheduler hands it to a backend. */
static lf_sched_stage_view view_of(const lf_graph *g, const lf_schedule *s, int32_t i)
{
    lf_sched_stage_view v = {g, s->strategy[i], s->stage_start[i + 1] - s->stage_start[i],
                             s->group_start + s->stage_start[i], s->op_start, s->ops};
    return v;
}

/* No device here (or no CUDA support): views cost 0 and need no GPU, the
 * rest fails in one line and leaves no measurement. */
static void test_without_gpu(const lf_graph *g, lf_sched_result *r)
{
    const lf_schedule *seq = &r->sequential;
    int32_t flatten = -1, conv = -1;
    for (int32_t i = 0; i < seq->n_stages; i++) {
        const char *name = g->ops[seq->ops[seq->op_start[seq->group_start[seq->stage_start[i]]]]].name;
        if (strcmp(name, "flatten") == 0)
            flatten = i;
        if (strcmp(name, "features.0") == 0)
            conv = i;
    }
    CHECK(flatten >= 0 && conv >= 0);
    if (flatten < 0 || conv < 0)
        return;
    lf_sched_stage_view v = view_of(g, seq, flatten);
    double t = -1.0;
    CHECK_OK(lf_sched_gpu_latency(NULL, &v, &t)); /* launches nothing: no profiler needed */
    CHECK_NEAR(t, 0.0, 0.0);
    v = view_of(g, seq, conv);
    lf_status st = lf_sched_gpu_latency(NULL, &v, &t);
    CHECK_EQ_I64(st, lf_gpu_built() ? LF_EINVAL : LF_ENOSYS);
    CHECK(!strchr(lf_last_error(), '\n'));

    /* the stub answers LF_ENOSYS naming the missing CUDA support, in one line */
    int32_t stages[2] = {0, 1}, groups[2] = {0, 1};
    int32_t ops[1] = {seq->ops[seq->op_start[seq->group_start[seq->stage_start[conv]]]]};
    lf_gpu_schedule_desc d = {1, stages, NULL, groups, ops};
    double stage_t[1] = {-1.0};
    st = lf_gpu_schedule_latency(NULL, g, &d, &t, stage_t);
    CHECK_EQ_I64(st, lf_gpu_built() ? LF_EINVAL : LF_ENOSYS);
    CHECK(t == 0.0 && stage_t[0] == 0.0);
    if (!lf_gpu_built())
        CHECK(strstr(lf_last_error(), "without CUDA support") != NULL);
    CHECK(!strchr(lf_last_error(), '\n'));

    /* a profiler cannot be had, and a schedule run without one keeps nothing */
    lf_gpu_profiler *p = NULL;
    CHECK_EQ_I64(lf_gpu_profiler_create(&p, 0, NULL), lf_gpu_built() ? LF_ENOTFOUND : LF_ENOSYS);
    CHECK(p == NULL);
    r->dos.measured_total_s = 1.0;
    CHECK_EQ_I64(lf_sched_execute(NULL, g, &r->dos), LF_EINVAL);
    CHECK(r->dos.measured_s == NULL && r->dos.measured_total_s == 0.0);
    CHECK_EQ_I64(lf_sched_execute_all(NULL, g, r), LF_EINVAL);
    CHECK(!r->sequential.measured_s && !r->greedy.measured_s && !r->dos.measured_s);
}

int main(void)
{
    int32_t n = 0;
    int gpu = lf_gpu_built() && lf_gpu_count(&n) == LF_OK && n > 0;
    lf_graph *g = NULL;
    lf_model_options mo = {0, 1};
    CHECK_OK(lf_model_build("squeezenet1_1", &mo, &g));
    if (!g)
        return lf_test_result();
    lf_hw hw;
    lf_hw_default(&hw);
    lf_sched_options o;
    lf_sched_options_default(&o);
    o.hw = &hw;
    lf_sched_result r;
    CHECK_OK(lf_sched_run(g, &o, &r));
    if (r.dos.n_stages > 0) {
        test_json(g, &o, &r);
        test_table(&r);
        if (!gpu) /* with a device, test_gpu_schedule runs them */
            test_without_gpu(g, &r);
    }
    lf_sched_result_destroy(&r);
    lf_graph_free(g);
    return lf_test_result();
}

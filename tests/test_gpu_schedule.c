/* Whole schedules run end to end on a real GPU (lf_gpu_schedule_latency
 * through lf_sched_execute): SqueezeNet 1.1 at batch 1, its DOS schedule
 * twice (positive, repeatable within 20%, stage times adding up to the
 * whole), a DOS schedule of merged stages only (the widened convolutions),
 * the sequential schedule against the sum of its stages timed alone
 * (lf_gpu_stage_latency), and malformed schedules refused. Exits 77
 * (skipped) when fusionplan is built without CUDA or no GPU is visible. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/gpu/device.h"
#include "search/schedule/measured.h"
#include "testlib.h"

static double stage_sum(const lf_schedule *s)
{
    double t = 0.0;
    for (int32_t i = 0; i < s->n_stages; i++)
        t += s->measured_s[i];
    return t;
}

static void test_dos_repeatable(lf_gpu_profiler *p, const lf_graph *g, lf_schedule *dos)
{
    CHECK_OK(lf_sched_execute(p, g, dos));
    double t1 = dos->measured_total_s;
    CHECK(dos->measured_s != NULL && t1 > 0 && t1 < 1.0);
    if (!dos->measured_s)
        return;
    for (int32_t i = 0; i < dos->n_stages; i++)
        CHECK(dos->measured_s[i] >= 0);
    /* medians of the stages against the median of the whole: close */
    double sum = stage_sum(dos);
    CHECK(sum > 0.8 * t1 && sum < 1.2 * t1);
    CHECK_OK(lf_sched_execute(p, g, dos));
    double t2 = dos->measured_total_s;
    double ratio = t1 > t2 ? t1 / t2 : t2 / t1;
    if (!(ratio <= 1.2))
        fprintf(stderr, "dos: %.3f us then %.3f us\n", t1 * 1e6, t2 * 1e6);
    CHECK(t2 > 0 && ratio <= 1.2);
    printf("dos: %d stages, predicted %.4f ms, measured %.4f ms and %.4f ms\n", (int)dos->n_stages,
           dos->latency_total_s * 1e3, t1 * 1e3, t2 * 1e3);
}

/* The sequential schedule end to end against its stages timed one by one:
 * the same kernels, so within a sane factor (the stage timing adds a fork
 * and a join per run, the end-to-end run one event wait per stage). */
static void test_sequential_vs_stages(lf_gpu_profiler *p, const lf_graph *g, lf_schedule *seq)
{
    CHECK_OK(lf_sched_execute(p, g, seq));
    double alone = 0.0;
    for (int32_t i = 0; i < seq->n_stages; i++) {
        lf_sched_stage_view v = {g, seq->strategy[i], seq->stage_start[i + 1] - seq->stage_start[i],
                                 seq->group_start + seq->stage_start[i], seq->op_start, seq->ops};
        double t = 0.0;
        CHECK_OK(lf_sched_gpu_latency(p, &v, &t));
        alone += t;
    }
    double e2e = seq->measured_total_s;
    printf("sequential: %d stages, end to end %.4f ms, stages alone %.4f ms (ratio %.3f)\n", (int)seq->n_stages,
           e2e * 1e3, alone * 1e3, alone > 0 ? e2e / alone : 0.0);
    CHECK(e2e > 0 && alone > 0);
    CHECK(e2e > 0.5 * alone && e2e < 2.0 * alone);
}

/* DOS with merged stages only: the widened convolutions run (SqueezeNet's
 * expand1x1 and expand3x3 read one tensor and centre). */
static void test_merged(lf_gpu_profiler *p, const lf_graph *g)
{
    lf_hw hw;
    lf_hw_default(&hw);
    lf_sched_options o;
    lf_sched_options_default(&o);
    o.hw = &hw;
    o.concurrent = 0;
    lf_sched_result r;
    CHECK_OK(lf_sched_run(g, &o, &r));
    int32_t merged = 0;
    for (int32_t i = 0; i < r.dos.n_stages; i++)
        merged += r.dos.strategy[i] == LF_SCHED_MERGE;
    CHECK(merged > 0);
    CHECK_OK(lf_sched_execute(p, g, &r.dos));
    CHECK(r.dos.measured_total_s > 0 && r.dos.measured_total_s < 1.0);
    printf("dos, merged stages only: %d stages (%d merged), predicted %.4f ms, measured %.4f ms\n",
           (int)r.dos.n_stages, (int)merged, r.dos.latency_total_s * 1e3, r.dos.measured_total_s * 1e3);
    lf_sched_result_destroy(&r);
}

static void test_refused(lf_gpu_profiler *p, const lf_graph *g)
{
    int32_t conv = lf_graph_find(g, "features.0"), pool = lf_graph_find(g, "features.2");
    int32_t flatten = lf_graph_find(g, "flatten");
    CHECK(conv >= 0 && pool >= 0 && flatten >= 0);
    double t = 0.0;
    int32_t stages[2] = {0, 1}, groups[3] = {0, 1, 2}, ops[2] = {conv, pool};
    lf_gpu_schedule_desc d = {1, stages, NULL, groups, ops};
    CHECK_OK(lf_gpu_schedule_latency(p, g, &d, &t, NULL)); /* one stage, one group */
    CHECK(t > 0);
    int32_t bad_start[2] = {1, 1};
    d.stage_start = bad_start;
    CHECK_EQ_I64(lf_gpu_schedule_latency(p, g, &d, &t, NULL), LF_EINVAL);
    int32_t both[2] = {0, 2}; /* one stage of two groups: conv, then the view */
    d.stage_start = both;
    ops[1] = flatten; /* a view: the caller leaves it out */
    CHECK_EQ_I64(lf_gpu_schedule_latency(p, g, &d, &t, NULL), LF_EUNSUPPORTED);
    CHECK(strstr(lf_last_error(), "flatten") != NULL);
    uint8_t merged[1] = {1}; /* a merged stage of a pool */
    int32_t one[2] = {0, 1}, just_pool[1] = {pool};
    lf_gpu_schedule_desc m = {1, stages, merged, one, just_pool};
    CHECK_EQ_I64(lf_gpu_schedule_latency(p, g, &m, &t, NULL), LF_EUNSUPPORTED);
}

int main(void)
{
    int32_t n = 0;
    if (!lf_gpu_built() || lf_gpu_count(&n) != LF_OK || n == 0) {
        printf("skipped: %s\n", lf_gpu_built() ? "no CUDA device visible" : "built without CUDA");
        return 77;
    }
    lf_graph *g = NULL;
    lf_model_options mo = {0, 1};
    CHECK_OK(lf_model_build("squeezenet1_1", &mo, &g));
    lf_gpu_profiler *p = NULL;
    CHECK_OK(lf_gpu_profiler_create(&p, 0, NULL));
    if (!g || !p) {
        lf_graph_free(g);
        lf_gpu_profiler_free(p);
        return lf_test_result();
    }
    lf_hw hw;
    lf_hw_default(&hw);
    lf_sched_options o;
    lf_sched_options_default(&o);
    o.hw = &hw;
    lf_sched_result r;
    CHECK_OK(lf_sched_run(g, &o, &r));
    test_dos_repeatable(p, g, &r.dos);
    test_sequential_vs_stages(p, g, &r.sequential);
    CHECK_OK(lf_sched_execute_all(p, g, &r));
    CHECK(r.sequential.measured_s && r.greedy.measured_s && r.dos.measured_s);
    CHECK(r.greedy.measured_total_s > 0);
    lf_sched_result_destroy(&r);
    test_merged(p, g);
    test_refused(p, g);
    lf_gpu_profiler_free(p);
    lf_graph_free(g);
    return lf_test_result();
}

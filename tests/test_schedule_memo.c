/* The configuration memo of stage latencies (search/schedule/config_memo.c,
 * lf_sched_options.memo_configs): with a custom backend that depends only
 * on the ops' configurations, DOS finds the same schedules with and without
 * the memo, the backend is called once per distinct configuration
 * (stage_timed) instead of once per distinct stage (stage_evals), and
 * networks with repeated blocks need far fewer calls. */
#include <stdio.h>

#include "models/registry.h"
#include "search/schedule/schedule.h"
#include "testlib.h"

static int64_t calls;

/* Each group: its ops' MACs at 1 TMAC/s plus 5 us a kernel; the stage: its
 * longest group. Depends on shapes and attributes only, never on op ids. */
static lf_status by_config(void *ctx, const lf_sched_stage_view *v, double *seconds)
{
    (void)ctx;
    calls++;
    double longest = 0.0;
    for (int32_t i = 0; i < v->n_groups; i++) {
        double t = 0.0;
        for (int32_t u = v->group_start[i]; u < v->group_start[i + 1]; u++)
            for (int32_t k = v->op_start[u]; k < v->op_start[u + 1]; k++) {
                const lf_op *op = &v->g->ops[v->ops[k]];
                t += (double)op->macs * 1e-12 + (double)op->out.c * op->out.h * op->out.w * 1e-13 + 5e-6;
            }
        longest = t > longest ? t : longest;
    }
    *seconds = longest;
    return LF_OK;
}

static void check_model(const char *name, double most_calls_share)
{
    lf_graph *g = NULL;
    lf_model_options mo = {0, 1};
    CHECK_OK(lf_model_build(name, &mo, &g));
    if (!g)
        return;
    lf_sched_result r[2];
    int64_t n_calls[2];
    for (int memo = 0; memo < 2; memo++) {
        lf_sched_options o;
        lf_sched_options_default(&o);
        o.latency = LF_SCHED_CUSTOM;
        o.latency_fn = by_config;
        o.merge = 0; /* as the measured backend: concurrent stages only */
        o.memo_configs = memo;
        calls = 0;
        CHECK_OK(lf_sched_run(g, &o, &r[memo]));
        n_calls[memo] = calls;
    }
    CHECK_EQ_I64(r[0].dos.n_stages, r[1].dos.n_stages);
    CHECK(r[0].dos.latency_total_s == r[1].dos.latency_total_s);
    CHECK(r[0].greedy.latency_total_s == r[1].greedy.latency_total_s);
    CHECK(r[0].sequential.latency_total_s == r[1].sequential.latency_total_s);
    for (int32_t i = 0; i < r[0].dos.n_stages && i < r[1].dos.n_stages; i++)
        CHECK(r[0].dos.latency_s[i] == r[1].dos.latency_s[i]);
    CHECK_EQ_I64(r[0].stats.stage_evals, r[1].stats.stage_evals);
    CHECK_EQ_I64(r[0].stats.stage_timed, 0);
    CHECK(r[1].stats.stage_timed > 0 && r[1].stats.stage_timed < r[1].stats.stage_evals);
    CHECK(n_calls[1] < n_calls[0]);
    CHECK((double)n_calls[1] <= most_calls_share * (double)n_calls[0]);
    printf("%s: %lld stages priced, backend called %lld times without the memo, %lld with (search %lld)\n", name,
           (long long)r[1].stats.stage_evals, (long long)n_calls[0], (long long)n_calls[1],
           (long long)r[1].stats.stage_timed);
    lf_sched_result_destroy(&r[0]);
    lf_sched_result_destroy(&r[1]);
    lf_graph_free(g);
}

int main(void)
{
    check_model("inception_v3", 0.95);
    check_model("nasnet_a", 0.5);
    return lf_test_result();
}

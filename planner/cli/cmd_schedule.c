/* fusionplan schedule: inter-operator scheduling (DESIGN §12) of a built-in
 * network or an ONNX model: the sequential, greedy and DOS schedules with
 * their stages and latencies under the analytic roofline of the hardware's
 * <gpu> section (or measured stage times), the three as JSON, and with
 * --execute each run end to end on the GPU (search/schedule/measured.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/gpu/device.h"
#include "planner/io/svg_chart.h"
#include "planner/util/fileio.h"
#include "search/schedule/measured.h"
#include "search/schedule/schedule.h"
#include "search/subst/subst.h"

static void lf__print_schedule(const lf_graph *g, const char *name, const lf_schedule *s)
{
    int32_t merged = 0;
    for (int32_t i = 0; i < s->n_stages; i++)
        merged += s->strategy[i] == LF_SCHED_MERGE;
    printf("\n%s: %.4f ms, %d stages (%d merged)\n", name, s->latency_total_s * 1e3, (int)s->n_stages,
           (int)merged);
    for (int32_t i = 0; i < s->n_stages; i++) {
        printf("  %4d %-10s %9.4f ms ", (int)i + 1, lf_sched_strategy_name(s->strategy[i]), s->latency_s[i] * 1e3);
        for (int32_t j = s->stage_start[i]; j < s->stage_start[i + 1]; j++) {
            printf("%s", j > s->stage_start[i] ? (s->strategy[i] == LF_SCHED_MERGE ? " + " : " | ") : " ");
            for (int32_t u = s->group_start[j]; u < s->group_start[j + 1]; u++)
                printf("%s%s", u > s->group_start[j] ? " > " : "", g->ops[s->ops[s->op_start[u]]].name);
        }
        printf("\n");
    }
}

static lf_status lf__write(const char *path, const lf_graph *g, const char *model, const lf_sched_options *o,
                           const lf_sched_result *r)
{
    lf_atomic_file af;
    lf_status st = lf_atomic_open(&af, path);
    if (st)
        return st;
    st = lf_sched_write_json(g, model, o, r, af.f);
    if (st) {
        lf_atomic_abort(&af);
        return st;
    }
    return lf_atomic_commit(&af);
}

/* Latency run so far (ms) after each stage, per schedule. */
static lf_status lf__chart(const char *path, const char *model, const lf_sched_result *r)
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

int lf_cmd_schedule(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"latency", "MODEL", "stage latency: analytic (default: roofline of the --hw <gpu> section) or measured "
                             "(needs a GPU build and device)", NULL},
        {"r", "R", "(or -r) DOS: most ops per concurrent group (default 3)", NULL},
        {"s", "S", "(or -s) DOS: most groups per concurrent stage (default 8)", NULL},
        {"part-size", "N", "DOS: blocks larger than N ops are cut into parts of at most N, at level boundaries "
                           "(default 16, at most 64)", NULL},
        {"max-states", "N", "DOS: downsets per part before the part is halved (default 1048576)", NULL},
        {"max-endings", "N", "DOS: last stages tried per part before the part is halved (default 4194304)", NULL},
        {"streams", "N", "greedy: most ops per wavefront stage (default 10)", NULL},
        {"no-merge", NULL, "concurrent stages only in DOS (IOS's dp_parallel)", NULL},
        {"merge-only", NULL, "merged stages and single ops only in DOS (IOS's dp_merge)", NULL},
        {"evaluate", "FILE", "also price the DOS schedule of FILE (an earlier -o output, e.g. at another "
                             "--batch) on this graph", NULL},
        {"execute", NULL, "also run the three schedules end to end on the GPU and print their measured latency "
                          "beside the predicted one (implied by --latency measured)", NULL},
        {"svg", "FILE", "chart of the latency run so far against stages run, one line per schedule", NULL},
        {"output", "FILE", "(or -o) write the three schedules as JSON", NULL},
    };
    lf_cli_command cmd = {"schedule", "Schedule a network's ops into concurrent and merged stages (DOS).",
                          "schedule [--model NAME | --onnx FILE] [--hw gpu.xml] [--latency analytic|measured] "
                          "[--batch N] [-r R] [-s S] [--execute] [-o schedule.json]",
                          "Splits the graph into stages that run on CUDA streams side by side (groups of at most\n"
                          "R chained ops, at most S groups) or merged into one convolution (convs sharing an\n"
                          "input, stride and activation), with DOS's dynamic program over downsets, block by block\n"
                          "(blocks end at ops every path passes through). Prints the sequential, greedy (wavefront,\n"
                          "at most --streams ops a stage) and DOS schedules with every stage's latency and the search\n"
                          "time. Latencies are analytic by default: the roofline of the --hw <gpu> section (peak\n"
                          "FLOP/s, bandwidth, launch overhead; a V100 without one); --latency measured times each\n"
                          "stage's groups on CUDA streams (a GPU build and device; concurrent stages only).\n"
                          "--execute (implied by --latency measured) runs each whole schedule on the GPU, stages\n"
                          "ordered by events, and prints measured against predicted latency (measured_ms in -o).\n"
                          "Without --model or --onnx: inception_v3 (not the other commands' resnet50).",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    lf_sched_options o;
    lf_sched_options_default(&o);
    int64_t r = 0, s = 0, part = 0, states = 0, endings = 0, streams = 0;
    if ((rc = lf_cli_int(&cmd, "r", o.max_group_ops, 1, 64, &r)) ||
        (rc = lf_cli_int(&cmd, "s", o.max_groups, 1, 64, &s)) ||
        (rc = lf_cli_int(&cmd, "part-size", o.max_part_ops, 1, 64, &part)) ||
        (rc = lf_cli_int(&cmd, "max-states", o.max_states, 1, (int64_t)1 << 26, &states)) ||
        (rc = lf_cli_int(&cmd, "max-endings", o.max_endings, 1, (int64_t)1 << 40, &endings)) ||
        (rc = lf_cli_int(&cmd, "streams", o.greedy_streams, 1, 64, &streams)))
        return rc;
    o.max_group_ops = (int32_t)r, o.max_groups = (int32_t)s, o.max_part_ops = (int32_t)part;
    o.max_states = states, o.max_endings = endings, o.greedy_streams = (int32_t)streams;
    if (lf_cli_get(&cmd, "no-merge") && lf_cli_get(&cmd, "merge-only"))
        return lf_cli_usage_error(&cmd, "give either --no-merge or --merge-only, not both");
    o.merge = !lf_cli_get(&cmd, "no-merge");
    o.concurrent = !lf_cli_get(&cmd, "merge-only");
    const char *latency = lf_cli_get(&cmd, "latency");
    int lat = latency ? lf_sched_latency_from_name(latency) : LF_SCHED_ANALYTIC;
    if (lat < 0)
        return lf_cli_usage_error(&cmd, "unknown --latency '%s' (analytic or measured)", latency);
    o.latency = (lf_sched_latency)lat;
    const char *output = lf_cli_get(&cmd, "output"), *svg = lf_cli_get(&cmd, "svg");
    const char *outputs[2] = {output, svg};
    if ((rc = lf_cli_check_outputs(outputs, 2)))
        return rc;
    lf_graph *g = NULL;
    lf_hw hw;
    if ((rc = lf_cli_subst_graph(&cmd, "inception_v3", &g, &hw)))
        return rc;
    o.hw = &hw;
    /* Measured stage latencies: the GPU profiler runs each stage's groups on
     * CUDA streams (planner/gpu); concurrent stages only. */
    lf_gpu_profiler *prof = NULL;
    int execute = lf_cli_get(&cmd, "execute") || o.latency == LF_SCHED_MEASURED;
    if (execute) {
        int32_t device = hw.has_gpu && hw.gpu.device_index >= 0 ? hw.gpu.device_index : 0;
        lf_status pst = lf_gpu_profiler_create(&prof, device, NULL);
        if (pst != LF_OK) { /* no GPU here: a failure to run, as in profile */
            fprintf(stderr, "fusionplan: schedule: %s: %s; %s\n",
                    o.latency == LF_SCHED_MEASURED ? "--latency measured" : "--execute", lf_last_error(),
                    o.latency == LF_SCHED_MEASURED ? "use --latency analytic" : "run without --execute");
            lf_graph_free(g);
            return LF_EXIT_FAIL;
        }
        if (o.latency == LF_SCHED_MEASURED)
            lf_sched_measured_options(&o, prof);
    }
    const char *model = lf_cli_get(&cmd, "model") ? lf_cli_get(&cmd, "model") : g->name;
    lf_sched_result res;
    lf_status st = lf_sched_run(g, &o, &res);
    if (!st && execute) /* the three schedules end to end: measured_ms in the JSON */
        st = lf_sched_execute_all(prof, g, &res);
    if (st) {
        lf_gpu_profiler_free(prof);
        lf_graph_free(g);
        return lf_cli_fail(st);
    }
    /* an earlier schedule priced here, before anything is printed */
    const char *eval = lf_cli_get(&cmd, "evaluate");
    lf_schedule ev;
    memset(&ev, 0, sizeof ev);
    if (eval && (st = lf_sched_read_json(eval, "dos", g, &o, &ev))) {
        lf_sched_result_destroy(&res);
        lf_gpu_profiler_free(prof);
        lf_graph_free(g);
        return lf_cli_fail(st);
    }
    /* the JSON and the chart together or not at all, before anything is printed */
    lf_output_batch_begin();
    if (output)
        st = lf__write(output, g, model, &o, &res);
    if (!st && svg)
        st = lf__chart(svg, model, &res);
    st = st ? (lf_output_batch_abort(), st) : lf_output_batch_commit();
    if (st) {
        lf_schedule_destroy(&ev);
        lf_sched_result_destroy(&res);
        lf_gpu_profiler_free(prof);
        lf_graph_free(g);
        return lf_cli_fail(st);
    }
    lf_subst_coster c;
    lf_subst_coster_init(&c, LF_OBJ_TIME, &hw, NULL);
    printf("model %s: %d ops, %d scheduling units (ops with their activation), %d blocks; latency %s\n", model,
           (int)lf_graph_compute_ops(g), (int)res.stats.units, (int)res.stats.blocks, lf_sched_latency_name(o.latency));
    printf("roofline: %.4g TFLOP/s, %.4g GB/s, %.3g us per kernel (%s)\n", c.peak_flops / 1e12, c.bandwidth / 1e9,
           c.launch_s * 1e6, hw.has_gpu ? hw.name : "defaults: no <gpu> section");
    printf("DOS: r %d, s %d, %s; %d parts (largest %d units), %lld states, %lld endings, %lld stages priced; "
           "search %.3f s\n",
           (int)o.max_group_ops, (int)o.max_groups,
           o.merge && o.concurrent ? "concurrent and merged stages" : o.merge ? "merged stages only" : "concurrent stages only",
           (int)res.stats.parts, (int)res.stats.largest_part, (long long)res.stats.states,
           (long long)res.stats.endings, (long long)res.stats.stage_evals, res.stats.search_s);
    lf__print_schedule(g, "sequential", &res.sequential);
    lf__print_schedule(g, "greedy", &res.greedy);
    lf__print_schedule(g, "dos", &res.dos);
    double seq = res.sequential.latency_total_s, gr = res.greedy.latency_total_s, dos = res.dos.latency_total_s;
    printf("\nsummary: sequential %.4f ms, greedy %.4f ms (%.3fx), dos %.4f ms (%.3fx)\n", seq * 1e3, gr * 1e3,
           gr > 0 ? seq / gr : 1.0, dos * 1e3, dos > 0 ? seq / dos : 1.0);
    if (execute) {
        char dev[400];
        lf_gpu_device_key_format(lf_gpu_profiler_device(prof), dev, sizeof dev);
        printf("\n");
        lf_sched_write_measured(stdout, &res, dev);
    }
    if (eval) {
        printf("evaluated: the dos schedule of %s here: %.4f ms, %d stages (this graph's own dos: %.4f ms)\n", eval,
               ev.latency_total_s * 1e3, (int)ev.n_stages, res.dos.latency_total_s * 1e3);
        lf_schedule_destroy(&ev);
    }
    if (output)
        printf("wrote %s\n", output);
    if (svg)
        printf("wrote %s\n", svg);
    lf_sched_result_destroy(&res);
    lf_gpu_profiler_free(prof);
    lf_graph_free(g);
    return LF_EXIT_OK;
}

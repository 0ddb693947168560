/* fusionplan schedule: inter-operator scheduling (DESIGN §12) of a built-in
 * network or an ONNX model: the sequential, greedy and DOS schedules with
 * their stages and latencies under the analytic roofline of the hardware's
 * <gpu> section (or measured stage times), the three as JSON, and with
 * --execute each run end to end on the GPU (search/schedule/measured.h). */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/gpu/cache.h"
#include "planner/gpu/opcost.h"
#include "planner/util/fileio.h"
#include "search/schedule/measured.h"
#include "search/schedule/report.h"
#include "search/schedule/schedule.h"

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
    int measured = o.latency == LF_SCHED_MEASURED, execute = measured || lf_cli_get(&cmd, "execute");
    if (execute && lf_sched_measured_begin(&o, &prof)) { /* no GPU here: a failure to run, as in profile */
        fprintf(stderr, "fusionplan: schedule: %s: %s; %s\n", measured ? "--latency measured" : "--execute",
                lf_last_error(), measured ? "use --latency analytic" : "run without --execute");
        lf_graph_free(g);
        return LF_EXIT_FAIL;
    }
    const char *model = lf_cli_get(&cmd, "model") ? lf_cli_get(&cmd, "model") : g->name;
    lf_sched_result res;
    lf_schedule ev;
    memset(&ev, 0, sizeof ev);
    lf_status st = lf_sched_run(g, &o, &res);
    if (!st && execute) /* the three schedules end to end: measured_ms in the JSON */
        st = lf_sched_execute_all(prof, g, &res);
    /* an earlier schedule priced here, before anything is printed */
    const char *eval = lf_cli_get(&cmd, "evaluate");
    if (!st && eval)
        st = lf_sched_read_json(eval, "dos", g, &o, &ev);
    /* the JSON and the chart together or not at all, before anything is printed */
    if (!st) {
        lf_output_batch_begin();
        if (output)
            st = lf_sched_save_json(output, g, model, &o, &res);
        if (!st && svg)
            st = lf_sched_chart_save(svg, model, &res);
        st = st ? (lf_output_batch_abort(), st) : lf_output_batch_commit();
    }
    if (!st) {
        lf_sched_report_write(stdout, g, model, &o, &res);
        if (execute) {
            char dev[400];
            lf_gpu_device_key_format(lf_gpu_profiler_device(prof), dev, sizeof dev);
            printf("\n");
            lf_sched_write_measured(stdout, &res, dev);
        }
        if (eval)
            lf_sched_evaluated_write(stdout, eval, &ev, &res);
        for (int i = 0; i < 2; i++)
            if (outputs[i])
                printf("wrote %s\n", outputs[i]);
    }
    lf_schedule_destroy(&ev);
    lf_sched_result_destroy(&res);
    lf_gpu_profiler_free(prof);
    lf_graph_free(g);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

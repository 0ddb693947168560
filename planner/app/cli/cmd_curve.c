/* fusionplan curve: the optimal DRAM over all ops at every buffer size in a
 * range, as a staircase computed in one run (planner/exact/curve.h), with a
 * table, CSV, JSON (each step's plan as group_of) and an SVG step chart, all
 * from search/sweep/curve_report.h. */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/app/cli/exact_opts.h"
#include "planner/app/stair.h"
#include "planner/util/fileio.h"
#include "search/sweep/curve_report.h"
#include "search/sweep/stair_report.h"

int lf_cmd_curve(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"min", "SIZE", "smallest buffer of the range (default 64KB)", NULL},
        {"max", "SIZE", "largest buffer of the range (default 4MB)", NULL},
        {"csv", "FILE", "write the steps as CSV", NULL},
        {"json", "FILE", "write the steps with each step's plan (group_of) as JSON", NULL},
        {"svg", "FILE", "draw the staircase as an SVG step chart", NULL},
        {"html", "FILE", "one self-contained page: the staircase with a slider showing each step's plan",
         NULL},
        {"check", NULL, "check every step against the single-buffer exact planner (at the step's "
                        "buffer, one byte below it and at --max); nothing is written on a difference",
         NULL},
        {"best-effort", NULL, "where the exact staircase does not end on its share of --time-limit "
                              "(a quarter), certified bounds instead: a grid of buffers (--points) "
                              "from --min to --max, each solved by the single-buffer exact planner "
                              "with best effort on an equal share of the time left; each row gives "
                              "[lower, upper] over all ops and a plan at the upper, monotone across "
                              "buffers (docs/search.md \"Best-effort staircase\")",
         NULL},
        {"points", "N", "--best-effort: grid buffers, geometric from --min to --max (default 16)", NULL},
        LF_CLI_OBJECTIVE_OPT,
        LF_CLI_EXACT_OPTS,
        LF_CLI_CURVE_THREADS_OPT,
    };
    lf_cli_command cmd = {"curve", "The optimal DRAM at every buffer size, in one run.",
                          "curve [--model NAME] [--scheme lbdf|brr] [--min SIZE] [--max SIZE] "
                          "[--csv FILE] [--json FILE] [--svg FILE] [--html FILE] [--threads N] [--check] "
                          "[--best-effort [--points N]]",
                          "Prints every step of the optimal DRAM over all ops as a function of the "
                          "buffer size:\nthe smallest buffer at which each lower DRAM becomes "
                          "reachable, with a plan of it\n(optimal there; among the plans tied with it, not always the "
                          "single-buffer planner's:\ndocs/search.md \"Ties on a front\"). Without options: "
                          "resnet50, LBDF, 64 KB to 4 MB.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    if (lf_cli_get(&cmd, "buffer"))
        return lf_cli_usage_error(&cmd, "curve covers a range of buffers: use --min and --max");
    int64_t range[2] = {64 * 1024, 4 * 1024 * 1024};
    const char *names[2] = {"min", "max"};
    for (int i = 0; i < 2; i++) {
        const char *v = lf_cli_get(&cmd, names[i]);
        if (v && lf_hw_parse_size(v, &range[i]) != LF_OK)
            return lf_cli_usage_error(&cmd, "--%s: %s", names[i], lf_last_error());
    }
    if (range[1] <= range[0])
        return lf_cli_usage_error(&cmd, "--max must be larger than --min");
    lf_exact_config ec;
    const char *objective;
    if ((rc = lf_cli_exact_config(&cmd, &ec)) || (rc = lf_cli_curve_threads(&cmd, &ec)) ||
        (rc = lf_cli_choice(&cmd, "objective", lf_cli_plan_objectives, &objective)))
        return rc;
    for (int i = 0; lf_cli_plan_objectives[i]; i++)
        if (lf_cli_plan_objectives[i] == objective)
            ec.objective = i; /* the list's order is lf_plan_objective's */
    int best_effort = lf_cli_get(&cmd, "best-effort") != NULL;
    int64_t points = 0;
    if ((rc = lf_cli_int(&cmd, "points", LF_STAIR_DEFAULT_POINTS, 2, LF_STAIR_MAX_POINTS, &points)))
        return rc;
    if (lf_cli_get(&cmd, "points") && !best_effort)
        return lf_cli_usage_error(&cmd, "--points applies to --best-effort");
    if (best_effort && (lf_cli_get(&cmd, "html") || lf_cli_get(&cmd, "check")))
        return lf_cli_usage_error(&cmd, "--best-effort writes --csv, --json and --svg (not --html, --check)");
    if (best_effort && ec.objective != 0)
        return lf_cli_usage_error(&cmd, "--best-effort: the DRAM objective only (under energy and latency "
                                        "the optimum can rise with the buffer)");
    /* Without a time limit the best effort needs a limit that stops it. */
    if (best_effort && ec.time_limit_s <= 0 && !lf_cli_get(&cmd, "max-states") &&
        !lf_cli_get(&cmd, "max-candidates"))
        return lf_cli_usage_error(&cmd, "--best-effort needs a limit: a --time-limit above 0, or "
                                        "--max-states / --max-candidates");
    /* --time-limit bounds the whole command: the staircase's DPs and
     * --check's optima stop at one deadline. */
    if (ec.time_limit_s > 0)
        ec.deadline = lf_now_seconds() + ec.time_limit_s;
    /* Every output is opened before the work and committed all or none. */
    const char *paths[4] = {lf_cli_get(&cmd, "csv"), lf_cli_get(&cmd, "json"), lf_cli_get(&cmd, "svg"),
                            lf_cli_get(&cmd, "html")};
    lf_cli_session s;
    if ((rc = lf_cli_session_open(&s, &cmd)))
        return rc;
    lf_atomic_file af[4] = {{0}, {0}, {0}, {0}};
    lf_status st = LF_OK;
    for (int i = 0; i < 4 && st == LF_OK; i++)
        if (paths[i])
            st = lf_atomic_open(&af[i], paths[i]);
    if (best_effort) {
        lf_stair sr;
        memset(&sr, 0, sizeof sr);
        if (st == LF_OK)
            st = lf_stair_compute(s.graph, &s.hw, lf_cost_scheme_name(s.cm), range[0], range[1],
                                  (int32_t)points, &ec, &sr);
        const char *model = s.model_name, *scheme = lf_cost_scheme_name(s.cm);
        if (st == LF_OK && paths[0])
            lf_stair_report_csv(af[0].f, &sr, model, scheme);
        if (st == LF_OK && paths[1])
            lf_stair_report_json(af[1].f, &sr, model, scheme);
        if (st == LF_OK && paths[2])
            st = lf_stair_report_svg(af[2].f, &sr, model, scheme);
        for (int i = 0; i < 3 && st == LF_OK; i++)
            if (paths[i])
                st = lf_atomic_commit(&af[i]);
        if (st != LF_OK)
            for (int i = 0; i < 3; i++)
                lf_atomic_abort(&af[i]);
        else
            lf_stair_report_print(stdout, &sr, model, scheme);
        lf_stair_destroy(&sr);
        lf_cli_session_close(&s);
        return st == LF_OK ? LF_EXIT_OK : lf_cli_fail(st);
    }
    lf_curve_report r = {0};
    if (st == LF_OK)
        st = lf_curve_report_compute(&r, s.graph, s.model_name, &s.hw, lf_cost_scheme_name(s.cm),
                                     range[0], range[1], &ec);
    int32_t checked = -1;
    if (st == LF_OK && lf_cli_get(&cmd, "check"))
        st = lf_curve_check(s.graph, &s.hw, lf_cost_scheme_name(s.cm), &r.curve, &ec, &checked);
    if (st == LF_OK && paths[0])
        lf_curve_report_csv(af[0].f, &r);
    if (st == LF_OK && paths[1])
        lf_curve_report_json(af[1].f, &r);
    if (st == LF_OK && paths[2])
        st = lf_curve_report_svg(af[2].f, &r);
    if (st == LF_OK && paths[3])
        st = lf_curve_report_html(af[3].f, &r, s.graph, &s.hw);
    for (int i = 0; i < 4 && st == LF_OK; i++)
        if (paths[i])
            st = lf_atomic_commit(&af[i]);
    if (st != LF_OK)
        for (int i = 0; i < 4; i++)
            lf_atomic_abort(&af[i]);
    else
        lf_curve_report_print(stdout, &r, range[0], range[1]);
    if (st == LF_OK && checked >= 0)
        printf("check: the single-buffer exact planner agrees at all %d buffers (every step, one "
               "byte below each, and --max)\n",
               (int)checked);
    lf_curve_report_destroy(&r);
    lf_cli_session_close(&s);
    return st == LF_OK ? LF_EXIT_OK : lf_cli_fail(st);
}

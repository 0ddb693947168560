/* fusionplan sweep-report: results files of `fusionplan sweep` (read with
 * jansson by the library) turned into compare's tables and budget curves.
 *
 * Cells group into one table per (network, scheme, buffer, budget, k,
 * population), in cell order; rows are the (search, proposer) pairs in the
 * order their cells come, columns the seeds, ascending. A cell found twice
 * (files from several launchers concatenated, a --cell job rerun) counts
 * once: its first line without an error. A table with a missing or failed
 * cell is left out with one line on stderr naming the cell, and the exit
 * status is 1 (the other tables are still written). The tables are built by
 * search/sweep/report.h. */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/app/cli/compare.h"
#include "search/sweep/report.h"

static void lf__notice(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "fusionplan sweep-report: %s\n", message);
}

int lf_cmd_sweep_report(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"format", "FMT", "md (default), csv or json", NULL},
        {"output", "FILE", "(or -o) write the tables to FILE instead of standard output", NULL},
        {"csv", "FILE", "also write the tables as CSV to FILE", NULL},
        {"json", "FILE", "also write the tables as JSON (with per-seed figures) to FILE", NULL},
        {"curves", "PREFIX", "write budget curves to PREFIX.csv and PREFIX.svg (one SVG per table: "
                             "PREFIX-<model>-<scheme>-<buffer>.svg when there are several)", NULL},
        {"html", "FILE", "also write the tables and budget curves as one self-contained HTML page", NULL},
    };
    lf_cli_command cmd = {
        "sweep-report", "Turn sweep results into compare's tables and budget-curve charts.",
        "sweep-report RESULTS.jsonl [MORE.jsonl ...] [--format md|csv|json] [-o FILE] [--curves PREFIX]",
        "Reads one or more results files of `fusionplan sweep` (concatenated in any order; a cell\n"
        "found twice counts once) and prints compare's table for every network, scheme and buffer:\n"
        "DRAM mean and sd over the seeds, best, worst, change against the random split, gap to the\n"
        "exact optimum, MBU, groups, rectify rate, split gap and wall time (cells run with a fresh\n"
        "cost memo each). A table with a missing or failed cell is left out (exit status 1).",
        opts, (int)(sizeof opts / sizeof opts[0])};
    int n_files = 0;
    while (n_files < argc && argv[n_files][0] != '-')
        n_files++;
    int rc = lf_cli_parse(&cmd, argc - n_files, argv + n_files);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    if (n_files == 0)
        return lf_cli_usage_error(&cmd, "missing RESULTS.jsonl (the results files come first)");
    lf_cmp_out o;
    if ((rc = lf_cmp_out_parse(&cmd, &o, 0)))
        return rc;
    lf_sweep_report r;
    lf_status st = lf_sweep_report_build(&r, (const char *const *)argv, n_files, lf__notice, NULL);
    if (st == LF_OK)
        st = lf_cmp_emit(&o, r.tables, r.n_tables);
    rc = st != LF_OK ? lf_cli_fail(st) : r.n_incomplete ? LF_EXIT_FAIL : LF_EXIT_OK;
    lf_sweep_report_destroy(&r);
    return rc;
}

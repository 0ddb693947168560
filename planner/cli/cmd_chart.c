/* fusionplan chart TABLE: a line chart (SVG) from a CSV or Markdown table,
 * for the reproduce scripts' figures and for users' own result tables. */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/io/table_chart.h"
#include "planner/io/text_table.h"
#include "planner/util/fileio.h"

#define LF__MAX_Y 16

int lf_cmd_chart(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"x", "COLUMN", "x values (default: 1, 2, ... along each line)", NULL},
        {"y", "COLUMNS", "y values, comma-separated: one line per column (required)", NULL},
        {"by", "COLUMN", "one line per distinct value of this column (e.g. network)", NULL},
        {"title", "TEXT", "chart title", NULL},
        {"x-label", "TEXT", "x axis title (default: the x column)", NULL},
        {"y-label", "TEXT", "y axis title (default: the y column when there is one)", NULL},
        {"log2-x", NULL, "x axis in log2 scale", NULL},
        {"log2-y", NULL, "y axis in log2 scale", NULL},
        {"output", "FILE", "(or -o) SVG file to write (required)", NULL},
    };
    lf_cli_command cmd = {"chart", "Draw a line chart from a table.",
                          "chart TABLE --y COLUMNS [--x COLUMN] [--by COLUMN] -o chart.svg",
                          "Reads TABLE, CSV or the first Markdown pipe table in the file (as the "
                          "reproduce scripts\nand --format md write them), and draws one line per "
                          "y column, or per value of --by.\nNumbers may carry thousands separators "
                          "and a trailing % or x; empty cells, '-' and 'n/a'\nare gaps in the line.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    const char *file;
    int rc = lf_cli_parse_file(&cmd, argc, argv, &file);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    if (!file)
        return lf_cli_usage_error(&cmd, "no table file (fusionplan chart TABLE --y COLUMNS -o FILE)");
    const char *output = lf_cli_get(&cmd, "output");
    if (!output)
        return lf_cli_usage_error(&cmd, "-o FILE is required");
    char ybuf[1024], *ys[LF__MAX_Y];
    int n_y = 0;
    if (!lf_cli_get(&cmd, "y"))
        return lf_cli_usage_error(&cmd, "--y COLUMNS is required");
    if ((rc = lf_cli_list(&cmd, "y", NULL, -1, ybuf, sizeof ybuf, ys, LF__MAX_Y, &n_y)))
        return rc;
    if (n_y > LF__MAX_Y)
        return lf_cli_usage_error(&cmd, "--y: %d columns (at most %d)", n_y, LF__MAX_Y);
    if ((rc = lf_cli_check_outputs(&output, 1)))
        return rc;
    lf_text_table t;
    lf_status st = lf_text_table_read(&t, file);
    if (st != LF_OK)
        return lf_cli_fail(st);
    lf_table_chart_spec spec = {lf_cli_get(&cmd, "x"), (const char *const *)ys, n_y,
                                lf_cli_get(&cmd, "by")};
    lf_table_chart tc;
    if ((st = lf_table_chart_build(&t, &spec, &tc)) != LF_OK) {
        lf_text_table_destroy(&t);
        return lf_cli_fail(st);
    }
    const char *x_label = lf_cli_get(&cmd, "x-label"), *y_label = lf_cli_get(&cmd, "y-label");
    lf_chart ch = {lf_cli_get(&cmd, "title"),
                   x_label ? x_label : spec.x ? spec.x : "row",
                   y_label ? y_label : n_y == 1 ? ys[0] : NULL,
                   lf_cli_get(&cmd, "log2-x") != NULL,
                   0, 0, tc.series, tc.n_series,
                   lf_cli_get(&cmd, "log2-y") != NULL};
    st = lf_chart_save_svg(&ch, output);
    if (st == LF_OK)
        printf("%s: %d line%s from %d rows of %s\n", output, (int)tc.n_series,
               tc.n_series == 1 ? "" : "s", (int)t.n_rows, file);
    lf_table_chart_destroy(&tc);
    lf_text_table_destroy(&t);
    return st == LF_OK ? LF_EXIT_OK : lf_cli_fail(st);
}

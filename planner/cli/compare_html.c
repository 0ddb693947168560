/* compare --html and sweep-report --html: the tables and budget curves on
 * one self-contained page (DESIGN §20). The page embeds the same CSV that
 * --csv and --curves write (one data source) and its script draws a table
 * per network, scheme and buffer and a budget-curve chart next to it. */
#include <stdlib.h>

#include "planner/cli/compare.h"
#include "planner/io/json.h"
#include "planner/io/plan_export.h"

/* One CSV report into memory, then as a JSON string member. */
static lf_status lf__csv_member(FILE *f, const char *name, const lf_cmp_table *tables, int32_t n, int curves)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return lf_set_error(LF_ENOMEM, "out of memory writing the HTML report");
    if (curves)
        lf_cmp_curve_csv_header(mem);
    else
        lf_cmp_print_csv_header(mem);
    for (int32_t i = 0; i < n; i++)
        if (curves)
            lf_cmp_curve_csv(mem, &tables[i]);
        else
            lf_cmp_print_csv(mem, &tables[i]);
    lf_status st = fclose(mem) == 0 ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory writing the HTML report");
    if (st == LF_OK) {
        fprintf(f, ", \"%s\": ", name);
        lf_json_string(f, buf);
    }
    free(buf);
    return st;
}

lf_status lf_cmp_write_html(FILE *f, const char *title, const lf_cmp_table *tables, int32_t n)
{
    char *json = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&json, &len);
    if (!mem)
        return lf_set_error(LF_ENOMEM, "out of memory writing the HTML report");
    fputs("{\"kind\": \"report\", \"title\": ", mem);
    lf_json_string(mem, title);
    lf_status st = lf__csv_member(mem, "tables_csv", tables, n, 0);
    if (st == LF_OK)
        st = lf__csv_member(mem, "curves_csv", tables, n, 1);
    fputs("}", mem);
    if (fclose(mem) != 0 && st == LF_OK)
        st = lf_set_error(LF_ENOMEM, "out of memory writing the HTML report");
    if (st == LF_OK)
        st = lf_html_write_report(f, title, json);
    free(json);
    return st;
}

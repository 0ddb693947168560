/* Unit tests for planner/io/text_table and table_chart: CSV quoting and
 * comments, Markdown tables inside other text, numbers as tables print them,
 * gaps, grouping rows into lines, and one-line errors naming file and line. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planner/io/table_chart.h"
#include "planner/io/text_table.h"
#include "planner/util/format.h"
#include "tests/testlib.h"

static char dir[] = "/tmp/lf_text_table_XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    fputs(text, f);
    fclose(f);
    return path;
}

static const char *cell(const lf_text_table *t, int r, int c)
{
    return t->cells[r * t->n_cols + c];
}

static void test_csv(void)
{
    lf_text_table t;
    const char *p = write_file("a.csv", "# a comment\n"
                                        "name, value ,note\r\n"
                                        "\n"
                                        "\"a, b\",1.5,\"say \"\"hi\"\"\"\n"
                                        "c,-2e3,\"two\nlines\"\n"
                                        "d,,x\n");
    CHECK_OK(lf_text_table_read(&t, p));
    CHECK_EQ_I64(t.n_cols, 3);
    CHECK_EQ_I64(t.n_rows, 3);
    if (t.n_cols != 3 || t.n_rows != 3)
        return;
    CHECK_STR(t.header[1], "value");
    CHECK_STR(cell(&t, 0, 0), "a, b");
    CHECK_STR(cell(&t, 0, 2), "say \"hi\"");
    CHECK_STR(cell(&t, 1, 2), "two\nlines");
    CHECK_EQ_I64(t.line[0], 4);
    CHECK_EQ_I64(t.line[1], 5);
    CHECK_EQ_I64(t.line[2], 7); /* the quoted newline counts */
    CHECK_EQ_I64(lf_text_table_column(&t, "value"), 1);
    CHECK_EQ_I64(lf_text_table_column(&t, "Value"), -1);
    double v = 0;
    CHECK_OK(lf_text_table_number(&t, 0, 1, &v));
    CHECK_NEAR(v, 1.5, 0);
    CHECK_OK(lf_text_table_number(&t, 1, 1, &v));
    CHECK_NEAR(v, -2000, 0);
    CHECK_OK(lf_text_table_number(&t, 2, 1, &v));
    CHECK(isnan(v));
    CHECK_EQ_I64(lf_text_table_number(&t, 2, 2, &v), LF_EPARSE);
    CHECK(strstr(lf_last_error(), "a.csv:7: column 'note': 'x' is not a number") != NULL);
    lf_text_table_destroy(&t);
}

static void test_markdown(void)
{
    lf_text_table t;
    const char *p = write_file("a.md", "# Results\n\nSome text | with a bar.\n| not a table\n\n"
                                       "| net | DRAM (B) | gain | a\\|b |\n"
                                       "|---|---:|:---:|---|\n"
                                       "| resnet18 | 14,622,032 | 2.5% | 3x |\n"
                                       "| vgg | - | +1 | |\n"
                                       "\n| other | table |\n|---|---|\n| 1 | 2 |\n");
    CHECK_OK(lf_text_table_read(&t, p));
    CHECK_EQ_I64(t.n_cols, 4);
    CHECK_EQ_I64(t.n_rows, 2);
    if (t.n_cols != 4 || t.n_rows != 2)
        return;
    CHECK_STR(t.header[3], "a|b");
    CHECK_STR(cell(&t, 1, 3), "");
    CHECK_EQ_I64(t.line[0], 8);
    double v;
    CHECK_OK(lf_text_table_number(&t, 0, 1, &v));
    CHECK_NEAR(v, 14622032, 0);
    CHECK_OK(lf_text_table_number(&t, 0, 2, &v));
    CHECK_NEAR(v, 2.5, 0);
    CHECK_OK(lf_text_table_number(&t, 0, 3, &v));
    CHECK_NEAR(v, 3, 0);
    CHECK_OK(lf_text_table_number(&t, 1, 1, &v));
    CHECK(isnan(v));
    CHECK_OK(lf_text_table_number(&t, 1, 2, &v));
    CHECK_NEAR(v, 1, 0);
    CHECK_EQ_I64(lf_text_table_number(&t, 0, 0, &v), LF_EPARSE);
    lf_text_table_destroy(&t);
}

static void test_errors(void)
{
    lf_text_table t;
    struct {
        const char *text, *message;
    } cases[] = {
        {"a,b\n1,\"x\n", "e.csv:2: unterminated quoted cell"},
        {"a,b\n1,\"x\"y\n", "e.csv:2: text after a closing quote"},
        {"a,b\n1,x\"y\n", "e.csv:2: a quote inside an unquoted cell"},
        {"a,b\n1\n", "e.csv:2: 1 cells, the header has 2"},
        {"a,,c\n", "e.csv:1: column 2 has no name"},
        {"a,b,a\n", "e.csv:1: column 'a' appears twice"},
        {"# only a comment\n\n", "e.csv: no table (no header row)"},
        {"| a | b |\n|---|---|\n| 1 |\n", "e.csv:3: 1 cells, the header has 2"},
        {"|\n|---:\n.,-1\n", "e.csv:1: the header row has no cells"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p = write_file("e.csv", cases[i].text);
        CHECK_EQ_I64(lf_text_table_read(&t, p), LF_EPARSE);
        const char *m = lf_last_error();
        CHECK(strstr(m, cases[i].message) != NULL);
        CHECK(strchr(m, '\n') == NULL);
        CHECK(t.n_rows == 0 && t.cells == NULL);
    }
    char missing[300];
    snprintf(missing, sizeof missing, "%s/missing.csv", dir);
    CHECK(lf_text_table_read(&t, missing) != LF_OK);
    CHECK(strstr(lf_last_error(), "missing.csv") != NULL);
}

static void test_chart(void)
{
    lf_text_table t;
    const char *p = write_file("c.csv", "net,k,cost,time\n"
                                        "resnet,5,10,1\n"
                                        "sru,5,3,2\n"
                                        "resnet,10,8,-\n"
                                        "sru,10,2,4\n"
                                        "resnet,15,7,5\n");
    CHECK_OK(lf_text_table_read(&t, p));
    const char *ys[] = {"cost", "time"};
    lf_table_chart c;
    lf_table_chart_spec spec = {"k", ys, 2, "net"};
    CHECK_OK(lf_table_chart_build(&t, &spec, &c));
    CHECK_EQ_I64(c.n_series, 4);
    if (c.n_series == 4) {
        CHECK_STR(c.series[0].label, "resnet: cost");
        CHECK_STR(c.series[1].label, "resnet: time");
        CHECK_STR(c.series[2].label, "sru: cost");
        CHECK_EQ_I64(c.series[0].n, 3);
        CHECK_EQ_I64(c.series[3].n, 2);
        CHECK_NEAR(c.series[0].x[2], 15, 0);
        CHECK_NEAR(c.series[0].y[1], 8, 0);
        CHECK(isnan(c.series[1].y[1]));
        CHECK_NEAR(c.series[3].y[1], 4, 0);
    }
    lf_table_chart_destroy(&c);
    /* no x: positions along each line; one y: labels are the group values */
    lf_table_chart_spec by_row = {NULL, ys, 1, "net"};
    CHECK_OK(lf_table_chart_build(&t, &by_row, &c));
    CHECK_EQ_I64(c.n_series, 2);
    if (c.n_series == 2) {
        CHECK_STR(c.series[1].label, "sru");
        CHECK_NEAR(c.series[1].x[1], 2, 0);
    }
    lf_table_chart_destroy(&c);
    const char *bad[] = {"net"};
    lf_table_chart_spec text_y = {"k", bad, 1, NULL};
    CHECK_EQ_I64(lf_table_chart_build(&t, &text_y, &c), LF_EPARSE);
    CHECK(strstr(lf_last_error(), "c.csv:2: column 'net': 'resnet' is not a number") != NULL);
    CHECK(c.series == NULL);
    const char *none[] = {"nope"};
    lf_table_chart_spec unknown = {"k", none, 1, NULL};
    CHECK_EQ_I64(lf_table_chart_build(&t, &unknown, &c), LF_EINVAL);
    CHECK(strstr(lf_last_error(), "no column 'nope'") != NULL);
    lf_text_table_destroy(&t);
}

/* Thousands separators, and what the table reader makes of them. */
static void test_commas(void)
{
    char b[32];
    const struct { int64_t v; const char *s; } cases[] = {
        {0, "0"}, {999, "999"}, {1000, "1,000"}, {1478656, "1,478,656"}, {-1234567, "-1,234,567"},
        {INT64_MIN, "-9,223,372,036,854,775,808"}, {INT64_MAX, "9,223,372,036,854,775,807"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lf_format_commas(cases[i].v, b, sizeof b);
        CHECK_STR(b, cases[i].s);
    }
    lf_format_commas(1478656, b, 6); /* cut to fit, still terminated */
    CHECK_STR(b, "1,478");
    lf_text_table t;
    const char md[] = "| a |\n|---|\n| 1,478,656 |\n";
    CHECK_OK(lf_text_table_parse(&t, md, sizeof md - 1, "m"));
    double x = 0;
    CHECK_OK(lf_text_table_number(&t, 0, 0, &x));
    CHECK(x == 1478656);
    lf_text_table_destroy(&t);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    test_csv();
    test_markdown();
    test_errors();
    test_chart();
    test_commas();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return lf_test_result();
}

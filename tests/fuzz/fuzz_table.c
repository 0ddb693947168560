/* libFuzzer harness: the table reader behind `fusionplan chart`
 * (lf_text_table_parse: CSV with quotes and comments, Markdown pipe tables)
 * and the chart built from it, on arbitrary bytes. The first byte picks the
 * columns to plot.
 *
 * A refused table gives one printable line that starts with the origin and
 * leaves the table empty; an accepted one has a named column for every cell
 * and rows in file order; a chart that builds renders, or refuses in one
 * line. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "planner/io/table_chart.h"
#include "planner/io/text_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    lf_text_table t;
    if (lf_text_table_parse(&t, data + 1, size - 1, "fuzz.csv") != LF_OK) {
        lf_fuzz_check_message("fuzz.csv");
        LF_FUZZ_REQUIRE(t.n_rows == 0 && t.n_cols == 0 && !t.cells && !t.header);
        return 0;
    }
    LF_FUZZ_REQUIRE(t.n_cols >= 1 && t.n_rows >= 0);
    for (int32_t c = 0; c < t.n_cols; c++)
        LF_FUZZ_REQUIRE(t.header[c] && t.header[c][0]);
    for (int32_t r = 0; r < t.n_rows; r++) {
        LF_FUZZ_REQUIRE(t.line[r] >= 2 && (r == 0 || t.line[r] > t.line[r - 1]));
        for (int32_t c = 0; c < t.n_cols; c++)
            LF_FUZZ_REQUIRE(t.cells[(int64_t)r * t.n_cols + c] != NULL);
    }
    int pick = data[0];
    const char *y[2] = {t.header[t.n_cols - 1], t.header[(pick >> 2) % t.n_cols]};
    lf_table_chart_spec spec = {pick & 1 ? t.header[0] : NULL, y, 1 + ((pick >> 1) & 1),
                                pick & 0x40 ? t.header[(pick >> 4) % t.n_cols] : NULL};
    lf_table_chart tc;
    if (lf_table_chart_build(&t, &spec, &tc) != LF_OK) {
        lf_fuzz_check_message("fuzz.csv");
        LF_FUZZ_REQUIRE(!tc.series && tc.n_series == 0);
    } else {
        LF_FUZZ_REQUIRE(tc.n_series >= 1);
        lf_chart ch = {"t", "x", "y", 0, 0, 0, tc.series, tc.n_series, pick >> 7};
        char *svg = NULL;
        if (lf_chart_svg(&ch, &svg) == LF_OK)
            LF_FUZZ_REQUIRE(svg && strncmp(svg, "<svg ", 5) == 0);
        else
            LF_FUZZ_REQUIRE(!svg);
        free(svg);
        lf_table_chart_destroy(&tc);
    }
    lf_text_table_destroy(&t);
    return 0;
}

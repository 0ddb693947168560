/* Unit tests for planner/io/svg_chart: structure, escaping, tick values on
 * linear and log2 axes, gaps, determinism, errors and the atomic save. */
#include <dirent.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "planner/io/svg_chart.h"
#include "planner/util/fileio.h"
#include "tests/testlib.h"

static int count(const char *s, const char *sub)
{
    int n = 0;
    size_t len = strlen(sub);
    for (const char *p = s ? strstr(s, sub) : NULL; p; p = strstr(p + len, sub))
        n++;
    return n;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Start, end and balanced groups: what a reader of the file relies on. */
static void check_well_formed(const char *svg)
{
    CHECK(svg != NULL);
    if (!svg)
        return;
    CHECK(strncmp(svg, "<svg ", 5) == 0);
    CHECK(ends_with(svg, "</svg>\n"));
    CHECK_EQ_I64(count(svg, "<svg"), 1);
    CHECK_EQ_I64(count(svg, "<g ") + count(svg, "<g>"), count(svg, "</g>"));
    CHECK_EQ_I64(count(svg, "<text"), count(svg, "</text>"));
    CHECK(strstr(svg, "nan") == NULL && strstr(svg, "inf") == NULL);
}

static double svg_width(const char *svg)
{
    const char *p = strstr(svg, "width=\"");
    return p ? atof(p + 7) : -1;
}

static const double xs10[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
static const double ys10[] = {0, 3, 1, 4, 1, 5, 9, 2, 6, 5, 10}; /* min 0, max 10 */

static void test_structure_and_labels(void)
{
    double y2[11];
    for (int i = 0; i < 11; i++)
        y2[i] = 10 - ys10[i];
    lf_chart_series s[2] = {{"greedy / random", xs10, ys10, 11}, {"nsga2 / gnn", xs10, y2, 11}};
    lf_chart c = {"Budget curve: resnet18", "plans proposed", "best DRAM (MB)", 0, 0, 0, s, 2, 0};
    char *svg = NULL;
    CHECK_OK(lf_chart_svg(&c, &svg));
    check_well_formed(svg);
    CHECK(strstr(svg, ">greedy / random</text>") != NULL);
    CHECK(strstr(svg, ">nsga2 / gnn</text>") != NULL);
    CHECK(strstr(svg, ">plans proposed</text>") != NULL);
    CHECK(strstr(svg, ">best DRAM (MB)</text>") != NULL);
    CHECK(strstr(svg, ">Budget curve: resnet18</text>") != NULL);
    CHECK(strstr(svg, "rotate(-90") != NULL);          /* y title is vertical */
    CHECK(strstr(svg, "width=\"720\" height=\"440\"") != NULL); /* default size */
    CHECK_EQ_I64(count(svg, "<polyline"), 2);
    CHECK_EQ_I64(count(svg, "<circle"), 2 * 11 + 2); /* <= 30 points: markers, and in the legend */
    CHECK(strstr(svg, "stroke=\"#1f77b4\"") && strstr(svg, "stroke=\"#ff7f0e\""));

    /* Linear y over [0, 10]: 5% padding, ticks every 2, labels without decimals. */
    const char *yt[] = {"0", "2", "4", "6", "8", "10"};
    char want[64];
    for (int i = 0; i < 6; i++) {
        snprintf(want, sizeof want, "text-anchor=\"end\">%s</text>", yt[i]);
        CHECK(strstr(svg, want) != NULL);
    }
    CHECK_EQ_I64(count(svg, "text-anchor=\"end\""), 6);
    CHECK(strstr(svg, ">-2</text>") == NULL && strstr(svg, ">12</text>") == NULL);
    /* The x axis is not padded: 0 .. 10, also every 2. */
    CHECK(strstr(svg, "text-anchor=\"middle\">0</text>") != NULL);
    CHECK(strstr(svg, "text-anchor=\"middle\">10</text>") != NULL);
    free(svg);
}

static void test_escaping(void)
{
    lf_chart_series s = {"a<b & c", xs10, ys10, 11};
    lf_chart c = {"say \"hi\" it's <ok>", "x > 0 & y", NULL, 0, 0, 0, &s, 1, 0};
    char *svg = NULL;
    CHECK_OK(lf_chart_svg(&c, &svg));
    check_well_formed(svg);
    CHECK(strstr(svg, ">a&lt;b &amp; c</text>") != NULL);
    CHECK(strstr(svg, "a<b") == NULL);
    CHECK(strstr(svg, ">say &quot;hi&quot; it&apos;s &lt;ok&gt;</text>") != NULL);
    CHECK(strstr(svg, ">x &gt; 0 &amp; y</text>") != NULL);
    CHECK(strstr(svg, "rotate(-90") == NULL); /* no y title given, none drawn */
    free(svg);
}

static void test_tick_values(void)
{
    /* [0, 1]: steps of 0.2, printed compactly. */
    const double x[] = {1, 2, 3}, y[] = {0, 0.5, 1};
    lf_chart_series s = {"s", x, y, 3};
    lf_chart c = {NULL, "x", "y", 0, 0, 0, &s, 1, 0};
    char *svg = NULL;
    CHECK_OK(lf_chart_svg(&c, &svg));
    const char *yt[] = {"0", "0.2", "0.4", "0.6", "0.8", "1"};
    char want[64];
    for (int i = 0; i < 6; i++) {
        snprintf(want, sizeof want, "text-anchor=\"end\">%s</text>", yt[i]);
        CHECK(strstr(svg, want) != NULL);
    }
    CHECK_EQ_I64(count(svg, "text-anchor=\"end\""), 6);
    CHECK(strstr(svg, "0.6000") == NULL);
    free(svg);

    /* Large values stay plain numbers, and y is not forced down to zero. */
    const double y2[] = {1200, 3100, 4800};
    s.y = y2;
    CHECK_OK(lf_chart_svg(&c, &svg));
    CHECK(strstr(svg, "text-anchor=\"end\">2000</text>") != NULL);
    CHECK(strstr(svg, "text-anchor=\"end\">1500</text>") != NULL);
    CHECK(strstr(svg, "e+0") == NULL);
    CHECK(strstr(svg, "text-anchor=\"end\">0</text>") == NULL);
    int n = count(svg, "text-anchor=\"end\"");
    CHECK(n >= 4 && n <= 8);
    free(svg);

    /* Every range gives 4 to 8 ticks. */
    const double spans[][2] = {{0, 1}, {0, 7.3}, {-3, 3}, {1e-6, 3e-6}, {100, 101},
                               {0.1, 0.35}, {1e6, 9e9}, {-1234, -1200}, {5, 5.0001}};
    for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++) {
        double yy[3] = {spans[i][0], spans[i][1], spans[i][0]};
        s.y = yy;
        CHECK_OK(lf_chart_svg(&c, &svg));
        n = count(svg, "text-anchor=\"end\"");
        CHECK(n >= 4 && n <= 8);
        if (n < 4 || n > 8)
            fprintf(stderr, "  range [%g, %g]: %d ticks\n", spans[i][0], spans[i][1], n);
        free(svg);
    }
}

static void test_log2_axis(void)
{
    const double x[] = {128, 256, 512, 1024, 2048}, y[] = {40, 31.5, 22.25, 20, 19.5};
    lf_chart_series s = {"greedy", x, y, 5};
    lf_chart c = {"Buffer sweep", "buffer (KB)", "DRAM (MB)", 1, 0, 0, &s, 1, 0};
    char *svg = NULL;
    CHECK_OK(lf_chart_svg(&c, &svg));
    check_well_formed(svg);
    const char *xt[] = {"128", "256", "512", "1024", "2048"};
    char want[64];
    for (int i = 0; i < 5; i++) {
        snprintf(want, sizeof want, "text-anchor=\"middle\">%s</text>", xt[i]);
        CHECK(strstr(svg, want) != NULL);
    }
    CHECK(strstr(svg, ">64</text>") == NULL && strstr(svg, ">4096</text>") == NULL);
    CHECK(strstr(svg, ">768</text>") == NULL); /* powers of two only */
    free(svg);

    /* 2^-2 .. 2^30: too many powers for 8 ticks, so every k-th one. */
    const double x2[] = {0.25, 1073741824.0}, y2[] = {1, 2};
    lf_chart_series s2 = {"wide", x2, y2, 2};
    c.series = &s2;
    CHECK_OK(lf_chart_svg(&c, &svg));
    int n = count(svg, "text-anchor=\"middle\">") - 1; /* less the x title */
    CHECK(n >= 4 && n <= 8);
    CHECK(strstr(svg, ">1</text>") != NULL); /* 2^0 */
    free(svg);
}

/* A log2 y axis: ticks at powers of two covering 1.4 .. 250 MB, points
 * spaced by their logarithms, and y <= 0 rejected. */
static void test_log2_y_axis(void)
{
    const double x[] = {128, 256, 512}, y[] = {250, 16, 1.4};
    lf_chart_series s = {"dram", x, y, 3};
    lf_chart c = {NULL, "buffer (KB)", "DRAM (MB, log scale)", 1, 0, 0, &s, 1, 1};
    char *svg = NULL;
    CHECK_OK(lf_chart_svg(&c, &svg));
    check_well_formed(svg);
    const char *yt[] = {"2", "8", "32", "128"};
    for (int i = 0; i < 4; i++) {
        char want[64];
        snprintf(want, sizeof want, "text-anchor=\"end\">%s</text>", yt[i]);
        CHECK(strstr(svg, want) != NULL);
    }
    CHECK(strstr(svg, ">1000</text>") == NULL && strstr(svg, ">50</text>") == NULL);
    /* The middle point sits where log2(16) falls between log2(1.4) and log2(250). */
    double py[3];
    const char *p = strstr(svg, "<polyline");
    CHECK(p && sscanf(strstr(p, "points=\"") + 8, "%*f,%lf %*f,%lf %*f,%lf", &py[0], &py[1], &py[2]) == 3);
    double want = (log2(250) - log2(16)) / (log2(250) - log2(1.4));
    CHECK_NEAR((py[1] - py[0]) / (py[2] - py[0]), want, 1e-3);
    free(svg);
    const double bad[] = {250, 0, 1.4};
    s.y = bad;
    CHECK_EQ_I64(lf_chart_svg(&c, &svg), LF_EINVAL);
    CHECK(strstr(lf_last_error(), "y[1]") != NULL);
}

static void test_gaps_and_markers(void)
{
    const double x[] = {1, 2, 3, 4, 5}, y[] = {1, 2, NAN, 3, 4};
    lf_chart_series s = {"gappy", x, y, 5};
    lf_chart c = {NULL, "x", "y", 0, 0, 0, &s, 1, 0};
    char *svg = NULL;
    CHECK_OK(lf_chart_svg(&c, &svg));
    check_well_formed(svg);
    CHECK_EQ_I64(count(svg, "<polyline"), 2);
    CHECK_EQ_I64(count(svg, "<circle"), 4 + 1);
    free(svg);

    /* A point alone between gaps still shows, as a marker, even in a long series. */
    double xl[40], yl[40];
    for (int i = 0; i < 40; i++) {
        xl[i] = i;
        yl[i] = i == 10 || i == 12 ? NAN : (double)(i % 7);
    }
    lf_chart_series sl = {"long", xl, yl, 40};
    c.series = &sl;
    CHECK_OK(lf_chart_svg(&c, &svg));
    CHECK_EQ_I64(count(svg, "<polyline"), 2);
    CHECK_EQ_I64(count(svg, "<circle"), 1); /* x = 11 only; no legend marker either */
    free(svg);

    /* Past the palette, colours repeat with a dash pattern (series and legend). */
    lf_chart_series many[12];
    for (int i = 0; i < 12; i++)
        many[i] = (lf_chart_series){"s", xs10, ys10, 11};
    c.series = many;
    c.n_series = 12;
    CHECK_OK(lf_chart_svg(&c, &svg));
    check_well_formed(svg);
    CHECK_EQ_I64(count(svg, "stroke-dasharray"), 2 * 2);
    CHECK_EQ_I64(count(svg, "stroke=\"#1f77b4\""), 2 * 2);
    free(svg);
}

static void test_degenerate(void)
{
    char *svg = NULL;
    /* No series at all: axes and titles, nothing else. */
    lf_chart c = {NULL, "plans proposed", "best DRAM (MB)", 0, 0, 0, NULL, 0, 0};
    CHECK_OK(lf_chart_svg(&c, &svg));
    check_well_formed(svg);
    CHECK(strstr(svg, ">plans proposed</text>") != NULL);
    CHECK_EQ_I64(count(svg, "<polyline"), 0);
    CHECK(count(svg, "text-anchor=\"end\"") >= 4);
    free(svg);
    c.log2_x = 1;
    CHECK_OK(lf_chart_svg(&c, &svg));
    check_well_formed(svg);
    free(svg);

    /* Series without finite points, and an empty one. */
    const double xn[] = {1, 2}, yn[] = {NAN, NAN};
    lf_chart_series se[2] = {{"all gaps", xn, yn, 2}, {"empty", NULL, NULL, 0}};
    c.series = se;
    c.n_series = 2;
    CHECK_OK(lf_chart_svg(&c, &svg));
    check_well_formed(svg);
    CHECK(strstr(svg, ">all gaps</text>") && strstr(svg, ">empty</text>"));
    free(svg);

    /* All-equal values and a single point: the range is widened around them. */
    const double x[] = {1, 2, 3}, y[] = {5, 5, 5}, z[] = {0, 0, 0};
    lf_chart_series s = {"flat", x, y, 3};
    c.series = &s;
    c.n_series = 1;
    c.log2_x = 0;
    CHECK_OK(lf_chart_svg(&c, &svg));
    check_well_formed(svg);
    CHECK(strstr(svg, "text-anchor=\"end\">5</text>") != NULL);
    free(svg);
    s.y = z;
    CHECK_OK(lf_chart_svg(&c, &svg));
    CHECK(strstr(svg, "text-anchor=\"end\">0</text>") != NULL);
    free(svg);
    s.n = 1;
    c.log2_x = 1;
    CHECK_OK(lf_chart_svg(&c, &svg));
    check_well_formed(svg);
    CHECK_EQ_I64(count(svg, "<polyline"), 0);
    CHECK_EQ_I64(count(svg, "<circle"), 2);
    free(svg);
}

static void test_sizes(void)
{
    /* A long legend label widens the image instead of being cut. */
    char label[81];
    memset(label, 'W', 80);
    label[80] = '\0';
    lf_chart_series s = {label, xs10, ys10, 11};
    lf_chart c = {NULL, "x", "y", 0, 720, 440, &s, 1, 0};
    char *svg = NULL;
    CHECK_OK(lf_chart_svg(&c, &svg));
    double w = svg_width(svg);
    const char *leg = strstr(svg, "<g>\n<rect x=\"");
    CHECK(leg != NULL);
    if (leg) {
        double lx = atof(leg + 13);
        const char *pw = strstr(leg, "width=\"");
        double lw = pw ? atof(pw + 7) : 0;
        CHECK(lw >= 80 * 0.6 * 12);
        CHECK(lx + lw <= w);
        CHECK(w > 720);
    }
    free(svg);

    /* An explicit size is kept when everything fits. */
    s.label = "ok";
    c.width = 1000;
    c.height = 600;
    CHECK_OK(lf_chart_svg(&c, &svg));
    CHECK(strstr(svg, "width=\"1000\" height=\"600\" viewBox=\"0 0 1000 600\"") != NULL);
    free(svg);
}

static void test_deterministic(void)
{
    const double y[] = {1.0 / 3, 2.0 / 3, 0.123456789, 7.25, NAN, 1e-3, 2.5, 3, 4, 5, 6};
    lf_chart_series s[2] = {{"one", xs10, y, 11}, {"two", xs10, ys10, 11}};
    lf_chart c = {"t", "x", "y", 0, 0, 0, s, 2, 0};
    char *a = NULL, *b = NULL;
    CHECK_OK(lf_chart_svg(&c, &a));
    CHECK_OK(lf_chart_svg(&c, &b));
    CHECK(a && b && strcmp(a, b) == 0);
    free(b);
    /* A locale with a decimal comma, where installed, changes nothing. */
    const char *locs[] = {"de_DE.UTF-8", "fr_FR.UTF-8", "de_DE.utf8"};
    for (int i = 0; i < 3; i++) {
        if (!setlocale(LC_NUMERIC, locs[i]))
            continue;
        b = NULL;
        CHECK_OK(lf_chart_svg(&c, &b));
        CHECK(a && b && strcmp(a, b) == 0);
        free(b);
        break;
    }
    setlocale(LC_NUMERIC, "C");
    free(a);
}

static void test_errors(void)
{
    char *svg = (char *)"sentinel";
    CHECK_EQ_I64(lf_chart_svg(NULL, &svg), LF_EINVAL);
    CHECK(svg == NULL);

    const double x[] = {128, 0, 512}, y[] = {1, 2, 3};
    lf_chart_series s = {"bad", x, y, 3};
    lf_chart c = {NULL, "buffer (KB)", "DRAM (MB)", 1, 0, 0, &s, 1, 0};
    svg = (char *)"sentinel";
    CHECK_EQ_I64(lf_chart_svg(&c, &svg), LF_EINVAL);
    CHECK(svg == NULL);
    CHECK(strstr(lf_last_error(), "x[1]") != NULL && strstr(lf_last_error(), "log2") != NULL);
    CHECK(strstr(lf_last_error(), "'bad'") != NULL);
    c.log2_x = 0; /* zero is fine on a linear axis */
    CHECK_OK(lf_chart_svg(&c, &svg));
    free(svg);

    s.n = -1;
    CHECK_EQ_I64(lf_chart_svg(&c, &svg), LF_EINVAL);
    CHECK(strstr(lf_last_error(), "negative") != NULL);
    s.n = 3;
    s.y = NULL;
    CHECK_EQ_I64(lf_chart_svg(&c, &svg), LF_EINVAL);
    s.y = y;
    c.n_series = -2;
    CHECK_EQ_I64(lf_chart_svg(&c, &svg), LF_EINVAL);
    c.n_series = 1;
    CHECK_EQ_I64(lf_chart_svg(&c, NULL), LF_EINVAL);

    /* Values spanning more than a double holds. */
    const double huge[] = {-1.5e308, 1.5e308};
    lf_chart_series sh = {"huge", x, huge, 2};
    c.series = &sh;
    CHECK_EQ_I64(lf_chart_svg(&c, &svg), LF_ERANGE);
    CHECK(svg == NULL);
}

static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void test_save(void)
{
    char dir[] = "/tmp/lf_test_svg_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], bad[256], missing[256];
    snprintf(path, sizeof path, "%s/budget.svg", dir);
    snprintf(bad, sizeof bad, "%s/bad.svg", dir);
    snprintf(missing, sizeof missing, "%s/no/such/dir/budget.svg", dir);

    lf_chart_series s = {"greedy & co", xs10, ys10, 11};
    lf_chart c = {"Budget", "plans proposed", "best DRAM (MB)", 0, 0, 0, &s, 1, 0};
    CHECK_OK(lf_chart_save_svg(&c, path));
    char *mem = NULL, *data = NULL;
    long len = 0;
    CHECK_OK(lf_chart_svg(&c, &mem));
    CHECK_OK(lf_read_file(path, &data, &len));
    CHECK(mem && data && strcmp(mem, data) == 0);
    CHECK_EQ_I64(len, mem ? (long)strlen(mem) : -1);
    free(mem);
    free(data);
    CHECK_EQ_I64(dir_entries(dir), 1); /* no temporary left behind */

    /* A chart that cannot be drawn creates no file; the message names it. */
    const double x0[] = {0, 1};
    lf_chart_series sb = {"zero", x0, x0, 2};
    lf_chart cb = {NULL, "x", "y", 1, 0, 0, &sb, 1, 0};
    CHECK_EQ_I64(lf_chart_save_svg(&cb, bad), LF_EINVAL);
    CHECK(strstr(lf_last_error(), "bad.svg") != NULL && strstr(lf_last_error(), "log2") != NULL);
    CHECK_EQ_I64(dir_entries(dir), 1);

    CHECK_EQ_I64(lf_chart_save_svg(&c, missing), LF_EIO);
    CHECK(strstr(lf_last_error(), "budget.svg") != NULL);
    CHECK_EQ_I64(lf_chart_save_svg(&c, NULL), LF_EINVAL);
    CHECK_EQ_I64(dir_entries(dir), 1);

    remove(path);
    rmdir(dir);
}

int main(void)
{
    test_structure_and_labels();
    test_escaping();
    test_tick_values();
    test_log2_axis();
    test_log2_y_axis();
    test_gaps_and_markers();
    test_degenerate();
    test_sizes();
    test_deterministic();
    test_errors();
    test_save();
    return lf_test_result();
}

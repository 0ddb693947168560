/* CSV and Markdown tables, cut in place: the file is read once and every cell
 * is a NUL-terminated slice of that buffer (quoted CSV cells are unescaped in
 * place, which only ever shortens them). */
#include "planner/io/text_table.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/util/fileio.h"

#define LF__MAX_BYTES ((int64_t)64 << 20)
#define LF__MAX_ROWS 1000000

/* Rows as they are cut: cells of every row back to back, and where each row
 * starts; the header is row 0. */
typedef struct lf__rows {
    char **cells;
    int64_t n_cells, cap_cells;
    int64_t *start;
    int32_t *line;
    int32_t n, cap;
    int oom;
} lf__rows;

static void lf__push_cell(lf__rows *r, char *cell)
{
    if (r->oom)
        return;
    if (r->n_cells == r->cap_cells) {
        int64_t cap = r->cap_cells ? 2 * r->cap_cells : 64;
        char **p = realloc(r->cells, (size_t)cap * sizeof *p);
        if (!p) {
            r->oom = 1;
            return;
        }
        r->cells = p;
        r->cap_cells = cap;
    }
    r->cells[r->n_cells++] = cell;
}

static void lf__begin_row(lf__rows *r, int32_t line)
{
    if (r->oom)
        return;
    if (r->n == r->cap) {
        int32_t cap = r->cap ? 2 * r->cap : 16;
        int64_t *s = realloc(r->start, (size_t)cap * sizeof *s);
        if (s)
            r->start = s;
        int32_t *l = realloc(r->line, (size_t)cap * sizeof *l);
        if (l)
            r->line = l;
        if (!s || !l) {
            r->oom = 1;
            return;
        }
        r->cap = cap;
    }
    r->start[r->n] = r->n_cells;
    r->line[r->n++] = line;
}

static int32_t lf__row_cells(const lf__rows *r, int32_t i)
{
    int64_t end = i + 1 < r->n ? r->start[i + 1] : r->n_cells;
    return (int32_t)(end - r->start[i]);
}

static void lf__drop_last_row(lf__rows *r)
{
    r->n_cells = r->start[--r->n];
}

/* Trims spaces and tabs on both sides, in place. */
static char *lf__trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

static int lf__blank(const char *p, const char *end)
{
    for (; p < end; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r')
            return 0;
    return 1;
}

/* RFC 4180 with two allowances: spaces around a cell are trimmed, and lines
 * starting with '#' are comments. */
static lf_status lf__parse_csv(const char *path, char *text, lf__rows *r)
{
    char *p = text;
    int32_t line = 1;
    while (*p) {
        char *eol = strchr(p, '\n');
        char *end = eol ? eol : p + strlen(p);
        char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == '#' || lf__blank(p, end)) {
            p = eol ? eol + 1 : end;
            line++;
            continue;
        }
        int32_t row_line = line;
        lf__begin_row(r, row_line);
        for (;;) { /* one cell per turn */
            while (*p == ' ' || *p == '\t')
                p++;
            char *cell = p, *w = p;
            if (*p == '"') {
                p++;
                for (;;) {
                    if (*p == '\0')
                        return lf_set_error(LF_EPARSE, "%s:%d: unterminated quoted cell", path,
                                            (int)row_line);
                    if (*p == '"' && p[1] == '"') {
                        *w++ = '"';
                        p += 2;
                    } else if (*p == '"') {
                        p++;
                        break;
                    } else {
                        if (*p == '\n')
                            line++;
                        *w++ = *p++;
                    }
                }
                while (*p == ' ' || *p == '\t' || *p == '\r')
                    p++;
                if (*p != ',' && *p != '\n' && *p != '\0')
                    return lf_set_error(LF_EPARSE, "%s:%d: text after a closing quote", path,
                                        (int)line);
            } else {
                while (*p && *p != ',' && *p != '\n') {
                    if (*p == '"')
                        return lf_set_error(LF_EPARSE, "%s:%d: a quote inside an unquoted cell",
                                            path, (int)line);
                    w++, p++;
                }
            }
            char sep = *p;
            *w = '\0';
            lf__push_cell(r, lf__trim(cell));
            if (sep == ',') {
                p++;
                continue;
            }
            if (sep == '\n') {
                p++;
                line++;
            }
            break;
        }
        if (r->n > LF__MAX_ROWS)
            return lf_set_error(LF_ERANGE, "%s: more than %d rows", path, LF__MAX_ROWS);
    }
    return LF_OK;
}

/* A Markdown separator row: every cell is dashes with optional colons. */
static int lf__separator_row(const lf__rows *r, int32_t i)
{
    for (int64_t k = r->start[i]; k < r->start[i] + lf__row_cells(r, i); k++) {
        const char *c = r->cells[k];
        if (*c == ':')
            c++;
        if (*c != '-')
            return 0;
        while (*c == '-')
            c++;
        if (*c == ':')
            c++;
        if (*c)
            return 0;
    }
    return 1;
}

/* Markdown when some line starting with '|' is followed by a separator row
 * (only '|', '-', ':' and spaces, at least one '-'): a CSV file has neither. */
static int lf__is_separator_line(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '|')
        return 0;
    int dashes = 0;
    for (; *p && *p != '\n'; p++) {
        if (*p == '-')
            dashes++;
        else if (*p != '|' && *p != ':' && *p != ' ' && *p != '\t' && *p != '\r')
            return 0;
    }
    return dashes > 0;
}

static int lf__is_markdown(const char *text)
{
    for (const char *p = text; p;) {
        const char *s = p;
        while (*s == ' ' || *s == '\t')
            s++;
        const char *eol = strchr(p, '\n');
        if (*s == '|' && eol && lf__is_separator_line(eol + 1))
            return 1;
        p = eol ? eol + 1 : NULL;
    }
    return 0;
}

/* The first table: a row starting with '|' followed by a separator row, and
 * the rows after it up to the first line not starting with '|'. Cells are split at '|' except
 * an escaped "\|", which stays a literal bar. */
static lf_status lf__parse_markdown(char *text, lf__rows *r)
{
    char *p = text;
    int32_t line = 1;
    int in_table = 0;
    while (*p) {
        char *eol = strchr(p, '\n');
        char *s = p;
        while (*s == ' ' || *s == '\t')
            s++;
        /* the table starts at a row followed by its separator row */
        int row = *s == '|' && (in_table || (eol && lf__is_separator_line(eol + 1)));
        if (eol)
            *eol = '\0';
        if (row) {
            in_table = 1;
            lf__begin_row(r, line);
            s++;
            char *cell = s, *w = s;
            for (;;) {
                if (*s == '\\' && s[1] == '|') {
                    *w++ = '|';
                    s += 2;
                } else if (*s == '|' || *s == '\0') {
                    char at = *s;
                    *w = '\0';
                    char *t = lf__trim(cell);
                    /* the closing bar of the row ends it; text after it counts as a cell */
                    if (at == '\0' && *t == '\0')
                        break;
                    lf__push_cell(r, t);
                    if (at == '\0')
                        break;
                    cell = w = ++s;
                } else {
                    *w++ = *s++;
                }
            }
            if (r->n > 1 && !r->oom && lf__separator_row(r, r->n - 1))
                lf__drop_last_row(r);
            if (r->n > LF__MAX_ROWS)
                return LF_ERANGE;
        } else if (in_table) {
            break;
        }
        if (!eol)
            break;
        p = eol + 1;
        line++;
    }
    return LF_OK;
}

static lf_status lf__parse(lf_text_table *t, char *text, size_t len, const char *path);

lf_status lf_text_table_read(lf_text_table *t, const char *path)
{
    memset(t, 0, sizeof *t);
    char *text = NULL;
    long len = 0;
    lf_status st = lf_read_file_capped(path, LF__MAX_BYTES, "table", &text, &len);
    if (st != LF_OK)
        return st;
    return lf__parse(t, text, (size_t)len, path);
}

lf_status lf_text_table_parse(lf_text_table *t, const void *data, size_t size, const char *origin)
{
    memset(t, 0, sizeof *t);
    if ((int64_t)size > LF__MAX_BYTES)
        return lf_set_error(LF_ERANGE, "%s: larger than 64 MB", origin);
    char *text = malloc(size + 1);
    if (!text)
        return lf_set_error(LF_ENOMEM, "%s: out of memory", origin);
    memcpy(text, data, size);
    text[size] = '\0';
    return lf__parse(t, text, size, origin);
}

/* Cuts text (owned from here on) into the table. */
static lf_status lf__parse(lf_text_table *t, char *text, size_t len, const char *path)
{
    lf_status st = LF_OK;
    if (strlen(text) != len) {
        free(text);
        return lf_set_error(LF_EPARSE, "%s: not a text table (contains NUL bytes)", path);
    }
    lf__rows r = {0};
    if (lf__is_markdown(text)) {
        st = lf__parse_markdown(text, &r);
        if (st == LF_ERANGE)
            lf_set_error(st, "%s: more than %d rows", path, LF__MAX_ROWS);
    } else {
        st = lf__parse_csv(path, text, &r);
    }
    if (st == LF_OK && r.oom)
        st = lf_set_error(LF_ENOMEM, "%s: out of memory", path);
    if (st == LF_OK && r.n == 0)
        st = lf_set_error(LF_EPARSE, "%s: no table (no header row)", path);
    int32_t n_cols = st == LF_OK ? lf__row_cells(&r, 0) : 0;
    if (st == LF_OK && n_cols == 0)
        st = lf_set_error(LF_EPARSE, "%s:%d: the header row has no cells", path, (int)r.line[0]);
    for (int32_t i = 1; st == LF_OK && i < r.n; i++)
        if (lf__row_cells(&r, i) != n_cols)
            st = lf_set_error(LF_EPARSE, "%s:%d: %d cells, the header has %d", path, (int)r.line[i],
                              (int)lf__row_cells(&r, i), (int)n_cols);
    for (int32_t c = 0; st == LF_OK && c < n_cols; c++) {
        if (!r.cells[c][0])
            st = lf_set_error(LF_EPARSE, "%s:%d: column %d has no name", path, (int)r.line[0],
                              (int)c + 1);
        for (int32_t d = 0; st == LF_OK && d < c; d++)
            if (strcmp(r.cells[c], r.cells[d]) == 0)
                st = lf_set_error(LF_EPARSE, "%s:%d: column '%s' appears twice", path,
                                  (int)r.line[0], r.cells[c]);
    }
    t->path = st == LF_OK ? strdup(path) : NULL;
    if (st == LF_OK && !t->path)
        st = lf_set_error(LF_ENOMEM, "%s: out of memory", path);
    if (st != LF_OK) {
        free(r.cells);
        free(r.start);
        free(r.line);
        free(text);
        memset(t, 0, sizeof *t);
        return st;
    }
    t->n_cols = n_cols;
    t->n_rows = r.n - 1;
    t->header = r.cells;
    t->cells = r.cells + n_cols;
    t->line = r.line;
    memmove(t->line, t->line + 1, (size_t)t->n_rows * sizeof *t->line);
    t->text = text;
    free(r.start);
    return LF_OK;
}

void lf_text_table_destroy(lf_text_table *t)
{
    if (!t)
        return;
    free(t->header);
    free(t->line);
    free(t->text);
    free(t->path);
    memset(t, 0, sizeof *t);
}

int32_t lf_text_table_column(const lf_text_table *t, const char *name)
{
    for (int32_t c = 0; c < t->n_cols; c++)
        if (strcmp(t->header[c], name) == 0)
            return c;
    return -1;
}

static int lf__gap(const char *s)
{
    return !*s || strcmp(s, "-") == 0 || strcmp(s, "n/a") == 0 || strcmp(s, "none") == 0 ||
           strcmp(s, "\xe2\x80\x94") == 0; /* U+2014 em dash */
}

lf_status lf_text_table_number(const lf_text_table *t, int32_t r, int32_t c, double *out)
{
    const char *cell = t->cells[(int64_t)r * t->n_cols + c];
    *out = NAN;
    if (lf__gap(cell))
        return LF_OK;
    char buf[64];
    size_t n = 0;
    const char *s = cell;
    if (*s == '+')
        s++;
    for (; *s && n + 1 < sizeof buf; s++)
        if (*s != ',') /* thousands separators, as the tables print them */
            buf[n++] = *s;
    buf[n] = '\0';
    if (n > 0 && (buf[n - 1] == '%' || buf[n - 1] == 'x'))
        buf[--n] = '\0';
    char *end = NULL;
    double v = n > 0 && !*s ? strtod(buf, &end) : NAN;
    if (!end || end == buf || *end || !isfinite(v)) {
        char text[80];
        lf_text_line(text, sizeof text, cell);
        return lf_set_error(LF_EPARSE, "%s:%d: column '%s': '%s' is not a number", t->path,
                            (int)t->line[r], t->header[c], text);
    }
    *out = v;
    return LF_OK;
}

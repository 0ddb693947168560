/* Tables of text read from a file: CSV (RFC 4180 quoting, '#' comment lines)
 * or the first Markdown pipe table in the file, which is what the reproduce
 * scripts and `--format md` write. The first row names the columns.
 *
 * Cells keep their text; lf_text_table_number reads one as a number the way
 * tables print them ("1,478,656", "12.5%", "-" for none). */
#ifndef LF_TEXT_TABLE_H
#define LF_TEXT_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "planner/status.h"

typedef struct lf_text_table {
    char *path;            /* as given, for messages */
    int32_t n_cols, n_rows;
    char **header;         /* n_cols names, trimmed */
    char **cells;          /* n_rows * n_cols, row-major, trimmed */
    int32_t *line;         /* the file line of each row, for messages */
    char *text;            /* the file, cut in place into the cells */
} lf_text_table;

/* Reads a table. A file holding a Markdown pipe table (a line starting with
 * '|' followed by a separator row such as |---|:--:|) is Markdown: its first
 * such table is read, the text around it skipped and the
 * separator row dropped; anything else is CSV. LF_EPARSE, naming
 * the file and line, for an unterminated quote, a row whose cell count
 * differs from the header's, an empty or duplicate column name, or no
 * header at all; LF_EIO for an unreadable file; LF_ERANGE beyond 64 MB or
 * 1,000,000 rows. On failure the table is empty and needs no destroy. */
lf_status lf_text_table_read(lf_text_table *t, const char *path);
/* The same for a table in memory (size bytes, copied); `origin` stands for
 * the file name in messages. */
lf_status lf_text_table_parse(lf_text_table *t, const void *data, size_t size, const char *origin);
void lf_text_table_destroy(lf_text_table *t);

/* The index of the column named `name` (exact match), or -1. */
int32_t lf_text_table_column(const lf_text_table *t, const char *name);

/* The cell of row r, column c as a number. Thousands separators, a leading
 * '+', and a trailing '%' or 'x' are accepted; an empty cell, "-", "n/a",
 * "none" or an em dash is a gap (*out = NAN, LF_OK). Other text is LF_EPARSE
 * "FILE:LINE: column 'NAME': 'TEXT' is not a number". */
lf_status lf_text_table_number(const lf_text_table *t, int32_t r, int32_t c, double *out);

#endif

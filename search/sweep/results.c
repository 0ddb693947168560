/* Results files of a sweep: one JSON line per finished cell, appended. This
 * file finds which cells a file holds (jansson), cuts a truncated last line
 * left by a killed run, and appends lines; and keeps the journal of lines
 * that finished before an earlier cell (FILE.pending, see sweep.h). A file
 * is locked while a run appends to it (lf__lock). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "planner/util/fileio.h"
#include "search/sweep/sweep.h"

/* Reads the file; a missing file is empty. */
static lf_status lf__slurp(const char *path, char **data, long *len)
{
    struct stat sb;
    if (stat(path, &sb) != 0 && errno == ENOENT) {
        *data = NULL;
        *len = 0;
        return LF_OK;
    }
    return lf_read_file(path, data, len);
}

/* Calls on(ctx, cell, line, length with the newline) for every complete
 * line of `path` (see lf_sweep_results_scan for what is refused). */
static lf_status lf__scan(const lf_sweep_grid *g, const char *path,
                          void (*on)(void *ctx, int64_t cell, const char *line, size_t len), void *ctx,
                          int64_t *valid_len, int64_t *n_lines)
{
    char *data = NULL;
    long len = 0;
    lf_status st = lf__slurp(path, &data, &len);
    if (st != LF_OK)
        return st;
    int64_t n = lf_sweep_n_cells(g), lines = 0;
    long pos = 0;
    *valid_len = 0;
    for (int64_t lineno = 1; pos < len && st == LF_OK; lineno++) {
        char *nl = memchr(data + pos, '\n', (size_t)(len - pos));
        long end = nl ? (long)(nl - data) : len;
        json_error_t err;
        json_t *j = nl ? json_loadb(data + pos, (size_t)(end - pos), 0, &err) : NULL;
        if (!j) {
            if (!nl || end + 1 == len)
                break; /* a truncated last line: redone, never kept */
            st = lf_set_error(LF_EPARSE, "%s:%" PRId64 ": not a results line: %s", path, lineno,
                              err.text);
            break;
        }
        json_t *cell = json_object_get(j, "cell"), *key = json_object_get(j, "key");
        lf_sweep_cell c;
        char want[512];
        if (!json_is_integer(cell) || !json_is_string(key))
            st = lf_set_error(LF_EPARSE, "%s:%" PRId64 ": a results line needs \"cell\" and \"key\"",
                              path, lineno);
        else if (json_integer_value(cell) < 0 || json_integer_value(cell) >= n ||
                 (lf_sweep_cell_get(g, json_integer_value(cell), &c),
                  lf_sweep_cell_key(&c, want, sizeof want), strcmp(want, json_string_value(key))))
            st = lf_set_error(LF_EPARSE, "%s:%" PRId64 ": cell %" PRId64 " '%s' is not in this grid "
                              "(results of another grid?)", path, lineno,
                              (int64_t)json_integer_value(cell), json_string_value(key));
        else {
            on(ctx, json_integer_value(cell), data + pos, (size_t)(end + 1 - pos));
            lines++;
            *valid_len = end + 1;
        }
        json_decref(j);
        pos = end + 1;
    }
    free(data);
    if (n_lines)
        *n_lines = lines;
    return st;
}

typedef struct lf__marks {
    uint8_t *done;
    int64_t *first_line; /* per cell: its line number, 0 while not seen */
    int64_t lineno;      /* complete lines so far (every line before is one) */
    int64_t dup_cell, dup_line;
} lf__marks;

static void lf__mark_done(void *ctx, int64_t cell, const char *line, size_t len)
{
    (void)line, (void)len;
    lf__marks *m = ctx;
    m->lineno++;
    if (m->first_line[cell] && m->dup_cell < 0) {
        m->dup_cell = cell;
        m->dup_line = m->lineno;
    }
    if (!m->first_line[cell])
        m->first_line[cell] = m->lineno;
    m->done[cell] = 1;
}

lf_status lf_sweep_results_scan(const lf_sweep_grid *g, const char *path, uint8_t *done,
                                int64_t *valid_len, int64_t *n_lines)
{
    int64_t n = lf_sweep_n_cells(g);
    lf__marks m = {done, calloc((size_t)(n ? n : 1), sizeof(int64_t)), 0, -1, 0};
    if (!m.first_line)
        return lf_set_error(LF_ENOMEM, "out of memory reading %s", path);
    lf_status st = lf__scan(g, path, lf__mark_done, &m, valid_len, n_lines);
    /* Two runs that appended the same cells (before the lock) leave a cell
     * twice: resuming would count it once and hide that; say which. */
    if (st == LF_OK && m.dup_cell >= 0) {
        lf_sweep_cell c;
        char key[512];
        lf_sweep_cell_get(g, m.dup_cell, &c);
        lf_sweep_cell_key(&c, key, sizeof key);
        st = lf_set_error(LF_EPARSE, "%s:%" PRId64 ": cell %" PRId64 " '%s' is also on line %" PRId64
                                     " (written twice): keep one of the two lines, then resume",
                          path, m.dup_line, m.dup_cell, key, m.first_line[m.dup_cell]);
    }
    free(m.first_line);
    return st;
}

/* ---- the journal of lines that came in out of order ---------------------- */

static lf_status lf__journal_path(const char *path, char *buf, size_t len)
{
    if ((size_t)snprintf(buf, len, "%s.pending", path) >= len)
        return lf_set_error(LF_EINVAL, "%s: path too long for its journal", path);
    return LF_OK;
}

typedef struct lf__pending {
    const uint8_t *done;
    char **lines;
    int64_t loaded;
    int failed;
} lf__pending;

static void lf__keep_pending(void *ctx, int64_t cell, const char *line, size_t len)
{
    lf__pending *p = ctx;
    if (p->done[cell] || p->lines[cell] || p->failed)
        return; /* written to the results file since, or twice in the journal */
    if (!(p->lines[cell] = malloc(len + 1))) {
        p->failed = 1;
        return;
    }
    memcpy(p->lines[cell], line, len);
    p->lines[cell][len] = '\0';
    p->loaded++;
}

lf_status lf_sweep_journal_load(const lf_sweep_grid *g, const char *path, const uint8_t *done,
                                char **lines, int64_t *loaded)
{
    char jp[4096];
    int64_t valid = 0;
    lf__pending p = {done, lines, 0, 0};
    lf_status st = lf__journal_path(path, jp, sizeof jp);
    if (st == LF_OK)
        st = lf__scan(g, jp, lf__keep_pending, &p, &valid, NULL);
    if (st == LF_OK && p.failed)
        st = lf_set_error(LF_ENOMEM, "out of memory reading %s", jp);
    *loaded = p.loaded;
    return st;
}

lf_status lf_sweep_journal_open(const char *path, int resume, int *fd)
{
    char jp[4096];
    *fd = -1;
    lf_status st = lf__journal_path(path, jp, sizeof jp);
    if (st != LF_OK)
        return st;
    *fd = open(jp, O_WRONLY | O_APPEND | O_CREAT | (resume ? 0 : O_TRUNC), 0644);
    if (*fd < 0)
        return lf_set_error(LF_EIO, "%s: cannot open the sweep's journal: %s", jp, strerror(errno));
    return LF_OK;
}

void lf_sweep_journal_remove(const char *path)
{
    char jp[4096];
    if (lf__journal_path(path, jp, sizeof jp) == LF_OK)
        unlink(jp);
}

/* The lock on a results file: a whole sweep (fresh or resumed, which may
 * cut the file) holds it exclusively, `--cell I` appenders share it. flock,
 * not fcntl: an fcntl lock would drop when the scan closes its own
 * descriptor of the file. Released when fd is closed (or the process dies). */
static lf_status lf__lock(int fd, const char *path, int exclusive)
{
    while (flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
        if (errno == EINTR)
            continue;
        if (errno == EWOULDBLOCK)
            return lf_set_error(LF_EINVAL, "%s: another sweep is writing to it (the file is locked): "
                                           "wait for it to end, or write to another file", path);
        return lf_set_error(LF_EIO, "%s: cannot lock: %s", path, strerror(errno));
    }
    return LF_OK;
}

lf_status lf_sweep_results_open(const lf_sweep_grid *g, const char *path, lf_sweep_open_mode mode,
                                uint8_t *done, int *fd)
{
    *fd = -1;
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return lf_set_error(LF_EIO, "%s: not a regular file", path);
    /* Lock before reading: two runs that both scanned first would both
     * append every pending cell. */
    int f = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK, 0644);
    if (f < 0)
        return lf_set_error(LF_EIO, "%s: cannot open for appending: %s", path, strerror(errno));
    lf_status st = lf__lock(f, path, mode != LF_SWEEP_APPEND);
    if (st == LF_OK && (fstat(f, &sb) != 0 || !S_ISREG(sb.st_mode)))
        st = lf_set_error(LF_EIO, "%s: not a regular file", path);
    if (st == LF_OK && sb.st_size > 0 && mode == LF_SWEEP_FRESH)
        st = lf_set_error(LF_EINVAL, "%s already holds results: use --resume to continue it, or "
                                     "remove it", path);
    if (st == LF_OK && sb.st_size > 0 && mode == LF_SWEEP_RESUME) {
        int64_t valid = 0;
        st = lf_sweep_results_scan(g, path, done, &valid, NULL);
        if (st == LF_OK && valid < (int64_t)sb.st_size && ftruncate(f, (off_t)valid) != 0)
            st = lf_set_error(LF_EIO, "%s: cannot cut the truncated last line: %s", path,
                              strerror(errno));
    }
    if (st == LF_OK && sb.st_size > 0 && mode == LF_SWEEP_APPEND) {
        char last = '\n';
        FILE *r = fopen(path, "rb"); /* f is write-only */
        if (!r || fseek(r, -1L, SEEK_END) != 0 || fread(&last, 1, 1, r) != 1)
            st = lf_set_error(LF_EIO, "%s: cannot read: %s", path, strerror(errno));
        if (r)
            fclose(r);
        if (st == LF_OK && last != '\n')
            st = lf_set_error(LF_EINVAL, "%s ends in a truncated line (a killed run): run with "
                                         "--resume to cut it", path);
    }
    if (st != LF_OK) {
        close(f);
        return st;
    }
    *fd = f;
    return LF_OK;
}

lf_status lf_sweep_results_append(int fd, const char *path, const char *line)
{
    size_t len = strlen(line), off = 0;
    while (off < len) {
        ssize_t w = write(fd, line + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return lf_set_error(LF_EIO, "%s: write failed: %s", path, w < 0 ? strerror(errno) : "no space");
        off += (size_t)w;
    }
    return LF_OK;
}

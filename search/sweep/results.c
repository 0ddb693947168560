/* Results files of a sweep: one JSON line per finished cell, appended. This
 * file finds which cells a file holds (jansson), cuts a truncated last line
 * left by a killed run, and appends lines. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
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

lf_status lf_sweep_results_scan(const lf_sweep_grid *g, const char *path, uint8_t *done,
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
            done[json_integer_value(cell)] = 1;
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

lf_status lf_sweep_results_open(const lf_sweep_grid *g, const char *path, lf_sweep_open_mode mode,
                                uint8_t *done, int *fd)
{
    *fd = -1;
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (exists && !S_ISREG(sb.st_mode))
        return lf_set_error(LF_EIO, "%s: not a regular file", path);
    if (exists && sb.st_size > 0 && mode == LF_SWEEP_FRESH)
        return lf_set_error(LF_EINVAL, "%s already holds results: use --resume to continue it, or "
                                       "remove it", path);
    if (exists && sb.st_size > 0 && mode == LF_SWEEP_RESUME) {
        int64_t valid = 0;
        lf_status st = lf_sweep_results_scan(g, path, done, &valid, NULL);
        if (st != LF_OK)
            return st;
        if (valid < (int64_t)sb.st_size && truncate(path, (off_t)valid) != 0)
            return lf_set_error(LF_EIO, "%s: cannot cut the truncated last line: %s", path,
                                strerror(errno));
    }
    if (exists && sb.st_size > 0 && mode == LF_SWEEP_APPEND) {
        char last = '\n';
        FILE *f = fopen(path, "rb");
        if (!f || fseek(f, -1L, SEEK_END) != 0 || fread(&last, 1, 1, f) != 1) {
            if (f)
                fclose(f);
            return lf_set_error(LF_EIO, "%s: cannot read: %s", path, strerror(errno));
        }
        fclose(f);
        if (last != '\n')
            return lf_set_error(LF_EINVAL, "%s ends in a truncated line (a killed run): run with "
                                           "--resume to cut it", path);
    }
    *fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (*fd < 0)
        return lf_set_error(LF_EIO, "%s: cannot open for appending: %s", path, strerror(errno));
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

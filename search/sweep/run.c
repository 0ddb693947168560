/* One-process sweep: every cell not yet in the results file, in cell order,
 * each line appended as soon as the cell is done (so a kill loses at most
 * the cell being computed). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "search/sweep/sweep_internal.h"

lf_status lf_sweep_run(const lf_sweep_grid *g, const lf_sweep_options *o)
{
    int64_t n = lf_sweep_n_cells(g), todo = 0, finished = 0, failed = 0;
    uint8_t *done = calloc((size_t)(n ? n : 1), 1);
    if (!done)
        return lf_set_error(LF_ENOMEM, "out of memory");
    int fd = -1;
    lf_sweep_runner *r = NULL;
    char **pending = calloc((size_t)(n ? n : 1), sizeof *pending);
    int64_t loaded = 0;
    lf_status st = pending ? lf_sweep_results_open(g, o->path, o->resume ? LF_SWEEP_RESUME : LF_SWEEP_FRESH,
                                                   done, &fd)
                           : lf_set_error(LF_ENOMEM, "out of memory");
    /* Lines a killed MPI run finished out of order (its journal) are
     * written in their place instead of being redone; a fresh run drops a
     * journal left by another. */
    if (st == LF_OK && o->resume)
        st = lf_sweep_journal_load(g, o->path, done, pending, &loaded);
    else if (st == LF_OK)
        lf_sweep_journal_remove(o->path);
    if (st == LF_OK)
        st = lf_sweep_runner_create(&r, g);
    for (int64_t i = 0; i < n; i++)
        todo += !done[i] && !pending[i];
    for (int64_t i = 0; i < n && st == LF_OK; i++) {
        if (done[i])
            continue;
        if (pending[i]) {
            st = lf_sweep_results_append(fd, o->path, pending[i]);
            continue;
        }
        char *line = NULL;
        int cell_failed = 0;
        st = lf_sweep_run_cell(r, i, &line, &cell_failed);
        if (st == LF_OK)
            st = lf_sweep_results_append(fd, o->path, line);
        if (st == LF_OK) {
            finished++;
            failed += cell_failed;
            if (o->progress)
                lf__sweep_report_progress(o, g, i, line, finished, todo);
        }
        free(line);
    }
    if (o->n_failed)
        *o->n_failed = failed;
    lf_sweep_runner_free(r);
    if (fd >= 0 && close(fd) != 0 && st == LF_OK)
        st = lf_set_error(LF_EIO, "%s: close failed", o->path);
    if (st == LF_OK && loaded > 0)
        lf_sweep_journal_remove(o->path); /* its lines are in the results file now */
    for (int64_t i = 0; pending && i < n; i++)
        free(pending[i]);
    free(pending);
    free(done);
    return st;
}

lf_status lf_sweep_run_one(const lf_sweep_grid *g, int64_t i, const char *path, int resume,
                           char **line, int *cell_failed, int *already)
{
    *line = NULL;
    *cell_failed = 0;
    *already = 0;
    int64_t n = lf_sweep_n_cells(g);
    if (i < 0 || i >= n)
        return lf_set_error(LF_EINVAL, "cell %lld is not in the grid (0 .. %lld)", (long long)i,
                            (long long)n - 1);
    uint8_t *done = calloc((size_t)n, 1);
    if (!done)
        return lf_set_error(LF_ENOMEM, "out of memory");
    int fd = -1;
    lf_status st = LF_OK;
    if (path)
        st = lf_sweep_results_open(g, path, resume ? LF_SWEEP_RESUME : LF_SWEEP_APPEND, done, &fd);
    *already = st == LF_OK && done[i];
    free(done);
    if (st == LF_OK && !*already) {
        lf_sweep_runner *r = NULL;
        if ((st = lf_sweep_runner_create(&r, g)) == LF_OK)
            st = lf_sweep_run_cell(r, i, line, cell_failed);
        lf_sweep_runner_free(r);
        if (st == LF_OK && path)
            st = lf_sweep_results_append(fd, path, *line);
    }
    if (fd >= 0)
        close(fd);
    if (st != LF_OK) {
        free(*line);
        *line = NULL;
    }
    return st;
}

void lf_sweep_print_cells(FILE *f, const lf_sweep_grid *g)
{
    int64_t n = lf_sweep_n_cells(g);
    for (int64_t i = 0; i < n; i++) {
        lf_sweep_cell c;
        char key[512];
        lf_sweep_cell_get(g, i, &c);
        lf_sweep_cell_key(&c, key, sizeof key);
        fprintf(f, "%lld\t%s\n", (long long)i, key);
    }
}

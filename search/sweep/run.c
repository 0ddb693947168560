/* One-process sweep: every cell not yet in the results file, in cell order,
 * each line appended as soon as the cell is done (so a kill loses at most
 * the cell being computed). */
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
    lf_status st = lf_sweep_results_open(g, o->path, o->resume ? LF_SWEEP_RESUME : LF_SWEEP_FRESH, done, &fd);
    if (st == LF_OK)
        st = lf_sweep_runner_create(&r, g);
    for (int64_t i = 0; i < n; i++)
        todo += !done[i];
    for (int64_t i = 0; i < n && st == LF_OK; i++) {
        if (done[i])
            continue;
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
    free(done);
    return st;
}

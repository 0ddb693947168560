/* Progress of a sweep: the finished cell's key, wall time and error, read
 * back from its line (jansson), for the caller's callback. */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "search/sweep/sweep_internal.h"

void lf__sweep_report_progress(const lf_sweep_options *o, const lf_sweep_grid *g, int64_t cell,
                               const char *line, int64_t done, int64_t todo)
{
    if (!o->progress)
        return;
    lf_sweep_cell c;
    char key[512] = "";
    if (lf_sweep_cell_get(g, cell, &c) == LF_OK)
        lf_sweep_cell_key(&c, key, sizeof key);
    json_t *j = json_loads(line, 0, NULL);
    json_t *wall = j ? json_object_get(j, "wall_s") : NULL;
    json_t *err = j ? json_object_get(j, "error") : NULL;
    json_t *dram = j ? json_object_get(j, "dram_fusable") : NULL;
    o->progress(o->progress_ctx, cell, key, json_is_integer(dram) ? (int64_t)json_integer_value(dram) : -1,
                json_is_number(wall) ? json_number_value(wall) : NAN,
                json_is_string(err) ? json_string_value(err) : NULL, done, todo);
    json_decref(j);
}

void lf_sweep_progress_print(void *stream, int64_t cell, const char *key, int64_t dram,
                             double wall_s, const char *error, int64_t done, int64_t todo)
{
    FILE *f = stream;
    if (error)
        fprintf(f, "sweep: [%" PRId64 "/%" PRId64 "] cell %" PRId64 " %s: FAILED: %s\n", done, todo,
                cell, key, error);
    else
        fprintf(f, "sweep: [%" PRId64 "/%" PRId64 "] cell %" PRId64 " %s: %.3f MB in %.2f s\n", done,
                todo, cell, key, (double)dram / 1e6, wall_s);
}

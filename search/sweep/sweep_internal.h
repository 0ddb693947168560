/* Internals shared by the sweep runners (serial and MPI). */
#ifndef LF_SEARCH_SWEEP_INTERNAL_H
#define LF_SEARCH_SWEEP_INTERNAL_H

#include "search/sweep/sweep.h"

/* Calls o->progress (when set) for a finished cell, with the wall time and
 * error read back from its line. */
void lf__sweep_report_progress(const lf_sweep_options *o, const lf_sweep_grid *g, int64_t cell,
                               const char *line, int64_t done, int64_t todo);

#endif

/* Internals shared by the sweep runners (serial and MPI). */
#ifndef LF_SEARCH_SWEEP_INTERNAL_H
#define LF_SEARCH_SWEEP_INTERNAL_H

#include "planner/io/onnx.h"
#include "search/sweep/sweep.h"

/* Parses "x=1,3,224,224;y=..." into at most max shapes. */
lf_status lf_sweep_onnx_shapes(const char *spec, lf_onnx_input_shape *shapes, int32_t max, int32_t *n);

/* Calls o->progress (when set) for a finished cell, with the wall time and
 * error read back from its line. */
void lf__sweep_report_progress(const lf_sweep_options *o, const lf_sweep_grid *g, int64_t cell,
                               const char *line, int64_t done, int64_t todo);

#endif

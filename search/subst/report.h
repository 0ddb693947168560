/* Reports of the substitution optimizer (`fusionplan optimize`, profile and
 * schedule share the roofline line): text for a terminal and JSON, written
 * into a caller's stream. */
#ifndef LF_SUBST_REPORT_H
#define LF_SUBST_REPORT_H

#include <stdio.h>

#include "planner/graph.h"
#include "planner/status.h"
#include "search/subst/job.h"
#include "search/subst/subst.h"

/* "roofline: 15.7 TFLOP/s, 900 GB/s, 5 us per kernel (HW name, or the
 * defaults when the coster's hardware has no <gpu> section)". */
void lf_subst_roofline_write(FILE *f, const lf_subst_coster *c);

/* The cost of the input and of the result in every dimension, with the
 * change (DRAM only when computed). */
void lf_subst_costs_write(FILE *f, const lf_subst_costs *before, const lf_subst_costs *after);

/* The text report of a finished job on input g (named model): the settings,
 * the roofline, where measured op times come from when op_times is not NULL
 * ("measured on the GPU ... (cache PATH)": the line reads "op times: <op_times>,
 * roofline elsewhere"), the costs, the applied sequence, the search's statistics (the process's
 * peak memory included) and the outcome (nothing to do, or the numeric check). */
void lf_subst_job_report(FILE *f, const lf_subst_job *job, const char *model, const lf_graph *g,
                         const char *op_times);

/* The job as JSON: settings, costs, sequence, the reproducible statistics
 * and the optimized graph. */
lf_status lf_subst_job_write_json(FILE *f, const lf_subst_job *job, const char *model);
/* The same into the file at path, written all or nothing (planner/util/fileio.h). */
lf_status lf_subst_job_save_json(const char *path, const lf_subst_job *job, const char *model);

#endif

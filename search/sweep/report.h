/* `fusionplan sweep-report`: results files of `fusionplan sweep` grouped
 * into compare's tables (search/sweep/compare.h).
 *
 * Cells group into one table per (network, scheme, buffer, budget, k,
 * population), in cell order; rows are the (search, proposer) pairs in the
 * order their cells come, columns the seeds, ascending. A cell found twice
 * (files from several launchers concatenated, a --cell job rerun) counts
 * once: its first line without an error. A table with a missing or failed
 * cell is left out, with a notice naming the cell. */
#ifndef LF_SWEEP_REPORT_H
#define LF_SWEEP_REPORT_H

#include <stdint.h>

#include "planner/status.h"
#include "search/sweep/compare.h"
#include "search/sweep/sweep.h"

typedef struct lf_sweep_report {
    int32_t n_files;
    lf_sweep_record **files; /* each file's records (they own the tables' strings) */
    int64_t *counts;
    lf_cmp_table *tables;    /* the complete tables, in cell order */
    int32_t n_tables;
    int32_t n_incomplete;    /* tables left out */
} lf_sweep_report;

/* Something the user should hear that is not an error: a truncated last
 * line skipped, a table left out. */
typedef void (*lf_sweep_report_notice_fn)(void *user, const char *message);

/* Reads the n results files and builds the tables. No complete table at
 * all is LF_EINVAL ("PATHS[0]: no complete table to report"). Destroy r
 * after a failure too. notice may be NULL. */
lf_status lf_sweep_report_build(lf_sweep_report *r, const char *const *paths, int32_t n,
                                lf_sweep_report_notice_fn notice, void *user);
void lf_sweep_report_destroy(lf_sweep_report *r);

#endif

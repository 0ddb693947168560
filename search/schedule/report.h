/* Reports of inter-operator scheduling (`fusionplan schedule`): the text
 * report of the three schedules, written into a caller's stream, and the
 * chart of the latency run so far. */
#ifndef LF_SCHED_REPORT_H
#define LF_SCHED_REPORT_H

#include <stdio.h>

#include "planner/graph.h"
#include "planner/status.h"
#include "search/schedule/schedule.h"

/* One schedule: "NAME: T ms, N stages (M merged)" and a line per stage with
 * its strategy, latency and groups (ops of a group joined by " > ", groups
 * by " | ", merged convolutions by " + "). */
void lf_schedule_write(FILE *f, const lf_graph *g, const char *name, const lf_schedule *s);

/* The whole report of r on g (named model): the network, the roofline of
 * o's hardware, DOS's settings and statistics, the sequential, greedy and
 * DOS schedules and the summary with the speed-ups over sequential. */
void lf_sched_report_write(FILE *f, const lf_graph *g, const char *model, const lf_sched_options *o,
                           const lf_sched_result *r);

/* "evaluated: the dos schedule of PATH here: ..." for a schedule read back
 * from PATH and priced on this graph (lf_sched_read_json). */
void lf_sched_evaluated_write(FILE *f, const char *path, const lf_schedule *ev, const lf_sched_result *r);

/* lf_sched_write_json into the file at path, written all or nothing
 * (planner/util/fileio.h; inside an output batch, staged with the others). */
lf_status lf_sched_save_json(const char *path, const lf_graph *g, const char *model, const lf_sched_options *o,
                             const lf_sched_result *r);

/* An SVG chart of the latency run so far (ms) after each stage, one line
 * per schedule, at path. */
lf_status lf_sched_chart_save(const char *path, const char *model, const lf_sched_result *r);

#endif

/* `fusionplan curve --best-effort`: the best-effort staircase
 * (planner/app/stair.h) as a table, CSV, JSON (each step's bounds and plan
 * as group_of) and an SVG chart of its two lines, into a caller's stream. */
#ifndef LF_STAIR_REPORT_H
#define LF_STAIR_REPORT_H

#include <stdio.h>

#include "planner/app/stair.h"

/* The summary line, the step table and what the bands mean. */
void lf_stair_report_print(FILE *f, const lf_stair *s, const char *model, const char *scheme);
void lf_stair_report_csv(FILE *f, const lf_stair *s, const char *model, const char *scheme);
void lf_stair_report_json(FILE *f, const lf_stair *s, const char *model, const char *scheme);
/* Two step lines against the buffer: the plans' figures (upper, from each
 * step on) and the certified lower bound (up to each step: the bound at a
 * buffer holds at every smaller one). */
lf_status lf_stair_report_svg(FILE *f, const lf_stair *s, const char *model, const char *scheme);

#endif

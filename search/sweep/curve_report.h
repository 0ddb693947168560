/* `fusionplan curve`: the staircase of optimal DRAM over all ops against
 * the buffer (planner/exact/curve.h) with each step's plan figures and the
 * layer-by-layer reference at the same buffer, as a table, CSV, JSON (each
 * step's plan as group_of) and an SVG step chart, into a caller's stream. */
#ifndef LF_CURVE_REPORT_H
#define LF_CURVE_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "hwdesc/hw.h"
#include "planner/exact/curve.h"
#include "planner/graph.h"
#include "planner/plan.h"

typedef struct lf_curve_report {
    const char *model, *scheme;
    lf_curve curve;
    lf_plan_metrics *metrics; /* per step: its plan's figures at the step's buffer */
    int64_t *layer_all;       /* per step: layer-by-layer DRAM over all ops at that buffer
                                 (the objective's figure under energy or latency) */
    int32_t objective;        /* ec->objective: the points' dram_all are in its unit */
} lf_curve_report;

/* The staircase of g (named model) under scheme over [lo, hi] with limits
 * ec (NULL: defaults), and the figures of every step. r is initialised here
 * (model and scheme point at the arguments); destroy it after a failure too. */
lf_status lf_curve_report_compute(lf_curve_report *r, const lf_graph *g, const char *model,
                                  const lf_hw *hw, const char *scheme, int64_t lo, int64_t hi,
                                  const lf_exact_config *ec);
void lf_curve_report_destroy(lf_curve_report *r);

/* The summary line and the step table (lo and hi: the range asked for). */
void lf_curve_report_print(FILE *f, const lf_curve_report *r, int64_t lo, int64_t hi);
void lf_curve_report_csv(FILE *f, const lf_curve_report *r);
void lf_curve_report_json(FILE *f, const lf_curve_report *r);
/* The staircase as a line through (beta_k, DRAM_{k-1}) and (beta_k, DRAM_k). */
lf_status lf_curve_report_svg(FILE *f, const lf_curve_report *r);
/* One self-contained HTML page: the staircase with a slider over its steps,
 * each step's plan of g drawn as `plan -o plan.html` draws it, priced with hw
 * at the step's buffer (search/sweep/curve_html.c). */
lf_status lf_curve_report_html(FILE *f, const lf_curve_report *r, const lf_graph *g, const lf_hw *hw);

#endif

/* `fusionplan sweep-buffer`: one network and scheme swept over buffer sizes,
 * and how the sweep is reported (markdown, CSV, JSON; SVG charts of DRAM and
 * of the valid-group share). Internal to the CLI. */
#ifndef LF_CLI_SWEEP_H
#define LF_CLI_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "explain/dataset.h"
#include "hwdesc/hw.h"
#include "planner/plan.h"
#include "planner/status.h"

#define LF_SWEEP_MAX_MODELS 32
#define LF_SWEEP_MAX_BUFFERS LF_DS_MAX_BETAS
#define LF_SWEEP_DEFAULT_MODELS "vgg16,resnet18,resnet50,squeezenet1_0,mobilenet_v2"

typedef struct lf_sweep_point {
    int64_t beta;
    int32_t n_fusable, n_unfusable;
    lf_plan_metrics m;   /* the search's best plan */
    int has_exact;
    int64_t exact_all;
    int64_t layer_all;
    int has_valid;
    double valid_pct;
} lf_sweep_point;

typedef struct lf_sweep {
    const char *model, *scheme;
    int64_t sampled;     /* groups behind the valid fraction; -1 when not sampled */
    lf_sweep_point pts[LF_SWEEP_MAX_BUFFERS];
} lf_sweep;

typedef struct lf_sweep_setup {
    const char *search, *split, *proposer, *hw_file;
    int64_t budget, seed, threads, k, samples, exact_limit;
    int do_exact, tree, quiet, n_schemes;
    int32_t nb;
    int64_t betas[LF_SWEEP_MAX_BUFFERS];
    lf_hw hw;
} lf_sweep_setup;

/* 100 * num / den, 0 when den is not positive. */
double lf_sweep_pct(int64_t num, int64_t den);

/* Reports, one sweep at a time; FIRST marks the first sweep written. The
 * JSON head opens the document's "sweeps" array, which the caller closes.
 * None of them contains a timing, so the output is the same for any thread
 * count. */
void lf_sweep_print_md(FILE *f, const lf_sweep_setup *o, const lf_sweep *sw, int first);
void lf_sweep_print_csv_header(FILE *f);
void lf_sweep_print_csv(FILE *f, const lf_sweep_setup *o, const lf_sweep *sw);
void lf_sweep_print_json_head(FILE *f, const lf_sweep_setup *o);
void lf_sweep_print_json(FILE *f, const lf_sweep_setup *o, const lf_sweep *sw, int first);

/* Two SVG charts: DRAM over all ops against the buffer (PATH), and the
 * valid-group share (PATH with "-valid" before ".svg") when groups were
 * sampled. */
lf_status lf_sweep_save_charts(const lf_sweep_setup *o, const lf_sweep *sw, int n_sw,
                               const char *path);

#endif

/* `fusionplan sweep-buffer` (the sweep itself: search/sweep/buffer_sweep.h):
 * how a sweep is reported (markdown, CSV, JSON; SVG charts of DRAM and
 * of the valid-group share). Internal to the CLI. */
#ifndef LF_CLI_SWEEP_H
#define LF_CLI_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "planner/status.h"
#include "planner/util/fileio.h"
#include "search/sweep/buffer_sweep.h"

#define LF_SWEEP_MAX_MODELS 32
#define LF_SWEEP_MAX_BUFFERS LF_BUFFER_SWEEP_MAX
#define LF_SWEEP_DEFAULT_MODELS "vgg16,resnet18,resnet50,squeezenet1_0,mobilenet_v2"

/* The library's sweep configuration and what only the reports need. */
typedef struct lf_sweep_setup {
    lf_buffer_sweep_config run;
    const char *split, *hw_file;
    int quiet, n_schemes;
} lf_sweep_setup;

typedef lf_buffer_sweep lf_sweep;
typedef lf_buffer_sweep_point lf_sweep_point;

/* Reports, one sweep at a time; FIRST marks the first sweep written. The
 * JSON head opens the document's "sweeps" array, which the caller closes.
 * None of them contains a timing, so the output is the same for any thread
 * count. */
void lf_sweep_print_md(FILE *f, const lf_sweep_setup *o, const lf_sweep *sw, int first);
void lf_sweep_print_csv_header(FILE *f);
void lf_sweep_print_csv(FILE *f, const lf_sweep_setup *o, const lf_sweep *sw);
void lf_sweep_print_json_head(FILE *f, const lf_sweep_setup *o);
void lf_sweep_print_json(FILE *f, const lf_sweep_setup *o, const lf_sweep *sw, int first);

/* The report in format fmt ("md", "csv" or "json"): the head before the
 * first sweep, each sweep (index i from 0) and the tail after the last. */
void lf_sweep_print_head(FILE *f, const char *fmt, const lf_sweep_setup *o);
void lf_sweep_print(FILE *f, const char *fmt, const lf_sweep_setup *o, const lf_sweep *sw, int i);
void lf_sweep_print_tail(FILE *f, const char *fmt);

/* Where a sweep's report goes: standard output or `output` (written
 * atomically), in fmt, with the charts at `svg` when set. _open prints the
 * head; _close, when ok, the tail, then commits the report and the charts
 * together (or none of them), and when not ok drops the report. */
typedef struct lf_sweep_out {
    const lf_sweep_setup *o;
    const char *fmt, *output, *svg;
    FILE *f;
    lf_atomic_file af;
} lf_sweep_out;
lf_status lf_sweep_out_open(lf_sweep_out *out);
lf_status lf_sweep_out_close(lf_sweep_out *out, int ok, const lf_sweep *sw, int n_sw);

/* Two SVG charts: DRAM over all ops against the buffer (PATH), and the
 * valid-group share (PATH with "-valid" before ".svg") when groups were
 * sampled. */
lf_status lf_sweep_save_charts(const lf_sweep_setup *o, const lf_sweep *sw, int n_sw,
                               const char *path);

#endif

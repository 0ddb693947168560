/* A one-line progress bar on stderr, drawn only when stderr is a terminal and
 * never more often than every 100 ms, so that it costs nothing in pipes, CI
 * logs or tests. Thread-safe to update from a single thread only. */
#ifndef LF_TERMINAL_BAR_H
#define LF_TERMINAL_BAR_H

#include <stdint.h>

typedef struct lf_progress {
    const char *label;
    int64_t total;
    int64_t done;
    double last_draw;   /* seconds, monotonic */
    double start;
    int enabled;        /* 0 when stderr is not a terminal or quiet was asked */
} lf_progress;

/* quiet = 1 disables drawing regardless of the terminal. */
void lf_progress_start(lf_progress *p, const char *label, int64_t total, int quiet);
void lf_progress_update(lf_progress *p, int64_t done, const char *note); /* note may be NULL */
void lf_progress_finish(lf_progress *p);    /* clears the line */


#endif

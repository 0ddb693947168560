/* Wall time during which at least one thread is inside a region (the
 * splitter, say): the union of the threads' intervals, never more than the
 * elapsed time, unlike a sum of per-thread times, which grows with the thread
 * count. Thread-safe. */
#ifndef LF_BUSY_CLOCK_H
#define LF_BUSY_CLOCK_H

#include <stdint.h>

#include "planner/status.h"
#include "planner/util/mutex.h"

typedef struct lf_busy_clock {
    lf_mutex lock;
    int32_t active;     /* threads inside the region now */
    double since;       /* when `active` last went from 0 to 1 */
    double total;       /* seconds with active > 0, closed intervals only */
} lf_busy_clock;

lf_status lf_busy_clock_init(lf_busy_clock *c);
void lf_busy_clock_destroy(lf_busy_clock *c);
void lf_busy_clock_enter(lf_busy_clock *c);
void lf_busy_clock_leave(lf_busy_clock *c);
/* Seconds so far, including an interval still open. */
double lf_busy_clock_seconds(lf_busy_clock *c);
void lf_busy_clock_reset(lf_busy_clock *c);

#endif

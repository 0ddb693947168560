/* The monotonic clock the library times and limits its work with. */
#include "planner/util/clock.h"

#include <time.h>

double lf_now_seconds(void)
{
    /* CLOCK_MONOTONIC: immune to wall-clock adjustments during long searches. */
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Names of the scheduler's strategies and latency models (one table, used
 * by the library's messages and JSON and by the CLI). */
#include <string.h>

#include "search/schedule/schedule.h"

static const char *const lf__latency_names[] = {"analytic", "measured", "custom"};

const char *lf_sched_strategy_name(lf_sched_strategy s) { return s == LF_SCHED_MERGE ? "merge" : "concurrent"; }

const char *lf_sched_latency_name(lf_sched_latency l)
{
    return (int)l >= 0 && l <= LF_SCHED_CUSTOM ? lf__latency_names[l] : "?";
}

int lf_sched_latency_from_name(const char *name)
{
    for (int i = 0; i <= LF_SCHED_MEASURED; i++)
        if (name && strcmp(name, lf__latency_names[i]) == 0)
            return i;
    return -1;
}


/* The monotonic wall clock: search limits, deadlines and timings. */
#ifndef LF_CLOCK_H
#define LF_CLOCK_H

/* Seconds on CLOCK_MONOTONIC (immune to wall-clock adjustments). */
double lf_now_seconds(void);

#endif

/* The two steps of stair.c that make the grid's bounds monotone, apart
 * for the tests (tests/test_stair.c), which rarely see them fire on graphs
 * small enough to brute-force. */
#ifndef LF_STAIR_INTERNAL_H
#define LF_STAIR_INTERNAL_H

#include "planner/app/stair.h"
#include "planner/cost/cost.h"

/* t (at cm's buffer) takes the plan of `below` (a smaller buffer's step)
 * where it is valid at cm's buffer and costs less there than t's upper:
 * plan, metrics, upper and found_at. */
lf_status lf__stair_carry_plan(const lf_stair_step *below, lf_stair_step *t, lf_cost_model *cm);

/* Each step's lower bound raised to the next larger buffer's (lower_at
 * with it); LF_EPLAN naming the buffer where a lower bound then exceeds
 * the upper (a bound that is not one). */
lf_status lf__stair_settle(lf_stair *s);

#endif

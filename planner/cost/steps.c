/* The staircase of a group's cost as the buffer grows: (need, F_D) steps
 * that each scheme's `steps` hook pushes in any order (lbdf.c, brr.c); the
 * cost model (model.c) hands the staircase out through lf_cost_steps. */
#include <string.h>

#include "planner/cost/cost_internal.h"

lf_status lf__step_push(lf_cost_step *steps, int32_t cap, int32_t *n, int64_t need, int64_t f_d)
{
    /* Steps arrive in any order: insert by need, then keep the staircase. */
    int32_t at = *n;
    while (at > 0 && steps[at - 1].need > need)
        at--;
    if (at > 0 && steps[at - 1].f_d <= f_d)
        return LF_OK; /* no cheaper than a step that needs no more */
    while (at > 0 && steps[at - 1].need == need) { /* same need, dearer: replaced */
        memmove(steps + at - 1, steps + at, (size_t)(*n - at) * sizeof *steps);
        (*n)--;
        at--;
    }
    if (*n == cap)
        return lf_set_error(LF_ERANGE, "a group's cost has more than %d buffer steps", (int)cap);
    memmove(steps + at + 1, steps + at, (size_t)(*n - at) * sizeof *steps);
    steps[at] = (lf_cost_step){need, f_d};
    (*n)++;
    /* Later steps that are no cheaper are dominated now. */
    int32_t w = at + 1;
    for (int32_t r = at + 1; r < *n; r++)
        if (steps[r].f_d < f_d)
            steps[w++] = steps[r];
    *n = w;
    return LF_OK;
}

lf_status lf__step_push_p(const lf__priced *p, lf_cost_step *steps, int32_t cap, int32_t *n, int64_t need,
                          int64_t f_d)
{
    if (!p->keep_all)
        return lf__step_push(steps, cap, n, need, f_d);
    int32_t at = *n;
    while (at > 0 && steps[at - 1].need > need)
        at--;
    if (*n == cap)
        return lf_set_error(LF_ERANGE, "a group has more than %d schedules", (int)cap);
    memmove(steps + at + 1, steps + at, (size_t)(*n - at) * sizeof *steps);
    steps[at] = (lf_cost_step){need, f_d};
    (*n)++;
    return LF_OK;
}

/* The substitution optimizer's measured-cost hook: a measured time where the
 * profiler has one (cached or measured now), -1 (roofline) otherwise. */
#include "planner/gpu/opcost.h"

double lf_gpu_op_time_hook(void *profiler, const lf_graph *g, int32_t v)
{
    double s = 0.0;
    if (!profiler || !lf_gpu_op_measurable(g, v))
        return -1.0;
    if (lf_gpu_measure_op(profiler, g, v, &s, NULL) != LF_OK)
        return -1.0;
    return s;
}

/* Built when CUDA or cuDNN is missing: every query reports that GPU support is
 * not compiled in, which callers and tests treat as "no GPU" (tests skip). */
#include "planner/gpu/device.h"

int lf_gpu_built(void) { return 0; }

lf_status lf_gpu_count(int32_t *count)
{
    *count = 0;
    return lf_set_error(LF_ENOSYS, "fusionplan was built without CUDA support");
}

lf_status lf_gpu_query(int32_t index, lf_gpu_info *info)
{
    (void)index;
    (void)info;
    return lf_set_error(LF_ENOSYS, "fusionplan was built without CUDA support");
}

/* How many threads a kernel uses for a given amount of work. */
#include "planner/exec/kernels.h"

/* Below this many scalar operations a parallel region costs more than it
 * saves. The choice only moves work between threads, never changes results. */
#define LF__GRAIN 32768

int lf__threads_for(int64_t work, int nt)
{
    if (nt <= 1 || work < 2 * LF__GRAIN)
        return 1;
    int64_t most = work / LF__GRAIN;
    return most < nt ? (int)most : nt;
}

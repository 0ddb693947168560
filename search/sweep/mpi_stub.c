/* The MPI sweep runner when fusionplan is built without MPI (LF_MPI off or
 * no MPI library found at configure time). */
#include "search/sweep/sweep.h"

int lf_sweep_mpi_built(void)
{
    return 0;
}

lf_status lf_sweep_run_mpi(const lf_sweep_grid *g, const lf_sweep_options *o, int *rank)
{
    (void)g;
    (void)o;
    *rank = 0;
    return lf_set_error(LF_ENOSYS, "sweep --mpi: fusionplan was built without MPI (install "
                                   "libopenmpi-dev and reconfigure with -DLF_MPI=AUTO or ON)");
}

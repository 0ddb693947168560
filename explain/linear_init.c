/* PyTorch's initialization of a Linear layer, the one the GNN, the
 * explainers and the GSO filter's models all start from (layers.h). */
#include <math.h>

#include "explain/layers.h"

void lf_linear_init(lf_rng *r, float *w, int64_t n, double fan_in)
{
    double b = 1.0 / sqrt(fan_in);
    for (int64_t i = 0; i < n; i++)
        w[i] = (float)((2 * lf_rng_uniform(r) - 1) * b);
}

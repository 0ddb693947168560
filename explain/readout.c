/* ReLU and the sum readout (graph embedding = sum of node embeddings, the
 * paper's choice). */
#include "explain/layers.h"
#include "explain/vector_clones.h"

#include <string.h>

LF_VECTOR_CLONES
void lf_relu_forward(int64_t n, const float *z, float *h)
{
    for (int64_t i = 0; i < n; i++) {
        float x = z[i];
        h[i] = x > 0.0f ? x : 0.0f;
    }
}

LF_VECTOR_CLONES
void lf_relu_backward(int64_t n, const float *z, const float *dh, float *dz)
{
    /* dh[i] is read whatever the sign of z[i], so the loop is a select the
     * compiler vectorises, not a branch that the ReLU's random pattern
     * mispredicts half the time. */
    for (int64_t i = 0; i < n; i++) {
        float d = dh[i];
        dz[i] = z[i] > 0.0f ? d : 0.0f;
    }
}

LF_VECTOR_CLONES
void lf_readout_sum_forward(int32_t n, int32_t d, const float *h, float *g)
{
    memset(g, 0, sizeof(float) * (size_t)d);
    for (int32_t i = 0; i < n; i++)
        for (int32_t c = 0; c < d; c++)
            g[c] += h[(int64_t)i * d + c];
}

void lf_readout_sum_backward(int32_t n, int32_t d, const float *dg, float *dh)
{
    for (int32_t i = 0; i < n; i++)
        memcpy(dh + (int64_t)i * d, dg, sizeof(float) * (size_t)d);
}

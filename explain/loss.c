/* Softmax cross-entropy on raw logits. */
#include "explain/layers.h"

#include <math.h>

double lf_softmax_ce(const float *o, int32_t c, int32_t y, float *dout, float *prob)
{
    /* Subtract the largest logit so exp never overflows; the log-sum-exp is
     * computed in double so the loss of a confident correct prediction does
     * not round to a negative number. */
    double mx = o[0];
    for (int32_t k = 1; k < c; k++)
        if (o[k] > mx)
            mx = o[k];
    double s = 0;
    for (int32_t k = 0; k < c; k++)
        s += exp((double)o[k] - mx);
    double lse = mx + log(s);
    for (int32_t k = 0; k < c; k++) {
        double p = exp((double)o[k] - lse);
        if (prob)
            prob[k] = (float)p;
        if (dout)
            dout[k] = (float)(p - (k == y ? 1.0 : 0.0));
    }
    return lse - (double)o[y];
}

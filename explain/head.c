/* Linear classification head: o = g W + b (2 logits: invalid, valid). */
#include "explain/layers.h"

#include <string.h>

void lf_head_forward(const lf_head *H, const float *g, float *o)
{
    memcpy(o, H->b, sizeof(float) * (size_t)H->out);
    lf_mm_nn(1, H->out, H->in, g, H->w, o, 1);
}

void lf_head_backward(const lf_head *H, const lf_head *grad, const float *g, const float *dout,
                      float *dg)
{
    if (grad) {
        lf_mm_tn_acc(1, H->out, H->in, g, dout, grad->w);
        for (int32_t c = 0; c < H->out; c++)
            grad->b[c] += dout[c];
    }
    if (dg)
        lf_mm_nt(1, H->out, H->in, dout, H->w, dg);
}

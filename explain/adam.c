/* Adam (Kingma & Ba), PyTorch's formulation with bias correction. */
#include "explain/layers.h"

#include <math.h>
#include <stdlib.h>

#include "planner/status.h"

int lf_adam_init(lf_adam *a, int64_t n, float lr)
{
    a->n = n;
    a->lr = lr;
    a->beta1 = 0.9f;
    a->beta2 = 0.999f;
    a->eps = 1e-8f;
    a->t = 0;
    a->m = calloc((size_t)(n > 0 ? n : 1), sizeof(float));
    a->v = calloc((size_t)(n > 0 ? n : 1), sizeof(float));
    if (!a->m || !a->v) {
        lf_adam_destroy(a);
        return lf_set_error(LF_ENOMEM, "out of memory for Adam state (%lld parameters)",
                            (long long)n);
    }
    return LF_OK;
}

void lf_adam_destroy(lf_adam *a)
{
    free(a->m);
    free(a->v);
    a->m = a->v = NULL;
}

void lf_adam_step(lf_adam *a, float *params, const float *grad)
{
    a->t++;
    double bc1 = 1.0 - pow((double)a->beta1, (double)a->t);
    double bc2 = 1.0 - pow((double)a->beta2, (double)a->t);
    float b1 = a->beta1, b2 = a->beta2;
    for (int64_t i = 0; i < a->n; i++) {
        float g = grad[i];
        a->m[i] = b1 * a->m[i] + (1.0f - b1) * g;
        a->v[i] = b2 * a->v[i] + (1.0f - b2) * g * g;
        double mh = a->m[i] / bc1, vh = a->v[i] / bc2;
        params[i] -= (float)(a->lr * mh / (sqrt(vh) + a->eps));
    }
}

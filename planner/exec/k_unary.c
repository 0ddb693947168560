/* Element-wise activations and math functions (ONNX unary ops and the
 * activations Conv and Gemm carry fused). */
#include <math.h>

#include "planner/exec/kernels.h"

lf__unary lf__unary_of_act(lf_act act, float clip_min, float clip_max)
{
    lf__unary u = {LF__U_IDENTITY, 0.0f, 0.0f};
    switch (act) {
    case LF_ACT_RELU:
        u.kind = LF__U_RELU;
        break;
    case LF_ACT_RELU6:
        u.kind = LF__U_CLIP;
        u.a = clip_max > clip_min ? clip_min : 0.0f;
        u.b = clip_max > clip_min ? clip_max : 6.0f;
        break;
    case LF_ACT_SIGMOID:
        u.kind = LF__U_SIGMOID;
        break;
    case LF_ACT_HARDSIGMOID:
        /* A fused hard sigmoid comes from torch's hardsigmoid: relu6(x+3)/6. */
        u.kind = LF__U_HARDSIGMOID;
        u.a = 1.0f / 6.0f;
        u.b = 0.5f;
        break;
    case LF_ACT_HARDSWISH:
        u.kind = LF__U_HARDSWISH;
        break;
    case LF_ACT_SILU:
        u.kind = LF__U_SILU;
        break;
    default:
        break;
    }
    return u;
}

static float lf__sigmoid(float x)
{
    /* Split at 0 so that exp never overflows. */
    if (x >= 0.0f)
        return 1.0f / (1.0f + expf(-x));
    float e = expf(x);
    return e / (1.0f + e);
}

float lf__unary_apply1(const lf__unary *u, float x)
{
    switch (u->kind) {
    case LF__U_IDENTITY:
        return x;
    case LF__U_RELU:
        /* ONNX's max(0, x) keeps NaN (numpy, onnxruntime): !(x <= 0). */
        return !(x <= 0.0f) ? x : 0.0f;
    case LF__U_CLIP: {
        /* ONNX Clip is min(max(x, lo), hi): NaN stays NaN, and lo > hi
         * gives hi everywhere (the order of the two tests matters). */
        float v = x < u->a ? u->a : x;
        return v > u->b ? u->b : v;
    }
    case LF__U_SIGMOID:
        return lf__sigmoid(x);
    case LF__U_HARDSIGMOID: {
        float v = u->a * x + u->b;
        return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    }
    case LF__U_HARDSWISH: {
        float v = x / 6.0f + 0.5f;
        return x * (v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v));
    }
    case LF__U_SILU:
        return x * lf__sigmoid(x);
    case LF__U_TANH:
        return tanhf(x);
    case LF__U_ERF:
        return erff(x);
    case LF__U_GELU:
        return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case LF__U_GELU_TANH:
        return 0.5f * x * (1.0f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
    case LF__U_EXP:
        return expf(x);
    case LF__U_LOG:
        return logf(x);
    case LF__U_SQRT:
        return sqrtf(x);
    case LF__U_NEG:
        return -x;
    case LF__U_ABS:
        return fabsf(x);
    case LF__U_RECIPROCAL:
        return 1.0f / x;
    case LF__U_LEAKYRELU:
        return x >= 0.0f ? x : u->a * x;
    case LF__U_ELU:
        return x >= 0.0f ? x : u->a * (expf(x) - 1.0f);
    case LF__U_SOFTPLUS:
        /* log(1 + e^x) = max(x, 0) + log1p(e^-|x|), exact for large |x|. */
        return (x > 0.0f ? x : 0.0f) + log1pf(expf(-fabsf(x)));
    case LF__U_FLOOR:
        return floorf(x);
    case LF__U_CEIL:
        return ceilf(x);
    default:
        return x;
    }
}

typedef struct lf__unary_job {
    const lf__unary *u;
    const float *x;
    float *y;
} lf__unary_job;

static void lf__unary_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__unary_job *j = ctx;
    const float *x = j->x;
    float *y = j->y;
    if (j->u->kind == LF__U_RELU) {
        /* The hot case gets a loop the compiler vectorises (an unordered
         * compare, so NaN passes through as in lf__unary_apply1). */
        for (int64_t i = lo; i < hi; i++)
            y[i] = !(x[i] <= 0.0f) ? x[i] : 0.0f;
        return;
    }
    for (int64_t i = lo; i < hi; i++)
        y[i] = lf__unary_apply1(j->u, x[i]);
}

void lf__unary_apply(const lf__unary *u, const float *x, float *y, int64_t n, int nt)
{
    if (u->kind == LF__U_IDENTITY) {
        if (x != y)
            for (int64_t i = 0; i < n; i++)
                y[i] = x[i];
        return;
    }
    lf__unary_job j = {u, x, y};
    lf__parallel(n, lf__threads_for(u->kind == LF__U_RELU ? n : n * 8, nt), lf__unary_range, &j);
}

/* NaN and infinity through the executor's kernels, against the ONNX
 * definitions computed by hand (numpy semantics: max, min, clip and the
 * reductions propagate NaN; x * 0 with x infinite is NaN), and MaxPool
 * against onnxruntime, whose MLAS kernel skips NaN (docs/reliability.md). */
#include <math.h>
#include <stdlib.h>

#include "planner/exec/kernels.h"
#include "testlib.h"

static lf__dims D(int64_t n, int64_t c, int64_t h, int64_t w)
{
    lf__dims d = {{n, c, h, w}};
    return d;
}

/* Equal as IEEE values, NaN equal to NaN; finite values within tol. */
static int same(float got, float want, double tol)
{
    if (isnan(want))
        return isnan(got);
    if (isinf(want))
        return got == want;
    return fabs((double)got - (double)want) <= tol;
}

static void check_same(const float *got, const float *want, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (!same(got[i], want[i], 1e-6 * fmax(1.0, fabs((double)want[i])))) {
            lf_test_failures++;
            fprintf(stderr, "%s[%d]: got %.9g, want %.9g\n", what, i, (double)got[i], (double)want[i]);
        }
    lf_test_checks++;
}

static void test_unary_specials(void)
{
    const float I = INFINITY, N = NAN;
    struct {
        lf__unary u;
        float x, want;
    } cases[] = {
        /* Relu = max(0, x): NaN stays NaN. */
        {{LF__U_RELU, 0, 0}, N, N},
        {{LF__U_RELU, 0, 0}, I, I},
        {{LF__U_RELU, 0, 0}, -I, 0},
        /* Clip = min(max(x, lo), hi); lo > hi gives hi. */
        {{LF__U_CLIP, 0, 6}, N, N},
        {{LF__U_CLIP, 0, 6}, I, 6},
        {{LF__U_CLIP, 0, 6}, -I, 0},
        {{LF__U_CLIP, 2, 1}, 0, 1},
        {{LF__U_CLIP, 2, 1}, 5, 1},
        {{LF__U_CLIP, 2, 1}, 1.5f, 1},
        {{LF__U_SIGMOID, 0, 0}, I, 1},
        {{LF__U_SIGMOID, 0, 0}, -I, 0},
        {{LF__U_SIGMOID, 0, 0}, N, N},
        {{LF__U_HARDSIGMOID, 0.2f, 0.5f}, I, 1},
        {{LF__U_HARDSIGMOID, 0.2f, 0.5f}, -I, 0},
        {{LF__U_HARDSIGMOID, 0.2f, 0.5f}, N, N},
        /* HardSwish = x * HardSigmoid(x): -inf * 0 is NaN in ONNX's function body. */
        {{LF__U_HARDSWISH, 0, 0}, I, I},
        {{LF__U_HARDSWISH, 0, 0}, -I, N},
        {{LF__U_HARDSWISH, 0, 0}, N, N},
        {{LF__U_SILU, 0, 0}, I, I},
        {{LF__U_SILU, 0, 0}, N, N},
        {{LF__U_TANH, 0, 0}, -I, -1},
        {{LF__U_ERF, 0, 0}, I, 1},
        {{LF__U_GELU, 0, 0}, I, I},
        {{LF__U_GELU, 0, 0}, N, N},
        {{LF__U_EXP, 0, 0}, -I, 0},
        {{LF__U_LOG, 0, 0}, 0, -I},
        {{LF__U_LOG, 0, 0}, -1, N},
        {{LF__U_SQRT, 0, 0}, -1, N},
        {{LF__U_RECIPROCAL, 0, 0}, 0, I},
        {{LF__U_LEAKYRELU, 0.1f, 0}, -I, -I},
        {{LF__U_LEAKYRELU, 0.1f, 0}, N, N},
        {{LF__U_ELU, 2.0f, 0}, -I, -2},
        {{LF__U_ELU, 2.0f, 0}, N, N},
        {{LF__U_SOFTPLUS, 0, 0}, -I, 0},
        {{LF__U_SOFTPLUS, 0, 0}, I, I},
        {{LF__U_SOFTPLUS, 0, 0}, N, N},
        {{LF__U_FLOOR, 0, 0}, N, N},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float got = lf__unary_apply1(&cases[i].u, cases[i].x);
        if (!same(got, cases[i].want, 1e-6)) {
            lf_test_failures++;
            fprintf(stderr, "unary case %zu (kind %d, x %g): got %.9g, want %.9g\n", i,
                    (int)cases[i].u.kind, (double)cases[i].x, (double)got, (double)cases[i].want);
        }
        lf_test_checks++;
    }
    /* The vectorised Relu loop and the generic loop agree with the scalar. */
    float x[6] = {N, -1, 2, I, -I, 0}, y[6];
    lf__unary relu = {LF__U_RELU, 0, 0};
    lf__unary_apply(&relu, x, y, 6, 2);
    check_same(y, (float[]){N, 0, 2, I, 0, 0}, 6, "relu loop");
    lf__unary clip = {LF__U_CLIP, 0, 1};
    lf__unary_apply(&clip, x, y, 6, 2);
    check_same(y, (float[]){N, 0, 1, 1, 0, 0}, 6, "clip loop");
    /* A fused Relu on a Conv goes through lf__unary_of_act. */
    lf__unary fused = lf__unary_of_act(LF_ACT_RELU, 0, 0);
    CHECK(isnan(lf__unary_apply1(&fused, N)));
}

static void test_binary_specials(void)
{
    const float I = INFINITY, N = NAN;
    float a[4] = {N, 1, -I, N}, b[4] = {1, N, 3, -I}, y[4];
    /* numpy.maximum / minimum propagate NaN from either side. */
    CHECK_OK(lf__binary(LF__B_MAX, a, D(1, 1, 1, 4), b, D(1, 1, 1, 4), y, D(1, 1, 1, 4), 1));
    check_same(y, (float[]){N, N, 3, N}, 4, "max");
    CHECK_OK(lf__binary(LF__B_MIN, a, D(1, 1, 1, 4), b, D(1, 1, 1, 4), y, D(1, 1, 1, 4), 1));
    check_same(y, (float[]){N, N, -I, N}, 4, "min");
    CHECK_OK(lf__binary(LF__B_PRELU, a, D(1, 1, 1, 4), b, D(1, 1, 1, 4), y, D(1, 1, 1, 4), 1));
    check_same(y, (float[]){N, 1, -I, N}, 4, "prelu");
    float c[4] = {I, I, 0, 1}, d[4] = {-I, I, 0, 0};
    CHECK_OK(lf__binary(LF__B_ADD, c, D(1, 1, 1, 4), d, D(1, 1, 1, 4), y, D(1, 1, 1, 4), 1));
    check_same(y, (float[]){N, I, 0, 1}, 4, "add");
    CHECK_OK(lf__binary(LF__B_DIV, c, D(1, 1, 1, 4), d, D(1, 1, 1, 4), y, D(1, 1, 1, 4), 1));
    check_same(y, (float[]){N, N, N, I}, 4, "div");
}

static void test_pool_specials(void)
{
    const float I = INFINITY, N = NAN;
    /* One 2x4 plane, 2x2 windows stride 2: {1, NaN, 3, 2} and four NaN. */
    float x[8] = {1, N, N, N, 3, 2, N, N}, y[2];
    lf__pool p = {2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0};
    lf__maxpool(x, D(1, 1, 2, 4), y, D(1, 1, 1, 2), &p, 1);
    check_same(y, (float[]){3, -I}, 2, "maxpool skips NaN");
    /* The NaN first in its window is skipped too (the running max never takes it). */
    float x2[4] = {N, -5, -I, -7}, y2[1];
    lf__pool q = {2, 2, 1, 1, 1, 1, 0, 0, 0, 0, 0};
    lf__maxpool(x2, D(1, 1, 2, 2), y2, D(1, 1, 1, 1), &q, 1);
    check_same(y2, (float[]){-5}, 1, "maxpool NaN first");
    float g[2];
    lf__global_pool(x, D(1, 2, 2, 2), g, 1, 1);
    check_same(g, (float[]){1, 3}, 2, "global max skips NaN");
    /* Averages add: NaN and inf - inf poison the window. */
    lf__avgpool(x, D(1, 1, 2, 4), y, D(1, 1, 1, 2), &p, 1);
    check_same(y, (float[]){N, N}, 2, "avgpool NaN");
    float x3[4] = {I, 1, 1, 1}, x4[4] = {I, -I, 1, 1};
    lf__global_pool(x3, D(1, 1, 2, 2), g, 0, 1);
    lf__global_pool(x4, D(1, 1, 2, 2), g + 1, 0, 1);
    check_same(g, (float[]){I, N}, 2, "global avg inf");
}

static void test_reduce_softmax_specials(void)
{
    const float I = INFINITY, N = NAN;
    float x[8] = {1, N, 3, 2, -I, -I, I, -I}, r[4];
    /* numpy.maximum.reduce and friends propagate NaN. */
    lf__reduce(LF__R_MAX, x, D(1, 1, 4, 2), 1u << 3, r, 1);
    check_same(r, (float[]){N, 3, -I, I}, 4, "reduce max");
    lf__reduce(LF__R_MIN, x, D(1, 1, 4, 2), 1u << 3, r, 1);
    check_same(r, (float[]){N, 2, -I, -I}, 4, "reduce min");
    lf__reduce(LF__R_SUM, x, D(1, 1, 4, 2), 1u << 3, r, 1);
    check_same(r, (float[]){N, 5, -I, N}, 4, "reduce sum");
    lf__reduce(LF__R_MEAN, x, D(1, 1, 4, 2), 1u << 3, r, 1);
    check_same(r, (float[]){N, 2.5f, -I, N}, 4, "reduce mean");

    /* Softmax = exp(x - max) / sum, ONNX's function body: -inf gets 0; a
     * row of -inf only, or with +inf, has inf - inf = NaN. */
    float s[8] = {0, -I, -I, -I, I, 0, N, 1}, y[8];
    CHECK_OK(lf__softmax(s, D(1, 1, 4, 2), 1u << 3, 0, 0, y, 1));
    check_same(y, (float[]){1, 0, N, N, N, N, N, N}, 8, "softmax");
    CHECK_OK(lf__softmax(s, D(1, 1, 4, 2), 1u << 3, 1, 0, y, 1));
    check_same(y, (float[]){0, -I, N, N, N, N, N, N}, 8, "log softmax");
}

/* RMSNormalization as ONNX's reference computes it, x * Reciprocal(Sqrt(
 * ReduceMean(x^2) + eps)): a NaN makes its row NaN; an infinite element
 * makes the mean infinite and the factor 0, so it gives NaN (inf * 0) and
 * the finite elements of its row 0. */
static void test_rmsnorm_specials(void)
{
    const float I = INFINITY, N = NAN;
    float x[8] = {3, 4, 1, N, I, 2, -I, 0}, y[8];
    lf__dims one = {{1, 1, 1, 1}};
    CHECK_OK(lf__rmsnorm(x, D(1, 1, 4, 2), 1u << 3, 0.0f, NULL, one, y, 1));
    /* row (3, 4): mean of squares 12.5 */
    float k = (float)(1.0 / sqrt(12.5));
    check_same(y, (float[]){3 * k, 4 * k, N, N, N, 0, N, 0}, 8, "rmsnorm");
}

int main(void)
{
    test_rmsnorm_specials();
    test_unary_specials();
    test_binary_specials();
    test_pool_specials();
    test_reduce_softmax_specials();
    return lf_test_result();
}

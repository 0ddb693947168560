/* Element-wise binary ops with numpy broadcasting over rank 4 (ONNX Add, Sub,
 * Mul, Div, Pow, Max, Min, PRelu). */
#include <math.h>

#include "planner/exec/kernels.h"

static inline float lf__bin1(lf__binary_kind k, float a, float b)
{
    switch (k) {
    case LF__B_ADD:
        return a + b;
    case LF__B_SUB:
        return a - b;
    case LF__B_MUL:
        return a * b;
    case LF__B_DIV:
        return a / b;
    case LF__B_POW:
        return powf(a, b);
    case LF__B_MAX:
        return a >= b || isnan(a) ? a : b;
    case LF__B_MIN:
        return a <= b || isnan(a) ? a : b;
    case LF__B_PRELU:
        return a >= 0.0f ? a : a * b;
    case LF__B_FIRST:
        return a;
    default:
        return a;
    }
}

/* Strides of x read at y's index: 0 along broadcast axes. */
static int lf__bstrides(lf__dims xd, lf__dims yd, int64_t st[4])
{
    int64_t s = 1;
    for (int i = 3; i >= 0; i--) {
        if (xd.d[i] == yd.d[i])
            st[i] = xd.d[i] == 1 ? 0 : s;
        else if (xd.d[i] == 1)
            st[i] = 0;
        else
            return 0;
        s *= xd.d[i];
    }
    return 1;
}

/* One output row along W with constant input strides; written per op so the
 * compiler vectorises the same-shape case. */
static void lf__bin_row(lf__binary_kind k, const float *a, int64_t sa, const float *b, int64_t sb,
                        float *y, int64_t n)
{
    switch (k) {
    case LF__B_ADD:
        for (int64_t i = 0; i < n; i++)
            y[i] = a[i * sa] + b[i * sb];
        return;
    case LF__B_MUL:
        for (int64_t i = 0; i < n; i++)
            y[i] = a[i * sa] * b[i * sb];
        return;
    default:
        for (int64_t i = 0; i < n; i++)
            y[i] = lf__bin1(k, a[i * sa], b[i * sb]);
        return;
    }
}

typedef struct lf__binary_job {
    lf__binary_kind k;
    const float *a, *b;
    float *y;
    lf__dims yd;
    int64_t sa[4], sb[4];
} lf__binary_job;

static void lf__binary_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__binary_job *j = ctx;
    const lf__dims yd = j->yd;
    int64_t wn = yd.d[3];
    for (int64_t r = lo; r < hi; r++) {
        int64_t h = r % yd.d[2], c = (r / yd.d[2]) % yd.d[1], n = r / (yd.d[2] * yd.d[1]);
        const float *ar = j->a + n * j->sa[0] + c * j->sa[1] + h * j->sa[2];
        const float *br = j->b + n * j->sb[0] + c * j->sb[1] + h * j->sb[2];
        lf__bin_row(j->k, ar, j->sa[3], br, j->sb[3], j->y + r * wn, wn);
    }
}

lf_status lf__binary(lf__binary_kind k, const float *a, lf__dims ad, const float *b, lf__dims bd,
                     float *y, lf__dims yd, int nt)
{
    int64_t sa[4], sb[4];
    if (!lf__bstrides(ad, yd, sa) || !lf__bstrides(bd, yd, sb))
        return lf_set_error(LF_EGRAPH, "operands %lldx%lldx%lldx%lld and %lldx%lldx%lldx%lld do not broadcast to %lldx%lldx%lldx%lld",
                            (long long)ad.d[0], (long long)ad.d[1], (long long)ad.d[2], (long long)ad.d[3],
                            (long long)bd.d[0], (long long)bd.d[1], (long long)bd.d[2], (long long)bd.d[3],
                            (long long)yd.d[0], (long long)yd.d[1], (long long)yd.d[2], (long long)yd.d[3]);
    int64_t rows = yd.d[0] * yd.d[1] * yd.d[2];
    lf__binary_job j = {k, a, b, y, yd, {sa[0], sa[1], sa[2], sa[3]}, {sb[0], sb[1], sb[2], sb[3]}};
    lf__parallel(rows, lf__threads_for(rows * yd.d[3], nt), lf__binary_range, &j);
    return LF_OK;
}

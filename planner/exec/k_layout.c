/* Data movement: Concat, Slice, Pad and Transpose over rank-4 tensors. */
#include <string.h>

#include "planner/exec/kernels.h"

static void lf__strides(lf__dims d, int64_t st[4])
{
    st[3] = 1;
    for (int i = 2; i >= 0; i--)
        st[i] = st[i + 1] * d.d[i + 1];
}

typedef struct lf__concat_job {
    const float *const *xs;
    const lf__dims *xds;
    int32_t n;
    int axis;
    float *y;
    int64_t ychunk;
} lf__concat_job;

static void lf__concat_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__concat_job *j = ctx;
    for (int64_t o = lo; o < hi; o++) {
        int64_t off = 0;
        for (int32_t k = 0; k < j->n; k++) {
            int64_t chunk = 1;
            for (int i = j->axis; i < 4; i++)
                chunk *= j->xds[k].d[i];
            if (chunk)
                memcpy(j->y + o * j->ychunk + off, j->xs[k] + o * chunk, (size_t)chunk * sizeof *j->y);
            off += chunk;
        }
    }
}

void lf__concat(const float *const *xs, const lf__dims *xds, int32_t n, int axis, float *y,
                lf__dims yd, int nt)
{
    int64_t outer = 1, ychunk = 1;
    for (int i = 0; i < 4; i++)
        *(i < axis ? &outer : &ychunk) *= yd.d[i];
    lf__concat_job j = {xs, xds, n, axis, y, ychunk};
    lf__parallel(outer, lf__threads_for(outer * ychunk, nt), lf__concat_range, &j);
}

typedef struct lf__slice_job {
    const float *x;
    float *y;
    lf__dims yd;
    const int64_t *start, *step, *xs;
} lf__slice_job;

static void lf__slice_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__slice_job *j = ctx;
    const int64_t *start = j->start, *step = j->step, *xs = j->xs;
    lf__dims yd = j->yd;
    int64_t W = yd.d[3];
    for (int64_t r = lo; r < hi; r++) {
        int64_t h = r % yd.d[2], c = (r / yd.d[2]) % yd.d[1], n = r / (yd.d[2] * yd.d[1]);
        const float *xr = j->x + (start[0] + n * step[0]) * xs[0] + (start[1] + c * step[1]) * xs[1] +
                          (start[2] + h * step[2]) * xs[2] + start[3];
        float *yr = j->y + r * W;
        for (int64_t w = 0; w < W; w++)
            yr[w] = xr[w * step[3]];
    }
}

void lf__slice(const float *x, lf__dims xd, const int64_t start[4], const int64_t step[4], float *y,
               lf__dims yd, int nt)
{
    int64_t xs[4];
    lf__strides(xd, xs);
    int64_t rows = yd.d[0] * yd.d[1] * yd.d[2], W = yd.d[3];
    lf__slice_job j = {x, y, yd, start, step, xs};
    lf__parallel(rows, lf__threads_for(rows * W, nt), lf__slice_range, &j);
}

/* Maps an index of the padded axis onto the input axis of length n, or -1
 * for the constant value. */
static int64_t lf__pad_index(int64_t i, int64_t n, lf__pad_mode mode)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == LF__PAD_CONSTANT || n == 0)
        return -1;
    if (mode == LF__PAD_EDGE)
        return i < 0 ? 0 : n - 1;
    if (n == 1)
        return 0;
    /* Reflection without repeating the edge, period 2(n-1), as numpy.pad. */
    int64_t period = 2 * (n - 1);
    i %= period;
    if (i < 0)
        i += period;
    return i < n ? i : period - i;
}

typedef struct lf__pad_job {
    const float *x;
    lf__dims xd;
    const int64_t *begin;
    lf__pad_mode mode;
    float value;
    float *y;
    lf__dims yd;
    const int64_t *xs;
} lf__pad_job;

static void lf__pad_range(void *ctx, int64_t lo, int64_t hi);

lf_status lf__pad(const float *x, lf__dims xd, const int64_t begin[4], lf__pad_mode mode,
                  float value, float *y, lf__dims yd, int nt)
{
    if (mode == LF__PAD_REFLECT)
        for (int i = 0; i < 4; i++)
            if (xd.d[i] == 0 && yd.d[i] > 0)
                return lf_set_error(LF_EGRAPH, "Pad: cannot reflect an empty axis %d", i);
    int64_t xs[4];
    lf__strides(xd, xs);
    int64_t rows = yd.d[0] * yd.d[1] * yd.d[2], W = yd.d[3];
    lf__pad_job j = {x, xd, begin, mode, value, y, yd, xs};
    lf__parallel(rows, lf__threads_for(rows * W, nt), lf__pad_range, &j);
    return LF_OK;
}

/* Rows lo..hi-1 of the padded output. */
static void lf__pad_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__pad_job *j = ctx;
    const float *x = j->x;
    lf__dims xd = j->xd, yd = j->yd;
    const int64_t *begin = j->begin, *xs = j->xs;
    lf__pad_mode mode = j->mode;
    float value = j->value, *y = j->y;
    int64_t W = yd.d[3];
    for (int64_t r = lo; r < hi; r++) {
        int64_t idx[3] = {r / (yd.d[2] * yd.d[1]), (r / yd.d[2]) % yd.d[1], r % yd.d[2]};
        int64_t base = 0;
        int outside = 0;
        for (int a = 0; a < 3; a++) {
            int64_t s = lf__pad_index(idx[a] - begin[a], xd.d[a], mode);
            if (s < 0)
                outside = 1;
            else
                base += s * xs[a];
        }
        float *yr = y + r * W;
        for (int64_t w = 0; w < W; w++) {
            int64_t s = outside ? -1 : lf__pad_index(w - begin[3], xd.d[3], mode);
            yr[w] = s < 0 ? value : x[base + s];
        }
    }
}

typedef struct lf__transpose_job {
    const float *x;
    float *y;
    const int64_t *yd, *st;
} lf__transpose_job;

static void lf__transpose_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__transpose_job *j = ctx;
    const int64_t *yd = j->yd, *st = j->st;
    int64_t W = yd[3];
    for (int64_t r = lo; r < hi; r++) {
        int64_t h = r % yd[2], c = (r / yd[2]) % yd[1], n = r / (yd[2] * yd[1]);
        const float *xr = j->x + n * st[0] + c * st[1] + h * st[2];
        float *yr = j->y + r * W;
        for (int64_t w = 0; w < W; w++)
            yr[w] = xr[w * st[3]];
    }
}

void lf__transpose(const float *x, lf__dims xd, const int perm[4], float *y, int nt)
{
    int64_t xs[4], yd[4], st[4];
    lf__strides(xd, xs);
    for (int i = 0; i < 4; i++) {
        yd[i] = xd.d[perm[i]];
        st[i] = xs[perm[i]];
    }
    int64_t rows = yd[0] * yd[1] * yd[2], W = yd[3];
    lf__transpose_job j = {x, y, yd, st};
    lf__parallel(rows, lf__threads_for(rows * W, nt), lf__transpose_range, &j);
}

/* Softmax / LogSoftmax over a set of axes, and the Reduce* family. Each
 * output element (or softmax row) is owned by one thread and accumulated in
 * index order in double. */
#include <math.h>
#include <stdlib.h>

#include "planner/exec/kernels.h"

/* Offsets of every position of the axes selected by `sel` (row-major). */
static int64_t *lf__positions(lf__dims d, unsigned sel, int64_t *count)
{
    int64_t st[4], ext[4], n = 1;
    st[3] = 1;
    for (int i = 2; i >= 0; i--)
        st[i] = st[i + 1] * d.d[i + 1];
    for (int i = 0; i < 4; i++) {
        ext[i] = (sel >> i) & 1u ? d.d[i] : 1;
        n *= ext[i];
    }
    int64_t *off = malloc((size_t)(n > 0 ? n : 1) * sizeof *off);
    if (!off)
        return NULL;
    int64_t k = 0;
    for (int64_t a = 0; a < ext[0]; a++)
        for (int64_t b = 0; b < ext[1]; b++)
            for (int64_t c = 0; c < ext[2]; c++)
                for (int64_t e = 0; e < ext[3]; e++)
                    off[k++] = a * st[0] + b * st[1] + c * st[2] + e * st[3];
    *count = n;
    return off;
}

lf_status lf__mask_offsets(lf__dims d, unsigned mask, int64_t **outer, int64_t *n_outer,
                           int64_t **inner, int64_t *n_inner)
{
    *outer = lf__positions(d, ~mask & 15u, n_outer);
    *inner = lf__positions(d, mask & 15u, n_inner);
    if (*outer && *inner)
        return LF_OK;
    free(*outer);
    free(*inner);
    *outer = *inner = NULL;
    return lf_set_error(LF_ENOMEM, "out of memory for axis offsets");
}

typedef struct lf__softmax_job {
    const float *x;
    float *y;
    lf__dims xd;
    const int64_t *outer;
    const int64_t *inner;
    int64_t ni;
    int64_t nq;
    int causal;
    int log_softmax;
} lf__softmax_job;

/* Rows lo..hi-1, each in double in index order. */
static void lf__softmax_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__softmax_job *j = ctx;
    const float *x = j->x;
    float *y = j->y;
    lf__dims xd = j->xd;
    const int64_t *outer = j->outer;
    const int64_t *inner = j->inner;
    int64_t ni = j->ni;
    int64_t nq = j->nq;
    int causal = j->causal;
    int log_softmax = j->log_softmax;
    for (int64_t o = lo; o < hi; o++) {
        const float *xr = x + outer[o];
        float *yr = y + outer[o];
        /* causal: the keys this row sees are the first `seen` (W is the only axis) */
        int64_t seen = causal ? (outer[o] / xd.d[3]) % xd.d[2] % nq + xd.d[3] - nq + 1 : ni;
        float m = -INFINITY;
        for (int64_t i = 0; i < seen; i++)
            if (xr[inner[i]] > m)
                m = xr[inner[i]];
        double sum = 0.0;
        for (int64_t i = 0; i < seen; i++)
            sum += exp((double)xr[inner[i]] - m);
        if (log_softmax) {
            double ls = log(sum);
            for (int64_t i = 0; i < seen; i++)
                yr[inner[i]] = (float)((double)xr[inner[i]] - m - ls);
        } else {
            for (int64_t i = 0; i < seen; i++)
                yr[inner[i]] = (float)(exp((double)xr[inner[i]] - m) / sum);
        }
        for (int64_t i = seen; i < ni; i++)
            yr[inner[i]] = log_softmax ? -INFINITY : 0.0f;
    }
}

lf_status lf__softmax(const float *x, lf__dims xd, unsigned mask, int log_softmax, int causal,
                      float *y, int nt)
{
    int64_t *outer, *inner, no, ni;
    if (causal && (mask != (1u << 3) || causal < 0 || xd.d[2] % causal != 0 ||
                   xd.d[2] / causal > xd.d[3]))
        return lf_set_error(LF_EINVAL, "causal softmax: over W only, with H (%lld) a multiple "
                                       "of %d stacks of at most W (%lld) query rows",
                            (long long)xd.d[2], causal, (long long)xd.d[3]);
    int64_t nq = causal ? xd.d[2] / causal : 0;
    lf_status st = lf__mask_offsets(xd, mask, &outer, &no, &inner, &ni);
    if (st)
        return st;
    lf__softmax_job j = {x, y, xd, outer, inner, ni, nq, causal, log_softmax};
    lf__parallel(no, lf__threads_for(no * ni * 8, nt), lf__softmax_range, &j);
    free(outer);
    free(inner);
    return LF_OK;
}

typedef struct lf__reduce_job {
    lf__reduce_kind k;
    const float *x;
    float *y;
    const int64_t *yd;
    const int64_t *xs;
    const int64_t *rd;
    int64_t count;
} lf__reduce_job;

/* Outputs lo..hi-1. */
static void lf__reduce_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__reduce_job *j = ctx;
    lf__reduce_kind k = j->k;
    const float *x = j->x;
    float *y = j->y;
    const int64_t *yd = j->yd;
    const int64_t *xs = j->xs;
    const int64_t *rd = j->rd;
    int64_t count = j->count;
    for (int64_t o = lo; o < hi; o++) {
        int64_t i3 = o % yd[3], i2 = (o / yd[3]) % yd[2], i1 = (o / (yd[3] * yd[2])) % yd[1];
        int64_t i0 = o / (yd[3] * yd[2] * yd[1]);
        const float *base = x + i0 * xs[0] + i1 * xs[1] + i2 * xs[2] + i3 * xs[3];
        double acc = k == LF__R_PROD ? 1.0 : (k == LF__R_MAX ? -INFINITY : (k == LF__R_MIN ? INFINITY : 0.0));
        for (int64_t a = 0; a < rd[0]; a++)
            for (int64_t b = 0; b < rd[1]; b++)
                for (int64_t c = 0; c < rd[2]; c++)
                    for (int64_t d = 0; d < rd[3]; d++) {
                        double v = base[a * xs[0] + b * xs[1] + c * xs[2] + d * xs[3]];
                        switch (k) {
                        case LF__R_MAX:
                            acc = v > acc || isnan(v) ? v : acc;
                            break;
                        case LF__R_MIN:
                            acc = v < acc || isnan(v) ? v : acc;
                            break;
                        case LF__R_PROD:
                            acc *= v;
                            break;
                        case LF__R_SUMSQUARE:
                        case LF__R_L2:
                            acc += v * v;
                            break;
                        default:
                            acc += v;
                            break;
                        }
                    }
        if (k == LF__R_MEAN)
            acc = count ? acc / (double)count : NAN;
        else if (k == LF__R_L2)
            acc = sqrt(acc);
        y[o] = (float)acc;
    }
}

void lf__reduce(lf__reduce_kind k, const float *x, lf__dims xd, unsigned axes_mask, float *y, int nt)
{
    int64_t yd[4], xs[4], rd[4], count = 1;
    xs[3] = 1;
    for (int i = 2; i >= 0; i--)
        xs[i] = xs[i + 1] * xd.d[i + 1];
    for (int i = 0; i < 4; i++) {
        int red = (axes_mask >> i) & 1u;
        yd[i] = red ? 1 : xd.d[i];
        rd[i] = red ? xd.d[i] : 1;
        count *= rd[i];
    }
    int64_t outs = yd[0] * yd[1] * yd[2] * yd[3];
    lf__reduce_job j = {k, x, y, yd, xs, rd, count};
    lf__parallel(outs, lf__threads_for(outs * count, nt), lf__reduce_range, &j);
}

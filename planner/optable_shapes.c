/* Shape inference of every op type and the weight constants an op implies
 * when it is built from its attributes alone. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "planner/optable_internal.h"

static int32_t lf__one(int32_t v) { return v > 0 ? v : 1; }

static void lf__dims(const lf_shape *s, int64_t d[4])
{
    d[0] = s->n;
    d[1] = s->c;
    d[2] = s->h;
    d[3] = s->w;
}

static lf_shape lf__shape(const int64_t d[4]) { return (lf_shape){d[0], d[1], d[2], d[3]}; }

int lf__same(const lf_shape *a, const lf_shape *b)
{
    return a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w;
}

/* Shape a broadcasts to b without growing it: each dim equal or 1 (ONNX's
 * unidirectional broadcast, in the 4-D frame). */
int lf__broadcasts_to(const lf_shape *a, const lf_shape *b)
{
    return (a->n == 1 || a->n == b->n) && (a->c == 1 || a->c == b->c) && (a->h == 1 || a->h == b->h) &&
           (a->w == 1 || a->w == b->w);
}

/* The dims of an axes mask; 0 means channels. */
static int32_t lf__mask(int32_t axes) { return axes ? axes : LF_AXES(LF_DIM_C); }

/* The one dim of a single-axis mask, or -1. */
static int lf__single_dim(int32_t axes)
{
    int32_t m = lf__mask(axes);
    for (int d = 0; d < 4; d++)
        if (m == LF_AXES(d))
            return d;
    return -1;
}

static const char lf__dim_names[4] = {'N', 'C', 'H', 'W'};

/* Output length of a sliding window (conv or pool) along one axis, following
 * the framework rule: floor, or ceil where the last window must still start
 * inside the padded input. */
static int64_t lf__window_out(int64_t in, int32_t k, int32_t s, int32_t d, int32_t p0, int32_t p1,
                              int32_t ceil_mode)
{
    int64_t span = in + p0 + p1 - (int64_t)d * (k - 1) - 1;
    if (span < 0)
        return 0;
    int64_t out = ceil_mode ? (span + s - 1) / s + 1 : span / s + 1;
    if (ceil_mode && (out - 1) * s >= in + p0)
        out--;
    return out;
}

lf_status lf__fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return LF_EGRAPH;
}

void lf__shape_str(const lf_shape *s, char *buf, size_t len)
{
    snprintf(buf, len, "%lldx%lldx%lldx%lld", (long long)s->n, (long long)s->c, (long long)s->h,
             (long long)s->w);
}

/* ---- implied constants, one function per family (optable.c names them) -- */

/* A bias per output channel when the op has one (or a folded BatchNorm). */
static int32_t lf__bias(const lf_attrs *a, lf_shape shapes[4], const char *suffixes[4], int32_t n)
{
    if (a->has_bias || a->folded_bn) {
        shapes[n] = (lf_shape){1, a->out_channels, 1, 1};
        suffixes[n++] = "bias";
    }
    return n;
}

int32_t lf__consts_conv(const lf_attrs *a, const lf_shape *x, lf_shape shapes[4],
                        const char *suffixes[4])
{
    shapes[0] = (lf_shape){a->out_channels, x->c / lf__one(a->groups), lf__one(a->kh), lf__one(a->kw)};
    suffixes[0] = "weight";
    return lf__bias(a, shapes, suffixes, 1);
}

int32_t lf__consts_conv_transpose(const lf_attrs *a, const lf_shape *x, lf_shape shapes[4],
                                  const char *suffixes[4])
{
    shapes[0] = (lf_shape){x->c, a->out_channels / lf__one(a->groups), lf__one(a->kh), lf__one(a->kw)};
    suffixes[0] = "weight";
    return lf__bias(a, shapes, suffixes, 1);
}

int32_t lf__consts_gemm(const lf_attrs *a, const lf_shape *x, lf_shape shapes[4],
                        const char *suffixes[4])
{
    shapes[0] = (lf_shape){a->out_channels, x->c * x->h * x->w, 1, 1};
    suffixes[0] = "weight";
    return lf__bias(a, shapes, suffixes, 1);
}

int32_t lf__consts_batchnorm(const lf_attrs *a, const lf_shape *x, lf_shape shapes[4],
                             const char *suffixes[4])
{
    (void)a;
    shapes[0] = (lf_shape){1, x->c, 1, 1};
    suffixes[0] = "scale";
    shapes[1] = (lf_shape){1, x->c, 1, 1};
    suffixes[1] = "shift";
    return 2;
}

int32_t lf__consts_layernorm(const lf_attrs *a, const lf_shape *x, lf_shape shapes[4],
                             const char *suffixes[4])
{
    int64_t d[4];
    int32_t n = 0;
    lf__dims(x, d);
    int32_t m = lf__mask(a->axes);
    for (int k = 0; k < 4; k++)
        if (!(m & LF_AXES(k)))
            d[k] = 1;
    shapes[n] = lf__shape(d);
    suffixes[n++] = "scale";
    if (a->has_bias) {
        shapes[n] = lf__shape(d);
        suffixes[n++] = "bias";
    }
    return n;
}

static lf_status lf__infer_window(lf_op_type t, const lf_attrs *a, const lf_shape *x, lf_shape *out,
                                  char *err, size_t errlen)
{
    int32_t kh = lf__one(a->kh), kw = lf__one(a->kw), sh = lf__one(a->sh), sw = lf__one(a->sw);
    int32_t dh = lf__one(a->dh), dw = lf__one(a->dw);
    *out = *x;
    if (t == LF_OP_CONV) {
        int32_t g = lf__one(a->groups);
        if (a->out_channels <= 0)
            return lf__fail(err, errlen, "out_channels must be positive, got %d", (int)a->out_channels);
        if (x->c % g != 0 || a->out_channels % g != 0)
            return lf__fail(err, errlen, "%lld input channels or %d output channels not divisible by groups %d",
                            (long long)x->c, (int)a->out_channels, (int)g);
        out->c = a->out_channels;
    }
    out->h = lf__window_out(x->h, kh, sh, dh, a->pad_top, a->pad_bottom, a->ceil_mode);
    out->w = lf__window_out(x->w, kw, sw, dw, a->pad_left, a->pad_right, a->ceil_mode);
    if (out->h <= 0 || out->w <= 0)
        return lf__fail(err, errlen, "window larger than the padded %lldx%lld input", (long long)x->h,
                            (long long)x->w);
    return LF_OK;
}

static lf_status lf__infer_conv_transpose(const lf_attrs *a, const lf_shape *x, lf_shape *out,
                                          char *err, size_t errlen)
{
    int32_t g = lf__one(a->groups);
    if (a->out_channels <= 0)
        return lf__fail(err, errlen, "out_channels must be positive, got %d", (int)a->out_channels);
    if (x->c % g != 0 || a->out_channels % g != 0)
        return lf__fail(err, errlen, "%lld input channels or %d output channels not divisible by groups %d",
                        (long long)x->c, (int)a->out_channels, (int)g);
    int32_t sh = lf__one(a->sh), sw = lf__one(a->sw), dh = lf__one(a->dh), dw = lf__one(a->dw);
    if (a->out_pad_h < 0 || a->out_pad_w < 0 || (a->out_pad_h >= sh && a->out_pad_h >= dh) ||
        (a->out_pad_w >= sw && a->out_pad_w >= dw))
        return lf__fail(err, errlen, "output padding %dx%d must be below the stride or dilation",
                        (int)a->out_pad_h, (int)a->out_pad_w);
    *out = *x;
    out->c = a->out_channels;
    out->h = (x->h - 1) * sh - a->pad_top - a->pad_bottom + (int64_t)dh * (lf__one(a->kh) - 1) +
             a->out_pad_h + 1;
    out->w = (x->w - 1) * sw - a->pad_left - a->pad_right + (int64_t)dw * (lf__one(a->kw) - 1) +
             a->out_pad_w + 1;
    if (out->h <= 0 || out->w <= 0)
        return lf__fail(err, errlen, "padding leaves an empty %lldx%lld output", (long long)out->h,
                        (long long)out->w);
    return LF_OK;
}

/* Numpy broadcasting over the four dims: every dim equal or 1. The largest
 * operand sets the shape; dims where it is 1 take the others'. */
static lf_status lf__infer_broadcast(const lf_shape *in, int32_t n_in, lf_shape *out, char *err,
                                     size_t errlen)
{
    int32_t big = 0;
    for (int32_t i = 1; i < n_in; i++)
        if (in[i].n * in[i].c * in[i].h * in[i].w > in[big].n * in[big].c * in[big].h * in[big].w)
            big = i;
    int64_t o[4];
    lf__dims(&in[big], o);
    for (int32_t i = 0; i < n_in; i++) {
        int64_t d[4];
        lf__dims(&in[i], d);
        for (int k = 0; k < 4; k++)
            if (o[k] == 1)
                o[k] = d[k];
    }
    for (int32_t i = 0; i < n_in; i++) {
        int64_t d[4];
        lf__dims(&in[i], d);
        for (int k = 0; k < 4; k++)
            if (d[k] != 1 && d[k] != o[k])
                return lf__fail(err, errlen,
                                "operand %d shape %lldx%lldx%lld%s does not match %lldx%lldx%lld",
                                (int)i, (long long)d[1], (long long)d[2], (long long)d[3],
                                k == 0 ? " (batch differs)" : "", (long long)o[1],
                                (long long)o[2], (long long)o[3]);
    }
    *out = lf__shape(o);
    return LF_OK;
}

static lf_status lf__infer_matmul(const lf_attrs *a, const lf_shape *in, lf_shape *out, char *err,
                                  size_t errlen)
{
    const lf_shape *A = &in[0], *B = &in[1];
    int64_t m = a->trans_a ? A->w : A->h, k = a->trans_a ? A->h : A->w;
    int64_t kb = a->trans_b ? B->w : B->h, p = a->trans_b ? B->h : B->w;
    if (k != kb)
        return lf__fail(err, errlen, "inner dims differ: A gives %lld, B gives %lld", (long long)k,
                        (long long)kb);
    if ((A->n != B->n && A->n != 1 && B->n != 1) || (A->c != B->c && A->c != 1 && B->c != 1))
        return lf__fail(err, errlen, "batch dims %lldx%lld and %lldx%lld do not broadcast",
                        (long long)A->n, (long long)A->c, (long long)B->n, (long long)B->c);
    *out = (lf_shape){A->n > B->n ? A->n : B->n, A->c > B->c ? A->c : B->c, m, p};
    return LF_OK;
}

static lf_status lf__infer_concat(const lf_attrs *a, const lf_shape *in, int32_t n_in,
                                  lf_shape *out, char *err, size_t errlen)
{
    int axis = lf__single_dim(a->axes);
    if (axis < 0)
        return lf__fail(err, errlen, "concat needs exactly one axis, got mask %d", (int)a->axes);
    int64_t d0[4], sum = 0;
    lf__dims(&in[0], d0);
    for (int32_t i = 0; i < n_in; i++) {
        int64_t d[4];
        lf__dims(&in[i], d);
        for (int k = 0; k < 4; k++)
            if (k != axis && d[k] != d0[k]) {
                if (axis == LF_DIM_C && k >= LF_DIM_H)
                    return lf__fail(err, errlen, "concat operand %d is %lldx%lld, operand 0 is %lldx%lld",
                                    (int)i, (long long)in[i].h, (long long)in[i].w,
                                    (long long)in[0].h, (long long)in[0].w);
                return lf__fail(err, errlen, "concat operand %d has %c = %lld, operand 0 has %lld",
                                (int)i, lf__dim_names[k], (long long)d[k], (long long)d0[k]);
            }
        sum += d[axis];
    }
    d0[axis] = sum;
    *out = lf__shape(d0);
    return LF_OK;
}

static lf_status lf__infer_slice(const lf_attrs *a, const lf_shape *x, lf_shape *out, char *err,
                                 size_t errlen)
{
    int axis = lf__single_dim(a->axes);
    if (axis < 0)
        return lf__fail(err, errlen, "slice needs exactly one axis, got mask %d", (int)a->axes);
    int64_t d[4];
    lf__dims(x, d);
    if (a->slice_step < 0)
        return lf__fail(err, errlen, "slice step %d is negative", (int)a->slice_step);
    if (a->slice_begin < 0 || a->slice_end <= a->slice_begin || a->slice_end > d[axis]) {
        if (axis == LF_DIM_C)
            return lf__fail(err, errlen, "channel slice [%d, %d) outside the %lld input channels",
                            (int)a->slice_begin, (int)a->slice_end, (long long)d[axis]);
        return lf__fail(err, errlen, "slice [%d, %d) along %c outside the input's %lld",
                        (int)a->slice_begin, (int)a->slice_end, lf__dim_names[axis],
                        (long long)d[axis]);
    }
    int64_t step = lf__one(a->slice_step);
    d[axis] = (a->slice_end - a->slice_begin + step - 1) / step;
    *out = lf__shape(d);
    return LF_OK;
}

static lf_status lf__infer_reshape(const lf_attrs *a, const lf_shape *x, lf_shape *out, char *err,
                                   size_t errlen)
{
    int64_t src[4], dims[4] = {a->shape_n, a->shape_c, a->shape_h, a->shape_w};
    lf__dims(x, src);
    int64_t total = src[0] * src[1] * src[2] * src[3], known = 1;
    int infer = -1;
    for (int i = 0; i < 4; i++) {
        if (dims[i] == 0)
            dims[i] = src[i];
        if (dims[i] == -1) {
            if (infer >= 0)
                return lf__fail(err, errlen, "reshape with two inferred dims");
            infer = i;
        } else if (dims[i] < 0) {
            return lf__fail(err, errlen, "reshape dim %lld is negative", (long long)dims[i]);
        } else {
            known *= dims[i];
        }
    }
    if (infer >= 0 && known > 0 && total % known == 0)
        dims[infer] = total / known;
    int64_t got = dims[0] * dims[1] * dims[2] * dims[3];
    if (got != total)
        return lf__fail(err, errlen, "reshape to %lld elements from %lld",
                        (long long)(got / (dims[0] ? dims[0] : 1)),
                        (long long)(total / (src[0] ? src[0] : 1)));
    *out = lf__shape(dims);
    return LF_OK;
}

static lf_status lf__infer_transpose(const lf_attrs *a, const lf_shape *x, lf_shape *out, char *err,
                                     size_t errlen)
{
    int seen = 0;
    for (int i = 0; i < 4; i++) {
        if (a->perm[i] < 0 || a->perm[i] > 3 || (seen & (1 << a->perm[i])))
            return lf__fail(err, errlen, "perm [%d, %d, %d, %d] is not a permutation of the 4 dims",
                            (int)a->perm[0], (int)a->perm[1], (int)a->perm[2], (int)a->perm[3]);
        seen |= 1 << a->perm[i];
    }
    int64_t d[4], o[4];
    lf__dims(x, d);
    for (int i = 0; i < 4; i++)
        o[i] = d[a->perm[i]];
    *out = lf__shape(o);
    return LF_OK;
}

static lf_status lf__infer_expand(const lf_attrs *a, const lf_shape *x, lf_shape *out, char *err,
                                  size_t errlen)
{
    int64_t d[4], t[4] = {a->shape_n, a->shape_c, a->shape_h, a->shape_w};
    lf__dims(x, d);
    for (int k = 0; k < 4; k++) {
        if (t[k] < 0)
            return lf__fail(err, errlen, "expand target %c = %lld is negative", lf__dim_names[k],
                            (long long)t[k]);
        if (t[k] == 0)
            t[k] = d[k];
        if (d[k] != 1 && d[k] != t[k])
            return lf__fail(err, errlen, "cannot expand %c = %lld to %lld", lf__dim_names[k],
                            (long long)d[k], (long long)t[k]);
    }
    *out = lf__shape(t);
    return LF_OK;
}

/* ---- shape inference, one function per family (optable.c names them) --- */

lf_status lf__infer_input(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                          lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)in, (void)n_in;
    out->n = lf__one(a->batch);
    out->c = a->in_c;
    out->h = a->in_h;
    out->w = a->in_w;
    if (a->in_c <= 0 || a->in_h <= 0 || a->in_w <= 0)
        return lf__fail(err, errlen, "input shape must be positive, got %dx%dx%d", (int)a->in_c,
                        (int)a->in_h, (int)a->in_w);
    return LF_OK;
}

lf_status lf__infer_sliding(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                            lf_shape *out, char *err, size_t errlen)
{
    (void)n_in;
    return lf__infer_window(t, a, &in[0], out, err, errlen);
}

lf_status lf__infer_transposed_conv(lf_op_type t, const lf_attrs *a, const lf_shape *in,
                                    int32_t n_in, lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)n_in;
    return lf__infer_conv_transpose(a, &in[0], out, err, errlen);
}

lf_status lf__infer_gemm(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                         lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)n_in;
    if (a->out_channels <= 0)
        return lf__fail(err, errlen, "out_channels must be positive, got %d", (int)a->out_channels);
    *out = (lf_shape){in[0].n, a->out_channels, 1, 1};
    return LF_OK;
}

lf_status lf__infer_mm(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                       lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)n_in;
    return lf__infer_matmul(a, in, out, err, errlen);
}

lf_status lf__infer_elementwise(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                                lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)a;
    return lf__infer_broadcast(in, n_in, out, err, errlen);
}

lf_status lf__infer_prelu(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                          lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)a;
    /* the slope broadcasts to X, which keeps its shape */
    lf_status st = lf__infer_broadcast(in, n_in, out, err, errlen);
    if (st == LF_OK && (out->n != in[0].n || out->c != in[0].c || out->h != in[0].h ||
                        out->w != in[0].w))
        return lf__fail(err, errlen, "the slope is larger than X");
    return st;
}

lf_status lf__infer_cat(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                        lf_shape *out, char *err, size_t errlen)
{
    (void)t;
    return lf__infer_concat(a, in, n_in, out, err, errlen);
}

lf_status lf__infer_slicing(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                            lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)n_in;
    return lf__infer_slice(a, &in[0], out, err, errlen);
}

lf_status lf__infer_global_pool(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                                lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)a, (void)n_in, (void)err, (void)errlen;
    *out = (lf_shape){in[0].n, in[0].c, 1, 1};
    return LF_OK;
}

lf_status lf__infer_reduce(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                           lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)n_in, (void)err, (void)errlen;
    int64_t d[4];
    lf__dims(&in[0], d);
    for (int k = 0; k < 4; k++)
        if (lf__mask(a->axes) & LF_AXES(k))
            d[k] = 1;
    *out = lf__shape(d);
    return LF_OK;
}

lf_status lf__infer_pad(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                        lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)n_in;
    if (a->pad_top < 0 || a->pad_bottom < 0 || a->pad_left < 0 || a->pad_right < 0)
        return lf__fail(err, errlen, "negative padding");
    if (a->pad_mode == LF_PAD_REFLECT &&
        (a->pad_top >= in[0].h || a->pad_bottom >= in[0].h || a->pad_left >= in[0].w ||
         a->pad_right >= in[0].w))
        return lf__fail(err, errlen, "reflect padding must be smaller than the input");
    *out = in[0];
    out->h += a->pad_top + a->pad_bottom;
    out->w += a->pad_left + a->pad_right;
    return LF_OK;
}

lf_status lf__infer_resize(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                           lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)n_in;
    if (a->linear < 0 || a->linear > 2)
        return lf__fail(err, errlen, "resize mode %d is not nearest (0), linear (1) or cubic (2)",
                        (int)a->linear);
    *out = in[0];
    if (a->out_h > 0 && a->out_w > 0) {
        out->h = a->out_h;
        out->w = a->out_w;
    } else if (a->scale > 0) {
        out->h = in[0].h * a->scale;
        out->w = in[0].w * a->scale;
    } else {
        return lf__fail(err, errlen, "resize needs an output size or a positive scale");
    }
    return LF_OK;
}

lf_status lf__infer_flatten(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                            lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)a, (void)n_in, (void)err, (void)errlen;
    *out = (lf_shape){in[0].n, in[0].c * in[0].h * in[0].w, 1, 1};
    return LF_OK;
}

lf_status lf__infer_reshaping(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                              lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)n_in;
    return lf__infer_reshape(a, &in[0], out, err, errlen);
}

lf_status lf__infer_permute(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                            lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)n_in;
    return lf__infer_transpose(a, &in[0], out, err, errlen);
}

lf_status lf__infer_expanding(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                              lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)n_in;
    return lf__infer_expand(a, &in[0], out, err, errlen);
}

lf_status lf__infer_channel_shuffle(lf_op_type t, const lf_attrs *a, const lf_shape *in,
                                    int32_t n_in, lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)n_in;
    if (a->groups < 2 || in[0].c % a->groups != 0)
        return lf__fail(err, errlen, "%lld channels do not split into %d groups (at least 2)",
                        (long long)in[0].c, (int)a->groups);
    *out = in[0];
    return LF_OK;
}

/* Gather (table {1, 1, V, D}, indices): one table row per index, the indices
 * in row-major order becoming the output's rows {N, 1, C*H*W, D} (tokens on H,
 * DESIGN §16). */
lf_status lf__infer_gather(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                           lf_shape *out, char *err, size_t errlen)
{
    (void)t, (void)a;
    if (n_in != 2 || in[0].n != 1 || in[0].c != 1 || in[0].h < 1 || in[0].w < 1)
        return lf__fail(err, errlen, "the table must be 1x1xVxD (one row per id)");
    *out = (lf_shape){in[1].n, 1, in[1].c * in[1].h * in[1].w, in[0].w};
    return LF_OK;
}

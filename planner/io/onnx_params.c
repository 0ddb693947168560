/* Parameter decoding that shape inference (onnx_shape.c), the op table's
 * Slice and Resize decoding (onnx_ops.c), folding and lowering share: axes,
 * broadcasting, constant inputs, int lists from an attribute or an input,
 * and the window geometry of Conv, ConvTranspose and the pools. */
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_ops.h"

int32_t lf__ox_axis(int64_t axis, int32_t rank)
{
    if (axis < 0)
        axis += rank;
    return (axis >= 0 && axis < rank) ? (int32_t)axis : -1;
}

int lf__ox_broadcast(const int64_t *a, int32_t ra, const int64_t *b, int32_t rb, int64_t *out, int32_t *rout)
{
    int32_t r = ra > rb ? ra : rb;
    for (int32_t k = 0; k < r; k++) {
        int64_t x = k - (r - ra) >= 0 ? a[k - (r - ra)] : 1;
        int64_t y = k - (r - rb) >= 0 ? b[k - (r - rb)] : 1;
        if (x != y && x != 1 && y != 1)
            return 0;
        out[k] = x == 1 ? y : x;
    }
    *rout = r;
    return 1;
}

const lf__ox_data *lf__ox_const_of(const lf__ox_graph *g, const lf__ox_node *n, int32_t k)
{
    if (k >= n->n_in || n->in[k] < 0)
        return NULL;
    const lf__ox_value *v = &g->values[n->in[k]];
    if (!v->is_const || (!v->data.i && !v->data.f))
        return NULL;
    return &v->data;
}

int lf__ox_int_list(const lf__ox_graph *g, const lf__ox_node *n, const char *attr, int32_t input,
                    int64_t *out, int32_t max, int32_t *count)
{
    const lf__ox_attr *a = attr ? lf__ox_attr_get(n, attr) : NULL;
    if (a && a->type == 7) {
        if (a->n > max)
            return -1;
        if (a->n > 0)
            memcpy(out, a->ints, (size_t)a->n * sizeof *out);
        *count = a->n;
        return 1;
    }
    if (input >= 0 && input < n->n_in && n->in[input] >= 0) {
        const lf__ox_data *d = lf__ox_const_of(g, n, input);
        if (!d || d->count > max)
            return -1;
        for (int64_t k = 0; k < d->count; k++)
            out[k] = d->i ? d->i[k] : lf__ox_f2i(d->f[k]);
        *count = (int32_t)d->count;
        return 1;
    }
    *count = 0;
    return 0;
}

lf_status lf__ox_window(lf__ox_graph *g, int32_t i, const int64_t *x, int32_t rank, int is_conv_t,
                        lf__ox_window_geom *w)
{
    const lf__ox_node *n = &g->nodes[i];
    int32_t sp = rank - 2, cnt;
    memset(w, 0, sizeof *w);
    w->spatial = sp;
    if (sp < 1 || sp > 3)
        return lf__ox_fail(g, i, LF_EUNSUPPORTED, "input of rank %d (1 to 3 spatial axes are supported)",
                           (int)rank);
    int64_t buf[16];
    for (int32_t k = 0; k < sp; k++)
        w->k[k] = w->s[k] = w->d[k] = 1;
    if (lf__ox_int_list(g, n, "kernel_shape", -1, buf, 16, &cnt) == 1 && cnt == sp)
        memcpy(w->k, buf, (size_t)sp * sizeof *buf);
    else if (n->n_in > 1 && n->in[1] >= 0 && g->values[n->in[1]].rank == rank)
        memcpy(w->k, g->values[n->in[1]].dims + 2, (size_t)sp * sizeof *buf);
    else
        return lf__ox_fail(g, i, LF_EPARSE, "kernel_shape missing or of the wrong length");
    if (lf__ox_int_list(g, n, "strides", -1, buf, 16, &cnt) == 1 && cnt == sp)
        memcpy(w->s, buf, (size_t)sp * sizeof *buf);
    if (lf__ox_int_list(g, n, "dilations", -1, buf, 16, &cnt) == 1 && cnt == sp)
        memcpy(w->d, buf, (size_t)sp * sizeof *buf);
    if (lf__ox_int_list(g, n, "pads", -1, buf, 16, &cnt) == 1 && cnt == 2 * sp)
        memcpy(w->pads, buf, (size_t)(2 * sp) * sizeof *buf);
    for (int32_t k = 0; k < sp; k++) {
        if (w->k[k] <= 0 || w->s[k] <= 0 || w->d[k] <= 0 || w->k[k] > LF__OX_MAX_WINDOW ||
            w->s[k] > LF__OX_MAX_WINDOW || w->d[k] > LF__OX_MAX_WINDOW || w->pads[k] < 0 ||
            w->pads[k + sp] < 0 || w->pads[k] > LF__OX_MAX_WINDOW || w->pads[k + sp] > LF__OX_MAX_WINDOW)
            return lf__ox_fail(g, i, LF_ERANGE, "kernel, stride, dilation or padding out of range");
        /* Bounds that keep every formula below inside int64 (products up to
         * 2^31 * 2^16 * 2^16): a dimension above the element cap can only
         * come with an empty tensor, from a hostile file. */
        if (x[k + 2] < 0 || x[k + 2] > ((int64_t)1 << 31))
            return lf__ox_fail(g, i, LF_ERANGE, "spatial dimension %lld out of range", (long long)x[k + 2]);
    }
    if (is_conv_t && lf__ox_int_list(g, n, "output_padding", -1, buf, 16, &cnt) == 1)
        for (int32_t k = 0; k < cnt; k++)
            if (buf[k] < 0 || buf[k] > LF__OX_MAX_WINDOW)
                return lf__ox_fail(g, i, LF_ERANGE, "output_padding %lld out of range", (long long)buf[k]);
    w->ceil_mode = (int32_t)lf__ox_attr_int(n, "ceil_mode", 0);
    const char *ap = lf__ox_attr_str(n, "auto_pad", "NOTSET");
    for (int32_t k = 0; k < sp; k++) {
        int64_t in = x[k + 2], ek = (w->k[k] - 1) * w->d[k] + 1;
        if (is_conv_t) {
            if (strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0) {
                /* ONNX: output = input * stride; the padding that gives it splits
                 * with the odd unit at the end (SAME_UPPER) or the start. */
                int64_t total = w->s[k] * (in - 1) + ek - in * w->s[k];
                int64_t op0 = 0;
                int32_t nop;
                int64_t opb[3];
                if (lf__ox_int_list(g, n, "output_padding", -1, opb, 3, &nop) == 1 && nop == sp)
                    op0 = opb[k];
                total += op0;
                if (total < 0)
                    total = 0;
                w->pads[k] = ap[5] == 'U' ? total / 2 : total - total / 2;
                w->pads[k + sp] = total - w->pads[k];
            }
            w->out[k] = w->s[k] * (in - 1) + ek - w->pads[k] - w->pads[k + sp];
            continue;
        }
        if (strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0) {
            int64_t out = (in + w->s[k] - 1) / w->s[k];
            int64_t total = (out - 1) * w->s[k] + ek - in;
            if (total < 0)
                total = 0;
            int64_t small = total / 2;
            w->pads[k] = ap[5] == 'U' ? small : total - small;
            w->pads[k + sp] = total - w->pads[k];
        } else if (strcmp(ap, "VALID") == 0) {
            w->pads[k] = w->pads[k + sp] = 0;
        }
        int64_t span = in + w->pads[k] + w->pads[k + sp] - ek;
        if (span < 0)
            return lf__ox_fail(g, i, LF_EGRAPH, "window of %lld larger than the padded input of %lld",
                               (long long)ek, (long long)(in + w->pads[k] + w->pads[k + sp]));
        int64_t out = w->ceil_mode ? (span + w->s[k] - 1) / w->s[k] + 1 : span / w->s[k] + 1;
        if (w->ceil_mode && (out - 1) * w->s[k] >= in + w->pads[k])
            out--;
        w->out[k] = out;
    }
    if (is_conv_t) {
        int64_t op[8] = {0};
        if (lf__ox_int_list(g, n, "output_padding", -1, buf, 16, &cnt) == 1 && cnt == sp)
            memcpy(op, buf, (size_t)sp * sizeof *buf);
        for (int32_t k = 0; k < sp; k++)
            w->out[k] += op[k];
        if (lf__ox_int_list(g, n, "output_shape", -1, buf, 16, &cnt) == 1)
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "output_shape is not supported (give pads)");
    }
    for (int32_t k = 0; k < sp; k++)
        if (w->out[k] <= 0)
            return lf__ox_fail(g, i, LF_EGRAPH, "empty output along spatial axis %d", (int)k);
    return LF_OK;
}

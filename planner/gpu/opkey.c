/* Op configuration keys of the measured-cost cache, and which ops the
 * profiler can run (the op table's kernel class, lf_op_info.gpu, checked
 * against the op's shapes). Plain C: keys are built and cached entries
 * looked up the same way in every build, GPU or not.
 *
 * A key holds everything a kernel's time depends on: the type, each
 * operand's kind (t: activation, c: constant) and shape, the output shape
 * and the attributes that are set. Two ops with equal keys run the same
 * kernels on the same shapes, whatever their names or place in the graph. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "planner/gpu/opcost.h"
#include "planner/optable.h"

static lf_shape lf__operand_shape(const lf_graph *g, const lf_operand *o)
{
    return o->kind == LF_OPND_TENSOR ? g->ops[o->id].out : g->consts[o->id].shape;
}

static int lf__same(lf_shape a, lf_shape b) { return a.n == b.n && a.c == b.c && a.h == b.h && a.w == b.w; }

/* b broadcasts to a: every dim equal or 1. */
static int lf__broadcasts(lf_shape b, lf_shape a)
{
    return (b.n == a.n || b.n == 1) && (b.c == a.c || b.c == 1) && (b.h == a.h || b.h == 1) &&
           (b.w == a.w || b.w == 1);
}

int lf_gpu_op_measurable(const lf_graph *g, int32_t v)
{
    if (!g || v < 0 || v >= g->n_ops)
        return 0;
    const lf_op *op = &g->ops[v];
    const lf_op_info *info = lf_op_info_of(op->type);
    if (!info)
        return 0;
    /* The op table names the kernel class; the shapes decide whether that
     * kernel can run this op. */
    switch (info->gpu) {
    case LF_GPU_CONV:
        return op->n_inputs >= 1 && op->n_operands >= 2 && op->n_operands <= 3 &&
               op->operands[0].kind == LF_OPND_TENSOR && op->out.h > 0 && op->out.w > 0;
    case LF_GPU_GEMM:
        return op->n_operands >= 2 && op->n_operands <= 3 && op->operands[0].kind == LF_OPND_TENSOR;
    case LF_GPU_MATMUL:
        return op->n_operands == 2;
    case LF_GPU_BATCHNORM:
        return op->n_inputs == 1 && op->operands[0].kind == LF_OPND_TENSOR;
    case LF_GPU_UNARY:
        return op->n_operands == 1 && op->operands[0].kind == LF_OPND_TENSOR &&
               lf__same(g->ops[op->operands[0].id].out, op->out);
    case LF_GPU_BINARY: {
        if (op->n_operands != 2)
            return 0;
        lf_shape a = lf__operand_shape(g, &op->operands[0]), b = lf__operand_shape(g, &op->operands[1]);
        return (lf__same(a, op->out) && lf__broadcasts(b, op->out)) ||
               (lf__same(b, op->out) && lf__broadcasts(a, op->out));
    }
    case LF_GPU_POOL:
        return op->n_inputs == 1 && op->n_operands == 1;
    case LF_GPU_SOFTMAX:
        return op->n_inputs == 1 && op->n_operands == 1 &&
               (op->attr.axes == 0 || op->attr.axes == LF_AXES(LF_DIM_C) ||
                op->attr.axes == (LF_AXES(LF_DIM_C) | LF_AXES(LF_DIM_H) | LF_AXES(LF_DIM_W)));
    case LF_GPU_CONCAT:
        return op->n_operands >= 1 && (op->attr.axes == 0 || op->attr.axes == LF_AXES(LF_DIM_C));
    case LF_GPU_NONE:
        return 0;
    }
    return 0;
}

typedef struct lf__keybuf {
    char *buf;
    size_t cap, len;
    int over;
} lf__keybuf;

static void lf__put(lf__keybuf *k, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void lf__put(lf__keybuf *k, const char *fmt, ...)
{
    if (k->over)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(k->buf + k->len, k->cap - k->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= k->cap - k->len)
        k->over = 1;
    else
        k->len += (size_t)n;
}

static void lf__put_shape(lf__keybuf *k, lf_shape s)
{
    lf__put(k, "%lldx%lldx%lldx%lld", (long long)s.n, (long long)s.c, (long long)s.h, (long long)s.w);
}

static void lf__put_int(lf__keybuf *k, const char *name, int32_t v)
{
    if (v)
        lf__put(k, ";%s=%d", name, (int)v);
}

static void lf__put_float(lf__keybuf *k, const char *name, float v)
{
    if (v != 0.0f)
        lf__put(k, ";%s=%.9g", name, (double)v);
}

lf_status lf_gpu_op_key(const lf_graph *g, int32_t v, char *buf, size_t cap)
{
    if (cap == 0)
        return lf_set_error(LF_ERANGE, "no room for a GPU op key");
    buf[0] = '\0';
    if (!lf_gpu_op_measurable(g, v))
        return lf_set_error(LF_EUNSUPPORTED, "op %d is not measured on the GPU", (int)v);
    const lf_op *op = &g->ops[v];
    const lf_attrs *a = &op->attr;
    lf__keybuf k = {buf, cap < LF_GPU_OP_KEY_MAX ? cap : LF_GPU_OP_KEY_MAX, 0, 0};
    lf__put(&k, "%s(", lf_op_info_of(op->type)->name);
    for (int32_t p = 0; p < op->n_operands; p++) {
        lf__put(&k, "%s%c", p ? "," : "", op->operands[p].kind == LF_OPND_TENSOR ? 't' : 'c');
        lf__put_shape(&k, lf__operand_shape(g, &op->operands[p]));
    }
    lf__put(&k, ")>");
    lf__put_shape(&k, op->out);
    if (a->kh || a->kw)
        lf__put(&k, ";k%dx%d", (int)a->kh, (int)a->kw);
    if (a->sh || a->sw)
        lf__put(&k, ";s%dx%d", (int)a->sh, (int)a->sw);
    if (a->dh || a->dw)
        lf__put(&k, ";d%dx%d", (int)a->dh, (int)a->dw);
    if (a->pad_top || a->pad_left || a->pad_bottom || a->pad_right)
        lf__put(&k, ";p%d,%d,%d,%d", (int)a->pad_top, (int)a->pad_left, (int)a->pad_bottom, (int)a->pad_right);
    lf__put_int(&k, "g", a->groups);
    lf__put_int(&k, "bias", a->has_bias);
    if (a->act != LF_ACT_NONE)
        lf__put(&k, ";act=%s", lf_act_name(a->act));
    lf__put_int(&k, "ceil", a->ceil_mode);
    lf__put_int(&k, "cip", a->count_include_pad);
    lf__put_int(&k, "axes", a->axes);
    lf__put_int(&k, "ta", a->trans_a);
    lf__put_int(&k, "tb", a->trans_b);
    lf__put_int(&k, "approx", a->approximate);
    if (lf_op_has(op->type, LF_OPF_CLIP_BOUNDS))
        lf__put(&k, ";clip=%.9g,%.9g", (double)a->clip_min, (double)a->clip_max);
    lf__put_float(&k, "alpha", a->alpha);
    lf__put_float(&k, "beta", a->beta);
    lf__put_float(&k, "eps", a->epsilon);
    if (k.over)
        return lf_set_error(LF_ERANGE, "op %s: its GPU op key is longer than %d characters", op->name,
                            (int)(k.cap - 1));
    /* float formatting never yields spaces; "inf"/"nan" are printable */
    return LF_OK;
}

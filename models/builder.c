#include "models/builder.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/optable.h"

lf_status lf_mb_fail(lf_mb *m, lf_status err, const char *fmt, ...)
{
    if (m->err == LF_OK) {
        va_list ap;
        va_start(ap, fmt);
        lf_set_verror(err, fmt, ap);
        va_end(ap);
        m->err = err;
    }
    return m->err;
}

lf_status lf_mb_init(lf_mb *m, const char *graph_name)
{
    memset(m, 0, sizeof *m);
    lf_status s = lf_graph_builder_create(&m->gb, graph_name);
    if (s != LF_OK) {
        /* keep the graph builder's own message */
        m->gb = NULL;
        m->err = s;
    }
    return s;
}

lf_status lf_mb_finish(lf_mb *m, lf_graph **out)
{
    lf_status s = m->err;
    *out = NULL;
    if (s == LF_OK) {
        if (m->depth != 0)
            s = lf_mb_fail(m, LF_EINVAL, "model builder: %d name prefixes left pushed at the end",
                           (int)m->depth);
        else
            s = lf_graph_builder_build(m->gb, out);
    }
    if (m->gb)
        lf_graph_builder_free(m->gb);
    free(m->shapes);
    for (int32_t k = 0; k < m->n_k; k++)
        free(m->k_names[k]);
    free(m->k_names);
    free(m->k_shapes);
    m->k_names = NULL;
    m->k_shapes = NULL;
    m->n_k = m->cap_k = 0;
    m->gb = NULL;
    m->shapes = NULL;
    m->n = m->cap = 0;
    return s;
}

void lf_mb_push(lf_mb *m, const char *fmt, ...)
{
    /* Pushes are counted even after an error so that pops stay balanced. */
    if (m->depth >= LF_MB_DEPTH_MAX) {
        lf_mb_fail(m, LF_ELIMIT, "model builder: name prefix deeper than %d", LF_MB_DEPTH_MAX);
        return;
    }
    m->marks[m->depth++] = m->prefix_len;
    if (m->err != LF_OK)
        return;
    char part[LF_MB_NAME_MAX];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(part, sizeof part, fmt, ap);
    va_end(ap);
    int32_t dot = m->prefix_len > 0 ? 1 : 0;
    if (len <= 0 || m->prefix_len + dot + len >= LF_MB_NAME_MAX) {
        lf_mb_fail(m, LF_ERANGE, "model builder: empty or over-long name component after '%s'",
                   m->prefix);
        return;
    }
    if (dot)
        m->prefix[m->prefix_len] = '.';
    memcpy(m->prefix + m->prefix_len + dot, part, (size_t)len + 1);
    m->prefix_len += dot + len;
}

void lf_mb_pop(lf_mb *m)
{
    if (m->depth <= 0) {
        lf_mb_fail(m, LF_EINVAL, "model builder: pop without push");
        return;
    }
    m->prefix_len = m->marks[--m->depth];
    m->prefix[m->prefix_len] = '\0';
}

lf_shape lf_mb_shape(const lf_mb *m, int32_t t)
{
    lf_shape zero = {0, 0, 0, 0};
    if (t < 0 || t >= m->n)
        return zero;
    return m->shapes[t];
}

/* Writes prefix + "." + name into buf; returns 0 or -1 (error recorded). */
static int lf__full_name(lf_mb *m, const char *name, char *buf)
{
    int len;
    if (!name || !name[0])
        len = snprintf(buf, LF_MB_NAME_MAX, "%s", m->prefix);
    else if (m->prefix_len == 0)
        len = snprintf(buf, LF_MB_NAME_MAX, "%s", name);
    else
        len = snprintf(buf, LF_MB_NAME_MAX, "%s.%s", m->prefix, name);
    if (len <= 0 || len >= LF_MB_NAME_MAX) {
        lf_mb_fail(m, LF_ERANGE, "model builder: empty or over-long op name under '%s'",
                   m->prefix);
        return -1;
    }
    return 0;
}

int32_t lf_mb_op(lf_mb *m, lf_op_type type, const char *name, const lf_attrs *attrs,
                 const int32_t *inputs, int32_t n_inputs)
{
    if (m->err != LF_OK)
        return -1;
    char op_name[LF_MB_NAME_MAX];
    if (lf__full_name(m, name, op_name) != 0)
        return -1;
    static const lf_attrs no_attrs;
    if (!attrs)
        attrs = &no_attrs;
    if (n_inputs < 0 || n_inputs > LF_MB_INPUTS_MAX || (n_inputs > 0 && !inputs)) {
        lf_mb_fail(m, LF_EINVAL,
                   "model builder: op '%s' has a bad input list (%d inputs, at most %d)",
                   op_name, (int)n_inputs, LF_MB_INPUTS_MAX);
        return -1;
    }

    const char *in_names[LF_MB_INPUTS_MAX];
    lf_shape in_shapes[LF_MB_INPUTS_MAX];
    int explicit_consts = 0;
    for (int32_t i = 0; i < n_inputs; i++) {
        int32_t k = -2 - inputs[i];
        if (k >= 0 && k < m->n_k) {
            in_names[i] = m->k_names[k];
            in_shapes[i] = m->k_shapes[k];
            explicit_consts = 1;
            continue;
        }
        if (inputs[i] < 0 || inputs[i] >= m->n) {
            lf_mb_fail(m, LF_EINVAL, "model builder: op '%s' input %d is not a tensor",
                       op_name, (int)i);
            return -1;
        }
        in_names[i] = lf_graph_builder_name(m->gb, inputs[i]);
        in_shapes[i] = m->shapes[inputs[i]];
    }

    /* Shape inference here, not only when the graph is frozen, so that a
     * network definition error names the op that makes it. */
    lf_shape out;
    char why[200] = "";
    lf_status s = lf_op_infer(type, attrs, in_shapes, n_inputs, &out, why, sizeof why);
    if (s != LF_OK) {
        lf_mb_fail(m, s, "model builder: op '%s': %s", op_name, why);
        return -1;
    }

    if (m->n == m->cap) {
        int32_t cap = m->cap ? 2 * m->cap : 256;
        lf_shape *grown = realloc(m->shapes, (size_t)cap * sizeof *grown);
        if (!grown) {
            lf_mb_fail(m, LF_ENOMEM, "model builder: out of memory");
            return -1;
        }
        m->shapes = grown;
        m->cap = cap;
    }

    /* The op's weights become constants of the graph (shape only: built-in
     * networks carry no values), named like torch's parameters. */
    lf_shape w_shapes[4];
    const char *w_suffix[4];
    /* an op given constants of its own takes no implied ones */
    int32_t n_w = explicit_consts ? 0
                                  : lf_op_implied_consts(type, attrs, in_shapes, n_inputs,
                                                         w_shapes, w_suffix);
    char w_names[4][LF_MB_NAME_MAX + 8];
    const char *operands[LF_MB_INPUTS_MAX + 4];
    for (int32_t i = 0; i < n_inputs; i++)
        operands[i] = in_names[i];
    for (int32_t k = 0; k < n_w; k++) {
        snprintf(w_names[k], sizeof w_names[k], "%s.%s", op_name, w_suffix[k]);
        int32_t c = lf_graph_builder_add_const(m->gb, w_names[k], w_shapes[k], NULL);
        if (c < 0) {
            m->err = (lf_status)c; /* keep the graph builder's message */
            return -1;
        }
        operands[n_inputs + k] = w_names[k];
    }
    int32_t id = lf_graph_builder_add_op(m->gb, type, op_name, attrs, operands, n_inputs + n_w);
    if (id < 0) {
        m->err = (lf_status)id; /* keep the graph builder's message */
        return -1;
    }
    if (id != m->n) {
        lf_mb_fail(m, LF_EINVAL, "model builder: op '%s' got index %d, expected %d",
                   op_name, (int)id, (int)m->n);
        return -1;
    }
    m->shapes[m->n] = out;
    return m->n++;
}

static int32_t lf__const(lf_mb *m, const char *name, lf_shape s, const float *data);

int32_t lf_mb_const(lf_mb *m, const char *name, int64_t n, int64_t c, int64_t h, int64_t w)
{
    lf_shape s = {n, c, h, w};
    return lf__const(m, name, s, NULL);
}

int32_t lf_mb_scalar(lf_mb *m, const char *name, float value)
{
    lf_shape s = {1, 1, 1, 1};
    return lf__const(m, name, s, &value);
}

static int32_t lf__const(lf_mb *m, const char *name, lf_shape s, const float *data)
{
    if (m->err != LF_OK)
        return -1;
    char full[LF_MB_NAME_MAX];
    if (lf__full_name(m, name, full) != 0)
        return -1;
    if (m->n_k == m->cap_k) {
        int32_t cap = m->cap_k ? 2 * m->cap_k : 64;
        char **names = realloc(m->k_names, (size_t)cap * sizeof *names);
        if (names)
            m->k_names = names;
        lf_shape *shapes = names ? realloc(m->k_shapes, (size_t)cap * sizeof *shapes) : NULL;
        if (!shapes) {
            lf_mb_fail(m, LF_ENOMEM, "model builder: out of memory");
            return -1;
        }
        m->k_shapes = shapes;
        m->cap_k = cap;
    }
    int32_t id = lf_graph_builder_add_const(m->gb, full, s, data);
    char *copy = id >= 0 ? malloc(strlen(full) + 1) : NULL;
    if (id < 0) {
        m->err = (lf_status)id; /* keep the graph builder's message */
        return -1;
    }
    if (!copy) {
        lf_mb_fail(m, LF_ENOMEM, "model builder: out of memory");
        return -1;
    }
    memcpy(copy, full, strlen(full) + 1);
    m->k_names[m->n_k] = copy;
    m->k_shapes[m->n_k] = s;
    return LF_MB_K(m->n_k++);
}

void lf_mb_output(lf_mb *m, int32_t t)
{
    if (m->err != LF_OK)
        return;
    if (t < 0 || t >= m->n) {
        lf_mb_fail(m, LF_EINVAL, "model builder: output %d is not a tensor", (int)t);
        return;
    }
    lf_status s = lf_graph_builder_mark_output(m->gb, lf_graph_builder_name(m->gb, t));
    if (s != LF_OK)
        m->err = s;
}

int32_t lf_mb_input(lf_mb *m, const char *name, int32_t batch, int32_t c, int32_t h, int32_t w)
{
    lf_attrs a = {0};
    a.batch = batch;
    a.in_c = c;
    a.in_h = h;
    a.in_w = w;
    return lf_mb_op(m, LF_OP_INPUT, name, &a, NULL, 0);
}

static void lf__set_bias(lf_attrs *a, lf_mb_bias bias)
{
    a->has_bias = bias == LF_MB_BIAS;
    a->folded_bn = bias == LF_MB_FOLDED_BN;
}

int32_t lf_mb_conv(lf_mb *m, const char *name, int32_t x, int32_t out_c, int32_t k,
                   int32_t stride, int32_t pad, int32_t groups, int32_t dilation, lf_mb_bias bias)
{
    lf_attrs a = {0};
    a.out_channels = out_c;
    a.kh = a.kw = k;
    a.sh = a.sw = stride;
    a.dh = a.dw = dilation;
    a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = pad;
    a.groups = groups;
    lf__set_bias(&a, bias);
    return lf_mb_op(m, LF_OP_CONV, name, &a, &x, 1);
}

int32_t lf_mb_conv_hw(lf_mb *m, const char *name, int32_t x, int32_t out_c, int32_t kh,
                      int32_t kw, int32_t stride, int32_t pad_h, int32_t pad_w, lf_mb_bias bias)
{
    lf_attrs a = {0};
    a.out_channels = out_c;
    a.kh = kh;
    a.kw = kw;
    a.sh = a.sw = stride;
    a.pad_top = a.pad_bottom = pad_h;
    a.pad_left = a.pad_right = pad_w;
    lf__set_bias(&a, bias);
    return lf_mb_op(m, LF_OP_CONV, name, &a, &x, 1);
}

static int32_t lf__unary(lf_mb *m, lf_op_type type, const char *name, int32_t x)
{
    lf_attrs a = {0};
    return lf_mb_op(m, type, name, &a, &x, 1);
}

int32_t lf_mb_relu(lf_mb *m, const char *name, int32_t x)
{
    return lf__unary(m, LF_OP_RELU, name, x);
}

int32_t lf_mb_relu6(lf_mb *m, const char *name, int32_t x)
{
    lf_attrs a = {0};
    a.clip_min = 0.0f;
    a.clip_max = 6.0f;
    return lf_mb_op(m, LF_OP_CLIP, name, &a, &x, 1);
}

int32_t lf_mb_hardswish(lf_mb *m, const char *name, int32_t x)
{
    return lf__unary(m, LF_OP_HARDSWISH, name, x);
}

int32_t lf_mb_hardsigmoid(lf_mb *m, const char *name, int32_t x)
{
    return lf__unary(m, LF_OP_HARDSIGMOID, name, x);
}

int32_t lf_mb_sigmoid(lf_mb *m, const char *name, int32_t x)
{
    return lf__unary(m, LF_OP_SIGMOID, name, x);
}

int32_t lf_mb_silu(lf_mb *m, const char *name, int32_t x)
{
    return lf__unary(m, LF_OP_SILU, name, x);
}

int32_t lf_mb_add(lf_mb *m, const char *name, int32_t a, int32_t b)
{
    lf_attrs at = {0};
    int32_t in[2] = {a, b};
    return lf_mb_op(m, LF_OP_ADD, name, &at, in, 2);
}

int32_t lf_mb_mul(lf_mb *m, const char *name, int32_t a, int32_t b)
{
    lf_attrs at = {0};
    int32_t in[2] = {a, b};
    return lf_mb_op(m, LF_OP_MUL, name, &at, in, 2);
}

int32_t lf_mb_concat(lf_mb *m, const char *name, const int32_t *xs, int32_t n)
{
    lf_attrs a = {0};
    return lf_mb_op(m, LF_OP_CONCAT, name, &a, xs, n);
}

static void lf__pool_attrs(lf_attrs *a, int32_t k, int32_t stride, int32_t pad)
{
    a->kh = a->kw = k;
    a->sh = a->sw = stride;
    a->pad_top = a->pad_left = a->pad_bottom = a->pad_right = pad;
}

int32_t lf_mb_maxpool(lf_mb *m, const char *name, int32_t x, int32_t k, int32_t stride,
                      int32_t pad, int32_t ceil_mode)
{
    lf_attrs a = {0};
    lf__pool_attrs(&a, k, stride, pad);
    a.ceil_mode = ceil_mode;
    return lf_mb_op(m, LF_OP_MAXPOOL, name, &a, &x, 1);
}

int32_t lf_mb_avgpool(lf_mb *m, const char *name, int32_t x, int32_t k, int32_t stride,
                      int32_t pad, int32_t count_include_pad)
{
    lf_attrs a = {0};
    lf__pool_attrs(&a, k, stride, pad);
    a.count_include_pad = count_include_pad;
    return lf_mb_op(m, LF_OP_AVGPOOL, name, &a, &x, 1);
}

int32_t lf_mb_global_avgpool(lf_mb *m, const char *name, int32_t x)
{
    return lf__unary(m, LF_OP_GLOBALAVGPOOL, name, x);
}

int32_t lf_mb_flatten(lf_mb *m, const char *name, int32_t x)
{
    return lf__unary(m, LF_OP_FLATTEN, name, x);
}

int32_t lf_mb_gemm(lf_mb *m, const char *name, int32_t x, int32_t out_features, lf_mb_bias bias)
{
    lf_attrs a = {0};
    a.out_channels = out_features;
    lf__set_bias(&a, bias);
    return lf_mb_op(m, LF_OP_GEMM, name, &a, &x, 1);
}

int32_t lf_mb_resize(lf_mb *m, const char *name, int32_t x, int32_t out_h, int32_t out_w,
                     int32_t linear)
{
    lf_attrs a = {0};
    a.out_h = out_h;
    a.out_w = out_w;
    a.linear = linear;
    return lf_mb_op(m, LF_OP_RESIZE, name, &a, &x, 1);
}

int32_t lf_mb_make_divisible(double v, int32_t divisor)
{
    /* Python: max(divisor, int(v + divisor / 2) // divisor * divisor), then +divisor if
     * that is below 0.9 v. v is positive, so the C cast truncates like int(). */
    int32_t r = (int32_t)(v + divisor / 2.0) / divisor * divisor;
    if (r < divisor)
        r = divisor;
    if (r < 0.9 * v)
        r += divisor;
    return r;
}

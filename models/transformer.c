/* What the built-in transformers share (DESIGN §16): their sizes resolved
 * from the options, and the layers every family is made of, in the layout
 * the ONNX importer gives a torch export (docs/ir.md, "Attention in our
 * frame"): a sequence [B, T, D] is B x 1 x T x D, tokens on H, so token-wise
 * layers stream rows; heads are split off by Reshape [B, T, h, dh] and
 * Transpose (0, 2, 1, 3) into B x h x T x dh, tokens still on H. */
#include <stdio.h>
#include <string.h>

#include "models/networks.h"

typedef struct lf__tf_entry {
    const char *name;
    lf_model_kind kind;
    int32_t default_seq, max_seq, depth;
} lf__tf_entry;

#define LF__TF_ENTRY(name, family, kind, default_seq, max_seq, depth) \
    {#name, kind, default_seq, max_seq, depth},
static const lf__tf_entry lf__tf[] = {LF__TRANSFORMER_LIST(LF__TF_ENTRY)};

lf_status lf_tf_begin(lf_mb *m, const char *model, const lf_model_options *opt,
                      const lf_model_seq_options *seq, lf_tf_sizes *z)
{
    static const lf_model_options defaults;
    static const lf_model_seq_options seq_defaults;
    const lf__tf_entry *e = NULL;
    for (size_t i = 0; i < sizeof lf__tf / sizeof lf__tf[0] && !e; i++)
        if (strcmp(lf__tf[i].name, model) == 0)
            e = &lf__tf[i];
    memset(m, 0, sizeof *m);
    memset(z, 0, sizeof *z);
    if (!opt)
        opt = &defaults;
    if (!seq)
        seq = &seq_defaults;
    if (!e)
        return m->err = lf_set_error(LF_ENOTFOUND, "unknown transformer '%s'", model);
    if (opt->input_size)
        return m->err = lf_set_error(LF_EINVAL, "%s: --input-size applies to image networks; "
                                                "give --seq-len",
                                     model);
    if (opt->batch < 0 || opt->batch > LF_MODEL_MAX_BATCH)
        return m->err = lf_set_error(LF_ERANGE, "%s: batch %d is out of range (1 to %d)", model,
                                     (int)opt->batch, LF_MODEL_MAX_BATCH);
    if (seq->layers < 0 || seq->layers > e->depth)
        return m->err = lf_set_error(LF_ERANGE, "%s: --layers %d is out of range (1 to %d)",
                                     model, (int)seq->layers, (int)e->depth);
    if (seq->phase != LF_PHASE_PREFILL && seq->phase != LF_PHASE_DECODE)
        return m->err = lf_set_error(LF_EINVAL, "%s: unknown phase %d", model, (int)seq->phase);
    if (seq->phase == LF_PHASE_DECODE && e->kind != LF_MODEL_DECODER)
        return m->err = lf_set_error(LF_EINVAL, "%s: --phase decode applies to decoder networks "
                                                "(gpt2, gpt2_medium, llama3_8b)",
                                     model);
    if (seq->context && seq->phase != LF_PHASE_DECODE)
        return m->err = lf_set_error(LF_EINVAL, "%s: --context applies to --phase decode", model);
    z->batch = opt->batch ? opt->batch : 1;
    z->layers = seq->layers ? seq->layers : e->depth;
    if (seq->phase == LF_PHASE_DECODE) {
        if (seq->seq_len)
            return m->err = lf_set_error(LF_EINVAL, "%s: a decode step has one token: give "
                                                    "--context, not --seq-len",
                                         model);
        z->decode = 1;
        z->seq = 1;
        z->context = seq->context ? seq->context : e->default_seq;
        /* the new token's position must exist: context + 1 <= the longest sequence */
        if (z->context < 1 || z->context >= e->max_seq)
            return m->err = lf_set_error(LF_ERANGE, "%s: --context %d is out of range (1 to %d)",
                                         model, (int)z->context, (int)e->max_seq - 1);
    } else {
        z->seq = seq->seq_len ? seq->seq_len : e->default_seq;
        if (z->seq < 1 || z->seq > e->max_seq)
            return m->err = lf_set_error(LF_ERANGE, "%s: --seq-len %d is out of range (1 to %d)",
                                         model, (int)z->seq, (int)e->max_seq);
    }
    return lf_mb_init(m, model);
}

int32_t lf_tf_linear(lf_mb *m, const char *name, int32_t x, int32_t out, int bias)
{
    lf_mb_push(m, "%s", name);
    int32_t w = lf_mb_const(m, "weight", 1, 1, lf_mb_shape(m, x).w, out);
    int32_t in[2] = {x, w};
    int32_t y = lf_mb_op(m, LF_OP_MATMUL, "MatMul", NULL, in, 2);
    if (bias) {
        int32_t b = lf_mb_const(m, "bias", 1, 1, 1, out);
        int32_t ab[2] = {b, y}; /* torch's exporter writes Add(bias, MatMul) */
        y = lf_mb_op(m, LF_OP_ADD, "Add", NULL, ab, 2);
    }
    lf_mb_pop(m);
    return y;
}

int32_t lf_tf_layernorm(lf_mb *m, const char *name, int32_t x)
{
    lf_attrs a = {0};
    a.axes = LF_AXES(LF_DIM_W);
    a.has_bias = 1;
    return lf_mb_op(m, LF_OP_LAYERNORM, name, &a, &x, 1);
}

int32_t lf_tf_split_heads(lf_mb *m, const char *name, int32_t x, int32_t heads)
{
    lf_shape s = lf_mb_shape(m, x);
    lf_attrs r = {0};
    r.shape_n = (int32_t)s.n;
    r.shape_c = (int32_t)s.h;
    r.shape_h = heads;
    r.shape_w = heads > 0 ? (int32_t)(s.w / heads) : 0;
    lf_mb_push(m, "%s", name);
    int32_t y = lf_mb_op(m, LF_OP_RESHAPE, "Reshape", &r, &x, 1);
    lf_attrs t = {0};
    t.perm[0] = 0, t.perm[1] = 2, t.perm[2] = 1, t.perm[3] = 3;
    y = lf_mb_op(m, LF_OP_TRANSPOSE, "Transpose", &t, &y, 1);
    lf_mb_pop(m);
    return y;
}

int32_t lf_tf_merge_heads(lf_mb *m, const char *name, int32_t x)
{
    lf_shape s = lf_mb_shape(m, x);
    lf_attrs t = {0};
    t.perm[0] = 0, t.perm[1] = 2, t.perm[2] = 1, t.perm[3] = 3;
    lf_mb_push(m, "%s", name);
    int32_t y = lf_mb_op(m, LF_OP_TRANSPOSE, "Transpose", &t, &x, 1);
    lf_attrs r = {0};
    r.shape_n = (int32_t)s.n;
    r.shape_c = 1;
    r.shape_h = (int32_t)s.h;
    r.shape_w = (int32_t)(s.c * s.w);
    y = lf_mb_op(m, LF_OP_RESHAPE, "Reshape", &r, &y, 1);
    lf_mb_pop(m);
    return y;
}

int32_t lf_tf_attention(lf_mb *m, int32_t q, int32_t k, int32_t v, int causal)
{
    lf_shape qs = lf_mb_shape(m, q), ks = lf_mb_shape(m, k);
    int32_t group = ks.c > 0 ? (int32_t)(qs.c / ks.c) : 0;
    if (m->err == LF_OK && (group < 1 || qs.c != group * ks.c)) {
        lf_mb_fail(m, LF_EINVAL, "model builder: %lld query heads do not group over %lld "
                                 "key/value heads",
                   (long long)qs.c, (long long)ks.c);
        return -1;
    }
    if (group > 1) {
        /* grouped-query attention: the `group` query heads of one key/value
         * head are consecutive, so B x Hq x T x dh viewed as
         * B x Hkv x (group * T) x dh stacks their rows (DESIGN §16) */
        lf_attrs r = {0};
        r.shape_n = (int32_t)qs.n;
        r.shape_c = (int32_t)ks.c;
        r.shape_h = (int32_t)(group * qs.h);
        r.shape_w = (int32_t)qs.w;
        q = lf_mb_op(m, LF_OP_RESHAPE, "group_queries", &r, &q, 1);
    }
    lf_attrs mm = {0};
    mm.trans_b = 1;
    int32_t qk[2] = {q, k};
    int32_t s = lf_mb_op(m, LF_OP_MATMUL, "scores", &mm, qk, 2);
    lf_attrs sm = {0};
    sm.axes = LF_AXES(LF_DIM_W);
    sm.causal = causal ? group : 0;
    int32_t p = lf_mb_op(m, LF_OP_SOFTMAX, "softmax", &sm, &s, 1);
    int32_t pv[2] = {p, v};
    int32_t o = lf_mb_op(m, LF_OP_MATMUL, "context", NULL, pv, 2);
    if (group > 1) {
        lf_attrs r = {0};
        r.shape_n = (int32_t)qs.n;
        r.shape_c = (int32_t)qs.c;
        r.shape_h = (int32_t)qs.h;
        r.shape_w = (int32_t)qs.w;
        o = lf_mb_op(m, LF_OP_RESHAPE, "ungroup", &r, &o, 1);
    }
    return o;
}

int32_t lf_tf_ids(lf_mb *m, const char *name, const lf_tf_sizes *z)
{
    return lf_mb_input(m, name, z->batch, 1, z->seq, 1);
}

int32_t lf_tf_lookup(lf_mb *m, const char *name, int32_t ids, int64_t rows, int32_t d, int32_t *table)
{
    char wname[LF_MB_NAME_MAX];
    snprintf(wname, sizeof wname, "%s.weight", name);
    int32_t t = lf_mb_const(m, wname, 1, 1, rows, d);
    if (table)
        *table = t;
    int32_t in[2] = {t, ids};
    return lf_mb_op(m, LF_OP_GATHER, name, NULL, in, 2);
}

void lf_tf_decode_cache(lf_mb *m, int32_t *k, int32_t *v, const lf_tf_sizes *z)
{
    lf_shape s = lf_mb_shape(m, *k);
    /* the new rows leave the step: the next step's cache holds them */
    lf_mb_output(m, *k);
    lf_mb_output(m, *v);
    int32_t pk = lf_mb_input(m, "past_key", z->batch, (int32_t)s.c, z->context, (int32_t)s.w);
    int32_t pv = lf_mb_input(m, "past_value", z->batch, (int32_t)s.c, z->context, (int32_t)s.w);
    lf_attrs a = {0};
    a.axes = LF_AXES(LF_DIM_H);
    int32_t ck[2] = {pk, *k}, cv[2] = {pv, *v};
    *k = lf_mb_op(m, LF_OP_CONCAT, "cat_key", &a, ck, 2);
    *v = lf_mb_op(m, LF_OP_CONCAT, "cat_value", &a, cv, 2);
}

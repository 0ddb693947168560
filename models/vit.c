/* ViT-B/16 (torchvision `vit_b_16`, Dosovitskiy et al. 2021), op for op what
 * the ONNX importer makes of torchvision's export (examples/onnx/
 * export_torchvision.py; checked by tests/cli/vit_twin.sh):
 *
 *   conv_proj 16x16/16 -> Reshape [B, 768, 196] -> Transpose -> [B, 196, 768]
 *   Concat(class_token, .) over tokens -> Add(pos_embedding) -> 12 blocks
 *   block: x + self_attention(ln_1(x)); then + mlp(ln_2(.))
 *   ln -> token 0 (Slice over H) -> Reshape -> heads.head (Gemm 768 -> 1000)
 *
 * nn.MultiheadAttention (batch_first = False inside torchvision's encoder
 * block) exports as: Transpose of tokens onto C ([T, B, D]), the packed
 * in-projection (MatMul by {1, 1, 768, 2304}, Add of the bias), three Slices
 * over W, q and v viewed [T, B*12, 64] and transposed to B*12 x T x 64 (heads
 * on C, tokens on H), k transposed to 12 x 64 x T, q divided by sqrt(64), the
 * score MatMul, Softmax over W, the context MatMul, back to [T*B, 768] for
 * out_proj (a Gemm), and back to [B, T, 768]. GELU is exported exactly,
 * x * 0.5 * (1 + erf(x / sqrt 2)) as Div, Erf, Add, Mul, Mul, which the
 * importer recognises as one Gelu op (docs/onnx.md), so it is one op here.
 * LayerNorms have epsilon 1e-6. The scalar constant sqrt 64 is an operand
 * of its Div, as the import has it (12 parameters more than torchvision's
 * 86,567,656).
 *
 * Sizes: the tokens are fixed by the image, 14 x 14 patches + the class
 * token = 197 (--seq-len 197 or none); --layers builds fewer blocks; --batch
 * puts images on N (the import of a batch-1 export is the twin). */
#include "models/networks.h"

#define LF__VIT_D 768
#define LF__VIT_HEADS 12
#define LF__VIT_MLP 3072
#define LF__VIT_PATCH 16
#define LF__VIT_SIDE 224

static int32_t lf__op2(lf_mb *m, lf_op_type t, const char *name, const lf_attrs *a, int32_t x,
                       int32_t y)
{
    int32_t in[2] = {x, y};
    return lf_mb_op(m, t, name, a, in, 2);
}

static int32_t lf__reshape(lf_mb *m, const char *name, int32_t x, int32_t n, int32_t c,
                           int32_t h, int32_t w)
{
    lf_attrs a = {0};
    a.shape_n = n, a.shape_c = c, a.shape_h = h, a.shape_w = w;
    return lf_mb_op(m, LF_OP_RESHAPE, name, &a, &x, 1);
}

static int32_t lf__transpose(lf_mb *m, const char *name, int32_t x, int32_t p0, int32_t p1,
                             int32_t p2, int32_t p3)
{
    lf_attrs a = {0};
    a.perm[0] = p0, a.perm[1] = p1, a.perm[2] = p2, a.perm[3] = p3;
    return lf_mb_op(m, LF_OP_TRANSPOSE, name, &a, &x, 1);
}

static int32_t lf__slice(lf_mb *m, const char *name, int32_t x, lf_dim d, int32_t b, int32_t e)
{
    lf_attrs a = {0};
    a.axes = LF_AXES(d);
    a.slice_begin = b;
    a.slice_end = e;
    return lf_mb_op(m, LF_OP_SLICE, name, &a, &x, 1);
}

static int32_t lf__layernorm(lf_mb *m, const char *name, int32_t x)
{
    lf_attrs a = {0};
    a.axes = LF_AXES(LF_DIM_W);
    a.has_bias = 1;
    a.epsilon = 1e-6f;
    return lf_mb_op(m, LF_OP_LAYERNORM, name, &a, &x, 1);
}

static int32_t lf__attention(lf_mb *m, int32_t x, int32_t batch, int32_t tokens)
{
    const int32_t d = LF__VIT_D, h = LF__VIT_HEADS, dh = d / h;
    lf_mb_push(m, "self_attention");
    int32_t t = lf__transpose(m, "Transpose", x, 0, 2, 1, 3); /* [T, B, D] */
    int32_t w = lf_mb_const(m, "in_proj_weight", 1, 1, d, 3 * d);
    int32_t y = lf__op2(m, LF_OP_MATMUL, "MatMul", NULL, t, w);
    int32_t b = lf_mb_const(m, "in_proj_bias", 1, 1, 1, 3 * d);
    y = lf__op2(m, LF_OP_ADD, "Add", NULL, b, y);
    int32_t q = lf__slice(m, "Slice", y, LF_DIM_W, 0, d);
    int32_t k = lf__slice(m, "Slice_1", y, LF_DIM_W, d, 2 * d);
    int32_t v = lf__slice(m, "Slice_2", y, LF_DIM_W, 2 * d, 3 * d);
    q = lf__reshape(m, "Reshape", q, 0, tokens, batch * h, dh);
    q = lf__transpose(m, "Transpose_1", q, 0, 2, 1, 3);
    k = lf__reshape(m, "Reshape_1", k, 0, tokens, batch * h, dh);
    v = lf__reshape(m, "Reshape_2", v, 0, tokens, batch * h, dh);
    v = lf__transpose(m, "Transpose_2", v, 0, 2, 1, 3);
    int32_t scale = lf_mb_const(m, "sqrt_head_dim", 1, 1, 1, 1);
    q = lf__op2(m, LF_OP_DIV, "Div_1", NULL, q, scale);
    k = lf__transpose(m, "Transpose_3", k, 0, 2, 3, 1);
    int32_t s = lf__op2(m, LF_OP_MATMUL, "MatMul_1", NULL, q, k);
    lf_attrs sm = {0};
    sm.axes = LF_AXES(LF_DIM_W);
    int32_t p = lf_mb_op(m, LF_OP_SOFTMAX, "Softmax", &sm, &s, 1);
    int32_t o = lf__op2(m, LF_OP_MATMUL, "MatMul_2", NULL, p, v);
    o = lf__transpose(m, "Transpose_4", o, 0, 2, 1, 3);
    o = lf__reshape(m, "Reshape_3", o, tokens * batch, d, 1, 1);
    o = lf_mb_gemm(m, "out_proj", o, d, LF_MB_BIAS);
    o = lf__reshape(m, "Reshape_4", o, batch, tokens, 1, d);
    o = lf__transpose(m, "Transpose_5", o, 0, 2, 1, 3);
    lf_mb_pop(m);
    return o;
}

static int32_t lf__mlp(lf_mb *m, int32_t x)
{
    lf_mb_push(m, "mlp");
    int32_t y = lf_tf_linear(m, "0", x, LF__VIT_MLP, 1);
    lf_attrs exact = {0}; /* nn.GELU's default: the erf form */
    int32_t e = lf_mb_op(m, LF_OP_GELU, "1", &exact, &y, 1);
    y = lf_tf_linear(m, "3", e, LF__VIT_D, 1);
    lf_mb_pop(m);
    return y;
}

static lf_status lf__build(const lf_model_options *opt, const lf_model_seq_options *seq,
                           lf_graph **out)
{
    lf_mb mb, *m = &mb;
    lf_tf_sizes z;
    const int32_t side = LF__VIT_SIDE / LF__VIT_PATCH, tokens = side * side + 1;
    if (lf_tf_begin(m, "vit_b_16", opt, seq, &z) == LF_OK && z.seq != tokens)
        lf_mb_fail(m, LF_ERANGE, "vit_b_16: --seq-len %d: the tokens are the 196 patches of a "
                                 "224 image and the class token (197)",
                   (int)z.seq);
    int32_t x = lf_mb_input(m, "input", z.batch, 3, LF__VIT_SIDE, LF__VIT_SIDE);
    x = lf_mb_conv(m, "conv_proj", x, LF__VIT_D, LF__VIT_PATCH, LF__VIT_PATCH, 0, 1, 1,
                   LF_MB_BIAS);
    x = lf__reshape(m, "Reshape", x, 0, 1, LF__VIT_D, side * side);
    x = lf__transpose(m, "Transpose", x, 0, 1, 3, 2);
    lf_attrs cat = {0};
    cat.axes = LF_AXES(LF_DIM_H);
    int32_t cls = lf_mb_const(m, "class_token", 1, 1, 1, LF__VIT_D);
    x = lf__op2(m, LF_OP_CONCAT, "Concat", &cat, cls, x);
    lf_mb_push(m, "encoder");
    int32_t pos = lf_mb_const(m, "pos_embedding", 1, 1, tokens, LF__VIT_D);
    x = lf__op2(m, LF_OP_ADD, "Add", NULL, x, pos);
    for (int32_t l = 0; l < z.layers; l++) {
        lf_mb_push(m, "layers.encoder_layer_%d", (int)l);
        int32_t h = lf__layernorm(m, "ln_1", x);
        h = lf__attention(m, h, z.batch, tokens);
        x = lf__op2(m, LF_OP_ADD, "Add", NULL, h, x);
        h = lf__layernorm(m, "ln_2", x);
        h = lf__mlp(m, h);
        x = lf__op2(m, LF_OP_ADD, "Add_1", NULL, x, h);
        lf_mb_pop(m);
    }
    x = lf__layernorm(m, "ln", x);
    lf_mb_pop(m);
    x = lf__slice(m, "class_token_out", x, LF_DIM_H, 0, 1);
    x = lf__reshape(m, "flatten", x, 0, LF__VIT_D, 1, 1);
    lf_mb_gemm(m, "heads.head", x, 1000, LF_MB_BIAS);
    return lf_mb_finish(m, out);
}

lf_status lf_model_vit_b_16_seq(const lf_model_options *opt, const lf_model_seq_options *seq,
                                lf_graph **out)
{
    return lf__build(opt, seq, out);
}

lf_status lf_model_vit_b_16(const lf_model_options *opt, lf_graph **out)
{
    return lf__build(opt, NULL, out);
}

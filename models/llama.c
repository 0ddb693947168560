/* Llama 3 8B (Meta, 2024; Hugging Face `LlamaForCausalLM`): a causal decoder
 * of pre-norm blocks with RMSNorm, rotary position embeddings, grouped-query
 * attention and a SwiGLU FFN. D = 4096, 32 layers, 32 query heads and 8
 * key/value heads of dh = 128, FFN 14336, vocabulary 128256, LM head untied.
 *
 *   per block: a = h + o_proj(attn(rope(q_proj(n)), rope(k_proj(n)), v_proj(n))),
 *              n = input_layernorm(h)
 *              h = a + down_proj(silu(gate_proj(m)) * up_proj(m)),
 *              m = post_attention_layernorm(a)
 *   logits = lm_head(norm(h))
 *
 * RMSNorm is one op (LF_OP_RMSNORM, ONNX's RMSNormalization) over D with
 * epsilon 1e-5 and HF's weight; the importer makes torch's written-out form
 * (Pow, ReduceMean, Add, Sqrt, Div or Reciprocal, Mul) that op too. Rotary embeddings act on q and k after the heads are
 * split (B x heads x T x 128): x * cos + rotate_half(x) * sin with
 * rotate_half(x) = Concat(-x[64:], x[:64]) over W. cos and sin (T x 128, from
 * the positions and theta 500000) are activations in HF's graph, computed
 * once from the position ids: here they are the graph inputs `rope_cos` and
 * `rope_sin` (1 x 1 x T x 128), read by every layer.
 *
 * Grouped-query attention: the 4 query heads of one key/value head are
 * stacked along H (transformer.c, lf_tf_attention), so K and V are read per
 * key/value head; the Softmax's causal attribute is 4 (four stacks).
 *
 * The token lookup is a Gather of `model.embed_tokens` (128256 x 4096,
 * untied from the LM head) by the graph input `input_ids`; the cost models
 * price the T rows it reads.
 * Default length 2048 tokens, up to 8192 (the context Llama 3 was trained
 * for). Decode: as GPT-2 (gpt2.c), the caches are B x 8 x P x 128 per layer,
 * the keys cached after the rotation. */
#include "models/networks.h"

#define LF__LLAMA_D 4096
#define LF__LLAMA_HEADS 32
#define LF__LLAMA_KV_HEADS 8
#define LF__LLAMA_HEAD_DIM 128
#define LF__LLAMA_FFN 14336
#define LF__LLAMA_VOCAB 128256

static int32_t lf__op2(lf_mb *m, lf_op_type t, const char *name, const lf_attrs *a, int32_t x,
                       int32_t y)
{
    int32_t in[2] = {x, y};
    return lf_mb_op(m, t, name, a, in, 2);
}

/* One RMSNorm op over D (x / sqrt(mean(x^2) + 1e-5) * weight), named like
 * HF's module, its weight HF's `NAME.weight`. */
static int32_t lf__rmsnorm(lf_mb *m, const char *name, int32_t x)
{
    lf_mb_push(m, "%s", name);
    lf_attrs a = {0};
    a.axes = LF_AXES(LF_DIM_W);
    a.epsilon = 1e-5f;
    int32_t in[2] = {x, lf_mb_const(m, "weight", 1, 1, 1, lf_mb_shape(m, x).w)};
    int32_t y = lf_mb_op(m, LF_OP_RMSNORM, NULL, &a, in, 2);
    lf_mb_pop(m);
    return y;
}

static int32_t lf__rope(lf_mb *m, const char *name, int32_t x, int32_t cos, int32_t sin)
{
    const int32_t half = LF__LLAMA_HEAD_DIM / 2;
    lf_mb_push(m, "%s", name);
    lf_attrs s = {0};
    s.axes = LF_AXES(LF_DIM_W);
    s.slice_begin = 0, s.slice_end = half;
    int32_t x1 = lf_mb_op(m, LF_OP_SLICE, "first_half", &s, &x, 1);
    s.slice_begin = half, s.slice_end = 2 * half;
    int32_t x2 = lf_mb_op(m, LF_OP_SLICE, "second_half", &s, &x, 1);
    x2 = lf_mb_op(m, LF_OP_NEG, "neg", NULL, &x2, 1);
    lf_attrs c = {0};
    c.axes = LF_AXES(LF_DIM_W);
    int32_t rot = lf__op2(m, LF_OP_CONCAT, "rotate_half", &c, x2, x1);
    int32_t a = lf__op2(m, LF_OP_MUL, "mul_cos", NULL, x, cos);
    int32_t b = lf__op2(m, LF_OP_MUL, "mul_sin", NULL, rot, sin);
    int32_t y = lf__op2(m, LF_OP_ADD, "add", NULL, a, b);
    lf_mb_pop(m);
    return y;
}

static int32_t lf__block(lf_mb *m, const lf_tf_sizes *z, int32_t layer, int32_t x, int32_t cos,
                         int32_t sin)
{
    const int32_t d = LF__LLAMA_D, kv = LF__LLAMA_KV_HEADS * LF__LLAMA_HEAD_DIM;
    lf_mb_push(m, "model.layers.%d", (int)layer);
    int32_t h = lf__rmsnorm(m, "input_layernorm", x);
    lf_mb_push(m, "self_attn");
    int32_t q = lf_tf_linear(m, "q_proj", h, d, 0);
    int32_t k = lf_tf_linear(m, "k_proj", h, kv, 0);
    int32_t v = lf_tf_linear(m, "v_proj", h, kv, 0);
    q = lf_tf_split_heads(m, "query", q, LF__LLAMA_HEADS);
    k = lf_tf_split_heads(m, "key", k, LF__LLAMA_KV_HEADS);
    v = lf_tf_split_heads(m, "value", v, LF__LLAMA_KV_HEADS);
    q = lf__rope(m, "rope_q", q, cos, sin);
    k = lf__rope(m, "rope_k", k, cos, sin);
    int32_t o;
    if (z->decode) {
        lf_tf_decode_cache(m, &k, &v, z);
        o = lf_tf_attention(m, q, k, v, 0);
    } else {
        o = lf_tf_attention(m, q, k, v, 1);
    }
    o = lf_tf_merge_heads(m, "merge", o);
    o = lf_tf_linear(m, "o_proj", o, d, 0);
    lf_mb_pop(m);
    x = lf__op2(m, LF_OP_ADD, "add", NULL, x, o);
    h = lf__rmsnorm(m, "post_attention_layernorm", x);
    lf_mb_push(m, "mlp");
    int32_t g = lf_tf_linear(m, "gate_proj", h, LF__LLAMA_FFN, 0);
    g = lf_mb_silu(m, "act", g);
    int32_t u = lf_tf_linear(m, "up_proj", h, LF__LLAMA_FFN, 0);
    g = lf__op2(m, LF_OP_MUL, "mul", NULL, g, u);
    g = lf_tf_linear(m, "down_proj", g, d, 0);
    lf_mb_pop(m);
    x = lf__op2(m, LF_OP_ADD, "add_1", NULL, x, g);
    lf_mb_pop(m);
    return x;
}

static lf_status lf__build(const lf_model_options *opt, const lf_model_seq_options *seq,
                           lf_graph **out)
{
    lf_mb mb, *m = &mb;
    lf_tf_sizes z;
    lf_tf_begin(m, "llama3_8b", opt, seq, &z);
    int32_t ids = lf_tf_ids(m, "input_ids", &z);
    int32_t cos = lf_mb_input(m, "rope_cos", 1, 1, z.seq, LF__LLAMA_HEAD_DIM);
    int32_t sin = lf_mb_input(m, "rope_sin", 1, 1, z.seq, LF__LLAMA_HEAD_DIM);
    int32_t x = lf_tf_lookup(m, "model.embed_tokens", ids, LF__LLAMA_VOCAB, LF__LLAMA_D, NULL);
    for (int32_t l = 0; l < z.layers; l++)
        x = lf__block(m, &z, l, x, cos, sin);
    x = lf__rmsnorm(m, "model.norm", x);
    lf_tf_linear(m, "lm_head", x, LF__LLAMA_VOCAB, 0);
    return lf_mb_finish(m, out);
}

lf_status lf_model_llama3_8b_seq(const lf_model_options *opt, const lf_model_seq_options *seq,
                                 lf_graph **out)
{
    return lf__build(opt, seq, out);
}

lf_status lf_model_llama3_8b(const lf_model_options *opt, lf_graph **out)
{
    return lf__build(opt, NULL, out);
}

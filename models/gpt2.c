/* GPT-2 small and medium (Hugging Face `GPT2LMHeadModel`, Radford et al.
 * 2019): a causal decoder of pre-LayerNorm blocks.
 *
 *   h = wte[ids] + wpe[positions]
 *   per block: a = h + c_proj(attn(split(c_attn(ln_1(h)))))
 *              h = a + mlp.c_proj(gelu_tanh(mlp.c_fc(ln_2(a))))
 *   logits = ln_f(h) wte^T      (the LM head is tied to the token table)
 *
 * c_attn is one Linear D -> 3D whose output is split into q, k and v (three
 * Slices over W, as the importer turns ONNX's Split). The 1/sqrt(dh) scale of
 * the scores is folded into the query columns of c_attn, so the attention
 * core is MatMul, causal Softmax, MatMul (transformer.c).
 *
 * Embeddings: Gathers of the token table by `input_ids` and of the position
 * table by `position_ids` (graph inputs of T ids; decode: one id, position P);
 * the cost models price the T rows each reads, not the tables. The LM head
 * reads the whole token table once (the same constant: counted once in the
 * parameters, lf_graph_params).
 *
 * Decode (--phase decode --context P): one token; per layer the cached keys
 * and values of P tokens are graph inputs `past_key_values.L.key` / `.value`
 * (B x heads x P x dh), concatenated with the new row before the scores
 * (N_q = 1, N_kv = P + 1); the new key and value rows are graph outputs. */
#include "models/networks.h"

typedef struct gpt2_cfg {
    const char *name;
    int32_t d, heads;
} gpt2_cfg;

#define LF__GPT2_VOCAB 50257
#define LF__GPT2_POSITIONS 1024

static int32_t lf__slice_w(lf_mb *m, const char *name, int32_t x, int32_t begin, int32_t end)
{
    lf_attrs a = {0};
    a.axes = LF_AXES(LF_DIM_W);
    a.slice_begin = begin;
    a.slice_end = end;
    return lf_mb_op(m, LF_OP_SLICE, name, &a, &x, 1);
}

static int32_t lf__block(lf_mb *m, const gpt2_cfg *cfg, const lf_tf_sizes *z, int32_t layer,
                         int32_t x)
{
    int32_t d = cfg->d;
    lf_mb_push(m, "transformer.h.%d", (int)layer);
    int32_t h = lf_tf_layernorm(m, "ln_1", x);
    lf_mb_push(m, "attn");
    int32_t qkv = lf_tf_linear(m, "c_attn", h, 3 * d, 1);
    int32_t q = lf__slice_w(m, "split_q", qkv, 0, d);
    int32_t k = lf__slice_w(m, "split_k", qkv, d, 2 * d);
    int32_t v = lf__slice_w(m, "split_v", qkv, 2 * d, 3 * d);
    q = lf_tf_split_heads(m, "query", q, cfg->heads);
    k = lf_tf_split_heads(m, "key", k, cfg->heads);
    v = lf_tf_split_heads(m, "value", v, cfg->heads);
    int32_t o;
    if (z->decode) {
        lf_tf_decode_cache(m, &k, &v, z);
        o = lf_tf_attention(m, q, k, v, 0);
    } else {
        o = lf_tf_attention(m, q, k, v, 1);
    }
    o = lf_tf_merge_heads(m, "merge", o);
    o = lf_tf_linear(m, "c_proj", o, d, 1);
    lf_mb_pop(m);
    int32_t in[2] = {o, x};
    x = lf_mb_op(m, LF_OP_ADD, "add", NULL, in, 2);
    h = lf_tf_layernorm(m, "ln_2", x);
    lf_mb_push(m, "mlp");
    h = lf_tf_linear(m, "c_fc", h, 4 * d, 1);
    lf_attrs g = {0};
    g.approximate = 1; /* GPT-2's gelu_new: the tanh approximation */
    h = lf_mb_op(m, LF_OP_GELU, "act", &g, &h, 1);
    h = lf_tf_linear(m, "c_proj", h, d, 1);
    lf_mb_pop(m);
    int32_t in2[2] = {h, x};
    x = lf_mb_op(m, LF_OP_ADD, "add_1", NULL, in2, 2);
    lf_mb_pop(m);
    return x;
}

static lf_status lf__build(const gpt2_cfg *cfg, const lf_model_options *opt,
                           const lf_model_seq_options *seq, lf_graph **out)
{
    lf_mb mb, *m = &mb;
    lf_tf_sizes z;
    lf_tf_begin(m, cfg->name, opt, seq, &z);
    int32_t ids = lf_tf_ids(m, "input_ids", &z), pos = lf_tf_ids(m, "position_ids", &z), wte;
    int32_t x = lf_tf_lookup(m, "transformer.wte", ids, LF__GPT2_VOCAB, cfg->d, &wte);
    /* positions 0..T-1, or P in decode: the rows of the table this graph reads */
    int32_t wpe = lf_tf_lookup(m, "transformer.wpe", pos, LF__GPT2_POSITIONS, cfg->d, NULL);
    int32_t in[2] = {x, wpe};
    x = lf_mb_op(m, LF_OP_ADD, "transformer.add_positions", NULL, in, 2);
    for (int32_t l = 0; l < z.layers; l++)
        x = lf__block(m, cfg, &z, l, x);
    x = lf_tf_layernorm(m, "transformer.ln_f", x);
    lf_attrs t = {0};
    t.trans_b = 1; /* tied: logits = h wte^T, the table read once */
    int32_t head[2] = {x, wte};
    lf_mb_op(m, LF_OP_MATMUL, "lm_head", &t, head, 2);
    return lf_mb_finish(m, out);
}

static const gpt2_cfg lf__small = {"gpt2", 768, 12}, lf__medium = {"gpt2_medium", 1024, 16};

lf_status lf_model_gpt2_seq(const lf_model_options *opt, const lf_model_seq_options *seq,
                            lf_graph **out)
{
    return lf__build(&lf__small, opt, seq, out);
}

lf_status lf_model_gpt2(const lf_model_options *opt, lf_graph **out)
{
    return lf__build(&lf__small, opt, NULL, out);
}

lf_status lf_model_gpt2_medium_seq(const lf_model_options *opt, const lf_model_seq_options *seq,
                                   lf_graph **out)
{
    return lf__build(&lf__medium, opt, seq, out);
}

lf_status lf_model_gpt2_medium(const lf_model_options *opt, lf_graph **out)
{
    return lf__build(&lf__medium, opt, NULL, out);
}

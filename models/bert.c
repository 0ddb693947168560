/* BERT-base and BERT-large (Devlin et al. 2019; Hugging Face `BertModel`,
 * uncased, vocabulary 30522): an encoder of post-LayerNorm blocks and the
 * pooler.
 *
 *   e = LayerNorm(word[input_ids] + token_type[token_type_ids] + position[position_ids])
 *   per block: a = LayerNorm(x + attention.output.dense(attn(query(x), key(x), value(x))))
 *              x = LayerNorm(a + output.dense(gelu(intermediate.dense(a))))
 *   outputs: x (last_hidden_state) and pooler: tanh(dense(x[:, 0]))
 *
 * Attention is not masked (one sequence, no padding); the 1/sqrt(dh) scale is
 * folded into the query projection. GELU is the exact (erf) one, LayerNorm's
 * epsilon 1e-12. base: D = 768, 12 layers, 12 heads; large: D = 1024, 24
 * layers, 16 heads; FFN 4D.
 *
 * Embeddings: three Gathers (word, position, token type tables) by the graph
 * inputs `input_ids`, `position_ids`, `token_type_ids` (T ids each); the cost
 * models price the T rows each reads (the 2-row token type table, smaller
 * than that, whole). Default length 128, up to 512 (the position table). */
#include "models/networks.h"

typedef struct bert_cfg {
    const char *name;
    int32_t d, heads;
} bert_cfg;

#define LF__BERT_VOCAB 30522  /* uncased WordPiece */
#define LF__BERT_POSITIONS 512
#define LF__BERT_TYPES 2      /* segments A and B */

static int32_t lf__op2(lf_mb *m, lf_op_type t, const char *name, const lf_attrs *a, int32_t x,
                       int32_t y)
{
    int32_t in[2] = {x, y};
    return lf_mb_op(m, t, name, a, in, 2);
}

static int32_t lf__layernorm(lf_mb *m, const char *name, int32_t x)
{
    lf_attrs a = {0};
    a.axes = LF_AXES(LF_DIM_W);
    a.has_bias = 1;
    a.epsilon = 1e-12f;
    return lf_mb_op(m, LF_OP_LAYERNORM, name, &a, &x, 1);
}

static int32_t lf__block(lf_mb *m, const bert_cfg *cfg, int32_t layer, int32_t x)
{
    const int32_t d = cfg->d;
    lf_mb_push(m, "encoder.layer.%d", (int)layer);
    lf_mb_push(m, "attention");
    lf_mb_push(m, "self");
    int32_t q = lf_tf_split_heads(m, "query_heads", lf_tf_linear(m, "query", x, d, 1), cfg->heads);
    int32_t k = lf_tf_split_heads(m, "key_heads", lf_tf_linear(m, "key", x, d, 1), cfg->heads);
    int32_t v = lf_tf_split_heads(m, "value_heads", lf_tf_linear(m, "value", x, d, 1), cfg->heads);
    int32_t o = lf_tf_attention(m, q, k, v, 0);
    o = lf_tf_merge_heads(m, "merge", o);
    lf_mb_pop(m);
    lf_mb_push(m, "output");
    o = lf_tf_linear(m, "dense", o, d, 1);
    o = lf__op2(m, LF_OP_ADD, "add", NULL, o, x);
    x = lf__layernorm(m, "LayerNorm", o);
    lf_mb_pop(m);
    lf_mb_pop(m);
    int32_t h = lf_tf_linear(m, "intermediate.dense", x, 4 * d, 1);
    h = lf_mb_op(m, LF_OP_GELU, "intermediate.act", NULL, &h, 1);
    lf_mb_push(m, "output");
    h = lf_tf_linear(m, "dense", h, d, 1);
    h = lf__op2(m, LF_OP_ADD, "add", NULL, h, x);
    x = lf__layernorm(m, "LayerNorm", h);
    lf_mb_pop(m);
    lf_mb_pop(m);
    return x;
}

static lf_status lf__build(const bert_cfg *cfg, const lf_model_options *opt,
                           const lf_model_seq_options *seq, lf_graph **out)
{
    lf_mb mb, *m = &mb;
    lf_tf_sizes z;
    lf_tf_begin(m, cfg->name, opt, seq, &z);
    int32_t ids = lf_tf_ids(m, "input_ids", &z), pids = lf_tf_ids(m, "position_ids", &z);
    int32_t tids = lf_tf_ids(m, "token_type_ids", &z);
    lf_mb_push(m, "embeddings");
    int32_t x = lf_tf_lookup(m, "word_embeddings", ids, LF__BERT_VOCAB, cfg->d, NULL);
    int32_t pos = lf_tf_lookup(m, "position_embeddings", pids, LF__BERT_POSITIONS, cfg->d, NULL);
    int32_t type = lf_tf_lookup(m, "token_type_embeddings", tids, LF__BERT_TYPES, cfg->d, NULL);
    x = lf__op2(m, LF_OP_ADD, "add_token_type", NULL, x, type);
    x = lf__op2(m, LF_OP_ADD, "add_positions", NULL, x, pos);
    x = lf__layernorm(m, "LayerNorm", x);
    lf_mb_pop(m);
    for (int32_t l = 0; l < z.layers; l++)
        x = lf__block(m, cfg, l, x);
    lf_mb_output(m, x); /* last_hidden_state, also read by the pooler */
    lf_attrs s = {0};
    s.axes = LF_AXES(LF_DIM_H);
    s.slice_begin = 0, s.slice_end = 1;
    int32_t p = lf_mb_op(m, LF_OP_SLICE, "pooler.first_token", &s, &x, 1);
    p = lf_tf_linear(m, "pooler.dense", p, cfg->d, 1);
    lf_mb_op(m, LF_OP_TANH, "pooler.activation", NULL, &p, 1);
    return lf_mb_finish(m, out);
}

static const bert_cfg lf__base = {"bert_base", 768, 12}, lf__large = {"bert_large", 1024, 16};

lf_status lf_model_bert_base_seq(const lf_model_options *opt, const lf_model_seq_options *seq,
                                 lf_graph **out)
{
    return lf__build(&lf__base, opt, seq, out);
}

lf_status lf_model_bert_base(const lf_model_options *opt, lf_graph **out)
{
    return lf__build(&lf__base, opt, NULL, out);
}

lf_status lf_model_bert_large_seq(const lf_model_options *opt, const lf_model_seq_options *seq,
                                  lf_graph **out)
{
    return lf__build(&lf__large, opt, seq, out);
}

lf_status lf_model_bert_large(const lf_model_options *opt, lf_graph **out)
{
    return lf__build(&lf__large, opt, NULL, out);
}

/* Build functions of the built-in networks (one family per file) and the
 * helpers they share. Internal to models/: the public entry points are in
 * models/registry.h. */
#ifndef LF_MODELS_NETWORKS_H
#define LF_MODELS_NETWORKS_H

#include <stdint.h>

#include "models/builder.h"
#include "models/registry.h"

/* The built-in networks, in the order `fusionplan models` lists them:
 * X(name, family, default input size, smallest input size). The registry's
 * table (registry.c) and lf_models_begin's size check (begin.c) are both made
 * from it. Each name has a build function lf_model_<name>.
 *
 * min_input: inception_v3 needs 75 (its last stride-2 stage needs a 3x3 map);
 * vgg16's classifier pools the 1/32 feature map to 7x7, which only maps onto a
 * plain AveragePool when that map is a multiple of 7 (so 224 and up, see
 * vgg.c); every other network accepts any size, and 32 (one pixel after five
 * stride-2 stages) is the floor we accept for them. */
#define LF__MODEL_LIST(X)                                          \
    X(vgg16, "vgg", 224, 224)                                      \
    X(squeezenet1_0, "squeezenet", 224, 32)                        \
    X(squeezenet1_1, "squeezenet", 224, 32)                        \
    X(resnet18, "resnet", 224, 32)                                 \
    X(resnet34, "resnet", 224, 32)                                 \
    X(resnet50, "resnet", 224, 32)                                 \
    X(resnet101, "resnet", 224, 32)                                \
    X(resnet152, "resnet", 224, 32)                                \
    X(mobilenet_v2, "mobilenet", 224, 32)                          \
    X(mobilenet_v3_small, "mobilenet", 224, 32)                    \
    X(mobilenet_v3_large, "mobilenet", 224, 32)                    \
    X(efficientnet_b0, "efficientnet", 224, 32)                    \
    X(efficientnet_b3, "efficientnet", 300, 32)                    \
    X(inception_v3, "inception", 299, 75)                          \
    X(resnext50_32x4d, "resnet", 224, 32)                          \
    X(deeplabv3_mobilenet_v3_large, "deeplab", 513, 32)           \
    X(nasnet_a, "nasnet", 224, 32)                                 \
    X(randwire, "randwire", 224, 32)

/* The built-in transformers (DESIGN §16), listed after the CNNs:
 * X(name, family, kind, default sequence length, longest sequence, layers).
 * The longest sequence is the learned position table's rows (ViT, BERT,
 * GPT-2) or the context the network was trained for (Llama 3: 8192). */
#define LF__TRANSFORMER_LIST(X)                                        \
    X(vit_b_16, "vit", LF_MODEL_ENCODER, 197, 197, 12)                  \
    X(bert_base, "bert", LF_MODEL_ENCODER, 128, 512, 12)                \
    X(bert_large, "bert", LF_MODEL_ENCODER, 128, 512, 24)               \
    X(gpt2, "gpt2", LF_MODEL_DECODER, 1024, 1024, 12)                   \
    X(gpt2_medium, "gpt2", LF_MODEL_DECODER, 1024, 1024, 24)            \
    X(llama3_8b, "llama", LF_MODEL_DECODER, 2048, 8192, 32)

/* Resolves a network's input size and batch from the options against its
 * registry entry (0 = default), checking the range; LF_ERANGE with a message
 * naming the network otherwise. Also starts the builder and adds the graph
 * input "input" (batch x 3 x size x size), returning its handle in *input. */
lf_status lf_models_begin(lf_mb *m, const char *model, const lf_model_options *opt,
                          int32_t *size, int32_t *input); /* begin.c */

/* vgg.c */
lf_status lf_model_vgg16(const lf_model_options *opt, lf_graph **out);
/* squeezenet.c */
lf_status lf_model_squeezenet1_0(const lf_model_options *opt, lf_graph **out);
lf_status lf_model_squeezenet1_1(const lf_model_options *opt, lf_graph **out);
/* resnet.c */
lf_status lf_model_resnet18(const lf_model_options *opt, lf_graph **out);
lf_status lf_model_resnet34(const lf_model_options *opt, lf_graph **out);
lf_status lf_model_resnet50(const lf_model_options *opt, lf_graph **out);
lf_status lf_model_resnet101(const lf_model_options *opt, lf_graph **out);
lf_status lf_model_resnet152(const lf_model_options *opt, lf_graph **out);
lf_status lf_model_resnext50_32x4d(const lf_model_options *opt, lf_graph **out);
/* mobilenet_v2.c */
lf_status lf_model_mobilenet_v2(const lf_model_options *opt, lf_graph **out);
/* mobilenet_v3.c */
lf_status lf_model_mobilenet_v3_small(const lf_model_options *opt, lf_graph **out);
lf_status lf_model_mobilenet_v3_large(const lf_model_options *opt, lf_graph **out);
/* efficientnet.c */
lf_status lf_model_efficientnet_b0(const lf_model_options *opt, lf_graph **out);
lf_status lf_model_efficientnet_b3(const lf_model_options *opt, lf_graph **out);
/* inception.c */
lf_status lf_model_inception_v3(const lf_model_options *opt, lf_graph **out);
/* nasnet.c */
lf_status lf_model_nasnet_a(const lf_model_options *opt, lf_graph **out);
/* randwire.c: RandWire-WS(32, 4, 0.75), C = 78, seed 1 (randwire.h) */
lf_status lf_model_randwire(const lf_model_options *opt, lf_graph **out);
/* deeplab.c */
lf_status lf_model_deeplabv3_mobilenet_v3_large(const lf_model_options *opt, lf_graph **out);

/* vit.c */
lf_status lf_model_vit_b_16(const lf_model_options *opt, lf_graph **out);
lf_status lf_model_vit_b_16_seq(const lf_model_options *opt, const lf_model_seq_options *seq,
                                lf_graph **out);
/* bert.c */
lf_status lf_model_bert_base(const lf_model_options *opt, lf_graph **out);
lf_status lf_model_bert_base_seq(const lf_model_options *opt, const lf_model_seq_options *seq,
                                 lf_graph **out);
lf_status lf_model_bert_large(const lf_model_options *opt, lf_graph **out);
lf_status lf_model_bert_large_seq(const lf_model_options *opt, const lf_model_seq_options *seq,
                                  lf_graph **out);
/* gpt2.c */
lf_status lf_model_gpt2(const lf_model_options *opt, lf_graph **out);
lf_status lf_model_gpt2_seq(const lf_model_options *opt, const lf_model_seq_options *seq,
                            lf_graph **out);
lf_status lf_model_gpt2_medium(const lf_model_options *opt, lf_graph **out);
lf_status lf_model_gpt2_medium_seq(const lf_model_options *opt, const lf_model_seq_options *seq,
                                   lf_graph **out);
/* llama.c */
lf_status lf_model_llama3_8b(const lf_model_options *opt, lf_graph **out);
lf_status lf_model_llama3_8b_seq(const lf_model_options *opt, const lf_model_seq_options *seq,
                                 lf_graph **out);

/* transformer.c: what the transformer families share. Activations are in
 * the layout the ONNX importer gives torch's [B, T, D] (docs/ir.md):
 * N = B, C = 1, H = T tokens, W = D; heads split off by Reshape and
 * Transpose to B x heads x T x dh. */

/* A transformer build's sizes, resolved from the options against the
 * network's entry of LF__TRANSFORMER_LIST (0 = default), checked. */
typedef struct lf_tf_sizes {
    int32_t batch, seq, layers;  /* seq: tokens of this graph (decode: 1) */
    int32_t decode, context;     /* decode: the step after `context` cached tokens */
} lf_tf_sizes;

/* Checks the options and starts the builder (LF_ERANGE / LF_EINVAL with a
 * message naming the network and the option). */
lf_status lf_tf_begin(lf_mb *m, const char *model, const lf_model_options *opt,
                      const lf_model_seq_options *seq, lf_tf_sizes *z);

/* torch Linear on B x 1 x T x D: MatMul by a constant {1, 1, D, out}
 * ("<name>.weight", stored transposed as the exporter stores it) and, with
 * bias, Add of "<name>.bias" {1, 1, 1, out}. */
int32_t lf_tf_linear(lf_mb *m, const char *name, int32_t x, int32_t out, int bias);
/* LayerNormalization over D with scale and bias. */
int32_t lf_tf_layernorm(lf_mb *m, const char *name, int32_t x);
/* B x 1 x T x (heads * dh) -> B x heads x T x dh (Reshape, Transpose) and back. */
int32_t lf_tf_split_heads(lf_mb *m, const char *name, int32_t x, int32_t heads);
int32_t lf_tf_merge_heads(lf_mb *m, const char *name, int32_t x);
/* The attention core of q (B x Hq x Tq x dh), k and v (B x Hkv x Tkv x dh):
 * S = MatMul(q, k, trans_b), Softmax over W (causal: LF softmax attribute,
 * see docs/ir.md), O = MatMul(P, v). Grouped-query attention (Hq > Hkv)
 * stacks the query heads of one key/value head along H first. The 1/sqrt(dh)
 * scale is folded into the query projection. Returns O, B x Hq x Tq x dh. */
int32_t lf_tf_attention(lf_mb *m, int32_t q, int32_t k, int32_t v, int causal);
/* The graph input `name` of this graph's token ids, B x 1 x T x 1 (float
 * values that are exact row numbers: docs/ir.md). Graph inputs come before
 * every op (as an ONNX file lists them), so a network adds all of them first. */
int32_t lf_tf_ids(lf_mb *m, const char *name, const lf_tf_sizes *z);
/* An embedding lookup, B x 1 x T x d: Gather of the constant table
 * `<name>.weight` (rows x d) by the ids (lf_tf_ids), the op named `name`.
 * The cost models price the T rows it reads, not the table (DESIGN §16).
 * *table, when not NULL, receives the table's handle (a tied LM head reads
 * it again). */
int32_t lf_tf_lookup(lf_mb *m, const char *name, int32_t ids, int64_t rows, int32_t d,
                     int32_t *table);
/* Decode: marks the new key and value rows *k, *v (B x h x 1 x dh) as graph
 * outputs and replaces them by Concat over H of the cache inputs `past_key`,
 * `past_value` (B x h x context x dh, named under the current prefix) and
 * the new rows. */
void lf_tf_decode_cache(lf_mb *m, int32_t *k, int32_t *v, const lf_tf_sizes *z);

/* mobilenet_v3.c: the `features` of MobileNetV3-Large (stem, 15 inverted
 * residual blocks, the 1x1 conv to 960 channels) under the current name
 * prefix. dilated = 1 gives the segmentation variant: the last stage (blocks
 * 13..15) keeps stride 1 and uses dilation 2, for an output stride of 16.
 * Returns the handle of the last tensor. */
int32_t lf_mnv3_large_features(lf_mb *m, int32_t x, int32_t dilated);

#endif

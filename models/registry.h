/* Registry of the built-in networks (torchvision architectures, BatchNorm
 * folded into the preceding conv, activations as separate ops, node names
 * following torchvision's module names). */
#ifndef LF_MODELS_REGISTRY_H
#define LF_MODELS_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "planner/graph.h"

/* Largest accepted input side and batch: far beyond any real use, small
 * enough that tensor sizes and MACs stay well inside int64 for every
 * network. The CLI's --input-size and --batch take the same bounds. */
#define LF_MODEL_MAX_INPUT 4096
#define LF_MODEL_MAX_BATCH 65536

/* Longest accepted sequence (tokens) and most layers of a transformer: every
 * network's own limit is lower (its position table, its depth). */
#define LF_MODEL_MAX_SEQ 131072
#define LF_MODEL_MAX_CONTEXT 131072

/* What a transformer's graph computes (DESIGN §16): the whole sequence at
 * once (prefill; the only phase of encoders) or one token's step with the
 * key/value cache of the previous tokens as graph inputs (decode). */
typedef enum lf_model_phase { LF_PHASE_PREFILL = 0, LF_PHASE_DECODE = 1 } lf_model_phase;

typedef struct lf_model_options {
    int32_t input_size;  /* square input resolution; 0 = the network's default */
    int32_t batch;       /* 0 = 1 */
} lf_model_options;

/* Options of the transformers (0 = the network's own; a CNN given any of
 * them fails). A struct of its own so that every lf_model_options
 * initializer stays complete. */
typedef struct lf_model_seq_options {
    int32_t seq_len;     /* tokens of a prefill */
    int32_t layers;      /* blocks to build, 1 .. the network's depth */
    lf_model_phase phase;/* decoders: prefill or decode */
    int32_t context;     /* decode: tokens already in the key/value cache (0 = the network's
                            default length) */
} lf_model_seq_options;

/* What kind of network an entry is. */
typedef enum lf_model_kind {
    LF_MODEL_CNN = 0,     /* an image network: --input-size */
    LF_MODEL_ENCODER = 1, /* a transformer encoder: --seq-len, --layers (ViT: --input-size too) */
    LF_MODEL_DECODER = 2  /* a causal decoder: also --phase decode --context P */
} lf_model_kind;

typedef struct lf_model_entry {
    const char *name;           /* "resnet50" */
    const char *family;         /* "resnet" */
    int32_t default_input;      /* 224, 299, 300, 513; transformers: the default sequence
                                   length (ViT: tokens of a 224 image, 197) */
    int32_t min_input;          /* smallest input size the architecture accepts; transformers:
                                   1 (ViT: 224's tokens are fixed by the image, see vit.c) */
    lf_status (*build)(const lf_model_options *opt, lf_graph **out); /* default sizes of
                                                                        the transformer options */
    lf_model_kind kind;         /* CNN, encoder or decoder */
    lf_status (*build_seq)(const lf_model_options *opt, const lf_model_seq_options *seq,
                           lf_graph **out); /* transformers; NULL for CNNs */
    int32_t max_seq;            /* transformers: longest sequence (position table, context) */
    int32_t depth;              /* transformers: the network's own number of blocks */
} lf_model_entry;

/* All built-in networks, in the order `fusionplan models` lists them. */
const lf_model_entry *lf_models(int32_t *count);

/* 1 when name is a built-in network. */
int lf_model_known(const char *name);

/* Every built-in network's name, comma-separated, into buf (len bytes,
 * truncated to fit); returns buf. */
char *lf_model_names(char *buf, size_t len);

/* Builds a network by name. Unknown names give LF_ENOTFOUND with a message
 * listing the known ones; input sizes below min_input or above 4096 give
 * LF_ERANGE. */
lf_status lf_model_build(const char *name, const lf_model_options *opt, lf_graph **out);

/* The same with the transformer options (seq may be NULL: the defaults). A
 * CNN given a non-zero one, decode for an encoder, or a size out of range
 * gives LF_EINVAL / LF_ERANGE with one line naming the network. */
lf_status lf_model_build_seq(const char *name, const lf_model_options *opt,
                             const lf_model_seq_options *seq, lf_graph **out);

#endif

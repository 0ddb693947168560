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

typedef struct lf_model_options {
    int32_t input_size;  /* square input resolution; 0 = the network's default */
    int32_t batch;       /* 0 = 1 */
} lf_model_options;

typedef struct lf_model_entry {
    const char *name;           /* "resnet50" */
    const char *family;         /* "resnet" */
    int32_t default_input;      /* 224, 299, 300, 513 */
    int32_t min_input;          /* smallest input size the architecture accepts */
    lf_status (*build)(const lf_model_options *opt, lf_graph **out);
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

#endif

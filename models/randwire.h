/* RandWire (Xie et al., "Exploring Randomly Wired Neural Networks for Image
 * Recognition", 2019), small regime, with Watts-Strogatz random graphs: a
 * network DOS and IOS schedule (DESIGN §11, §12). In the model registry as
 * "randwire" with the defaults below (lf_model_randwire, networks.h); other
 * generator settings through lf_model_randwire_ws. */
#ifndef LF_MODELS_RANDWIRE_H
#define LF_MODELS_RANDWIRE_H

#include <stdint.h>

#include "models/registry.h"

typedef struct lf_randwire_config {
    int32_t channels;  /* C: conv2 and the first random stage (small regime: 78) */
    int32_t nodes;     /* N: nodes of each random graph (32) */
    int32_t k;         /* WS: each node starts joined to its k nearest ring neighbours (4) */
    double p;          /* WS: probability of rewiring each edge (0.75) */
    uint64_t seed;     /* the three graphs come from seed, seed + 1, seed + 2 (1) */
} lf_randwire_config;

void lf_randwire_config_default(lf_randwire_config *c);

/* Builds RandWire-WS(N, K, P), small regime, at opt's input size (default
 * 224) and batch. Same config -> the same graph on every platform. */
lf_status lf_model_randwire_ws(const lf_randwire_config *c, const lf_model_options *opt, lf_graph **out);

#endif

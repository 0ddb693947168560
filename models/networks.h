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

/* mobilenet_v3.c: the `features` of MobileNetV3-Large (stem, 15 inverted
 * residual blocks, the 1x1 conv to 960 channels) under the current name
 * prefix. dilated = 1 gives the segmentation variant: the last stage (blocks
 * 13..15) keeps stride 1 and uses dilation 2, for an output stride of 16.
 * Returns the handle of the last tensor. */
int32_t lf_mnv3_large_features(lf_mb *m, int32_t x, int32_t dilated);

#endif

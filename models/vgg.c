/* VGG-16 (torchvision `vgg16`, configuration "D", no BatchNorm).
 *
 * features: thirteen 3x3 convolutions with bias, each followed by ReLU, and a
 * 2x2 max pool after each of the five stages; indices follow the nn.Sequential
 * (features.0 conv, features.1 relu, ..., features.30 the last pool).
 * avgpool: AdaptiveAvgPool2d((7, 7)); flatten; classifier: Linear 25088->4096,
 * ReLU, Dropout, Linear 4096->4096, ReLU, Dropout, Linear 4096->1000 (the
 * dropouts are omitted but keep their indices, as in the module names). */
#include <stdio.h>

#include "models/networks.h"

/* Output channels per conv; 0 marks a max pool. */
static const int32_t vgg16_cfg[] = {64,  64,  0,   128, 128, 0,   256, 256, 256,
                                    0,   512, 512, 512, 0,   512, 512, 512, 0};

lf_status lf_model_vgg16(const lf_model_options *opt, lf_graph **out)
{
    lf_mb mb, *m = &mb;
    int32_t size, x;
    lf_models_begin(m, "vgg16", opt, &size, &x);

    /* The adaptive pool to 7x7 exports as an AveragePool with kernel =
     * stride = map / 7, which requires the 1/32 feature map to be a multiple of
     * 7 (at 224 it is 7x7 and the pool is the identity, kept because the
     * exported graph has it). Other sizes would need overlapping, uneven bins
     * that no AveragePool expresses. */
    int32_t fmap = size / 32;
    if (fmap % 7 != 0)
        lf_mb_fail(m, LF_ERANGE,
                   "vgg16: input size %d gives a %dx%d feature map; the classifier's adaptive "
                   "pool to 7x7 needs a multiple of 7 (inputs 224-255, 448-479, ...)",
                   (int)size, (int)fmap, (int)fmap);

    lf_mb_push(m, "features");
    int32_t idx = 0;
    for (size_t i = 0; i < sizeof vgg16_cfg / sizeof vgg16_cfg[0]; i++) {
        char name[16];
        if (vgg16_cfg[i] == 0) {
            snprintf(name, sizeof name, "%d", (int)idx++);
            x = lf_mb_maxpool(m, name, x, 2, 2, 0, 0);
            continue;
        }
        snprintf(name, sizeof name, "%d", (int)idx++);
        x = lf_mb_conv(m, name, x, vgg16_cfg[i], 3, 1, 1, 1, 1, LF_MB_BIAS);
        snprintf(name, sizeof name, "%d", (int)idx++);
        x = lf_mb_relu(m, name, x);
    }
    lf_mb_pop(m);

    x = lf_mb_avgpool(m, "avgpool", x, fmap / 7, fmap / 7, 0, 1);
    x = lf_mb_flatten(m, "flatten", x);
    x = lf_mb_gemm(m, "classifier.0", x, 4096, LF_MB_BIAS);
    x = lf_mb_relu(m, "classifier.1", x);
    x = lf_mb_gemm(m, "classifier.3", x, 4096, LF_MB_BIAS);
    x = lf_mb_relu(m, "classifier.4", x);
    lf_mb_gemm(m, "classifier.6", x, 1000, LF_MB_BIAS);
    return lf_mb_finish(m, out);
}

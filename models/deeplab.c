/* DeepLabV3 with a MobileNetV3-Large backbone (torchvision
 * `deeplabv3_mobilenet_v3_large`, 21 classes), inference graph.
 *
 * backbone: MobileNetV3-Large `features` 0..16 with the last stage (blocks
 * 13-15) dilated instead of strided, so the 960-channel output has stride 16
 * (33x33 at 513). Its modules are named backbone.<i>... because torchvision
 * wraps the features Sequential as `backbone`.
 *
 * classifier (DeepLabHead):
 *   classifier.0 ASPP over the backbone output, five parallel branches of 256
 *   channels, each conv bias-free with a folded BatchNorm and a ReLU:
 *     convs.0  1x1 conv
 *     convs.1..3  3x3 convs with padding = dilation = 12, 24, 36
 *     convs.4  ASPPPooling: global average pool (.0), 1x1 conv (.1), ReLU (.3),
 *              bilinear upsampling back to the feature map ("interpolate")
 *   "cat" of the five, then project: 1x1 conv 1280 -> 256 (.0) + ReLU (.2)
 *   (project.3 is Dropout).
 *   classifier.1 3x3 conv 256 -> 256 (BN classifier.2 folded), classifier.3 ReLU,
 *   classifier.4 1x1 conv to 21 classes with bias.
 * Finally a bilinear resize to the input size ("interpolate").
 *
 * The auxiliary FCNHead on backbone.4 (40 channels: 3x3 conv to 10 + BN,
 * ReLU, Dropout, 1x1 conv to 21 with bias; 40*10*9 + 2*10 + 10*21 + 21 = 3,851
 * parameters) only produces the training-time "aux" output and is left out:
 * torchvision's num_params of 11,029,328 counts it, this graph has
 * 11,029,328 - 3,851 = 11,025,477. */
#include "models/networks.h"

static int32_t lf__aspp_branch(lf_mb *m, int32_t x, int32_t k, int32_t dilation)
{
    int32_t pad = k == 1 ? 0 : dilation;
    x = lf_mb_conv(m, "0", x, 256, k, 1, pad, 1, dilation, LF_MB_FOLDED_BN);
    return lf_mb_relu(m, "2", x);
}

lf_status lf_model_deeplabv3_mobilenet_v3_large(const lf_model_options *opt, lf_graph **out)
{
    lf_mb mb, *m = &mb;
    int32_t size, x;
    lf_models_begin(m, "deeplabv3_mobilenet_v3_large", opt, &size, &x);

    lf_mb_push(m, "backbone");
    x = lf_mnv3_large_features(m, x, 1);
    lf_mb_pop(m);
    lf_shape f = lf_mb_shape(m, x);

    lf_mb_push(m, "classifier.0");
    int32_t b[5];
    static const int32_t rates[3] = {12, 24, 36};
    lf_mb_push(m, "convs.0");
    b[0] = lf__aspp_branch(m, x, 1, 1);
    lf_mb_pop(m);
    for (int32_t i = 0; i < 3; i++) {
        lf_mb_push(m, "convs.%d", (int)(i + 1));
        b[i + 1] = lf__aspp_branch(m, x, 3, rates[i]);
        lf_mb_pop(m);
    }
    lf_mb_push(m, "convs.4");
    int32_t p = lf_mb_global_avgpool(m, "0", x);
    p = lf_mb_conv(m, "1", p, 256, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
    p = lf_mb_relu(m, "3", p);
    b[4] = lf_mb_resize(m, "interpolate", p, (int32_t)f.h, (int32_t)f.w, 1);
    lf_mb_pop(m);
    x = lf_mb_concat(m, "cat", b, 5);
    x = lf_mb_conv(m, "project.0", x, 256, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
    x = lf_mb_relu(m, "project.2", x);
    lf_mb_pop(m);

    x = lf_mb_conv(m, "classifier.1", x, 256, 3, 1, 1, 1, 1, LF_MB_FOLDED_BN);
    x = lf_mb_relu(m, "classifier.3", x);
    x = lf_mb_conv(m, "classifier.4", x, 21, 1, 1, 0, 1, 1, LF_MB_BIAS);
    lf_mb_resize(m, "interpolate", x, size, size, 1);
    return lf_mb_finish(m, out);
}

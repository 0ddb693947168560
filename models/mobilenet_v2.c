/* MobileNetV2 (torchvision `mobilenet_v2`, width 1.0).
 *
 * features.0: 3x3/2 conv to 32 (Conv2dNormActivation: .0 conv, .1 BN folded,
 * .2 ReLU6). features.1..17: inverted residual blocks from the (t, c, n, s)
 * table. features.18: 1x1 conv to 1280 + ReLU6. Then a functional adaptive
 * average pool to 1x1, flatten, and classifier.1 Linear(1280, 1000)
 * (classifier.0 is Dropout).
 *
 * InvertedResidual (`conv` is an nn.Sequential):
 *   t != 1: conv.0 = 1x1 expansion to in*t (conv.0.0, ReLU6 conv.0.2),
 *           conv.1 = 3x3 depthwise (conv.1.0, conv.1.2), conv.2 = 1x1
 *           projection conv (no activation), conv.3 its BN (folded).
 *   t == 1: conv.0 = depthwise, conv.1 = projection, conv.2 its BN.
 * A residual add joins input and output when stride is 1 and channels match.
 * ReLU6 is exported as Clip(0, 6). */
#include "models/networks.h"

/* expansion t, output channels c, repeats n, first stride s */
static const int32_t mnv2_cfg[7][4] = {
    {1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2},  {6, 64, 4, 2},
    {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1},
};

static int32_t lf__inverted_residual(lf_mb *m, int32_t x, int32_t out_c, int32_t stride,
                                     int32_t t)
{
    int32_t in_c = (int32_t)lf_mb_shape(m, x).c;
    int32_t hidden = in_c * t;
    int32_t y = x, i = 0;
    lf_mb_push(m, "conv");
    if (t != 1) {
        lf_mb_push(m, "%d", (int)i++);
        y = lf_mb_conv(m, "0", y, hidden, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
        y = lf_mb_relu6(m, "2", y);
        lf_mb_pop(m);
    }
    lf_mb_push(m, "%d", (int)i++);
    y = lf_mb_conv(m, "0", y, hidden, 3, stride, 1, hidden, 1, LF_MB_FOLDED_BN);
    y = lf_mb_relu6(m, "2", y);
    lf_mb_pop(m);
    lf_mb_push(m, "%d", (int)i);
    y = lf_mb_conv(m, NULL, y, out_c, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
    lf_mb_pop(m);
    lf_mb_pop(m);
    if (stride == 1 && in_c == out_c)
        y = lf_mb_add(m, "add", x, y);
    return y;
}

lf_status lf_model_mobilenet_v2(const lf_model_options *opt, lf_graph **out)
{
    lf_mb mb, *m = &mb;
    int32_t size, x;
    lf_models_begin(m, "mobilenet_v2", opt, &size, &x);

    lf_mb_push(m, "features");
    x = lf_mb_conv(m, "0.0", x, 32, 3, 2, 1, 1, 1, LF_MB_FOLDED_BN);
    x = lf_mb_relu6(m, "0.2", x);
    int32_t idx = 1;
    for (int32_t s = 0; s < 7; s++) {
        for (int32_t i = 0; i < mnv2_cfg[s][2]; i++) {
            lf_mb_push(m, "%d", (int)idx++);
            x = lf__inverted_residual(m, x, mnv2_cfg[s][1], i == 0 ? mnv2_cfg[s][3] : 1,
                                      mnv2_cfg[s][0]);
            lf_mb_pop(m);
        }
    }
    lf_mb_push(m, "%d", (int)idx);
    x = lf_mb_conv(m, "0", x, 1280, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
    x = lf_mb_relu6(m, "2", x);
    lf_mb_pop(m);
    lf_mb_pop(m);

    x = lf_mb_global_avgpool(m, "avgpool", x);
    x = lf_mb_flatten(m, "flatten", x);
    lf_mb_gemm(m, "classifier.1", x, 1000, LF_MB_BIAS);
    return lf_mb_finish(m, out);
}

/* EfficientNet-B0 and -B3 (torchvision `efficientnet_b0`, `efficientnet_b3`).
 *
 * The B0 stage table (expand ratio, kernel, stride, in, out, layers) is scaled
 * by a width multiplier (channels -> _make_divisible(c * width, 8)) and a
 * depth multiplier (layers -> ceil(layers * depth)): B0 is (1.0, 1.0), B3
 * (1.2, 1.4).
 *
 * features.0: 3x3/2 conv + SiLU. features.1..7: one nn.Sequential per stage,
 * one MBConv per layer (features.<stage>.<layer>); only the first layer of a
 * stage strides and changes channels. features.8: 1x1 conv to 4 x the last
 * stage's channels + SiLU. avgpool (adaptive to 1x1), flatten, classifier.1
 * Linear (classifier.0 is Dropout).
 *
 * MBConv (`block` is an nn.Sequential of Conv2dNormActivation, .0 conv, .1 BN
 * folded, .2 activation):
 *   block.0  1x1 expansion to _make_divisible(in * ratio, 8) + SiLU (ratio != 1)
 *   next     k x k depthwise + SiLU
 *   next     squeeze-and-excitation: avgpool, fc1 (1x1 conv, bias) to
 *            max(1, in / 4) (the block's input width, not the expanded one),
 *            activation SiLU, fc2 (1x1 conv, bias), scale_activation Sigmoid,
 *            "mul" with the block's tensor
 *   last     1x1 projection, no activation
 * plus a residual add when the stride is 1 and channels match (stochastic
 * depth on that branch is the identity at inference).
 *
 * SiLU is one SiLU op. torch.onnx exports nn.SiLU as Sigmoid followed by Mul;
 * the single op is the same function, keeps the graph close to the module
 * structure and is element-wise either way. */
#include <math.h>

#include "models/networks.h"

typedef struct mbconv_cfg {
    int32_t expand, k, stride, in, out, layers;
} mbconv_cfg;

static const mbconv_cfg b0_stages[7] = {
    {1, 3, 1, 32, 16, 1},  {6, 3, 2, 16, 24, 2},  {6, 5, 2, 24, 40, 2},   {6, 3, 2, 40, 80, 3},
    {6, 5, 1, 80, 112, 3}, {6, 5, 2, 112, 192, 4}, {6, 3, 1, 192, 320, 1},
};

static int32_t lf__mbconv(lf_mb *m, int32_t x, int32_t expand, int32_t k, int32_t stride,
                          int32_t out_c)
{
    int32_t in_c = (int32_t)lf_mb_shape(m, x).c;
    int32_t exp_c = lf_mb_make_divisible((double)in_c * expand, 8);
    int32_t sq = in_c / 4 > 1 ? in_c / 4 : 1;
    int32_t y = x, i = 0;
    lf_mb_push(m, "block");
    if (exp_c != in_c) {
        lf_mb_push(m, "%d", (int)i++);
        y = lf_mb_conv(m, "0", y, exp_c, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
        y = lf_mb_silu(m, "2", y);
        lf_mb_pop(m);
    }
    lf_mb_push(m, "%d", (int)i++);
    y = lf_mb_conv(m, "0", y, exp_c, k, stride, (k - 1) / 2, exp_c, 1, LF_MB_FOLDED_BN);
    y = lf_mb_silu(m, "2", y);
    lf_mb_pop(m);

    lf_mb_push(m, "%d", (int)i++);
    int32_t s = lf_mb_global_avgpool(m, "avgpool", y);
    s = lf_mb_conv(m, "fc1", s, sq, 1, 1, 0, 1, 1, LF_MB_BIAS);
    s = lf_mb_silu(m, "activation", s);
    s = lf_mb_conv(m, "fc2", s, exp_c, 1, 1, 0, 1, 1, LF_MB_BIAS);
    s = lf_mb_sigmoid(m, "scale_activation", s);
    y = lf_mb_mul(m, "mul", s, y);
    lf_mb_pop(m);

    lf_mb_push(m, "%d", (int)i);
    y = lf_mb_conv(m, "0", y, out_c, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
    lf_mb_pop(m);
    lf_mb_pop(m);
    if (stride == 1 && in_c == out_c)
        y = lf_mb_add(m, "add", y, x);
    return y;
}

static lf_status lf__build(const char *model, double width, double depth,
                           const lf_model_options *opt, lf_graph **out)
{
    lf_mb mb, *m = &mb;
    int32_t size, x;
    lf_models_begin(m, model, opt, &size, &x);

    lf_mb_push(m, "features");
    x = lf_mb_conv(m, "0.0", x, lf_mb_make_divisible(b0_stages[0].in * width, 8), 3, 2, 1, 1, 1,
                   LF_MB_FOLDED_BN);
    x = lf_mb_silu(m, "0.2", x);
    int32_t last = 0;
    for (int32_t s = 0; s < 7; s++) {
        const mbconv_cfg *c = &b0_stages[s];
        int32_t out_c = lf_mb_make_divisible(c->out * width, 8);
        int32_t layers = (int32_t)ceil(c->layers * depth);
        for (int32_t i = 0; i < layers; i++) {
            lf_mb_push(m, "%d.%d", (int)(s + 1), (int)i);
            x = lf__mbconv(m, x, c->expand, c->k, i == 0 ? c->stride : 1, out_c);
            lf_mb_pop(m);
        }
        last = out_c;
    }
    x = lf_mb_conv(m, "8.0", x, 4 * last, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
    x = lf_mb_silu(m, "8.2", x);
    lf_mb_pop(m);

    x = lf_mb_global_avgpool(m, "avgpool", x);
    x = lf_mb_flatten(m, "flatten", x);
    lf_mb_gemm(m, "classifier.1", x, 1000, LF_MB_BIAS);
    return lf_mb_finish(m, out);
}

lf_status lf_model_efficientnet_b0(const lf_model_options *opt, lf_graph **out)
{
    return lf__build("efficientnet_b0", 1.0, 1.0, opt, out);
}

lf_status lf_model_efficientnet_b3(const lf_model_options *opt, lf_graph **out)
{
    return lf__build("efficientnet_b3", 1.2, 1.4, opt, out);
}

/* MobileNetV3-Small and -Large (torchvision `mobilenet_v3_small`,
 * `mobilenet_v3_large`, width 1.0), and the Large backbone that DeepLabV3
 * uses (deeplab.c).
 *
 * features.0: 3x3/2 conv to 16 + Hardswish. features.1..N: inverted residual
 * blocks from the tables below. features.N+1: 1x1 conv to 6 x the last block's
 * channels + Hardswish. avgpool (adaptive to 1x1), flatten, classifier.0
 * Linear, classifier.1 Hardswish, classifier.3 Linear to 1000 (classifier.2 is
 * Dropout).
 *
 * InvertedResidual (`block` is an nn.Sequential, each element a
 * Conv2dNormActivation with .0 conv, .1 BN folded, .2 activation):
 *   block.0  1x1 expansion (only when the expanded width differs from the input)
 *   next     k x k depthwise (stride, dilation; padding (k-1)/2 * dilation)
 *   next     squeeze-and-excitation (only where the table says so):
 *              avgpool, fc1 (1x1 conv with bias), activation (ReLU),
 *              fc2 (1x1 conv with bias), scale_activation (Hardsigmoid),
 *              and the product with the block's tensor ("mul")
 *   last     1x1 projection without activation
 * plus a residual add when the stride is 1 and the channels match.
 * "RE" blocks use ReLU, "HS" blocks Hardswish. The SE squeeze width is
 * _make_divisible(expanded / 4, 8). */
#include "models/networks.h"

typedef struct bneck {
    int32_t in, k, exp, out;
    int32_t se, hs;            /* squeeze-and-excite; Hardswish (else ReLU) */
    int32_t stride;
    int32_t tail;              /* last stage: dilated in the segmentation backbone */
} bneck;

static const bneck large_cfg[] = {
    {16, 3, 16, 16, 0, 0, 1, 0},    {16, 3, 64, 24, 0, 0, 2, 0},    {24, 3, 72, 24, 0, 0, 1, 0},
    {24, 5, 72, 40, 1, 0, 2, 0},    {40, 5, 120, 40, 1, 0, 1, 0},   {40, 5, 120, 40, 1, 0, 1, 0},
    {40, 3, 240, 80, 0, 1, 2, 0},   {80, 3, 200, 80, 0, 1, 1, 0},   {80, 3, 184, 80, 0, 1, 1, 0},
    {80, 3, 184, 80, 0, 1, 1, 0},   {80, 3, 480, 112, 1, 1, 1, 0},  {112, 3, 672, 112, 1, 1, 1, 0},
    {112, 5, 672, 160, 1, 1, 2, 1}, {160, 5, 960, 160, 1, 1, 1, 1}, {160, 5, 960, 160, 1, 1, 1, 1},
};

static const bneck small_cfg[] = {
    {16, 3, 16, 16, 1, 0, 2, 0},  {16, 3, 72, 24, 0, 0, 2, 0},   {24, 3, 88, 24, 0, 0, 1, 0},
    {24, 5, 96, 40, 1, 1, 2, 0},  {40, 5, 240, 40, 1, 1, 1, 0},  {40, 5, 240, 40, 1, 1, 1, 0},
    {40, 5, 120, 48, 1, 1, 1, 0}, {48, 5, 144, 48, 1, 1, 1, 0},  {48, 5, 288, 96, 1, 1, 2, 1},
    {96, 5, 576, 96, 1, 1, 1, 1}, {96, 5, 576, 96, 1, 1, 1, 1},
};

#define N_LARGE ((int32_t)(sizeof large_cfg / sizeof large_cfg[0]))
#define N_SMALL ((int32_t)(sizeof small_cfg / sizeof small_cfg[0]))

static int32_t lf__act(lf_mb *m, const char *name, int32_t x, int32_t hs)
{
    return hs ? lf_mb_hardswish(m, name, x) : lf_mb_relu(m, name, x);
}

static int32_t lf__squeeze_excite(lf_mb *m, int32_t x, int32_t channels)
{
    int32_t squeeze = lf_mb_make_divisible(channels / 4, 8);
    int32_t s = lf_mb_global_avgpool(m, "avgpool", x);
    s = lf_mb_conv(m, "fc1", s, squeeze, 1, 1, 0, 1, 1, LF_MB_BIAS);
    s = lf_mb_relu(m, "activation", s);
    s = lf_mb_conv(m, "fc2", s, channels, 1, 1, 0, 1, 1, LF_MB_BIAS);
    s = lf_mb_hardsigmoid(m, "scale_activation", s);
    return lf_mb_mul(m, "mul", s, x);
}

/* One block under the current prefix ("features.<i>"). In the dilated tail
 * the depthwise conv keeps stride 1 and uses dilation 2 (torchvision:
 * `stride = 1 if dilation > 1 else stride`); the residual rule still looks at
 * the configured stride, which only matters for the tail's first block, and
 * that one changes the channels anyway. */
static int32_t lf__block(lf_mb *m, int32_t x, const bneck *c, int32_t dilated)
{
    int32_t dil = (dilated && c->tail) ? 2 : 1;
    int32_t stride = dil > 1 ? 1 : c->stride;
    int32_t y = x, i = 0;
    lf_mb_push(m, "block");
    if (c->exp != c->in) {
        lf_mb_push(m, "%d", (int)i++);
        y = lf_mb_conv(m, "0", y, c->exp, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
        y = lf__act(m, "2", y, c->hs);
        lf_mb_pop(m);
    }
    lf_mb_push(m, "%d", (int)i++);
    y = lf_mb_conv(m, "0", y, c->exp, c->k, stride, (c->k - 1) / 2 * dil, c->exp, dil,
                   LF_MB_FOLDED_BN);
    y = lf__act(m, "2", y, c->hs);
    lf_mb_pop(m);
    if (c->se) {
        lf_mb_push(m, "%d", (int)i++);
        y = lf__squeeze_excite(m, y, c->exp);
        lf_mb_pop(m);
    }
    lf_mb_push(m, "%d", (int)i);
    y = lf_mb_conv(m, "0", y, c->out, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
    lf_mb_pop(m);
    lf_mb_pop(m);
    if (c->stride == 1 && c->in == c->out)
        y = lf_mb_add(m, "add", y, x);
    return y;
}

static int32_t lf__features(lf_mb *m, int32_t x, const bneck *cfg, int32_t n, int32_t dilated)
{
    x = lf_mb_conv(m, "0.0", x, 16, 3, 2, 1, 1, 1, LF_MB_FOLDED_BN);
    x = lf_mb_hardswish(m, "0.2", x);
    for (int32_t i = 0; i < n; i++) {
        lf_mb_push(m, "%d", (int)(i + 1));
        x = lf__block(m, x, &cfg[i], dilated);
        lf_mb_pop(m);
    }
    lf_mb_push(m, "%d", (int)(n + 1));
    x = lf_mb_conv(m, "0", x, 6 * cfg[n - 1].out, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
    x = lf_mb_hardswish(m, "2", x);
    lf_mb_pop(m);
    return x;
}

int32_t lf_mnv3_large_features(lf_mb *m, int32_t x, int32_t dilated)
{
    return lf__features(m, x, large_cfg, N_LARGE, dilated);
}

static lf_status lf__build(const char *model, const bneck *cfg, int32_t n, int32_t last_channel,
                           const lf_model_options *opt, lf_graph **out)
{
    lf_mb mb, *m = &mb;
    int32_t size, x;
    lf_models_begin(m, model, opt, &size, &x);

    lf_mb_push(m, "features");
    x = lf__features(m, x, cfg, n, 0);
    lf_mb_pop(m);
    x = lf_mb_global_avgpool(m, "avgpool", x);
    x = lf_mb_flatten(m, "flatten", x);
    x = lf_mb_gemm(m, "classifier.0", x, last_channel, LF_MB_BIAS);
    x = lf_mb_hardswish(m, "classifier.1", x);
    lf_mb_gemm(m, "classifier.3", x, 1000, LF_MB_BIAS);
    return lf_mb_finish(m, out);
}

lf_status lf_model_mobilenet_v3_small(const lf_model_options *opt, lf_graph **out)
{
    return lf__build("mobilenet_v3_small", small_cfg, N_SMALL, 1024, opt, out);
}

lf_status lf_model_mobilenet_v3_large(const lf_model_options *opt, lf_graph **out)
{
    return lf__build("mobilenet_v3_large", large_cfg, N_LARGE, 1280, opt, out);
}

/* ResNet-18/34/50/101/152 and ResNeXt-50 32x4d (torchvision `resnet*`,
 * `resnext50_32x4d`).
 *
 * Stem: conv1 7x7/2 (BN folded), relu, maxpool 3x3/2 pad 1. Four stages
 * layer1..layer4 of 64, 128, 256, 512 "planes"; the first block of layers 2-4
 * has stride 2. Every conv is bias-free and followed by a BatchNorm, folded in.
 *
 * BasicBlock (18, 34): conv1 3x3 (stride), relu, conv2 3x3, add, relu.
 * Bottleneck (50+): conv1 1x1 to width, relu, conv2 3x3 (stride, groups),
 * relu, conv3 1x1 to 4 x planes, add, relu. The stride sits on the 3x3 conv
 * (torchvision's "ResNet V1.5"), not on the first 1x1 as in the paper.
 * width = planes * width_per_group / 64 * groups: planes for ResNet, 2 x planes
 * for ResNeXt-50 32x4d (32 groups of 4 channels per 64 planes).
 * A block whose stride is not 1 or whose channels change gets a shortcut
 * `downsample`: 1x1 conv (stride) + BN.
 *
 * The block reuses one nn.ReLU module three times (twice in BasicBlock);
 * the second and third uses are named relu_1 and relu_2 as an export names
 * them. Head: avgpool (adaptive to 1x1, i.e. GlobalAveragePool), flatten, fc. */
#include "models/networks.h"

typedef struct resnet_cfg {
    const char *name;
    int32_t bottleneck;        /* 0 BasicBlock, 1 Bottleneck */
    int32_t blocks[4];
    int32_t groups, width_per_group;
} resnet_cfg;

static int32_t lf__basic_block(lf_mb *m, int32_t x, int32_t planes, int32_t stride)
{
    int32_t in_c = (int32_t)lf_mb_shape(m, x).c;
    int32_t y = lf_mb_conv(m, "conv1", x, planes, 3, stride, 1, 1, 1, LF_MB_FOLDED_BN);
    y = lf_mb_relu(m, "relu", y);
    y = lf_mb_conv(m, "conv2", y, planes, 3, 1, 1, 1, 1, LF_MB_FOLDED_BN);
    int32_t id = x;
    if (stride != 1 || in_c != planes)
        id = lf_mb_conv(m, "downsample.0", x, planes, 1, stride, 0, 1, 1, LF_MB_FOLDED_BN);
    y = lf_mb_add(m, "add", y, id);
    return lf_mb_relu(m, "relu_1", y);
}

static int32_t lf__bottleneck(lf_mb *m, int32_t x, int32_t planes, int32_t stride,
                              const resnet_cfg *cfg)
{
    int32_t in_c = (int32_t)lf_mb_shape(m, x).c;
    int32_t width = planes * cfg->width_per_group / 64 * cfg->groups;
    int32_t out_c = planes * 4;
    int32_t y = lf_mb_conv(m, "conv1", x, width, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
    y = lf_mb_relu(m, "relu", y);
    y = lf_mb_conv(m, "conv2", y, width, 3, stride, 1, cfg->groups, 1, LF_MB_FOLDED_BN);
    y = lf_mb_relu(m, "relu_1", y);
    y = lf_mb_conv(m, "conv3", y, out_c, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
    int32_t id = x;
    if (stride != 1 || in_c != out_c)
        id = lf_mb_conv(m, "downsample.0", x, out_c, 1, stride, 0, 1, 1, LF_MB_FOLDED_BN);
    y = lf_mb_add(m, "add", y, id);
    return lf_mb_relu(m, "relu_2", y);
}

static lf_status lf__build(const resnet_cfg *cfg, const lf_model_options *opt, lf_graph **out)
{
    lf_mb mb, *m = &mb;
    int32_t size, x;
    lf_models_begin(m, cfg->name, opt, &size, &x);

    x = lf_mb_conv(m, "conv1", x, 64, 7, 2, 3, 1, 1, LF_MB_FOLDED_BN);
    x = lf_mb_relu(m, "relu", x);
    x = lf_mb_maxpool(m, "maxpool", x, 3, 2, 1, 0);
    for (int32_t stage = 0; stage < 4; stage++) {
        int32_t planes = 64 << stage;
        for (int32_t i = 0; i < cfg->blocks[stage]; i++) {
            int32_t stride = (stage > 0 && i == 0) ? 2 : 1;
            lf_mb_push(m, "layer%d", (int)(stage + 1));
            lf_mb_push(m, "%d", (int)i);
            x = cfg->bottleneck ? lf__bottleneck(m, x, planes, stride, cfg)
                                : lf__basic_block(m, x, planes, stride);
            lf_mb_pop(m);
            lf_mb_pop(m);
        }
    }
    x = lf_mb_global_avgpool(m, "avgpool", x);
    x = lf_mb_flatten(m, "flatten", x);
    lf_mb_gemm(m, "fc", x, 1000, LF_MB_BIAS);
    return lf_mb_finish(m, out);
}

static const resnet_cfg resnet18 = {"resnet18", 0, {2, 2, 2, 2}, 1, 64};
static const resnet_cfg resnet34 = {"resnet34", 0, {3, 4, 6, 3}, 1, 64};
static const resnet_cfg resnet50 = {"resnet50", 1, {3, 4, 6, 3}, 1, 64};
static const resnet_cfg resnet101 = {"resnet101", 1, {3, 4, 23, 3}, 1, 64};
static const resnet_cfg resnet152 = {"resnet152", 1, {3, 8, 36, 3}, 1, 64};
static const resnet_cfg resnext50 = {"resnext50_32x4d", 1, {3, 4, 6, 3}, 32, 4};

lf_status lf_model_resnet18(const lf_model_options *opt, lf_graph **out)
{
    return lf__build(&resnet18, opt, out);
}

lf_status lf_model_resnet34(const lf_model_options *opt, lf_graph **out)
{
    return lf__build(&resnet34, opt, out);
}

lf_status lf_model_resnet50(const lf_model_options *opt, lf_graph **out)
{
    return lf__build(&resnet50, opt, out);
}

lf_status lf_model_resnet101(const lf_model_options *opt, lf_graph **out)
{
    return lf__build(&resnet101, opt, out);
}

lf_status lf_model_resnet152(const lf_model_options *opt, lf_graph **out)
{
    return lf__build(&resnet152, opt, out);
}

lf_status lf_model_resnext50_32x4d(const lf_model_options *opt, lf_graph **out)
{
    return lf__build(&resnext50, opt, out);
}

/* Inception-v3 (torchvision `inception_v3`), inference graph.
 *
 * Every BasicConv2d is a bias-free conv, BatchNorm (folded) and a functional
 * ReLU, named <module>.conv and <module>.relu. The functional pools and
 * concatenations inside the Mixed blocks are named after the torch function
 * (avg_pool2d, max_pool2d, cat, cat_1, ...).
 *
 * Left out, because they are not part of the inference architecture:
 *  - AuxLogits (InceptionAux after Mixed_6e): it only runs in training mode;
 *    its 3,326,696 parameters are why torchvision's num_params (27,161,264)
 *    exceeds this graph's 23,834,568.
 *  - transform_input: with the pretrained weights torchvision re-normalises
 *    the input channels (slice, scale, shift, concat) before Conv2d_1a_3x3;
 *    that is preprocessing, not architecture, and has no parameters.
 *  - Dropout before fc. */
#include "models/networks.h"

/* BasicConv2d: conv (BN folded) + ReLU under prefix <name>. */
static int32_t lf__basic(lf_mb *m, const char *name, int32_t x, int32_t out_c, int32_t kh,
                         int32_t kw, int32_t stride, int32_t ph, int32_t pw)
{
    lf_mb_push(m, "%s", name);
    x = lf_mb_conv_hw(m, "conv", x, out_c, kh, kw, stride, ph, pw, LF_MB_FOLDED_BN);
    x = lf_mb_relu(m, "relu", x);
    lf_mb_pop(m);
    return x;
}

static int32_t lf__inception_a(lf_mb *m, int32_t x, int32_t pool_features)
{
    int32_t b[4];
    b[0] = lf__basic(m, "branch1x1", x, 64, 1, 1, 1, 0, 0);
    b[1] = lf__basic(m, "branch5x5_1", x, 48, 1, 1, 1, 0, 0);
    b[1] = lf__basic(m, "branch5x5_2", b[1], 64, 5, 5, 1, 2, 2);
    b[2] = lf__basic(m, "branch3x3dbl_1", x, 64, 1, 1, 1, 0, 0);
    b[2] = lf__basic(m, "branch3x3dbl_2", b[2], 96, 3, 3, 1, 1, 1);
    b[2] = lf__basic(m, "branch3x3dbl_3", b[2], 96, 3, 3, 1, 1, 1);
    b[3] = lf_mb_avgpool(m, "avg_pool2d", x, 3, 1, 1, 1);
    b[3] = lf__basic(m, "branch_pool", b[3], pool_features, 1, 1, 1, 0, 0);
    return lf_mb_concat(m, "cat", b, 4);
}

static int32_t lf__inception_b(lf_mb *m, int32_t x)
{
    int32_t b[3];
    b[0] = lf__basic(m, "branch3x3", x, 384, 3, 3, 2, 0, 0);
    b[1] = lf__basic(m, "branch3x3dbl_1", x, 64, 1, 1, 1, 0, 0);
    b[1] = lf__basic(m, "branch3x3dbl_2", b[1], 96, 3, 3, 1, 1, 1);
    b[1] = lf__basic(m, "branch3x3dbl_3", b[1], 96, 3, 3, 2, 0, 0);
    b[2] = lf_mb_maxpool(m, "max_pool2d", x, 3, 2, 0, 0);
    return lf_mb_concat(m, "cat", b, 3);
}

static int32_t lf__inception_c(lf_mb *m, int32_t x, int32_t c7)
{
    int32_t b[4];
    b[0] = lf__basic(m, "branch1x1", x, 192, 1, 1, 1, 0, 0);
    b[1] = lf__basic(m, "branch7x7_1", x, c7, 1, 1, 1, 0, 0);
    b[1] = lf__basic(m, "branch7x7_2", b[1], c7, 1, 7, 1, 0, 3);
    b[1] = lf__basic(m, "branch7x7_3", b[1], 192, 7, 1, 1, 3, 0);
    b[2] = lf__basic(m, "branch7x7dbl_1", x, c7, 1, 1, 1, 0, 0);
    b[2] = lf__basic(m, "branch7x7dbl_2", b[2], c7, 7, 1, 1, 3, 0);
    b[2] = lf__basic(m, "branch7x7dbl_3", b[2], c7, 1, 7, 1, 0, 3);
    b[2] = lf__basic(m, "branch7x7dbl_4", b[2], c7, 7, 1, 1, 3, 0);
    b[2] = lf__basic(m, "branch7x7dbl_5", b[2], 192, 1, 7, 1, 0, 3);
    b[3] = lf_mb_avgpool(m, "avg_pool2d", x, 3, 1, 1, 1);
    b[3] = lf__basic(m, "branch_pool", b[3], 192, 1, 1, 1, 0, 0);
    return lf_mb_concat(m, "cat", b, 4);
}

static int32_t lf__inception_d(lf_mb *m, int32_t x)
{
    int32_t b[3];
    b[0] = lf__basic(m, "branch3x3_1", x, 192, 1, 1, 1, 0, 0);
    b[0] = lf__basic(m, "branch3x3_2", b[0], 320, 3, 3, 2, 0, 0);
    b[1] = lf__basic(m, "branch7x7x3_1", x, 192, 1, 1, 1, 0, 0);
    b[1] = lf__basic(m, "branch7x7x3_2", b[1], 192, 1, 7, 1, 0, 3);
    b[1] = lf__basic(m, "branch7x7x3_3", b[1], 192, 7, 1, 1, 3, 0);
    b[1] = lf__basic(m, "branch7x7x3_4", b[1], 192, 3, 3, 2, 0, 0);
    b[2] = lf_mb_maxpool(m, "max_pool2d", x, 3, 2, 0, 0);
    return lf_mb_concat(m, "cat", b, 3);
}

/* InceptionE: the 3x3 branches split into parallel 1x3 and 3x1 convs whose
 * outputs are concatenated (cat, cat_1) before the block's own cat (cat_2). */
static int32_t lf__inception_e(lf_mb *m, int32_t x)
{
    int32_t b[4], pair[2];
    b[0] = lf__basic(m, "branch1x1", x, 320, 1, 1, 1, 0, 0);
    int32_t t = lf__basic(m, "branch3x3_1", x, 384, 1, 1, 1, 0, 0);
    pair[0] = lf__basic(m, "branch3x3_2a", t, 384, 1, 3, 1, 0, 1);
    pair[1] = lf__basic(m, "branch3x3_2b", t, 384, 3, 1, 1, 1, 0);
    b[1] = lf_mb_concat(m, "cat", pair, 2);
    t = lf__basic(m, "branch3x3dbl_1", x, 448, 1, 1, 1, 0, 0);
    t = lf__basic(m, "branch3x3dbl_2", t, 384, 3, 3, 1, 1, 1);
    pair[0] = lf__basic(m, "branch3x3dbl_3a", t, 384, 1, 3, 1, 0, 1);
    pair[1] = lf__basic(m, "branch3x3dbl_3b", t, 384, 3, 1, 1, 1, 0);
    b[2] = lf_mb_concat(m, "cat_1", pair, 2);
    b[3] = lf_mb_avgpool(m, "avg_pool2d", x, 3, 1, 1, 1);
    b[3] = lf__basic(m, "branch_pool", b[3], 192, 1, 1, 1, 0, 0);
    return lf_mb_concat(m, "cat_2", b, 4);
}

lf_status lf_model_inception_v3(const lf_model_options *opt, lf_graph **out)
{
    lf_mb mb, *m = &mb;
    int32_t size, x;
    lf_models_begin(m, "inception_v3", opt, &size, &x);

    x = lf__basic(m, "Conv2d_1a_3x3", x, 32, 3, 3, 2, 0, 0);
    x = lf__basic(m, "Conv2d_2a_3x3", x, 32, 3, 3, 1, 0, 0);
    x = lf__basic(m, "Conv2d_2b_3x3", x, 64, 3, 3, 1, 1, 1);
    x = lf_mb_maxpool(m, "maxpool1", x, 3, 2, 0, 0);
    x = lf__basic(m, "Conv2d_3b_1x1", x, 80, 1, 1, 1, 0, 0);
    x = lf__basic(m, "Conv2d_4a_3x3", x, 192, 3, 3, 1, 0, 0);
    x = lf_mb_maxpool(m, "maxpool2", x, 3, 2, 0, 0);

    static const struct {
        const char *name;
        char kind;             /* A..E */
        int32_t arg;           /* A: pool_features, C: channels_7x7 */
    } mixed[] = {
        {"Mixed_5b", 'A', 32},  {"Mixed_5c", 'A', 64},  {"Mixed_5d", 'A', 64},
        {"Mixed_6a", 'B', 0},   {"Mixed_6b", 'C', 128}, {"Mixed_6c", 'C', 160},
        {"Mixed_6d", 'C', 160}, {"Mixed_6e", 'C', 192}, {"Mixed_7a", 'D', 0},
        {"Mixed_7b", 'E', 0},   {"Mixed_7c", 'E', 0},
    };
    for (size_t i = 0; i < sizeof mixed / sizeof mixed[0]; i++) {
        lf_mb_push(m, "%s", mixed[i].name);
        switch (mixed[i].kind) {
        case 'A': x = lf__inception_a(m, x, mixed[i].arg); break;
        case 'B': x = lf__inception_b(m, x); break;
        case 'C': x = lf__inception_c(m, x, mixed[i].arg); break;
        case 'D': x = lf__inception_d(m, x); break;
        default: x = lf__inception_e(m, x); break;
        }
        lf_mb_pop(m);
    }

    x = lf_mb_global_avgpool(m, "avgpool", x);
    x = lf_mb_flatten(m, "flatten", x);
    lf_mb_gemm(m, "fc", x, 1000, LF_MB_BIAS);
    return lf_mb_finish(m, out);
}

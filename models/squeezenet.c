/* SqueezeNet 1.0 and 1.1 (torchvision `squeezenet1_0`, `squeezenet1_1`).
 *
 * No BatchNorm: every conv has its own bias. A Fire module squeezes with a 1x1
 * conv, then expands with a 1x1 and a 3x3 conv in parallel whose ReLU outputs
 * are concatenated. The max pools use ceil_mode=True. The classifier is
 * Dropout, a 1x1 conv to 1000 classes, ReLU and a global average pool,
 * then flatten. 1.1 moves the pools earlier and starts with a 3x3 conv of 64
 * channels, which cuts the MACs by about 2.4x at almost the same size. */
#include <stdio.h>

#include "models/networks.h"

typedef struct fire_cfg {
    int32_t kind;          /* 0 fire module, 1 max pool 3/2 ceil */
    int32_t squeeze, e1, e3;
} fire_cfg;

/* features.<index> entries after the stem conv (index 0), its ReLU (1) and
 * pool (2) */
static const fire_cfg sq10_cfg[] = {
    {0, 16, 64, 64},   {0, 16, 64, 64},   {0, 32, 128, 128}, {1, 0, 0, 0},
    {0, 32, 128, 128}, {0, 48, 192, 192}, {0, 48, 192, 192}, {0, 64, 256, 256},
    {1, 0, 0, 0},      {0, 64, 256, 256},
};
static const fire_cfg sq11_cfg[] = {
    {0, 16, 64, 64},   {0, 16, 64, 64},   {1, 0, 0, 0},      {0, 32, 128, 128},
    {0, 32, 128, 128}, {1, 0, 0, 0},      {0, 48, 192, 192}, {0, 48, 192, 192},
    {0, 64, 256, 256}, {0, 64, 256, 256},
};

static int32_t lf__fire(lf_mb *m, int32_t x, const fire_cfg *c)
{
    x = lf_mb_conv(m, "squeeze", x, c->squeeze, 1, 1, 0, 1, 1, LF_MB_BIAS);
    x = lf_mb_relu(m, "squeeze_activation", x);
    int32_t b[2];
    b[0] = lf_mb_conv(m, "expand1x1", x, c->e1, 1, 1, 0, 1, 1, LF_MB_BIAS);
    b[0] = lf_mb_relu(m, "expand1x1_activation", b[0]);
    b[1] = lf_mb_conv(m, "expand3x3", x, c->e3, 3, 1, 1, 1, 1, LF_MB_BIAS);
    b[1] = lf_mb_relu(m, "expand3x3_activation", b[1]);
    return lf_mb_concat(m, "cat", b, 2);
}

static lf_status lf__build(const char *model, const lf_model_options *opt, int32_t stem_c,
                           int32_t stem_k, const fire_cfg *cfg, size_t n_cfg, lf_graph **out)
{
    lf_mb mb, *m = &mb;
    int32_t size, x;
    lf_models_begin(m, model, opt, &size, &x);

    lf_mb_push(m, "features");
    x = lf_mb_conv(m, "0", x, stem_c, stem_k, 2, 0, 1, 1, LF_MB_BIAS);
    x = lf_mb_relu(m, "1", x);
    x = lf_mb_maxpool(m, "2", x, 3, 2, 0, 1);
    for (size_t i = 0; i < n_cfg; i++) {
        char name[16];
        snprintf(name, sizeof name, "%d", (int)(i + 3));
        if (cfg[i].kind == 1) {
            x = lf_mb_maxpool(m, name, x, 3, 2, 0, 1);
            continue;
        }
        lf_mb_push(m, "%s", name);
        x = lf__fire(m, x, &cfg[i]);
        lf_mb_pop(m);
    }
    lf_mb_pop(m);

    x = lf_mb_conv(m, "classifier.1", x, 1000, 1, 1, 0, 1, 1, LF_MB_BIAS);
    x = lf_mb_relu(m, "classifier.2", x);
    x = lf_mb_global_avgpool(m, "classifier.3", x);
    lf_mb_flatten(m, "flatten", x);
    return lf_mb_finish(m, out);
}

lf_status lf_model_squeezenet1_0(const lf_model_options *opt, lf_graph **out)
{
    return lf__build("squeezenet1_0", opt, 96, 7, sq10_cfg, sizeof sq10_cfg / sizeof sq10_cfg[0],
                     out);
}

lf_status lf_model_squeezenet1_1(const lf_model_options *opt, lf_graph **out)
{
    return lf__build("squeezenet1_1", opt, 64, 3, sq11_cfg, sizeof sq11_cfg / sizeof sq11_cfg[0],
                     out);
}

#include "models/registry.h"

#include <stdio.h>
#include <string.h>

#include "models/networks.h"

/* min_input: inception_v3 needs 75 (its last stride-2 stage needs a 3x3 map);
 * vgg16's classifier pools the 1/32 feature map to 7x7, which only maps onto a
 * plain AveragePool when that map is a multiple of 7 (so 224 and up, see
 * vgg.c); every other network accepts any size, and 32 (one pixel after five
 * stride-2 stages) is the floor we accept for them. */
static const lf_model_entry lf__models[] = {
    {"vgg16", "vgg", 224, 224, lf_model_vgg16},
    {"squeezenet1_0", "squeezenet", 224, 32, lf_model_squeezenet1_0},
    {"squeezenet1_1", "squeezenet", 224, 32, lf_model_squeezenet1_1},
    {"resnet18", "resnet", 224, 32, lf_model_resnet18},
    {"resnet34", "resnet", 224, 32, lf_model_resnet34},
    {"resnet50", "resnet", 224, 32, lf_model_resnet50},
    {"resnet101", "resnet", 224, 32, lf_model_resnet101},
    {"resnet152", "resnet", 224, 32, lf_model_resnet152},
    {"mobilenet_v2", "mobilenet", 224, 32, lf_model_mobilenet_v2},
    {"mobilenet_v3_small", "mobilenet", 224, 32, lf_model_mobilenet_v3_small},
    {"mobilenet_v3_large", "mobilenet", 224, 32, lf_model_mobilenet_v3_large},
    {"efficientnet_b0", "efficientnet", 224, 32, lf_model_efficientnet_b0},
    {"efficientnet_b3", "efficientnet", 300, 32, lf_model_efficientnet_b3},
    {"inception_v3", "inception", 299, 75, lf_model_inception_v3},
    {"resnext50_32x4d", "resnet", 224, 32, lf_model_resnext50_32x4d},
    {"deeplabv3_mobilenet_v3_large", "deeplab", 513, 32, lf_model_deeplabv3_mobilenet_v3_large},
};

#define LF_N_MODELS ((int32_t)(sizeof lf__models / sizeof lf__models[0]))

const lf_model_entry *lf_models(int32_t *count)
{
    if (count)
        *count = LF_N_MODELS;
    return lf__models;
}

static const lf_model_entry *lf__find_model(const char *name)
{
    for (int32_t i = 0; i < LF_N_MODELS; i++)
        if (strcmp(lf__models[i].name, name) == 0)
            return &lf__models[i];
    return NULL;
}

static lf_status lf__not_found(const char *name)
{
    char known[400];
    size_t len = 0;
    known[0] = '\0';
    for (int32_t i = 0; i < LF_N_MODELS && len < sizeof known; i++) {
        int n = snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "",
                         lf__models[i].name);
        if (n < 0)
            break;
        len += (size_t)n;
    }
    return lf_set_error(LF_ENOTFOUND, "unknown model '%s' (known models: %s)", name, known);
}

lf_status lf_model_build(const char *name, const lf_model_options *opt, lf_graph **out)
{
    if (!out)
        return lf_set_error(LF_EINVAL, "lf_model_build: no output pointer");
    *out = NULL;
    if (!name)
        return lf_set_error(LF_EINVAL, "lf_model_build: no model name");
    const lf_model_entry *e = lf__find_model(name);
    if (!e)
        return lf__not_found(name);
    /* the build function checks the input size against its entry */
    return e->build(opt, out);
}

lf_status lf_models_begin(lf_mb *m, const char *model, const lf_model_options *opt,
                          int32_t *size, int32_t *input)
{
    static const lf_model_options defaults = {0, 0};
    const lf_model_entry *e = lf__find_model(model);
    *input = -1;
    *size = 0;
    memset(m, 0, sizeof *m);
    if (!e) {
        /* a build function whose name is missing from the table: a bug here */
        m->err = lf__not_found(model);
        return m->err;
    }
    if (!opt)
        opt = &defaults;
    int32_t s = opt->input_size ? opt->input_size : e->default_input;
    if (s < e->min_input || s > LF_MODEL_MAX_INPUT) {
        m->err = lf_set_error(LF_ERANGE, "%s: input size %d is out of range (%d to %d)", model,
                              (int)s, (int)e->min_input, LF_MODEL_MAX_INPUT);
        return m->err;
    }
    if (opt->batch < 0 || opt->batch > LF_MODEL_MAX_BATCH) {
        m->err = lf_set_error(LF_ERANGE, "%s: batch %d is out of range (1 to %d)", model,
                              (int)opt->batch, LF_MODEL_MAX_BATCH);
        return m->err;
    }
    lf_status st = lf_mb_init(m, model);
    if (st != LF_OK)
        return st;
    *size = s;
    *input = lf_mb_input(m, "input", opt->batch ? opt->batch : 1, 3, s, s);
    return m->err;
}

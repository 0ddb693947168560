/* The start of every built-in network's build function: the input size and
 * batch resolved and checked against the network's entry of LF__MODEL_LIST,
 * the builder started and the input added. Below the family files and the
 * registry, which calls them. */
#include <string.h>

#include "models/networks.h"

typedef struct lf__model_sizes {
    const char *name;
    int32_t default_input, min_input;
} lf__model_sizes;

#define LF__MODEL_SIZES(name, family, default_input, min_input) {#name, default_input, min_input},
static const lf__model_sizes lf__sizes[] = {LF__MODEL_LIST(LF__MODEL_SIZES)};

lf_status lf_models_begin(lf_mb *m, const char *model, const lf_model_options *opt,
                          int32_t *size, int32_t *input)
{
    static const lf_model_options defaults = {0, 0};
    const lf__model_sizes *e = NULL;
    for (size_t i = 0; i < sizeof lf__sizes / sizeof lf__sizes[0] && !e; i++)
        if (strcmp(lf__sizes[i].name, model) == 0)
            e = &lf__sizes[i];
    *input = -1;
    *size = 0;
    memset(m, 0, sizeof *m);
    if (!e) {
        /* a build function whose name is missing from LF__MODEL_LIST: a bug here */
        m->err = lf_set_error(LF_ENOTFOUND, "unknown model '%s'", model);
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

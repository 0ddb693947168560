#include "models/registry.h"

#include <stdio.h>
#include <string.h>

#include "models/networks.h"

/* The table, made from the one list of networks (LF__MODEL_LIST in
 * networks.h) that lf_models_begin (begin.c) checks input sizes against. */
#define LF__MODEL_ENTRY(name, family, default_input, min_input) \
    {#name, family, default_input, min_input, lf_model_##name, LF_MODEL_CNN, NULL, 0, 0},
#define LF__TRANSFORMER_ENTRY(name, family, kind, default_seq, max_seq, depth) \
    {#name, family, default_seq, 1, lf_model_##name, kind, lf_model_##name##_seq, max_seq, depth},
static const lf_model_entry lf__models[] = {LF__MODEL_LIST(LF__MODEL_ENTRY)
                                                LF__TRANSFORMER_LIST(LF__TRANSFORMER_ENTRY)};

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

int lf_model_known(const char *name)
{
    return name && lf__find_model(name) != NULL;
}

char *lf_model_names(char *buf, size_t len)
{
    int32_t n;
    const lf_model_entry *m = lf_models(&n);
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (int32_t i = 0; i < n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? "," : "", m[i].name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
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

lf_status lf_model_build_seq(const char *name, const lf_model_options *opt,
                             const lf_model_seq_options *seq, lf_graph **out)
{
    if (!out)
        return lf_set_error(LF_EINVAL, "lf_model_build_seq: no output pointer");
    *out = NULL;
    if (!name)
        return lf_set_error(LF_EINVAL, "lf_model_build_seq: no model name");
    const lf_model_entry *e = lf__find_model(name);
    if (!e)
        return lf__not_found(name);
    if (e->build_seq)
        return e->build_seq(opt, seq, out);
    if (seq && (seq->seq_len || seq->layers || seq->phase || seq->context))
        return lf_set_error(LF_EINVAL, "%s: --seq-len, --layers, --phase and --context apply to "
                                       "transformer networks only",
                            name);
    return e->build(opt, out);
}

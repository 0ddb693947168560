/* What a buffer sweep covers, from a front end's options: the buffer sizes
 * (an explicit list or a doubling range), the networks and the schemes,
 * each checked with one line saying what is wrong; then every network and
 * scheme swept in turn (lf_buffer_sweep_run). */
#include "search/sweep/buffer_sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/app/registry.h"
#include "planner/util/clock.h"

#define LF__DEFAULT_FROM (128 * 1024)
#define LF__DEFAULT_TO (2048 * 1024)

/* Splits a comma-separated list in place; returns the count, which may
 * exceed max (only max are stored). */
static int lf__split(char *s, char **items, int max)
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n < max)
            items[n] = t;
        n++;
    }
    return n;
}

static lf_status lf__buffer_list(lf_buffer_sweep_config *cfg, const char *list)
{
    char buf[1024], *items[LF_BUFFER_SWEEP_MAX];
    if (strlen(list) >= sizeof buf)
        return lf_set_error(LF_EINVAL, "--buffers list too long");
    snprintf(buf, sizeof buf, "%s", list);
    int n = lf__split(buf, items, LF_BUFFER_SWEEP_MAX);
    if (n < 1)
        return lf_set_error(LF_EINVAL, "--buffers names no size");
    if (n > LF_BUFFER_SWEEP_MAX)
        return lf_set_error(LF_EINVAL, "--buffers has %d sizes; at most %d", n, LF_BUFFER_SWEEP_MAX);
    for (int i = 0; i < n; i++) {
        if (lf_hw_parse_size(items[i], &cfg->betas[i]) != LF_OK)
            return lf_set_error(LF_EINVAL, "--buffers: %s", lf_last_error());
        if (i && cfg->betas[i] <= cfg->betas[i - 1])
            return lf_set_error(LF_EINVAL, "--buffers must be strictly ascending ('%s' after '%s')",
                                items[i], items[i - 1]);
    }
    cfg->nb = n;
    return LF_OK;
}

lf_status lf_buffer_sweep_set_buffers(lf_buffer_sweep_config *cfg, const char *list,
                                      const char *from, const char *to)
{
    if (list && (from || to))
        return lf_set_error(LF_EINVAL, "--buffers cannot be combined with --from or --to");
    if (list)
        return lf__buffer_list(cfg, list);
    int64_t lo = LF__DEFAULT_FROM, hi = LF__DEFAULT_TO;
    const char *from_s = from ? from : "128KB", *to_s = to ? to : "2048KB";
    if (from && lf_hw_parse_size(from, &lo) != LF_OK)
        return lf_set_error(LF_EINVAL, "--from: %s", lf_last_error());
    if (to && lf_hw_parse_size(to, &hi) != LF_OK)
        return lf_set_error(LF_EINVAL, "--to: %s", lf_last_error());
    if (lo > hi)
        return lf_set_error(LF_EINVAL, "--from (%s) is larger than --to (%s)", from_s, to_s);
    int n = 0;
    for (int64_t b = lo; b <= hi && n <= LF_BUFFER_SWEEP_MAX; b *= 2)
        if (n++ < LF_BUFFER_SWEEP_MAX)
            cfg->betas[n - 1] = b;
    if (n > LF_BUFFER_SWEEP_MAX)
        return lf_set_error(LF_EINVAL, "--from %s --to %s doubles past %d sizes; narrow the range",
                            from_s, to_s, LF_BUFFER_SWEEP_MAX);
    if (cfg->betas[n - 1] != hi)
        return lf_set_error(LF_EINVAL, "--to (%s) must be --from (%s) times a power of two", to_s,
                            from_s);
    cfg->nb = n;
    return LF_OK;
}

lf_status lf_buffer_sweep_set_init(lf_buffer_sweep_set *set, const char *models,
                                   const char *schemes, const lf_model_source *onnx)
{
    memset(set, 0, sizeof *set);
    const char *file = onnx ? onnx->onnx : NULL;
    if (file)
        set->source = *onnx;
    if (!file && strlen(models) >= sizeof set->model_list)
        return lf_set_error(LF_EINVAL, "--models list too long");
    if (strlen(schemes) >= sizeof set->scheme_list)
        return lf_set_error(LF_EINVAL, "unknown --scheme '%s' (use lbdf, brr or lbdf,brr)", schemes);
    snprintf(set->model_list, sizeof set->model_list, "%s", file ? "" : models);
    snprintf(set->scheme_list, sizeof set->scheme_list, "%s", schemes);
    int nm = file ? 1 : lf__split(set->model_list, set->models, LF_BUFFER_SWEEP_MAX_MODELS);
    if (file)
        set->models[0] = (char *)file;
    int ns = lf__split(set->scheme_list, set->schemes, 2);
    if (nm < 1)
        return lf_set_error(LF_EINVAL, "--models names no network");
    if (nm > LF_BUFFER_SWEEP_MAX_MODELS)
        return lf_set_error(LF_EINVAL, "--models has %d networks; at most %d", nm,
                            LF_BUFFER_SWEEP_MAX_MODELS);
    for (int i = 0; i < nm && !file; i++)
        if (!lf_model_known(set->models[i]))
            return lf_set_error(LF_EINVAL, "unknown model '%s'; 'fusionplan models' lists the "
                                           "built-in networks", set->models[i]);
    if (ns < 1 || ns > 2)
        return lf_set_error(LF_EINVAL, "unknown --scheme '%s' (use lbdf, brr or lbdf,brr)", schemes);
    for (int i = 0; i < ns; i++)
        if (!lf_name_known(LF_NAMES_SCHEME, set->schemes[i]))
            return lf_set_error(LF_EINVAL, "unknown scheme '%s' (use lbdf or brr)", set->schemes[i]);
    if (ns == 2 && strcmp(set->schemes[0], set->schemes[1]) == 0)
        return lf_set_error(LF_EINVAL, "--scheme names %s twice", set->schemes[0]);
    set->n_models = nm;
    set->n_schemes = ns;
    return LF_OK;
}

lf_status lf_buffer_sweep_set_run(lf_buffer_sweep_set *set, lf_buffer_sweep_config *cfg,
                                  lf_buffer_sweep_done_fn done, lf_buffer_sweep_notice_fn notice,
                                  void *user)
{
    lf_status st = LF_OK;
    free(set->sweeps);
    set->n_sweeps = 0;
    set->sweeps = calloc((size_t)(set->n_models * set->n_schemes) + 1, sizeof *set->sweeps);
    if (!set->sweeps)
        return lf_set_error(LF_ENOMEM, "out of memory");
    int32_t *n_done = &set->n_sweeps;
    int onnx = set->source.onnx != NULL;
    cfg->sample_graph = onnx; /* an ONNX network is sampled from its graph */
    for (int32_t mi = 0; mi < set->n_models && st == LF_OK; mi++) {
        lf_model_source src = set->source;
        if (!onnx)
            src.model = set->models[mi];
        lf_graph *g = NULL;
        if ((st = lf_model_source_load(&src, &g, NULL)) != LF_OK)
            break;
        const char *name = set->models[mi];
        if (onnx) {
            snprintf(set->onnx_name, sizeof set->onnx_name, "%s", g->name);
            name = set->onnx_name;
        }
        for (int32_t si = 0; si < set->n_schemes && st == LF_OK; si++) {
            lf_buffer_sweep *sw = &set->sweeps[*n_done];
            double t0 = lf_now_seconds();
            st = lf_buffer_sweep_run(g, name, set->schemes[si], cfg, sw, notice, user);
            if (st == LF_OK && done)
                done(user, sw, *n_done, lf_now_seconds() - t0);
            if (st == LF_OK)
                (*n_done)++;
        }
        lf_graph_free(g);
    }
    return st;
}

void lf_buffer_sweep_set_destroy(lf_buffer_sweep_set *set)
{
    free(set->sweeps);
    set->sweeps = NULL;
    set->n_sweeps = 0;
}

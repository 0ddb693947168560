/* Where a network comes from (pipeline.h): a built-in network or an ONNX
 * file with its input shapes and switched-off normalisations. Parsed here
 * once, so every front end accepts the same source options. */
#include <stdio.h>
#include <string.h>

#include "models/registry.h"
#include "planner/exec/exec.h"
#include "planner/io/onnx.h"
#include "planner/app/pipeline.h"

#define LF__MAX_INPUT_SHAPES 16

/* Fills opt from the source's option strings; shapes holds
 * LF__MAX_INPUT_SHAPES entries. */
static lf_status lf__onnx_options(const lf_model_source *src, lf_onnx_options *opt,
                                  lf_onnx_input_shape *shapes)
{
    memset(opt, 0, sizeof *opt);
    if (src->input_shapes) {
        /* Several inputs are separated by ';' (a shape itself holds commas). */
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", src->input_shapes);
        char *save = NULL;
        for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
            if (opt->n_input_shapes == LF__MAX_INPUT_SHAPES)
                return lf_set_error(LF_EINVAL, "--input-shape: more than %d inputs",
                                    LF__MAX_INPUT_SHAPES);
            lf_status st = lf_onnx_parse_input_shape(tok, &shapes[opt->n_input_shapes]);
            if (st != LF_OK)
                return st;
            opt->n_input_shapes++;
        }
        opt->input_shapes = shapes;
    }
    if (src->no_rewrite) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", src->no_rewrite);
        char *save = NULL;
        for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            lf_onnx_rewrite k = lf_onnx_rewrite_from_name(tok);
            if (k == LF_ONNX_REWRITE_COUNT) {
                /* Name the known ones from the importer's table, so the
                 * list cannot fall behind it (the caller adds its hint). */
                char known[512] = "";
                size_t used = 0;
                for (int r = 0; r < LF_ONNX_REWRITE_COUNT && used < sizeof known; r++)
                    used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", r ? ", " : "",
                                             lf_onnx_rewrite_name((lf_onnx_rewrite)r));
                return lf_set_error(LF_EINVAL, "--no-rewrite: unknown rewrite '%s' (known: %s)", tok, known);
            }
            opt->disable |= 1u << k;
        }
    }
    opt->folder = lf_exec_fold; /* constant-only ops the importer did not fold */
    return LF_OK;
}

lf_status lf_model_source_check(const lf_model_source *src)
{
    if (!src)
        return lf_set_error(LF_EINVAL, "no model source");
    if (src->onnx) {
        if (src->model)
            return lf_set_error(LF_EINVAL, "give either --model or --onnx, not both");
        if (src->input_size || src->batch > 1 || src->seq_len || src->layers || src->phase ||
            src->context)
            return lf_set_error(LF_EINVAL, "--input-size, --batch, --seq-len, --layers, --phase "
                                           "and --context apply to built-in networks; "
                                           "use --input-shape with --onnx");
        lf_onnx_options opt;
        lf_onnx_input_shape shapes[LF__MAX_INPUT_SHAPES];
        return lf__onnx_options(src, &opt, shapes);
    }
    return LF_OK; /* ONNX options without a file are ignored, as they always were */
}

const char *lf_model_source_name(const lf_model_source *src)
{
    return src->onnx ? src->onnx : src->model ? src->model : "resnet50";
}

lf_status lf_model_source_load(const lf_model_source *src, lf_graph **g, lf_onnx_report **rep)
{
    *g = NULL;
    if (rep)
        *rep = NULL;
    lf_status st = lf_model_source_check(src);
    if (st != LF_OK)
        return st;
    if (src->onnx) {
        lf_onnx_options opt;
        lf_onnx_input_shape shapes[LF__MAX_INPUT_SHAPES];
        if ((st = lf__onnx_options(src, &opt, shapes)) != LF_OK)
            return st;
        return lf_onnx_import(src->onnx, &opt, g, rep);
    }
    lf_model_options mo = {src->input_size, src->batch > 1 ? src->batch : 1};
    lf_model_seq_options so = {src->seq_len, src->layers, (lf_model_phase)src->phase,
                               src->context};
    return lf_model_build_seq(lf_model_source_name(src), &mo, &so, g);
}

lf_status lf_model_source_for_plan(lf_model_source *src, const char *path, const char *model)
{
    if (src->model || src->onnx)
        return LF_OK;
    size_t len = strlen(path);
    if (len > 5 && strcmp(path + len - 5, ".onnx") == 0) {
        /* checked against the graph it holds: the hash check then proves that
         * it re-imports to the planned graph */
        src->onnx = path;
        return LF_OK;
    }
    int32_t n = 0;
    const lf_model_entry *m = lf_models(&n);
    for (int32_t i = 0; i < n; i++)
        if (strcmp(m[i].name, model) == 0) {
            src->model = model;
            return LF_OK;
        }
    char name[80];
    lf_text_line(name, sizeof name, model);
    return lf_set_error(LF_EINVAL, "%s: model.name: '%s' is not a built-in network: give --model or --onnx", path,
                        name);
}

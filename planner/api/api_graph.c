/* Networks for bindings: a graph from a source object, its JSON, its ONNX
 * file, and the list of built-in networks. */
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/app/api/api_internal.h"
#include "planner/io/onnx.h"
#include "planner/app/pipeline.h"

lf_status lf_api_graph_load(const char *source_json, lf_graph **out)
{
    static const char *const allowed[] = {"model", "input_size", "batch", "onnx", "input_shape",
                                          "no_rewrite", NULL};
    *out = NULL;
    json_t *o;
    lf_status st = lf__api_object(source_json, "source", allowed, &o);
    if (st != LF_OK)
        return st;
    lf_model_source src;
    memset(&src, 0, sizeof src);
    int32_t batch = 1;
    if ((st = lf__api_str(o, "source", "model", &src.model)) ||
        (st = lf__api_i32(o, "source", "input_size", 1, LF_MODEL_MAX_INPUT, &src.input_size)) ||
        (st = lf__api_i32(o, "source", "batch", 1, LF_MODEL_MAX_BATCH, &batch)) ||
        (st = lf__api_str(o, "source", "onnx", &src.onnx)) ||
        (st = lf__api_str(o, "source", "input_shape", &src.input_shapes)) ||
        (st = lf__api_str(o, "source", "no_rewrite", &src.no_rewrite))) {
        json_decref(o);
        return st;
    }
    src.batch = batch;
    st = lf_model_source_check(&src);
    if (st == LF_OK)
        st = lf_model_source_load(&src, out, NULL);
    json_decref(o);
    return st;
}

lf_status lf_api_graph_json(const lf_graph *g, char **out)
{
    *out = NULL;
    lf__api_mem m;
    lf_status st = lf__api_mem_open(&m);
    if (st == LF_OK && (st = lf_graph_write_json(g, m.f)) != LF_OK)
        lf__api_mem_abort(&m);
    return st == LF_OK ? lf__api_mem_close(&m, out, NULL) : st;
}

lf_status lf_api_graph_save_onnx(const lf_graph *g, const char *path, uint64_t seed)
{
    return lf_onnx_write_graph(path, g, seed);
}

lf_status lf_api_models_json(char **out)
{
    *out = NULL;
    int32_t n;
    const lf_model_entry *m = lf_models(&n);
    json_t *list = json_array();
    lf_status st = list ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory");
    for (int32_t i = 0; i < n && st == LF_OK; i++) {
        lf_graph *g = NULL;
        if ((st = lf_model_build(m[i].name, NULL, &g)) != LF_OK)
            break;
        json_t *e = json_pack("{s:s, s:s, s:i, s:i, s:I, s:I, s:I}", "name", m[i].name, "family",
                              m[i].family, "input_size", (int)m[i].default_input, "min_input",
                              (int)m[i].min_input, "ops", (json_int_t)lf_graph_compute_ops(g),
                              "params", (json_int_t)lf_graph_params(g), "macs",
                              (json_int_t)lf_graph_macs(g));
        lf_graph_free(g);
        if (!e || json_array_append_new(list, e))
            st = lf_set_error(LF_ENOMEM, "out of memory");
    }
    if (st != LF_OK) {
        json_decref(list);
        return st;
    }
    return lf__api_dump(list, out);
}

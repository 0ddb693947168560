/* Entry points of the ONNX importer: file or memory -> load -> shapes and
 * folding -> normalisations -> lowering into the project's IR. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_proto.h"
#include "planner/io/onnx_report.h"

/* A model whose inputs are all bound (opt.const_outputs): its outputs'
 * values go to the report, and there is no graph. */
static lf_status lf__const_graph(lf__ox_graph *g)
{
    for (int32_t v = 0; v < g->n_values; v++) {
        const lf__ox_value *x = &g->values[v];
        if (!x->is_output)
            continue;
        if (!x->is_const || (!x->data.f && !x->data.i))
            return lf__ox_fail(g, x->producer, LF_EUNSUPPORTED,
                               "every graph input is bound to values, and output '%s' does not fold to a constant",
                               x->name);
        float *f = malloc((size_t)(x->data.count ? x->data.count : 1) * sizeof *f);
        if (!f)
            return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
        for (int64_t e = 0; e < x->data.count; e++)
            f[e] = x->data.f ? x->data.f[e] : (float)x->data.i[e];
        lf_status st = lf__onnx_report_constant(g->report, x->name, f, x->data.count);
        free(f);
        if (st != LF_OK)
            return st;
    }
    return LF_OK;
}

static lf_status lf__import(const void *bytes, size_t len, int mapped, int fd, const char *path,
                            const char *base_dir, const lf_onnx_options *opt, lf_graph **out,
                            lf_onnx_report **report)
{
    lf__ox_graph g;
    lf_status st = lf__ox_init(&g, path, opt);
    if (st != LF_OK)
        return st;
    g.bytes_mapped = mapped;
    g.file_fd = fd;
    g.file_bytes = bytes;
    g.file_len = len;
    if ((st = lf__ox_load(&g, bytes, len, base_dir)) == LF_OK) {
        lf__onnx_report_set_file(g.report, g.opset, g.n_nodes);
        if ((st = lf__ox_infer(&g)) == LF_OK && g.const_graph)
            st = lf__const_graph(&g);
        else if (st == LF_OK && (st = lf__ox_rewrite(&g)) == LF_OK && (st = lf__ox_ir_parts(&g)) == LF_OK)
            st = lf__ox_lower(&g, out);
    }
    if (st == LF_OK && report) {
        *report = g.report;
        g.report = NULL;
    }
    lf__ox_destroy(&g);
    return st;
}

lf_status lf_onnx_import(const char *path, const lf_onnx_options *opt, lf_graph **out,
                         lf_onnx_report **report)
{
    *out = NULL;
    if (report)
        *report = NULL;
    int64_t cap = opt && opt->max_file_bytes > 0 ? opt->max_file_bytes : (int64_t)2 << 30;
    uint8_t *bytes;
    size_t len;
    int mapped, fd;
    lf_status st = lf__ox_map_capped(path, cap, &onnx__model_proto__descriptor, "ONNX model", &bytes, &len,
                                     &mapped, &fd);
    if (st != LF_OK)
        return st;
    char dir[4096];
    lf__ox_dirname(path, dir, sizeof dir);
    st = lf__import(bytes, len, mapped, fd, path, dir, opt, out, report);
    lf__ox_file_release(bytes, len, mapped, fd);
    return st;
}

lf_status lf_onnx_import_memory(const void *data, size_t len, const char *name,
                                const lf_onnx_options *opt, lf_graph **out,
                                lf_onnx_report **report)
{
    *out = NULL;
    if (report)
        *report = NULL;
    return lf__import(data, len, 0, -1, name ? name : "(memory)", NULL, opt, out, report);
}

lf_status lf_onnx_parse_input_shape(const char *spec, lf_onnx_input_shape *out)
{
    memset(out, 0, sizeof *out);
    const char *eq = strrchr(spec, '=');
    const char *dims = spec;
    if (eq) {
        if ((size_t)(eq - spec) >= sizeof out->name)
            return lf_set_error(LF_EINVAL, "--input-shape '%s': name too long", spec);
        memcpy(out->name, spec, (size_t)(eq - spec));
        dims = eq + 1;
    }
    const char *p = dims;
    while (*p) {
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno || v <= 0 || v > ((long long)1 << 31))
            return lf_set_error(LF_EINVAL, "--input-shape '%s': dimensions must be positive integers "
                                "separated by commas (NAME=1,3,224,224)", spec);
        if (out->rank == LF_ONNX_MAX_RANK)
            return lf_set_error(LF_EINVAL, "--input-shape '%s': more than %d dimensions", spec,
                                LF_ONNX_MAX_RANK);
        out->dims[out->rank++] = v;
        p = end;
        if (*p == ',' || *p == 'x')
            p++;
        else if (*p)
            return lf_set_error(LF_EINVAL, "--input-shape '%s': unexpected '%c'", spec, *p);
    }
    if (out->rank == 0)
        return lf_set_error(LF_EINVAL, "--input-shape '%s': no dimensions", spec);
    return LF_OK;
}

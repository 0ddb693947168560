/* Saving a plan to a file in the format its name asks for. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/plan_export.h"
#include "planner/util/fileio.h"

/* Case-insensitive suffix test, so "plan.JSON" works as users expect. */
static int lf__has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), m = strlen(ext);
    if (n <= m)
        return 0;
    for (size_t i = 0; i < m; i++)
        if (tolower((unsigned char)path[n - m + i]) != ext[i])
            return 0;
    return 1;
}

/* Extensions and the format each names, in the order they are tried. */
static const struct {
    const char *ext, *format;
} lf__exts[] = {{".json", "json"}, {".dot", "dot"},   {".gv", "dot"},      {".xml", "xml"},
                {".svg", "svg"},   {".png", "png"},   {".onnx", "onnx"},   {".yaml", "stream"},
                {".yml", "stream"}, {".html", "html"}, {".htm", "html"}};

lf_status lf_plan_format_of(const char *path, const char **format)
{
    for (size_t i = 0; path && i < sizeof lf__exts / sizeof lf__exts[0]; i++)
        if (lf__has_ext(path, lf__exts[i].ext)) {
            if (format)
                *format = lf__exts[i].format;
            return LF_OK;
        }
    return lf_set_error(LF_EINVAL,
                        "cannot tell the plan format of '%s' from its extension: use .json, "
                        ".dot, .xml, .svg, .png, .onnx, .yaml or .html, or name the format",
                        path ? path : "");
}

lf_status lf_plan_save(const char *path, const char *format, const lf_plan *p, lf_cost_model *cm,
                       const lf_plan_meta *meta)
{
    if (!path || !path[0] || !p || !cm)
        return lf_set_error(LF_EINVAL, "lf_plan_save needs a path, a plan and a cost model");
    /* The format is settled before anything is created, so a bad name leaves
     * no file behind. */
    lf_status st;
    if (!format && (st = lf_plan_format_of(path, &format)) != LF_OK)
        return st;
    enum { LF__JSON, LF__DOT, LF__XML, LF__SVG, LF__PNG, LF__ONNX, LF__ONNX_GROUPS, LF__STREAM, LF__STACKS, LF__HTML } kind;
    if (strcmp(format, "json") == 0)
        kind = LF__JSON;
    else if (strcmp(format, "dot") == 0)
        kind = LF__DOT;
    else if (strcmp(format, "xml") == 0)
        kind = LF__XML;
    else if (strcmp(format, "svg") == 0)
        kind = LF__SVG;
    else if (strcmp(format, "png") == 0)
        kind = LF__PNG;
    else if (strcmp(format, "onnx") == 0)
        kind = LF__ONNX;
    else if (strcmp(format, "onnx-groups") == 0)
        kind = LF__ONNX_GROUPS;
    else if (strcmp(format, "stream") == 0)
        kind = LF__STREAM;
    else if (strcmp(format, "stream-stacks") == 0)
        kind = LF__STACKS;
    else if (strcmp(format, "html") == 0)
        kind = LF__HTML;
    else
        return lf_set_error(LF_EINVAL, "unknown plan format '%s' (known: json, dot, xml, svg, png, onnx, onnx-groups, stream, stream-stacks, html)",
                            format);
    lf_atomic_file af;
    st = lf_atomic_open(&af, path);
    if (st != LF_OK)
        return st;
    st = kind == LF__DOT   ? lf_plan_write_dot(af.f, p, cm, meta)
         : kind == LF__XML ? lf_plan_write_xml(af.f, p, cm, meta)
         : kind == LF__SVG ? lf_plan_write_image(af.f, "svg", p, cm, meta)
         : kind == LF__PNG ? lf_plan_write_image(af.f, "png", p, cm, meta)
         : kind == LF__ONNX ? lf_plan_write_onnx(af.f, p, cm, meta)
         : kind == LF__ONNX_GROUPS ? lf_plan_write_onnx_groups(af.f, p, cm, meta)
         : kind == LF__STREAM ? lf_plan_write_stream(af.f, p, cm, meta)
         : kind == LF__STACKS ? lf_plan_write_stream_stacks(af.f, p, cm, meta)
         : kind == LF__HTML ? lf_plan_write_html(af.f, p, cm, meta)
                           : lf_plan_write_json(af.f, p, cm, meta);
    if (st != LF_OK) {
        lf_atomic_abort(&af);
        return st;
    }
    return lf_atomic_commit(&af);
}

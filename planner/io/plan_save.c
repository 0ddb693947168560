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

typedef lf_status (*lf__writer)(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta);

static lf_status lf__write_svg(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta)
{
    return lf_plan_write_image(f, "svg", p, cm, meta);
}

static lf_status lf__write_png(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta)
{
    return lf_plan_write_image(f, "png", p, cm, meta);
}

/* The plan exporters: one row each, the one place that lists them. Its name
 * (--format, lf_names(LF_NAMES_EXPORTER)), the file extensions that ask for
 * it (tried in the table's order, any case; NULL: by name only) and its
 * writer. A new format is its writer's file and one row here. */
#define LF__FORMATS(X)                                                                                \
    X("json", ".json", NULL, lf_plan_write_json)                                                       \
    X("dot", ".dot", ".gv", lf_plan_write_dot)                                                         \
    X("xml", ".xml", NULL, lf_plan_write_xml)                                                          \
    X("svg", ".svg", NULL, lf__write_svg)                                                              \
    X("png", ".png", NULL, lf__write_png)                                                              \
    X("onnx", ".onnx", NULL, lf_plan_write_onnx)                                                       \
    X("onnx-groups", NULL, NULL, lf_plan_write_onnx_groups)                                            \
    X("stream", ".yaml", ".yml", lf_plan_write_stream)                                                 \
    X("stream-stacks", NULL, NULL, lf_plan_write_stream_stacks)                                        \
    X("html", ".html", ".htm", lf_plan_write_html)

#define LF__ROW(name, ext1, ext2, writer) {name, {ext1, ext2}, writer},
#define LF__NAME(name, ext1, ext2, writer) name,
static const struct {
    const char *name;
    const char *ext[2];
    lf__writer write;
} lf__formats[] = {LF__FORMATS(LF__ROW)};
static const char *const lf__format_names[] = {LF__FORMATS(LF__NAME) NULL};
#define LF__N_FORMATS ((int)(sizeof lf__formats / sizeof lf__formats[0]))

const char *const *lf_plan_formats(void) { return lf__format_names; }

/* "A, B, ... or Z" of the formats' first extensions or of their names. */
static void lf__list(char *buf, size_t n, int extensions)
{
    int count = 0, total = 0;
    for (int i = 0; i < LF__N_FORMATS; i++)
        total += !extensions || lf__formats[i].ext[0];
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < LF__N_FORMATS && used < n; i++) {
        const char *w = extensions ? lf__formats[i].ext[0] : lf__formats[i].name;
        if (!w)
            continue;
        count++;
        const char *sep = count == 1 ? "" : extensions && count == total ? " or " : ", ";
        int k = snprintf(buf + used, n - used, "%s%s", sep, w);
        used += k > 0 ? (size_t)k : 0;
    }
}

lf_status lf_plan_format_of(const char *path, const char **format)
{
    for (int i = 0; path && i < LF__N_FORMATS; i++)
        for (int e = 0; e < 2 && lf__formats[i].ext[e]; e++)
            if (lf__has_ext(path, lf__formats[i].ext[e])) {
                if (format)
                    *format = lf__formats[i].name;
                return LF_OK;
            }
    char exts[256];
    lf__list(exts, sizeof exts, 1);
    return lf_set_error(LF_EINVAL, "cannot tell the plan format of '%s' from its extension: use %s, or name the format",
                        path ? path : "", exts);
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
    lf__writer write = NULL;
    for (int i = 0; i < LF__N_FORMATS && !write; i++)
        if (strcmp(format, lf__formats[i].name) == 0)
            write = lf__formats[i].write;
    if (!write) {
        char names[256];
        lf__list(names, sizeof names, 0);
        return lf_set_error(LF_EINVAL, "unknown plan format '%s' (known: %s)", format, names);
    }
    lf_atomic_file af;
    st = lf_atomic_open(&af, path);
    if (st != LF_OK)
        return st;
    st = write(af.f, p, cm, meta);
    if (st != LF_OK) {
        lf_atomic_abort(&af);
        return st;
    }
    return lf_atomic_commit(&af);
}

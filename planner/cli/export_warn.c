/* The warnings a Stream mapping export comes with: one line on stderr for
 * each thing Stream cannot express of the plan (the library lists them). */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/io/plan_export.h"
#include "planner/app/pipeline.h"

int lf_cli_is_stream(const char *path, const char *format)
{
    if (!format && lf_plan_format_of(path, &format) != LF_OK)
        return 0;
    return strncmp(format, "stream", 6) == 0;
}

void lf_cli_warn_stream(struct lf_pipeline *p, const char *path, const char *format)
{
    if (!format && lf_plan_format_of(path, &format) != LF_OK)
        return;
    lf_plan_meta meta = {0};
    meta.model = p->model_name;
    meta.onnx_source = p->onnx_source;
    meta.budget = -1;
    char notes[4096];
    if (lf_plan_stream_notes(&p->result.plan, p->cm, &meta, format, notes, sizeof notes) <= 0)
        return;
    for (const char *l = notes; *l;) {
        const char *e = strchr(l, '\n');
        if (!e)
            break;
        fprintf(stderr, "fusionplan: warning: %.*s\n", (int)(e - l), l);
        l = e + 1;
    }
}

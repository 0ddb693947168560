/* The warning a Stream mapping export comes with: one line on stderr naming
 * the op types Stream's ONNX reader rejects (the library lists them). */
#include <stdio.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/io/plan_export.h"

int lf_cli_is_stream(const char *path, const char *format)
{
    if (!format && lf_plan_format_of(path, &format) != LF_OK)
        return 0;
    return strcmp(format, "stream") == 0;
}

void lf_cli_warn_stream(const lf_graph *g)
{
    char list[512];
    int32_t n = lf_plan_stream_rejected(g, list, sizeof list);
    if (n > 0)
        fprintf(stderr, "fusionplan: warning: Stream's ONNX reader rejects %d op%s of this graph: %s\n", (int)n,
                n == 1 ? "" : "s", list);
}

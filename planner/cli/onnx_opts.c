/* --onnx FILE, --input-shape and --no-rewrite: importing an ONNX model for
 * any command that works on a model (the options are parsed by the library's
 * lf_model_source, planner/app/pipeline.h). */
#include <string.h>

#include "planner/app/cli/cli.h"

int lf_cli_onnx_load(const lf_cli_command *cmd, const char *path, lf_graph **g, lf_onnx_report **rep)
{
    lf_model_source src;
    memset(&src, 0, sizeof src);
    src.onnx = path;
    src.input_shapes = lf_cli_get(cmd, "input-shape");
    src.no_rewrite = lf_cli_get(cmd, "no-rewrite");
    return lf_cli_load_graph(cmd, &src, g, rep);
}

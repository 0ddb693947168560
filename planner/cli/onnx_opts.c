/* --onnx FILE, --input-shape and --no-rewrite: importing an ONNX model for
 * any command that works on a model. */
#include <stdlib.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/exec/exec.h"
#include "planner/io/onnx.h"

int lf_cli_onnx_load(const lf_cli_command *cmd, const char *path, lf_graph **g, lf_onnx_report **rep)
{
    lf_onnx_input_shape shapes[16];
    lf_onnx_options opt = {0};
    const char *spec = lf_cli_get(cmd, "input-shape");
    if (spec) {
        /* Several inputs are separated by ';' (a shape itself holds commas). */
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", spec);
        char *save = NULL;
        for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
            if (opt.n_input_shapes == 16)
                return lf_cli_usage_error(cmd, "--input-shape: more than 16 inputs");
            if (lf_onnx_parse_input_shape(tok, &shapes[opt.n_input_shapes]) != LF_OK)
                return lf_cli_usage_error(cmd, "%s", lf_last_error());
            opt.n_input_shapes++;
        }
        opt.input_shapes = shapes;
    }
    const char *off = lf_cli_get(cmd, "no-rewrite");
    if (off) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", off);
        char *save = NULL;
        for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            lf_onnx_rewrite k = lf_onnx_rewrite_from_name(tok);
            if (k == LF_ONNX_REWRITE_COUNT)
                return lf_cli_usage_error(cmd, "--no-rewrite: unknown rewrite '%s' (see `fusionplan import "
                                               "--help`)", tok);
            opt.disable |= 1u << k;
        }
    }
    opt.folder = lf_exec_fold; /* constant-only ops the importer did not fold */
    lf_status st = lf_onnx_import(path, &opt, g, rep);
    if (st != LF_OK)
        return lf_cli_fail(st);
    return 0;
}

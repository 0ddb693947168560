/* fusionplan import FILE: what importing an ONNX model gives (ops by type,
 * parameters, MACs) and what the importer folded or rewrote, and why. */
#include <stdio.h>

#include "planner/app/cli/cli.h"
#include "planner/io/onnx.h"
#include "planner/optable.h"
#include "planner/io/graph_json.h"

int lf_cmd_import(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_ONNX_OPTS,
        {"json", NULL, "print the imported graph as JSON instead of the summary", NULL},
    };
    lf_cli_command cmd = {"import", "Import an ONNX model and summarise it.",
                          "import FILE.onnx [--input-shape NAME=DIMS] [--no-rewrite LIST] [--json]",
                          "Reads the model (opsets 7-23), fixes free dimensions with --input-shape, "
                          "infers shapes, folds\nconstant subgraphs and applies the normalisations "
                          "(each can be switched off with --no-rewrite),\nthen prints the graph's ops "
                          "by type with parameters and MACs, and every fold or rewrite with\nits reason. "
                          "The same import runs for --onnx FILE in every other command.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    const char *file;
    int rc = lf_cli_parse_file(&cmd, argc, argv, &file);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    if (!file)
        file = lf_cli_get(&cmd, "onnx");
    if (!file)
        return lf_cli_usage_error(&cmd, "no model file (fusionplan import FILE.onnx)");
    lf_graph *g = NULL;
    lf_onnx_report *rep = NULL;
    if ((rc = lf_cli_onnx_load(&cmd, file, &g, &rep)))
        return rc;
    if (lf_cli_get(&cmd, "json")) {
        lf_status st = lf_graph_write_json(g, stdout);
        lf_graph_free(g);
        lf_onnx_report_free(rep);
        return st ? lf_cli_fail(st) : LF_EXIT_OK;
    }
    char hex[17], buf[32], buf2[32];
    lf_graph_hash_hex(g, hex);
    lf_cli_commas(lf_graph_params(g), buf, sizeof buf);
    printf("file      %s: opset %lld, %d ONNX nodes\n", file, (long long)lf_onnx_report_opset(rep),
           (int)lf_onnx_report_nodes(rep));
    printf("graph     %s: %d ops, %s params, %.3f GMACs, hash %s\n", g->name, (int)lf_graph_compute_ops(g),
           buf, (double)lf_graph_macs(g) / 1e9, hex);
    printf("\n%-18s %6s %16s %18s\n", "op type", "count", "params", "MACs");
    for (int t = 0; t < LF_OP_TYPE_COUNT; t++) {
        int32_t count = 0;
        int64_t params = 0, macs = 0;
        for (int32_t v = 0; v < g->n_ops; v++)
            if ((int)g->ops[v].type == t) {
                count++;
                params += g->ops[v].param_count;
                macs += g->ops[v].macs;
            }
        if (!count)
            continue;
        lf_cli_commas(params, buf, sizeof buf);
        lf_cli_commas(macs, buf2, sizeof buf2);
        printf("%-18s %6d %16s %18s\n", lf_op_info_of((lf_op_type)t)->name, (int)count, buf, buf2);
    }
    printf("\nrewrites:");
    int any = 0;
    for (int k = 0; k < LF_ONNX_REWRITE_COUNT; k++) {
        int32_t c = lf_onnx_report_count(rep, (lf_onnx_rewrite)k);
        if (c)
            printf("%s %s %d", any++ ? "," : "", lf_onnx_rewrite_name((lf_onnx_rewrite)k), (int)c);
    }
    printf("%s\n", any ? "" : " none");
    lf_onnx_report_write(rep, stdout);
    lf_graph_free(g);
    lf_onnx_report_free(rep);
    return LF_EXIT_OK;
}

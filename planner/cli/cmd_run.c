/* fusionplan run: executes a graph with the reference executor and prints
 * statistics of every graph output; inputs from TensorProto files or drawn
 * from the seed, outputs optionally written as TensorProto files. */
#include <stdio.h>

#include "planner/app/cli/cli.h"
#include "planner/exec/exec.h"
#include "planner/io/exec_files.h"

#define LF__RUN_MAX_FILES 16

int lf_cmd_run(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"model", "NAME", "built-in network (see `fusionplan models`; default resnet50)", NULL},
        {"input-size", "N", "square input resolution (default: the network's own)", NULL},
        {"batch", "N", "batch size N of every tensor (default 1)", NULL},
        LF_CLI_SEQ_OPTS,
        LF_CLI_ONNX_OPTS,
        {"input", "FILES", "TensorProto files (.pb) for the graph inputs, in order, comma-separated "
                           "(default: drawn from the seed)", NULL},
        {"output", "FILES", "write the graph outputs, in order, as float32 TensorProto files", NULL},
        {"seed", "S", "seed of generated inputs and of constants without values (default 1)", NULL},
        {"threads", "T", "OpenMP threads (default: all cores); results do not depend on it", NULL},
        {"inputs", NULL, "also print statistics of the graph inputs", NULL},
    };
    lf_cli_command cmd = {"run", "Execute a network with the reference executor.",
                          "run [--model NAME | --onnx FILE] [--input FILES] [--output FILES] [--seed S] [--threads T]",
                          "Runs the network in float32 on the CPU with the reference executor "
                          "(ONNX semantics) and prints,\nfor every graph output, its shape, "
                          "minimum, maximum, mean, L2 norm and a checksum of its bytes\n(FNV-1a "
                          "64), which is the same for any --threads. Inputs not given with --input "
                          "and constants\nwithout values are drawn from a generator seeded by "
                          "(--seed, tensor name).",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    int64_t seed = 1, threads = 0;
    lf_model_source src;
    lf_graph *g = NULL;
    if ((rc = lf_cli_model_source(&cmd, &src)) || (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)) ||
        (rc = lf_cli_int(&cmd, "threads", 0, 0, 1024, &threads)) || (rc = lf_cli_load_graph(&cmd, &src, &g, NULL)))
        return rc;
    /* --input and --output: comma-separated files, in the graph's order */
    static const char *const lists[2] = {"input", "output"};
    char buf[2][4096], *files[2][LF__RUN_MAX_FILES];
    int n[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        if (lf_cli_get(&cmd, lists[i]))
            lf_cli_list(&cmd, lists[i], NULL, -1, buf[i], sizeof buf[i], files[i], LF__RUN_MAX_FILES, &n[i]);
        if (n[i] > LF__RUN_MAX_FILES) {
            lf_graph_free(g);
            return lf_cli_usage_error(&cmd, "--%s: at most %d files", lists[i], LF__RUN_MAX_FILES);
        }
    }
    lf_exec_options eo = {(uint64_t)seed, (int32_t)threads, 0};
    lf_exec *ex = NULL;
    lf_status st = lf_exec_create(&ex, g, &eo);
    if (!st && n[0])
        st = lf_exec_read_inputs(ex, g, (const char *const *)files[0], n[0]);
    if (!st)
        st = lf_exec_run(ex);
    if (!st && lf_cli_get(&cmd, "output"))
        st = lf_exec_write_outputs(ex, g, (const char *const *)files[1], n[1]);
    if (!st) {
        printf("model %s: %d ops, seed %lld\n", g->name, (int)g->n_ops, (long long)seed);
        lf_exec_report_write(stdout, ex, g, lf_cli_get(&cmd, "inputs") != NULL);
    }
    lf_exec_free(ex);
    lf_graph_free(g);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

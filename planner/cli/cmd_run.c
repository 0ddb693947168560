/* fusionplan run: executes a graph with the reference executor and prints
 * statistics of every graph output; inputs from TensorProto files or drawn
 * from the seed, outputs optionally written as TensorProto files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/cli/cli.h"
#include "planner/exec/exec.h"
#include "planner/io/onnx.h"

#define LF__RUN_MAX_FILES 16

static void lf__print_stats(const char *what, const lf_op *op, const float *data)
{
    lf_tensor_stats s;
    lf_tensor_stats_of(data, lf_shape_count(op->out), &s);
    printf("%s %s: shape %lldx%lldx%lldx%lld  min %.6g  max %.6g  mean %.6g  l2 %.6g  checksum %016llx",
           what, op->name, (long long)op->out.n, (long long)op->out.c, (long long)op->out.h,
           (long long)op->out.w, s.min, s.max, s.mean, s.l2, (unsigned long long)s.checksum);
    if (s.n_nan || s.n_inf)
        printf("  nan %lld  inf %lld", (long long)s.n_nan, (long long)s.n_inf);
    printf("\n");
}

/* Reads each file of the comma-separated list into the graph input of the
 * same position. */
static lf_status lf__load_inputs(const lf_cli_command *cmd, lf_exec *ex, const lf_graph *g, const char *list)
{
    char buf[4096], *files[LF__RUN_MAX_FILES];
    snprintf(buf, sizeof buf, "%s", list);
    int n = lf_cli_split_list(buf, files, LF__RUN_MAX_FILES);
    int32_t k = 0;
    lf_status st = LF_OK;
    (void)cmd;
    for (int32_t v = 0; v < g->n_ops && !st; v++) {
        if (g->ops[v].type != LF_OP_INPUT)
            continue;
        if (k >= n)
            break;
        lf_onnx_tensor t;
        memset(&t, 0, sizeof t);
        st = lf_onnx_read_tensor(files[k], &t);
        if (!st && t.count != lf_shape_count(g->ops[v].out))
            st = lf_set_error(LF_EINVAL, "%s: tensor '%s' has %lld values, input '%s' takes %lld (%lldx%lldx%lldx%lld)",
                              files[k], t.name, (long long)t.count, g->ops[v].name,
                              (long long)lf_shape_count(g->ops[v].out), (long long)g->ops[v].out.n,
                              (long long)g->ops[v].out.c, (long long)g->ops[v].out.h, (long long)g->ops[v].out.w);
        if (!st)
            st = lf_exec_set_input(ex, v, t.data, t.count);
        lf_onnx_tensor_free(&t);
        k++;
    }
    if (!st && n != k)
        st = lf_set_error(LF_EINVAL, "--input: %d files for %d graph inputs", n, (int)k);
    return st;
}

/* Writes graph output k to the k-th file of the list (rank 4: N, C, H, W). */
static lf_status lf__write_outputs(const lf_exec *ex, const lf_graph *g, const char *list)
{
    char buf[4096], *files[LF__RUN_MAX_FILES];
    snprintf(buf, sizeof buf, "%s", list);
    int n = lf_cli_split_list(buf, files, LF__RUN_MAX_FILES), k = 0;
    int outputs = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        outputs += g->ops[v].is_output != 0;
    if (n != outputs)
        return lf_set_error(LF_EINVAL, "--output: %d files for %d graph outputs", n, outputs);
    for (int32_t v = 0; v < g->n_ops; v++) {
        if (!g->ops[v].is_output)
            continue;
        lf_onnx_tensor t;
        memset(&t, 0, sizeof t);
        snprintf(t.name, sizeof t.name, "%s", g->ops[v].name);
        lf_shape s;
        t.data = (float *)lf_exec_output(ex, v, &s);
        t.rank = 4;
        t.dims[0] = s.n, t.dims[1] = s.c, t.dims[2] = s.h, t.dims[3] = s.w;
        t.count = lf_shape_count(s);
        lf_status st = lf_onnx_write_tensor(files[k++], &t);
        if (st)
            return st;
    }
    return LF_OK;
}

int lf_cmd_run(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"model", "NAME", "built-in network (see `fusionplan models`; default resnet50)", NULL},
        {"input-size", "N", "square input resolution (default: the network's own)", NULL},
        {"batch", "N", "batch size N of every tensor (default 1)", NULL},
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
    int64_t input = 0, batch = 1, seed = 1, threads = 0;
    if ((rc = lf_cli_int(&cmd, "input-size", 0, 1, LF_MODEL_MAX_INPUT, &input)) ||
        (rc = lf_cli_int(&cmd, "batch", 1, 1, LF_MODEL_MAX_BATCH, &batch)) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)) ||
        (rc = lf_cli_int(&cmd, "threads", 0, 0, 1024, &threads)))
        return rc;
    const char *model = lf_cli_get(&cmd, "model"), *onnx = lf_cli_get(&cmd, "onnx");
    lf_graph *g = NULL;
    lf_status st;
    if (onnx) {
        if (model)
            return lf_cli_usage_error(&cmd, "give either --model or --onnx, not both");
        if (input || batch != 1)
            return lf_cli_usage_error(&cmd, "--input-size and --batch apply to built-in networks; "
                                            "use --input-shape with --onnx");
        if ((rc = lf_cli_onnx_load(&cmd, onnx, &g, NULL)))
            return rc;
    } else {
        lf_model_options mo = {(int32_t)input, (int32_t)batch};
        if ((st = lf_model_build(model ? model : "resnet50", &mo, &g)))
            return lf_cli_fail(st);
    }
    lf_exec_options eo = {(uint64_t)seed, (int32_t)threads, 0};
    lf_exec *ex = NULL;
    const char *in_files = lf_cli_get(&cmd, "input"), *out_files = lf_cli_get(&cmd, "output");
    st = lf_exec_create(&ex, g, &eo);
    if (!st && in_files)
        st = lf__load_inputs(&cmd, ex, g, in_files);
    if (!st)
        st = lf_exec_run(ex);
    if (!st && out_files)
        st = lf__write_outputs(ex, g, out_files);
    if (st) {
        lf_exec_free(ex);
        lf_graph_free(g);
        return lf_cli_fail(st);
    }
    printf("model %s: %d ops, seed %lld\n", g->name, (int)g->n_ops, (long long)seed);
    if (lf_cli_get(&cmd, "inputs"))
        for (int32_t v = 0; v < g->n_ops; v++)
            if (g->ops[v].type == LF_OP_INPUT)
                lf__print_stats("input", &g->ops[v], lf_exec_output(ex, v, NULL));
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].is_output)
            lf__print_stats("output", &g->ops[v], lf_exec_output(ex, v, NULL));
    lf_exec_free(ex);
    lf_graph_free(g);
    return LF_EXIT_OK;
}

/* fusionplan run: executes a graph with the reference executor and prints
 * statistics of every graph output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/cli/cli.h"
#include "planner/exec/exec.h"

static void lf__print_stats(const char *what, const lf_op *op, const float *data)
{
    lf_tensor_stats s;
    int64_t count = op->out.n * op->out.c * op->out.h * op->out.w;
    lf_tensor_stats_of(data, count, &s);
    printf("%s %s: shape %lldx%lldx%lldx%lld  min %.6g  max %.6g  mean %.6g  l2 %.6g  checksum %016llx",
           what, op->name, (long long)op->out.n, (long long)op->out.c, (long long)op->out.h,
           (long long)op->out.w, s.min, s.max, s.mean, s.l2, (unsigned long long)s.checksum);
    if (s.n_nan || s.n_inf)
        printf("  nan %lld  inf %lld", (long long)s.n_nan, (long long)s.n_inf);
    printf("\n");
}

int lf_cmd_run(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"model", "NAME", "built-in network (see `fusionplan models`; default resnet50)", NULL},
        {"input-size", "N", "square input resolution (default: the network's own)", NULL},
        {"batch", "N", "batch size N of every tensor (default 1)", NULL},
        {"seed", "S", "seed of generated inputs and of constants without values (default 1)", NULL},
        {"threads", "T", "OpenMP threads (default: all cores); results do not depend on it", NULL},
        {"inputs", NULL, "also print statistics of the graph inputs", NULL},
    };
    lf_cli_command cmd = {"run", "Execute a network with the reference executor.",
                          "run [--model NAME] [--seed S] [--threads T]",
                          "Runs the network in float32 on the CPU with the reference executor "
                          "(ONNX semantics) and prints,\nfor every graph output, its shape, "
                          "minimum, maximum, mean, L2 norm and a checksum of its bytes\n(FNV-1a "
                          "64), which is the same for any --threads. Inputs and constants without "
                          "values are\ndrawn from a generator seeded by (--seed, tensor name).",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    int64_t input = 0, batch = 1, seed = 1, threads = 0;
    if ((rc = lf_cli_int(&cmd, "input-size", 0, 1, 4096, &input)) ||
        (rc = lf_cli_int(&cmd, "batch", 1, 1, 65536, &batch)) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)) ||
        (rc = lf_cli_int(&cmd, "threads", 0, 0, 1024, &threads)))
        return rc;
    const char *model = lf_cli_get(&cmd, "model");
    if (!model)
        model = "resnet50";
    lf_model_options mo = {(int32_t)input, (int32_t)batch};
    lf_graph *g = NULL;
    lf_status st = lf_model_build(model, &mo, &g);
    if (st)
        return lf_cli_fail(st);
    lf_exec_options eo = {(uint64_t)seed, (int32_t)threads, 0};
    lf_exec *ex = NULL;
    if ((st = lf_exec_create(&ex, g, &eo)) || (st = lf_exec_run(ex))) {
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

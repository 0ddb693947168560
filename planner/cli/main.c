/* fusionplan: plans layer fusion for DNN inference on accelerators. */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/gpu/device.h"
#include "search/sweep/sweep.h"

typedef struct lf__command_entry {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} lf__command_entry;

static const lf__command_entry lf__commands[] = {
    {"models", "list the built-in networks with ops, parameters and GMACs", lf_cmd_models},
    {"info", "summarise a network under a hardware description, layer by layer", lf_cmd_info},
    {"cost", "F_beta and F_D of one fusion group, with the row windows behind them", lf_cmd_cost},
    {"plan", "partition a network into fusion groups and export the plan", lf_cmd_plan},
    {"validate", "check a plan file: its graph, the partition rules, every figure recomputed", lf_cmd_validate},
    {"split", "split one invalid group with the tree splitter and show its candidate cuts", lf_cmd_split},
    {"dataset", "sample fusion groups from the networks and label them for the GNN", lf_cmd_dataset},
    {"train", "train the fusion-group validity GNN on a dataset", lf_cmd_train},
    {"explain", "explain why the GNN calls a group invalid: ranked edges and a picture", lf_cmd_explain},
    {"train-explainer", "train the PGExplainer or RG-Explainer on a dataset", lf_cmd_train_explainer},
    {"compare", "compare searches and explainer-guided splitters over seeds, with the optimum", lf_cmd_compare},
    {"sweep-buffer", "DRAM and valid-group fraction as the buffer doubles (paper Fig. 3)", lf_cmd_sweep_buffer},
    {"sweep", "run a grid of searches, one JSON line per cell: resumable, --cell jobs, MPI", lf_cmd_sweep_grid},
    {"sweep-report", "compare's tables and budget curves from sweep results files", lf_cmd_sweep_report},
    {"run", "execute a network with the reference executor and print output statistics", lf_cmd_run},
    {"import", "import an ONNX model: ops by type, params, MACs, what was folded or rewritten", lf_cmd_import},
    {"conformance", "run ONNX conformance test data through import and the executor", lf_cmd_conformance},
    {"curve", "the optimal DRAM at every buffer size in one run: every step, with its plan", lf_cmd_curve},
    {"rules", "list the substitution rules, their matches in a model, and verify them numerically", lf_cmd_rules},
    {"optimize", "rewrite a network with verified substitutions (MetaFlow's backtracking, split, enum)", lf_cmd_optimize},
    {"chart", "draw a line chart (SVG) from a CSV or Markdown results table", lf_cmd_chart},
    {"gso-dataset", "build the GSO rule filter's training set: augmented graphs labelled by the matcher", lf_cmd_gso_dataset},
    {"gso-train", "train the GSO rule filter's per-rule GCNs (or the LR baseline) and report their recall", lf_cmd_gso_train},
    {"profile", "measure op times on the GPU (cuDNN, cuBLAS) next to the roofline; fills the cache", lf_cmd_profile},
    {"schedule", "schedule ops into concurrent and merged stages: sequential, greedy and DOS", lf_cmd_schedule},
    {"bench", "benchmark searches against the optimum (bench search), threads, the exact planner, the executor, substitution searches (bench subst, bench ocggs), the FlashAttention yardstick (bench attention)", lf_cmd_bench},
};

static void lf__usage(FILE *f)
{
    fprintf(f, "usage: fusionplan <command> [options]\n\n"
               "Plans layer fusion for DNN inference on accelerators with a small on-chip buffer.\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof lf__commands / sizeof lf__commands[0]; i++)
        fprintf(f, "  %-16s %s\n", lf__commands[i].name, lf__commands[i].summary);
    fprintf(f, "\nRun 'fusionplan <command> --help' for a command's options.\n"
               "Example: fusionplan plan --model resnet50 --buffer 256KB -o plan.json\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        lf__usage(stderr);
        return LF_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        lf__usage(stdout);
        return LF_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("fusionplan %s\n", LF_VERSION);
        printf("MPI sweeps: %s\n", lf_sweep_mpi_built() ? "built (fusionplan sweep --mpi)"
                                                         : "not built (MPI not found at configure time)");
        int32_t n = 0;
        if (!lf_gpu_built())
            printf("GPU support: not built (CUDA or cuDNN not found at configure time)\n");
        else if (lf_gpu_count(&n) != LF_OK || n == 0)
            printf("GPU support: built; no CUDA device visible\n");
        else
            for (int32_t i = 0; i < n; i++) {
                lf_gpu_info info;
                if (lf_gpu_query(i, &info) == LF_OK)
                    printf("GPU %d: %s, %.1f GiB, compute capability %d.%d, cuDNN %d\n", (int)i,
                           info.name, (double)info.memory_bytes / (1 << 30), (int)info.cc_major,
                           (int)info.cc_minor, (int)info.cudnn_version);
            }
        return LF_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof lf__commands / sizeof lf__commands[0]; i++)
        if (strcmp(argv[1], lf__commands[i].name) == 0)
            return lf__commands[i].run(argc - 2, argv + 2);
    char name[80];
    lf_text_line(name, sizeof name, argv[1]);
    fprintf(stderr, "fusionplan: unknown command '%s' (see 'fusionplan --help')\n", name);
    return LF_EXIT_USAGE;
}

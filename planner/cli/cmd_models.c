/* fusionplan models: the built-in networks. */
#include <stdio.h>

#include "models/registry.h"
#include "planner/app/cli/cli.h"

int lf_cmd_models(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"input-size", "N", "build every network at this resolution instead of its own", NULL},
    };
    lf_cli_command cmd = {"models", "List the built-in networks.", "models [--input-size N]",
                          "Each CNN follows torchvision's architecture with BatchNorm folded "
                          "into the preceding conv;\nparams count a folded BatchNorm as two "
                          "parameters per channel, as torchvision does. For the\ntransformers "
                          "(vit_b_16, bert_*, gpt2*, llama3_8b) `input` is the default sequence "
                          "length in\ntokens and params count the weights in the graph "
                          "(docs/transformers.md).",
                          opts, 1};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    int64_t input = 0;
    if ((rc = lf_cli_int(&cmd, "input-size", 0, 1, LF_MODEL_MAX_INPUT, &input)))
        return rc;
    int32_t n;
    const lf_model_entry *m = lf_models(&n);
    printf("%-30s %6s %6s %14s %9s\n", "name", "input", "ops", "params", "GMACs");
    for (int32_t i = 0; i < n; i++) {
        /* --input-size resizes the image networks; a transformer keeps its tokens */
        int32_t size = m[i].kind == LF_MODEL_CNN ? (int32_t)input : 0;
        lf_model_options opt = {size, 1};
        lf_graph *g = NULL;
        lf_status st = lf_model_build(m[i].name, &opt, &g);
        if (st != LF_OK)
            return lf_cli_fail(st);
        char params[32];
        lf_cli_commas(lf_graph_params(g), params, sizeof params);
        printf("%-30s %6d %6d %14s %9.3f\n", m[i].name, (int)(size ? size : m[i].default_input),
               (int)lf_graph_compute_ops(g), params, (double)lf_graph_macs(g) / 1e9);
        lf_graph_free(g);
    }
    return LF_EXIT_OK;
}

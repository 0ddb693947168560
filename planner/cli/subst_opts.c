/* Loading for the substitution commands (rules, optimize, bench subst): a
 * built-in network, one of the substitution benchmarks' own networks
 * (alexnet, inception_e, inception_e13, sru, resnet_blocks, bert, nasrnn;
 * --blocks N repeats their block) or an ONNX model, and the hardware with --hw and
 * --buffer. */
#include <string.h>

#include "models/registry.h"
#include "planner/app/cli/cli.h"
#include "planner/app/pipeline.h"
#include "planner/app/registry.h"
#include "search/subst/subst.h"

int lf_cli_subst_graph(const lf_cli_command *cmd, const char *def, lf_graph **g, lf_hw *hw)
{
    *g = NULL;
    int64_t input = 0, batch = 1, blocks = 0;
    int rc;
    if ((rc = lf_cli_int(cmd, "blocks", 0, 1, 64, &blocks)) ||
        (rc = lf_cli_int(cmd, "input-size", 0, 1, LF_MODEL_MAX_INPUT, &input)) ||
        (lf_cli_get(cmd, "batch") && (rc = lf_cli_int(cmd, "batch", 1, 1, LF_MODEL_MAX_BATCH, &batch))))
        return rc;
    lf_model_source seq; /* the transformer options, when the command has them */
    memset(&seq, 0, sizeof seq);
    if ((rc = lf_cli_seq_options(cmd, &seq)))
        return rc;
    int any_seq = seq.seq_len || seq.layers || seq.phase || seq.context;
    lf_status st;
    if (hw) {
        lf_hw_default(hw);
        const char *hwfile = lf_cli_get(cmd, "hw"), *buffer = lf_cli_get(cmd, "buffer");
        if (hwfile && (st = lf_hw_load(hw, hwfile)))
            return lf_cli_fail(st);
        if (buffer) {
            int64_t bytes;
            if (lf_hw_parse_size(buffer, &bytes) != LF_OK)
                return lf_cli_usage_error(cmd, "--buffer: %s", lf_last_error());
            hw->buffer_bytes = bytes;
        }
        const char *scheme;
        if ((rc = lf_cli_name(cmd, "scheme", LF_NAMES_SCHEME, NULL, &scheme)))
            return rc;
    }
    const char *model = lf_cli_get(cmd, "model"), *onnx = lf_cli_get(cmd, "onnx");
    if (onnx) {
        if (model)
            return lf_cli_usage_error(cmd, "give either --model or --onnx, not both");
        if (input || batch != 1 || any_seq)
            return lf_cli_usage_error(cmd, "--input-size, --batch, --seq-len, --layers, --phase and "
                                           "--context apply to built-in networks; "
                                           "use --input-shape with --onnx");
        return lf_cli_onnx_load(cmd, onnx, g, NULL);
    }
    if (!model && !def)
        return 0;
    model = model ? model : def;
    for (const char *const *n = lf_subst_network_names(); *n; n++)
        if (strcmp(*n, model) == 0) {
            if (batch != 1 || any_seq)
                return lf_cli_usage_error(cmd, "--batch and the transformer options do not apply "
                                               "to %s", model);
            return (st = lf_subst_network_blocks(model, (int32_t)input, (int32_t)blocks, g)) ? lf_cli_fail(st) : 0;
        }
    if (blocks)
        return lf_cli_usage_error(cmd, "--blocks applies to resnet_blocks, inception_e, inception_e13, sru, bert "
                                       "and nasrnn, not %s", model);
    lf_model_options mo = {(int32_t)input, (int32_t)batch};
    lf_model_seq_options so = {seq.seq_len, seq.layers, (lf_model_phase)seq.phase, seq.context};
    return (st = lf_model_build_seq(model, &mo, &so, g)) ? lf_cli_fail(st) : 0;
}

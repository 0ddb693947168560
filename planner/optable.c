/* The table of op types: names, ONNX names, operand counts, which operands
 * are weights, default row behaviour, the functions of each type (shape
 * inference and implied constants from optable_shapes.c; parameters, MACs,
 * row kind, row window, weight block and FLOPs from optable_cost.c) and its
 * properties (LF_OPF_* flags, the GPU kernel class, the explainer feature
 * column). A new op type is one entry here (plus its lf_op_type and, where no
 * existing function fits, new functions in those files); docs/ir.md says
 * how. Each entry lists its shape first, then its functions, then its
 * properties. */
#include "planner/optable_internal.h"

#include <stdio.h>
#include <string.h>

#define W12 0x6u /* operands 1 and 2 are weights */

static const lf_op_info lf__ops[LF_OP_TYPE_COUNT] = {
    [LF_OP_INPUT] = {"Input", NULL, 0, 0, LF_ROWS_NONE, 0, 0,
        .infer = lf__infer_input,
        .flags = LF_OPF_NO_KERNEL, .flops = lf__flops_none},
    [LF_OP_CONV] = {"Conv", "Conv", 1, 3, LF_ROWS_WINDOW, 0, W12,
        .infer = lf__infer_sliding, .implied_consts = lf__consts_conv,
        .param_extra = lf__params_folded_bn, .macs = lf__macs_conv,
        .row_window = lf__window_kernel, .weight_block = lf__wblock_channel,
        .flags = LF_OPF_TAKES_EPILOGUE | LF_OPF_SLIDING_WINDOW, .gpu = LF_GPU_CONV},
    [LF_OP_GEMM] = {"Gemm", "Gemm", 1, 3, LF_ROWS_WINDOW, 0, W12,
        .infer = lf__infer_gemm, .implied_consts = lf__consts_gemm,
        .param_extra = lf__params_folded_bn, .macs = lf__macs_gemm,
        .weight_block = lf__wblock_channel,
        .flags = LF_OPF_TAKES_EPILOGUE | LF_OPF_ACCUMULATES_ROWS, .gpu = LF_GPU_GEMM},
    [LF_OP_MATMUL] = {"MatMul", "MatMul", 2, 2, LF_ROWS_FULL, 0, 0,
        .infer = lf__infer_mm, .macs = lf__macs_matmul, .row_kind = lf__rows_matmul,
        .weight_block = lf__wblock_matmul,
        .flags = LF_OPF_TAKES_EPILOGUE, .gpu = LF_GPU_MATMUL},
    /* inference form (X, scale, shift) or ONNX's (X, scale, B, mean, var) */
    [LF_OP_BATCHNORM] = {"BatchNorm", "BatchNormalization", 1, 5, LF_ROWS_WINDOW, 1, 0x1eu,
        .implied_consts = lf__consts_batchnorm, .weight_block = lf__wblock_channel,
        .gpu = LF_GPU_BATCHNORM},
    [LF_OP_RELU] = {"Relu", "Relu", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .flags = LF_OPF_ACTIVATION, .gpu = LF_GPU_UNARY},
    [LF_OP_CLIP] = {"Clip", "Clip", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .flags = LF_OPF_ACTIVATION | LF_OPF_CLIP_BOUNDS, .gpu = LF_GPU_UNARY},
    [LF_OP_SIGMOID] = {"Sigmoid", "Sigmoid", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .flags = LF_OPF_ACTIVATION, .gpu = LF_GPU_UNARY},
    [LF_OP_HARDSIGMOID] = {"HardSigmoid", "HardSigmoid", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .flags = LF_OPF_ACTIVATION, .gpu = LF_GPU_UNARY},
    [LF_OP_HARDSWISH] = {"HardSwish", "HardSwish", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .flags = LF_OPF_ACTIVATION, .gpu = LF_GPU_UNARY},
    [LF_OP_SILU] = {"SiLU", NULL, 1, 1, LF_ROWS_WINDOW, 1, 0,
        .flags = LF_OPF_ACTIVATION, .gpu = LF_GPU_UNARY},
    [LF_OP_ADD] = {"Add", "Add", 2, 8, LF_ROWS_WINDOW, 1, 0,
        .infer = lf__infer_elementwise,
        .flags = LF_OPF_TAKES_EPILOGUE, .gpu = LF_GPU_BINARY},
    [LF_OP_MUL] = {"Mul", "Mul", 2, 8, LF_ROWS_WINDOW, 1, 0,
        .infer = lf__infer_elementwise,
        .gpu = LF_GPU_BINARY},
    [LF_OP_CONCAT] = {"Concat", "Concat", 1, 64, LF_ROWS_VIEW, 0, 0,
        .infer = lf__infer_cat, .row_kind = lf__rows_concat,
        .gpu = LF_GPU_CONCAT, .flops = lf__flops_none},
    [LF_OP_SLICE] = {"Slice", "Slice", 1, 1, LF_ROWS_WINDOW, 0, 0,
        .infer = lf__infer_slicing, .row_window = lf__window_slice,
        .flags = LF_OPF_NO_KERNEL, .flops = lf__flops_none},
    [LF_OP_MAXPOOL] = {"MaxPool", "MaxPool", 1, 1, LF_ROWS_WINDOW, 0, 0,
        .infer = lf__infer_sliding, .row_window = lf__window_kernel,
        .flags = LF_OPF_SLIDING_WINDOW, .gpu = LF_GPU_POOL, .flops = lf__flops_window},
    [LF_OP_AVGPOOL] = {"AveragePool", "AveragePool", 1, 1, LF_ROWS_WINDOW, 0, 0,
        .infer = lf__infer_sliding, .row_window = lf__window_kernel,
        .flags = LF_OPF_SLIDING_WINDOW, .gpu = LF_GPU_POOL, .flops = lf__flops_window},
    [LF_OP_GLOBALAVGPOOL] = {"GlobalAveragePool", "GlobalAveragePool", 1, 1, LF_ROWS_REDUCTION, 0, 0,
        .infer = lf__infer_global_pool,
        .gpu = LF_GPU_POOL},
    [LF_OP_PAD] = {"Pad", "Pad", 1, 1, LF_ROWS_WINDOW, 0, 0,
        .infer = lf__infer_pad, .row_window = lf__window_pad,
        .flops = lf__flops_none},
    [LF_OP_RESIZE] = {"Resize", "Resize", 1, 1, LF_ROWS_RESIZE, 0, 0,
        .infer = lf__infer_resize,
        .flops = lf__flops_none},
    [LF_OP_FLATTEN] = {"Flatten", "Flatten", 1, 1, LF_ROWS_VIEW, 0, 0,
        .infer = lf__infer_flatten,
        .flags = LF_OPF_NO_KERNEL | LF_OPF_COPIES_VALUES | LF_OPF_RESHAPES_ROWS, .flops = lf__flops_none},
    [LF_OP_RESHAPE] = {"Reshape", "Reshape", 1, 1, LF_ROWS_VIEW, 0, 0,
        .infer = lf__infer_reshaping,
        .flags = LF_OPF_NO_KERNEL | LF_OPF_COPIES_VALUES | LF_OPF_RESHAPES_ROWS, .flops = lf__flops_none},
    [LF_OP_SOFTMAX] = {"Softmax", "Softmax", 1, 1, LF_ROWS_WINDOW, 0, 0,
        .row_kind = lf__rows_normalize,
        .gpu = LF_GPU_SOFTMAX},
    [LF_OP_IDENTITY] = {"Identity", "Identity", 1, 1, LF_ROWS_VIEW, 1, 0,
        .flags = LF_OPF_NO_KERNEL | LF_OPF_COPIES_VALUES, .flops = lf__flops_none},
    [LF_OP_SUB] = {"Sub", "Sub", 2, 2, LF_ROWS_WINDOW, 1, 0,
        .infer = lf__infer_elementwise,
        .gpu = LF_GPU_BINARY, .features_as = LF_OP_ADD},
    [LF_OP_DIV] = {"Div", "Div", 2, 2, LF_ROWS_WINDOW, 1, 0,
        .infer = lf__infer_elementwise,
        .gpu = LF_GPU_BINARY, .features_as = LF_OP_MUL},
    [LF_OP_POW] = {"Pow", "Pow", 2, 2, LF_ROWS_WINDOW, 1, 0,
        .infer = lf__infer_elementwise,
        .gpu = LF_GPU_BINARY, .features_as = LF_OP_MUL},
    [LF_OP_SQRT] = {"Sqrt", "Sqrt", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .gpu = LF_GPU_UNARY, .features_as = LF_OP_SIGMOID},
    [LF_OP_EXP] = {"Exp", "Exp", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .gpu = LF_GPU_UNARY, .features_as = LF_OP_SIGMOID},
    [LF_OP_ERF] = {"Erf", "Erf", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .gpu = LF_GPU_UNARY, .features_as = LF_OP_SIGMOID},
    [LF_OP_TANH] = {"Tanh", "Tanh", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .flags = LF_OPF_ACTIVATION, .gpu = LF_GPU_UNARY, .features_as = LF_OP_SIGMOID},
    [LF_OP_GELU] = {"Gelu", "Gelu", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .flags = LF_OPF_ACTIVATION, .gpu = LF_GPU_UNARY, .features_as = LF_OP_SILU},
    [LF_OP_NEG] = {"Neg", "Neg", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .gpu = LF_GPU_UNARY, .features_as = LF_OP_SIGMOID},
    [LF_OP_LEAKYRELU] = {"LeakyRelu", "LeakyRelu", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .flags = LF_OPF_ACTIVATION, .gpu = LF_GPU_UNARY, .features_as = LF_OP_RELU},
    [LF_OP_TRANSPOSE] = {"Transpose", "Transpose", 1, 1, LF_ROWS_FULL, 0, 0,
        .infer = lf__infer_permute, .row_kind = lf__rows_transpose,
        .features_as = LF_OP_RESHAPE, .flops = lf__flops_none},
    [LF_OP_LAYERNORM] = {"LayerNorm", "LayerNormalization", 1, 3, LF_ROWS_WINDOW, 0, W12,
        .implied_consts = lf__consts_layernorm, .row_kind = lf__rows_normalize,
        .weight_block = lf__wblock_whole,
        .features_as = LF_OP_BATCHNORM},
    [LF_OP_REDUCEMEAN] = {"ReduceMean", "ReduceMean", 1, 1, LF_ROWS_WINDOW, 0, 0,
        .infer = lf__infer_reduce, .row_kind = lf__rows_reduce,
        .features_as = LF_OP_GLOBALAVGPOOL},
    [LF_OP_CONVTRANSPOSE] = {"ConvTranspose", "ConvTranspose", 1, 3, LF_ROWS_UPSAMPLE, 0, W12,
        .infer = lf__infer_transposed_conv, .implied_consts = lf__consts_conv_transpose,
        .param_extra = lf__params_folded_bn, .macs = lf__macs_conv_transpose,
        .row_window = lf__window_kernel, .weight_block = lf__wblock_channel,
        .flags = LF_OPF_TAKES_EPILOGUE | LF_OPF_SLIDING_WINDOW, .features_as = LF_OP_CONV},
    [LF_OP_EXPAND] = {"Expand", "Expand", 1, 1, LF_ROWS_WINDOW, 0, 0,
        .infer = lf__infer_expanding,
        .features_as = LF_OP_ADD, .flops = lf__flops_none},
    /* ShuffleNet's channel shuffle (no ONNX op: Reshape -> Transpose -> Reshape) */
    [LF_OP_CHANNELSHUFFLE] = {"ChannelShuffle", NULL, 1, 1, LF_ROWS_WINDOW, 0, 0,
        .infer = lf__infer_channel_shuffle,
        .features_as = LF_OP_RESHAPE},
    [LF_OP_LOG] = {"Log", "Log", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .gpu = LF_GPU_UNARY, .features_as = LF_OP_SIGMOID},
    [LF_OP_ABS] = {"Abs", "Abs", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .gpu = LF_GPU_UNARY, .features_as = LF_OP_SIGMOID},
    [LF_OP_RECIPROCAL] = {"Reciprocal", "Reciprocal", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .gpu = LF_GPU_UNARY, .features_as = LF_OP_SIGMOID},
    [LF_OP_FLOOR] = {"Floor", "Floor", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .gpu = LF_GPU_UNARY, .features_as = LF_OP_SIGMOID},
    [LF_OP_CEIL] = {"Ceil", "Ceil", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .gpu = LF_GPU_UNARY, .features_as = LF_OP_SIGMOID},
    [LF_OP_SOFTPLUS] = {"Softplus", "Softplus", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .gpu = LF_GPU_UNARY, .features_as = LF_OP_SIGMOID},
    [LF_OP_ELU] = {"Elu", "Elu", 1, 1, LF_ROWS_WINDOW, 1, 0,
        .flags = LF_OPF_ACTIVATION, .gpu = LF_GPU_UNARY, .features_as = LF_OP_RELU},
    [LF_OP_MAX] = {"Max", "Max", 1, 8, LF_ROWS_WINDOW, 1, 0,
        .infer = lf__infer_elementwise,
        .gpu = LF_GPU_BINARY, .features_as = LF_OP_ADD},
    [LF_OP_MIN] = {"Min", "Min", 1, 8, LF_ROWS_WINDOW, 1, 0,
        .infer = lf__infer_elementwise,
        .gpu = LF_GPU_BINARY, .features_as = LF_OP_ADD},
    [LF_OP_PRELU] = {"PRelu", "PRelu", 2, 2, LF_ROWS_WINDOW, 1, 0,
        .infer = lf__infer_prelu,
        .features_as = LF_OP_RELU},
    [LF_OP_LOGSOFTMAX] = {"LogSoftmax", "LogSoftmax", 1, 1, LF_ROWS_WINDOW, 0, 0,
        .row_kind = lf__rows_normalize,
        .gpu = LF_GPU_SOFTMAX, .features_as = LF_OP_SOFTMAX},
    [LF_OP_REDUCESUM] = {"ReduceSum", "ReduceSum", 1, 1, LF_ROWS_WINDOW, 0, 0,
        .infer = lf__infer_reduce, .row_kind = lf__rows_reduce,
        .features_as = LF_OP_GLOBALAVGPOOL},
    [LF_OP_REDUCEMAX] = {"ReduceMax", "ReduceMax", 1, 1, LF_ROWS_WINDOW, 0, 0,
        .infer = lf__infer_reduce, .row_kind = lf__rows_reduce,
        .features_as = LF_OP_GLOBALAVGPOOL},
    [LF_OP_REDUCEMIN] = {"ReduceMin", "ReduceMin", 1, 1, LF_ROWS_WINDOW, 0, 0,
        .infer = lf__infer_reduce, .row_kind = lf__rows_reduce,
        .features_as = LF_OP_GLOBALAVGPOOL},
    [LF_OP_REDUCEPROD] = {"ReduceProd", "ReduceProd", 1, 1, LF_ROWS_WINDOW, 0, 0,
        .infer = lf__infer_reduce, .row_kind = lf__rows_reduce,
        .features_as = LF_OP_GLOBALAVGPOOL},
    [LF_OP_REDUCESUMSQUARE] = {"ReduceSumSquare", "ReduceSumSquare", 1, 1, LF_ROWS_WINDOW, 0, 0,
        .infer = lf__infer_reduce, .row_kind = lf__rows_reduce,
        .features_as = LF_OP_GLOBALAVGPOOL},
    [LF_OP_REDUCEL2] = {"ReduceL2", "ReduceL2", 1, 1, LF_ROWS_WINDOW, 0, 0,
        .infer = lf__infer_reduce, .row_kind = lf__rows_reduce,
        .features_as = LF_OP_GLOBALAVGPOOL},
    [LF_OP_GLOBALMAXPOOL] = {"GlobalMaxPool", "GlobalMaxPool", 1, 1, LF_ROWS_REDUCTION, 0, 0,
        .infer = lf__infer_global_pool,
        .gpu = LF_GPU_POOL, .features_as = LF_OP_GLOBALAVGPOOL},
    /* x / sqrt(mean(x^2) + eps) * scale over D: streams token rows like LayerNorm */
    [LF_OP_RMSNORM] = {"RMSNorm", "RMSNormalization", 1, 2, LF_ROWS_WINDOW, 0, 0x2u,
        .implied_consts = lf__consts_layernorm, .row_kind = lf__rows_normalize,
        .weight_block = lf__wblock_whole,
        .features_as = LF_OP_BATCHNORM},
    /* (table, ids): ONNX order, the table first, so it is not a "weight
     * operand" (those follow the activation); graph_freeze.c requires it
     * constant. Its rows are read as the ids ask (cost/model.c prices the
     * rows used, not the table). */
    [LF_OP_GATHER] = {"Gather", "Gather", 2, 2, LF_ROWS_WINDOW, 0, 0,
        .infer = lf__infer_gather, .weight_block = lf__wblock_whole,
        .features_as = LF_OP_RESHAPE, .flops = lf__flops_none},
};

static const char *const lf__act_names[LF_ACT_COUNT] = {
    "none", "relu", "relu6", "sigmoid", "hardsigmoid", "hardswish", "silu",
};

const lf_op_info *lf_op_info_of(lf_op_type t)
{
    if ((int)t < 0 || t >= LF_OP_TYPE_COUNT)
        return NULL;
    return &lf__ops[t];
}

lf_op_type lf_op_type_from_name(const char *name)
{
    for (int t = 0; t < LF_OP_TYPE_COUNT; t++) {
        if (strcmp(lf__ops[t].name, name) == 0 ||
            (lf__ops[t].onnx_name && strcmp(lf__ops[t].onnx_name, name) == 0))
            return (lf_op_type)t;
    }
    return LF_OP_TYPE_COUNT;
}

const char *lf_act_name(lf_act a)
{
    if ((int)a < 0 || a >= LF_ACT_COUNT)
        return "?";
    return lf__act_names[a];
}


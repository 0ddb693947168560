/* The table of op types: names, ONNX names, operand counts, which operands
 * are weights, default row behaviour. Shape inference lives in
 * optable_shapes.c, weights, MACs and row windows in optable_cost.c. */
#include "planner/optable.h"

#include <stdio.h>
#include <string.h>

#define W12 0x6u /* operands 1 and 2 are weights */

static const lf_op_info lf__ops[LF_OP_TYPE_COUNT] = {
    [LF_OP_INPUT] = {"Input", NULL, 0, 0, LF_ROWS_NONE, 0, 0},
    [LF_OP_CONV] = {"Conv", "Conv", 1, 3, LF_ROWS_WINDOW, 0, W12},
    [LF_OP_GEMM] = {"Gemm", "Gemm", 1, 3, LF_ROWS_WINDOW, 0, W12},
    [LF_OP_MATMUL] = {"MatMul", "MatMul", 2, 2, LF_ROWS_FULL, 0, 0},
    /* inference form (X, scale, shift) or ONNX's (X, scale, B, mean, var) */
    [LF_OP_BATCHNORM] = {"BatchNorm", "BatchNormalization", 1, 5, LF_ROWS_WINDOW, 1, 0x1eu},
    [LF_OP_RELU] = {"Relu", "Relu", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_CLIP] = {"Clip", "Clip", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_SIGMOID] = {"Sigmoid", "Sigmoid", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_HARDSIGMOID] = {"HardSigmoid", "HardSigmoid", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_HARDSWISH] = {"HardSwish", "HardSwish", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_SILU] = {"SiLU", NULL, 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_ADD] = {"Add", "Add", 2, 8, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_MUL] = {"Mul", "Mul", 2, 8, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_CONCAT] = {"Concat", "Concat", 1, 64, LF_ROWS_VIEW, 0, 0},
    [LF_OP_SLICE] = {"Slice", "Slice", 1, 1, LF_ROWS_WINDOW, 0, 0},
    [LF_OP_MAXPOOL] = {"MaxPool", "MaxPool", 1, 1, LF_ROWS_WINDOW, 0, 0},
    [LF_OP_AVGPOOL] = {"AveragePool", "AveragePool", 1, 1, LF_ROWS_WINDOW, 0, 0},
    [LF_OP_GLOBALAVGPOOL] = {"GlobalAveragePool", "GlobalAveragePool", 1, 1, LF_ROWS_REDUCTION, 0, 0},
    [LF_OP_PAD] = {"Pad", "Pad", 1, 1, LF_ROWS_WINDOW, 0, 0},
    [LF_OP_RESIZE] = {"Resize", "Resize", 1, 1, LF_ROWS_RESIZE, 0, 0},
    [LF_OP_FLATTEN] = {"Flatten", "Flatten", 1, 1, LF_ROWS_VIEW, 0, 0},
    [LF_OP_RESHAPE] = {"Reshape", "Reshape", 1, 1, LF_ROWS_VIEW, 0, 0},
    [LF_OP_SOFTMAX] = {"Softmax", "Softmax", 1, 1, LF_ROWS_WINDOW, 0, 0},
    [LF_OP_IDENTITY] = {"Identity", "Identity", 1, 1, LF_ROWS_VIEW, 1, 0},
    [LF_OP_SUB] = {"Sub", "Sub", 2, 2, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_DIV] = {"Div", "Div", 2, 2, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_POW] = {"Pow", "Pow", 2, 2, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_SQRT] = {"Sqrt", "Sqrt", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_EXP] = {"Exp", "Exp", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_ERF] = {"Erf", "Erf", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_TANH] = {"Tanh", "Tanh", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_GELU] = {"Gelu", "Gelu", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_NEG] = {"Neg", "Neg", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_LEAKYRELU] = {"LeakyRelu", "LeakyRelu", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_TRANSPOSE] = {"Transpose", "Transpose", 1, 1, LF_ROWS_FULL, 0, 0},
    [LF_OP_LAYERNORM] = {"LayerNorm", "LayerNormalization", 1, 3, LF_ROWS_WINDOW, 0, W12},
    [LF_OP_REDUCEMEAN] = {"ReduceMean", "ReduceMean", 1, 1, LF_ROWS_WINDOW, 0, 0},
    [LF_OP_CONVTRANSPOSE] = {"ConvTranspose", "ConvTranspose", 1, 3, LF_ROWS_UPSAMPLE, 0, W12},
    [LF_OP_EXPAND] = {"Expand", "Expand", 1, 1, LF_ROWS_WINDOW, 0, 0},
    /* ShuffleNet's channel shuffle (no ONNX op: Reshape -> Transpose -> Reshape) */
    [LF_OP_CHANNELSHUFFLE] = {"ChannelShuffle", NULL, 1, 1, LF_ROWS_WINDOW, 0, 0},
    [LF_OP_LOG] = {"Log", "Log", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_ABS] = {"Abs", "Abs", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_RECIPROCAL] = {"Reciprocal", "Reciprocal", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_FLOOR] = {"Floor", "Floor", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_CEIL] = {"Ceil", "Ceil", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_SOFTPLUS] = {"Softplus", "Softplus", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_ELU] = {"Elu", "Elu", 1, 1, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_MAX] = {"Max", "Max", 1, 8, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_MIN] = {"Min", "Min", 1, 8, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_PRELU] = {"PRelu", "PRelu", 2, 2, LF_ROWS_WINDOW, 1, 0},
    [LF_OP_LOGSOFTMAX] = {"LogSoftmax", "LogSoftmax", 1, 1, LF_ROWS_WINDOW, 0, 0},
    [LF_OP_REDUCESUM] = {"ReduceSum", "ReduceSum", 1, 1, LF_ROWS_WINDOW, 0, 0},
    [LF_OP_REDUCEMAX] = {"ReduceMax", "ReduceMax", 1, 1, LF_ROWS_WINDOW, 0, 0},
    [LF_OP_REDUCEMIN] = {"ReduceMin", "ReduceMin", 1, 1, LF_ROWS_WINDOW, 0, 0},
    [LF_OP_REDUCEPROD] = {"ReduceProd", "ReduceProd", 1, 1, LF_ROWS_WINDOW, 0, 0},
    [LF_OP_REDUCESUMSQUARE] = {"ReduceSumSquare", "ReduceSumSquare", 1, 1, LF_ROWS_WINDOW, 0, 0},
    [LF_OP_REDUCEL2] = {"ReduceL2", "ReduceL2", 1, 1, LF_ROWS_WINDOW, 0, 0},
    [LF_OP_GLOBALMAXPOOL] = {"GlobalMaxPool", "GlobalMaxPool", 1, 1, LF_ROWS_REDUCTION, 0, 0},
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

lf_act lf_act_from_name(const char *name)
{
    for (int a = 0; a < LF_ACT_COUNT; a++)
        if (strcmp(lf__act_names[a], name) == 0)
            return (lf_act)a;
    return LF_ACT_COUNT;
}


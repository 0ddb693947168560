/* The one table of op types: everything fusionplan knows about a type lives in
 * its entry in planner/optable.c: names, operand counts, which operands are
 * weights, its properties (flags, the GPU kernel class, the explainer feature
 * column) and its functions: shape inference (optable_shapes.c), weights,
 * MACs, FLOPs, row kinds and row windows (optable_cost.c). Adding an op type is
 * its enum value in graph.h plus its entry (docs/ir.md says how); the rest of
 * the project asks the table. The reference kernels (planner/exec), the ONNX
 * mapping (planner/io) and the GPU runner's choice of cuDNN call key on the
 * same enum by design: they are per-type code, not properties. */
#ifndef LF_OPTABLE_H
#define LF_OPTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "planner/graph.h"

/* How an op reads its (spatial) inputs, from the point of view of the
 * line-buffer cost models. */
typedef enum lf_row_kind {
    LF_ROWS_NONE = 0,   /* graph input: reads nothing */
    LF_ROWS_WINDOW,     /* output row r reads input rows [s*r - p, s*r - p + K - 1] */
    LF_ROWS_VIEW,       /* zero-copy: the consumer's window passes through (Concat, Reshape) */
    LF_ROWS_REDUCTION,  /* streaming reduction over all rows (GlobalAveragePool) */
    LF_ROWS_RESIZE,     /* row r reads row floor(r * H_in / H_out) (+1 when linear) */
    LF_ROWS_FULL,       /* needs the whole input map (Softmax over space, Flatten not into Gemm,
                           a score MatMul, a Transpose that moves H) */
    LF_ROWS_UPSAMPLE    /* ConvTranspose: output row r reads input rows
                           [ceil((r + p - K + 1) / s), floor((r + p) / s)] */
} lf_row_kind;

/* Properties of an op type: bits of lf_op_info.flags (left 0: none of them). */
enum {
    /* A unary activation that the kernel of its producer can run as an
     * epilogue (cuDNN's conv + bias + activation, an add + ReLU kernel): the
     * inter-operator scheduler folds it into its producer's unit. */
    LF_OPF_ACTIVATION = 1u << 0,
    /* Its kernel can run a following LF_OPF_ACTIVATION as its epilogue (when
     * it has no fused activation of its own and nothing else reads it). */
    LF_OPF_TAKES_EPILOGUE = 1u << 1,
    /* Runs no kernel and moves no data: the graph input, zero-copy views,
     * a Slice that its consumers read in place (TASO and MetaFlow treat split
     * so). The analytic GPU cost charges it nothing. */
    LF_OPF_NO_KERNEL = 1u << 2,
    /* Its output holds the input's values in the same order (Identity,
     * Reshape, Flatten): a constant input folds by copying. */
    LF_OPF_COPIES_VALUES = 1u << 3,
    /* A view that can turn a spatial map into rows of another shape
     * (Flatten, Reshape): the cost models resolve its row kind from its
     * input and consumers instead of taking VIEW as it stands. */
    LF_OPF_RESHAPES_ROWS = 1u << 4,
    /* Reads a flattened map row by row and accumulates (Gemm): a Flatten
     * or Reshape read only by such ops streams as a REDUCTION instead of
     * needing the whole map. */
    LF_OPF_ACCUMULATES_ROWS = 1u << 5,
    /* kh/kw, sh/sw, dh/dw and the pads describe a sliding window over H and
     * W (Conv, ConvTranspose, MaxPool, AveragePool). */
    LF_OPF_SLIDING_WINDOW = 1u << 6,
    /* clip_min and clip_max are part of the op (Clip): keys of measured GPU
     * times carry them even when they are 0. */
    LF_OPF_CLIP_BOUNDS = 1u << 7,
};

/* Which GPU kernel the profiler (planner/gpu) times an op of this type with;
 * the runner picks the cuDNN/cuBLAS call within the class by type. */
typedef enum lf_gpu_kernel {
    LF_GPU_NONE = 0,    /* not measured: the analytic roofline cost stays */
    LF_GPU_CONV,        /* cuDNN convolution (+ bias + activation epilogue) */
    LF_GPU_GEMM,        /* cuBLAS GEMM (+ bias + activation epilogue) */
    LF_GPU_MATMUL,      /* cuBLAS strided batched GEMM */
    LF_GPU_BATCHNORM,   /* cuDNN inference batch normalisation */
    LF_GPU_UNARY,       /* one cuDNN activation or OpTensor of the input's shape */
    LF_GPU_BINARY,      /* cuDNN OpTensor, one operand broadcast */
    LF_GPU_POOL,        /* cuDNN pooling (global pools: the whole map) */
    LF_GPU_SOFTMAX,     /* cuDNN softmax over C or over C, H and W */
    LF_GPU_CONCAT       /* strided device copies along C */
} lf_gpu_kernel;

typedef struct lf_op_info {
    const char *name;      /* fusionplan spelling, also used in JSON */
    const char *onnx_name; /* ONNX op type, NULL when there is none */
    int32_t min_operands, max_operands; /* all operands: activations and constants */
    lf_row_kind rows;      /* default row behaviour (lf_op_row_kind refines it per op) */
    int32_t elementwise;   /* 1 when output element i depends only on input element i
                              (after broadcasting) */
    uint32_t weight_operands; /* bit k: operand k must be a constant (a weight) */
    uint32_t flags;        /* LF_OPF_* properties; 0: none */
    lf_gpu_kernel gpu;     /* how the GPU profiler times it; 0 (LF_GPU_NONE): not measured */
    /* The schema-v1 type (Conv .. Identity) whose one-hot explainer feature
     * column this type shares, so that trained weights and datasets stay
     * valid as types are added (explain/features.c). 0 (LF_OP_INPUT, which
     * has no column): its own column; a type after Identity must name one. */
    lf_op_type features_as;
    /* The type's own functions; NULL takes the default noted. Families share
     * them (every pool and conv has the same row window), so a new op type
     * is one entry naming existing functions or new ones. */
    lf_status (*infer)(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                       lf_shape *out, char *err, size_t errlen); /* NULL: the input's shape */
    int32_t (*implied_consts)(const lf_attrs *a, const lf_shape *x, lf_shape shapes[4],
                              const char *suffixes[4]);          /* NULL: none */
    int64_t (*param_extra)(const lf_attrs *a, const lf_shape *out); /* NULL: 0 */
    int64_t (*macs)(const lf_attrs *a, const lf_shape *in, int32_t n_in,
                    const lf_shape *out);                        /* NULL: 0 */
    lf_row_kind (*row_kind)(const lf_graph *g, const lf_op *op); /* NULL: `rows` */
    void (*row_window)(const lf_op *op, int32_t *k, int32_t *stride,
                       int32_t *pad_top);                        /* NULL: 1 row, stride 1 */
    int64_t (*weight_block)(const lf_graph *g, const lf_op *op); /* NULL: per-channel
                                                                    constants by channel */
    double (*flops)(const lf_op *op); /* FLOPs of a type without MACs (lf_op_flops);
                                         NULL: one per output element */
} lf_op_info;

const lf_op_info *lf_op_info_of(lf_op_type t);

/* Looks a type up by fusionplan or ONNX name; returns LF_OP_TYPE_COUNT when unknown. */
lf_op_type lf_op_type_from_name(const char *name);

const char *lf_act_name(lf_act a);

/* Shape inference: computes *out from the operand shapes (ONNX order,
 * activations and constants alike). Weight operands may be left off (n_in
 * counts only the leading activation operands): they are implied by the
 * attributes then; when given, their shapes are checked. On a mismatch writes
 * a message into err and returns LF_EGRAPH. */
lf_status lf_op_infer(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                      lf_shape *out, char *err, size_t errlen);

/* The weight constants an op of this type takes when it is built from its
 * attributes alone (lf_graph_builder_add): Conv W [out, in/g, kh, kw] and B
 * [1, out, 1, 1] when it has a bias or a folded BatchNorm; Gemm W [out, in, 1,
 * 1] and B; BatchNorm scale and shift [1, C, 1, 1]; ConvTranspose W [in,
 * out/g, kh, kw] and B; LayerNormalization scale and B (when has_bias) shaped
 * like the normalised dims. act holds the activation operand shapes; writes up
 * to 4 shapes and name suffixes ("weight", "bias", "scale", "shift") and
 * returns their count. */
int32_t lf_op_implied_consts(lf_op_type t, const lf_attrs *a, const lf_shape *act, int32_t n_act,
                             lf_shape shapes[4], const char *suffixes[4]);

/* Framework parameters beyond the stored weight elements: a BatchNorm folded
 * into a Conv or Gemm counts gamma and beta (2 per channel) but is stored as
 * one bias. */
int64_t lf_op_param_extra(lf_op_type t, const lf_attrs *a, const lf_shape *out);

/* Weight elements of the implied constants and the framework parameter count
 * (a shortcut over lf_op_implied_consts and lf_op_param_extra). */
void lf_op_weights(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                   const lf_shape *out, int64_t *weight_elems, int64_t *param_count);

/* Multiply-accumulates for one batch, given the operand shapes and the output
 * shape. Only Conv, ConvTranspose, Gemm and MatMul count (the convention of
 * torchvision's GFLOPS figures; element-wise ops, pools, normalisations and
 * resizes count nothing). */
int64_t lf_op_macs(lf_op_type t, const lf_attrs *a, const lf_shape *in, int32_t n_in,
                   const lf_shape *out);

/* 1 when op type t has every bit of the LF_OPF_* mask; 0 for an unknown type. */
int lf_op_has(lf_op_type t, uint32_t flags);

/* The analytic FLOPs of one op (MetaFlow's Table 2; the substitution
 * optimizer's flops objective and its roofline time): 2 per multiply-
 * accumulate plus one per output element for a fused activation; without
 * MACs, the type's `flops` function: one per window element for MaxPool and
 * AveragePool, 0 for the data movers (Concat, Slice, Pad, Transpose, Expand,
 * Resize), otherwise one per output element. */
double lf_op_flops(const lf_op *op);

/* Row kind of op v, refined by its attributes: a Transpose that keeps H in
 * place, Softmax/LayerNormalization not over H, a MatMul whose B is a constant
 * stream rows (WINDOW, k = 1); otherwise they need their whole input (FULL);
 * ReduceMean over H is a REDUCTION; Concat along H or N is FULL. Flatten and
 * Reshape stay VIEW here (the cost model refines them by their consumers). */
lf_row_kind lf_op_row_kind(const lf_graph *g, int32_t v);

/* Row window along H of a windowed op: effective kernel height (dilation
 * applied), stride and top padding. Element-wise ops give (1, 1, 0); a Slice
 * along H gives (1, step, -begin); ConvTranspose (UPSAMPLE) its kernel,
 * stride and top padding. */
void lf_op_row_window(const lf_op *op, int32_t *k, int32_t *stride, int32_t *pad_top);

/* Weight elements one output channel needs (the BRR sub-block): weights /
 * out_c for Conv, ConvTranspose, Gemm, BatchNorm and per-channel constants of
 * element-wise ops; all of them for LayerNormalization, MatMul and other
 * shared constants. */
int64_t lf_op_weight_block(const lf_graph *g, int32_t v);

#endif

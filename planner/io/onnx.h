/* ONNX import (DESIGN §10): reads an ONNX model (opsets 7-23) into the
 * project's graph IR, with its weights as constant values.
 *
 * Static shapes are required: free dimensions of graph inputs are fixed with
 * lf_onnx_options.input_shapes (the CLI's --input-shape NAME=N,C,H,W), then
 * shapes are inferred and constant shape chains (Shape -> Gather/Slice ->
 * Concat -> Reshape/Resize) folded. The normalisations below are applied
 * unless switched off, and every application is recorded in the report with
 * the node and the reason. Anything fusionplan cannot represent is one error
 * naming the model file, the node and its op type; the library never prints
 * or exits. No protobuf types appear here. */
#ifndef LF_ONNX_H
#define LF_ONNX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "planner/graph.h"
#include "planner/status.h"

/* The normalisations, each switchable (lf_onnx_options.disable bit 1 << kind). */
typedef enum lf_onnx_rewrite {
    LF_ONNX_FOLD_CONSTANTS = 0, /* constant subgraphs (shape chains) evaluated once */
    LF_ONNX_FOLD_BN,            /* BatchNormalization after Conv/Gemm folded into its weights */
    LF_ONNX_DROP_IDENTITY,      /* Identity, Dropout and identity pools removed */
    LF_ONNX_CLIP,               /* Clip with constant bounds -> Relu / ReLU6 / Clip */
    LF_ONNX_HARDSWISH,          /* HardSigmoid(x)*x and x*Clip(x+3,0,6)/6 -> HardSwish */
    LF_ONNX_SILU,               /* Sigmoid(x)*x -> SiLU */
    LF_ONNX_FOLD_PAD,           /* constant zero Pad folded into the following Conv/pool */
    LF_ONNX_FLATTEN_CONCAT,     /* Concat of Concat (same axis) flattened into one */
    LF_ONNX_SPLIT,              /* Split -> one Slice per output */
    LF_ONNX_RESHAPE_FLATTEN,    /* Reshape(x, [N, -1]) -> Flatten */
    LF_ONNX_CHANNEL_SHUFFLE,    /* Reshape [N,g,C/g,H,W], Transpose 1<->2, Reshape [N,C,H,W] -> ChannelShuffle */
    LF_ONNX_GATHER_SLICE,       /* Gather of one constant index from an activation -> Slice (+ Squeeze) */
    LF_ONNX_LAYERNORM,          /* LayerNorm written out (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div) -> LayerNormalization */
    LF_ONNX_GELU,               /* GELU written out, erf and tanh forms -> Gelu */
    LF_ONNX_RANK_VIEWS,         /* ops on tensors of rank 5 and 6 between views -> the same op at rank <= 4 */
    LF_ONNX_RMSNORM,            /* RMSNorm written out (Pow, ReduceMean, Add, Sqrt, Div or Reciprocal) -> RMSNormalization */
    LF_ONNX_REWRITE_COUNT
} lf_onnx_rewrite;

const char *lf_onnx_rewrite_name(lf_onnx_rewrite k);        /* "fold-bn", ... */
lf_onnx_rewrite lf_onnx_rewrite_from_name(const char *name); /* COUNT when unknown */

#define LF_ONNX_MAX_RANK 8

/* A fixed shape for a graph input: --input-shape NAME=N,C,H,W. */
typedef struct lf_onnx_input_shape {
    char name[128];
    int32_t rank;
    int64_t dims[LF_ONNX_MAX_RANK];
} lf_onnx_input_shape;

/* Parses "NAME=1,3,224,224" (or "1,3,224,224" for the only input: empty name). */
lf_status lf_onnx_parse_input_shape(const char *spec, lf_onnx_input_shape *out);

typedef struct lf_onnx_options {
    const lf_onnx_input_shape *input_shapes;
    int32_t n_input_shapes;
    uint32_t disable;          /* bit (1 << lf_onnx_rewrite) switches a normalisation off */
    int64_t max_file_bytes;    /* 0: 2 GiB (protobuf's own limit) */
    int64_t max_const_bytes;   /* all constant data together; 0: 4 GiB */
    int64_t max_elems;         /* elements of any one tensor; 0: 2^31 */
    int32_t max_nodes;         /* 0: 1,000,000 */
    /* Evaluates ops whose operands are all constants while the IR graph is
     * built (the executor's lf_exec_fold); NULL: such ops are an error. */
    lf_fold_fn folder;
    void *folder_ctx;
    /* Graph inputs to bind as constants (conformance tests pass weights as
     * inputs): tensors by name; only inputs read solely at positions that
     * need a constant (weights, shapes, pads, bounds) are bound. */
    const struct lf_onnx_tensor *bind;
    int32_t n_bind;
    /* 1: a model whose inputs are all bound (ONNX's one-node tests of
     * integer ops: Trilu or Where on int64 tensors) and whose outputs all
     * fold to constants imports as no graph (*out NULL, LF_OK) with the
     * outputs' values in the report (lf_onnx_report_constant); when such
     * an output does not fold, LF_EUNSUPPORTED. 0: graph outputs are never
     * folded (they stay computed by their node). */
    int32_t const_outputs;
} lf_onnx_options;

/* What the import did: rewrites with reasons, and op counts. Opaque. */
typedef struct lf_onnx_report lf_onnx_report;

/* Imports path. *out receives the graph (named after the file), *report (when
 * report is not NULL) what was folded or rewritten. opt may be NULL. Errors:
 * LF_EIO (unreadable file, missing external data), LF_EPARSE (not a ModelProto,
 * truncated), LF_EUNSUPPORTED (op, opset, attribute), LF_EGRAPH (cycle,
 * dangling input, free dimension, shape mismatch), LF_ERANGE (absurd sizes). */
lf_status lf_onnx_import(const char *path, const lf_onnx_options *opt, lf_graph **out,
                         lf_onnx_report **report);

/* The same from bytes in memory; name is used in messages. External data is
 * refused (there is no model folder). */
lf_status lf_onnx_import_memory(const void *data, size_t len, const char *name,
                                const lf_onnx_options *opt, lf_graph **out,
                                lf_onnx_report **report);

void lf_onnx_report_free(lf_onnx_report *r);
/* Number of applications of one rewrite. */
int32_t lf_onnx_report_count(const lf_onnx_report *r, lf_onnx_rewrite k);
/* Opset and ONNX op counts of the file as read (before rewrites). */
int64_t lf_onnx_report_opset(const lf_onnx_report *r);
int32_t lf_onnx_report_nodes(const lf_onnx_report *r);
/* The IR op computing the file's graph output onnx_name (NULL when unknown;
 * onnx_name NULL: the only graph output). */
const char *lf_onnx_report_output_op(const lf_onnx_report *r, const char *onnx_name);
/* The values of graph output onnx_name (NULL: the only output) when the
 * import folded it to a constant (lf_onnx_options.const_outputs): 1 with
 * *data (float32, row-major, owned by the report) and *count; 0 otherwise. */
int lf_onnx_report_constant(const lf_onnx_report *r, const char *onnx_name, const float **data, int64_t *count);
/* Writes one line per rewrite: "  fold-bn      layer1.0.bn1 into layer1.0.conv1 (epsilon 1e-05)". */
void lf_onnx_report_write(const lf_onnx_report *r, FILE *f);

/* A tensor read from a TensorProto file (test_data_set_N/input_K.pb):
 * float32 values (int64 and double are converted) in row-major order. */
typedef struct lf_onnx_tensor {
    char name[128];
    int32_t rank;
    int64_t dims[LF_ONNX_MAX_RANK];
    int64_t count;
    float *data; /* malloc'd */
} lf_onnx_tensor;

lf_status lf_onnx_read_tensor(const char *path, lf_onnx_tensor *t);
void lf_onnx_tensor_free(lf_onnx_tensor *t);
/* Writes t as a float32 TensorProto (raw_data), atomically. */
lf_status lf_onnx_write_tensor(const char *path, const lf_onnx_tensor *t);

/* Writes g as an ONNX model (opset 17, IR version 8; docs/exports.md),
 * atomically: one node per op named like it (a few for ops ONNX spells
 * with several), weights as initializers with the graph's values or, for
 * constants that hold only a shape, the reference executor's values for
 * seed (lf_exec_fill; what `fusionplan run --seed` uses). lf_onnx_import
 * reads it back to the same graph (same hash) for the op types of the
 * built-in networks. An op type with no ONNX form is LF_EUNSUPPORTED naming
 * the op. */
lf_status lf_onnx_write_graph(const char *path, const lf_graph *g, uint64_t seed);

#endif

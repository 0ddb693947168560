/* Internals of the ONNX importer (planner/io/onnx_*.c). Not installed.
 *
 * The importer works in stages on its own small graph of ONNX values and
 * nodes (lf__ox_graph), which keeps ONNX's arbitrary ranks and int64 shape
 * tensors until the very end:
 *
 *   onnx_load.c     ModelProto (protobuf-c) -> lf__ox_graph: nodes, attributes,
 *                   initializers and Constant nodes as constants, size caps
 *   onnx_tensor.c   TensorProto -> float / int64 arrays (raw_data, typed
 *                   fields, external data relative to the model file)
 *   onnx_infer.c    topological order (cycles rejected), static shapes with
 *                   --input-shape, constant folding of shape chains
 *   onnx_rewrite.c  the normalisations of DESIGN §10, each switchable and
 *                   reported
 *   onnx_lower.c    lf__ox_graph -> lf_graph (the project's IR)
 *
 * Only onnx_load.c and onnx_tensor.c see protobuf-c types. */
#ifndef LF_ONNX_INTERNAL_H
#define LF_ONNX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "planner/io/onnx.h"
#include "planner/util/arena.h"
#include "planner/util/hashmap.h"

#define LF__OX_MAX_RANK 8
/* Largest kernel, stride, dilation, pad and resize scale the importer takes:
 * far beyond any real model, small enough that shape arithmetic on them
 * cannot overflow. */
#define LF__OX_MAX_WINDOW 65536

/* ONNX TensorProto.DataType values used here. */
enum {
    LF__OX_FLOAT = 1,
    LF__OX_UINT8 = 2,
    LF__OX_INT8 = 3,
    LF__OX_INT32 = 6,
    LF__OX_INT64 = 7,
    LF__OX_BOOL = 9,
    LF__OX_FLOAT16 = 10,
    LF__OX_DOUBLE = 11
};

/* A tensor of known values: float32 or int64 (shape tensors, indices). */
typedef struct lf__ox_data {
    int32_t rank;
    int64_t dims[LF__OX_MAX_RANK];
    int64_t count; /* product of dims */
    float *f;      /* malloc'd; exactly one of f / i is set */
    int64_t *i;
    int32_t in_block; /* f lies in the graph's weight block (onnx_weights.c), not malloc'd */
} lf__ox_data;

typedef struct lf__ox_value {
    const char *name;
    int32_t elem_type;                /* ONNX data type, 0 when unknown */
    int32_t rank;                     /* -1 until known */
    int64_t dims[LF__OX_MAX_RANK];    /* -1: free dimension */
    const char *dim_param[LF__OX_MAX_RANK]; /* names of free dims (graph inputs) */
    int32_t producer;                 /* node index; -1 for inputs and constants */
    int32_t is_input, is_output;
    int32_t is_const;                 /* initializer, Constant output or folded */
    lf__ox_data data;                 /* values when is_const (may be absent: shape only) */
    int32_t n_uses;                   /* live nodes reading it (onnx_infer.c) */
    int32_t data_lent;                /* data.f handed to the lowered graph, which frees it */
} lf__ox_value;

typedef struct lf__ox_attr {
    const char *name;
    int32_t type;      /* ONNX AttributeProto.AttributeType: 1 f, 2 i, 3 s, 4 t, 6 floats, 7 ints */
    float f;
    int64_t i;
    const char *s;
    int32_t n;         /* ints / floats count */
    int64_t *ints;
    float *floats;
    int32_t tensor;    /* value id of a TENSOR attribute, -1 otherwise */
} lf__ox_attr;

typedef struct lf__ox_node {
    const char *name;  /* the node's name, or "<op>_<index>" when it has none */
    const char *op;    /* op_type */
    int32_t n_in, n_out;
    int32_t *in, *out; /* value ids; -1 for an omitted optional input */
    int32_t n_attr;
    lf__ox_attr *attr;
    int32_t dead;      /* removed by a rewrite or folded */
    int32_t folded_bn; /* Conv/Gemm: a BatchNormalization was folded in */
    int32_t clip_known;/* Clip: bounds resolved by the clip rewrite */
    float clip_min, clip_max;
    int32_t index;     /* position in the file's node list */
    uint32_t ir_zero;  /* LF__OX_IR_ZERO_* bits: "0 means 1" fields the IR left 0, from
                          fusionplan's own export (metadata fusionplan.ir_zero) */
    int32_t ir_keep;   /* an IR op of fusionplan's export (metadata fusionplan.ir_keep):
                          the rewrites that merge or drop nodes leave it as it is */
    int32_t ir_part;   /* fusionplan's export (metadata fusionplan.ir_part): a node that
                          spells part of its reader's IR op (LF__OX_PART_*), folded into
                          that reader by onnx_ir_parts.c */
    int32_t ir_causal; /* the IR flags those nodes carried: Softmax causal (the g of */
    int32_t ir_trans_a, ir_trans_b; /* lf_attrs.causal), MatMul trans_a / trans_b */
} lf__ox_node;

/* Values of lf__ox_node.ir_part: a Transpose of the last two axes read by a
 * MatMul as its A or B operand; an Add of a causal mask read by a Softmax
 * (LF__OX_PART_CAUSAL + g, g >= 1 the lf_attrs.causal stacks). */
enum { LF__OX_PART_NONE = 0, LF__OX_PART_TRANS_A, LF__OX_PART_TRANS_B, LF__OX_PART_CAUSAL };


/* Bits of lf__ox_node.ir_zero, in the order of the names "kh,kw,sh,sw,dh,dw,groups"
 * (written 1, the IR's 0), then "epsilon" (written 1e-5, the IR's 0); and the
 * bit LF__OX_IR_SET_SHAPE_N: a Reshape whose IR target spells N though it
 * keeps the input's (metadata fusionplan.ir_set = "shape_n"; the importer
 * otherwise says 0, "keep"). */
#define LF__OX_IR_ZERO_NAMES {"kh", "kw", "sh", "sw", "dh", "dw", "groups", "epsilon"}
#define LF__OX_IR_ZERO_EPSILON (1u << 7)
#define LF__OX_IR_SET_SHAPE_N (1u << 16)

typedef struct lf__ox_graph {
    lf_arena arena;        /* names, attributes, small arrays */
    const char *path;      /* model file (for messages and external data) */
    const char *name;
    int64_t opset;         /* default-domain opset */
    lf__ox_value *values;
    int32_t n_values, cap_values;
    lf__ox_node *nodes;
    int32_t n_nodes, cap_nodes;
    int32_t *order;        /* topological order of live nodes (onnx_infer.c) */
    int32_t n_order;
    lf_strmap by_name;     /* value name -> id + 1 */
    lf_onnx_options opt;
    int64_t const_bytes;   /* bytes of constant data held (capped) */
    lf_onnx_report *report;
    int bytes_mapped;      /* the model's bytes are a private file map (onnx_files.c): its
                              pages are given back once unpacked */
    int file_fd;           /* the mapped file, open (-1: none): raw_data inside
                              [file_bytes, +file_len) is read from it with pread */
    const uint8_t *file_bytes;
    size_t file_len;
    uint8_t *block;        /* the weights read from the mapped file, packed on huge pages
                              (onnx_weights.c); handed to the lowered graph */
    size_t block_used, block_cap;
    int const_graph;       /* opt.const_outputs and every graph input bound to values:
                              graph outputs fold too (onnx_infer.c) */
} lf__ox_graph;

/* ---- graph storage (onnx_graph.c) ---- */
lf_status lf__ox_init(lf__ox_graph *g, const char *path, const lf_onnx_options *opt);
void lf__ox_destroy(lf__ox_graph *g);
/* Finds or creates the value named name; returns its id or a negative status. */
int32_t lf__ox_value_id(lf__ox_graph *g, const char *name);
int32_t lf__ox_find(const lf__ox_graph *g, const char *name); /* -1 when absent */
/* Creates a fresh value with a unique name derived from base. */
int32_t lf__ox_new_value(lf__ox_graph *g, const char *base);
/* Appends a node; in/out are copied. Returns its index or a negative status. */
int32_t lf__ox_add_node(lf__ox_graph *g, const char *name, const char *op, const int32_t *in,
                        int32_t n_in, const int32_t *out, int32_t n_out);
const lf__ox_attr *lf__ox_attr_get(const lf__ox_node *n, const char *name);
int64_t lf__ox_attr_int(const lf__ox_node *n, const char *name, int64_t def);
float lf__ox_attr_float(const lf__ox_node *n, const char *name, float def);
const char *lf__ox_attr_str(const lf__ox_node *n, const char *name, const char *def);
/* Sets a constant's data (takes ownership of d's buffer), counting it against the cap. */
lf_status lf__ox_set_const(lf__ox_graph *g, int32_t v, lf__ox_data *d);
void lf__ox_data_free(lf__ox_data *d);
/* Allocates a float or int64 tensor of the given dims; checks overflow and the caps. */
lf_status lf__ox_data_alloc(lf__ox_graph *g, lf__ox_data *d, int is_int, int32_t rank,
                            const int64_t *dims);
/* The same, not zeroed, for a caller that writes every element (the tensor
 * reader): large ones on huge pages (lf__ox_weights_alloc); with in_block,
 * floats in the graph's weight block where it has room (lf__ox_block_take). */
lf_status lf__ox_data_alloc_filled(lf__ox_graph *g, lf__ox_data *d, int is_int, int32_t rank,
                                   const int64_t *dims, int in_block);
/* A buffer for bytes constant values the caller fills entirely, released
 * with free(): 2 MiB-aligned with huge pages hinted from 2 MiB on
 * (onnx_weights.c), malloc below. Not zeroed. */
void *lf__ox_weights_alloc(size_t bytes);
/* Reads len bytes at offset of fd into dst; -1 when the file ends first or a
 * read fails (the file changed since it was checked). */
int lf__ox_weights_pread(int fd, uint64_t offset, void *dst, size_t len);
/* bytes of the graph's weight block (created on first use, as large as the
 * model file: only what is written becomes resident), 64-byte aligned; NULL
 * when it has no room or cannot be made. */
void *lf__ox_block_take(lf__ox_graph *g, size_t bytes);
/* Gives back the pages strictly inside a block constant's bytes (its data
 * is dropped: the block is never reused). */
void lf__ox_block_forget(void *data, size_t bytes);

/* The one error line: "FILE: node 'NAME' (Op): message". node < 0 omits the node. */
lf_status lf__ox_fail(const lf__ox_graph *g, int32_t node, lf_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Records a rewrite in the report: kind, the node it applied to and why. */
void lf__ox_note(lf__ox_graph *g, lf_onnx_rewrite kind, int32_t node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Element count of dims with overflow and cap checks; -1 on overflow. */
int64_t lf__ox_count(const int64_t *dims, int32_t rank);
/* A float value as int64 without undefined behaviour: truncated toward zero,
 * NaN as 0, values beyond the int64 range saturated (a hostile model can hold
 * -inf where an integer is expected). */
int64_t lf__ox_f2i(double v);

/* ---- stages ---- */
/* onnx_load.c: parses the bytes of a ModelProto into g. base_dir is where
 * external data files are looked up (NULL: external data is refused). */
lf_status lf__ox_load(lf__ox_graph *g, const void *bytes, size_t len, const char *base_dir);
/* onnx_infer.c */
lf_status lf__ox_toposort(lf__ox_graph *g);
lf_status lf__ox_infer(lf__ox_graph *g);
/* onnx_rewrite.c */
lf_status lf__ox_rewrite(lf__ox_graph *g);
/* onnx_lower.c */
lf_status lf__ox_lower(lf__ox_graph *g, lf_graph **out);
/* onnx_ir_parts.c: folds the nodes marked fusionplan.ir_part into their
 * readers (after the rewrites, before lowering). */
lf_status lf__ox_ir_parts(lf__ox_graph *g);

#endif

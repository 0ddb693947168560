/* The protobuf-c side of the ONNX importer, for its files that unpack or
 * read protobufs (generated code lives in the build folder); the helpers
 * are in onnx_proto.c, the tensor reader in onnx_tensor.c. */
#ifndef LF_ONNX_PROTO_H
#define LF_ONNX_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"
#include "planner/io/onnx_internal.h"

/* A protobuf-c allocator that refuses to hand out more than cap bytes in
 * total, so that a small hostile file cannot make unpacking allocate without
 * bound (repeated empty sub-messages expand many times over). */
typedef struct lf__ox_alloc {
    ProtobufCAllocator base;
    int64_t used, cap;
} lf__ox_alloc;

void lf__ox_alloc_init(lf__ox_alloc *a, int64_t cap);

/* TensorProto -> values (float32 for float types, int64 for integer types). */
lf_status lf__ox_tensor_read(lf__ox_graph *g, const Onnx__TensorProto *t, const char *base_dir,
                             lf__ox_data *out);

/* Reads a whole file, refusing files above cap bytes. */
lf_status lf__ox_read_capped(const char *path, int64_t cap, uint8_t **data, size_t *len);

/* Folder part of path ("." when there is none). */
void lf__ox_dirname(const char *path, char *out, size_t len);

#endif

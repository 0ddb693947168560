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

/* Reads a whole model or tensor file (onnx_files.c): a regular file above
 * cap bytes is refused before reading; a pipe or device is read up to cap
 * and refused unless its first bytes are protobuf for a message of type
 * desc (`what` names the kind: "ONNX model"). */
lf_status lf__ox_read_capped(const char *path, int64_t cap, const ProtobufCMessageDescriptor *desc,
                             const char *what, uint8_t **data, size_t *len);

/* The model file for import: a regular file of at most cap bytes (checked
 * with fstat before any byte is read) is mapped read-only instead of read
 * (*mapped = 1), so the kernel's page cache holds its only copy; anything
 * else goes through lf__ox_read_capped (*mapped = 0). *fd is the open file
 * while mapped, -1 otherwise. Release with lf__ox_file_release. */
lf_status lf__ox_map_capped(const char *path, int64_t cap, const ProtobufCMessageDescriptor *desc,
                            const char *what, uint8_t **data, size_t *len, int *mapped, int *fd);
/* Unmaps or frees the bytes, closes fd when >= 0 (a mapped file's: kept open
 * so that weights are read with pread, not through the map). */
void lf__ox_file_release(uint8_t *data, size_t len, int mapped, int fd);
/* Gives back the resident pages of a mapped file under [data, data+len),
 * whole pages, once nothing reads them (the file stays mapped until
 * lf__ox_file_release; a page touched again is read from the file). */
void lf__ox_file_drop_pages(const void *data, size_t len);
/* Makes the pages under [data, data+len) present in one call before a large
 * copy reads (write = 0) or writes (write = 1) them: one page fault each
 * costs more than the copy on a virtual machine (Linux 5.14+; elsewhere
 * nothing). */
void lf__ox_prefault(const void *data, size_t len, int write);

/* Opens external data `location` of tensor `what` (onnx_files.c): a
 * relative path without "..", whose real path lies inside base_dir's real
 * path, naming a regular file (a FIFO is not opened for reading); *fd is
 * open with the file's *size. Errors name the model (g) and the tensor. */
lf_status lf__ox_open_external(const lf__ox_graph *g, const char *base_dir, const char *location,
                               const char *what, int *fd, int64_t *size);

/* How deep messages may nest in a model or tensor file (protobuf's own
 * default recursion limit): an If nested in an If costs 3 levels (GraphProto,
 * NodeProto, AttributeProto), so about 32 nested subgraphs pass. */
#define LF__OX_MAX_NESTING 100

typedef enum { LF__OX_WIRE_OK, LF__OX_WIRE_CORRUPT, LF__OX_WIRE_TOO_DEEP } lf__ox_wire_result;
typedef struct lf__ox_wire_info {
    size_t offset;       /* of the field at fault */
    const char *field;   /* too deep: the field's name ("g") */
    const char *message; /* ... and its message's ("AttributeProto") */
} lf__ox_wire_info;

/* Walks the wire format of a message of type top (onnx_wire.c). With limit
 * > len, p is the start of a longer stream of at most limit bytes: what has
 * not arrived yet is not an error. */
lf__ox_wire_result lf__ox_wire_scan(const uint8_t *p, size_t len, uint64_t limit,
                                    const ProtobufCMessageDescriptor *top, lf__ox_wire_info *info);

/* The scan of a whole file as one message; "PATH: ..." errors naming the
 * field and byte, `what` the kind of file ("ONNX model"). Call it before
 * every unpack of bytes from outside. */
lf_status lf__ox_wire_check(const uint8_t *p, size_t len, const ProtobufCMessageDescriptor *top,
                            const char *path, const char *what);

/* Where a sub-message lies in the bytes it was found in. */
typedef struct lf__ox_span {
    size_t off, len;
} lf__ox_span;

/* ModelProto bytes (checked by lf__ox_wire_check) -> a malloc'd copy
 * without the graph's initializers (*out, *out_len) and where each of them
 * lies in p, in file order (*inits, malloc'd); onnx_strip.c. */
lf_status lf__ox_strip_initializers(const uint8_t *p, size_t len, uint8_t **out, size_t *out_len,
                                    lf__ox_span **inits, size_t *n_inits);
/* A TensorProto's bytes -> the message with raw_data pointing into p (not
 * copied); NULL when it does not unpack. Free with lf__ox_tensor_free_lazy. */
Onnx__TensorProto *lf__ox_tensor_unpack_lazy(ProtobufCAllocator *al, const uint8_t *p, size_t len);
void lf__ox_tensor_free_lazy(ProtobufCAllocator *al, Onnx__TensorProto *t);

/* Folder part of path ("." when there is none). */
void lf__ox_dirname(const char *path, char *out, size_t len);

#endif

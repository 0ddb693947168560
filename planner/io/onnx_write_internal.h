/* Internals of the ONNX writer (planner/io/onnx_write*.c). Not installed.
 *
 *   onnx_write.c        lf_graph -> ModelProto: the graph's inputs,
 *                       outputs and nodes in order, opset 17, IR version 8
 *   onnx_write_ops.c    one or a few nodes per IR op (the inverse of
 *                       onnx_lower_ops.c)
 *   onnx_write_nodes.c  names, nodes, attributes and initializers (the
 *                       constants' values, or the executor's generator);
 *                       the writer's state is in onnx_write_state.h
 *   onnx_write_meta.c   metadata_props: on the model, and on nodes (field 9
 *                       of NodeProto from ONNX 1.16 / IR 10 on, which
 *                       Debian's onnx.proto (1.12, IR 8) lacks, so it is
 *                       written and read as a protobuf unknown field)
 *   onnx_write_plan.c   the annotated-ONNX plan export and its reader
 *
 * Annotations are key/value strings; the writer attaches an IR op's
 * annotations to every node written for it. */
#ifndef LF_ONNX_WRITE_INTERNAL_H
#define LF_ONNX_WRITE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"
#include "planner/graph.h"
#include "planner/status.h"
#include "planner/util/arena.h"

/* The IR version and default-domain opset of written models: the newest
 * Debian's onnx 1.12 (its checker) accepts; HardSwish needs opset 14. */
#define LF__OW_IR_VERSION 8
#define LF__OW_OPSET 17

/* NodeProto.metadata_props in onnx.proto from IR 10 on. */
#define LF__OW_NODE_METADATA_FIELD 9

typedef struct lf__ox_prop {
    const char *key;
    const char *value;
} lf__ox_prop;

/* What to attach: props on the model, and per IR op id (n_op[v] props op[v];
 * op may be NULL for none). */
typedef struct lf__ox_annotations {
    const lf__ox_prop *model;
    int32_t n_model;
    const lf__ox_prop *const *op;
    const int32_t *n_op;
} lf__ox_annotations;

/* ---- onnx_write.c ---- */
/* Packs g as a ModelProto into *out (malloc'd, *len bytes). Constants with
 * values are written as they are, the others with the executor's values for
 * seed. ann may be NULL. An op type with no ONNX form is LF_EUNSUPPORTED
 * naming the op. */
lf_status lf__onnx_pack_graph(const lf_graph *g, uint64_t seed, const lf__ox_annotations *ann,
                              uint8_t **out, size_t *len);

/* ---- onnx_write_meta.c ---- */
/* Appends props to a node as NodeProto.metadata_props (unknown field 9);
 * memory from arena (the node must not be freed by protobuf-c afterwards
 * unless the fields are detached first: lf__ox_node_meta_detach). */
lf_status lf__ox_node_meta_add(lf_arena *arena, Onnx__NodeProto *n, const lf__ox_prop *props,
                               int32_t n_props);
/* The value of key among the node's metadata_props (field 9), or NULL; the
 * returned string is malloc'd. A field 9 that is not a StringStringEntryProto
 * is LF_EPARSE in *st (when st is not NULL), the message naming the entry
 * (the caller adds the node). */
char *lf__ox_node_meta_get(const Onnx__NodeProto *n, const char *key, lf_status *st);
/* Model-level props: appended to m->metadata_props (memory from arena). */
lf_status lf__ox_model_meta_add(lf_arena *arena, Onnx__ModelProto *m, const lf__ox_prop *props,
                                int32_t n_props);

/* ---- onnx_write_plan.c ---- */
struct lf_plan;
struct lf_cost_model;
struct lf_plan_meta;
/* The annotated-ONNX plan export's bytes (what lf_plan_write_onnx writes),
 * malloc'd into *out; the Stream exports read their node names, order and
 * groups from it (plan_stream.c). */
lf_status lf__plan_onnx_bytes(const struct lf_plan *p, struct lf_cost_model *cm, const struct lf_plan_meta *meta,
                              lf_arena *arena, uint8_t **out, size_t *len);

#endif

/* Model-local ONNX functions (ModelProto.functions, IR 8) inlined before
 * the importer reads the graph (onnx_functions.c). */
#ifndef LF_ONNX_FUNCTIONS_H
#define LF_ONNX_FUNCTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"
#include "planner/util/arena.h"
#include "planner/status.h"

/* How deep calls of model-local functions may nest (a call inside a body
 * inside a body ... ); deeper is refused in one line. */
#define LF__OX_MAX_FUNCTION_DEPTH 16

/* m's graph nodes with every call of a model-local function replaced by the
 * function's body, recursively: *nodes (memory from arena; the nodes share
 * strings and metadata with m, so m must outlive them) has at most
 * max_nodes entries. A model without functions gives m's own node list.
 * Body nodes keep their names where no other node has them (else
 * "CALL/NAME"), values inside a body keep their names where the graph has
 * no such value (else "CALL/NAME", then "_N"), formal inputs and outputs
 * become the call's names, attributes referring to the call's
 * (ref_attr_name) take its values. When every resulting node carries
 * fusionplan.pos (the flat position that `--format onnx-groups` records),
 * they are put back in that order, so a grouped export imports as the flat
 * one. Errors are one line naming origin, the function and the node. */
lf_status lf__ox_functions_inline(const Onnx__ModelProto *m, const char *origin, int64_t max_nodes, lf_arena *arena,
                                  Onnx__NodeProto ***nodes, size_t *n_nodes);

#endif

/* Internal to planner/io: the ONNX model a Stream export names, read back
 * node by node, and what each Stream version can run of the plan
 * (plan_stream_model.c; written by plan_stream.c; docs/exports.md). */
#ifndef LF_PLAN_STREAM_INTERNAL_H
#define LF_PLAN_STREAM_INTERNAL_H

#include <stdint.h>

#include "planner/io/plan_export.h"

/* One ONNX node of the annotated export, in file order: its index is
 * Stream's node id (both versions number ONNX nodes from 0 in file order). */
typedef struct lf__snode {
    char *name;        /* the node's name (Stream's "Op<k>" for an unnamed one) */
    char *type;        /* op_type */
    int32_t group;     /* fusionplan.group, -1 when the node carries none */
    int32_t tile_rows; /* fusionplan.tile_rows (1 when absent) */
    int64_t rows;      /* output rows (H) of the IR op it belongs to, 0 unknown */
    int32_t piece;     /* the Stream 1.13 group (run) it falls in, -1: none (a layout op) */
} lf__snode;

typedef struct lf__smodel {
    lf__snode *node;
    int32_t n_nodes;
    int32_t n_pieces;  /* Stream 1.13 groups */
    char *notes;       /* '\n'-terminated lines: what Stream cannot express */
    int32_t n_notes;
} lf__smodel;

/* Reads the annotated export of p (lf_plan_write_onnx's model) and works out
 * the groups Stream can run: `legacy` 0 for Stream 1.13 (fused_groups: a
 * group must be consecutive in the ONNX file and free of layout ops, or
 * Stream cuts it), 1 for Stream 303f9dc1 (layer_stacks: any node set, row
 * tiles that divide every conv and pool's rows). */
lf_status lf__smodel_init(lf__smodel *sm, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta, int legacy);
void lf__smodel_destroy(lf__smodel *sm); /* safe after a failed init */

/* 1 when Stream 1.13 parses op_type t as a layout op (a FusionEdge: a group
 * boundary, no compute); 2 when neither version has a parser (1.13 raises). */
int lf__stream_layout_op(const char *t);
int lf__stream_conv_or_pool(const char *t);
/* Stream 303f9dc1 row tiles of the group ending in node k's group: the
 * number of tiles (0: "all", one row per tile). */
int32_t lf__stream_legacy_tiles(const lf__smodel *sm, int32_t group);

#endif

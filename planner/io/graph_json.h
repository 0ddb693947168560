/* The graph as JSON (`fusionplan info --json`, docs/ir.md). */
#ifndef LF_IO_GRAPH_JSON_H
#define LF_IO_GRAPH_JSON_H

#include <stdio.h>

#include "planner/graph.h"

/* Writes the graph as JSON (name, hash, ops with type, attrs, inputs, shape,
 * weights, MACs, operands; constants with name, shape and whether they hold
 * values). */
lf_status lf_graph_write_json(const lf_graph *g, FILE *f);

#endif

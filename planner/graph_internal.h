/* Internals shared by the graph's source files. */
#ifndef LF_GRAPH_INTERNAL_H
#define LF_GRAPH_INTERNAL_H

#include "planner/graph.h"

uint64_t lf__graph_compute_hash(const lf_graph *g);

#endif

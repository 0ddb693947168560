/* A split of one fusion group as a Graphviz picture (`fusionplan split
 * --dot`): one cluster per part labelled with its F_beta and F_D, the edges
 * between parts (the cut) red and bold. */
#ifndef LF_SPLIT_DOT_H
#define LF_SPLIT_DOT_H

#include <stdint.h>
#include <stdio.h>

#include "planner/cost/cost.h"
#include "planner/graph.h"
#include "planner/util/bitset.h"

/* Writes the digraph of parts[0 .. n_parts) (disjoint op sets of g) to f;
 * ops in no part and edges leaving the parts are left out. Errors: what
 * pricing a part reports, LF_ENOMEM. */
lf_status lf_split_write_dot(FILE *f, const lf_graph *g, lf_cost_model *cm, const lf_bitset *parts,
                             int32_t n_parts);

/* The same written atomically to path: all of it or nothing. */
lf_status lf_split_save_dot(const char *path, const lf_graph *g, lf_cost_model *cm,
                            const lf_bitset *parts, int32_t n_parts);

#endif

/* Strongly connected components of a directed graph, for the checks that a
 * partition's quotient graph is acyclic (the splitter's random split, the
 * partition searches' repair). Internal: not installed. */
#ifndef LF_SCC_H
#define LF_SCC_H

#include <stdint.h>

/* Strongly connected components of a directed graph of n nodes given in CSR
 * form (arcs of node k: succ[start[k] .. start[k + 1])). Writes a component
 * id per node into comp (numbered 0.. in an order that depends only on the
 * input) and returns the number of components. `work` holds 5 * n int32_t.
 * Iterative Tarjan, so deep graphs cannot overflow the stack. */
int32_t lf__scc(int32_t n, const int32_t *start, const int32_t *succ, int32_t *comp, int32_t *work);

#endif

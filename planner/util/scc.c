/* Strongly connected components (Tarjan's algorithm, iterative). */
#include "planner/util/scc.h"

int32_t lf__scc(int32_t n, const int32_t *start, const int32_t *succ, int32_t *comp, int32_t *work)
{
    int32_t *index = work, *low = work + n, *stack = work + 2 * n;
    int32_t *cs_node = work + 3 * n, *cs_edge = work + 4 * n;
    int32_t next_index = 0, sp = 0, ncomp = 0;
    for (int32_t v = 0; v < n; v++) {
        index[v] = -1;
        comp[v] = -1;
    }
    for (int32_t root = 0; root < n; root++) {
        if (index[root] >= 0)
            continue;
        int32_t depth = 0;
        cs_node[0] = root;
        cs_edge[0] = start[root];
        index[root] = low[root] = next_index++;
        stack[sp++] = root;
        while (depth >= 0) {
            int32_t v = cs_node[depth];
            if (cs_edge[depth] < start[v + 1]) {
                int32_t w = succ[cs_edge[depth]++];
                if (index[w] < 0) {
                    index[w] = low[w] = next_index++;
                    stack[sp++] = w;
                    depth++;
                    cs_node[depth] = w;
                    cs_edge[depth] = start[w];
                } else if (comp[w] < 0 && index[w] < low[v]) {
                    /* w is on the stack: visited but not yet in a component. */
                    low[v] = index[w];
                }
                continue;
            }
            if (low[v] == index[v]) {
                int32_t w;
                do {
                    w = stack[--sp];
                    comp[w] = ncomp;
                } while (w != v);
                ncomp++;
            }
            depth--;
            if (depth >= 0 && low[v] < low[cs_node[depth]])
                low[cs_node[depth]] = low[v];
        }
    }
    return ncomp;
}

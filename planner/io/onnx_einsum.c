/* Einsum's output shape from its equation: explicit outputs of letters
 * (what exporters write for batched matrix products); the rewrite into
 * MatMul and Transposes is in onnx_rewrite_ops.c. */
#include <string.h>

#include "planner/io/onnx_ops.h"

lf_status lf__ox_einsum_shape(lf__ox_graph *g, int32_t i)
{
    const lf__ox_node *n = &g->nodes[i];
    const char *eq = lf__ox_attr_str(n, "equation", ""), *arrow = strstr(eq, "->");
    int64_t dim['z' + 1];
    for (int q = 0; q <= 'z'; q++)
        dim[q] = -1;
    int32_t op = 0, ax = 0;
    for (const char *p = eq; arrow && p < arrow; p++) {
        if (*p == ',') {
            op++;
            ax = 0;
        } else if (*p >= 'a' && *p <= 'z' && op < n->n_in && n->in[op] >= 0) {
            const lf__ox_value *v = &g->values[n->in[op]];
            if (ax >= v->rank)
                return lf__ox_fail(g, i, LF_EGRAPH, "equation '%s' has more letters than operand %d has axes", eq,
                                   (int)op);
            if (dim[(int)*p] >= 0 && dim[(int)*p] != v->dims[ax] && v->dims[ax] != 1 && dim[(int)*p] != 1)
                return lf__ox_fail(g, i, LF_EGRAPH, "letter '%c' has two sizes", *p);
            if (dim[(int)*p] < 0 || dim[(int)*p] == 1)
                dim[(int)*p] = v->dims[ax];
            ax++;
        } else if (*p != ' ') {
            arrow = NULL; /* an ellipsis or another character */
        }
    }
    if (!arrow)
        return lf__ox_fail(g, i, LF_EUNSUPPORTED, "equation '%s' (only explicit outputs of letters)", eq);
    int64_t od[LF__OX_MAX_RANK];
    int32_t r = 0;
    for (const char *p = arrow + 2; *p; p++) {
        if (*p == ' ')
            continue;
        if (*p < 'a' || *p > 'z' || dim[(int)*p] < 0 || r == LF__OX_MAX_RANK)
            return lf__ox_fail(g, i, LF_EGRAPH, "output letter '%c' of equation '%s'", *p, eq);
        od[r++] = dim[(int)*p];
    }
    lf__ox_value *y = &g->values[n->out[0]];
    y->rank = r;
    memcpy(y->dims, od, (size_t)r * sizeof *od);
    y->elem_type = LF__OX_FLOAT;
    return LF_OK;
}

/* Einsum's equation in explicit form, and its output shape. ONNX's Einsum
 * (numpy's einsum) lets an equation leave out its output ("ij,jk": the
 * letters that occur once, in alphabetical order) and stand for leading axes
 * with an ellipsis ("...ii->...i": the axes an operand has beyond its
 * letters, broadcast right-aligned across operands). Both are spelled out
 * here with letters of their own, so that the rewrite (onnx_rewrite_einsum.c)
 * and the shape rule see operands and an output of letters only. */
#include <string.h>

#include "planner/io/onnx_ops.h"

static int lf__is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* Letters of one term (an operand or the output) before expansion: the
 * explicit letters and where the ellipsis stood (-1: none). 0 on a syntax error. */
static int lf__term(const char *s, const char *end, char *letters, int *n, int *ell)
{
    *n = 0;
    *ell = -1;
    for (const char *p = s; p < end; p++) {
        if (*p == ' ')
            continue;
        if (*p == '.') {
            if (*ell >= 0 || end - p < 3 || p[1] != '.' || p[2] != '.')
                return 0;
            *ell = *n;
            p += 2;
        } else if (lf__is_letter(*p) && *n < LF__OX_MAX_RANK) {
            letters[(*n)++] = *p;
        } else {
            return 0;
        }
    }
    return 1;
}

lf_status lf__ox_einsum_parse(const lf__ox_graph *g, int32_t i, lf__ox_einsum *e)
{
    const lf__ox_node *n = &g->nodes[i];
    const char *eq = lf__ox_attr_str(n, "equation", ""), *arrow = strstr(eq, "->");
    const char *lhs_end = arrow ? arrow : eq + strlen(eq);
    char raw[LF__OX_EINSUM_MAX_OPS][LF__OX_MAX_RANK];
    int nraw[LF__OX_EINSUM_MAX_OPS], ell[LF__OX_EINSUM_MAX_OPS];
    memset(e, 0, sizeof *e);
    e->n_ops = 0;
    /* operands */
    for (const char *p = eq;;) {
        const char *c = memchr(p, ',', (size_t)(lhs_end - p));
        const char *t_end = c ? c : lhs_end;
        if (e->n_ops == LF__OX_EINSUM_MAX_OPS || !lf__term(p, t_end, raw[e->n_ops], &nraw[e->n_ops], &ell[e->n_ops]))
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "equation '%s' cannot be read (letters, ',', '...', '->')", eq);
        e->n_ops++;
        if (!c)
            break;
        p = c + 1;
    }
    if (e->n_ops != n->n_in)
        return lf__ox_fail(g, i, LF_EGRAPH, "equation '%s' has %d operands, the node %d inputs", eq, e->n_ops,
                           (int)n->n_in);
    /* letters the ellipsis stands for: unused ones, the same for each axis
     * counted from the right in every operand */
    int used[128] = {0}, n_ell = 0;
    for (int k = 0; k < e->n_ops; k++)
        for (int q = 0; q < nraw[k]; q++)
            used[(int)raw[k][q]] = 1;
    for (int k = 0; k < e->n_ops; k++) {
        int32_t r = n->in[k] >= 0 ? g->values[n->in[k]].rank : -1;
        int extra = ell[k] >= 0 ? r - nraw[k] : 0;
        if (r < 0 || extra < 0 || (ell[k] < 0 && r != nraw[k]))
            return lf__ox_fail(g, i, LF_EGRAPH, "equation '%s': operand %d has rank %d", eq, k, (int)r);
        n_ell = extra > n_ell ? extra : n_ell;
    }
    char fresh[LF__OX_MAX_RANK];
    for (int q = 0, c = 'A'; q < n_ell; q++) {
        while (c <= 'z' && (used[c] || !lf__is_letter((char)c)))
            c++;
        if (c > 'z')
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "equation '%s' uses too many letters", eq);
        fresh[q] = (char)c++;
    }
    for (int k = 0; k < e->n_ops; k++) {
        int extra = ell[k] >= 0 ? g->values[n->in[k]].rank - nraw[k] : 0, len = 0;
        for (int q = 0; q <= nraw[k]; q++) {
            if (q == ell[k])
                for (int t = 0; t < extra; t++)
                    e->in[k][len++] = fresh[n_ell - extra + t];
            if (q < nraw[k])
                e->in[k][len++] = raw[k][q];
        }
        e->len[k] = len;
    }
    /* the output */
    if (arrow) {
        char ol[LF__OX_MAX_RANK];
        int no, oell;
        if (!lf__term(arrow + 2, arrow + strlen(arrow), ol, &no, &oell))
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "equation '%s' cannot be read (letters, ',', '...', '->')", eq);
        if (no + (oell >= 0 ? n_ell : 0) > LF__OX_MAX_RANK)
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "equation '%s': output of rank above %d", eq, LF__OX_MAX_RANK);
        for (int q = 0; q <= no; q++) {
            if (q == oell)
                for (int t = 0; t < n_ell; t++)
                    e->out[e->len_out++] = fresh[t];
            if (q < no)
                e->out[e->len_out++] = ol[q];
        }
        if (oell < 0 && n_ell > 0)
            return lf__ox_fail(g, i, LF_EUNSUPPORTED, "equation '%s': an ellipsis summed away", eq);
    } else { /* implicit: the ellipsis, then the letters seen once, alphabetically */
        int count[128] = {0};
        for (int k = 0; k < e->n_ops; k++)
            for (int q = 0; q < nraw[k]; q++)
                count[(int)raw[k][q]]++;
        for (int t = 0; t < n_ell; t++)
            e->out[e->len_out++] = fresh[t];
        for (int c = 'A'; c <= 'z'; c++)
            if (count[c] == 1 && e->len_out < LF__OX_MAX_RANK)
                e->out[e->len_out++] = (char)c;
    }
    /* each output letter once, and in some operand */
    for (int q = 0; q < e->len_out; q++) {
        int seen = 0;
        for (int k = 0; k < e->n_ops; k++)
            seen |= memchr(e->in[k], e->out[q], (size_t)e->len[k]) != NULL;
        if (!seen || memchr(e->out, e->out[q], (size_t)q) != NULL)
            return lf__ox_fail(g, i, LF_EGRAPH, "output letter '%c' of equation '%s'", e->out[q], eq);
    }
    return LF_OK;
}

int64_t lf__ox_einsum_dim(const lf__ox_graph *g, int32_t i, const lf__ox_einsum *e, char letter)
{
    const lf__ox_node *n = &g->nodes[i];
    int64_t d = -1;
    for (int k = 0; k < e->n_ops; k++)
        for (int q = 0; q < e->len[k]; q++)
            if (e->in[k][q] == letter) {
                int64_t v = g->values[n->in[k]].dims[q];
                if (d < 0 || d == 1)
                    d = v;
                else if (v != 1 && v != d)
                    return -2;
            }
    return d;
}

lf_status lf__ox_einsum_shape(lf__ox_graph *g, int32_t i)
{
    lf__ox_einsum e;
    lf_status st = lf__ox_einsum_parse(g, i, &e);
    if (st != LF_OK)
        return st;
    const char *eq = lf__ox_attr_str(&g->nodes[i], "equation", "");
    for (int k = 0; k < e.n_ops; k++)
        for (int q = 0; q < e.len[k]; q++)
            if (lf__ox_einsum_dim(g, i, &e, e.in[k][q]) == -2)
                return lf__ox_fail(g, i, LF_EGRAPH, "letter '%c' has two sizes in equation '%s'", e.in[k][q], eq);
    lf__ox_value *y = &g->values[g->nodes[i].out[0]];
    y->rank = e.len_out;
    for (int q = 0; q < e.len_out; q++)
        y->dims[q] = lf__ox_einsum_dim(g, i, &e, e.out[q]);
    y->elem_type = LF__OX_FLOAT;
    return LF_OK;
}

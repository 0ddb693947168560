/* Einsum written with the IR's ops (always on, reported under
 * fold-constants), from the equation spelled out by onnx_einsum.c:
 *
 * - a letter repeated within an operand (a diagonal, "ii->i", "...ii->...i";
 *   a trace "ii" is its diagonal summed): the operand times a constant 0/1
 *   identity over the two axes, summed over the second (ReduceSum);
 * - one operand: a ReduceSum over the letters the output drops and a
 *   Transpose to the output's order ("ij->ji", "ij->i");
 * - two operands of a (batched) matrix product, the form exporters write
 *   for attention scores and projections ("bhqd,bhkd->bhqk"): one rank, the
 *   same leading batch letters in the same order, the last two letters
 *   {i, j} and {j, k} in any order, output batch + i k (or k i): MatMul with
 *   Transposes of the last two axes where needed;
 * - any other two operands (an inner product "i,i", an outer product
 *   "i,j->ij", a product summed over several letters): each operand
 *   transposed to the order of the letters output first, then the summed
 *   ones, viewed with a 1 for each letter it lacks (Reshape), multiplied
 *   (Mul broadcasts), then summed over the letters the output drops.
 *   Its cost is the broadcast product, which for a matrix product would be
 *   a cube: that is why the product form above comes first. */
#include <stdio.h>
#include <string.h>

#include "planner/io/onnx_ops.h"
#include "planner/io/onnx_rewrite.h"

static int lf__pos(const char *s, int len, char ch)
{
    for (int q = 0; q < len; q++)
        if (s[q] == ch)
            return q;
    return -1;
}

/* A new node of node i (named "NODE/suffix") making a value of the given dims. */
static int32_t lf__op(lf__ox_graph *g, int32_t i, const char *suffix, const char *op, const int32_t *in, int32_t n_in,
                      int32_t rank, const int64_t *dims)
{
    char name[300];
    snprintf(name, sizeof name, "%.240s/%.40s", g->nodes[i].name, suffix);
    return lf__ox_rw_node(g, name, op, in, n_in, rank, dims);
}

/* A ReduceSum of v over axes (keepdims 0), or a status. */
static int32_t lf__sum(lf__ox_graph *g, int32_t i, const char *suffix, int32_t v, const int64_t *axes, int32_t na)
{
    const lf__ox_value *x = &g->values[v];
    int64_t dims[LF__OX_MAX_RANK], zero = 0;
    int32_t r = 0;
    for (int32_t q = 0; q < x->rank; q++) {
        int drop = 0;
        for (int32_t k = 0; k < na; k++)
            drop |= axes[k] == q;
        if (!drop)
            dims[r++] = x->dims[q];
    }
    int32_t t = lf__op(g, i, suffix, "ReduceSum", &v, 1, r, dims);
    lf_status st;
    if (t < 0 || (st = lf__ox_rw_set_ints(g, &g->nodes[g->values[t].producer], "axes", axes, na)) != LF_OK ||
        (st = lf__ox_rw_set_ints(g, &g->nodes[g->values[t].producer], "keepdims", &zero, -1)) != LF_OK)
        return t < 0 ? t : (int32_t)st;
    return t;
}

/* A Transpose of v by perm (output axis q = input axis perm[q]), or v itself. */
static int32_t lf__permute(lf__ox_graph *g, int32_t i, const char *suffix, int32_t v, const int64_t *perm)
{
    const lf__ox_value *x = &g->values[v];
    int64_t dims[LF__OX_MAX_RANK];
    int identity = 1;
    for (int32_t q = 0; q < x->rank; q++) {
        dims[q] = x->dims[perm[q]];
        identity &= perm[q] == q;
    }
    if (identity)
        return v;
    int32_t t = lf__op(g, i, suffix, "Transpose", &v, 1, x->rank, dims);
    lf_status st = t < 0 ? LF_OK : lf__ox_rw_set_ints(g, &g->nodes[g->values[t].producer], "perm", perm, x->rank);
    return t < 0 ? t : st != LF_OK ? (int32_t)st : t;
}

/* Takes the diagonals of operand k (value v, letters l, *n of them) until no
 * letter repeats: v * I over axes p < q, summed over q. Returns the new value. */
static int32_t lf__diagonals(lf__ox_graph *g, int32_t i, int32_t k, int32_t v, char *l, int *n)
{
    for (int q = 1; q < *n; q++) {
        int p = lf__pos(l, q, l[q]);
        if (p < 0)
            continue;
        const lf__ox_value *x = &g->values[v];
        int64_t d = x->dims[p], ed[LF__OX_MAX_RANK], xd[LF__OX_MAX_RANK];
        if (x->dims[q] != d)
            return lf__ox_fail(g, i, LF_EGRAPH, "letter '%c' of operand %d has sizes %lld and %lld", l[q], (int)k,
                               (long long)d, (long long)x->dims[q]);
        int32_t r = x->rank;
        for (int32_t t = 0; t < r; t++)
            ed[t] = t == p || t == q ? d : 1;
        memcpy(xd, x->dims, sizeof xd);
        lf__ox_data e;
        lf_status st = lf__ox_data_alloc(g, &e, 0, r, ed);
        if (st != LF_OK)
            return (int32_t)st;
        for (int64_t a = 0; a < d; a++)
            for (int64_t b = 0; b < d; b++)
                e.f[a * d + b] = a == b ? 1.0f : 0.0f;
        char name[300], sfx[48];
        snprintf(name, sizeof name, "%.240s.eye%d_%d", g->nodes[i].name, (int)k, q);
        int32_t eye = lf__ox_rw_const(g, name, &e, r, ed);
        if (eye < 0)
            return eye;
        int32_t in[2] = {v, eye};
        snprintf(sfx, sizeof sfx, "diag%d_%d", (int)k, q);
        int32_t m = lf__op(g, i, sfx, "Mul", in, 2, r, xd);
        int64_t ax = q;
        snprintf(sfx, sizeof sfx, "diag%d_%d_sum", (int)k, q);
        if (m < 0 || (v = lf__sum(g, i, sfx, m, &ax, 1)) < 0)
            return m < 0 ? m : v;
        memmove(l + q, l + q + 1, (size_t)(*n - q - 1));
        (*n)--;
        q = 0; /* look again from the start */
    }
    return v;
}

/* Node i becomes v's Transpose by perm, or ReduceSum (axes), or Identity. */
static lf_status lf__finish_one(lf__ox_graph *g, int32_t i, int32_t v, const int64_t *perm, int32_t r)
{
    lf_status st = lf__ox_rw_set_inputs(g, &g->nodes[i], &v, 1);
    if (st != LF_OK)
        return st;
    lf__ox_node *n = &g->nodes[i];
    n->n_attr = 0;
    int identity = 1;
    for (int32_t q = 0; q < r; q++)
        identity &= perm[q] == q;
    n->op = identity ? "Identity" : "Transpose";
    return identity ? LF_OK : lf__ox_rw_set_ints(g, n, "perm", perm, r);
}

/* One operand without repeated letters: sum the letters the output drops,
 * then transpose to the output's order. */
static lf_status lf__one(lf__ox_graph *g, int32_t i, int32_t x, const char *a, int la, const char *o, int lo)
{
    int64_t axes[LF__OX_MAX_RANK], perm[LF__OX_MAX_RANK];
    char kept[LF__OX_MAX_RANK];
    int32_t na = 0, nk = 0;
    for (int q = 0; q < la; q++) {
        if (lf__pos(o, lo, a[q]) < 0)
            axes[na++] = q;
        else
            kept[nk++] = a[q];
    }
    int identity = 1;
    for (int q = 0; q < lo; q++) {
        perm[q] = lf__pos(kept, nk, o[q]);
        identity &= perm[q] == q;
    }
    if (na && identity) { /* the node is the ReduceSum */
        int64_t zero = 0;
        lf_status st = lf__ox_rw_set_inputs(g, &g->nodes[i], &x, 1);
        lf__ox_node *n = &g->nodes[i];
        n->op = "ReduceSum";
        n->n_attr = 0;
        if (st == LF_OK)
            st = lf__ox_rw_set_ints(g, n, "axes", axes, na);
        return st == LF_OK ? lf__ox_rw_set_ints(g, n, "keepdims", &zero, -1) : st;
    }
    int32_t v = x;
    if (na && (v = lf__sum(g, i, "sum", x, axes, na)) < 0)
        return (lf_status)v;
    return lf__finish_one(g, i, v, perm, lo);
}

/* A Transpose of the last two axes of v, or v itself. */
static int32_t lf__swap_last(lf__ox_graph *g, int32_t i, int32_t v, int swap, const char *suffix)
{
    int64_t perm[LF__OX_MAX_RANK];
    int32_t r = g->values[v].rank;
    for (int32_t q = 0; q < r; q++)
        perm[q] = q;
    if (swap) {
        perm[r - 2] = r - 1;
        perm[r - 1] = r - 2;
    }
    return lf__permute(g, i, suffix, v, perm);
}

/* The (batched) matrix product form: 1 when node i was rewritten into a
 * MatMul, 0 when the equation is not of that form, or a status. */
static int lf__matmul(lf__ox_graph *g, int32_t i, int32_t A, const char *a, int la, int32_t B, const char *b, int lb,
                      const char *o, int lo)
{
    /* the output's rank r; an operand of rank 2 (a weight without batch
     * letters) broadcasts over the batch as MatMul does */
    int r = lo;
    int ok = r >= 2 && (la == r || la == 2) && (lb == r || lb == 2) && (la == r || lb == r);
    const char *pa = a + la - 2, *pb = b + lb - 2, *po = o + r - 2; /* the matrix letters */
    for (int q = 0; ok && q < r - 2; q++) /* batch letters: the output's, once in each operand */
        ok = (la == 2 || a[q] == o[q]) && (lb == 2 || b[q] == o[q]) && lf__pos(pa, 2, o[q]) < 0 &&
             lf__pos(pb, 2, o[q]) < 0 && lf__pos(po, 2, o[q]) < 0;
    /* contraction letter j: in both last pairs, not in the output */
    char j = 0;
    for (int q = 0; ok && q < 2; q++)
        if (lf__pos(pb, 2, pa[q]) >= 0 && lf__pos(po, 2, pa[q]) < 0)
            j = pa[q];
    char ii = 0, kk = 0;
    if (ok && j) {
        ii = pa[0] == j ? pa[1] : pa[0];
        kk = pb[0] == j ? pb[1] : pb[0];
    }
    if (!ok || !j || ii == kk || ii == j || kk == j || lf__pos(po, 2, ii) < 0 || lf__pos(po, 2, kk) < 0)
        return 0;
    for (int q = 0; la == lb && q < r - 2; q++) /* batch axes equal or broadcast as MatMul does */
        if (g->values[A].dims[q] != g->values[B].dims[q] && g->values[A].dims[q] != 1 && g->values[B].dims[q] != 1)
            return 0;
    int swap_out = po[0] == kk; /* C^T = B^T A^T */
    int ta = pa[1] != j, tb = pb[0] != j;
    if (swap_out) { /* out = (k i): compute B^T A^T */
        int32_t t = A;
        A = B;
        B = t;
        int tt = ta;
        ta = !tb;
        tb = !tt;
    }
    int32_t va = lf__swap_last(g, i, A, ta, "a_t"), vb = va >= 0 ? lf__swap_last(g, i, B, tb, "b_t") : va;
    if (vb < 0)
        return vb;
    int32_t in[2] = {va, vb};
    lf_status st = lf__ox_rw_set_inputs(g, &g->nodes[i], in, 2);
    if (st != LF_OK)
        return st;
    g->nodes[i].op = "MatMul";
    g->nodes[i].n_attr = 0;
    return 1;
}

/* Operand v (letters l) transposed to the order of u and viewed with a 1
 * for each letter of u it lacks. */
static int32_t lf__align(lf__ox_graph *g, int32_t i, int32_t k, int32_t v, const char *l, int n, const char *u, int nu)
{
    int64_t perm[LF__OX_MAX_RANK], dims[LF__OX_MAX_RANK];
    int32_t np = 0;
    for (int q = 0; q < nu; q++) {
        int at = lf__pos(l, n, u[q]);
        if (at >= 0)
            perm[np++] = at;
        dims[q] = at >= 0 ? g->values[v].dims[at] : 1;
    }
    char sfx[32];
    snprintf(sfx, sizeof sfx, "op%d_t", (int)k);
    if ((v = lf__permute(g, i, sfx, v, perm)) < 0 || n == nu)
        return v;
    snprintf(sfx, sizeof sfx, "op%d_view", (int)k);
    return lf__op(g, i, sfx, "Reshape", &v, 1, nu, dims);
}

static lf_status lf__product(lf__ox_graph *g, int32_t i, int32_t A, const char *a, int la, int32_t B, const char *b,
                             int lb, const char *o, int lo)
{
    char u[2 * LF__OX_MAX_RANK];
    int nu = 0;
    memcpy(u, o, (size_t)lo);
    nu = lo;
    for (int q = 0; q < la + lb; q++) {
        char c = q < la ? a[q] : b[q - la];
        if (lf__pos(u, nu, c) < 0)
            u[nu++] = c;
    }
    if (nu > LF__OX_MAX_RANK)
        return lf__ox_fail(g, i, LF_EUNSUPPORTED, "equation '%s' needs a product of rank %d",
                           lf__ox_attr_str(&g->nodes[i], "equation", ""), nu);
    int32_t va = lf__align(g, i, 0, A, a, la, u, nu), vb = va >= 0 ? lf__align(g, i, 1, B, b, lb, u, nu) : va;
    if (vb < 0)
        return (lf_status)vb;
    int64_t dims[LF__OX_MAX_RANK], axes[LF__OX_MAX_RANK];
    for (int q = 0; q < nu; q++) {
        int64_t x = g->values[va].dims[q], y = g->values[vb].dims[q];
        dims[q] = x > y ? x : y;
        axes[q] = q;
    }
    int32_t in[2] = {va, vb};
    if (nu == lo) { /* nothing summed: the node is the Mul */
        lf_status st = lf__ox_rw_set_inputs(g, &g->nodes[i], in, 2);
        g->nodes[i].op = "Mul";
        g->nodes[i].n_attr = 0;
        return st;
    }
    int32_t m = lf__op(g, i, "product", "Mul", in, 2, nu, dims);
    if (m < 0)
        return (lf_status)m;
    lf_status st = lf__ox_rw_set_inputs(g, &g->nodes[i], &m, 1);
    lf__ox_node *n = &g->nodes[i];
    int64_t zero = 0;
    n->op = "ReduceSum";
    n->n_attr = 0;
    if (st == LF_OK)
        st = lf__ox_rw_set_ints(g, n, "axes", axes + lo, nu - lo);
    return st == LF_OK ? lf__ox_rw_set_ints(g, n, "keepdims", &zero, -1) : st;
}

lf_status lf__ox_rewrite_einsum(lf__ox_graph *g, int32_t i)
{
    lf__ox_einsum e;
    lf_status st = lf__ox_einsum_parse(g, i, &e);
    if (st != LF_OK)
        return st;
    const char *eq = lf__ox_attr_str(&g->nodes[i], "equation", "");
    if (e.n_ops > 2)
        return lf__ox_fail(g, i, LF_EUNSUPPORTED, "equation '%s' of %d operands (at most 2)", eq, e.n_ops);
    int32_t v[2];
    int diag = 0;
    for (int k = 0; k < e.n_ops; k++) {
        int before = e.len[k];
        v[k] = lf__diagonals(g, i, k, g->nodes[i].in[k], e.in[k], &e.len[k]);
        if (v[k] < 0)
            return (lf_status)v[k];
        diag |= e.len[k] != before;
    }
    const char *what;
    int done = 0;
    if (e.n_ops == 1) {
        st = lf__one(g, i, v[0], e.in[0], e.len[0], e.out, e.len_out);
        what = "a ReduceSum or a Transpose (as needed)";
    } else if ((done = lf__matmul(g, i, v[0], e.in[0], e.len[0], v[1], e.in[1], e.len[1], e.out, e.len_out)) != 0) {
        st = done < 0 ? (lf_status)done : LF_OK;
        what = "a MatMul";
    } else {
        st = lf__product(g, i, v[0], e.in[0], e.len[0], v[1], e.in[1], e.len[1], e.out, e.len_out);
        int summed = 0;
        for (int k = 0; k < 2; k++)
            for (int q = 0; q < e.len[k]; q++)
                summed |= lf__pos(e.out, e.len_out, e.in[k][q]) < 0;
        what = summed ? "a broadcast Mul and a ReduceSum" : "a broadcast Mul";
    }
    if (st == LF_OK)
        lf__ox_note(g, LF_ONNX_FOLD_CONSTANTS, i, "Einsum '%s' is %s%s", eq, what,
                    diag ? " of diagonals (Mul by an identity, ReduceSum)" : "");
    return st;
}

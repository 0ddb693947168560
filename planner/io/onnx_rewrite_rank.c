/* Tensors of rank 5 and 6 (the `rank-views` rewrite). The IR is rank <= 4
 * (docs/ir.md §1); exporters write rank 5 and 6 only as views around a
 * computation that has rank <= 4 once adjacent axes that move together are
 * merged: Swin's window partition and reverse (view [B, H/7, 7, W/7, 7, C],
 * permute (0, 1, 3, 2, 4, 5), view back), its shifted-window mask added to
 * the scores viewed as [B, nW, heads, N, N], the key/value heads of
 * grouped-query attention repeated through an Expand of rank 5, PixelShuffle
 * (view [N, C, r, r, H, W], permute (0, 1, 4, 2, 5, 3)).
 *
 * Each Transpose, element-wise op or Expand with an operand of rank above 4
 * is rewritten at the smallest rank where it is the same computation:
 * - Transpose: axes of size 1 are dropped, then input axes j, j + 1 that the
 *   permutation keeps adjacent and in order are merged (the permutation
 *   acts on runs of axes);
 * - element-wise ops and Expand: output axes a, a + 1 are merged when every
 *   operand broadcasts them alike (both its own or both 1), or one has size 1.
 * Reshape views (Reshape nodes of the same memory) connect the new node to
 * its neighbours; then views of views collapse (a Reshape of a Reshape reads
 * the first one's input), so the values of rank above 4 lose their readers
 * and their view nodes are removed. What is left of rank above 4 is an error
 * at lowering naming the node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_ops.h"
#include "planner/io/onnx_rewrite.h"

static const char *const lf__elementwise[] = {
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Relu", "Sigmoid", "Tanh", "Erf", "Exp", "Sqrt", "Neg",
    "Reciprocal", "Abs", "Floor", "Ceil", "Log", "Softplus", "Gelu", "Expand",
};

static int lf__is_elementwise(const lf__ox_node *n)
{
    for (size_t k = 0; k < sizeof lf__elementwise / sizeof lf__elementwise[0]; k++)
        if (lf__ox_rw_is(n, lf__elementwise[k]))
            return 1;
    return 0;
}

static int lf__is_view(const lf__ox_node *n)
{
    return lf__ox_rw_is(n, "Reshape") || lf__ox_rw_is(n, "Flatten") || lf__ox_rw_is(n, "Squeeze") ||
           lf__ox_rw_is(n, "Unsqueeze");
}

static int lf__is_perm(const int64_t *perm, int32_t cnt, int32_t r)
{
    int32_t seen = 0;
    if (cnt != r)
        return 0;
    for (int32_t k = 0; k < r; k++) {
        if (perm[k] < 0 || perm[k] >= r || (seen & (1 << perm[k])))
            return 0;
        seen |= 1 << perm[k];
    }
    return 1;
}

/* A new value of the given dims and v's element type. Returns its id or a
 * negative status. */
static int32_t lf__new_like(lf__ox_graph *g, int32_t v, const char *suffix, const int64_t *dims, int32_t rank)
{
    char name[300];
    snprintf(name, sizeof name, "%.240s/%s", g->values[v].name, suffix);
    int32_t id = lf__ox_new_value(g, name);
    if (id < 0)
        return id;
    lf__ox_value *nv = &g->values[id];
    nv->rank = rank;
    memcpy(nv->dims, dims, (size_t)rank * sizeof *dims);
    nv->elem_type = g->values[v].elem_type;
    return id;
}

/* Value v seen with dims `dims` (same elements in the same order): v itself
 * when the dims are v's, a constant copy for a constant, else the output of
 * a new Reshape view. Returns the value id or a negative status. */
static int32_t lf__view_of(lf__ox_graph *g, int32_t v, const int64_t *dims, int32_t rank)
{
    if (g->values[v].rank == rank && memcmp(g->values[v].dims, dims, (size_t)rank * sizeof *dims) == 0)
        return v;
    int32_t id = lf__new_like(g, v, "merged", dims, rank);
    if (id < 0)
        return id;
    if (g->values[v].is_const) {
        lf__ox_data d;
        const lf__ox_data *src = &g->values[v].data;
        g->values[id].is_const = 1;
        if (!src->f && !src->i)
            return id; /* shape only */
        lf_status st = lf__ox_data_alloc(g, &d, src->i != NULL, rank, dims);
        if (st != LF_OK)
            return st;
        if (src->f)
            memcpy(d.f, src->f, (size_t)src->count * sizeof *d.f);
        else
            memcpy(d.i, src->i, (size_t)src->count * sizeof *d.i);
        return (st = lf__ox_set_const(g, id, &d)) != LF_OK ? st : id;
    }
    char name[300];
    snprintf(name, sizeof name, "%.240s/view", g->values[v].name);
    int32_t r = lf__ox_add_node(g, name, "Reshape", &v, 1, &id, 1);
    if (r < 0)
        return r;
    g->values[id].producer = r;
    return id;
}

/* Rewrites node i at rank <= 4. Returns LF_OK also when it cannot (the
 * lowering then names the node). */
static lf_status lf__lower_rank(lf__ox_graph *g, int32_t i)
{
    int is_t = lf__ox_rw_is(&g->nodes[i], "Transpose"), is_s = lf__ox_rw_is(&g->nodes[i], "Slice");
    lf__ox_slice sl;
    int32_t sa = 0;
    int32_t y = g->nodes[i].out[0], R = g->values[y].rank;
    int64_t od[LF__OX_MAX_RANK];
    memcpy(od, g->values[y].dims, sizeof od);
    int32_t run[LF__OX_MAX_RANK]; /* run[a]: index of the merged axis holding axis a */
    int32_t G = 0;
    int64_t perm[LF__OX_MAX_RANK], gperm[LF__OX_MAX_RANK];
    int32_t keep[LF__OX_MAX_RANK];
    int32_t x0 = g->nodes[i].in[0];
    if (is_t) {
        int32_t cnt;
        if (lf__ox_int_list(g, &g->nodes[i], "perm", -1, perm, LF__OX_MAX_RANK, &cnt) != 1)
            for (cnt = 0; cnt < R; cnt++)
                perm[cnt] = R - 1 - cnt;
        if (!lf__is_perm(perm, cnt, R))
            return LF_OK;
        const int64_t *xd = g->values[x0].dims;
        /* input axes of size 1 dropped; then runs of input axes that stay adjacent */
        int32_t inv[LF__OX_MAX_RANK];
        for (int32_t k = 0; k < R; k++)
            inv[perm[k]] = k;
        int32_t prev = -1;
        for (int32_t j = 0; j < R; j++) {
            keep[j] = xd[j] != 1;
            if (!keep[j]) {
                run[j] = -1;
                continue;
            }
            /* j continues the run of prev when prev's output position is followed by j's
             * (ignoring the dropped axes in between) */
            int joined = 0;
            if (prev >= 0) {
                int32_t k = inv[prev] + 1;
                while (k < R && xd[perm[k]] == 1)
                    k++;
                joined = k < R && perm[k] == j;
            }
            run[j] = joined ? run[prev] : G++;
            prev = j;
        }
        /* the permutation of runs, in output order */
        int32_t ng = 0, last = -1;
        for (int32_t k = 0; k < R; k++) {
            int32_t rr = run[perm[k]];
            if (rr >= 0 && rr != last)
                gperm[ng++] = rr;
            if (rr >= 0)
                last = rr;
        }
        (void)ng;
    } else if (is_s) {
        /* the sliced axis alone, the axes before it and after it merged */
        if (lf__ox_slice_params(g, i, &sl) != LF_OK)
            return LF_OK;
        sa = -1;
        for (int32_t a = 0; a < R; a++)
            if (sl.start[a] != 0 || sl.step[a] != 1 || sl.len[a] != g->values[x0].dims[a]) {
                if (sa >= 0 || sl.step[a] < 1)
                    return LF_OK;
                sa = a;
            }
        if (sa < 0)
            sa = 0;
        for (int32_t a = 0; a < R; a++) {
            run[a] = a == 0 ? G++ : (a == sa || a == sa + 1) ? G++ : run[a - 1];
            keep[a] = 1;
        }
    } else {
        for (int32_t a = 0; a < R; a++) {
            int merge = a > 0;
            for (int32_t k = 0; merge && k < g->nodes[i].n_in; k++) {
                int32_t v = g->nodes[i].in[k];
                if (v < 0 || (k == 1 && lf__ox_rw_is(&g->nodes[i], "Expand")))
                    continue;
                const lf__ox_value *x = &g->values[v];
                int32_t off = R - x->rank;
                if (off < 0)
                    return LF_OK;
                int64_t da = a - 1 - off >= 0 ? x->dims[a - 1 - off] : 1, db = a - off >= 0 ? x->dims[a - off] : 1;
                merge = (da == od[a - 1] && db == od[a]) || (da == 1 && db == 1) || od[a - 1] == 1 || od[a] == 1;
            }
            run[a] = merge ? run[a - 1] : G++;
            keep[a] = 1;
        }
    }
    if (G > 4 && is_t) { /* more runs than rank 4 holds: block swaps (onnx_rewrite_swaps.c) */
        int64_t size[LF__OX_MAX_RANK];
        for (int32_t q = 0; q < G; q++)
            size[q] = 1;
        for (int32_t j = 0; j < R; j++)
            if (keep[j])
                size[run[j]] *= g->values[x0].dims[j];
        return lf__ox_transpose_by_swaps(g, i, size, gperm, G);
    }
    if (G > 4)
        return LF_OK;
    /* Transposes of fewer than three runs: a rank-3 [1, a, b] transpose, or a view;
     * element-wise ops at rank 3 at least, so that tokens stay on H (docs/ir.md). */
    int pad = is_t ? G == 2 && gperm[0] == 1 : G < 3 ? 3 - G : 0;
    if (is_t && G <= 2 && !pad) {
        g->nodes[i].op = "Reshape";
        g->nodes[i].n_in = 1;
        g->nodes[i].n_attr = 0;
        lf__ox_note(g, LF_ONNX_RANK_VIEWS, i, "Transpose of rank %d that moves no data is a view", (int)R);
        return LF_OK;
    }
    /* Inputs at the merged rank. */
    int32_t GR = G + pad;
    for (int32_t k = 0; k < g->nodes[i].n_in; k++) {
        int32_t v = g->nodes[i].in[k];
        int64_t md[LF__OX_MAX_RANK];
        if (v < 0 || (is_s && k > 0))
            continue;
        for (int32_t q = 0; q < GR; q++)
            md[q] = 1;
        if (k == 1 && lf__ox_rw_is(&g->nodes[i], "Expand")) {
            for (int32_t a = 0; a < R; a++)
                md[pad + run[a]] *= od[a];
            lf__ox_data d;
            int64_t len = GR;
            lf_status st = lf__ox_data_alloc(g, &d, 1, 1, &len);
            if (st != LF_OK)
                return st;
            memcpy(d.i, md, (size_t)GR * sizeof *md);
            int32_t c = lf__new_like(g, v, "merged", &len, 1);
            if (c < 0) {
                lf__ox_data_free(&d);
                return (lf_status)c;
            }
            g->values[c].is_const = 1;
            if ((st = lf__ox_set_const(g, c, &d)) != LF_OK)
                return st;
            g->nodes[i].in[k] = c;
            continue;
        }
        const lf__ox_value *x = &g->values[v];
        int32_t off = is_t ? 0 : R - x->rank;
        for (int32_t a = off; a < R; a++)
            if (keep[a])
                md[pad + run[a]] *= x->dims[a - off];
        int32_t nv = lf__view_of(g, v, md, GR);
        if (nv < 0)
            return (lf_status)nv;
        g->nodes[i].in[k] = nv;
    }
    /* The output at the merged rank, viewed back as the file's value. */
    int64_t md[LF__OX_MAX_RANK];
    for (int32_t q = 0; q < GR; q++)
        md[q] = 1;
    if (is_t) {
        const int64_t *xd = g->values[x0].dims;
        int64_t gd[LF__OX_MAX_RANK];
        for (int32_t q = 0; q < G; q++)
            gd[q] = 1;
        for (int32_t a = 0; a < R; a++)
            if (keep[a])
                gd[run[a]] *= xd[a];
        for (int32_t q = 0; q < G; q++)
            md[pad + q] = gd[gperm[q]];
        int64_t np[LF__OX_MAX_RANK];
        for (int32_t q = 0; q < GR; q++)
            np[q] = q < pad ? q : pad + gperm[q - pad];
        lf_status st = lf__ox_rw_set_ints(g, &g->nodes[i], "perm", np, GR);
        if (st != LF_OK)
            return st;
    } else {
        for (int32_t a = 0; a < R; a++)
            md[pad + run[a]] *= od[a];
    }
    if (is_s) { /* the one sliced axis, in attributes */
        int64_t b = sl.start[sa], e = sl.start[sa] + (sl.len[sa] - 1) * sl.step[sa] + 1, ax = pad + run[sa],
                st_ = sl.step[sa];
        lf_status st;
        g->nodes[i].n_in = 1;
        if ((st = lf__ox_rw_set_ints(g, &g->nodes[i], "starts", &b, 1)) != LF_OK ||
            (st = lf__ox_rw_set_ints(g, &g->nodes[i], "ends", &e, 1)) != LF_OK ||
            (st = lf__ox_rw_set_ints(g, &g->nodes[i], "axes", &ax, 1)) != LF_OK ||
            (st = lf__ox_rw_set_ints(g, &g->nodes[i], "steps", &st_, 1)) != LF_OK)
            return st;
    }
    int32_t ny = lf__new_like(g, y, "merged", md, GR);
    if (ny < 0)
        return (lf_status)ny;
    char name[300];
    snprintf(name, sizeof name, "%.240s/view", g->nodes[i].name);
    int32_t r = lf__ox_add_node(g, name, "Reshape", &ny, 1, &y, 1);
    if (r < 0)
        return (lf_status)r;
    g->nodes[i].out[0] = ny;
    g->values[ny].producer = i;
    g->values[y].producer = r;
    lf__ox_note(g, LF_ONNX_RANK_VIEWS, i, "rank %d computed at rank %d (adjacent axes merged)", (int)R, (int)GR);
    return LF_OK;
}

/* A Slice of a Transpose of rank above 4 (Swin's q, k, v = qkv.permute(2, 0, 3, 1, 4)[0..2], as
 * Gathers the gather-slice rewrite made Slices) is the Transpose of a Slice along the axis the
 * permutation takes there; the sliced axis then has size 1 and drops out of the Transpose. */
static lf_status lf__slice_through_transpose(lf__ox_graph *g)
{
    int32_t n0 = g->n_nodes;
    for (int32_t i = 0; i < n0; i++) {
        int32_t t = lf__ox_rw_is(&g->nodes[i], "Slice") ? lf__ox_rw_producer(g, g->nodes[i].in[0]) : -1;
        if (t < 0 || !lf__ox_rw_is(&g->nodes[t], "Transpose") || g->values[g->nodes[t].out[0]].rank <= 4)
            continue;
        int32_t x = g->nodes[t].in[0], R = g->values[x].rank, cnt, a = -1;
        int64_t perm[LF__OX_MAX_RANK];
        if (lf__ox_int_list(g, &g->nodes[t], "perm", -1, perm, LF__OX_MAX_RANK, &cnt) != 1)
            for (cnt = 0; cnt < R; cnt++)
                perm[cnt] = R - 1 - cnt;
        lf__ox_slice sl;
        if (!lf__is_perm(perm, cnt, R) || lf__ox_slice_params(g, i, &sl) != LF_OK)
            continue;
        for (int32_t q = 0; q < R && a != -2; q++)
            if (sl.start[q] != 0 || sl.step[q] != 1 || sl.len[q] != g->values[g->nodes[t].out[0]].dims[q])
                a = a == -1 && sl.step[q] >= 1 ? q : -2;
        if (a < 0)
            continue;
        int64_t dims[LF__OX_MAX_RANK];
        memcpy(dims, g->values[x].dims, sizeof dims);
        dims[perm[a]] = sl.len[a];
        char name[300];
        snprintf(name, sizeof name, "%.240s/first", g->nodes[i].name);
        int32_t sx = lf__ox_rw_value(g, name, g->values[x].elem_type, R, dims);
        int32_t id = sx < 0 ? sx : lf__ox_add_node(g, name, "Slice", &x, 1, &sx, 1);
        if (id < 0)
            return (lf_status)id;
        g->values[sx].producer = id;
        int64_t b = sl.start[a], e = sl.start[a] + (sl.len[a] - 1) * sl.step[a] + 1, ax = perm[a], step = sl.step[a];
        lf_status st;
        if ((st = lf__ox_rw_set_ints(g, &g->nodes[id], "starts", &b, 1)) != LF_OK ||
            (st = lf__ox_rw_set_ints(g, &g->nodes[id], "ends", &e, 1)) != LF_OK ||
            (st = lf__ox_rw_set_ints(g, &g->nodes[id], "axes", &ax, 1)) != LF_OK ||
            (st = lf__ox_rw_set_ints(g, &g->nodes[id], "steps", &step, 1)) != LF_OK)
            return st;
        lf__ox_node *n = &g->nodes[i];
        n->op = "Transpose";
        n->in[0] = sx;
        n->n_in = 1;
        n->n_attr = 0;
        if ((st = lf__ox_rw_set_ints(g, n, "perm", perm, R)) != LF_OK)
            return st;
        lf__ox_note(g, LF_ONNX_RANK_VIEWS, i, "Slice of a Transpose of rank %d is a Transpose of a Slice", (int)R);
        if (lf__ox_rw_sole_reader(g, g->nodes[t].out[0]) < 0 && !g->values[g->nodes[t].out[0]].is_output) {
            int read = 0;
            for (int32_t j = 0; j < g->n_nodes && !read; j++)
                for (int32_t k = 0; !g->nodes[j].dead && k < g->nodes[j].n_in; k++)
                    read |= g->nodes[j].in[k] == g->nodes[t].out[0];
            g->nodes[t].dead = !read;
        }
    }
    return LF_OK;
}

lf_status lf__ox_rewrite_rank(lf__ox_graph *g)
{
    lf_status st0 = lf__slice_through_transpose(g);
    if (st0 != LF_OK)
        return st0;
    int32_t n0 = g->n_nodes;
    for (int32_t i = 0; i < n0; i++) {
        lf__ox_node *n = &g->nodes[i];
        if (n->dead || n->n_out < 1 || n->out[0] < 0 ||
            (!lf__is_elementwise(n) && !lf__ox_rw_is(n, "Transpose") && !lf__ox_rw_is(n, "Slice")))
            continue;
        int high = g->values[n->out[0]].rank > 4;
        for (int32_t k = 0; k < n->n_in; k++)
            high |= n->in[k] >= 0 && g->values[n->in[k]].rank > 4;
        lf_status st;
        if (high && (st = lf__lower_rank(g, i)) != LF_OK)
            return st;
    }
    /* Views of views through a value of rank above 4 read the first view's input. */
    for (int32_t i = 0; i < g->n_nodes; i++) {
        lf__ox_node *n = &g->nodes[i];
        if (!lf__is_view(n))
            continue;
        for (int32_t p; (p = lf__ox_rw_producer(g, n->in[0])) >= 0 && lf__is_view(&g->nodes[p]) &&
                        g->values[n->in[0]].rank > 4;) {
            n->in[0] = g->nodes[p].in[0];
            n->n_in = 1; /* the target is the output's shape, known */
        }
    }
    /* Views to rank above 4 that nothing reads any more. */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int32_t i = 0; i < g->n_nodes; i++) {
            lf__ox_node *n = &g->nodes[i];
            int32_t y = n->n_out ? n->out[0] : -1;
            if (!lf__is_view(n) || y < 0 || g->values[y].rank <= 4 || g->values[y].is_output)
                continue;
            int read = 0;
            for (int32_t j = 0; j < g->n_nodes && !read; j++)
                for (int32_t k = 0; !g->nodes[j].dead && k < g->nodes[j].n_in; k++)
                    read |= g->nodes[j].in[k] == y;
            if (!read) {
                n->dead = 1;
                changed = 1;
            }
        }
    }
    return LF_OK;
}

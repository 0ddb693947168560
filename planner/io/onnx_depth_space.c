/* DepthToSpace and SpaceToDepth: their shape rule and their rewrite into the
 * Reshape (rank 6), Transpose, Reshape that define them in the ONNX
 * specification; the `rank-views` rewrite then computes the rank-6
 * Transpose at rank 4 (onnx_rewrite_rank.c, onnx_rewrite_swaps.c).
 *
 *   DepthToSpace DCR: [N, b, b, C/b², H, W] perm (0, 3, 4, 1, 5, 2)
 *   DepthToSpace CRD: [N, C/b², b, b, H, W] perm (0, 1, 4, 2, 5, 3)
 *                     (torch's PixelShuffle)
 *   SpaceToDepth:     [N, C, H/b, b, W/b, b] perm (0, 3, 5, 1, 2, 4) */
#include <stdio.h>
#include <string.h>

#include "planner/io/onnx_infer.h"
#include "planner/io/onnx_ops.h"
#include "planner/io/onnx_rewrite.h"

static int lf__d2s(const lf__ox_node *n) { return strcmp(n->op, "DepthToSpace") == 0; }

lf_status lf__ox_depth_space_shape(lf__ox_graph *g, int32_t i)
{
    const lf__ox_node *n = &g->nodes[i];
    const lf__ox_value *x = &g->values[n->in[0]];
    int64_t b = lf__ox_attr_int(n, "blocksize", 0);
    if (x->rank != 4)
        return lf__ox_fail(g, i, LF_EGRAPH, "input of rank %d (4)", (int)x->rank);
    if (b < 1 || b > 4096)
        return lf__ox_fail(g, i, LF_EGRAPH, "blocksize %lld", (long long)b);
    const char *mode = lf__ox_attr_str(n, "mode", "DCR");
    if (lf__d2s(n) && strcmp(mode, "DCR") != 0 && strcmp(mode, "CRD") != 0)
        return lf__ox_fail(g, i, LF_EGRAPH, "mode '%.40s' (DCR or CRD)", mode);
    int64_t d[4] = {x->dims[0], x->dims[1], x->dims[2], x->dims[3]};
    if (lf__d2s(n)) {
        if (d[1] % (b * b))
            return lf__ox_fail(g, i, LF_EGRAPH, "%lld channels are not a multiple of blocksize² %lld",
                               (long long)d[1], (long long)(b * b));
        d[1] /= b * b;
        d[2] *= b;
        d[3] *= b;
    } else {
        if (d[2] % b || d[3] % b)
            return lf__ox_fail(g, i, LF_EGRAPH, "H and W are not multiples of blocksize %lld", (long long)b);
        d[1] *= b * b;
        d[2] /= b;
        d[3] /= b;
    }
    lf__ox_value *y = &g->values[n->out[0]];
    y->rank = 4;
    memcpy(y->dims, d, sizeof d);
    y->elem_type = x->elem_type ? x->elem_type : LF__OX_FLOAT;
    return LF_OK;
}

static lf_status lf__rewrite(lf__ox_graph *g, int32_t i)
{
    const lf__ox_node *n = &g->nodes[i];
    int32_t x = n->in[0];
    int64_t b = lf__ox_attr_int(n, "blocksize", 1), N = g->values[x].dims[0], C = g->values[x].dims[1];
    int64_t H = g->values[x].dims[2], W = g->values[x].dims[3];
    int crd = strcmp(lf__ox_attr_str(n, "mode", "DCR"), "CRD") == 0, d2s = lf__d2s(n);
    int64_t v6[6], t6[6], perm[6];
    if (d2s && !crd) {
        int64_t v[6] = {N, b, b, C / (b * b), H, W}, p[6] = {0, 3, 4, 1, 5, 2};
        memcpy(v6, v, sizeof v6);
        memcpy(perm, p, sizeof perm);
    } else if (d2s) {
        int64_t v[6] = {N, C / (b * b), b, b, H, W}, p[6] = {0, 1, 4, 2, 5, 3};
        memcpy(v6, v, sizeof v6);
        memcpy(perm, p, sizeof perm);
    } else {
        int64_t v[6] = {N, C, H / b, b, W / b, b}, p[6] = {0, 3, 5, 1, 2, 4};
        memcpy(v6, v, sizeof v6);
        memcpy(perm, p, sizeof perm);
    }
    for (int32_t q = 0; q < 6; q++)
        t6[q] = v6[perm[q]];
    char name[300];
    snprintf(name, sizeof name, "%.240s/view6", n->name);
    int32_t v = lf__ox_rw_node(g, name, "Reshape", &x, 1, 6, v6);
    snprintf(name, sizeof name, "%.240s/permute", g->nodes[i].name);
    int32_t t = v < 0 ? v : lf__ox_rw_node(g, name, "Transpose", &v, 1, 6, t6);
    lf_status st;
    if (t < 0 || (st = lf__ox_rw_set_ints(g, &g->nodes[g->values[t].producer], "perm", perm, 6)) != LF_OK)
        return t < 0 ? (lf_status)t : st;
    if ((st = lf__ox_rw_set_inputs(g, &g->nodes[i], &t, 1)) != LF_OK)
        return st;
    const char *what = d2s ? (crd ? "DepthToSpace (CRD)" : "DepthToSpace (DCR)") : "SpaceToDepth";
    g->nodes[i].op = "Reshape";
    g->nodes[i].n_attr = 0;
    lf__ox_note(g, LF_ONNX_FOLD_CONSTANTS, i, "%s with blocksize %lld is Reshape, Transpose (rank 6), Reshape",
                what, (long long)b);
    return LF_OK;
}

lf_status lf__ox_rewrite_depth_space(lf__ox_graph *g)
{
    int32_t n0 = g->n_nodes;
    for (int32_t i = 0; i < n0; i++) {
        const lf__ox_node *n = &g->nodes[i];
        if (n->dead || (strcmp(n->op, "DepthToSpace") != 0 && strcmp(n->op, "SpaceToDepth") != 0))
            continue;
        lf_status st = lf__rewrite(g, i);
        if (st != LF_OK)
            return st;
    }
    return LF_OK;
}

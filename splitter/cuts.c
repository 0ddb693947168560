/* Candidate cuts from proposed edges: prefix/suffix splits by topological
 * position, the cut being every edge spanning the position (so skip
 * connections come along), sides split into weakly connected parts. See
 * splitter/cuts.h. */
#include "splitter/cuts.h"

#include <stdlib.h>
#include <string.h>

void lf_cut_set_destroy(lf_cut_set *cs)
{
    free(cs->members);
    free(cs->eu);
    free(cs->ev);
    free(cs->cuts);
    free(cs->labels_);
    free(cs->work_);
    memset(cs, 0, sizeof *cs);
}

static int32_t lf__find(int32_t *uf, int32_t a)
{
    while (uf[a] != a) {
        uf[a] = uf[uf[a]]; /* path halving */
        a = uf[a];
    }
    return a;
}

int32_t lf_cut_label(lf_cut_set *cs, int32_t pos, int32_t *part_of)
{
    int32_t n = cs->n_members, *uf = cs->work_, *map = cs->work_ + n;
    for (int32_t i = 0; i < n; i++) {
        uf[i] = i;
        map[i] = -1;
    }
    for (int32_t e = 0; e < cs->n_edges; e++) {
        int32_t a = cs->eu[e], b = cs->ev[e];
        if (a <= pos && pos < b)
            continue; /* cut */
        a = lf__find(uf, a);
        b = lf__find(uf, b);
        if (a != b)
            uf[a > b ? a : b] = a < b ? a : b;
    }
    /* Numbering parts in order of their first member (ascending op id)
     * numbers them by their smallest op id, the order split results use. */
    int32_t parts = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t r = lf__find(uf, i);
        if (map[r] < 0)
            map[r] = parts++;
        part_of[i] = map[r];
    }
    return parts;
}

lf_status lf_cut_set_build(lf_cut_set *cs, const lf_graph *g, const lf_bitset *group,
                           const lf_edge_score *edges, int32_t n_edges)
{
    memset(cs, 0, sizeof *cs);
    int32_t n = lf_bitset_count(group);
    int32_t ne = lf_group_edge_count(g, group);
    cs->members = malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    cs->eu = malloc((size_t)(ne > 0 ? ne : 1) * sizeof(int32_t));
    cs->ev = malloc((size_t)(ne > 0 ? ne : 1) * sizeof(int32_t));
    cs->work_ = malloc((size_t)(2 * n + 1) * sizeof(int32_t));
    int32_t *pos_of = malloc((size_t)g->n_ops * sizeof(int32_t));
    /* first[p]: index of the best-ranked proposed edge spanning p, or -1. */
    int32_t *first = malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    lf_status st = LF_OK;
    if (!cs->members || !cs->eu || !cs->ev || !cs->work_ || !pos_of || !first) {
        st = lf_set_error(LF_ENOMEM, "out of memory building the cuts of a group of %d ops", (int)n);
        goto done;
    }
    cs->n_members = lf_bitset_to_list(group, cs->members);
    for (int32_t i = 0; i < n; i++) {
        pos_of[cs->members[i]] = i;
        first[i] = -1;
    }
    for (int32_t i = 0; i < n; i++) {
        const lf_op *op = &g->ops[cs->members[i]];
        for (int32_t c = 0; c < op->n_consumers; c++)
            if (lf_bitset_test(group, op->consumers[c])) {
                cs->eu[cs->n_edges] = i;
                cs->ev[cs->n_edges] = pos_of[op->consumers[c]];
                cs->n_edges++;
            }
    }
    /* Positions covered by the proposed edges; an edge ranked earlier keeps
     * its claim on a position, so each cut remembers the best edge behind it. */
    int32_t n_cuts = 0;
    for (int32_t k = 0; k < n_edges; k++) {
        int32_t u = edges[k].u, v = edges[k].v;
        if (u < 0 || v < 0 || u >= g->n_ops || v >= g->n_ops || !lf_bitset_test(group, u) ||
            !lf_bitset_test(group, v) || pos_of[u] >= pos_of[v]) {
            st = lf_set_error(LF_EINVAL, "proposed edge %d -> %d does not lie in the group",
                              (int)u, (int)v);
            goto done;
        }
        for (int32_t p = pos_of[u]; p < pos_of[v]; p++)
            if (first[p] < 0) {
                first[p] = k;
                n_cuts++;
            }
    }
    cs->cuts = calloc((size_t)(n_cuts > 0 ? n_cuts : 1), sizeof *cs->cuts);
    cs->labels_ = malloc((size_t)(n_cuts > 0 ? n_cuts : 1) * (size_t)(n > 0 ? n : 1) *
                         sizeof(int32_t));
    if (!cs->cuts || !cs->labels_) {
        st = lf_set_error(LF_ENOMEM, "out of memory for %d cuts of a group of %d ops", (int)n_cuts,
                          (int)n);
        goto done;
    }
    for (int32_t p = 0; p < n; p++) {
        if (first[p] < 0)
            continue;
        lf_cut *c = &cs->cuts[cs->n_cuts];
        c->pos = p;
        c->edge = first[p];
        c->part_of = cs->labels_ + (size_t)cs->n_cuts * (size_t)n;
        c->n_parts = lf_cut_label(cs, p, c->part_of);
        for (int32_t e = 0; e < cs->n_edges; e++)
            c->n_cut += cs->eu[e] <= p && p < cs->ev[e];
        cs->n_cuts++;
    }
done:
    free(pos_of);
    free(first);
    return st;
}

void lf_cut_part(const lf_cut_set *cs, int32_t c, int32_t part, lf_bitset *out)
{
    lf_bitset_clear_all(out);
    const int32_t *lab = cs->cuts[c].part_of;
    for (int32_t i = 0; i < cs->n_members; i++)
        if (lab[i] == part)
            lf_bitset_set(out, cs->members[i]);
}

/* Genomes: the edge map, plan <-> genome, and the raw groups of a genome
 * (components of fused edges) with the decoder's group bookkeeping that
 * decoding (decoder.c) and the cycle repair (repair.c) share. */
#include "search/partition/genome.h"

#include <stdlib.h>
#include <string.h>

lf_status lf_genome_map_init(lf_genome_map *m, lf_cost_model *cm)
{
    const lf_graph *g = lf_cost_graph(cm);
    memset(m, 0, sizeof *m);
    m->n_ops = g->n_ops;
    int32_t cap = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        cap += g->ops[v].n_inputs;
    m->eu = malloc((size_t)(cap + 1) * sizeof(int32_t));
    m->ev = malloc((size_t)(cap + 1) * sizeof(int32_t));
    m->adj_start = calloc((size_t)g->n_ops + 1, sizeof(int32_t));
    m->adj = malloc((size_t)(2 * cap + 1) * sizeof(int32_t));
    if (!m->eu || !m->ev || !m->adj_start || !m->adj) {
        lf_genome_map_destroy(m);
        return lf_set_error(LF_ENOMEM, "out of memory for the genome of '%s'", g->name);
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        const lf_op *op = &g->ops[v];
        if (op->type == LF_OP_INPUT || !lf_cost_fusable(cm, v))
            continue;
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t u = op->inputs[j], dup = 0;
            for (int32_t q = 0; q < j; q++)
                dup |= op->inputs[q] == u;
            if (dup || g->ops[u].type == LF_OP_INPUT || !lf_cost_fusable(cm, u))
                continue;
            m->eu[m->n_edges] = u;
            m->ev[m->n_edges] = v;
            m->adj_start[u + 1]++;
            m->adj_start[v + 1]++;
            m->n_edges++;
        }
    }
    for (int32_t v = 0; v < g->n_ops; v++)
        m->adj_start[v + 1] += m->adj_start[v];
    for (int32_t e = 0; e < m->n_edges; e++) {
        m->adj[m->adj_start[m->eu[e]]++] = e;
        m->adj[m->adj_start[m->ev[e]]++] = e;
    }
    for (int32_t v = g->n_ops; v > 0; v--)
        m->adj_start[v] = m->adj_start[v - 1];
    m->adj_start[0] = 0;
    return LF_OK;
}

void lf_genome_map_destroy(lf_genome_map *m)
{
    free(m->eu);
    free(m->ev);
    free(m->adj_start);
    free(m->adj);
    memset(m, 0, sizeof *m);
}

void lf_genome_from_groups(const lf_genome_map *m, const int32_t *group_of, uint8_t *genome)
{
    for (int32_t e = 0; e < m->n_edges; e++) {
        int32_t a = group_of[m->eu[e]];
        genome[e] = (uint8_t)(a >= 0 && a == group_of[m->ev[e]]);
    }
}

void lf_genome_from_plan(const lf_genome_map *m, const lf_plan *p, uint8_t *genome)
{
    lf_genome_from_groups(m, p->group_of, genome);
}

static int32_t lf__find(int32_t *uf, int32_t v)
{
    while (uf[v] != v) {
        uf[v] = uf[uf[v]]; /* path halving */
        v = uf[v];
    }
    return v;
}

/* Components of the fused edges into gof (canonical ids: in order of each
 * group's smallest op); returns the group count. uf is n ints of scratch. */
static int32_t lf__components(const lf_genome_map *m, const lf_graph *g, const uint8_t *genome,
                              int32_t *uf, int32_t *gof)
{
    int32_t n = g->n_ops, ng = 0;
    for (int32_t v = 0; v < n; v++)
        uf[v] = v;
    for (int32_t e = 0; e < m->n_edges; e++) {
        if (!genome[e])
            continue;
        int32_t a = lf__find(uf, m->eu[e]), b = lf__find(uf, m->ev[e]);
        /* The smaller op becomes the root, so a root is its group's first op
         * and the numbering below needs no second map. */
        if (a < b)
            uf[b] = a;
        else if (b < a)
            uf[a] = b;
    }
    for (int32_t v = 0; v < n; v++) {
        if (g->ops[v].type == LF_OP_INPUT) {
            gof[v] = -1;
            continue;
        }
        int32_t r = lf__find(uf, v);
        gof[v] = r == v ? ng++ : gof[r]; /* r < v was numbered already */
    }
    return ng;
}

lf_status lf_genome_groups(const lf_genome_map *m, const lf_graph *g, const uint8_t *genome,
                           lf_plan *out)
{
    if (out->n_ops != g->n_ops || m->n_ops != g->n_ops)
        return lf_set_error(LF_EINVAL, "plan of %d ops for a graph of %d ops", (int)out->n_ops,
                            (int)g->n_ops);
    int32_t *uf = malloc((size_t)(g->n_ops + 1) * sizeof(int32_t));
    if (!uf)
        return lf_set_error(LF_ENOMEM, "out of memory for the groups of a genome");
    out->n_groups = lf__components(m, g, genome, uf, out->group_of);
    free(uf);
    return LF_OK;
}

void lf__decoder_components(lf_decoder *d)
{
    d->ng = lf__components(d->m, d->g, d->bits, d->uf, d->gof);
}

void lf__decoder_relabel(lf_decoder *d)
{
    int32_t *map = d->uf, next = 0;
    for (int32_t k = 0; k < d->ng; k++)
        map[k] = -1;
    for (int32_t v = 0; v < d->n; v++) {
        int32_t k = d->gof[v];
        if (k < 0)
            continue;
        if (map[k] < 0)
            map[k] = next++;
        d->gof[v] = map[k];
    }
    d->ng = next;
}

void lf__decoder_members(lf_decoder *d)
{
    for (int32_t k = 0; k <= d->ng; k++)
        d->gstart[k] = 0;
    for (int32_t v = 0; v < d->n; v++)
        if (d->gof[v] >= 0)
            d->gstart[d->gof[v] + 1]++;
    for (int32_t k = 0; k < d->ng; k++)
        d->gstart[k + 1] += d->gstart[k];
    for (int32_t v = 0; v < d->n; v++)
        if (d->gof[v] >= 0)
            d->gmem[d->gstart[d->gof[v]]++] = v;
    for (int32_t k = d->ng; k > 0; k--)
        d->gstart[k] = d->gstart[k - 1];
    d->gstart[0] = 0;
}

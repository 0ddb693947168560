/* Decoding a genome into a valid plan: components, cycle repair (repair.c),
 * splits of invalid groups, until stable; the decoder's life cycle and its
 * small cache of group costs in front of the shared memo. */
#include <stdlib.h>
#include <string.h>

#include "planner/util/busy_clock.h"
#include "planner/util/clock.h"
#include "planner/cost/objective.h"
#include "search/partition/genome.h"

struct lf__cache_entry {
    uint64_t hash;  /* lf_bitset_hash of the group; the entry is used when used != 0 */
    int64_t f_d, obj, mbu;
    int32_t valid, used;
};

lf_status lf_decoder_create(lf_decoder **out, lf_cost_model *cm, const lf_genome_map *m,
                            const lf_splitter *splitter, uint64_t seed)
{
    const lf_graph *g = lf_cost_graph(cm);
    *out = NULL;
    if (m->n_ops != g->n_ops)
        return lf_set_error(LF_EINVAL, "genome map of %d ops for graph '%s' of %d ops",
                            (int)m->n_ops, g->name, (int)g->n_ops);
    lf_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return lf_set_error(LF_ENOMEM, "out of memory for a genome decoder");
    d->cm = cm;
    d->g = g;
    d->m = m;
    d->sp = splitter ? splitter : lf_splitter_random();
    d->seed = seed;
    d->n = g->n_ops;
    /* Group ids run up to twice the op count between relabellings (a split
     * group's old id stays unused until then), so per-group arrays get 2n. */
    size_t n = (size_t)d->n + 1, n2 = 2 * n, arcs = 1;
    for (int32_t v = 0; v < g->n_ops; v++)
        arcs += (size_t)g->ops[v].n_inputs;
    d->gof = malloc(n * sizeof(int32_t));
    d->bits = malloc((size_t)m->n_edges + 1);
    d->uf = malloc(n2 * sizeof(int32_t));
    d->gstart = malloc((n + 1) * sizeof(int32_t));
    d->gmem = malloc(n * sizeof(int32_t));
    d->qstart = malloc((n + 1) * sizeof(int32_t));
    d->qsucc = malloc(arcs * sizeof(int32_t));
    d->comp = malloc(n * sizeof(int32_t));
    d->csize = malloc(n * sizeof(int32_t));
    d->work = malloc(5 * n * sizeof(int32_t));
    d->cut_at = malloc(n2 * sizeof(int32_t));
    d->seen_exit = malloc(n2 * sizeof(int32_t));
    d->fresh = malloc(n2 * sizeof(int32_t));
    d->best = malloc(n2 * sizeof(int32_t));
    lf_status st = LF_OK;
    if (!d->gof || !d->bits || !d->uf || !d->gstart || !d->gmem || !d->qstart || !d->qsucc ||
        !d->comp || !d->csize || !d->work || !d->cut_at || !d->seen_exit || !d->fresh || !d->best)
        st = lf_set_error(LF_ENOMEM, "out of memory for a genome decoder");
    if (st == LF_OK)
        st = lf_bitset_init(&d->scratch, d->n);
    if (st == LF_OK)
        st = lf_split_result_init(&d->split, d->n);
    if (st == LF_OK) {
        /* About eight entries per op (a plan's groups and those of the
         * plans around it), a power of two between 512 and 8192. */
        int32_t entries = 512;
        while (entries < 8 * d->n && entries < 8192)
            entries *= 2;
        d->cache_mask = entries - 1;
        d->cache = calloc((size_t)entries, sizeof *d->cache);
        d->cache_words = malloc((size_t)entries * (size_t)d->scratch.nwords * sizeof(uint64_t) + 8);
        if (!d->cache || !d->cache_words)
            st = lf_set_error(LF_ENOMEM, "out of memory for a genome decoder");
    }
    if (st != LF_OK) {
        lf_decoder_free(d);
        return st;
    }
    *out = d;
    return LF_OK;
}

void lf_decoder_free(lf_decoder *d)
{
    if (!d)
        return;
    free(d->gof);
    free(d->bits);
    free(d->uf);
    free(d->gstart);
    free(d->gmem);
    free(d->qstart);
    free(d->qsucc);
    free(d->comp);
    free(d->csize);
    free(d->work);
    free(d->cut_at);
    free(d->seen_exit);
    free(d->fresh);
    free(d->best);
    free(d->cache);
    free(d->cache_words);
    lf_bitset_destroy(&d->scratch);
    lf_split_result_destroy(&d->split);
    free(d);
}

void lf_decoder_stats(const lf_decoder *d, lf_decode_stats *st) { *st = d->st; }

void lf_decoder_set_busy_clock(lf_decoder *d, lf_busy_clock *clock) { d->clock = clock; }

/* Cost of the group in d->scratch (F_D and the objective's figure): the
 * decoder's cache, else the memo. */
static lf_status lf__eval(lf_decoder *d, int64_t *f_d, int64_t *obj, int64_t *mbu, int *valid)
{
    int32_t nw = d->scratch.nwords;
    uint64_t h = lf_bitset_hash(&d->scratch);
    struct lf__cache_entry *e = &d->cache[h & (uint64_t)d->cache_mask];
    uint64_t *words = d->cache_words + (size_t)(h & (uint64_t)d->cache_mask) * (size_t)nw;
    if (e->used && e->hash == h && memcmp(words, d->scratch.words, (size_t)nw * sizeof(uint64_t)) == 0) {
        d->st.local_hits++;
        *f_d = e->f_d;
        *obj = e->obj;
        *mbu = e->mbu;
        *valid = e->valid;
        return LF_OK;
    }
    lf_group_cost c;
    lf_status st = lf_cost_eval(d->cm, &d->scratch, &c);
    if (st != LF_OK)
        return st;
    e->hash = h;
    e->f_d = *f_d = c.f_d;
    e->obj = *obj = lf_cost_objective_of(d->cm, &d->scratch, &c);
    e->mbu = *mbu = c.mbu;
    e->valid = *valid = c.valid;
    e->used = 1;
    memcpy(words, d->scratch.words, (size_t)nw * sizeof(uint64_t));
    return LF_OK;
}

/* Hands group k (members in d->scratch) to the splitter and gives its parts
 * fresh group ids. A splitter that returns fewer than two parts has given up:
 * the random split, which always succeeds, takes over. */
static lf_status lf__split_group(lf_decoder *d, int32_t k)
{
    int32_t size = d->gstart[k + 1] - d->gstart[k];
    uint64_t seed = lf_split_seed(d->seed, &d->scratch);
    double t0 = lf_now_seconds();
    if (d->clock)
        lf_busy_clock_enter(d->clock);
    lf_status st = d->sp->split(d->sp, d->cm, &d->scratch, seed, &d->split);
    d->st.split_queries += d->split.cost_queries;
    if (st == LF_OK && d->split.n_parts < 2 && d->sp != lf_splitter_random()) {
        d->st.fallbacks++;
        const lf_splitter *r = lf_splitter_random();
        st = r->split(r, d->cm, &d->scratch, seed, &d->split);
        d->split.rectified = 0;
        d->st.split_queries += d->split.cost_queries;
    }
    d->st.split_s += lf_now_seconds() - t0;
    if (d->clock)
        lf_busy_clock_leave(d->clock);
    if (st != LF_OK)
        return st;
    if (d->split.n_parts < 2)
        return lf_set_error(LF_EINVAL, "splitter '%s' left an invalid group of %d ops whole",
                            d->sp->name, (int)size);
    d->st.splits++;
    d->st.rectified += d->split.rectified != 0;
    /* Parts must partition the group: every member moves exactly once. */
    int32_t moved = 0;
    for (int32_t p = 0; p < d->split.n_parts; p++) {
        const lf_bitset *b = &d->split.parts[p];
        if (lf_bitset_is_empty(b))
            return lf_set_error(LF_EINVAL, "splitter '%s' returned an empty part", d->sp->name);
        int32_t id = d->ng++;
        for (int32_t v = lf_bitset_next(b, 0); v >= 0; v = lf_bitset_next(b, v + 1)) {
            if (v >= d->n || d->gof[v] != k)
                return lf_set_error(LF_EINVAL, "splitter '%s' returned parts that are not a "
                                               "partition of the group", d->sp->name);
            d->gof[v] = id;
            moved++;
        }
    }
    if (moved != size)
        return lf_set_error(LF_EINVAL, "splitter '%s' dropped %d ops of a group", d->sp->name,
                            (int)(size - moved));
    return LF_OK;
}

lf_status lf_genome_decode(lf_decoder *d, const uint8_t *genome, lf_plan *out, uint8_t *repaired,
                           lf_decoded *sum)
{
    if (out->n_ops != d->n)
        return lf_set_error(LF_EINVAL, "plan of %d ops for a graph of %d ops", (int)out->n_ops,
                            (int)d->n);
    lf_status st = LF_OK;
    lf_decoded s = {0, 0, 0, 0};
    if (genome != d->bits)
        memcpy(d->bits, genome, (size_t)d->m->n_edges);
    lf__decoder_components(d);
    d->st.decodes++;
    for (;;) {
        int32_t rs = 0, split_any = 0;
        lf__decoder_repair(d, &rs);
        lf__decoder_members(d);
        s.dram = s.obj = s.mbu = 0;
        s.n_groups = 0;
        int32_t ng = d->ng;
        for (int32_t k = 0; k < ng && st == LF_OK; k++) {
            const int32_t *mem = d->gmem + d->gstart[k];
            int32_t size = d->gstart[k + 1] - d->gstart[k];
            if (size == 1 && !lf_cost_fusable(d->cm, mem[0]))
                continue;
            int64_t f_d = 0, obj = 0, mbu = 0;
            int valid = 0;
            for (int32_t i = 0; i < size; i++)
                lf_bitset_set(&d->scratch, mem[i]);
            st = lf__eval(d, &f_d, &obj, &mbu, &valid);
            if (st == LF_OK && !valid) {
                d->st.invalid_groups++;
                st = lf__split_group(d, k);
                split_any = 1;
            } else if (st == LF_OK) {
                s.dram += f_d;
                s.obj += obj;
                s.mbu = mbu > s.mbu ? mbu : s.mbu;
                s.n_groups++;
            }
            for (int32_t i = 0; i < size; i++)
                lf_bitset_reset(&d->scratch, mem[i]);
        }
        if (st != LF_OK)
            return st;
        if (!split_any)
            break;
        /* Parts are connected and valid, but they may close new cycles
         * through other groups: back to the repair. */
        lf__decoder_relabel(d);
    }
    memcpy(out->group_of, d->gof, (size_t)d->n * sizeof(int32_t));
    out->n_groups = d->ng;
    if (repaired)
        lf_genome_from_groups(d->m, d->gof, repaired);
    if (sum)
        *sum = s;
    return LF_OK;
}

lf_status lf_plan_repair_cycles(lf_decoder *d, lf_plan *p, int32_t *n_splits)
{
    if (p->n_ops != d->n)
        return lf_set_error(LF_EINVAL, "plan of %d ops for a graph of %d ops", (int)p->n_ops,
                            (int)d->n);
    memcpy(d->gof, p->group_of, (size_t)d->n * sizeof(int32_t));
    for (int32_t v = 0; v < d->n; v++)
        if (d->gof[v] < -1 || d->gof[v] >= d->n)
            return lf_set_error(LF_EINVAL, "op %d has group %d", (int)v, (int)d->gof[v]);
    d->ng = d->n;
    lf__decoder_relabel(d);
    int32_t rs = 0;
    lf__decoder_repair(d, &rs);
    memcpy(p->group_of, d->gof, (size_t)d->n * sizeof(int32_t));
    p->n_groups = d->ng;
    if (n_splits)
        *n_splits = rs;
    return LF_OK;
}

/* The parallel batch evaluator shared by every search algorithm: proposals
 * are drawn in order on the calling thread, decoded on the worker pool, and
 * merged into the best plan and the Pareto archive in plan order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/util/hashmap.h"
#include "search/partition/search_internal.h"

lf_status lf__propose_random(lf__search *s, void *arg, int32_t slot, lf_rng *r, lf__scratch *w,
                             uint8_t *genome)
{
    (void)arg;
    (void)slot;
    (void)w;
    double p = lf_rng_uniform(r);
    for (int32_t e = 0; e < s->n_edges; e++)
        genome[e] = (uint8_t)lf_rng_bernoulli(r, p);
    return LF_OK;
}

lf_status lf__propose_initial(lf__search *s, void *arg, int32_t slot, lf_rng *r, lf__scratch *w,
                              uint8_t *genome)
{
    if (slot < s->cfg->n_seeds) {
        /* A valid plan's groups are weakly connected, so the components of
         * its genome are its groups again. */
        lf_genome_from_groups(&s->map, s->cfg->seeds[slot].group_of, genome);
        return LF_OK;
    }
    return lf__propose_random(s, arg, slot, r, w, genome);
}

/* Keeps the archive the non-dominated set of the plans seen; among plans
 * with equal objectives the better one by lf_plan_compare stays. */
static lf_status lf__archive_add(lf__search *s, const lf__cand *x)
{
    int32_t obj = s->objectives;
    for (int32_t i = 0; i < s->n_arch; i++) {
        lf__cand *a = &s->arch[i];
        int equal = (!(obj & 1) || a->key.objective == x->key.objective) &&
                    (!(obj & 2) || a->key.n_groups == x->key.n_groups);
        if (equal) {
            if (lf__cand_compare(x, a) < 0)
                lf__cand_assign(a, x, s->n_edges);
            return LF_OK;
        }
        if (lf__dominates(a, x, obj))
            return LF_OK;
    }
    int32_t kept = 0;
    for (int32_t i = 0; i < s->n_arch; i++) {
        if (lf__dominates(x, &s->arch[i], obj)) {
            lf__cand_destroy(&s->arch[i]);
            continue;
        }
        s->arch[kept++] = s->arch[i];
    }
    s->n_arch = kept;
    if (s->n_arch == s->cap_arch) {
        int32_t cap = s->cap_arch ? 2 * s->cap_arch : 16;
        lf__cand *p = realloc(s->arch, (size_t)cap * sizeof *p);
        if (!p)
            return lf_set_error(LF_ENOMEM, "out of memory for the Pareto archive");
        s->arch = p;
        s->cap_arch = cap;
    }
    lf_status st = lf__cand_init(&s->arch[s->n_arch], s->n_ops, s->n_edges);
    if (st != LF_OK)
        return st;
    lf__cand_assign(&s->arch[s->n_arch++], x, s->n_edges);
    return LF_OK;
}

static void lf__stats_add(lf_decode_stats *a, const lf_decode_stats *b, double sign)
{
    int64_t k = sign < 0 ? -1 : 1;
    a->decodes += k * b->decodes;
    a->invalid_groups += k * b->invalid_groups;
    a->splits += k * b->splits;
    a->repair_splits += k * b->repair_splits;
    a->rectified += k * b->rectified;
    a->fallbacks += k * b->fallbacks;
    a->split_queries += k * b->split_queries;
    a->local_hits += k * b->local_hits;
    a->split_s += sign * b->split_s;
}

/* Pool callbacks. claim and keep run under the pool's lock; run touches only
 * worker w's own decoder and work area (and the thread-safe cost model and
 * splitter), which live until the search ends, so a thrown-away attempt may
 * finish after its batch. */
static void lf__batch_claim(void *ctx, int32_t item, int32_t w)
{
    lf__search *s = ctx;
    lf__work *k = &s->work[w];
    memcpy(k->genome, s->in_genomes + (size_t)item * (size_t)s->n_edges, (size_t)s->n_edges);
    k->index = s->proposed + item;
}

static void lf__batch_run(void *ctx, int32_t w)
{
    lf__search *s = ctx;
    lf__work *k = &s->work[w];
    lf__cand *c = &k->cand;
    lf_decode_stats before, after;
    lf_decoder_stats(s->dec[w], &before);
    k->st = lf_genome_decode(s->dec[w], k->genome, &c->plan, c->genome, &c->sum);
    lf_decoder_stats(s->dec[w], &after);
    k->delta = after;
    lf__stats_add(&k->delta, &before, -1.0);
    if (k->st == LF_OK) {
        c->key.dram_fusable = c->sum.dram;
        c->key.objective = c->sum.obj;
        c->key.n_groups = c->sum.n_groups;
        /* A valid plan and its repaired genome determine each other, and
         * the genome is the shorter of the two to hash. */
        c->hash = lf_hash_bytes(c->genome, (size_t)s->n_edges, 0);
        c->index = k->index;
    } else {
        /* Messages are thread-local: keep this one for the caller's thread. */
        snprintf(k->msg, sizeof k->msg, "%s", lf_last_error());
    }
}

static void lf__batch_keep(void *ctx, int32_t item, int32_t w)
{
    lf__search *s = ctx;
    lf__work *k = &s->work[w];
    /* Swap, not copy: the kept plan's buffers go to the batch, the batch
     * slot's old ones become the worker's next scratch. */
    lf__cand tmp = s->batch_out[item];
    s->batch_out[item] = k->cand;
    k->cand = tmp;
    lf__stats_add(&s->stats, &k->delta, 1.0);
    if (k->st != LF_OK && (s->fail_index < 0 || k->index < s->fail_index)) {
        s->fail_index = k->index;
        s->fail_st = k->st;
        memcpy(s->fail_msg, k->msg, sizeof s->fail_msg);
    }
}

lf_status lf__search_batch(lf__search *s, int32_t n, lf__propose_fn fn, void *arg, lf__cand *out)
{
    if (n > s->cap_in) {
        uint8_t *g = realloc(s->in_genomes, (size_t)n * (size_t)s->n_edges + 1);
        if (!g)
            return lf_set_error(LF_ENOMEM, "out of memory for a search batch");
        s->in_genomes = g;
        s->cap_in = n;
    }
    int64_t base = s->proposed;
    /* Proposals are cheap next to decoding and read the population: drawn
     * here, in order, each from its own stream. */
    for (int32_t i = 0; i < n; i++) {
        lf_rng r;
        lf_rng_seed(&r, s->cfg->seed, (uint64_t)(base + i));
        lf_status st = fn(s, arg, i, &r, &s->prop, s->in_genomes + (size_t)i * (size_t)s->n_edges);
        if (st != LF_OK)
            return st;
    }
    s->batch_out = out;
    s->fail_index = -1;
    lf_pool_job job = {s, lf__batch_claim, lf__batch_run, lf__batch_keep};
    lf_status st = lf_pool_run(s->pool, n, &job);
    s->batch_out = NULL;
    if (st == LF_OK && s->fail_index >= 0)
        st = lf_set_error(s->fail_st, "%s", s->fail_msg);
    /* Merging in index order is what makes the result independent of which
     * thread finished first. */
    for (int32_t i = 0; st == LF_OK && i < n; i++) {
        if (!s->have_best || lf__cand_compare(&out[i], &s->best) < 0) {
            lf__cand_assign(&s->best, &out[i], s->n_edges);
            s->have_best = 1;
        }
        if (s->trace && s->proposed + i < s->cfg->budget)
            s->trace[s->proposed + i] = s->best.key.objective;
        if (s->use_archive)
            st = lf__archive_add(s, &out[i]);
    }
    if (st == LF_OK) {
        char note[64];
        s->proposed += n;
        snprintf(note, sizeof note, "best %.3f MB", (double)s->best.key.dram_fusable / 1e6);
        if (s->cfg->progress && !s->cfg->quiet)
            s->cfg->progress(s->cfg->progress_user, s->cfg->algorithm, s->proposed, s->cfg->budget,
                             note);
    }
    return st;
}

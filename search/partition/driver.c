/* The partition search driver: configuration, the parallel batch evaluator
 * shared by every algorithm, best-plan and Pareto bookkeeping, and the
 * result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "planner/util/hashmap.h"
#include "search/partition/search_internal.h"

static const char *const lf__algorithms[] = {"random", "local", "nsga2", NULL};

const char *const *lf_search_algorithms(void) { return lf__algorithms; }

void lf_search_config_default(lf_search_config *c)
{
    memset(c, 0, sizeof *c);
    c->algorithm = "nsga2";
    c->budget = 1000;
    c->seed = 1;
    c->threads = 0;
    c->population = 10;
    c->mutation_rate = 0.0;
    c->objectives = 3;
    c->splitter = NULL;
    c->quiet = 0;
}

/* ---- candidates -------------------------------------------------------- */

lf_status lf__cand_init(lf__cand *c, int32_t n_ops, int32_t n_edges)
{
    memset(c, 0, sizeof *c);
    c->genome = malloc((size_t)n_edges + 1);
    if (!c->genome)
        return lf_set_error(LF_ENOMEM, "out of memory for a search candidate");
    lf_status st = lf_plan_init(&c->plan, n_ops);
    if (st != LF_OK) {
        free(c->genome);
        c->genome = NULL;
    }
    return st;
}

void lf__cand_destroy(lf__cand *c)
{
    lf_plan_destroy(&c->plan);
    free(c->genome);
    c->genome = NULL;
}

void lf__cand_assign(lf__cand *dst, const lf__cand *src, int32_t n_edges)
{
    if (dst == src)
        return;
    memcpy(dst->plan.group_of, src->plan.group_of, (size_t)src->plan.n_ops * sizeof(int32_t));
    dst->plan.n_groups = src->plan.n_groups;
    memcpy(dst->genome, src->genome, (size_t)n_edges);
    dst->sum = src->sum;
    dst->key = src->key;
    dst->hash = src->hash;
    dst->index = src->index;
}

int lf__cand_compare(const lf__cand *a, const lf__cand *b)
{
    return lf_plan_compare(&a->plan, &a->key, &b->plan, &b->key);
}

int lf__cand_same(const lf__cand *a, const lf__cand *b)
{
    return a->hash == b->hash && a->plan.n_groups == b->plan.n_groups &&
           memcmp(a->plan.group_of, b->plan.group_of, (size_t)a->plan.n_ops * sizeof(int32_t)) == 0;
}

lf_status lf__cands_alloc(lf__cand **out, int32_t n, int32_t n_ops, int32_t n_edges)
{
    lf__cand *c = calloc((size_t)(n > 0 ? n : 1), sizeof *c);
    if (!c)
        return lf_set_error(LF_ENOMEM, "out of memory for %d search candidates", (int)n);
    for (int32_t i = 0; i < n; i++) {
        lf_status st = lf__cand_init(&c[i], n_ops, n_edges);
        if (st != LF_OK) {
            lf__cands_free(c, i);
            return st;
        }
    }
    *out = c;
    return LF_OK;
}

void lf__cands_free(lf__cand *c, int32_t n)
{
    if (!c)
        return;
    for (int32_t i = 0; i < n; i++)
        lf__cand_destroy(&c[i]);
    free(c);
}

int lf__dominates(const lf__cand *a, const lf__cand *b, int32_t objectives)
{
    int better = 0;
    if (objectives & 1) {
        if (a->key.dram_fusable > b->key.dram_fusable)
            return 0;
        better |= a->key.dram_fusable < b->key.dram_fusable;
    }
    if (objectives & 2) {
        if (a->key.n_groups > b->key.n_groups)
            return 0;
        better |= a->key.n_groups < b->key.n_groups;
    }
    return better;
}

/* ---- proposals and batches --------------------------------------------- */

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

/* Keeps the archive the non-dominated set of the plans seen; among plans
 * with equal objectives the better one by lf_plan_compare stays. */
static lf_status lf__archive_add(lf__search *s, const lf__cand *x)
{
    int32_t obj = s->objectives;
    for (int32_t i = 0; i < s->n_arch; i++) {
        lf__cand *a = &s->arch[i];
        int equal = (!(obj & 1) || a->key.dram_fusable == x->key.dram_fusable) &&
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
            s->trace[s->proposed + i] = s->best.key.dram_fusable;
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

/* ---- the run ----------------------------------------------------------- */

static lf_status lf__check_config(const lf_search_config *cfg)
{
    if (!cfg->algorithm)
        return lf_set_error(LF_EINVAL, "no search algorithm given (random, local, nsga2)");
    int known = 0;
    for (int i = 0; lf__algorithms[i]; i++)
        known |= strcmp(cfg->algorithm, lf__algorithms[i]) == 0;
    if (!known)
        return lf_set_error(LF_EINVAL, "unknown search algorithm '%s' (known: random, local, nsga2)",
                            cfg->algorithm);
    if (cfg->budget < 1)
        return lf_set_error(LF_EINVAL, "search budget must be at least 1 plan, got %lld",
                            (long long)cfg->budget);
    if (cfg->population < 1 || cfg->population > 100000)
        return lf_set_error(LF_EINVAL, "population must be in 1..100000, got %d",
                            (int)cfg->population);
    if (cfg->objectives < 1 || cfg->objectives > 3)
        return lf_set_error(LF_EINVAL, "objectives must be 1 (DRAM), 2 (groups) or 3 (both), got %d",
                            (int)cfg->objectives);
    if (cfg->threads < 0)
        return lf_set_error(LF_EINVAL, "threads must be >= 0, got %d", (int)cfg->threads);
    if (!(cfg->mutation_rate <= 1.0))
        return lf_set_error(LF_EINVAL, "mutation rate must be at most 1, got %g", cfg->mutation_rate);
    return LF_OK;
}

static void lf__search_destroy(lf__search *s)
{
    /* Thrown-away attempts may still be decoding: let them finish first. */
    lf_pool_free(s->pool);
    for (int32_t t = 0; s->work && t < s->nthreads; t++) {
        free(s->work[t].genome);
        lf__cand_destroy(&s->work[t].cand);
    }
    free(s->work);
    free(s->prop.genome);
    free(s->prop.ops);
    free(s->prop.aux);
    free(s->in_genomes);
    for (int32_t t = 0; s->dec && t < s->nthreads; t++)
        lf_decoder_free(s->dec[t]);
    free(s->dec);
    for (int32_t i = 0; i < s->n_arch; i++)
        lf__cand_destroy(&s->arch[i]);
    free(s->arch);
    lf__cand_destroy(&s->best);
    free(s->trace);
    lf_genome_map_destroy(&s->map);
    if (s->have_clock)
        lf_busy_clock_destroy(&s->split_clock);
}

static lf_status lf__search_init(lf__search *s, lf_cost_model *cm, const lf_search_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->cm = cm;
    s->g = lf_cost_graph(cm);
    s->cfg = cfg;
    s->objectives = cfg->objectives;
    s->nthreads = lf_pool_default_threads(cfg->threads);
    lf_status st = lf_busy_clock_init(&s->split_clock);
    if (st != LF_OK)
        return st;
    s->have_clock = 1;
    if ((st = lf_genome_map_init(&s->map, cm)) != LF_OK)
        return st;
    s->n_ops = s->g->n_ops;
    s->n_edges = s->map.n_edges;
    if ((st = lf__cand_init(&s->best, s->n_ops, s->n_edges)) != LF_OK)
        return st;
    if (cfg->trace && !(s->trace = malloc((size_t)cfg->budget * sizeof *s->trace)))
        return lf_set_error(LF_ENOMEM, "out of memory for a trace of %lld plans",
                            (long long)cfg->budget);
    s->dec = calloc((size_t)s->nthreads, sizeof *s->dec);
    s->work = calloc((size_t)s->nthreads, sizeof *s->work);
    if (!s->dec || !s->work)
        return lf_set_error(LF_ENOMEM, "out of memory for %d search threads", (int)s->nthreads);
    size_t aux = (size_t)(s->n_ops > s->n_edges ? s->n_ops : s->n_edges) + 1;
    s->prop.genome = malloc((size_t)s->n_edges + 1);
    s->prop.ops = malloc((size_t)(s->n_ops + 1) * sizeof(int32_t));
    s->prop.aux = malloc(aux * sizeof(int32_t));
    if (!s->prop.genome || !s->prop.ops || !s->prop.aux)
        return lf_set_error(LF_ENOMEM, "out of memory for search buffers");
    for (int32_t t = 0; t < s->nthreads && st == LF_OK; t++) {
        s->work[t].genome = malloc((size_t)s->n_edges + 1);
        st = lf__cand_init(&s->work[t].cand, s->n_ops, s->n_edges);
        if (st == LF_OK && !s->work[t].genome)
            st = lf_set_error(LF_ENOMEM, "out of memory for search thread buffers");
    }
    if (st == LF_OK)
        st = lf_pool_create(&s->pool, s->nthreads);
    for (int32_t t = 0; t < s->nthreads && st == LF_OK; t++) {
        st = lf_decoder_create(&s->dec[t], cm, &s->map, cfg->splitter, cfg->seed);
        if (st == LF_OK)
            lf_decoder_set_busy_clock(s->dec[t], &s->split_clock);
    }
    return st;
}

static lf_status lf__fill_result(lf__search *s, lf_search_result *res)
{
    lf_status st = lf_plan_copy(&res->best, &s->best.plan);
    if (st != LF_OK)
        return st;
    lf_plan_canonicalize(&res->best);
    if ((st = lf_plan_metrics_compute(&res->best, s->cm, &res->metrics)) != LF_OK)
        return st;
    if (res->metrics.dram_fusable != s->best.key.dram_fusable ||
        res->metrics.n_groups != s->best.key.n_groups)
        return lf_set_error(LF_EPLAN, "internal error: the search's DRAM figure %lld differs from "
                                      "the plan's %lld", (long long)s->best.key.dram_fusable,
                            (long long)res->metrics.dram_fusable);
    if (!s->use_archive || s->n_arch == 0)
        return LF_OK;
    /* Lowest DRAM first; equal DRAM (possible when only the group count is
     * an objective) falls back to lf_plan_compare. Insertion sort: the front
     * holds at most one plan per group count. */
    for (int32_t i = 1; i < s->n_arch; i++) {
        lf__cand x = s->arch[i];
        int32_t j = i - 1;
        while (j >= 0 && lf__cand_compare(&x, &s->arch[j]) < 0) {
            s->arch[j + 1] = s->arch[j];
            j--;
        }
        s->arch[j + 1] = x;
    }
    res->pareto = calloc((size_t)s->n_arch, sizeof *res->pareto);
    res->pareto_metrics = calloc((size_t)s->n_arch, sizeof *res->pareto_metrics);
    if (!res->pareto || !res->pareto_metrics)
        return lf_set_error(LF_ENOMEM, "out of memory for the Pareto front");
    for (int32_t i = 0; i < s->n_arch && st == LF_OK; i++) {
        st = lf_plan_copy(&res->pareto[i], &s->arch[i].plan);
        if (st == LF_OK) {
            res->n_pareto = i + 1;
            st = lf_plan_metrics_compute(&res->pareto[i], s->cm, &res->pareto_metrics[i]);
        }
    }
    return st;
}

lf_status lf_search_run(lf_cost_model *cm, const lf_search_config *cfg, lf_search_result *res)
{
    memset(res, 0, sizeof *res);
    lf_status st = lf__check_config(cfg);
    if (st != LF_OK)
        return st;
    double t0 = lf_now_seconds();
    struct timespec c0;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    lf_cost_stats before, after;
    lf_cost_stats_get(cm, &before);
    lf__search s;
    st = lf__search_init(&s, cm, cfg);
    if (st == LF_OK) {
        if (strcmp(cfg->algorithm, "random") == 0)
            st = lf__search_random(&s);
        else if (strcmp(cfg->algorithm, "local") == 0)
            st = lf__search_local(&s);
        else
            st = lf__search_nsga2(&s);
    }
    if (st == LF_OK && !s.have_best)
        st = lf_set_error(LF_EINVAL, "the search proposed no plan");
    if (st == LF_OK)
        st = lf__fill_result(&s, res);
    if (st == LF_OK)
        st = lf_plan_check(&res->best, cm);
    lf_pool_quiesce(s.pool);
    if (s.pool) {
        lf_pool_stats ps;
        lf_pool_get_stats(s.pool, &ps);
        res->batches = ps.batches;
        res->parallel_batches = ps.parallel_batches;
        res->redundant = ps.redundant;
    }
    /* Counters of the kept plans: thrown-away attempts (a plan recomputed
     * for a parked thread) are not in them. */
    {
        const lf_decode_stats ds = s.stats;
        res->invalid_groups += ds.invalid_groups;
        res->splits += ds.splits;
        res->repair_splits += ds.repair_splits;
        res->rectified += ds.rectified;
        res->fallbacks += ds.fallbacks;
        res->split_queries += ds.split_queries;
        res->cache_hits += ds.local_hits;
    }
    res->plans_proposed = s.proposed;
    if (s.have_clock)
        res->split_s = lf_busy_clock_seconds(&s.split_clock);
    if (st == LF_OK && s.trace) {
        res->trace = s.trace;
        res->n_trace = s.proposed < cfg->budget ? s.proposed : cfg->budget;
        s.trace = NULL;
    }
    lf_cost_stats_get(cm, &after);
    res->cache_hits += after.hits - before.hits;
    res->cache_misses = after.misses - before.misses;
    lf__search_destroy(&s);
    res->wall_s = lf_now_seconds() - t0;
    struct timespec c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    res->cpu_s = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
    return st;
}

void lf_search_result_destroy(lf_search_result *res)
{
    lf_plan_destroy(&res->best);
    for (int32_t i = 0; i < res->n_pareto; i++)
        lf_plan_destroy(&res->pareto[i]);
    free(res->pareto);
    free(res->pareto_metrics);
    free(res->trace);
    memset(res, 0, sizeof *res);
}

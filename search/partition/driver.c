/* The partition search driver: configuration, the parallel batch evaluator
 * shared by every algorithm, best-plan and Pareto bookkeeping, and the
 * result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

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

typedef struct lf__failure {
    int64_t index;
    lf_status st;
    char msg[256];
} lf__failure;

lf_status lf__search_batch(lf__search *s, int32_t n, lf__propose_fn fn, void *arg, lf__cand *out)
{
    lf__failure *fail = calloc((size_t)s->nthreads, sizeof *fail);
    if (!fail)
        return lf_set_error(LF_ENOMEM, "out of memory for a search batch");
    for (int32_t t = 0; t < s->nthreads; t++)
        fail[t].index = -1;
    int64_t base = s->proposed;
#ifdef _OPENMP
#pragma omp parallel for num_threads(s->nthreads) schedule(dynamic, 1)
#endif
    for (int32_t i = 0; i < n; i++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        lf__scratch *w = &s->scr[tid];
        lf__cand *c = &out[i];
        lf_rng r;
        lf_rng_seed(&r, s->cfg->seed, (uint64_t)(base + i));
        lf_status st = fn(s, arg, i, &r, w, w->genome);
        if (st == LF_OK)
            st = lf_genome_decode(s->dec[tid], w->genome, &c->plan, c->genome, &c->sum);
        if (st == LF_OK) {
            c->key.dram_fusable = c->sum.dram;
            c->key.n_groups = c->sum.n_groups;
            /* A valid plan and its repaired genome determine each other, and
             * the genome is the shorter of the two to hash. */
            c->hash = lf_hash_bytes(c->genome, (size_t)s->n_edges, 0);
            c->index = base + i;
        } else if (fail[tid].index < 0) {
            /* Messages are thread-local: keep this thread's first one so
             * the caller's thread can report it. */
            fail[tid].index = base + i;
            fail[tid].st = st;
            snprintf(fail[tid].msg, sizeof fail[tid].msg, "%s", lf_last_error());
        }
    }
    lf_status st = LF_OK;
    int32_t first = -1;
    for (int32_t t = 0; t < s->nthreads; t++)
        if (fail[t].index >= 0 && (first < 0 || fail[t].index < fail[first].index))
            first = t;
    if (first >= 0)
        st = lf_set_error(fail[first].st, "%s", fail[first].msg);
    free(fail);
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
        lf_progress_update(&s->prog, s->proposed, note);
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
    for (int32_t t = 0; s->dec && t < s->nthreads; t++)
        lf_decoder_free(s->dec[t]);
    free(s->dec);
    for (int32_t t = 0; s->scr && t < s->nthreads; t++) {
        free(s->scr[t].genome);
        free(s->scr[t].ops);
        free(s->scr[t].aux);
    }
    free(s->scr);
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
    s->nthreads = 1;
#ifdef _OPENMP
    s->nthreads = cfg->threads > 0 ? cfg->threads : omp_get_max_threads();
    if (s->nthreads < 1)
        s->nthreads = 1;
#endif
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
    s->scr = calloc((size_t)s->nthreads, sizeof *s->scr);
    if (!s->dec || !s->scr)
        return lf_set_error(LF_ENOMEM, "out of memory for %d search threads", (int)s->nthreads);
    size_t aux = (size_t)(s->n_ops > s->n_edges ? s->n_ops : s->n_edges) + 1;
    for (int32_t t = 0; t < s->nthreads && st == LF_OK; t++) {
        st = lf_decoder_create(&s->dec[t], cm, &s->map, cfg->splitter, cfg->seed);
        if (st == LF_OK)
            lf_decoder_set_busy_clock(s->dec[t], &s->split_clock);
        s->scr[t].genome = malloc((size_t)s->n_edges + 1);
        s->scr[t].ops = malloc((size_t)(s->n_ops + 1) * sizeof(int32_t));
        s->scr[t].aux = malloc(aux * sizeof(int32_t));
        if (st == LF_OK && (!s->scr[t].genome || !s->scr[t].ops || !s->scr[t].aux))
            st = lf_set_error(LF_ENOMEM, "out of memory for search thread buffers");
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
    lf_cost_stats before, after;
    lf_cost_stats_get(cm, &before);
    lf__search s;
    st = lf__search_init(&s, cm, cfg);
    if (st == LF_OK) {
        lf_progress_start(&s.prog, cfg->algorithm, cfg->budget, cfg->quiet);
        if (strcmp(cfg->algorithm, "random") == 0)
            st = lf__search_random(&s);
        else if (strcmp(cfg->algorithm, "local") == 0)
            st = lf__search_local(&s);
        else
            st = lf__search_nsga2(&s);
        lf_progress_finish(&s.prog);
    }
    if (st == LF_OK && !s.have_best)
        st = lf_set_error(LF_EINVAL, "the search proposed no plan");
    if (st == LF_OK)
        st = lf__fill_result(&s, res);
    if (st == LF_OK)
        st = lf_plan_check(&res->best, cm);
    /* Counters are summed in thread order; the integer ones do not depend on
     * which thread decoded which plan. */
    for (int32_t t = 0; s.dec && t < s.nthreads; t++) {
        if (!s.dec[t])
            continue;
        lf_decode_stats ds;
        lf_decoder_stats(s.dec[t], &ds);
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

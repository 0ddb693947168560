/* The partition search driver: configuration, the run (set-up, dispatch to
 * the budgeted search's row of searches.def, result) and the result's
 * clean-up. Candidates are in candidates.c, the parallel batch evaluator in
 * batch.c; the algorithms call those, never back into the driver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search/partition/search_internal.h"

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

/* ---- the run ----------------------------------------------------------- */

static lf_status lf__check_config(const lf_search_config *cfg)
{
    char list[160];
    const char *const *n = lf_search_names(1);
    list[0] = '\0';
    for (size_t used = 0; *n && used < sizeof list; n++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *n);
    if (!cfg->algorithm)
        return lf_set_error(LF_EINVAL, "no search algorithm given (%s)", list);
    if (!lf__search_budget_fn(cfg->algorithm))
        return lf_set_error(LF_EINVAL, "unknown search algorithm '%s' (known: %s)", cfg->algorithm, list);
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
    if (cfg->n_seeds < 0 || (cfg->n_seeds > 0 && !cfg->seeds))
        return lf_set_error(LF_EINVAL, "seed plans: %d given without plans", (int)cfg->n_seeds);
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
    lf_bitset_destroy(&s->guide);
    free(s->guide_fd);
    free(s->guide_members);
    free(s->guide_start);
    free(s->guide_pos);
    lf_plan_destroy(&s->guide_plan);
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
    for (int32_t i = 0; i < cfg->n_seeds && st == LF_OK; i++)
        st = lf_plan_check(&cfg->seeds[i], cm); /* a seed must be a valid plan (sizes: above) */
    if (st == LF_OK && cfg->guided) {
        st = lf_bitset_init(&s->guide, s->n_ops);
        if (st == LF_OK)
            st = lf_plan_init(&s->guide_plan, s->n_ops);
        s->guide_fd = malloc((size_t)(s->n_ops + 1) * sizeof *s->guide_fd);
        s->guide_members = malloc((size_t)(s->n_ops + 1) * sizeof *s->guide_members);
        s->guide_start = malloc((size_t)(s->n_ops + 2) * sizeof *s->guide_start);
        s->guide_pos = malloc((size_t)(s->n_ops + 1) * sizeof *s->guide_pos);
        if (st == LF_OK && (!s->guide_fd || !s->guide_members || !s->guide_start || !s->guide_pos))
            st = lf_set_error(LF_ENOMEM, "out of memory for guided edits");
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
        res->metrics.objective != s->best.key.objective ||
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
    for (int32_t i = 0; i < cfg->n_seeds; i++)
        if (cfg->seeds[i].n_ops != lf_cost_graph(cm)->n_ops)
            return lf_set_error(LF_EINVAL, "seed plan %d has %d ops, graph '%s' has %d", (int)i,
                                (int)cfg->seeds[i].n_ops, lf_cost_graph(cm)->name,
                                (int)lf_cost_graph(cm)->n_ops);
    lf__search s;
    st = lf__search_init(&s, cm, cfg);
    if (st == LF_OK) {
        st = lf__search_budget_fn(cfg->algorithm)(&s);
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

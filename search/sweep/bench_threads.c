/* bench threads: one search with 1 and with T threads on cold cost models,
 * medians over alternating runs, the plan checked to be the same; the
 * co-runner and the load average that go with the figures. */
#include "search/sweep/bench_threads.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/app/pipeline.h"

static int lf__split_list(char *s, char **items, int max)
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n < max)
            items[n] = t;
        n++;
    }
    return n;
}

lf_status lf_bench_threads_lists(lf_bench_threads_config *cfg, const char *models,
                                 int64_t default_beta, const char *searches, const char *splits)
{
    snprintf(cfg->model_list, sizeof cfg->model_list, "%s", models);
    snprintf(cfg->search_list, sizeof cfg->search_list, "%s", searches);
    snprintf(cfg->split_list, sizeof cfg->split_list, "%s", splits);
    int nm = lf__split_list(cfg->model_list, cfg->models, LF_BENCH_THREADS_MAX);
    int nq = lf__split_list(cfg->search_list, cfg->searches, LF_BENCH_THREADS_MAX);
    int ns = lf__split_list(cfg->split_list, cfg->splits, LF_BENCH_THREADS_MAX);
    if (nm > LF_BENCH_THREADS_MAX || nq > LF_BENCH_THREADS_MAX || ns > LF_BENCH_THREADS_MAX)
        return lf_set_error(LF_EINVAL, "list too long (at most %d items)", LF_BENCH_THREADS_MAX);
    for (int i = 0; i < nm; i++) {
        char *at = strchr(cfg->models[i], '@');
        cfg->betas[i] = default_beta;
        if (at) {
            *at = '\0';
            if (lf_hw_parse_size(at + 1, &cfg->betas[i]) != LF_OK)
                return lf_set_error(LF_EINVAL, "--models: %s", lf_last_error());
        }
    }
    for (int i = 0; i < nq; i++)
        if (strcmp(cfg->searches[i], "random") && strcmp(cfg->searches[i], "local") &&
            strcmp(cfg->searches[i], "nsga2"))
            return lf_set_error(LF_EINVAL, "unknown search '%s' (use random, local or nsga2)",
                                cfg->searches[i]);
    for (int i = 0; i < ns; i++)
        if (strcmp(cfg->splits[i], "random") != 0 && strncmp(cfg->splits[i], "tree-", 5) != 0)
            return lf_set_error(LF_EINVAL, "unknown split '%s' (use random or tree-<proposer>)",
                                cfg->splits[i]);
    cfg->n_models = nm;
    cfg->n_searches = nq;
    cfg->n_splits = ns;
    return LF_OK;
}

/* One search on a cold cost model. */
static lf_status lf__run(const lf_bench_threads_config *cfg, const lf_graph *g,
                         const lf_bench_threads_row *c, int32_t threads, double *wall,
                         int64_t *dram, int64_t *par, int64_t *redundant)
{
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = c->beta;
    lf_cost_model *cm = NULL;
    lf_status st = lf_cost_model_create(&cm, g, &hw, cfg->scheme);
    if (st != LF_OK)
        return st;
    lf_planner_config pc;
    lf_planner_config_default(&pc);
    pc.search = c->search;
    pc.budget = cfg->budget;
    pc.seed = cfg->seed;
    pc.threads = threads;
    if (strcmp(c->split, "random") != 0) {
        pc.split = "tree";
        pc.proposer = c->split + 5;
    }
    lf_planned res;
    st = lf_plan_network(cm, &pc, &res);
    if (st == LF_OK) {
        const lf_search_result *sr = &res.search_result;
        *wall = sr->wall_s;
        *dram = res.metrics.dram_fusable;
        *par = sr->batches ? 100 * sr->parallel_batches / sr->batches : 0;
        *redundant = sr->redundant;
    }
    lf_planned_destroy(&res);
    lf_cost_model_free(cm);
    return st;
}

static int lf__dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median wall times with 1 and T threads, alternating which goes first. */
static lf_status lf__pair(const lf_bench_threads_config *cfg, const lf_graph *g,
                          lf_bench_threads_row *c)
{
    int64_t p1, r1;
    double w1[LF_BENCH_THREADS_MAX_REPEAT], wt[LF_BENCH_THREADS_MAX_REPEAT];
    int64_t d1 = -1, dt = -1;
    int32_t repeat = cfg->repeat;
    if (repeat < 1 || repeat > LF_BENCH_THREADS_MAX_REPEAT)
        return lf_set_error(LF_EINVAL, "bench threads: %d runs per median (1 to %d)", (int)repeat,
                            LF_BENCH_THREADS_MAX_REPEAT);
    for (int32_t r = 0; r < repeat; r++) {
        int first_t = r % 2;
        for (int k = 0; k < 2; k++) {
            int multi = k ^ first_t;
            lf_status st = lf__run(cfg, g, c, multi ? cfg->threads : 1, multi ? &wt[r] : &w1[r],
                                   multi ? &dt : &d1, multi ? &c->parallel_pct : &p1,
                                   multi ? &c->redundant : &r1);
            if (st != LF_OK)
                return st;
        }
        if (d1 != dt)
            return lf_set_error(LF_EPLAN, "%s %s + %s: %d threads found %lld B, one thread %lld B; "
                                          "the plan must not depend on the thread count",
                                c->model, c->search, c->split, (int)cfg->threads, (long long)dt,
                                (long long)d1);
    }
    qsort(w1, (size_t)repeat, sizeof *w1, lf__dbl_cmp);
    qsort(wt, (size_t)repeat, sizeof *wt, lf__dbl_cmp);
    c->wall_1 = w1[repeat / 2];
    c->wall_t = wt[repeat / 2];
    return LF_OK;
}

lf_status lf_bench_threads_run(const lf_bench_threads_config *cfg, lf_bench_threads_row_fn row,
                               void *user)
{
    lf_status st = LF_OK;
    for (int32_t mi = 0; mi < cfg->n_models && st == LF_OK; mi++) {
        lf_graph *g = NULL;
        lf_model_options mo = {0, 1};
        if ((st = lf_model_build(cfg->models[mi], &mo, &g)) != LF_OK)
            break;
        for (int32_t qi = 0; qi < cfg->n_searches && st == LF_OK; qi++)
            for (int32_t si = 0; si < cfg->n_splits && st == LF_OK; si++) {
                lf_bench_threads_row c = {cfg->models[mi], cfg->searches[qi], cfg->splits[si],
                                          cfg->betas[mi], 0, 0, 0, 0};
                if ((st = lf__pair(cfg, g, &c)) == LF_OK && row)
                    row(user, &c);
            }
        lf_graph_free(g);
    }
    return st;
}

int64_t lf_bench_co_runner_start(void)
{
    /* Nothing buffered may be written twice should the child ever flush. */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the benchmark */
#endif
        volatile uint64_t x = 0;
        for (;;)
            x++;
    }
    return pid < 0 ? -1 : (int64_t)pid;
}

void lf_bench_co_runner_stop(int64_t pid)
{
    if (pid <= 0)
        return;
    kill((pid_t)pid, SIGKILL);
    waitpid((pid_t)pid, NULL, 0);
}

void lf_bench_load_average(char *buf, size_t len)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double a = 0, b = 0, c = 0;
    if (f && fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
        snprintf(buf, len, "%.2f %.2f %.2f", a, b, c);
    else
        snprintf(buf, len, "unknown");
    if (f)
        fclose(f);
}

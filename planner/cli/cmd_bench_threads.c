/* fusionplan bench threads: is a search with T threads ever slower than with
 * one? Runs each search with 1 and with T threads, alone and next to a
 * CPU-bound co-runner (a child process spinning on a core, as another job on
 * a shared machine would), and prints the median wall times and their ratio.
 * Every run gets a fresh cost model, proposer and splitter, so no run warms
 * a memo for the next; 1 and T alternate so that drifting load hits both. A
 * benchmark command, not a test: it prints figures and never fails on
 * timing, but it does fail if T threads change the plan. */
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

#include "models/registry.h"
#include "planner/cli/cli.h"
#include "planner/registry.h"
#include "planner/util/progress.h"

#define LF__BT_MAX 16
#define LF__BT_MAX_REPEAT 15

static void lf__loadavg(char *buf, size_t n)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double a = 0, b = 0, c = 0;
    if (f && fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
        snprintf(buf, n, "%.2f %.2f %.2f", a, b, c);
    else
        snprintf(buf, n, "unknown");
    if (f)
        fclose(f);
}

/* A child process that keeps one core busy until killed. */
static pid_t lf__co_runner_start(void)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the benchmark */
#endif
        volatile uint64_t x = 0;
        for (;;)
            x++;
    }
    return pid;
}

static void lf__co_runner_stop(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

typedef struct lf__bt_case {
    const lf_graph *g;
    const char *model, *search, *split;
    int64_t beta, budget;
    uint64_t seed;
    const char *scheme;
} lf__bt_case;

/* One search on a cold cost model; *wall and *dram out. */
static lf_status lf__bt_run(const lf__bt_case *c, int32_t threads, double *wall, int64_t *dram,
                            int64_t *par, int64_t *redundant)
{
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = c->beta;
    lf_cost_model *cm = NULL;
    lf_status st = lf_cost_model_create(&cm, c->g, &hw, c->scheme);
    if (st != LF_OK)
        return st;
    lf_planner_config pc;
    lf_planner_config_default(&pc);
    pc.search = c->search;
    pc.budget = c->budget;
    pc.seed = c->seed;
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

/* Median wall times with 1 and T threads, alternating. */
static lf_status lf__bt_pair(const lf__bt_case *c, int32_t threads, int32_t repeat, double *m1,
                             double *mt, int64_t *par, int64_t *redundant)
{
    int64_t p1, r1;
    double w1[LF__BT_MAX_REPEAT], wt[LF__BT_MAX_REPEAT];
    int64_t d1 = -1, dt = -1;
    for (int32_t r = 0; r < repeat; r++) {
        lf_status st;
        int64_t d;
        int first_t = r % 2; /* alternate which goes first */
        for (int k = 0; k < 2; k++) {
            int multi = k ^ first_t;
            st = lf__bt_run(c, multi ? threads : 1, multi ? &wt[r] : &w1[r], &d,
                            multi ? par : &p1, multi ? redundant : &r1);
            if (st != LF_OK)
                return st;
            int64_t *ref = multi ? &dt : &d1;
            *ref = d;
        }
        if (d1 != dt)
            return lf_set_error(LF_EPLAN, "%s %s + %s: %d threads found %lld B, one thread %lld B; "
                                          "the plan must not depend on the thread count",
                                c->model, c->search, c->split, (int)threads, (long long)dt,
                                (long long)d1);
    }
    qsort(w1, (size_t)repeat, sizeof *w1, lf__dbl_cmp);
    qsort(wt, (size_t)repeat, sizeof *wt, lf__dbl_cmp);
    *m1 = w1[repeat / 2];
    *mt = wt[repeat / 2];
    return LF_OK;
}

int lf_cmd_bench_threads(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks, each optionally NAME@BUFFER (default mobilenet_v2@128KB)", NULL},
        {"buffer", "SIZE", "buffer of the networks given without @BUFFER (default 256KB)", NULL},
        {"scheme", "NAME", "lbdf (default) or brr", NULL},
        {"searches", "LIST", "searches (default random,local,nsga2)", NULL},
        {"splits", "LIST", "random or tree-<proposer> (default random,tree-gnne,tree-pg,tree-rg)", NULL},
        {"budget", "N", "plans proposed per search (default 2000)", NULL},
        {"seed", "S", "seed (default 1)", NULL},
        {"threads", "T", "the thread count compared with one (default 2)", NULL},
        {"repeat", "R", "runs per measurement, the median is shown (default 3, at most 15)", NULL},
        {"co-runner", "WHEN", "both (default), off or on: measure alone, next to a spinning process, "
                              "or both", NULL},
    };
    lf_cli_command cmd = {"bench threads", "Is a search with T threads ever slower than with one?",
                          "bench threads [--models LIST] [--searches LIST] [--splits LIST] "
                          "[--threads T] [--repeat R] [--co-runner both|off|on]",
                          "Runs every search with every split with one and with T threads, each on "
                          "a cold cost memo, R times\n(alternating), alone and next to a CPU-bound "
                          "co-runner process, and prints the median wall\ntimes and the ratio T "
                          "threads / one thread (below 1: faster), with the share of batches the "
                          "pool ran\non several threads and the plans it recomputed for a parked "
                          "thread (last T-thread run). Fails if T threads find another\n"
                          "plan. Prints the load average before and after: record it with the "
                          "figures.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    int64_t budget, seed, threads, repeat;
    if ((rc = lf_cli_search_opt(&cmd, "budget", LF_CLI_DEFAULT_BUDGET, &budget)) ||
        (rc = lf_cli_search_opt(&cmd, "seed", 1, &seed)) ||
        (rc = lf_cli_int(&cmd, "threads", 2, 2, 1024, &threads)) ||
        (rc = lf_cli_int(&cmd, "repeat", 3, 1, LF__BT_MAX_REPEAT, &repeat)))
        return rc;
    const char *when = lf_cli_get(&cmd, "co-runner");
    if (!when)
        when = "both";
    if (strcmp(when, "both") != 0 && strcmp(when, "off") != 0 && strcmp(when, "on") != 0)
        return lf_cli_usage_error(&cmd, "unknown --co-runner '%s' (use both, off or on)", when);
    const char *scheme = lf_cli_get(&cmd, "scheme") ? lf_cli_get(&cmd, "scheme") : "lbdf";
    if (!lf_name_known(LF_NAMES_SCHEME, scheme))
        return lf_cli_usage_error(&cmd, "unknown --scheme '%s' (use lbdf or brr)", scheme);
    int64_t def_beta;
    if (lf_hw_parse_size(lf_cli_get(&cmd, "buffer") ? lf_cli_get(&cmd, "buffer") : "256KB",
                         &def_beta) != LF_OK)
        return lf_cli_usage_error(&cmd, "--buffer: %s", lf_last_error());
    char mbuf[1024], qbuf[256], sbuf[512];
    snprintf(mbuf, sizeof mbuf, "%s",
             lf_cli_get(&cmd, "models") ? lf_cli_get(&cmd, "models") : "mobilenet_v2@128KB");
    snprintf(qbuf, sizeof qbuf, "%s",
             lf_cli_get(&cmd, "searches") ? lf_cli_get(&cmd, "searches") : "random,local,nsga2");
    snprintf(sbuf, sizeof sbuf, "%s",
             lf_cli_get(&cmd, "splits") ? lf_cli_get(&cmd, "splits")
                                        : "random,tree-gnne,tree-pg,tree-rg");
    char *models[LF__BT_MAX], *searches[LF__BT_MAX], *splits[LF__BT_MAX];
    int nm = lf_cli_split_list(mbuf, models, LF__BT_MAX);
    int nq = lf_cli_split_list(qbuf, searches, LF__BT_MAX);
    int ns = lf_cli_split_list(sbuf, splits, LF__BT_MAX);
    if (nm > LF__BT_MAX || nq > LF__BT_MAX || ns > LF__BT_MAX)
        return lf_cli_usage_error(&cmd, "list too long (at most %d items)", LF__BT_MAX);
    int64_t betas[LF__BT_MAX];
    for (int i = 0; i < nm; i++) {
        char *at = strchr(models[i], '@');
        betas[i] = def_beta;
        if (at) {
            *at = '\0';
            if (lf_hw_parse_size(at + 1, &betas[i]) != LF_OK)
                return lf_cli_usage_error(&cmd, "--models: %s", lf_last_error());
        }
    }
    for (int i = 0; i < nq; i++)
        if (strcmp(searches[i], "random") && strcmp(searches[i], "local") && strcmp(searches[i], "nsga2"))
            return lf_cli_usage_error(&cmd, "unknown search '%s' (use random, local or nsga2)",
                                      searches[i]);
    for (int i = 0; i < ns; i++)
        if (strcmp(splits[i], "random") != 0 && strncmp(splits[i], "tree-", 5) != 0)
            return lf_cli_usage_error(&cmd, "unknown split '%s' (use random or tree-<proposer>)",
                                      splits[i]);
    int phases[2], nph = 0;
    if (strcmp(when, "on") != 0)
        phases[nph++] = 0;
    if (strcmp(when, "off") != 0)
        phases[nph++] = 1;
    char load[64];
    lf__loadavg(load, sizeof load);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("# bench threads: %ld cores online, load average %s before; %lld plans, seed %lld, "
           "median of %lld\n\n",
           cores, load, (long long)budget, (long long)seed, (long long)repeat);
    printf("| model | buffer | search | split | co-runner | 1 thread (s) | %lld threads (s) | ratio "
           "| parallel batches (%%) | recomputed |\n"
           "|---|---|---|---|---|---|---|---|---|---|\n",
           (long long)threads);
    fflush(stdout);
    lf_status st = LF_OK;
    for (int ph = 0; ph < nph && st == LF_OK; ph++) {
        pid_t co = phases[ph] ? lf__co_runner_start() : 0;
        if (phases[ph] && co < 0) {
            fprintf(stderr, "fusionplan bench threads: cannot start the co-runner\n");
            return LF_EXIT_FAIL;
        }
        for (int mi = 0; mi < nm && st == LF_OK; mi++) {
            lf_graph *g = NULL;
            lf_model_options mo = {0, 1};
            if ((st = lf_model_build(models[mi], &mo, &g)) != LF_OK)
                break;
            for (int qi = 0; qi < nq && st == LF_OK; qi++)
                for (int si = 0; si < ns && st == LF_OK; si++) {
                    lf__bt_case c = {g, models[mi], searches[qi], splits[si], betas[mi],
                                     budget, (uint64_t)seed, scheme};
                    double m1 = 0, mt = 0;
                    int64_t par = 0, red = 0;
                    st = lf__bt_pair(&c, (int32_t)threads, (int32_t)repeat, &m1, &mt, &par, &red);
                    if (st != LF_OK)
                        break;
                    char beta[32];
                    lf_hw_format_size(betas[mi], beta, sizeof beta);
                    printf("| %s | %s | %s | %s | %s | %.3f | %.3f | %.2f | %lld | %lld |\n",
                           models[mi], beta, searches[qi], splits[si], phases[ph] ? "yes" : "no",
                           m1, mt, m1 > 0 ? mt / m1 : 0.0, (long long)par, (long long)red);
                    fflush(stdout);
                }
            lf_graph_free(g);
        }
        lf__co_runner_stop(co);
    }
    if (st != LF_OK)
        return lf_cli_fail(st);
    lf__loadavg(load, sizeof load);
    printf("\n# load average %s after\n", load);
    return LF_EXIT_OK;
}

/* fusionplan bench gso: the GSO rule filter on built-in networks (GSO
 * Figure 7 and §4.3): inference time of every rule's model on the graph,
 * rules kept by the GCNs and by the LR baseline against the rules that truly
 * match, the Jaccard distance between them, and the substitution search's
 * time and result without and with each filter. A benchmark: it prints
 * figures and never fails on timing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explain/weights_dir.h"
#include "models/registry.h"
#include "planner/cli/cli.h"
#include "planner/util/progress.h"
#include "search/subst/gso/gso.h"

#define LF__BENCH_MAX 16

static int lf__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median time of `repeat` filter runs (ms) and the mask of the last. */
static lf_status lf__filter(const lf_gso_set *s, const lf_graph *g, const lf_subst_ruleset *rs, int32_t repeat,
                            uint8_t *mask, int32_t *kept, double *ms)
{
    double t[64];
    lf_status st = LF_OK;
    for (int32_t r = 0; r < repeat && !st; r++) {
        double t0 = lf_now_seconds();
        st = lf_gso_filter(s, g, rs, 0.5, mask, kept);
        t[r] = (lf_now_seconds() - t0) * 1e3;
    }
    qsort(t, (size_t)repeat, sizeof t[0], lf__cmp_double);
    *ms = t[repeat / 2];
    return st;
}

/* Median time (ms) of running every model of s on g, the constant ones too
 * (the filter skips those): the cost when every rule has a trained model. */
static lf_status lf__every_model(const lf_gso_set *s, const lf_graph *g, int32_t repeat, double *ms)
{
    double t[64];
    lf_status st = LF_OK;
    for (int32_t r = 0; r < repeat && !st; r++) {
        double t0 = lf_now_seconds();
        lf_gso_graph gg;
        st = lf_gso_graph_init(&gg, g);
        float *ws = st ? NULL : malloc((size_t)lf_gso_ws_floats(gg.n) * sizeof *ws);
        float *prob = st ? NULL : malloc((size_t)(gg.n > 0 ? gg.n : 1) * sizeof *prob);
        if (!st && (!ws || !prob))
            st = lf_set_error(LF_ENOMEM, "out of memory");
        for (int32_t i = 0; i < s->n && !st; i++)
            lf_gso_predict(s->kind, lf_gso_set_params(s, i), &gg, ws, prob);
        free(ws);
        free(prob);
        lf_gso_graph_destroy(&gg);
        t[r] = (lf_now_seconds() - t0) * 1e3;
    }
    qsort(t, (size_t)repeat, sizeof t[0], lf__cmp_double);
    *ms = t[repeat / 2];
    return st;
}

/* CPU seconds of the calling thread (the searches run on one thread here, so
 * a co-runner on the machine does not inflate them as it does wall time). */
static double lf__cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static lf_status lf__load_set(const char *given, const char *shipped, lf_gso_set *s)
{
    char path[4200];
    lf_status st = LF_OK;
    if (given)
        snprintf(path, sizeof path, "%s", given);
    else
        st = lf_weights_find(shipped, path, sizeof path);
    return st ? st : lf_gso_load(s, path);
}

int lf_cmd_bench_gso(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks; NAME:N for a substitution network with N blocks, e.g. resnet_blocks:4 (default resnet18,resnet50,inception_e,alexnet,vgg16,sru)", NULL},
        {"rules", "LIST", "rule sources: builtin, taso (default builtin,taso)", NULL},
        {"taso-file", "FILE", "TASO's rule collection (default " LF_CLI_TASO_DEFAULT ")", NULL},
        {"search", "NAME", "backtrack (default), enum, split, or OCGGS's prune, dpp, sample", NULL},
        {"max-steps", "K", "prune, dpp, sample: longest sequence (default 10)", NULL},
        {"budget", "N", "graphs expanded per search (default 1000)", NULL},
        {"max-len", "K", "enum: longest sequence (default 3)", NULL},
        {"repeat", "R", "filter runs per network, the median is reported (default 21)", NULL},
        {"gso-weights", "FILE", "GCN models (default: the shipped gso-gcn.bin)", NULL},
        {"lr-weights", "FILE", "LR models (default: the shipped gso-lr.bin)", NULL},
        {"no-search", NULL, "filter figures only (no searches)", NULL},
        {"every-model", NULL, "also time a forward pass of every GCN, the constant \"no\" models of rules "
                              "that never matched a training graph too (column 'all GCNs ms')", NULL},
    };
    lf_cli_command cmd = {"bench gso", "The GSO rule filter: rules kept, inference time, search with and without.",
                          "bench gso [--models LIST] [--search backtrack|enum|split|prune|dpp|sample] [--budget N] [--no-search] [--every-model]",
                          "For each network: ops, the filter's time for all rules (median of --repeat "
                          "runs, one thread),\nrules kept by the GCNs (gso) and the LR baseline against "
                          "the rules that match (the matcher)\nand all enabled rules, the Jaccard distance "
                          "kept vs matching, and the search's CPU time (one\nthread, without the final numeric check) and "
                          "best cost (roofline time, us) without a filter and with each.\nRules are "
                          "verified first; disabled ones count nowhere.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    int64_t budget, max_len, repeat, max_steps;
    if ((rc = lf_cli_int(&cmd, "budget", 1000, 1, 100000000, &budget)) ||
        (rc = lf_cli_int(&cmd, "max-steps", 10, 1, 64, &max_steps)) ||
        (rc = lf_cli_int(&cmd, "max-len", 3, 1, 64, &max_len)) || (rc = lf_cli_int(&cmd, "repeat", 21, 1, 64, &repeat)))
        return rc;
    const char *search = lf_cli_get(&cmd, "search");
    lf_subst_search sk = search ? lf_subst_search_from_name(search) : LF_SEARCH_BACKTRACK;
    if (sk == LF_SEARCH_COUNT)
        return lf_cli_usage_error(&cmd, "unknown --search '%s' (backtrack, enum, split, prune, dpp, sample)", search);
    char buf[1024], *models[LF__BENCH_MAX];
    snprintf(buf, sizeof buf, "%s",
             lf_cli_get(&cmd, "models") ? lf_cli_get(&cmd, "models") : "resnet18,resnet50,inception_e,alexnet,vgg16,sru");
    int n = lf_cli_split_list(buf, models, LF__BENCH_MAX);
    if (n <= 0 || n > LF__BENCH_MAX)
        return lf_cli_usage_error(&cmd, "--models: 1 to %d networks", LF__BENCH_MAX);
    for (int i = 0; i < n; i++) { /* NAME:N block counts, checked before any output */
        const char *colon = strchr(models[i], ':');
        char *end = NULL;
        long b = colon ? strtol(colon + 1, &end, 10) : 1;
        if (colon && (end == colon + 1 || *end || b < 1 || b > 64))
            return lf_cli_usage_error(&cmd, "--models: '%s': blocks must be 1 to 64", models[i]);
    }
    int with_search = lf_cli_get(&cmd, "no-search") == NULL, every = lf_cli_get(&cmd, "every-model") != NULL;
    lf_gso_set sets[2];
    memset(sets, 0, sizeof sets);
    lf_status st = lf__load_set(lf_cli_get(&cmd, "gso-weights"), LF_GSO_SHIPPED_GCN, &sets[0]);
    if (!st)
        st = lf__load_set(lf_cli_get(&cmd, "lr-weights"), LF_GSO_SHIPPED_LR, &sets[1]);
    if (st) {
        lf_gso_set_destroy(&sets[0]);
        return lf_cli_fail(st);
    }
    lf_subst_ruleset rs;
    const char *rules = lf_cli_get(&cmd, "rules"), *taso = lf_cli_get(&cmd, "taso-file");
    st = lf_subst_ruleset_open(&rs, rules ? rules : "builtin,taso", taso ? taso : LF_CLI_TASO_DEFAULT);
    int32_t failed = 0, enabled = 0;
    if (!st)
        st = lf_subst_ruleset_verify(&rs, &failed);
    for (int32_t k = 0; !st && k < rs.n; k++)
        enabled += rs.enabled[k] != 0;
    uint8_t *mask[2] = {malloc((size_t)rs.n + 1), malloc((size_t)rs.n + 1)}, *truth = malloc((size_t)rs.n + 1);
    if (!st && (!mask[0] || !mask[1] || !truth))
        st = lf_set_error(LF_ENOMEM, "out of memory");
    lf_hw hw;
    lf_graph *none = NULL;
    if (!st && (rc = lf_cli_subst_graph(&cmd, NULL, &none, &hw)))
        st = LF_EINVAL;
    lf_subst_coster c;
    lf_subst_coster_init(&c, LF_OBJ_TIME, &hw, "lbdf");
    if (!st) {
        printf("%d rules (%d disabled by verification); filter threshold 0.5; search %s, budget %lld%s, "
               "objective time; 1 thread\n\n", (int)rs.n, (int)failed, lf_subst_search_name(sk), (long long)budget,
               sk == LF_SEARCH_ENUM ? " (K as --max-len)" : "");
        printf("| model | ops | gso ms |%s lr ms | matching | gso kept | lr kept | all | gso Jaccard | lr Jaccard |%s\n",
               every ? " all GCNs ms |" : "", with_search ? " search CPU s (none) | cost us (none) | search CPU s (gso) | cost us (gso) | speed-up | "
                             "search CPU s (lr) | cost us (lr) | same optimum gso / lr |" : "");
        printf("|---|---:|---:|%s---:|---:|---:|---:|---:|---:|---:|%s\n", every ? "---:|" : "",
               with_search ? "---:|---:|---:|---:|---:|---:|---:|---|" : "");
    }
    for (int i = 0; i < n && !st; i++) {
        lf_graph *m = NULL;
        /* NAME:N, the substitution networks with N blocks (GSO's Figure 7 on
         * resnet_blocks:2 .. resnet_blocks:8) */
        char *colon = strchr(models[i], ':');
        int32_t blocks = colon ? (int32_t)strtol(colon + 1, NULL, 10) : 0;
        if (colon)
            *colon = '\0';
        st = colon ? lf_subst_network_blocks(models[i], 0, blocks, &m) : lf_subst_network(models[i], 0, &m);
        if (colon)
            *colon = ':';
        if (st == LF_ENOTFOUND && !colon) {
            lf_model_options mo = {0, 1};
            st = lf_model_build(models[i], &mo, &m);
        }
        int32_t kept[2] = {0, 0}, matching = 0;
        double ms[2] = {0, 0};
        for (int f = 0; f < 2 && !st; f++)
            st = lf__filter(&sets[f], m, &rs, (int32_t)repeat, mask[f], &kept[f], &ms[f]);
        double all_ms = 0;
        if (!st && every)
            st = lf__every_model(&sets[0], m, (int32_t)repeat, &all_ms);
        if (!st)
            st = lf_gso_truth(m, &rs, truth);
        for (int32_t k = 0; !st && k < rs.n; k++)
            matching += truth[k];
        if (st) {
            lf_graph_free(m);
            break;
        }
        printf("| %s | %d | %.2f |", models[i], (int)m->n_ops, ms[0]);
        if (every)
            printf(" %.2f |", all_ms);
        printf(" %.2f | %d | %d | %d | %d | %.3f | %.3f |", ms[1],
               (int)matching, (int)kept[0], (int)kept[1], (int)enabled, lf_gso_jaccard_distance(mask[0], truth, rs.n),
               lf_gso_jaccard_distance(mask[1], truth, rs.n));
        if (with_search) {
            lf_subst_result res[3];
            double cpu[3] = {0, 0, 0};
            memset(res, 0, sizeof res);
            for (int f = 0; f < 3 && !st; f++) {
                double c0 = lf__cpu();
                lf_subst_options o;
                lf_subst_options_default(&o);
                o.search = sk;
                o.budget = budget;
                o.max_len = (int32_t)max_len;
                o.max_steps = (int32_t)max_steps;
                o.skip_check = 1;
                o.rule_mask = f == 0 ? NULL : mask[f - 1];
                st = lf_subst_optimize(m, &rs, &c, &o, &res[f]);
                cpu[f] = lf__cpu() - c0;
            }
            if (!st) {
                double cost[3];
                for (int f = 0; f < 3; f++)
                    cost[f] = lf_subst_cost_value(&c, &res[f].after) * 1e6;
                printf(" %.3f | %.3f | %.3f | %.3f | %.2fx | %.3f | %.3f | %s / %s |", cpu[0], cost[0], cpu[1], cost[1],
                       cpu[0] / (cpu[1] > 0 ? cpu[1] : 1e-9), cpu[2], cost[2], cost[1] <= cost[0] * (1 + 1e-12) ? "yes" : "no",
                       cost[2] <= cost[0] * (1 + 1e-12) ? "yes" : "no");
            }
            for (int f = 0; f < 3; f++)
                lf_subst_result_destroy(&res[f]);
        }
        printf("\n");
        fflush(stdout);
        lf_graph_free(m);
    }
    lf_graph_free(none);
    free(mask[0]);
    free(mask[1]);
    free(truth);
    lf_gso_set_destroy(&sets[0]);
    lf_gso_set_destroy(&sets[1]);
    lf_subst_ruleset_close(&rs);
    if (rc)
        return rc;
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

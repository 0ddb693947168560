/* fusionplan bench subst: MetaFlow's Table 3 under the analytic cost:
 * backtracking (alpha, budget) against exhaustive enumeration on the same
 * networks, with the best cost each finds, whether they agree, time and
 * throughput (graphs expanded per second). A benchmark: it prints figures and
 * never fails on timing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/cli/cli.h"
#include "search/subst/subst.h"

#define LF__BENCH_MAX 16

int lf_cmd_bench_subst(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks, comma-separated (default alexnet,vgg16,inception_e13,resnet18)", NULL},
        {"input-size", "N", "square input resolution (default: each network's own)", NULL},
        {"hw", "FILE", "hardware description XML: the roofline's <gpu> figures", NULL},
        {"objective", "NAME", "time (default), flops, bytes, kernels or dram", NULL},
        {"alpha", "A", "backtracking's alpha (default 1.05)", NULL},
        {"budget", "N", "backtracking's expansions (default 1000)", NULL},
        {"enum-budget", "N", "exhaustive search's expansions before it gives up (default 200000)", NULL},
        {"threads", "T", "OpenMP threads over the candidates of an expansion (default 1)", NULL},
    };
    lf_cli_command cmd = {"bench subst", "Backtracking against exhaustive substitution search.",
                          "bench subst [--models LIST] [--alpha A] [--budget N] [--enum-budget N]",
                          "For each network: the best cost backtracking finds (MetaFlow's alpha and "
                          "budget), the best\ncost of exhaustive enumeration of every distinct graph "
                          "the rules reach (complete when it\nran out of graphs before its budget), "
                          "whether they agree, search time (without the final numeric check) and graphs\nexpanded per second. Built-in "
                          "rules, verified first.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    int64_t budget = 0, ebudget = 0, threads = 0;
    double alpha;
    if ((rc = lf_cli_int(&cmd, "threads", 1, 1, 1024, &threads)) ||
        (rc = lf_cli_int(&cmd, "budget", 1000, 1, 100000000, &budget)) ||
        (rc = lf_cli_int(&cmd, "enum-budget", 200000, 1, 100000000, &ebudget)) ||
        (rc = lf_cli_double(&cmd, "alpha", 1.05, 1.0, 100.0, &alpha)))
        return rc;
    const char *obj_name = lf_cli_get(&cmd, "objective");
    lf_subst_objective obj = obj_name ? lf_subst_objective_from_name(obj_name) : LF_OBJ_TIME;
    if (obj == LF_OBJ_COUNT)
        return lf_cli_usage_error(&cmd, "unknown --objective '%s'", obj_name);
    char buf[1024], *models[LF__BENCH_MAX];
    snprintf(buf, sizeof buf, "%s", lf_cli_get(&cmd, "models") ? lf_cli_get(&cmd, "models")
                                                               : "alexnet,vgg16,inception_e13,resnet18");
    int n = lf_cli_split_list(buf, models, LF__BENCH_MAX);
    if (n > LF__BENCH_MAX)
        return lf_cli_usage_error(&cmd, "--models: at most %d", LF__BENCH_MAX);
    lf_subst_ruleset rs;
    lf_status st = lf_subst_ruleset_open(&rs, "builtin", NULL);
    int32_t failed = 0;
    if (!st)
        st = lf_subst_ruleset_verify(&rs, &failed);
    if (st) {
        lf_subst_ruleset_close(&rs);
        return lf_cli_fail(st);
    }
    lf_hw hw;
    lf_graph *g = NULL;
    /* the hardware only (no --model option here) */
    if ((rc = lf_cli_subst_graph(&cmd, NULL, &g, &hw))) {
        lf_subst_ruleset_close(&rs);
        return rc;
    }
    lf_subst_coster c;
    lf_subst_coster_init(&c, obj, &hw, "lbdf");
    printf("objective %s; backtracking alpha %g budget %lld; exhaustive budget %lld; %d built-in rules "
           "(%d disabled by verification)\n\n",
           lf_subst_objective_name(obj), alpha, (long long)budget, (long long)ebudget, (int)rs.n, (int)failed);
    printf("| model | ops | start | backtrack best | expanded | s | graphs/s | exhaustive best | expanded | "
           "complete | s | graphs/s | same optimum |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|\n");
    int64_t input = 0;
    if ((rc = lf_cli_int(&cmd, "input-size", 0, 1, 4096, &input))) {
        lf_subst_ruleset_close(&rs);
        return rc;
    }
    for (int i = 0; i < n && !st; i++) {
        lf_graph *m = NULL;
        st = lf_subst_network(models[i], (int32_t)input, &m);
        if (st == LF_ENOTFOUND) {
            lf_model_options mo = {(int32_t)input, 1};
            st = lf_model_build(models[i], &mo, &m);
        }
        lf_subst_options o;
        lf_subst_options_default(&o);
        o.alpha = alpha;
        o.budget = budget;
        o.threads = (int32_t)threads;
        o.skip_check = 1; /* figures only: `fusionplan optimize` checks what it writes */
        lf_subst_result bt, en;
        memset(&bt, 0, sizeof bt);
        memset(&en, 0, sizeof en);
        if (!st)
            st = lf_subst_optimize(m, &rs, &c, &o, &bt);
        o.search = LF_SEARCH_ENUM;
        o.max_len = 1 << 20;
        o.budget = ebudget;
        if (!st)
            st = lf_subst_optimize(m, &rs, &c, &o, &en);
        if (!st) {
            double k = obj == LF_OBJ_TIME ? 1e6 : 1.0;
            double b0 = lf_subst_cost_value(&c, &bt.before) * k, b1 = lf_subst_cost_value(&c, &bt.after) * k,
                   e1 = lf_subst_cost_value(&c, &en.after) * k;
            int complete = en.expanded < ebudget;
            const char *same = complete ? (b1 <= e1 * (1 + 1e-12) ? "yes" : "no")
                                        : (b1 <= e1 * (1 + 1e-12) ? "not proven (backtrack <= exhaustive so far)"
                                                                  : "no (exhaustive so far is better)");
            printf("| %s | %d | %.3f | %.3f | %lld | %.2f | %.0f | %.3f | %lld | %s | %.2f | %.0f | %s |\n", models[i],
                   (int)lf_graph_compute_ops(m), b0, b1, (long long)bt.expanded, bt.search_s,
                   (double)bt.expanded / (bt.search_s > 0 ? bt.search_s : 1e-9), e1, (long long)en.expanded,
                   complete ? "yes" : "no", en.search_s, (double)en.expanded / (en.search_s > 0 ? en.search_s : 1e-9),
                   same);
            fflush(stdout);
        }
        lf_subst_result_destroy(&bt);
        lf_subst_result_destroy(&en);
        lf_graph_free(m);
    }
    lf_subst_ruleset_close(&rs);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

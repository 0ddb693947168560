/* fusionplan bench exact: the exact planner's cost per network (issue 17):
 * the whole staircase from --min to --max (fusionplan curve), or the
 * single-buffer optimum at each of --buffers, with downsets, candidate sets,
 * groups priced, memory and wall time, and which limit stopped a run. A
 * benchmark: limits that fire are reported in the table, not as a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/cli/cli.h"
#include "planner/registry.h"
#include "planner/cli/exact_opts.h"
#include "planner/exact/curve.h"
#include "planner/plan.h"
#include "planner/util/progress.h"

#define LF__BENCH_MAX 64

/* "optimal", or which limit stopped the run (from the planner's message). */
static const char *lf__outcome(lf_status st)
{
    if (st == LF_OK)
        return "optimal";
    const char *e = lf_last_error();
    if (st != LF_ELIMIT)
        return "error";
    if (strstr(e, "time limit"))
        return "time limit";
    if (strstr(e, "memory limit"))
        return "memory limit";
    if (strstr(e, "candidate"))
        return "candidate limit";
    return "state limit";
}

static int lf__list(const lf_cli_command *cmd, const char *name, const char *def, char *buf,
                    size_t len, char **items)
{
    const char *v = lf_cli_get(cmd, name);
    if (!v)
        v = def;
    if (strlen(v) >= len)
        return -lf_cli_usage_error(cmd, "--%s list too long", name);
    snprintf(buf, len, "%s", v);
    int n = lf_cli_split_list(buf, items, LF__BENCH_MAX);
    if (n < 1 || n > LF__BENCH_MAX)
        return -lf_cli_usage_error(cmd, "--%s must name 1 to %d items", name, LF__BENCH_MAX);
    return n;
}

int lf_cmd_bench_exact(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks (default: every built-in network)", NULL},
        {"schemes", "LIST", "cost models (default lbdf,brr)", NULL},
        {"min", "SIZE", "smallest buffer of the staircase (default 64KB)", NULL},
        {"max", "SIZE", "largest buffer of the staircase (default 4MB)", NULL},
        {"buffers", "LIST", "instead of the staircase: the optimum at each of these buffers", NULL},
        {"format", "FMT", "md (default) or csv", NULL},
        LF_CLI_EXACT_OPTS,
    };
    lf_cli_command cmd = {"bench exact", "Benchmark the exact planner.",
                          "bench exact [--models LIST] [--schemes LIST] [--min SIZE] [--max SIZE] "
                          "[--buffers LIST] [--time-limit S] [--memory-limit SIZE]",
                          "For every network and scheme, computes the whole staircase of optimal "
                          "DRAM from --min to --max\n(fusionplan curve), or with --buffers the "
                          "optimum at each buffer, and prints downsets, candidate\nsets, groups "
                          "priced, peak memory of states and cost memo, wall time and whether the "
                          "run\nfinished (optimal) or which limit stopped it. Record figures in "
                          "docs/RESULTS.md with the\ncommand, machine and load.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    const char *fmt = lf_cli_get(&cmd, "format");
    if (fmt && strcmp(fmt, "md") != 0 && strcmp(fmt, "csv") != 0)
        return lf_cli_usage_error(&cmd, "unknown --format '%s' (use md or csv)", fmt);
    int csv = fmt && strcmp(fmt, "csv") == 0;
    lf_exact_config ec;
    if ((rc = lf_cli_exact_config(&cmd, &ec)))
        return rc;
    char all_models[4096] = "";
    int32_t n_reg;
    const lf_model_entry *reg = lf_models(&n_reg);
    for (int32_t i = 0; i < n_reg; i++)
        snprintf(all_models + strlen(all_models), sizeof all_models - strlen(all_models), "%s%s",
                 i ? "," : "", reg[i].name);
    char mbuf[4096], sbuf[64], bbuf[1024], *models[LF__BENCH_MAX], *schemes[LF__BENCH_MAX],
        *bufs[LF__BENCH_MAX];
    int nm = lf__list(&cmd, "models", all_models, mbuf, sizeof mbuf, models);
    int ns = nm < 0 ? 0 : lf__list(&cmd, "schemes", "lbdf,brr", sbuf, sizeof sbuf, schemes);
    if (nm < 0 || ns < 0)
        return LF_EXIT_USAGE;
    for (int i = 0; i < ns; i++)
        if (!lf_name_known(LF_NAMES_SCHEME, schemes[i]))
            return lf_cli_usage_error(&cmd, "unknown scheme '%s' (use lbdf or brr)", schemes[i]);
    for (int i = 0; i < nm; i++) {
        int known = 0;
        for (int32_t j = 0; j < n_reg; j++)
            known |= strcmp(reg[j].name, models[i]) == 0;
        if (!known)
            return lf_cli_usage_error(&cmd, "unknown model '%s'; 'fusionplan models' lists them",
                                      models[i]);
    }
    int64_t range[2] = {64 * 1024, 4 * 1024 * 1024}, betas[LF__BENCH_MAX];
    const char *rn[2] = {"min", "max"};
    for (int i = 0; i < 2; i++) {
        const char *v = lf_cli_get(&cmd, rn[i]);
        if (v && lf_hw_parse_size(v, &range[i]) != LF_OK)
            return lf_cli_usage_error(&cmd, "--%s: %s", rn[i], lf_last_error());
    }
    if (range[1] <= range[0])
        return lf_cli_usage_error(&cmd, "--max must be larger than --min");
    int nb = 0;
    if (lf_cli_get(&cmd, "buffers")) {
        if (lf_cli_get(&cmd, "min") || lf_cli_get(&cmd, "max"))
            return lf_cli_usage_error(&cmd, "--buffers excludes --min and --max");
        if ((nb = lf__list(&cmd, "buffers", "", bbuf, sizeof bbuf, bufs)) < 0)
            return LF_EXIT_USAGE;
        for (int i = 0; i < nb; i++)
            if (lf_hw_parse_size(bufs[i], &betas[i]) != LF_OK)
                return lf_cli_usage_error(&cmd, "--buffers: %s", lf_last_error());
    }
    if (csv)
        printf(nb ? "model,buffer,scheme,dram_fusable,dram_all,groups,downsets,candidates,"
                    "groups_priced,memory_bytes,wall_s,outcome\n"
                  : "model,scheme,min,max,steps,downsets,candidates,groups_priced,front_points,"
                    "memory_bytes,wall_s,outcome\n");
    else if (nb)
        printf("| model | buffer | scheme | DRAM fusable (MB) | DRAM all (MB) | groups | downsets | "
               "candidate sets | groups priced | memory (MB) | wall (s) | outcome |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    else
        printf("| model | scheme | range | steps | downsets | candidate sets | groups priced | "
               "front points | memory (MB) | wall (s) | outcome |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|\n");
    double total = 0;
    int runs = 0, finished = 0;
    for (int mi = 0; mi < nm; mi++) {
        lf_graph *g = NULL;
        lf_status st = lf_model_build(models[mi], NULL, &g);
        if (st != LF_OK)
            return lf_cli_fail(st);
        lf_hw hw;
        lf_hw_default(&hw);
        for (int si = 0; si < ns; si++) {
            for (int bi = 0; bi < (nb ? nb : 1); bi++) {
                double t0 = lf_now_seconds();
                lf_exact_stats es = {0};
                lf_plan_metrics m = {0};
                int32_t steps = 0;
                int64_t front = 0;
                if (nb) {
                    hw.buffer_bytes = betas[bi];
                    lf_cost_model *cm = NULL;
                    st = lf_cost_model_create(&cm, g, &hw, schemes[si]);
                    lf_plan p;
                    if (st == LF_OK && (st = lf_exact_plan(cm, &ec, &p, &es)) == LF_OK) {
                        st = lf_plan_metrics_compute(&p, cm, &m);
                        lf_plan_destroy(&p);
                    }
                    lf_cost_model_free(cm);
                } else {
                    lf_curve c;
                    st = lf_curve_compute(g, &hw, schemes[si], range[0], range[1], &ec, &c);
                    es = c.stats;
                    front = c.front_points;
                    steps = c.n;
                    if (st == LF_OK)
                        lf_curve_destroy(&c);
                }
                if (st != LF_OK && st != LF_ELIMIT) {
                    lf_graph_free(g);
                    return lf_cli_fail(st);
                }
                double wall = lf_now_seconds() - t0;
                total += wall;
                runs++;
                finished += st == LF_OK;
                const char *out = lf__outcome(st);
                char lo[32], hi[32], b[32];
                lf_hw_format_size(range[0], lo, sizeof lo);
                lf_hw_format_size(range[1], hi, sizeof hi);
                if (nb)
                    lf_hw_format_size(betas[bi], b, sizeof b);
                if (csv && nb)
                    printf("%s,%lld,%s,%lld,%lld,%d,%lld,%lld,%lld,%lld,%.3f,%s\n", models[mi],
                           (long long)betas[bi], schemes[si], (long long)m.dram_fusable,
                           (long long)m.dram_all, (int)m.n_groups, (long long)es.states,
                           (long long)es.candidates, (long long)es.groups,
                           (long long)es.memory_bytes, wall, out);
                else if (csv)
                    printf("%s,%s,%lld,%lld,%d,%lld,%lld,%lld,%lld,%lld,%.3f,%s\n", models[mi],
                           schemes[si], (long long)range[0], (long long)range[1], (int)steps,
                           (long long)es.states, (long long)es.candidates, (long long)es.groups,
                           (long long)front, (long long)es.memory_bytes, wall, out);
                else if (nb && st == LF_OK)
                    printf("| %s | %s | %s | %.3f | %.3f | %d | %lld | %lld | %lld | %.1f | %.3f | %s |\n",
                           models[mi], b, schemes[si], (double)m.dram_fusable / 1e6,
                           (double)m.dram_all / 1e6, (int)m.n_groups, (long long)es.states,
                           (long long)es.candidates, (long long)es.groups,
                           (double)es.memory_bytes / 1e6, wall, out);
                else if (nb)
                    printf("| %s | %s | %s | - | - | - | %lld | %lld | %lld | %.1f | %.3f | %s |\n",
                           models[mi], b, schemes[si], (long long)es.states,
                           (long long)es.candidates, (long long)es.groups,
                           (double)es.memory_bytes / 1e6, wall, out);
                else
                    printf("| %s | %s | %s .. %s | %s%d | %lld | %lld | %lld | %lld | %.1f | %.3f | %s |\n",
                           models[mi], schemes[si], lo, hi, st == LF_OK ? "" : "- ", (int)steps,
                           (long long)es.states, (long long)es.candidates, (long long)es.groups,
                           (long long)front, (double)es.memory_bytes / 1e6, wall, out);
                fflush(stdout);
            }
        }
        lf_graph_free(g);
    }
    if (!csv)
        printf("\n%d of %d runs finished (optimal); %.1f s in total\n", finished, runs, total);
    return LF_EXIT_OK;
}

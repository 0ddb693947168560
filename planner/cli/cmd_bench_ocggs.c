/* fusionplan bench ocggs: OCGGS's Table 3 (and Figures 4 and 5) under the
 * analytic cost: every search (ENU, Pruning, DPP, MetaFlow's split, TASO's
 * backtracking, Sampling) on every network at sequence length K with a
 * wall-clock cap, printing the optimized cost, the search time (wall clock,
 * and the process's CPU time, which on a shared machine is what the wall
 * time would be on an idle one) and the peak heap of each as tables shaped
 * like the paper's. The exact searches
 * (ENU, Pruning, DPP) report "-" when the cap ends them, as the paper does;
 * the others the best found by then, marked ">" on the time. --svg charts
 * cost, time and memory against the blocks of a network or against K. A
 * benchmark: it prints figures and never fails on timing. */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "search/subst/ocggs_bench.h"

static void lf__notice(void *user, const char *line)
{
    (void)user;
    fputs(line, stderr);
}

int lf_cmd_bench_ocggs(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "networks, NAME or NAME:BLOCKS, comma-separated (default: Table 3's seven: "
                           "inception_v3, resnet_blocks:8, resnext50_32x4d, nasnet_a, bert:8, sru:1, nasrnn:5)", NULL},
        {"searches", "LIST", "enum, prune, dpp, split, backtrack, sample (default all, in that order)", NULL},
        {"max-steps", "LIST", "sequence lengths K, comma-separated (default 10); backtrack and split are bounded "
                              "by K too (split: per part)", NULL},
        {"time-limit", "SECONDS", "cap per search (default 60)", NULL},
        {"clock", "NAME", "what the cap counts: cpu (default: the process's CPU time, reproducible on a "
                          "shared machine) or wall", NULL},
        {"budget", "N", "backtrack and split: graphs expanded (default 1000)", NULL},
        {"hw", "FILE", "hardware description XML: the roofline's <gpu> figures", NULL},
        {"objective", "NAME", "time (default), flops, bytes or kernels", NULL},
        {"seed", "S", "sample's tie-breaking seed (default 1)", NULL},
        {"rules", "LIST", "rule sources: builtin (default), generated (the shipped generated set), generated=FILE", NULL},
        {"svg", "PREFIX", "charts PREFIX-cost.svg, PREFIX-time.svg, PREFIX-memory.svg against K (several K) "
                          "or against the networks' blocks", NULL},
    };
    lf_cli_command cmd = {"bench ocggs", "OCGGS's searches against ENU, MetaFlow and TASO (OCGGS Table 3).",
                          "bench ocggs [--models LIST] [--searches LIST] [--max-steps LIST] [--time-limit S] "
                          "[--svg PREFIX]",
                          "For each network and K: the optimized cost, the search time (wall and CPU) and the "
                          "peak heap of each\nsearch (tables as OCGGS's Table 3a-c). Built-in rules, verified first; "
                          "one thread. The exact\nsearches print '-' when the time cap ends them; backtrack, "
                          "split and sample the best found\nby then ('>' on the time).",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    lf_ocggs_bench_config cfg;
    lf_ocggs_bench_config_default(&cfg);
    int64_t budget = 0, seed = 0;
    if ((rc = lf_cli_int(&cmd, "budget", cfg.budget, 1, 100000000, &budget)) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)) ||
        (rc = lf_cli_double(&cmd, "time-limit", cfg.time_limit_s, 1e-3, 1e7, &cfg.time_limit_s)))
        return rc;
    cfg.budget = budget, cfg.seed = (uint64_t)seed;
    const char *clock = lf_cli_get(&cmd, "clock");
    if (clock && strcmp(clock, "cpu") != 0 && strcmp(clock, "wall") != 0)
        return lf_cli_usage_error(&cmd, "--clock: '%s' (cpu or wall)", clock);
    cfg.cpu_clock = !clock || strcmp(clock, "cpu") == 0;
    const char *obj_name = lf_cli_get(&cmd, "objective");
    cfg.objective = obj_name ? lf_subst_objective_from_name(obj_name) : LF_OBJ_TIME;
    if (cfg.objective == LF_OBJ_COUNT || cfg.objective == LF_OBJ_DRAM)
        return lf_cli_usage_error(&cmd, "--objective: '%s' (time, flops, bytes or kernels)", obj_name);
    static const char *const lists[3] = {"models", "searches", "max-steps"};
    lf_status (*const set[3])(lf_ocggs_bench_config *, const char *) = {
        lf_ocggs_bench_set_models, lf_ocggs_bench_set_searches, lf_ocggs_bench_set_ks};
    for (int i = 0; i < 3; i++)
        if (lf_cli_get(&cmd, lists[i]) && set[i](&cfg, lf_cli_get(&cmd, lists[i])))
            return lf_cli_usage_error(&cmd, "--%s: %s", lists[i], lf_last_error());
    lf_hw hw;
    lf_graph *none = NULL;
    if ((rc = lf_cli_subst_graph(&cmd, NULL, &none, &hw)))
        return rc;
    cfg.hw = &hw;
    cfg.rules = lf_cli_get(&cmd, "rules");
    lf_ocggs_bench b;
    lf_status st = lf_ocggs_bench_open(&b, &cfg);
    if (!st) {
        lf_ocggs_bench_write_header(stdout, &b);
        st = lf_ocggs_bench_run(&b, lf__notice, NULL);
    }
    if (!st)
        lf_ocggs_bench_write_tables(stdout, &b);
    const char *svg = lf_cli_get(&cmd, "svg");
    char path[1024];
    for (int w = 0; w < 3 && !st && svg; w++)
        if (!(st = lf_ocggs_bench_save_chart(&b, svg, w, path, sizeof path)))
            printf("wrote %s\n", path);
    lf_ocggs_bench_close(&b);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

/* fusionplan plan: partition a network into fusion groups. */
#include <stdio.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/exact/exact.h"
#include "planner/io/plan_export.h"
#include "planner/plan.h"
#include "planner/util/progress.h"
#include "search/partition/simple.h"

static void lf__print_groups(const lf_plan *p, lf_cost_model *cm)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_bitset s;
    if (lf_bitset_init(&s, g->n_ops) != LF_OK)
        return;
    printf("\n%6s %5s  %-30s %-30s %12s %12s %s\n", "group", "ops", "first op", "last op",
           "F_beta B", "F_D B", "");
    for (int32_t gi = 0; gi < p->n_groups; gi++) {
        lf_plan_group_bitset(p, gi, &s);
        int32_t first = lf_bitset_next(&s, 0), last = first, n = 0;
        for (int32_t v = first; v >= 0; v = lf_bitset_next(&s, v + 1)) {
            last = v;
            n++;
        }
        lf_group_cost c;
        char fb[32], fd[32];
        int unfusable = n == 1 && !lf_cost_fusable(cm, first);
        if (lf_cost_eval(cm, &s, &c) != LF_OK)
            break;
        if (unfusable)
            lf_cost_unfusable_dram(cm, first, &c.f_d);
        lf_cli_commas(c.f_beta, fb, sizeof fb);
        lf_cli_commas(c.f_d, fd, sizeof fd);
        printf("%6d %5d  %-30s %-30s %12s %12s %s\n", (int)gi, (int)n, g->ops[first].name,
               g->ops[last].name, fb, fd,
               unfusable ? "unfusable (weights streamed)" : (c.valid ? "" : "INVALID"));
    }
    lf_bitset_destroy(&s);
}

int lf_cmd_plan(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"search", "NAME", "planner: greedy (default) or layer (every op its own group)", NULL},
        {"output", "FILE", "(or -o) write the plan to FILE (.json or .dot; see docs/plan-format.md)", NULL},
        {"format", "FMT", "json or dot (default: from the file extension)", NULL},
        {"quiet", NULL, "print only the summary line, not the group table", NULL},
    };
    lf_cli_command cmd = {"plan", "Partition a network into fusion groups.",
                          "plan [--model NAME] [--hw FILE] [--buffer SIZE] [--scheme lbdf|brr] "
                          "[--search greedy|layer] [--output FILE]",
                          "Every group must fit the on-chip buffer (F_beta < beta); the plan "
                          "minimises DRAM traffic,\nreported over fusable ops (the paper's "
                          "convention) and over all ops (unfusable ops charged with\nweights "
                          "streamed per row tile). Without options: resnet50, 256 KB, LBDF, greedy.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    const char *search = lf_cli_get(&cmd, "search");
    if (!search)
        search = "greedy";
    if (strcmp(search, "greedy") != 0 && strcmp(search, "layer") != 0 && strcmp(search, "exact") != 0)
        return lf_cli_usage_error(&cmd, "unknown --search '%s' (use greedy, layer or exact)", search);
    const char *format = lf_cli_get(&cmd, "format");
    if (format && strcmp(format, "json") != 0 && strcmp(format, "dot") != 0)
        return lf_cli_usage_error(&cmd, "unknown --format '%s' (use json or dot)", format);
    const char *output = lf_cli_get(&cmd, "output");
    if (format && !output)
        return lf_cli_usage_error(&cmd, "--format needs --output FILE");
    if (output && !format) {
        const char *dot = strrchr(output, '.');
        if (!dot || (strcmp(dot, ".json") != 0 && strcmp(dot, ".dot") != 0))
            return lf_cli_usage_error(&cmd, "cannot tell the format of '%s': use a .json or .dot "
                                            "name, or --format",
                                      output);
    }
    lf_cli_session s;
    if ((rc = lf_cli_session_open(&s, &cmd)))
        return rc;
    double t0 = lf_now_seconds();
    lf_plan plan;
    lf_status st;
    lf_exact_stats es = {0};
    if (strcmp(search, "layer") == 0)
        st = lf_plan_layer(s.cm, &plan);
    else if (strcmp(search, "exact") == 0)
        st = lf_exact_plan(s.cm, NULL, &plan, &es);
    else
        st = lf_plan_greedy(s.cm, &plan);
    double wall = lf_now_seconds() - t0;
    lf_plan_metrics m;
    if (st == LF_OK) {
        lf_plan_canonicalize(&plan);
        st = lf_plan_check(&plan, s.cm);
        if (st == LF_OK)
            st = lf_plan_metrics_compute(&plan, s.cm, &m);
        if (st != LF_OK)
            lf_plan_destroy(&plan);
    }
    if (st != LF_OK) {
        lf_cli_session_close(&s);
        return lf_cli_fail(st);
    }
    if (output) {
        lf_plan_meta meta = {s.model_name, search, 0, -1, 0, NULL};
        st = lf_plan_save(output, format, &plan, s.cm, &meta);
        if (st != LF_OK) {
            lf_plan_destroy(&plan);
            lf_cli_session_close(&s);
            return lf_cli_fail(st);
        }
    }
    char beta[32], fus[32], all[32], mbu[32];
    lf_hw_format_size(lf_cost_beta(s.cm), beta, sizeof beta);
    lf_cli_commas(m.dram_fusable, fus, sizeof fus);
    lf_cli_commas(m.dram_all, all, sizeof all);
    lf_cli_commas(m.mbu, mbu, sizeof mbu);
    printf("%s %s %s %s: DRAM %s B fusable ops (%.3f MB), %s B all ops; MBU %s B; %d groups, "
           "%d unfusable; wall %.3f s\n",
           s.model_name, beta, lf_cost_scheme_name(s.cm), search, fus, (double)m.dram_fusable / 1e6,
           all, mbu, (int)m.n_groups, (int)m.n_unfusable, wall);
    if (!lf_cli_get(&cmd, "quiet"))
        lf__print_groups(&plan, s.cm);
    if (output)
        fprintf(stderr, "wrote %s\n", output);
    lf_plan_destroy(&plan);
    lf_cli_session_close(&s);
    return LF_EXIT_OK;
}

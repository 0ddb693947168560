/* fusionplan info: a network under a hardware description, layer by layer. */
#include <stdio.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/optable.h"
#include "search/partition/simple.h"
#include "planner/plan.h"

static void lf__print_hw(const lf_hw *hw)
{
    char buf[32];
    lf_hw_format_size(hw->buffer_bytes, buf, sizeof buf);
    printf("hardware  %s (%s): buffer %s, %d-byte activations, %d-byte weights, DRAM %.1f GB/s",
           hw->name, hw->source, buf, (int)hw->act_bytes, (int)hw->weight_bytes,
           hw->dram_bandwidth / 1e9);
    if (hw->dram_pj_per_byte > 0)
        printf(", %.1f pJ/B", hw->dram_pj_per_byte);
    printf("\n");
}

int lf_cmd_info(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"json", NULL, "print the graph as JSON instead of the summary", NULL},
        {"no-layers", NULL, "omit the per-op table", NULL},
    };
    lf_cli_command cmd = {"info", "Summarise a network under a hardware description.",
                          "info [--model NAME] [--hw FILE] [--buffer SIZE] [--scheme lbdf|brr] [--json]",
                          "Prints the graph summary, which ops are unfusable under the buffer (an op "
                          "whose F_beta alone\nreaches beta can never join a group), and each op's "
                          "F_beta and F_D alone: layer-by-layer DRAM.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    lf_cli_session s;
    if ((rc = lf_cli_session_open(&s, &cmd)))
        return rc;
    const lf_graph *g = s.graph;
    if (lf_cli_get(&cmd, "json")) {
        lf_status st = lf_graph_write_json(g, stdout);
        lf_cli_session_close(&s);
        return st ? lf_cli_fail(st) : LF_EXIT_OK;
    }
    char hex[17], params[32], a[32], b[32];
    lf_graph_hash_hex(g, hex);
    lf_cli_commas(lf_graph_params(g), params, sizeof params);
    printf("model     %s: %d ops, %s params, %.3f GMACs, hash %s\n", g->name,
           (int)lf_graph_compute_ops(g), params, (double)lf_graph_macs(g) / 1e9, hex);
    lf__print_hw(&s.hw);
    int32_t nun = lf_cost_unfusable_count(s.cm);
    printf("scheme    %s: %d fusable ops, %d unfusable", lf_cost_scheme_name(s.cm),
           (int)(lf_graph_compute_ops(g) - nun), (int)nun);
    int shown = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].type != LF_OP_INPUT && !lf_cost_fusable(s.cm, v))
            printf("%s%s", shown++ ? ", " : " (", g->ops[v].name);
    printf("%s\n", shown ? ")" : "");
    lf_plan plan;
    lf_plan_metrics m;
    lf_status st = lf_plan_layer(s.cm, &plan);
    if (st == LF_OK) {
        st = lf_plan_metrics_compute(&plan, s.cm, &m);
        lf_plan_destroy(&plan);
    }
    if (st != LF_OK) {
        lf_cli_session_close(&s);
        return lf_cli_fail(st);
    }
    lf_cli_commas(m.dram_fusable, a, sizeof a);
    lf_cli_commas(m.dram_all, b, sizeof b);
    printf("layer-by-layer DRAM: %s B over fusable ops, %s B over all ops (%.3f ms at DRAM bandwidth)\n",
           a, b, m.dram_time_s * 1e3);
    if (!lf_cli_get(&cmd, "no-layers")) {
        printf("\n%5s  %-34s %-17s %-16s %12s %12s %12s  %s\n", "id", "name", "type", "output",
               "weights B", "F_beta B", "F_D B", "fusable");
        lf_bitset one;
        if ((st = lf_bitset_init(&one, g->n_ops)) != LF_OK) {
            lf_cli_session_close(&s);
            return lf_cli_fail(st);
        }
        for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
            const lf_op *op = &g->ops[v];
            char shape[48];
            snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)op->out.c,
                     (long long)op->out.h, (long long)op->out.w);
            if (op->type == LF_OP_INPUT) {
                printf("%5d  %-34s %-17s %-16s %12s %12s %12s  %s\n", (int)v, op->name, "Input",
                       shape, "-", "-", "-", "-");
                continue;
            }
            lf_group_cost c;
            lf_bitset_clear_all(&one);
            lf_bitset_set(&one, v);
            st = lf_cost_eval(s.cm, &one, &c);
            int64_t fd = c.f_d;
            if (st == LF_OK && !lf_cost_fusable(s.cm, v))
                st = lf_cost_unfusable_dram(s.cm, v, &fd);
            char w[32], fb[32], fdd[32];
            lf_cli_commas(c.weights, w, sizeof w);
            lf_cli_commas(c.f_beta, fb, sizeof fb);
            lf_cli_commas(fd, fdd, sizeof fdd);
            printf("%5d  %-34s %-17s %-16s %12s %12s %12s  %s\n", (int)v, op->name,
                   lf_op_info_of(op->type)->name, shape, w, fb, fdd,
                   lf_cost_fusable(s.cm, v) ? "yes" : "no (weights streamed)");
        }
        lf_bitset_destroy(&one);
    }
    lf_cli_session_close(&s);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

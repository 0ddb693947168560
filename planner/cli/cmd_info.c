/* fusionplan info: a network under a hardware description, layer by layer. */
#include <stdio.h>

#include "planner/app/cli/cli.h"

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
    lf_status st;
    if (lf_cli_get(&cmd, "json"))
        st = lf_graph_write_json(s.graph, stdout);
    else if ((st = lf_network_print_summary(stdout, s.cm, &s.hw)) == LF_OK && !lf_cli_get(&cmd, "no-layers"))
        st = lf_network_print_ops(stdout, s.cm);
    lf_cli_session_close(&s);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

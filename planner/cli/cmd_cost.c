/* fusionplan cost: one group's F_beta and F_D with the row windows behind them. */
#include <stdio.h>

#include "planner/app/cli/cli.h"

int lf_cmd_cost(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"group", "OPS", "ops of the group: names or ids, comma-separated; id ranges like 3-9", NULL},
    };
    lf_cli_command cmd = {"cost", "Evaluate one fusion group.",
                          "cost --group OPS [--model NAME] [--hw FILE] [--buffer SIZE] [--scheme lbdf|brr]",
                          "Prints F_beta (buffer bytes the group needs) and F_D (DRAM bytes it "
                          "moves), and for every tensor\nthe row window it holds on chip at the "
                          "moment of peak buffer use. See docs/cost-models.md.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    const char *list = lf_cli_get(&cmd, "group");
    if (!list)
        return lf_cli_usage_error(&cmd, "--group is required");
    lf_cli_session s;
    if ((rc = lf_cli_session_open(&s, &cmd)))
        return rc;
    lf_bitset grp;
    lf_cost_report rep = {0};
    lf_status st = lf_bitset_init(&grp, s.graph->n_ops);
    if (st == LF_OK)
        st = lf_cli_parse_ops(s.graph, list, &grp);
    if (st == LF_OK)
        st = lf_cost_explain(s.cm, &grp, &rep);
    if (st == LF_OK)
        lf_cost_report_print(stdout, s.cm, &grp, &rep);
    lf_cost_report_destroy(&rep);
    lf_bitset_destroy(&grp);
    lf_cli_session_close(&s);
    return st == LF_OK ? LF_EXIT_OK : lf_cli_fail(st);
}

/* The --split / --proposer / --k options shared by `plan` and `bench`: builds
 * the splitter the partition searches use to repair invalid groups. */
#include <stdio.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "splitter/tree.h"

int lf_cli_make_splitter(const lf_cli_command *cmd, const char *split, const char *proposer,
                         int32_t k, int measure_gap, lf_splitter **out)
{
    *out = NULL;
    if (!split || strcmp(split, "random") == 0) {
        if (proposer)
            return lf_cli_usage_error(cmd, "--proposer needs --split tree");
        return 0;
    }
    if (strcmp(split, "tree") != 0)
        return lf_cli_usage_error(cmd, "unknown --split '%s' (use random or tree)", split);
    const lf_proposer *p = NULL;
    if (lf_proposer_find(proposer ? proposer : "all", &p) != LF_OK)
        return lf_cli_usage_error(cmd, "%s", lf_last_error());
    lf_tree_options opt;
    lf_tree_options_default(&opt);
    opt.measure_gap = measure_gap;
    lf_status st = lf_splitter_tree_create(out, p, k, &opt);
    return st == LF_OK ? 0 : lf_cli_fail(st);
}

/* The --split / --proposer / --k options shared by `plan` and `bench`: builds
 * the splitter the partition searches use to repair invalid groups. */
#include <stdio.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "splitter/tree.h"

int lf_cli_make_splitter(const lf_cli_command *cmd, const char *split, const lf_proposer *p,
                         int32_t k, int measure_gap, lf_splitter **out)
{
    *out = NULL;
    (void)cmd;
    if (!split || strcmp(split, "random") == 0)
        return 0;
    lf_tree_options opt;
    lf_tree_options_default(&opt);
    opt.measure_gap = measure_gap;
    lf_status st = lf_splitter_tree_create(out, p, k, &opt);
    return st == LF_OK ? 0 : lf_cli_fail(st);
}

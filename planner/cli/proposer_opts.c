/* Edge proposers by name for the CLI: thin wrappers over the library's
 * explain/proposer_named.h. */
#include "planner/cli/cli.h"

lf_status lf_cli_proposer_open(lf_cli_proposer *cp, const char *name, lf_cost_model *cm,
                               const char *gnn_path, const char *pg_path, const char *rg_path)
{
    return lf_named_proposer_open(cp, name, cm, gnn_path, pg_path, rg_path);
}

void lf_cli_proposer_close(lf_cli_proposer *cp)
{
    lf_named_proposer_close(cp);
}

/* The search options (--budget, --seed, --threads, --population, --k,
 * --seeds, --guided) parsed from one table, so that every command that runs a search
 * accepts the same values with the same defaults. A command lists the
 * options it offers (LF_CLI_SEARCH_OPTS and friends); absent ones take the
 * table's default. */
#include <string.h>

#include "planner/app/cli/cli.h"

/* Seeds stop at INT64_MAX / 2 so that a run of --seeds K from --seed S
 * (compare, sweep) never wraps. */
static const struct {
    const char *name;
    int64_t def, min, max;
} lf__search_opts[] = {
    {"budget", LF_CLI_DEFAULT_BUDGET, 1, 100000000},
    {"seed", 1, 0, INT64_MAX / 2},
    {"threads", 0, 0, 1024},
    {"population", 10, 1, 100000},
    {"k", 3, 0, 1000000},
    {"seeds", 3, 1, 1000},
    {"polish", 0, 0, 100000},
};

int lf_cli_search_opt(const lf_cli_command *cmd, const char *name, int64_t def, int64_t *out)
{
    for (size_t i = 0; i < sizeof lf__search_opts / sizeof lf__search_opts[0]; i++)
        if (strcmp(lf__search_opts[i].name, name) == 0)
            return lf_cli_int(cmd, name, def, lf__search_opts[i].min, lf__search_opts[i].max, out);
    return lf_cli_usage_error(cmd, "no search option --%s", name); /* a bug in the caller */
}

int lf_cli_search_opts(const lf_cli_command *cmd, lf_cli_search_values *v)
{
    int64_t x[sizeof lf__search_opts / sizeof lf__search_opts[0]];
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) {
        int rc = lf_cli_int(cmd, lf__search_opts[i].name, lf__search_opts[i].def,
                            lf__search_opts[i].min, lf__search_opts[i].max, &x[i]);
        if (rc)
            return rc;
    }
    v->budget = x[0];
    v->seed = x[1];
    v->threads = x[2];
    v->population = x[3];
    v->k = x[4];
    v->seeds = x[5];
    v->polish = x[6];
    v->guided = lf_cli_get(cmd, "guided") != NULL;
    return 0;
}

void lf_cli_search_apply(const lf_cli_search_values *v, lf_planner_config *pc)
{
    pc->budget = v->budget;
    pc->seed = (uint64_t)v->seed;
    pc->threads = (int32_t)v->threads;
    pc->population = (int32_t)v->population;
    pc->k = (int32_t)v->k;
    pc->guided = v->guided;
    pc->polish = (int32_t)v->polish;
}

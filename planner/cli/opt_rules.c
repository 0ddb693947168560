/* Declarative option checks shared by the commands: names checked against
 * the library's registries, and options that apply only when another option
 * has a given value. A command lists its rules in a table instead of
 * spelling each check out. */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"

int lf_cli_name(const lf_cli_command *cmd, const char *opt, lf_name_kind kind, const char *def,
                const char **out)
{
    const char *v = lf_cli_get(cmd, opt);
    *out = v ? v : def;
    if (!v || lf_name_known(kind, v))
        return 0;
    char list[256];
    return lf_cli_usage_error(cmd, "unknown --%s '%s' (use %s)", opt, v,
                              lf_names_format(kind, list, sizeof list));
}

int lf_cli_check_rules(const lf_cli_command *cmd, const lf_cli_rule *rules, int n)
{
    for (int i = 0; i < n; i++) {
        const lf_cli_rule *r = &rules[i];
        if (!lf_cli_get(cmd, r->opt))
            continue;
        const char *v = lf_cli_get(cmd, r->needs);
        if (!v)
            v = r->needs_default;
        int ok = v && (r->kind >= 0 ? lf_name_known((lf_name_kind)r->kind, v)
                                    : !r->value || strcmp(v, r->value) == 0);
        if (!ok)
            return lf_cli_usage_error(cmd, "%s", r->message);
    }
    return 0;
}

int lf_cli_list(const lf_cli_command *cmd, const char *opt, const char *def, int kind, char *buf,
                size_t len, char **items, int max, int *n)
{
    const char *v = lf_cli_get(cmd, opt);
    snprintf(buf, len, "%s", v ? v : def);
    *n = lf_cli_split_list(buf, items, max);
    for (int i = 0; kind >= 0 && i < *n && i < max; i++)
        if (lf_name_check((lf_name_kind)kind, items[i]) != LF_OK)
            return lf_cli_usage_error(cmd, "%s", lf_last_error());
    return 0;
}

/* Option parsing and error reporting for the CLI. Options are long only
 * ("--name value" or "--name=value") so that every command reads the same
 * way; anything unexpected is one error line and exit status 2. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/util/fileio.h"
#include "planner/util/format.h"

static lf_cli_opt *lf__find_opt(lf_cli_command *cmd, const char *name, size_t len)
{
    for (int i = 0; i < cmd->n_opts; i++)
        if (strlen(cmd->opts[i].name) == len && strncmp(cmd->opts[i].name, name, len) == 0)
            return &cmd->opts[i];
    return NULL;
}

int lf_cli_usage_error(const lf_cli_command *cmd, const char *fmt, ...)
{
    /* Option values are the user's text: one escaped line, the middle of an
     * overlong one cut (lf_text_line), never a forged second line. */
    char full[4096], line[LF_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(full, sizeof full, fmt, ap);
    va_end(ap);
    lf_text_line(line, sizeof line, full);
    fprintf(stderr, "fusionplan %s: %s (see 'fusionplan %s --help')\n", cmd->name, line, cmd->name);
    return LF_EXIT_USAGE;
}

int lf_cli_parse_file(lf_cli_command *cmd, int argc, char **argv, const char **file)
{
    *file = NULL;
    if (argc > 0 && argv[0][0] != '-') {
        *file = argv[0];
        argc--;
        argv++;
    }
    return lf_cli_parse(cmd, argc, argv);
}

int lf_cli_parse(lf_cli_command *cmd, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            lf_cli_help(cmd, stdout);
            return 1;
        }
        /* -o is the short option for the output file every tool has; any
         * other "-x" stands for an option whose whole name is that letter
         * (schedule's -r and -s, the knobs' names in the papers). */
        char shortopt[4];
        if (strcmp(a, "-o") == 0 && lf__find_opt(cmd, "output", 6)) {
            a = "--output";
        } else if (a[0] == '-' && a[1] && a[1] != '-' && !a[2] && lf__find_opt(cmd, a + 1, 1)) {
            snprintf(shortopt, sizeof shortopt, "--%c", a[1]);
            a = shortopt;
        }
        if (strncmp(a, "--", 2) != 0)
            return lf_cli_usage_error(cmd, "unexpected argument '%s'", a);
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        lf_cli_opt *o = lf__find_opt(cmd, name, len);
        if (!o)
            return lf_cli_usage_error(cmd, "unknown option '--%.*s'", (int)len, name);
        if (o->value)
            return lf_cli_usage_error(cmd, "option '--%s' given twice", o->name);
        if (!o->metavar) {
            if (eq)
                return lf_cli_usage_error(cmd, "option '--%s' takes no value", o->name);
            o->value = "1";
        } else if (eq) {
            o->value = eq + 1;
        } else if (i + 1 < argc) {
            o->value = argv[++i];
        } else {
            return lf_cli_usage_error(cmd, "option '--%s' needs a value (%s)", o->name, o->metavar);
        }
        if (o->metavar && !*o->value)
            return lf_cli_usage_error(cmd, "option '--%s' has an empty value", o->name);
    }
    return 0;
}

void lf_cli_help(const lf_cli_command *cmd, FILE *f)
{
    fprintf(f, "usage: fusionplan %s\n\n%s\n", cmd->usage, cmd->summary);
    if (cmd->description)
        fprintf(f, "\n%s\n", cmd->description);
    fprintf(f, "\noptions:\n");
    for (int i = 0; i < cmd->n_opts; i++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", cmd->opts[i].name, cmd->opts[i].metavar ? " " : "",
                 cmd->opts[i].metavar ? cmd->opts[i].metavar : "");
        fprintf(f, "  %-24s %s\n", left, cmd->opts[i].help);
    }
    fprintf(f, "  %-24s %s\n", "--help", "show this help");
}

const char *lf_cli_get(const lf_cli_command *cmd, const char *name)
{
    for (int i = 0; i < cmd->n_opts; i++)
        if (strcmp(cmd->opts[i].name, name) == 0)
            return cmd->opts[i].value;
    return NULL;
}

const char *lf_cli_get_or(const lf_cli_command *cmd, const char *name, const char *def)
{
    const char *v = lf_cli_get(cmd, name);
    return v ? v : def;
}

int lf_cli_fail(lf_status st)
{
    fprintf(stderr, "fusionplan: %s\n", lf_last_error());
    switch (st) {
    case LF_ENOMEM:
    case LF_ELIMIT:
    case LF_EPLAN:
    case LF_ENOSYS:
        return LF_EXIT_FAIL;
    case LF_EIO:
        /* A missing or unreadable input is the user's to fix; a failed write
         * of an output file is reported the same way. */
        return LF_EXIT_USAGE;
    default:
        return st == LF_OK ? LF_EXIT_OK : LF_EXIT_USAGE;
    }
}

int lf_cli_check_outputs(const char *const *paths, int n)
{
    for (int i = 0; i < n; i++) {
        lf_status st = paths[i] ? lf_output_check(paths[i]) : LF_OK;
        if (st != LF_OK)
            return lf_cli_fail(st);
    }
    return 0;
}

int lf_cli_int(const lf_cli_command *cmd, const char *name, int64_t def, int64_t min, int64_t max,
               int64_t *out)
{
    const char *v = lf_cli_get(cmd, name);
    if (!v) {
        *out = def;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    /* strtoll skips leading blanks; an option value is taken as written. */
    if (errno || end == v || *end || !(v[0] == '-' || v[0] == '+' || (v[0] >= '0' && v[0] <= '9')))
        return lf_cli_usage_error(cmd, "--%s expects an integer, got '%s'", name, v);
    if (x < min || x > max)
        return lf_cli_usage_error(cmd, "--%s must be between %" PRId64 " and %" PRId64 ", got %lld",
                                  name, min, max, x);
    *out = x;
    return 0;
}

void lf_cli_commas(int64_t v, char *buf, size_t len)
{
    lf_format_commas(v, buf, len);
}

int lf_cli_split_list(char *s, char **items, int max)
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n < max)
            items[n] = t;
        n++;
    }
    return n;
}

int lf_cli_double(const lf_cli_command *cmd, const char *name, double def, double lo, double hi,
                  double *out)
{
    const char *v = lf_cli_get(cmd, name);
    *out = def;
    if (!v)
        return 0;
    char *end = NULL;
    double x = strtod(v, &end);
    if (!*v || *end || !(x >= lo && x <= hi))
        return lf_cli_usage_error(cmd, "--%s: '%s' is not a number in [%g, %g]", name, v, lo, hi);
    *out = x;
    return 0;
}

int lf_cli_unknown(const lf_cli_command *cmd, const char *opt, const char *value,
                   const char *const *choices)
{
    char list[256] = "";
    size_t used = 0;
    int count = 0;
    while (choices[count])
        count++;
    for (int i = 0; i < count && used < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s",
                         i == 0 ? "" : i == count - 1 ? " or " : ", ", choices[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return lf_cli_usage_error(cmd, "unknown --%s '%s' (use %s)", opt, value, list);
}

int lf_cli_choice(const lf_cli_command *cmd, const char *opt, const char *const *choices,
                  const char **out)
{
    const char *v = lf_cli_get(cmd, opt);
    *out = choices[0];
    if (!v)
        return 0;
    for (int i = 0; choices[i]; i++)
        if (strcmp(choices[i], v) == 0) {
            *out = choices[i];
            return 0;
        }
    return lf_cli_unknown(cmd, opt, v, choices);
}

int lf_cli_sizes(const lf_cli_command *cmd, const char *opt, char *const *items, int n,
                 int64_t *out)
{
    for (int i = 0; i < n; i++)
        if (lf_hw_parse_size(items[i], &out[i]) != LF_OK)
            return lf_cli_usage_error(cmd, "--%s: %s", opt, lf_last_error());
    return 0;
}

/* Parsing of the exact planner's limit options (see exact_opts.h). */
#include "planner/app/cli/exact_opts.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int lf_cli_exact_config(const lf_cli_command *cmd, lf_exact_config *cfg)
{
    lf_exact_config_default(cfg);
    const char *t = lf_cli_get(cmd, "time-limit");
    if (t) {
        char *end = NULL;
        errno = 0;
        double s = strtod(t, &end);
        if (errno || end == t || *end || !isfinite(s) || s < 0 || s > 1e7)
            return lf_cli_usage_error(cmd, "--time-limit expects seconds between 0 and 10000000 "
                                           "(0: none), got '%s'",
                                      t);
        cfg->time_limit_s = s;
    }
    const char *m = lf_cli_get(cmd, "memory-limit");
    if (m) {
        int64_t bytes = 0;
        if (strcmp(m, "0") == 0)
            bytes = 0;
        else if (lf_hw_parse_size(m, &bytes) != LF_OK)
            return lf_cli_usage_error(cmd, "--memory-limit: %s", lf_last_error());
        cfg->memory_limit = bytes;
    }
    int64_t n;
    int rc = lf_cli_int(cmd, "max-candidates", LF_EXACT_DEFAULT_CANDIDATES, 1, INT64_MAX, &n);
    if (rc)
        return rc;
    cfg->max_candidates = n;
    /* States are numbered with 32-bit ids. */
    if ((rc = lf_cli_int(cmd, "max-states", LF_EXACT_DEFAULT_STATES, 1, INT32_MAX - 1, &n)))
        return rc;
    cfg->max_states = n;
    return 0;
}

int lf_cli_curve_threads(const lf_cli_command *cmd, lf_exact_config *cfg)
{
    int64_t n;
    int rc = lf_cli_int(cmd, "threads", 0, 1, 1024, &n);
    if (rc == 0)
        cfg->threads = (int32_t)n;
    return rc;
}

int lf_cli_exact_opts_given(const lf_cli_command *cmd)
{
    return lf_cli_get(cmd, "time-limit") || lf_cli_get(cmd, "memory-limit") ||
           lf_cli_get(cmd, "max-candidates") || lf_cli_get(cmd, "max-states");
}

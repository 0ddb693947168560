/* Run-time lookup of the shipped explainer weights (see weights_dir.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain/weights_dir.h"

#ifndef LF_INSTALL_WEIGHTS_DIR
#define LF_INSTALL_WEIGHTS_DIR "/usr/local/share/fusionplan/weights"
#endif

/* Folder of the running executable, without the trailing slash ("" when the
 * system does not tell, e.g. without /proc). */
static void lf__exe_dir(char *out, size_t len)
{
    out[0] = '\0';
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0';
    snprintf(out, len, "%s", exe);
}

static int lf__readable(const char *path)
{
    return access(path, R_OK) == 0;
}

lf_status lf_weights_find(const char *file, char *out, size_t len)
{
    const char *env = getenv("FUSIONPLAN_WEIGHTS_DIR");
    if (env && *env) {
        int n = snprintf(out, len, "%s/%s", env, file);
        if (n < 0 || (size_t)n >= len)
            return lf_set_error(LF_EINVAL, "FUSIONPLAN_WEIGHTS_DIR is too long");
        if (!lf__readable(out))
            return lf_set_error(LF_EIO, "shipped weights %s not found in FUSIONPLAN_WEIGHTS_DIR (%s)", file,
                                env);
        return LF_OK;
    }
    char exe[4096];
    lf__exe_dir(exe, sizeof exe);
    char dirs[3][4200];
    int nd = 0;
    if (exe[0]) {
        snprintf(dirs[nd++], sizeof dirs[0], "%s/share/fusionplan/weights", exe);
        snprintf(dirs[nd++], sizeof dirs[0], "%s/../share/fusionplan/weights", exe);
    }
    snprintf(dirs[nd++], sizeof dirs[0], "%s", LF_INSTALL_WEIGHTS_DIR);
    for (int i = 0; i < nd; i++) {
        int n = snprintf(out, len, "%s/%s", dirs[i], file);
        if (n > 0 && (size_t)n < len && lf__readable(out))
            return LF_OK;
    }
    return lf_set_error(LF_EIO,
                        "shipped weights %s not found next to the executable or in %s "
                        "(set FUSIONPLAN_WEIGHTS_DIR, or pass the weight file explicitly)",
                        file, LF_INSTALL_WEIGHTS_DIR);
}

#include "planner/status.h"

#include <stdio.h>
#include <string.h>

static _Thread_local char lf__message[512];
static _Thread_local lf_status lf__last_status;

const char *lf_strerror(lf_status s)
{
    switch (s) {
    case LF_OK: return "success";
    case LF_EINVAL: return "invalid argument";
    case LF_ENOMEM: return "out of memory";
    case LF_EIO: return "input/output error";
    case LF_EPARSE: return "malformed input";
    case LF_EGRAPH: return "invalid graph";
    case LF_ENOTFOUND: return "not found";
    case LF_ELIMIT: return "limit exceeded";
    case LF_ENOSYS: return "feature not built in";
    case LF_EUNSUPPORTED: return "unsupported";
    case LF_ERANGE: return "value out of range";
    case LF_EPLAN: return "invalid plan";
    }
    return "unknown status";
}

lf_status lf_set_verror(lf_status s, const char *fmt, va_list ap)
{
    lf__last_status = s;
    if (fmt)
        vsnprintf(lf__message, sizeof lf__message, fmt, ap);
    else
        lf__message[0] = '\0';
    return s;
}

lf_status lf_set_error(lf_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lf_set_verror(s, fmt, ap);
    va_end(ap);
    return s;
}

const char *lf_last_error(void)
{
    if (lf__message[0])
        return lf__message;
    return lf_strerror(lf__last_status);
}

lf_status lf_last_status(void) { return lf__last_status; }

void lf_clear_error(void)
{
    lf__message[0] = '\0';
    lf__last_status = LF_OK;
}

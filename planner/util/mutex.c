#include "planner/util/mutex.h"

lf_status lf_mutex_init(lf_mutex *mu, const char *what)
{
    if (pthread_mutex_init(&mu->m, NULL) != 0)
        return lf_set_error(LF_ENOMEM, "cannot create the lock of %s", what);
    return LF_OK;
}

void lf_mutex_destroy(lf_mutex *mu) { pthread_mutex_destroy(&mu->m); }

/* The library's one lock: a mutex over POSIX threads, the threads the worker
 * pool (pool.h) and the MPI runner make. It does not depend on OpenMP, so
 * shared state (the cost memo, the splitter memo, the busy clock) is locked
 * in every build, and ThreadSanitizer (LF_TSAN) sees every lock.
 *
 * Not recursive. Lock and unlock are inline: the cost memo takes a lock per
 * group evaluation. The pool's condition variables need the raw pthread
 * mutex, so pool.c keeps its own. */
#ifndef LF_MUTEX_H
#define LF_MUTEX_H

#include <pthread.h>

#include "planner/status.h"

typedef struct lf_mutex {
    pthread_mutex_t m;
} lf_mutex;

/* LF_ENOMEM with a message naming `what` when the system refuses. */
lf_status lf_mutex_init(lf_mutex *mu, const char *what);
void lf_mutex_destroy(lf_mutex *mu); /* only after a successful init */

static inline void lf_mutex_lock(lf_mutex *mu) { pthread_mutex_lock(&mu->m); }
static inline void lf_mutex_unlock(lf_mutex *mu) { pthread_mutex_unlock(&mu->m); }

#endif

/* A stash of reusable scratch objects shared by threads: a caller takes
 * one (or makes its own when the stash is empty), uses it alone, and gives
 * it back for the next caller. Objects that an explainer or a cost
 * evaluation would otherwise allocate and free once per call (buffers of
 * hundreds of kilobytes, each first touch a page fault) then live as long
 * as their owner, one per thread that ever ran at once.
 *
 * Thread-safe (one lf_mutex); the objects are opaque to it. */
#ifndef LF_STASH_H
#define LF_STASH_H

#include <stdint.h>

#include "planner/util/mutex.h"

typedef struct lf_stash {
    lf_mutex mu;
    void **items;
    int32_t n, cap;
    void (*destroy)(void *item); /* frees what the stash still holds at the end */
} lf_stash;

lf_status lf_stash_init(lf_stash *s, void (*destroy)(void *item), const char *what);
/* Destroys every object given back; the stash is unusable afterwards. */
void lf_stash_destroy(lf_stash *s);
/* An object given back earlier, or NULL when there is none. */
void *lf_stash_take(lf_stash *s);
/* Keeps item for the next taker (or destroys it when no memory is left to
 * keep it). NULL is ignored. */
void lf_stash_give(lf_stash *s, void *item);

#endif

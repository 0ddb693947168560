/* Bump allocator for objects that live and die together (a graph's names and
 * edge lists, a report's rows). Blocks grow geometrically; everything is freed
 * at once by lf_arena_destroy. Not thread-safe. */
#ifndef LF_ARENA_H
#define LF_ARENA_H

#include <stddef.h>

typedef struct lf_arena_block lf_arena_block;

typedef struct lf_arena {
    lf_arena_block *head;
    size_t next_size;
} lf_arena;

void lf_arena_init(lf_arena *a);
void lf_arena_destroy(lf_arena *a);

/* Zeroed memory aligned for any type; NULL when out of memory. */
void *lf_arena_alloc(lf_arena *a, size_t size);
char *lf_arena_strdup(lf_arena *a, const char *s);

#endif

#include "planner/util/arena.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

struct lf_arena_block {
    lf_arena_block *next;
    size_t used, size;
    alignas(max_align_t) unsigned char data[];
};

void lf_arena_init(lf_arena *a)
{
    a->head = NULL;
    a->next_size = 4096;
}

void lf_arena_destroy(lf_arena *a)
{
    lf_arena_block *b = a->head;
    while (b) {
        lf_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
}

void *lf_arena_alloc(lf_arena *a, size_t size)
{
    const size_t align = alignof(max_align_t);
    size = (size + align - 1) / align * align;
    if (size == 0)
        size = align;
    lf_arena_block *b = a->head;
    if (!b || b->size - b->used < size) {
        size_t want = a->next_size;
        while (want < size)
            want *= 2;
        b = malloc(sizeof *b + want);
        if (!b)
            return NULL;
        b->next = a->head;
        b->used = 0;
        b->size = want;
        a->head = b;
        if (a->next_size < ((size_t)1 << 24))
            a->next_size *= 2;
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *lf_arena_strdup(lf_arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = lf_arena_alloc(a, n);
    if (d)
        memcpy(d, s, n);
    return d;
}

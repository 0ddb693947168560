#include "planner/util/stash.h"

#include <stdlib.h>

lf_status lf_stash_init(lf_stash *s, void (*destroy)(void *item), const char *what)
{
    s->items = NULL;
    s->n = s->cap = 0;
    s->destroy = destroy;
    return lf_mutex_init(&s->mu, what);
}

void lf_stash_destroy(lf_stash *s)
{
    for (int32_t i = 0; i < s->n; i++)
        s->destroy(s->items[i]);
    free(s->items);
    s->items = NULL;
    s->n = s->cap = 0;
    lf_mutex_destroy(&s->mu);
}

void *lf_stash_take(lf_stash *s)
{
    lf_mutex_lock(&s->mu);
    void *item = s->n > 0 ? s->items[--s->n] : NULL;
    lf_mutex_unlock(&s->mu);
    return item;
}

void lf_stash_give(lf_stash *s, void *item)
{
    if (!item)
        return;
    lf_mutex_lock(&s->mu);
    if (s->n == s->cap) {
        int32_t cap = s->cap ? 2 * s->cap : 4;
        void **p = realloc(s->items, (size_t)cap * sizeof *p);
        if (!p) {
            lf_mutex_unlock(&s->mu);
            s->destroy(item);
            return;
        }
        s->items = p;
        s->cap = cap;
    }
    s->items[s->n++] = item;
    lf_mutex_unlock(&s->mu);
}

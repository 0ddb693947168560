/* The builder's store that building, folding (graph_fold.c) and freezing
 * (graph_freeze.c) share: appending a constant, and the sorted index of op
 * and constant names. */
#include <stdlib.h>
#include <string.h>

#include "planner/graph_internal.h"

int32_t lf__builder_push_const(lf_graph_builder *b, const char *name, lf_shape shape, float *data,
                               int borrowed)
{
    float *own = borrowed ? NULL : data; /* a borrowed one is the adopted buffer's */
    if (b->nc == b->ccap) {
        int32_t cap = b->ccap ? b->ccap * 2 : 64;
        lf__pending_const *cs = realloc(b->consts, (size_t)cap * sizeof *cs);
        if (!cs) {
            free(own);
            return lf_set_error(LF_ENOMEM, "out of memory adding constant '%s'", name);
        }
        b->consts = cs;
        b->ccap = cap;
    }
    lf__pending_const *c = &b->consts[b->nc];
    c->name = strdup(name);
    if (!c->name) {
        free(own);
        return lf_set_error(LF_ENOMEM, "out of memory adding constant '%s'", name);
    }
    c->shape = shape;
    c->data = data;
    c->borrowed = borrowed && data;
    return b->nc++;
}

/* Names of ops and constants share one sorted index: entry e < b->n is op e,
 * otherwise constant e - b->n. Binary search keeps the builder free of a hash
 * table. */
const char *lf__builder_entry_name(const lf_graph_builder *b, int32_t e)
{
    return e < b->n ? b->ops[e].name : b->consts[e - b->n].name;
}

/* qsort has no context argument; the builder being sorted is per thread. */
static _Thread_local const lf_graph_builder *lf__sort_b;
static int lf__cmp_names(const void *x, const void *y)
{
    int32_t ia = *(const int32_t *)x, ib = *(const int32_t *)y;
    int c = strcmp(lf__builder_entry_name(lf__sort_b, ia), lf__builder_entry_name(lf__sort_b, ib));
    return c ? c : (ia > ib) - (ia < ib);
}

int32_t lf__builder_find(const lf_graph_builder *b, const lf__build_scratch *s, const char *name)
{
    int32_t lo = 0, hi = s->n_names - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(lf__builder_entry_name(b, s->names_order[mid]), name);
        if (c == 0)
            return s->names_order[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

void lf__builder_sort_names(const lf_graph_builder *b, lf__build_scratch *s)
{
    s->n_names = b->n + b->nc;
    for (int32_t i = 0; i < s->n_names; i++)
        s->names_order[i] = i;
    lf__sort_b = b;
    qsort(s->names_order, (size_t)s->n_names, sizeof(int32_t), lf__cmp_names);
}

int lf__builder_name_taken(const lf_graph_builder *b, const lf__build_scratch *s, const char *name)
{
    return lf__builder_find(b, s, name) >= 0;
}

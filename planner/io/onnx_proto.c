/* The protobuf-c helpers that the model loader (onnx_load.c) and the tensor
 * reader (onnx_tensor.c) share: the capped allocator and the folder of a
 * path (external data is read relative to the model). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_proto.h"

static void *lf__alloc(void *data, size_t size)
{
    lf__ox_alloc *a = data;
    if ((int64_t)size > a->cap - a->used)
        return NULL;
    void *p = malloc(size ? size : 1);
    if (p)
        a->used += (int64_t)size;
    return p;
}

static void lf__free(void *data, void *p)
{
    (void)data;
    free(p);
}

void lf__ox_alloc_init(lf__ox_alloc *a, int64_t cap)
{
    a->base.alloc = lf__alloc;
    a->base.free = lf__free;
    a->base.allocator_data = a;
    a->used = 0;
    a->cap = cap;
}

void lf__ox_dirname(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, len, ".");
    else if (slash == path)
        snprintf(out, len, "/");
    else
        snprintf(out, len, "%.*s", (int)(slash - path), path);
}

/* Storage of the importer's own graph (values, nodes, attributes), its size
 * caps, error lines and the report of rewrites. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_internal.h"
#include "planner/io/onnx_report.h"

lf_status lf__ox_init(lf__ox_graph *g, const char *path, const lf_onnx_options *opt)
{
    memset(g, 0, sizeof *g);
    g->file_fd = -1;
    lf_arena_init(&g->arena);
    if (opt)
        g->opt = *opt;
    if (g->opt.max_file_bytes <= 0)
        g->opt.max_file_bytes = (int64_t)2 << 30;
    if (g->opt.max_const_bytes <= 0)
        g->opt.max_const_bytes = (int64_t)4 << 30;
    if (g->opt.max_elems <= 0)
        g->opt.max_elems = (int64_t)1 << 31;
    if (g->opt.max_nodes <= 0)
        g->opt.max_nodes = 1000000;
    g->path = lf_arena_strdup(&g->arena, path ? path : "(memory)");
    if (!g->path || lf_strmap_init(&g->by_name, 256) != LF_OK ||
        !(g->report = lf__onnx_report_create())) {
        lf__ox_destroy(g);
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", path ? path : "(memory)");
    }
    return LF_OK;
}

void lf__ox_data_free(lf__ox_data *d)
{
    if (d->in_block) /* the weight block's: its pages go back, the block stays */
        lf__ox_block_forget(d->f, (size_t)d->count * sizeof *d->f);
    else
        free(d->f);
    free(d->i);
    d->in_block = 0;
    d->f = NULL;
    d->i = NULL;
}

void lf__ox_destroy(lf__ox_graph *g)
{
    for (int32_t v = 0; v < g->n_values; v++) {
        if (g->values[v].data_lent) { /* the lowered graph's now (onnx_operand.c) */
            g->values[v].data.f = NULL;
            g->values[v].data.in_block = 0;
        }
        lf__ox_data_free(&g->values[v].data);
    }
    free(g->block); /* NULL once handed to the lowered graph (lf__ox_block_hand_over) */
    for (int32_t n = 0; n < g->n_nodes; n++) {
        free(g->nodes[n].in);
        free(g->nodes[n].out);
    }
    free(g->values);
    free(g->nodes);
    free(g->order);
    lf_strmap_destroy(&g->by_name);
    lf_onnx_report_free(g->report);
    lf_arena_destroy(&g->arena);
    memset(g, 0, sizeof *g);
}

lf_status lf__ox_fail(const lf__ox_graph *g, int32_t node, lf_status st, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (node >= 0 && node < g->n_nodes)
        return lf_set_error(st, "%s: node '%s' (%s): %s", g->path, g->nodes[node].name,
                            g->nodes[node].op, msg);
    return lf_set_error(st, "%s: %s", g->path, msg);
}

void lf__ox_note(lf__ox_graph *g, lf_onnx_rewrite kind, int32_t node, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lf__onnx_report_add(g->report, kind, node >= 0 ? g->nodes[node].name : "", msg);
}

int32_t lf__ox_find(const lf__ox_graph *g, const char *name)
{
    void *v;
    if (lf_strmap_get(&g->by_name, name, &v))
        return (int32_t)((intptr_t)v - 1);
    return -1;
}

static int32_t lf__ox_push_value(lf__ox_graph *g, const char *name)
{
    if (g->n_values == g->cap_values) {
        int32_t cap = g->cap_values ? 2 * g->cap_values : 256;
        if (cap > 4 * g->opt.max_nodes + 1024)
            return lf__ox_fail(g, -1, LF_ERANGE, "more than %d values", (int)(4 * g->opt.max_nodes));
        lf__ox_value *nv = realloc(g->values, (size_t)cap * sizeof *nv);
        if (!nv)
            return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
        g->values = nv;
        g->cap_values = cap;
    }
    int32_t id = g->n_values;
    lf__ox_value *v = &g->values[id];
    memset(v, 0, sizeof *v);
    v->name = lf_arena_strdup(&g->arena, name);
    v->rank = -1;
    v->producer = -1;
    if (!v->name || lf_strmap_put(&g->by_name, name, (void *)(intptr_t)(id + 1)) != LF_OK)
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    g->n_values++;
    return id;
}

int32_t lf__ox_value_id(lf__ox_graph *g, const char *name)
{
    int32_t id = lf__ox_find(g, name);
    return id >= 0 ? id : lf__ox_push_value(g, name);
}

int32_t lf__ox_new_value(lf__ox_graph *g, const char *base)
{
    char name[300];
    for (int k = 1;; k++) {
        snprintf(name, sizeof name, "%s_%d", base, k);
        if (lf__ox_find(g, name) < 0)
            return lf__ox_push_value(g, name);
    }
}

int32_t lf__ox_add_node(lf__ox_graph *g, const char *name, const char *op, const int32_t *in,
                        int32_t n_in, const int32_t *out, int32_t n_out)
{
    if (g->n_nodes >= g->opt.max_nodes)
        return lf__ox_fail(g, -1, LF_ERANGE, "more than %d nodes", (int)g->opt.max_nodes);
    if (g->n_nodes == g->cap_nodes) {
        int32_t cap = g->cap_nodes ? 2 * g->cap_nodes : 256;
        lf__ox_node *nn = realloc(g->nodes, (size_t)cap * sizeof *nn);
        if (!nn)
            return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
        g->nodes = nn;
        g->cap_nodes = cap;
    }
    lf__ox_node *n = &g->nodes[g->n_nodes];
    memset(n, 0, sizeof *n);
    n->index = g->n_nodes;
    n->op = lf_arena_strdup(&g->arena, op);
    n->name = lf_arena_strdup(&g->arena, name);
    n->in = malloc((size_t)(n_in > 0 ? n_in : 1) * sizeof *n->in);
    n->out = malloc((size_t)(n_out > 0 ? n_out : 1) * sizeof *n->out);
    if (!n->op || !n->name || !n->in || !n->out) {
        free(n->in);
        free(n->out);
        return lf_set_error(LF_ENOMEM, "out of memory importing %s", g->path);
    }
    if (n_in)
        memcpy(n->in, in, (size_t)n_in * sizeof *in);
    if (n_out)
        memcpy(n->out, out, (size_t)n_out * sizeof *out);
    n->n_in = n_in;
    n->n_out = n_out;
    return g->n_nodes++;
}

const lf__ox_attr *lf__ox_attr_get(const lf__ox_node *n, const char *name)
{
    for (int32_t a = 0; a < n->n_attr; a++)
        if (strcmp(n->attr[a].name, name) == 0)
            return &n->attr[a];
    return NULL;
}

int64_t lf__ox_attr_int(const lf__ox_node *n, const char *name, int64_t def)
{
    const lf__ox_attr *a = lf__ox_attr_get(n, name);
    return a && a->type == 2 ? a->i : def;
}

float lf__ox_attr_float(const lf__ox_node *n, const char *name, float def)
{
    const lf__ox_attr *a = lf__ox_attr_get(n, name);
    return a && a->type == 1 ? a->f : def;
}

const char *lf__ox_attr_str(const lf__ox_node *n, const char *name, const char *def)
{
    const lf__ox_attr *a = lf__ox_attr_get(n, name);
    return a && a->type == 3 && a->s ? a->s : def;
}

int64_t lf__ox_f2i(double v)
{
    if (v != v)
        return 0;
    /* 2^63 is exact in double; every double below it converts safely. */
    if (v >= 9223372036854775808.0)
        return INT64_MAX;
    if (v <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}

int64_t lf__ox_count(const int64_t *dims, int32_t rank)
{
    int64_t c = 1;
    for (int32_t k = 0; k < rank; k++) {
        if (dims[k] < 0)
            return -1;
        if (dims[k] != 0 && c > INT64_MAX / dims[k])
            return -1;
        c *= dims[k];
    }
    return c;
}

static lf_status lf__data_alloc(lf__ox_graph *g, lf__ox_data *d, int is_int, int32_t rank,
                                const int64_t *dims, int filled, int in_block)
{
    memset(d, 0, sizeof *d);
    if (rank < 0 || rank > LF__OX_MAX_RANK)
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "tensor of rank %d (at most %d)", (int)rank,
                           LF__OX_MAX_RANK);
    int64_t count = lf__ox_count(dims, rank);
    if (count < 0 || count > g->opt.max_elems)
        return lf__ox_fail(g, -1, LF_ERANGE, "tensor of %s elements exceeds the limit of %lld",
                           count < 0 ? "overflowing" : "too many", (long long)g->opt.max_elems);
    int64_t bytes = count * (is_int ? 8 : 4);
    if (g->const_bytes + bytes > g->opt.max_const_bytes)
        return lf__ox_fail(g, -1, LF_ERANGE, "constant data beyond the limit of %lld bytes",
                           (long long)g->opt.max_const_bytes);
    d->rank = rank;
    if (rank > 0) /* a scalar TensorProto has no dims array at all */
        memcpy(d->dims, dims, (size_t)rank * sizeof *dims);
    d->count = count;
    size_t n = (size_t)(count > 0 ? count : 1);
    /* An empty tensor keeps the single zeroed element the reader allocates for it. */
    filled = filled && count > 0;
    if (!is_int && in_block && filled && (d->f = lf__ox_block_take(g, n * sizeof *d->f)))
        d->in_block = 1;
    else if (is_int)
        d->i = filled ? lf__ox_weights_alloc(n * sizeof *d->i) : calloc(n, sizeof *d->i);
    else
        d->f = filled ? lf__ox_weights_alloc(n * sizeof *d->f) : calloc(n, sizeof *d->f);
    if (!d->i && !d->f)
        return lf_set_error(LF_ENOMEM, "out of memory for a tensor of %lld elements in %s",
                            (long long)count, g->path);
    g->const_bytes += bytes;
    return LF_OK;
}

lf_status lf__ox_data_alloc(lf__ox_graph *g, lf__ox_data *d, int is_int, int32_t rank,
                            const int64_t *dims)
{
    return lf__data_alloc(g, d, is_int, rank, dims, 0, 0);
}

lf_status lf__ox_data_alloc_filled(lf__ox_graph *g, lf__ox_data *d, int is_int, int32_t rank,
                                   const int64_t *dims, int in_block)
{
    return lf__data_alloc(g, d, is_int, rank, dims, 1, in_block);
}

lf_status lf__ox_set_const(lf__ox_graph *g, int32_t v, lf__ox_data *d)
{
    lf__ox_value *val = &g->values[v];
    lf__ox_data_free(&val->data);
    val->data = *d;
    memset(d, 0, sizeof *d);
    val->is_const = 1;
    val->rank = val->data.rank;
    memcpy(val->dims, val->data.dims, sizeof val->dims);
    val->elem_type = val->data.i ? LF__OX_INT64 : LF__OX_FLOAT;
    return LF_OK;
}

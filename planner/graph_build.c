/* Graph construction: collects ops that name their operands and constants,
 * then sorts the ops topologically, folds constant-only ops (graph_fold.c) and
 * freezes the rest into an immutable lf_graph (graph_freeze.c). */
#include <stdlib.h>
#include <string.h>

#include "planner/graph.h"
#include "planner/graph_internal.h"
#include "planner/optable.h"

lf_status lf_graph_builder_create(lf_graph_builder **out, const char *name)
{
    lf_graph_builder *b = calloc(1, sizeof *b);
    if (!b || !(b->name = strdup(name ? name : "graph"))) {
        free(b);
        *out = NULL;
        return lf_set_error(LF_ENOMEM, "out of memory creating graph builder");
    }
    *out = b;
    return LF_OK;
}

void lf_graph_builder_free(lf_graph_builder *b)
{
    if (!b)
        return;
    for (int32_t i = 0; i < b->n; i++) {
        free(b->ops[i].name);
        for (int32_t j = 0; j < b->ops[i].n_names; j++)
            free(b->ops[i].names[j]);
        free(b->ops[i].names);
    }
    for (int32_t i = 0; i < b->nc; i++) {
        free(b->consts[i].name);
        if (!b->consts[i].borrowed)
            free(b->consts[i].data);
    }
    for (int32_t i = 0; i < b->n_adopted; i++) /* not moved to a built graph */
        free(b->adopted[i]);
    free(b->adopted);
    free(b->ops);
    free(b->consts);
    free(b->name);
    free(b);
}

void lf_graph_builder_set_folder(lf_graph_builder *b, lf_fold_fn fn, void *ctx)
{
    b->fold = fn;
    b->fold_ctx = ctx;
}

static int32_t lf__add(lf_graph_builder *b, lf_op_type type, const char *name,
                       const lf_attrs *attrs, const char *const *names, int32_t n_names,
                       int explicit_operands)
{
    if (!name || !*name)
        return lf_set_error(LF_EINVAL, "graph '%s': op %d has an empty name", b->name, (int)b->n);
    if (!lf_op_info_of(type))
        return lf_set_error(LF_EUNSUPPORTED, "graph '%s': op '%s' has unknown type %d", b->name, name,
                            (int)type);
    if (n_names < 0 || (n_names > 0 && !names))
        return lf_set_error(LF_EINVAL, "graph '%s': op '%s' has a bad input list", b->name, name);
    if (b->n == b->cap) {
        int32_t cap = b->cap ? b->cap * 2 : 64;
        lf__pending_op *ops = realloc(b->ops, (size_t)cap * sizeof *ops);
        if (!ops)
            return lf_set_error(LF_ENOMEM, "out of memory adding op '%s'", name);
        b->ops = ops;
        b->cap = cap;
    }
    lf__pending_op *op = &b->ops[b->n];
    memset(op, 0, sizeof *op);
    op->type = type;
    op->explicit_operands = explicit_operands;
    if (attrs)
        op->attr = *attrs;
    op->name = strdup(name);
    op->names = calloc((size_t)(n_names ? n_names : 1), sizeof(char *));
    if (!op->name || !op->names) {
        free(op->name);
        free(op->names);
        return lf_set_error(LF_ENOMEM, "out of memory adding op '%s'", name);
    }
    for (int32_t i = 0; i < n_names; i++) {
        op->names[i] = strdup(names[i] ? names[i] : "");
        if (!op->names[i]) {
            for (int32_t j = 0; j < i; j++)
                free(op->names[j]);
            free(op->names);
            free(op->name);
            return lf_set_error(LF_ENOMEM, "out of memory adding op '%s'", name);
        }
    }
    op->n_names = n_names;
    return b->n++;
}

int32_t lf_graph_builder_add(lf_graph_builder *b, lf_op_type type, const char *name,
                             const lf_attrs *attrs, const char *const *inputs, int32_t n_inputs)
{
    return lf__add(b, type, name, attrs, inputs, n_inputs, 0);
}

int32_t lf_graph_builder_add_op(lf_graph_builder *b, lf_op_type type, const char *name,
                                const lf_attrs *attrs, const char *const *operands,
                                int32_t n_operands)
{
    return lf__add(b, type, name, attrs, operands, n_operands, 1);
}

static int32_t lf__add_const(lf_graph_builder *b, const char *name, lf_shape shape, float *data,
                             int borrowed)
{
    float *own = borrowed ? NULL : data;
    if (!name || !*name) {
        free(own);
        return lf_set_error(LF_EINVAL, "graph '%s': constant %d has an empty name", b->name,
                            (int)b->nc);
    }
    if (shape.n <= 0 || shape.c <= 0 || shape.h <= 0 || shape.w <= 0 ||
        shape.n > ((int64_t)1 << 40) / shape.c / shape.h / shape.w) {
        free(own);
        return lf_set_error(LF_ERANGE, "graph '%s': constant '%s' has shape %lldx%lldx%lldx%lld",
                            b->name, name, (long long)shape.n, (long long)shape.c,
                            (long long)shape.h, (long long)shape.w);
    }
    return lf__builder_push_const(b, name, shape, data, borrowed);
}

int32_t lf_graph_builder_add_const_owned(lf_graph_builder *b, const char *name, lf_shape shape,
                                         float *data)
{
    return lf__add_const(b, name, shape, data, 0);
}

int32_t lf_graph_builder_add_const_in(lf_graph_builder *b, const char *name, lf_shape shape,
                                      float *data)
{
    return lf__add_const(b, name, shape, data, 1);
}

lf_status lf_graph_builder_adopt(lf_graph_builder *b, void *buf)
{
    float **more = realloc(b->adopted, ((size_t)b->n_adopted + 1) * sizeof *more);
    if (!more) {
        free(buf);
        return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name);
    }
    b->adopted = more;
    b->adopted[b->n_adopted++] = buf; /* on the graph's list of value buffers, freed alike */
    return LF_OK;
}

int32_t lf_graph_builder_add_const(lf_graph_builder *b, const char *name, lf_shape shape,
                                   const float *data)
{
    float *copy = NULL;
    if (data && shape.n > 0 && shape.c > 0 && shape.h > 0 && shape.w > 0 &&
        shape.n <= ((int64_t)1 << 40) / shape.c / shape.h / shape.w) {
        size_t bytes = (size_t)(shape.n * shape.c * shape.h * shape.w) * sizeof(float);
        copy = malloc(bytes);
        if (!copy)
            return lf_set_error(LF_ENOMEM, "out of memory copying constant '%s'",
                                name ? name : "");
        memcpy(copy, data, bytes);
    }
    return lf_graph_builder_add_const_owned(b, name, shape, copy);
}

const char *lf_graph_builder_name(const lf_graph_builder *b, int32_t i)
{
    return (i >= 0 && i < b->n) ? b->ops[i].name : NULL;
}

lf_status lf_graph_builder_mark_output(lf_graph_builder *b, const char *name)
{
    for (int32_t i = 0; i < b->n; i++)
        if (strcmp(b->ops[i].name, name) == 0) {
            b->ops[i].marked_output = 1;
            return LF_OK;
        }
    return lf_set_error(LF_ENOTFOUND, "graph '%s': no op named '%s' to mark as output", b->name,
                        name);
}

/* Finds and describes a cycle among ops that Kahn's algorithm could not
 * place: following unplaced inputs from an unplaced op must revisit an op. */
/* The first operand of op v that is an op not yet placed, or -1. */
static int32_t lf__unplaced_operand(const lf_graph_builder *b, lf__ref *const *refs,
                                    const uint8_t *placed, int32_t v)
{
    for (int32_t j = 0; j < b->ops[v].n_names; j++)
        if (!refs[v][j].is_const && !placed[refs[v][j].id])
            return refs[v][j].id;
    return -1;
}

static lf_status lf__report_cycle(const lf_graph_builder *b, lf__ref *const *refs,
                                  const uint8_t *placed)
{
    int32_t start = -1;
    for (int32_t i = 0; i < b->n && start < 0; i++)
        if (!placed[i])
            start = i;
    int32_t *seen_at = malloc((size_t)b->n * sizeof *seen_at);
    if (!seen_at)
        return lf_set_error(LF_EGRAPH, "graph '%s' has a cycle through op '%s'", b->name,
                            b->ops[start].name);
    for (int32_t i = 0; i < b->n; i++)
        seen_at[i] = -1;
    int32_t v = start, step = 0;
    while (seen_at[v] < 0) {
        seen_at[v] = step++;
        v = lf__unplaced_operand(b, refs, placed, v);
    }
    /* v is on the cycle; walk it once more to print it in data-flow order. */
    char msg[400];
    size_t len = 0;
    int32_t u = v, count = 0;
    int32_t path[8];
    do {
        if (count < 8)
            path[count] = u;
        count++;
        u = lf__unplaced_operand(b, refs, placed, u);
    } while (u != v);
    msg[0] = '\0';
    for (int32_t k = (count < 8 ? count : 8) - 1; k >= 0; k--)
        len += (size_t)snprintf(msg + len, len < sizeof msg ? sizeof msg - len : 0, "'%s' -> ",
                                b->ops[path[k]].name);
    free(seen_at);
    return lf_set_error(LF_EGRAPH, "graph '%s' has a cycle: %s%s'%s'", b->name, msg,
                        count > 8 ? "... -> " : "", b->ops[path[count < 8 ? count - 1 : 7]].name);
}

/* Min-heap of insertion indices: Kahn's algorithm that always emits the
 * earliest-added ready op keeps an already topological insertion order. */
static void lf__heap_push(int32_t *h, int32_t *n, int32_t v)
{
    int32_t i = (*n)++;
    h[i] = v;
    while (i > 0 && h[(i - 1) / 2] > h[i]) {
        int32_t p = (i - 1) / 2, t = h[p];
        h[p] = h[i];
        h[i] = t;
        i = p;
    }
}

static int32_t lf__heap_pop(int32_t *h, int32_t *n)
{
    int32_t top = h[0];
    h[0] = h[--(*n)];
    int32_t i = 0;
    for (;;) {
        int32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && h[l] < h[m])
            m = l;
        if (r < *n && h[r] < h[m])
            m = r;
        if (m == i)
            break;
        int32_t t = h[m];
        h[m] = h[i];
        h[i] = t;
        i = m;
    }
    return top;
}

static void lf__scratch_free(lf__build_scratch *s, int32_t n)
{
    if (s->refs)
        for (int32_t i = 0; i < n; i++)
            free(s->refs[i]);
    free(s->refs);
    free(s->order);
    free(s->indeg);
    free(s->heap);
    free(s->new_id);
    free(s->fold_const);
    free(s->consumer_count);
    free(s->placed);
    free(s->names_order);
}

/* Resolves operand names and checks for duplicates and dangling names. */
static lf_status lf__resolve(const lf_graph_builder *b, lf__build_scratch *s)
{
    int32_t n = b->n;
    lf__builder_sort_names(b, s);
    for (int32_t k = 1; k < s->n_names; k++) {
        int32_t e0 = s->names_order[k - 1], e1 = s->names_order[k];
        if (strcmp(lf__builder_entry_name(b, e0), lf__builder_entry_name(b, e1)) == 0)
            return lf_set_error(LF_EGRAPH, "graph '%s': two %s are named '%s'", b->name,
                                e0 < n && e1 < n     ? "ops"
                                : e0 >= n && e1 >= n ? "constants"
                                                     : "tensors (an op and a constant)",
                                lf__builder_entry_name(b, e1));
    }
    for (int32_t i = 0; i < n; i++) {
        const lf__pending_op *op = &b->ops[i];
        s->refs[i] = malloc((size_t)(op->n_names ? op->n_names : 1) * sizeof(lf__ref));
        if (!s->refs[i])
            return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name);
        for (int32_t j = 0; j < op->n_names; j++) {
            int32_t e = lf__builder_find(b, s, op->names[j]);
            if (e < 0)
                return lf_set_error(LF_EGRAPH,
                                    "graph '%s': op '%s' reads '%s', which no op produces",
                                    b->name, op->name, op->names[j]);
            if (e == i)
                return lf_set_error(LF_EGRAPH, "graph '%s' has a cycle: op '%s' reads itself",
                                    b->name, op->name);
            if (e >= n && !op->explicit_operands)
                return lf_set_error(LF_EGRAPH,
                                    "graph '%s': op '%s' reads constant '%s' but was added "
                                    "without operands (use lf_graph_builder_add_op)",
                                    b->name, op->name, op->names[j]);
            s->refs[i][j] = e < n ? (lf__ref){0, e} : (lf__ref){1, e - n};
        }
    }
    return LF_OK;
}

static lf_status lf__toposort(const lf_graph_builder *b, lf__build_scratch *s)
{
    int32_t n = b->n, nheap = 0, placed = 0;
    /* indeg counts operand slots that name ops, so an op reading the same
     * tensor twice waits for it once per slot: each release below
     * decrements per slot. */
    for (int32_t i = 0; i < n; i++) {
        s->indeg[i] = 0;
        for (int32_t j = 0; j < b->ops[i].n_names; j++)
            s->indeg[i] += !s->refs[i][j].is_const;
    }
    for (int32_t i = 0; i < n; i++)
        if (s->indeg[i] == 0)
            lf__heap_push(s->heap, &nheap, i);
    /* consumers per op as slot lists, built once to release successors. */
    int32_t *start = calloc((size_t)n + 1, sizeof(int32_t));
    int32_t total = 0;
    for (int32_t i = 0; i < n; i++)
        total += b->ops[i].n_names;
    int32_t *succ = malloc((size_t)(total ? total : 1) * sizeof(int32_t));
    if (!start || !succ) {
        free(start);
        free(succ);
        return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name);
    }
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < b->ops[i].n_names; j++)
            if (!s->refs[i][j].is_const)
                start[s->refs[i][j].id + 1]++;
    for (int32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    int32_t *fill = s->consumer_count;
    for (int32_t i = 0; i < n; i++)
        fill[i] = start[i];
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < b->ops[i].n_names; j++)
            if (!s->refs[i][j].is_const)
                succ[fill[s->refs[i][j].id]++] = i;
    while (nheap > 0) {
        int32_t v = lf__heap_pop(s->heap, &nheap);
        s->placed[v] = 1;
        s->order[placed++] = v;
        for (int32_t k = start[v]; k < start[v + 1]; k++)
            if (--s->indeg[succ[k]] == 0)
                lf__heap_push(s->heap, &nheap, succ[k]);
    }
    free(start);
    free(succ);
    if (placed < n)
        return lf__report_cycle(b, s->refs, s->placed);
    return LF_OK;
}

lf_status lf_graph_builder_build(lf_graph_builder *b, lf_graph **out)
{
    *out = NULL;
    if (b->built)
        return lf_set_error(LF_EINVAL, "graph '%s' was already built (a builder builds once)",
                            b->name);
    if (b->n == 0)
        return lf_set_error(LF_EGRAPH, "graph '%s' has no ops", b->name);
    int32_t n = b->n;
    int has_input = 0;
    for (int32_t i = 0; i < n; i++)
        has_input |= b->ops[i].type == LF_OP_INPUT;
    if (!has_input)
        return lf_set_error(LF_EGRAPH, "graph '%s' has no input op", b->name);
    b->built = 1;
    lf__build_scratch s = {0};
    s.order = malloc((size_t)n * sizeof(int32_t));
    s.indeg = malloc((size_t)n * sizeof(int32_t));
    s.heap = malloc((size_t)n * sizeof(int32_t));
    s.new_id = malloc((size_t)n * sizeof(int32_t));
    s.fold_const = malloc((size_t)n * sizeof(int32_t));
    s.consumer_count = malloc((size_t)n * sizeof(int32_t));
    s.refs = calloc((size_t)n, sizeof(lf__ref *));
    s.placed = calloc((size_t)n, 1);
    s.names_order = malloc((size_t)(n + b->nc) * sizeof(int32_t));
    lf_status st;
    if (!s.order || !s.indeg || !s.heap || !s.new_id || !s.fold_const || !s.consumer_count ||
        !s.refs || !s.placed || !s.names_order)
        st = lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name);
    else if ((st = lf__resolve(b, &s)) == LF_OK && (st = lf__toposort(b, &s)) == LF_OK &&
             (st = lf__fold(b, &s)) == LF_OK)
        st = lf__freeze(b, &s, out);
    lf__scratch_free(&s, n);
    return st;
}

/* Graph construction: collects ops that name their inputs, then sorts them
 * topologically, validates and freezes them into an immutable lf_graph. */
#include <stdlib.h>
#include <string.h>

#include "planner/graph.h"
#include "planner/graph_internal.h"
#include "planner/optable.h"
#include "planner/util/arena.h"

typedef struct lf__pending_op {
    char *name;
    lf_op_type type;
    lf_attrs attr;
    int32_t n_inputs;
    char **inputs;
    int32_t marked_output;
} lf__pending_op;

struct lf_graph_builder {
    char *name;
    lf__pending_op *ops;
    int32_t n, cap;
};

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
        for (int32_t j = 0; j < b->ops[i].n_inputs; j++)
            free(b->ops[i].inputs[j]);
        free(b->ops[i].inputs);
    }
    free(b->ops);
    free(b->name);
    free(b);
}

int32_t lf_graph_builder_add(lf_graph_builder *b, lf_op_type type, const char *name,
                             const lf_attrs *attrs, const char *const *inputs, int32_t n_inputs)
{
    if (!name || !*name)
        return lf_set_error(LF_EINVAL, "graph '%s': op %d has an empty name", b->name, (int)b->n);
    if (!lf_op_info_of(type))
        return lf_set_error(LF_EUNSUPPORTED, "graph '%s': op '%s' has unknown type %d", b->name, name,
                            (int)type);
    if (n_inputs < 0 || (n_inputs > 0 && !inputs))
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
    if (attrs)
        op->attr = *attrs;
    op->name = strdup(name);
    op->inputs = calloc((size_t)(n_inputs ? n_inputs : 1), sizeof(char *));
    if (!op->name || !op->inputs) {
        free(op->name);
        free(op->inputs);
        return lf_set_error(LF_ENOMEM, "out of memory adding op '%s'", name);
    }
    for (int32_t i = 0; i < n_inputs; i++) {
        op->inputs[i] = strdup(inputs[i] ? inputs[i] : "");
        if (!op->inputs[i]) {
            for (int32_t j = 0; j < i; j++)
                free(op->inputs[j]);
            free(op->inputs);
            free(op->name);
            return lf_set_error(LF_ENOMEM, "out of memory adding op '%s'", name);
        }
    }
    op->n_inputs = n_inputs;
    return b->n++;
}

const char *lf_graph_builder_name(const lf_graph_builder *b, int32_t i)
{
    return (i >= 0 && i < b->n) ? b->ops[i].name : NULL;
}

/* Name lookup by binary search over indices sorted by name: the builder has
 * no other use for a hash table, and this keeps it self-contained. */
typedef struct lf__name_index {
    const lf__pending_op *ops;
    int32_t *order;
    int32_t n;
} lf__name_index;

/* qsort has no context argument; the table being sorted is per thread. */
static _Thread_local const lf__pending_op *lf__sort_ops;
static int lf__cmp_names(const void *a, const void *b)
{
    int32_t ia = *(const int32_t *)a, ib = *(const int32_t *)b;
    int c = strcmp(lf__sort_ops[ia].name, lf__sort_ops[ib].name);
    return c ? c : (ia > ib) - (ia < ib);
}

static int32_t lf__find(const lf__name_index *ix, const char *name)
{
    int32_t lo = 0, hi = ix->n - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ix->ops[ix->order[mid]].name, name);
        if (c == 0)
            return ix->order[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
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
static lf_status lf__report_cycle(const lf_graph_builder *b, int32_t *const *in_ids,
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
        int32_t next = -1;
        for (int32_t j = 0; j < b->ops[v].n_inputs; j++)
            if (!placed[in_ids[v][j]]) {
                next = in_ids[v][j];
                break;
            }
        v = next;
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
        for (int32_t j = 0; j < b->ops[u].n_inputs; j++)
            if (!placed[in_ids[u][j]]) {
                u = in_ids[u][j];
                break;
            }
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

typedef struct lf__build_scratch {
    int32_t *order, *indeg, *heap, *new_id, *consumer_count;
    int32_t **in_ids;
    uint8_t *placed;
    lf__name_index ix;
} lf__build_scratch;

static void lf__scratch_free(lf__build_scratch *s, int32_t n)
{
    if (s->in_ids)
        for (int32_t i = 0; i < n; i++)
            free(s->in_ids[i]);
    free(s->in_ids);
    free(s->order);
    free(s->indeg);
    free(s->heap);
    free(s->new_id);
    free(s->consumer_count);
    free(s->placed);
    free(s->ix.order);
}

/* Resolves input names and checks for duplicates and dangling inputs. */
static lf_status lf__resolve(const lf_graph_builder *b, lf__build_scratch *s)
{
    int32_t n = b->n;
    s->ix.ops = b->ops;
    s->ix.n = n;
    for (int32_t i = 0; i < n; i++)
        s->ix.order[i] = i;
    lf__sort_ops = b->ops;
    qsort(s->ix.order, (size_t)n, sizeof(int32_t), lf__cmp_names);
    for (int32_t k = 1; k < n; k++)
        if (strcmp(b->ops[s->ix.order[k]].name, b->ops[s->ix.order[k - 1]].name) == 0)
            return lf_set_error(LF_EGRAPH, "graph '%s': two ops are named '%s'", b->name,
                                b->ops[s->ix.order[k]].name);
    for (int32_t i = 0; i < n; i++) {
        const lf__pending_op *op = &b->ops[i];
        s->in_ids[i] = malloc((size_t)(op->n_inputs ? op->n_inputs : 1) * sizeof(int32_t));
        if (!s->in_ids[i])
            return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name);
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t id = lf__find(&s->ix, op->inputs[j]);
            if (id < 0)
                return lf_set_error(LF_EGRAPH,
                                    "graph '%s': op '%s' reads '%s', which no op produces",
                                    b->name, op->name, op->inputs[j]);
            if (id == i)
                return lf_set_error(LF_EGRAPH, "graph '%s' has a cycle: op '%s' reads itself",
                                    b->name, op->name);
            s->in_ids[i][j] = id;
        }
    }
    return LF_OK;
}

static lf_status lf__toposort(const lf_graph_builder *b, lf__build_scratch *s)
{
    int32_t n = b->n, nheap = 0, placed = 0;
    for (int32_t i = 0; i < n; i++)
        s->indeg[i] = b->ops[i].n_inputs;
    /* indeg counts operand slots, so an op reading the same tensor twice
     * waits for it once per slot: each release below decrements per slot. */
    for (int32_t i = 0; i < n; i++)
        if (s->indeg[i] == 0)
            lf__heap_push(s->heap, &nheap, i);
    /* consumers per op as slot lists, built once to release successors. */
    int32_t *start = calloc((size_t)n + 1, sizeof(int32_t));
    int32_t total = 0;
    for (int32_t i = 0; i < n; i++)
        total += b->ops[i].n_inputs;
    int32_t *succ = malloc((size_t)(total ? total : 1) * sizeof(int32_t));
    if (!start || !succ) {
        free(start);
        free(succ);
        return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name);
    }
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < b->ops[i].n_inputs; j++)
            start[s->in_ids[i][j] + 1]++;
    for (int32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    int32_t *fill = s->consumer_count;
    for (int32_t i = 0; i < n; i++)
        fill[i] = start[i];
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < b->ops[i].n_inputs; j++)
            succ[fill[s->in_ids[i][j]]++] = i;
    while (nheap > 0) {
        int32_t v = lf__heap_pop(s->heap, &nheap);
        s->placed[v] = 1;
        s->new_id[v] = placed;
        s->order[placed++] = v;
        for (int32_t k = start[v]; k < start[v + 1]; k++)
            if (--s->indeg[succ[k]] == 0)
                lf__heap_push(s->heap, &nheap, succ[k]);
    }
    free(start);
    free(succ);
    if (placed < n)
        return lf__report_cycle(b, s->in_ids, s->placed);
    return LF_OK;
}

/* Creates the frozen graph: ops in topological order, shapes, weights,
 * consumers and the hash. */
static lf_status lf__freeze(const lf_graph_builder *b, lf__build_scratch *s, lf_graph **out)
{
    int32_t n = b->n;
    lf_graph *g = calloc(1, sizeof *g);
    lf_arena *arena = malloc(sizeof *arena);
    if (!g || !arena) {
        free(g);
        free(arena);
        return lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name);
    }
    lf_arena_init(arena);
    g->arena_ = arena;
    g->n_ops = n;
    g->name = lf_arena_strdup(arena, b->name);
    g->ops = lf_arena_alloc(arena, (size_t)n * sizeof(lf_op));
    int32_t *ncons = s->consumer_count;
    memset(ncons, 0, (size_t)n * sizeof(int32_t));
    if (!g->name || !g->ops)
        goto oom;
    for (int32_t id = 0; id < n; id++) {
        const lf__pending_op *p = &b->ops[s->order[id]];
        lf_op *op = &g->ops[id];
        op->name = lf_arena_strdup(arena, p->name);
        op->type = p->type;
        op->attr = p->attr;
        op->n_inputs = p->n_inputs;
        int32_t *ins = lf_arena_alloc(arena, (size_t)(p->n_inputs ? p->n_inputs : 1) * sizeof(int32_t));
        if (!op->name || !ins)
            goto oom;
        for (int32_t j = 0; j < p->n_inputs; j++)
            ins[j] = s->new_id[s->in_ids[s->order[id]][j]];
        op->inputs = ins;
        op->is_output = p->marked_output;
    }
    /* Shape inference in topological order, so every input is known. */
    for (int32_t id = 0; id < n; id++) {
        lf_op *op = &g->ops[id];
        lf_shape in[64];
        char err[200];
        for (int32_t j = 0; j < op->n_inputs && j < 64; j++)
            in[j] = g->ops[op->inputs[j]].out;
        lf_status st = lf_op_infer(op->type, &op->attr, in, op->n_inputs, &op->out, err, sizeof err);
        if (st != LF_OK) {
            lf_set_error(st, "graph '%s': op '%s' (%s): %s", b->name, op->name,
                         lf_op_info_of(op->type)->name, err);
            goto fail;
        }
        if (op->out.n * op->out.c * op->out.h * op->out.w > ((int64_t)1 << 40)) {
            lf_set_error(LF_ERANGE, "graph '%s': op '%s' output %lldx%lldx%lld is absurdly large",
                         b->name, op->name, (long long)op->out.c, (long long)op->out.h,
                         (long long)op->out.w);
            goto fail;
        }
        lf_op_weights(op->type, &op->attr, in, op->n_inputs, &op->out, &op->weight_elems,
                      &op->param_count);
        op->macs = lf_op_macs(op->type, &op->attr, in, op->n_inputs, &op->out);
    }
    /* Consumer lists: distinct readers, ascending. */
    for (int32_t id = 0; id < n; id++)
        for (int32_t j = 0; j < g->ops[id].n_inputs; j++) {
            int32_t p = g->ops[id].inputs[j];
            int dup = 0;
            for (int32_t k = 0; k < j; k++)
                dup |= g->ops[id].inputs[k] == p;
            if (!dup)
                ncons[p]++;
        }
    for (int32_t id = 0; id < n; id++) {
        g->ops[id].consumers = lf_arena_alloc(arena, (size_t)(ncons[id] ? ncons[id] : 1) * sizeof(int32_t));
        if (!g->ops[id].consumers)
            goto oom;
        g->ops[id].n_consumers = 0;
    }
    for (int32_t id = 0; id < n; id++)
        for (int32_t j = 0; j < g->ops[id].n_inputs; j++) {
            int32_t p = g->ops[id].inputs[j];
            lf_op *prod = &g->ops[p];
            if (prod->n_consumers > 0 && prod->consumers[prod->n_consumers - 1] == id)
                continue;
            ((int32_t *)prod->consumers)[prod->n_consumers++] = id;
        }
    for (int32_t id = 0; id < n; id++)
        if (g->ops[id].n_consumers == 0 && g->ops[id].type != LF_OP_INPUT)
            g->ops[id].is_output = 1;
    g->hash = lf__graph_compute_hash(g);
    *out = g;
    return LF_OK;
oom:
    lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name);
fail:
    lf_graph_free(g);
    return lf_last_status();
}

lf_status lf_graph_builder_build(lf_graph_builder *b, lf_graph **out)
{
    *out = NULL;
    if (b->n == 0)
        return lf_set_error(LF_EGRAPH, "graph '%s' has no ops", b->name);
    int32_t n = b->n;
    int has_input = 0;
    for (int32_t i = 0; i < n; i++)
        has_input |= b->ops[i].type == LF_OP_INPUT;
    if (!has_input)
        return lf_set_error(LF_EGRAPH, "graph '%s' has no input op", b->name);
    lf__build_scratch s = {0};
    s.order = malloc((size_t)n * sizeof(int32_t));
    s.indeg = malloc((size_t)n * sizeof(int32_t));
    s.heap = malloc((size_t)n * sizeof(int32_t));
    s.new_id = malloc((size_t)n * sizeof(int32_t));
    s.consumer_count = malloc((size_t)n * sizeof(int32_t));
    s.in_ids = calloc((size_t)n, sizeof(int32_t *));
    s.placed = calloc((size_t)n, 1);
    s.ix.order = malloc((size_t)n * sizeof(int32_t));
    lf_status st;
    if (!s.order || !s.indeg || !s.heap || !s.new_id || !s.consumer_count || !s.in_ids ||
        !s.placed || !s.ix.order)
        st = lf_set_error(LF_ENOMEM, "out of memory building graph '%s'", b->name);
    else if ((st = lf__resolve(b, &s)) == LF_OK && (st = lf__toposort(b, &s)) == LF_OK)
        st = lf__freeze(b, &s, out);
    lf__scratch_free(&s, n);
    return st;
}

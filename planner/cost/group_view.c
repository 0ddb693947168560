/* The working view of one group: local indices for its members and external
 * inputs, which outputs leave the group, and the DRAM and weight sums shared
 * by every scheme. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cost/cost_internal.h"

/* ---- per-thread scratch ------------------------------------------------
 *
 * A group view needs a dozen arrays, and the cost model builds one for every
 * group it has not seen (each miss of the memo): allocating them, and setting
 * a graph-sized `loc` to -1, took about 40% of a miss (0.6-1.0 us of an
 * evaluation, against 0.3-0.5 us now). Each thread keeps one set of buffers
 * instead, grown to the largest group and graph it has seen, and freed when
 * the thread ends (a pthread key's destructor; the pool's helpers come and
 * go with their pool). `loc` stays -1 everywhere between views, so a view
 * costs O(group), not O(graph). A view built while the thread's scratch is
 * taken (none is today, but nothing forbids it) falls back to the heap. */

typedef struct lf__group_scratch {
    int busy;
    int32_t *tensor, *loc;
    uint8_t *flags;         /* out, active, sink, terminal, post, inner: one n-byte run each */
    int64_t *hv, *lo, *hi;  /* lo and hi: 2 * cap, the second half for lo2 and hi2 */
    lf__rat *sigma;
    uint64_t *masks;        /* after_mask (n) and before_mask (cap) */
    lf__row_term *terms;    /* kept windows (rows.c), grown on demand */
    int32_t cap_terms;
    int32_t *links;         /* in_off, in_loc, cons_off, cons_loc: 4 * cap + 2 */
    int64_t *height;        /* cap */
    /* Capacities in elements, one per array (each grows on its own). */
    int32_t cap_tensor, cap_loc, cap_flags, cap_hv, cap_lo, cap_hi, cap_sigma, cap_masks, cap_links,
        cap_height;
} lf__group_scratch;

static pthread_key_t lf__scratch_key;
static int lf__scratch_key_ok;
static pthread_once_t lf__scratch_once = PTHREAD_ONCE_INIT;

static void lf__scratch_free(void *p)
{
    lf__group_scratch *s = p;
    if (!s)
        return;
    free(s->tensor);
    free(s->loc);
    free(s->flags);
    free(s->hv);
    free(s->lo);
    free(s->hi);
    free(s->sigma);
    free(s->masks);
    free(s->terms);
    free(s->links);
    free(s->height);
    free(s);
}

static void lf__scratch_key_init(void)
{
    lf__scratch_key_ok = pthread_key_create(&lf__scratch_key, lf__scratch_free) == 0;
}

/* Grows *p to hold `want` elements of `size` bytes (capacity doubling). */
static int lf__grow(void **p, int32_t *cap, int32_t want, size_t size)
{
    if (want <= *cap)
        return 1;
    int32_t c = *cap > 0 ? *cap : 64;
    while (c < want)
        c = c > INT32_MAX / 2 ? want : 2 * c;
    void *q = realloc(*p, (size_t)c * size);
    if (!q)
        return 0;
    *p = q;
    *cap = c;
    return 1;
}

/* The calling thread's scratch, sized for n members, cap local tensors and
 * n_ops graph ops and marked busy; NULL when it is taken or cannot grow. */
static lf__group_scratch *lf__scratch_take(int32_t n, int32_t cap, int32_t n_ops)
{
    pthread_once(&lf__scratch_once, lf__scratch_key_init);
    if (!lf__scratch_key_ok)
        return NULL;
    lf__group_scratch *s = pthread_getspecific(lf__scratch_key);
    if (!s) {
        if (!(s = calloc(1, sizeof *s)))
            return NULL;
        if (pthread_setspecific(lf__scratch_key, s) != 0) {
            free(s);
            return NULL;
        }
    }
    if (s->busy)
        return NULL;
    int32_t old_loc = s->cap_loc;
    if (!lf__grow((void **)&s->loc, &s->cap_loc, n_ops, sizeof(int32_t)))
        return NULL;
    for (int32_t v = old_loc; v < s->cap_loc; v++)
        s->loc[v] = -1;
    if (n > INT32_MAX / 6 || cap > INT32_MAX / 4 - 1 || cap > INT32_MAX - n ||
        !lf__grow((void **)&s->tensor, &s->cap_tensor, cap, sizeof(int32_t)) ||
        !lf__grow((void **)&s->lo, &s->cap_lo, 2 * cap, sizeof(int64_t)) ||
        !lf__grow((void **)&s->hi, &s->cap_hi, 2 * cap, sizeof(int64_t)) ||
        !lf__grow((void **)&s->sigma, &s->cap_sigma, cap, sizeof(lf__rat)) ||
        !lf__grow((void **)&s->masks, &s->cap_masks, n + cap, sizeof(uint64_t)) ||
        !lf__grow((void **)&s->flags, &s->cap_flags, 6 * n, 1) ||
        !lf__grow((void **)&s->hv, &s->cap_hv, n, sizeof(int64_t)) ||
        !lf__grow((void **)&s->links, &s->cap_links, 4 * cap + 2, sizeof(int32_t)) ||
        !lf__grow((void **)&s->height, &s->cap_height, cap, sizeof(int64_t)))
        return NULL;
    s->busy = 1;
    return s;
}

/* The arrays on the heap, zeroed where the schemes expect zeros: the path
 * for a thread whose scratch is taken. */
static lf_status lf__group_alloc(lf__group *G, int32_t n, int32_t cap, int32_t n_ops)
{
    G->tensor = malloc((size_t)cap * sizeof(int32_t));
    G->loc = malloc((size_t)n_ops * sizeof(int32_t));
    G->out = calloc((size_t)n, 1);
    G->active = calloc((size_t)n, 1);
    G->sink = calloc((size_t)n, 1);
    G->terminal = calloc((size_t)n, 1);
    G->post = calloc((size_t)n, 1);
    G->inner = calloc((size_t)n, 1);
    G->hv = calloc((size_t)n, sizeof(int64_t));
    G->lo = malloc(2 * (size_t)cap * sizeof(int64_t));
    G->hi = malloc(2 * (size_t)cap * sizeof(int64_t));
    G->sigma = malloc((size_t)cap * sizeof(lf__rat));
    G->after_mask = calloc((size_t)n + (size_t)cap, sizeof(uint64_t));
    G->in_off = malloc((4 * (size_t)cap + 2) * sizeof(int32_t));
    G->height = malloc((size_t)cap * sizeof(int64_t));
    if (!G->tensor || !G->loc || !G->out || !G->active || !G->sink || !G->terminal || !G->post ||
        !G->inner || !G->hv || !G->lo || !G->hi || !G->sigma || !G->after_mask ||
        !G->in_off || !G->height)
        return LF_ENOMEM;
    G->lo2 = G->lo + cap;
    G->hi2 = G->hi + cap;
    G->before_mask = G->after_mask + n;
    for (int32_t v = 0; v < n_ops; v++)
        G->loc[v] = -1;
    return LF_OK;
}

/* Who reads each local tensor inside the group: the inputs' lists
 * inverted (a counting sort by tensor, members ascending; a member reading
 * a tensor twice counts once). */
static void lf__group_readers(lf__group *G)
{
    int32_t *off = G->cons_off;
    memset(off, 0, ((size_t)G->nt + 1) * sizeof *off);
    for (int pass = 0; pass < 2; pass++) {
        for (int32_t i = 0; i < G->n; i++)
            for (int32_t k = G->in_off[i]; k < G->in_off[i + 1]; k++) {
                int32_t l = G->in_loc[k], seen = 0;
                for (int32_t e = G->in_off[i]; e < k && !seen; e++)
                    seen = G->in_loc[e] == l;
                if (seen)
                    continue;
                if (pass == 0)
                    off[l + 1]++;
                else
                    G->cons_loc[off[l]++] = i;
            }
        if (pass == 0) /* off[t]: where t's readers start */
            for (int32_t t = 0; t < G->nt; t++)
                off[t + 1] += off[t];
    }
    /* The fill moved each start to the next tensor's: move them back. */
    for (int32_t t = G->nt; t > 0; t--)
        off[t] = off[t - 1];
    off[0] = 0;
}

lf_status lf__group_init(lf__group *G, const struct lf_cost_model *cm, const int32_t *members,
                         int32_t n)
{
    const lf_graph *g = cm->g;
    memset(G, 0, LF__GROUP_CLEAR);
    G->cm = cm;
    G->n = n;
    /* Upper bound on local tensors: members plus every operand slot. */
    int32_t cap = n;
    for (int32_t i = 0; i < n; i++) {
        int32_t v = members[i];
        if (v >= 0 && v < g->n_ops)
            cap += g->ops[v].n_inputs;
    }
    int32_t nz = n > 0 ? n : 1, capz = cap > 0 ? cap : 1, opsz = g->n_ops > 0 ? g->n_ops : 1;
    lf__group_scratch *s = lf__scratch_take(nz, capz, opsz);
    if (s) {
        G->scratch = s;
        G->tensor = s->tensor;
        G->loc = s->loc;
        G->out = s->flags;
        G->active = s->flags + nz;
        G->sink = s->flags + 2 * (size_t)nz;
        G->terminal = s->flags + 3 * (size_t)nz;
        G->post = s->flags + 4 * (size_t)nz;
        G->inner = s->flags + 5 * (size_t)nz;
        memset(s->flags, 0, 6 * (size_t)nz);
        G->hv = s->hv;
        memset(G->hv, 0, (size_t)nz * sizeof(int64_t));
        G->lo = s->lo;
        G->hi = s->hi;
        G->lo2 = s->lo + capz;
        G->hi2 = s->hi + capz;
        G->sigma = s->sigma;
        G->after_mask = s->masks; /* cleared where used (lf__wait_reread_bytes) */
        G->terms = s->terms;
        G->cap_terms = s->cap_terms;
        G->before_mask = s->masks + nz;
        G->in_off = s->links;
        G->height = s->height;
    } else if (lf__group_alloc(G, nz, capz, opsz) != LF_OK) {
        lf__group_destroy(G);
        return lf_set_error(LF_ENOMEM, "out of memory evaluating a group of %d ops", (int)n);
    }
    for (int32_t i = 0; i < n; i++) {
        int32_t v = members[i];
        if (v < 0 || v >= g->n_ops || g->ops[v].type == LF_OP_INPUT || G->loc[v] >= 0) {
            lf__group_destroy(G);
            return lf_set_error(LF_EINVAL, "group member %d is not a distinct compute op", (int)v);
        }
        if (i > 0 && v < members[i - 1]) {
            lf__group_destroy(G);
            return lf_set_error(LF_EINVAL, "group members must be ascending");
        }
        G->tensor[i] = v;
        G->loc[v] = i;
        G->nt = i + 1; /* so that destroy restores loc of the members set so far */
    }
    G->nt = n;
    /* The edges in local indices too, and each tensor's height: the
     * row-window engine walks them once per snapshot and phase, and
     * following them through the graph's ops (a dependent load per edge
     * into a struct of 240 bytes) took most of its time on large groups. */
    int32_t k = 0;
    G->in_loc = G->in_off + n + 1;
    for (int32_t i = 0; i < n; i++) {
        const lf_op *op = &g->ops[G->tensor[i]];
        G->height[i] = cm->ops[G->tensor[i]].h;
        G->in_off[i] = k;
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t p = op->inputs[j];
            if (G->loc[p] < 0) {
                G->loc[p] = G->nt;
                G->height[G->nt] = cm->ops[p].h;
                G->tensor[G->nt++] = p;
            }
            G->in_loc[k++] = G->loc[p];
        }
        int leaves = op->is_output, inner = 0;
        for (int32_t c = 0; c < op->n_consumers; c++) {
            int32_t l = G->loc[op->consumers[c]];
            if (l < 0 || l >= n)
                leaves = 1;
            else
                inner = 1;
        }
        G->out[i] = (uint8_t)leaves;
        G->inner[i] = (uint8_t)inner;
    }
    G->in_off[n] = k;
    G->cons_off = G->in_loc + k;
    G->cons_loc = G->cons_off + G->nt + 1;
    lf__group_readers(G);
    return LF_OK;
}

int lf__group_grow_terms(lf__group *G, int32_t want)
{
    lf__group_scratch *s = G->scratch;
    if (!s || !lf__grow((void **)&s->terms, &s->cap_terms, want, sizeof(lf__row_term)))
        return 0;
    G->terms = s->terms;
    G->cap_terms = s->cap_terms;
    return 1;
}

void lf__group_destroy(lf__group *G)
{
    if (G->loc && G->tensor)
        for (int32_t i = 0; i < G->nt; i++)
            G->loc[G->tensor[i]] = -1;
    if (G->scratch) {
        ((lf__group_scratch *)G->scratch)->busy = 0;
    } else {
        free(G->tensor);
        free(G->loc);
        free(G->out);
        free(G->active);
        free(G->sink);
        free(G->terminal);
        free(G->post);
        free(G->inner);
        free(G->after_mask);
        free(G->in_off);
        free(G->height);
        free(G->hv);
        free(G->lo);
        free(G->hi);
        free(G->sigma);
    }
    memset(G, 0, LF__GROUP_CLEAR);
}

void lf__group_io(const lf__group *G, int64_t *in_bytes, int64_t *out_bytes)
{
    const lf__op_cost *oc = G->cm->ops;
    int64_t in = 0, out = 0;
    for (int32_t t = G->n; t < G->nt; t++)
        in += oc[G->tensor[t]].tensor_bytes;
    for (int32_t i = 0; i < G->n; i++) {
        in += oc[G->tensor[i]].stream_bytes; /* row-shaped constants, read once */
        if (G->out[i])
            out += oc[G->tensor[i]].tensor_bytes;
    }
    *in_bytes = in;
    *out_bytes = out;
}

int64_t lf_cost_fd_floor(const lf_cost_model *cm, const int32_t *members, int32_t n, const uint8_t *in_group,
                         uint8_t *seen)
{
    const lf_graph *g = cm->g;
    const lf__op_cost *oc = cm->ops;
    int64_t f = 0;
    for (int32_t i = 0; i < n; i++) { /* what lf__group_io and lf__group_weights add up */
        int32_t v = members[i];
        const lf_op *op = &g->ops[v];
        f += oc[v].weight_bytes + oc[v].stream_bytes;
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t p = op->inputs[j];
            if (!in_group[p] && !seen[p]) {
                seen[p] = 1;
                f += oc[p].tensor_bytes;
            }
        }
        int leaves = op->is_output;
        for (int32_t c = 0; c < op->n_consumers && !leaves; c++)
            leaves = !in_group[op->consumers[c]];
        if (leaves)
            f += oc[v].tensor_bytes;
    }
    for (int32_t i = 0; i < n; i++) {
        const lf_op *op = &g->ops[members[i]];
        for (int32_t j = 0; j < op->n_inputs; j++)
            seen[op->inputs[j]] = 0;
    }
    return f;
}

int64_t lf__group_weights(const lf__group *G)
{
    int64_t w = 0;
    for (int32_t i = 0; i < G->n; i++)
        w += G->cm->ops[G->tensor[i]].weight_bytes;
    return w;
}

int64_t lf__group_wblk(const lf__group *G)
{
    int64_t w = 0;
    for (int32_t i = 0; i < G->n; i++)
        if (G->cm->ops[G->tensor[i]].wblk > w)
            w = G->cm->ops[G->tensor[i]].wblk;
    return w;
}

/* Groups that hold a cut op and ops above it, joined from their tails and
 * heads (downsets.h, docs/search.md "Groups across a cut op").
 *
 * A group G holding cut op c (its largest) and ops above c, reached from
 * state D, is T u {c} u H: T u {c} is everything of the state C of all ops up
 * to c that D lacks (c needs every op below it), and H is a set grown from
 * C. The enumeration used to grow every such G from every D, pricing each
 * whole: on Inception-v3 under BRR at 256 KB nearly all of 12 million priced
 * groups. Now a set that ends at c records D as a tail of c, and each set
 * grown from C (a head) is joined with c's tails: the head is priced once,
 * each tail once per head key (cut_sides.c), and a pair costs a sum of row
 * terms. The single-buffer DP visits tails by increasing "DRAM of D plus
 * what T u {c} reads and T's weights", so the scan stops at the first tail
 * that cannot beat the plan the target state C u H already holds (a pair that
 * ties is still priced: the tie rule decides); the staircase visits them in
 * the order they were found. Pairs the enumeration's F_beta floor would not
 * have grown are skipped, as before. The same groups at the same costs: the
 * optima do not change (tests/test_cut_sides.c, test_exact, test_curve). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cost/objective.h"
#include "planner/exact/cut_join.h"
#include "planner/util/clock.h"
#include "planner/util/pool.h"

/* Pairs priced between two looks at the clock (most are settled from the
 * tails' briefs in tens of nanoseconds each). */
#define LF__JOIN_CHECK_EVERY 4096

typedef struct lf__tail {
    int32_t state;         /* D */
    int32_t first;         /* the smallest op of T u {c} */
    int64_t floor;         /* what T u {c} reads + T's weights: every group with it pays that */
    int64_t weights;       /* T's weights */
    int64_t key;           /* single buffer: the objective of D + obj_floor (set when sorted) */
    lf_obj_sums sums;      /* of T u {c} (the objective's sums) */
    int64_t obj_floor;     /* the objective's floor of the tail's part (floor under DRAM;
                              lf_cost_objective_part_floor, first part) */
    int64_t need;          /* the enumeration's F_beta floor of T u {c} */
    int64_t need_w, need_rows, need_blk; /* its terms (lf__dp_set_need_terms) */
    int64_t aux;           /* the caller's (the staircase: the largest need of a member alone) */
    int32_t cross_at, n_cross; /* ops of T read above c (in the cut's cross pool) */
    int32_t n_sides;
    lf_cost_side **sides;  /* T's side per head key (by key id; NULL: not built yet) */
} lf__tail;

typedef struct lf__tails {
    lf__tail *t;
    int32_t n, cap;
    int sorted;
    /* The distinct head keys met so far: a side with each (the first tail
     * side built for it); a head's key id is its index here. */
    const lf_cost_side **keys;
    int32_t n_keys, cap_keys;
    int32_t *cross; /* the tails' ops read above c, one run per tail */
    int32_t n_cross, cap_cross;
    /* The single-buffer DP's briefs of the tails' sides, per key id one per
     * tail in the sorted order (NULL: none yet): the heads walk the tails in
     * that order, so the briefs are read one after the other, where the
     * sides themselves lie scattered over the heap. */
    lf_cost_brief **briefs;
    int32_t n_briefs;
    int32_t brief_tails; /* tails each array holds (those there were at the first head) */
    lf_cost_brief spare; /* the brief of a tail past them (none are expected) */
} lf__tails;

/* What a head being grown brings to each of its pairs. */
typedef struct lf__head {
    lf_cost_side *side;
    int separable;
    int32_t target;      /* the state of all ops up to c and the head */
    int64_t floor;       /* lf__head_floor */
    int64_t need[3];     /* the terms of its F_beta floor */
    int64_t need_floor;  /* that floor */
    int32_t key;         /* its key id among c's, -1 until a tail side has it */
    int32_t cut_state;
    int64_t reads;       /* the fewest weight reads of any group with it (0: none valid) */
    int32_t n_cross;     /* ops below c it reads (lf__head_floor) */
    int64_t weights;     /* of c and the head */
    lf_obj_sums sums;    /* of the head (c is the tail's) */
    int64_t obj_floor;   /* the objective's floor of the head's part (second part) */
    int64_t min_steps;   /* the fewest row steps of a group with it (energy, latency) */
    int dram_obj;        /* the objective is DRAM (sums, floors and steps as bytes) */
    /* The staircase's: its members alone need up to aux; steps below
     * `below`; its bitset (while it waits, lf__join_head_steps). */
    int64_t aux, below;
    const uint64_t *bits;
    int64_t held; /* bytes charged to x->extra_bytes while it waits */
} lf__head;

struct lf__join {
    lf__tails *by_cut; /* n_ops entries */
    int32_t *members;  /* scratch: a tail's ops */
    int32_t *head_cross; /* scratch: ops below c the head being grown reads */
    int32_t n_head_cross;
    lf_bitset pair;    /* scratch: a whole group, for the ones priced whole */
    uint8_t *seen;
    /* The staircase's heads grown from the state being expanded, waiting to
     * be joined with the tails of their cut op (lf__join_flush_steps). */
    lf__head *waiting;
    uint64_t *waiting_bits; /* their bitsets, nwords each */
    int32_t n_waiting, cap_waiting, cap_waiting_bits, waiting_cut;
};

lf_status lf__join_create(lf__exact *x)
{
    lf__join *j = calloc(1, sizeof *j);
    if (j) {
        j->by_cut = calloc((size_t)x->n + 1, sizeof *j->by_cut);
        j->members = malloc(((size_t)x->n + 1) * sizeof *j->members);
        j->head_cross = malloc(((size_t)x->n + 1) * sizeof *j->head_cross);
        j->seen = calloc((size_t)x->n + 1, 1);
    }
    if (!j || !j->by_cut || !j->members || !j->head_cross || !j->seen || lf_bitset_init(&j->pair, x->n) != LF_OK) {
        x->join = j;
        return lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
    }
    x->join = j;
    return LF_OK;
}

void lf__join_free(lf__exact *x)
{
    lf__join *j = x->join;
    if (!j)
        return;
    for (int32_t c = 0; j->by_cut && c < x->n; c++) {
        for (int32_t k = 0; k < j->by_cut[c].n; k++) {
            lf__tail *t = &j->by_cut[c].t[k];
            for (int32_t s = 0; s < t->n_sides; s++)
                lf_cost_side_free(t->sides[s]);
            free(t->sides);
        }
        for (int32_t k = 0; k < j->by_cut[c].n_briefs; k++)
            free(j->by_cut[c].briefs[k]);
        free(j->by_cut[c].briefs);
        free(j->by_cut[c].t);
        free(j->by_cut[c].keys);
        free(j->by_cut[c].cross);
    }
    for (int32_t i = 0; i < j->n_waiting; i++)
        lf_cost_side_free(j->waiting[i].side);
    free(j->waiting);
    free(j->waiting_bits);
    free(j->by_cut);
    free(j->members);
    free(j->head_cross);
    free(j->seen);
    lf_bitset_destroy(&j->pair);
    free(j);
    x->join = NULL;
}

/* Makes room for one more of n elements of `size` bytes in *arr (capacity
 * *cap, doubling from `first`); 0, with the status set, without memory. */
static int lf__room(lf__exact *x, void **arr, int32_t n, int32_t *cap, int32_t first, size_t size)
{
    if (n < *cap)
        return 1;
    int32_t want = *cap ? 2 * *cap : first;
    void *p = realloc(*arr, (size_t)want * size);
    if (!p) {
        x->status = lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
        return 0;
    }
    *arr = p;
    *cap = want;
    return 1;
}

/* What the tail being recorded (the set being grown, ending at cut op c)
 * reads and T's weights (*floor, *weights), and its ops that an op above c
 * reads (a skip edge over c), appended to ts's cross pool: written out
 * unless the head holds every such reader. 0 after an error. */
static int lf__tail_floors(lf__exact *x, int32_t c, lf__tails *ts, int64_t *floor_out, int64_t *weights)
{
    lf__join *j = x->join;
    int64_t floor = 0;
    for (int32_t i = 0; i < x->n_sub; i++) {
        int32_t v = x->sub[i];
        const lf_op *op = &x->g->ops[v];
        if (v != c)
            floor += lf_cost_weight_bytes(x->cm, v);
        for (int32_t k = 0; k < op->n_inputs; k++) {
            int32_t p = op->inputs[k];
            if (!x->in_s[p] && !j->seen[p]) {
                j->seen[p] = 1;
                floor += lf_cost_tensor_bytes(x->cm, p);
            }
        }
    }
    for (int32_t i = 0; i < x->n_sub; i++) {
        const lf_op *op = &x->g->ops[x->sub[i]];
        for (int32_t k = 0; k < op->n_inputs; k++)
            j->seen[op->inputs[k]] = 0;
    }
    for (int32_t i = 0; i + 1 < x->n_sub; i++) {
        const lf_op *op = &x->g->ops[x->sub[i]];
        int above = 0;
        for (int32_t k = 0; k < op->n_consumers && !above; k++)
            above = op->consumers[k] > c;
        if (!above)
            continue;
        if (!lf__room(x, (void **)&ts->cross, ts->n_cross, &ts->cap_cross, 64, sizeof *ts->cross))
            return 0;
        ts->cross[ts->n_cross++] = x->sub[i];
    }
    *floor_out = floor;
    *weights = 0;
    for (int32_t i = 0; i + 1 < x->n_sub; i++)
        *weights += lf_cost_weight_bytes(x->cm, x->sub[i]);
    return 1;
}

void lf__join_tail(lf__exact *x, int32_t c, int64_t aux, int floors)
{
    lf__join *j = x->join;
    int32_t d = x->cur;
    if (x->status != LF_OK)
        return;
    /* The state of all ops up to c must exist to be expanded (its own plan
     * may need a group that reaches above c). */
    if (lf__dp_target(x, &x->sbits, x->n_sub) < 0)
        return;
    lf__tails *ts = &j->by_cut[c];
    if (!lf__room(x, (void **)&ts->t, ts->n, &ts->cap, 64, sizeof *ts->t))
        return;
    int32_t cross_at = ts->n_cross;
    int64_t floor = 0, weights = 0;
    /* The staircase where weights stream reads none of these (it joins
     * every live pair): a walk over every member's inputs and consumers
     * per tail was a twentieth of the bert_large BRR staircase. */
    if (floors && !lf__tail_floors(x, c, ts, &floor, &weights))
        return;
    lf__tail *t = &ts->t[ts->n++];
    memset(t, 0, sizeof *t);
    t->state = d;
    t->first = x->sub[0];
    t->floor = floor;
    t->weights = weights;
    /* The objective's sums (the staircase's steps of a separable pair read
     * them) and floor (DRAM: the floor itself). */
    for (int32_t i = 0; i < x->n_sub && lf_cost_objective(x->cm) != LF_PLAN_OBJ_DRAM; i++)
        lf_obj_sums_add_op(x->cm, x->sub[i], &t->sums);
    t->obj_floor = floors ? lf_cost_objective_part_floor(x->cm, &t->sums, floor, 1) : 0;
    t->need = lf__dp_set_need_floor(x);
    lf__dp_set_need_terms(x, &t->need_w, &t->need_rows, &t->need_blk);
    t->aux = aux;
    t->cross_at = cross_at;
    t->n_cross = ts->n_cross - cross_at;
    x->extra_bytes += (int64_t)sizeof(lf__tail);
}

static int lf__tail_cmp(const void *a, const void *b)
{
    const lf__tail *p = a, *q = b;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return (p->state > q->state) - (p->state < q->state);
}

/* The key id of head hs among c's, or -1 when none matches yet. */
static int32_t lf__key_find(const lf__tails *ts, const lf_cost_side *hs)
{
    for (int32_t k = 0; k < ts->n_keys; k++)
        if (lf_cost_side_same_key(ts->keys[k], hs))
            return k;
    return -1;
}

/* A new key with `side` (a tail side built for it) as its representative. */
static int32_t lf__key_add(lf__exact *x, lf__tails *ts, const lf_cost_side *side)
{
    if (!lf__room(x, (void **)&ts->keys, ts->n_keys, &ts->cap_keys, 8, sizeof *ts->keys))
        return -1;
    ts->keys[ts->n_keys] = side;
    return ts->n_keys++;
}

/* T's side for head hs, kept per key (*key: hs's key id, -1 while c has
 * none like it: set here). NULL after an error. */
static lf_cost_side *lf__tail_side(lf__exact *x, int32_t c, lf__tails *ts, lf__tail *t,
                                   const lf_cost_side *hs, int32_t *key)
{
    lf__join *j = x->join;
    if (*key >= 0 && *key < t->n_sides && t->sides[*key])
        return t->sides[*key];
    /* T: the ops below c that the cut state holds and the tail's state lacks. */
    const uint64_t *cw = x->words + (size_t)x->cur * x->nwords;
    const uint64_t *dw = x->words + (size_t)t->state * x->nwords;
    int32_t n = 0;
    for (int32_t w = 0; w < x->nwords; w++)
        for (uint64_t bits = cw[w] & ~dw[w]; bits; bits &= bits - 1) {
            int32_t v = w * 64 + __builtin_ctzll(bits);
            if (v < c)
                j->members[n++] = v;
        }
    lf_cost_side *side = NULL;
    lf_status st = lf_cost_tail_side(x->cm, j->members, n, hs, &side);
    if (st != LF_OK) {
        x->status = st;
        return NULL;
    }
    if (*key < 0 && (*key = lf__key_add(x, ts, side)) < 0) {
        lf_cost_side_free(side);
        return NULL;
    }
    if (*key >= t->n_sides) {
        lf_cost_side **s = realloc(t->sides, (size_t)ts->n_keys * sizeof *s);
        if (!s) {
            lf_cost_side_free(side);
            x->status = lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
            return NULL;
        }
        for (int32_t k = t->n_sides; k < ts->n_keys; k++)
            s[k] = NULL;
        x->extra_bytes += (int64_t)(ts->n_keys - t->n_sides) * (int64_t)sizeof *s;
        t->sides = s;
        t->n_sides = ts->n_keys;
    }
    t->sides[*key] = side;
    x->extra_bytes += lf_cost_side_bytes(side);
    return side;
}

/* What every group with the head being grown pays besides its tail's floor,
 * whether or not its sides separate: the weights of c and the head, read
 * at least once, and the tensors of c and the head read outside it,
 * written once (nothing below c reads them). */
static int64_t lf__head_floor(lf__exact *x, int32_t c)
{
    lf__join *j = x->join;
    int64_t f = 0;
    j->n_head_cross = 0;
    for (int32_t i = -1; i < x->n_sub; i++) {
        int32_t v = i < 0 ? c : x->sub[i];
        const lf_op *op = &x->g->ops[v];
        f += lf_cost_weight_bytes(x->cm, v);
        for (int32_t k = 0; i >= 0 && k < op->n_inputs; k++) {
            int32_t p = op->inputs[k];
            if (p < c && !j->seen[p]) {
                j->seen[p] = 1;
                j->head_cross[j->n_head_cross++] = p;
            }
        }
        int leaves = op->is_output;
        for (int32_t k = 0; k < op->n_consumers && !leaves; k++)
            leaves = !x->in_s[op->consumers[k]];
        if (leaves)
            f += lf_cost_tensor_bytes(x->cm, v);
    }
    for (int32_t k = 0; k < j->n_head_cross; k++)
        j->seen[j->head_cross[k]] = 0;
    return f;
}

/* The enumeration's F_beta floor of T u {c} u H: with no edge from below c
 * into the head its terms add up, but for c's own output row, which T u {c}
 * counts and H's readers count again (as at least one row); -1 when an edge
 * crosses (then the tail's and the head's floors are all that is known). */
static int64_t lf__pair_need(const lf__exact *x, const lf__tail *t, int32_t c, const int64_t *head,
                             int32_t head_cross)
{
    if (head_cross > 0)
        return -1;
    int64_t own = x->view[c] ? 0 : lf_cost_row_bytes(x->cm, c);
    return t->need_w + head[0] + t->need_rows + head[1] - own + (t->need_blk > head[2] ? t->need_blk : head[2]);
}

/* 1 when op v lies in tail t's T u {c}: the cut state, being expanded
 * (in_d), holds it and t's state does not. */
static int lf__in_tail(const lf__exact *x, const lf__tail *t, int32_t v)
{
    const uint64_t *dw = x->words + (size_t)t->state * x->nwords;
    return x->in_u[v] && x->in_d[v] && !((dw[v >> 6] >> (v & 63)) & 1u);
}

/* The brief of tail k's side for head hs (see lf__tail_side); NULL after an
 * error. */
static const lf_cost_brief *lf__tail_brief(lf__exact *x, int32_t c, lf__tails *ts, int32_t k,
                                           const lf_cost_side *hs, int32_t *key)
{
    if (*key >= 0 && *key < ts->n_briefs && ts->briefs[*key] && k < ts->brief_tails &&
        ts->briefs[*key][k].n_phases > 0)
        return &ts->briefs[*key][k];
    const lf_cost_side *side = lf__tail_side(x, c, ts, &ts->t[k], hs, key);
    if (!side)
        return NULL;
    if (ts->n_briefs == 0)
        ts->brief_tails = ts->n;
    if (k >= ts->brief_tails) {
        lf_cost_side_brief(side, &ts->spare);
        return &ts->spare;
    }
    if (*key >= ts->n_briefs) {
        lf_cost_brief **b = realloc(ts->briefs, (size_t)ts->n_keys * sizeof *b);
        if (!b) {
            x->status = lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
            return NULL;
        }
        for (int32_t i = ts->n_briefs; i < ts->n_keys; i++)
            b[i] = NULL;
        ts->briefs = b;
        ts->n_briefs = ts->n_keys;
    }
    if (!ts->briefs[*key]) {
        ts->briefs[*key] = calloc((size_t)ts->brief_tails, sizeof **ts->briefs);
        if (!ts->briefs[*key]) {
            x->status = lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
            return NULL;
        }
        x->extra_bytes += (int64_t)ts->brief_tails * (int64_t)sizeof **ts->briefs;
    }
    lf_cost_brief *b = &ts->briefs[*key][k];
    lf_cost_side_brief(side, b);
    if (b->n_phases < 1) /* a side that does not separate: never asked again */
        b->n_phases = 1;
    return b;
}

/* What a skip edge over c adds to the floor of tail t with the head being
 * grown: an op of T read above c outside the head is written; an op below c
 * outside T that the head reads, and T u {c} does not, is read. */
static int64_t lf__cross_floor(const lf__exact *x, const lf__tails *ts, const lf__tail *t, int32_t c)
{
    const lf__join *j = x->join;
    int64_t f = 0;
    for (int32_t i = t->cross_at; i < t->cross_at + t->n_cross; i++) {
        const lf_op *op = &x->g->ops[ts->cross[i]];
        for (int32_t k = 0; k < op->n_consumers; k++)
            if (op->consumers[k] > c && !x->in_s[op->consumers[k]]) {
                f += lf_cost_tensor_bytes(x->cm, ts->cross[i]);
                break;
            }
    }
    for (int32_t i = 0; i < j->n_head_cross; i++) {
        int32_t p = j->head_cross[i];
        if (lf__in_tail(x, t, p))
            continue;
        const lf_op *op = &x->g->ops[p];
        int read = 0;
        for (int32_t k = 0; k < op->n_consumers && !read; k++)
            read = op->consumers[k] <= c && lf__in_tail(x, t, op->consumers[k]);
        if (!read)
            f += lf_cost_tensor_bytes(x->cm, p);
    }
    return f;
}

/* Prices the head being grown from c's cut state; 0 when there is nothing
 * to join (no tails, or an error, which sets the status). */
static int lf__head_begin(lf__exact *x, int32_t c, lf__tails *ts, lf__head *h)
{
    memset(h, 0, sizeof *h);
    h->target = -1;
    if (ts->n == 0 || x->status != LF_OK)
        return 0;
    lf_status st = lf_cost_head_side(x->cm, c, x->sub, x->n_sub, &h->side);
    if (st != LF_OK) {
        x->status = st;
        return 0;
    }
    h->target = lf__dp_target(x, &x->sbits, x->n_sub);
    h->separable = lf_cost_side_separable(h->side);
    h->floor = lf__head_floor(x, c);
    h->n_cross = x->join->n_head_cross;
    lf__dp_set_need_terms(x, &h->need[0], &h->need[1], &h->need[2]);
    h->need_floor = lf__dp_set_need_floor(x);
    h->key = h->separable ? lf__key_find(ts, h->side) : -1;
    h->cut_state = x->cur;
    h->reads = lf_cost_head_min_reads(x->cm, h->side);
    for (int32_t i = -1; i < x->n_sub; i++)
        h->weights += lf_cost_weight_bytes(x->cm, i < 0 ? c : x->sub[i]);
    h->dram_obj = lf_cost_objective(x->cm) == LF_PLAN_OBJ_DRAM;
    for (int32_t i = 0; i < x->n_sub && !h->dram_obj; i++)
        lf_obj_sums_add_op(x->cm, x->sub[i], &h->sums);
    h->obj_floor = lf_cost_objective_part_floor(x->cm, &h->sums, h->floor, 0);
    h->min_steps = h->dram_obj ? 1 : lf_cost_head_min_steps(x->cm, h->side);
    return h->target >= 0;
}

/* The group of tail t and head hw (its bitset words), as a bitset
 * (j->pair). */
static const lf_bitset *lf__pair_bits(lf__exact *x, const lf__tail *t, const uint64_t *hw)
{
    lf__join *j = x->join;
    const uint64_t *cw = x->words + (size_t)x->cur * x->nwords;
    const uint64_t *dw = x->words + (size_t)t->state * x->nwords;
    for (int32_t w = 0; w < x->nwords; w++)
        j->pair.words[w] = (cw[w] & ~dw[w]) | hw[w];
    return &j->pair;
}

void lf__join_head(lf__exact *x, int32_t c, lf__join_relax relax)
{
    lf__join *j = x->join;
    lf__tails *ts = &j->by_cut[c];
    if (ts->n > 0 && !ts->sorted) {
        /* Every tail's state is smaller than the cut state: all final now. */
        for (int32_t k = 0; k < ts->n; k++)
            ts->t[k].key = x->dram[ts->t[k].state] == INT64_MAX
                               ? INT64_MAX
                               : x->dram[ts->t[k].state] + ts->t[k].obj_floor;
        qsort(ts->t, (size_t)ts->n, sizeof *ts->t, lf__tail_cmp);
        ts->sorted = 1;
    }
    lf__head h;
    int go = lf__head_begin(x, c, ts, &h) && h.reads > 0;
    /* Under energy or latency dram[] holds that objective: the tails' keys
     * and the heads' floors are its floors of the two parts (their sum is a
     * floor of every pair's figure: lf_cost_objective_part_floor), and a
     * pair's figure is priced from the parts' sums, its F_D and steps. */
    int dram_obj = lf_cost_objective(x->cm) == LF_PLAN_OBJ_DRAM;
    for (int32_t k = 0; go && k < ts->n && x->status == LF_OK; k++) {
        lf__tail *t = &ts->t[k];
        int64_t best = x->dram[h.target];
        /* The enumeration would not have grown this group: never valid. */
        if (lf__pair_need(x, t, c, h.need, h.n_cross) >= x->beta)
            continue;
        /* Sorted: no later tail does better (a tie is still priced). */
        if (t->key == INT64_MAX || (best != INT64_MAX && t->key + h.obj_floor > best))
            break;
        lf_obj_sums sums = t->sums;
        if (!dram_obj)
            lf_obj_sums_add(&sums, &h.sums);
        /* With the weights read as often as the head alone forces (and
         * what a skip edge adds, looked up only when that is not enough);
         * another objective prices the pair's F_D floor at the fewest row
         * steps the head allows (its figure only grows with both). */
        /* A tie at the floor whose plan has more groups than the target's
         * loses too (more counts only with a tie: "lose" below). */
        int more = best != INT64_MAX && x->groups[t->state] + 1 > x->groups[h.target];
        if (best != INT64_MAX && dram_obj) {
            int64_t lb = t->key + h.floor + (h.reads - 1) * (t->weights + h.weights);
            if (lb > best || (lb == best && more) ||
                (t->n_cross + h.n_cross > 0 && lb + lf__cross_floor(x, ts, t, c) > best))
                continue;
        } else if (best != INT64_MAX) {
            int64_t fd = t->floor + h.floor + (h.reads - 1) * (t->weights + h.weights), base = x->dram[t->state];
            int64_t lb = base + lf_cost_objective_sums(x->cm, &sums, fd, h.min_steps);
            if (lb > best || (lb == best && more) ||
                (t->n_cross + h.n_cross > 0 &&
                 base + lf_cost_objective_sums(x->cm, &sums, fd + lf__cross_floor(x, ts, t, c), h.min_steps) > best))
                continue;
        }
        /* Exact up to what could still win (a tie included): as F_D, the
         * most a pair of these sums may move and still win. */
        int64_t limit = best == INT64_MAX ? INT64_MAX : best - x->dram[t->state];
        if (!dram_obj)
            limit = lf_cost_objective_fd_limit(x->cm, &sums, h.min_steps, limit);
        const lf_cost_brief *brief = h.separable ? lf__tail_brief(x, c, ts, k, h.side, &h.key) : NULL;
        if (x->status != LF_OK)
            break;
        /* Most pairs are invalid or lose with the tail at one row. */
        if (brief && lf_cost_join_settles(x->cm, brief, h.side, limit)) {
            x->st.groups++;
            if ((x->st.groups & (LF__JOIN_CHECK_EVERY - 1)) == 0)
                lf__dp_check_budget(x);
            continue;
        }
        lf_cost_side *tail = brief && brief->separable ? lf__tail_side(x, c, ts, t, h.side, &h.key) : NULL;
        if (x->status != LF_OK)
            break;
        lf_group_cost gc;
        lf_status st = lf_cost_side_separable(tail)
                           ? lf_cost_join_eval(x->cm, tail, h.side, limit, &gc)
                           : lf_cost_eval_once(x->cm, lf__pair_bits(x, t, x->sbits.words), &gc);
        if (st != LF_OK) {
            x->status = st;
            break;
        }
        x->st.groups++;
        /* Above the limit its figure cannot win (under DRAM the relaxation
         * would refuse it too). */
        if (gc.valid && gc.f_d <= limit) {
            x->cur = t->state;
            relax(x, dram_obj ? gc.f_d : lf_cost_objective_sums(x->cm, &sums, gc.f_d, gc.steps), t->first,
                  h.target);
            x->cur = h.cut_state;
        }
        if ((x->st.groups & (LF__JOIN_CHECK_EVERY - 1)) == 0)
            lf__dp_check_budget(x);
    }
    lf_cost_side_free(h.side);
}

/* Tails joined with every waiting head before the next ones: their fronts
 * (the staircase's) and sides stay in the cache while the heads take turns,
 * where one head at a time walks every tail's front, mostly from memory
 * (Inception-v3 BRR: about 2,300 tails of about 4 KB of front each per cut
 * state, and 800 heads). */
#define LF__JOIN_TAIL_BLOCK 64

/* A waiting head's key id, once another head has met its key first (heads
 * begin before any of them is joined; lf__tail_side would add the key a
 * second time). */
static void lf__head_key(const lf__tails *ts, lf__head *h)
{
    if (h->separable && h->key < 0)
        h->key = lf__key_find(ts, h->side);
}

/* The objective's floor of every group of tail t and head h whose F_D is
 * at least fd (fd itself under DRAM): the pair's sums at the fewest row
 * steps the head allows. */
static int64_t lf__pair_floor(const lf__exact *x, const lf__tail *t, const lf__head *h, int64_t fd)
{
    if (h->dram_obj)
        return fd;
    lf_obj_sums sums = t->sums;
    lf_obj_sums_add(&sums, &h->sums);
    return lf_cost_objective_sums(x->cm, &sums, fd, h->min_steps);
}

/* The steps of the pair of tail t (its side `tail`) and head h under energy
 * or latency: each step's figure from the pair's sums, its F_D and the row
 * steps it runs (lf_cost_join_rows), what the staircase's whole groups get
 * by pricing each step at its buffer (curve.c); a step no cheaper than the
 * one before it is dropped, as there. Returns how many are kept. */
static int32_t lf__steps_objective(const lf__exact *x, const lf__tail *t, const lf__head *h,
                                   const lf_cost_side *tail, lf_cost_step *steps, int32_t n)
{
    if (h->dram_obj)
        return n;
    lf_obj_sums sums = t->sums;
    lf_obj_sums_add(&sums, &h->sums);
    int32_t kept = 0;
    for (int32_t k = 0; k < n; k++) {
        int64_t rows = lf_cost_join_rows(x->cm, tail, h->side, steps[k].f_d);
        int64_t v = lf_cost_objective_sums(x->cm, &sums, steps[k].f_d, rows);
        if (kept > 0 && v >= steps[kept - 1].f_d)
            continue;
        steps[kept++] = (lf_cost_step){steps[k].need, v};
    }
    return kept;
}

/* 0 when the enumeration would not have grown tail t of c with head h
 * (never valid); else its F_beta floor (*need) and the largest need of a
 * member alone (*aux). */
static int lf__pair_live(const lf__exact *x, int32_t c, const lf__tail *t, const lf__head *h,
                         int64_t *need, int64_t *aux)
{
    *need = lf__pair_need(x, t, c, h->need, h->n_cross);
    if (*need >= x->beta)
        return 0;
    if (*need < 0) /* an edge crosses c: the larger of the two floors */
        *need = t->need > h->need_floor ? t->need : h->need_floor;
    *aux = t->aux > h->aux ? t->aux : h->aux;
    return 1;
}

/* Tails k0..k1-1 of c with head h, each pair's steps extending the front of
 * the tail's state into the head's target; what is added goes to acc. With
 * `whole` 0 every live pair's tail side is built and separable (a worker's
 * share: nothing here touches what another head's worker does), else a pair
 * whose sides do not separate is priced whole (x->cm's memo: the caller's
 * thread alone). */
static void lf__join_pairs(lf__exact *x, int32_t c, lf__tails *ts, int32_t k0, int32_t k1, lf__head *h,
                           const lf__join_staircase *sc, int whole, lf__join_acc *acc)
{
    lf_cost_step steps[LF_COST_MAX_STEPS];
    if (whole)
        lf__head_key(ts, h);
    for (int32_t k = k0; k < k1 && acc->status == LF_OK; k++) {
        lf__tail *t = &ts->t[k];
        int64_t need, aux;
        if (!lf__pair_live(x, c, t, h, &need, &aux))
            continue;
        /* The dominance walk costs about what extending by the pair does;
         * it pays where weights stay resident (one step a pair: the fronts
         * stay smaller, Inception-v3 LBDF 171 → 147 MB), not where they
         * stream (Inception-v3 BRR 64 KB – 4 MB: 93 s with it, 83 s
         * without). Only there is the head joined as it is grown, so the
         * skip edges' scratch (lf__cross_floor) is its own. */
        if (x->resident && sc->dominated(x, t->state, h->target, need > aux ? need : aux,
                                         lf__pair_floor(x, t, h, t->floor + h->floor + lf__cross_floor(x, ts, t, c)))) {
            acc->skipped++;
            continue;
        }
        lf_cost_side *tail = NULL;
        if (whole) {
            tail = h->separable ? lf__tail_side(x, c, ts, t, h->side, &h->key) : NULL;
            if (x->status != LF_OK) {
                acc->status = x->status;
                break;
            }
        } else {
            tail = t->sides[h->key];
        }
        acc->groups++;
        /* A tail holding attention joins by its steps under DRAM; under
         * energy and latency the pair is priced as a whole group is, at
         * every buffer, from the two sides (lf_cost_join_attn_prices). */
        int attn_prices = !h->dram_obj && lf_cost_side_attention(tail);
        if (lf_cost_side_separable(tail) && !attn_prices) {
            int32_t n = 0;
            /* An attention pair goes through the memo of copies one block
             * away (on the caller's thread alone: lf__join_prepare). */
            const lf_bitset *pair = whole && lf_cost_side_attention(tail) ? lf__pair_bits(x, t, h->bits) : NULL;
            lf_status st = lf_cost_join_steps(x->cm, pair, tail, h->side, h->below, steps, LF_COST_MAX_STEPS, &n);
            if (st == LF_OK)
                n = lf__steps_objective(x, t, h, tail, steps, n);
            if (st != LF_OK)
                lf__join_acc_fail(acc, st);
            else if (n > 0)
                sc->extend(x, acc, t->state, steps, n, aux, h->target);
        } else {
            const lf_bitset *pair = lf__pair_bits(x, t, h->bits);
            x->cur = t->state;
            sc->whole(x, pair, aux, h->target, attn_prices ? tail : NULL, h->side);
            x->cur = h->cut_state;
            acc->status = x->status;
        }
    }
}

void lf__join_acc_fail(lf__join_acc *acc, lf_status st)
{
    if (acc->status != LF_OK)
        return;
    acc->status = st;
    snprintf(acc->message, sizeof acc->message, "%s", lf_last_error());
}

/* Heads a worker claims at a time: one head's pairs with a block of tails
 * take tens of microseconds, about what a claim costs under contention. */
#define LF__JOIN_HEADS_PER_ITEM 8

/* The waiting heads' shares of one block of tails, on the pool's workers. */
typedef struct lf__join_job {
    lf__exact *x;
    const lf__join_staircase *sc;
    lf__tails *ts;
    int32_t c, k0, k1;
    int32_t *heads;     /* waiting heads whose pairs in the block all separate */
    int32_t n_heads;
    int32_t *item_of;   /* per worker: its claimed item */
    lf__join_acc *acc;  /* per worker */
} lf__join_job;

/* Past the time limit: the heads still waiting in a block are left (the
 * check after the block stops the run, lf__dp_check_budget, as the clock
 * only moves on). One block of tails with thousands of heads waiting can
 * take minutes: PP-OCRv4 detection's staircase under BRR ran 22 minutes
 * past a 75 s limit inside one before this. Read on any worker: it
 * touches nothing shared but the clock, and only a run that fails at the
 * limit sees a difference. */
static int lf__join_late(const lf__exact *x)
{
    return x->cfg.time_limit_s > 0 && lf_now_seconds() - x->t0 > x->cfg.time_limit_s;
}

static void lf__join_claim(void *ctx, int32_t item, int32_t w)
{
    lf__join_job *jb = ctx;
    jb->item_of[w] = item;
}

static void lf__join_run(void *ctx, int32_t w)
{
    lf__join_job *jb = ctx;
    int32_t i0 = jb->item_of[w] * LF__JOIN_HEADS_PER_ITEM;
    int32_t i1 = jb->n_heads - i0 > LF__JOIN_HEADS_PER_ITEM ? i0 + LF__JOIN_HEADS_PER_ITEM : jb->n_heads;
    for (int32_t i = i0; i < i1 && !lf__join_late(jb->x); i++)
        lf__join_pairs(jb->x, jb->c, jb->ts, jb->k0, jb->k1, &jb->x->join->waiting[jb->heads[i]],
                       jb->sc, 0, &jb->acc[w]);
}

/* Adds a worker's share to x (and its error, with its message: messages
 * are per thread). */
static void lf__join_acc_merge(lf__exact *x, lf__join_acc *acc)
{
    /* A skipped pair is a group found and not priced (stats: groups
     * counts both, groups_skipped the second). */
    x->st.groups += acc->groups + acc->skipped;
    x->st.groups_skipped += acc->skipped;
    x->extra_bytes += acc->bytes;
    if (acc->status != LF_OK && x->status == LF_OK)
        x->status = lf_set_error(acc->status, "%s", acc->message);
    memset(acc, 0, sizeof *acc);
}

/* Builds, for every waiting head with a key, the sides of the block's tails
 * its live pairs need (a worker only looks them up), and lists the heads
 * whose pairs in the block all separate in jb->heads; returns how many. */
static int32_t lf__join_prepare(lf__exact *x, lf__join_job *jb, uint8_t *serial)
{
    lf__join *j = x->join;
    int32_t n = 0;
    /* (heads past the time limit are left unlisted and unmarked: the
     * serial loop after it is past the limit too) */
    for (int32_t i = 0; i < j->n_waiting && x->status == LF_OK && !lf__join_late(x); i++) {
        lf__head *h = &j->waiting[i];
        lf__head_key(jb->ts, h);
        serial[i] = !h->separable;
        for (int32_t k = jb->k0; k < jb->k1 && !serial[i] && x->status == LF_OK; k++) {
            int64_t need, aux;
            if (!lf__pair_live(x, jb->c, &jb->ts->t[k], h, &need, &aux))
                continue;
            lf_cost_side *tail = lf__tail_side(x, jb->c, jb->ts, &jb->ts->t[k], h->side, &h->key);
            serial[i] = tail && (!lf_cost_side_separable(tail) || lf_cost_side_attention(tail));
        }
        if (!serial[i])
            jb->heads[n++] = i;
    }
    return n;
}

/* Joins the waiting heads with c's tails and lets them go. Each head meets
 * the tails in the order they were found, and no other group reaches its
 * target state meanwhile, so every front sees the points it saw with one
 * head at a time, in the same order (ties go to the same plans), on any
 * number of workers: a head's pairs in a block are one worker's. */
static void lf__join_waiting(lf__exact *x, const lf__join_staircase *sc)
{
    lf__join *j = x->join;
    int32_t nw = x->pool && !x->resident ? lf_pool_threads(x->pool) : 1;
    lf__join_job jb = {x, sc, j->n_waiting > 0 ? &j->by_cut[j->waiting_cut] : NULL, j->waiting_cut,
                       0, 0, NULL, 0, NULL, NULL};
    uint8_t *serial = NULL;
    if (jb.ts) {
        jb.heads = malloc((size_t)j->n_waiting * sizeof *jb.heads);
        jb.item_of = calloc((size_t)nw, sizeof *jb.item_of);
        jb.acc = calloc((size_t)nw, sizeof *jb.acc);
        serial = malloc((size_t)j->n_waiting);
        if (!jb.heads || !jb.item_of || !jb.acc || !serial)
            x->status = lf_set_error(LF_ENOMEM, "out of memory in the exact planner");
    }
    for (jb.k0 = 0; jb.ts && jb.k0 < jb.ts->n && x->status == LF_OK; jb.k0 += LF__JOIN_TAIL_BLOCK) {
        jb.k1 = jb.ts->n - jb.k0 > LF__JOIN_TAIL_BLOCK ? jb.k0 + LF__JOIN_TAIL_BLOCK : jb.ts->n;
        int32_t n = 0;
        if (nw > 1) {
            jb.n_heads = n = lf__join_prepare(x, &jb, serial);
            lf__join_job *ctx = &jb;
            lf_pool_job job = {ctx, lf__join_claim, lf__join_run, NULL};
            int32_t items = (n + LF__JOIN_HEADS_PER_ITEM - 1) / LF__JOIN_HEADS_PER_ITEM;
            lf_status st = x->status == LF_OK ? lf_pool_run(x->pool, items, &job) : x->status;
            if (st != LF_OK && x->status == LF_OK)
                x->status = st;
            for (int32_t w = 0; w < nw; w++)
                lf__join_acc_merge(x, &jb.acc[w]);
        } else if (serial) {
            memset(serial, 1, (size_t)j->n_waiting);
        }
        for (int32_t i = 0; i < j->n_waiting && x->status == LF_OK && !lf__join_late(x); i++)
            if (serial[i]) {
                lf__join_pairs(x, jb.c, jb.ts, jb.k0, jb.k1, &j->waiting[i], sc, 1, &jb.acc[0]);
                lf__join_acc_merge(x, &jb.acc[0]);
            }
        lf__dp_check_budget(x);
    }
    free(jb.heads);
    free(jb.item_of);
    free(jb.acc);
    free(serial);
    for (int32_t i = 0; i < j->n_waiting; i++) {
        x->extra_bytes -= j->waiting[i].held;
        lf_cost_side_free(j->waiting[i].side);
    }
    j->n_waiting = 0;
}

void lf__join_head_steps(lf__exact *x, int32_t c, int64_t below, int64_t head_aux)
{
    lf__join *j = x->join;
    lf__head h;
    if (!lf__head_begin(x, c, &j->by_cut[c], &h)) {
        lf_cost_side_free(h.side);
        return;
    }
    h.aux = head_aux;
    h.below = below;
    if (!lf__room(x, (void **)&j->waiting, j->n_waiting, &j->cap_waiting, 64, sizeof *j->waiting) ||
        !lf__room(x, (void **)&j->waiting_bits, j->n_waiting, &j->cap_waiting_bits, 64,
                  (size_t)x->nwords * sizeof *j->waiting_bits)) {
        lf_cost_side_free(h.side);
        return;
    }
    j->waiting_cut = c;
    h.held = lf_cost_side_bytes(h.side);
    x->extra_bytes += h.held;
    j->waiting[j->n_waiting++] = h;
    memcpy(j->waiting_bits + (size_t)(j->n_waiting - 1) * x->nwords, x->sbits.words,
           (size_t)x->nwords * sizeof *j->waiting_bits);
}

void lf__join_flush_steps(lf__exact *x, const lf__join_staircase *sc)
{
    lf__join *j = x->join;
    if (!j)
        return;
    /* The bits move while heads wait (realloc): pointed at only now. */
    for (int32_t i = 0; i < j->n_waiting; i++)
        j->waiting[i].bits = j->waiting_bits + (size_t)i * x->nwords;
    lf__join_waiting(x, sc);
}

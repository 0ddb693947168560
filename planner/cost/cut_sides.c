/* A group that holds a cut op, priced from its two sides (cost.h; DESIGN
 * §7). The row engine walks a group's members from its sinks down. In
 * G = T u {c} u H every sink lies in H (each op of T feeds c, c feeds H),
 * so H's walk alone fixes c's window and row scale at each sink phase; T's
 * walk then starts from those, and nothing in T reaches back: with no
 * reduction, resize or upsample in T u {c}, T has no say in the phases, the
 * sinks' height or any row scale above c. The feature bytes at tile height h
 * are then, phase by phase, T's terms plus H's terms, and the sums (inputs,
 * outputs, weights, the largest weight block) split the same way, because
 * H reads nothing below c but c and T writes nothing out but through c. */
#include <stdlib.h>
#include <string.h>

#include "planner/cost/cost_internal.h"

/* Sink phases a side keeps (groups with more are priced whole). */
#define LF__SIDE_PHASES 8

struct lf_cost_side {
    int separable;
    int32_t cut;
    int32_t n_phases;
    int64_t lo[LF__SIDE_PHASES], hi[LF__SIDE_PHASES]; /* the cut op's window per phase */
    lf__rat sigma;                                     /* and its row scale */
    int64_t in, out, weights, wblk, height;
    int32_t start[LF__SIDE_PHASES + 1];
    int32_t n_terms;
    lf__row_term *terms;
    /* The terms' sum per phase at h = 1, and (a head's) at h = 2 .. at_rows
     * once asked (-1: not yet): a head is joined with many tails and a tail
     * with many heads, so each side's sums are taken once. */
    int64_t one[LF__SIDE_PHASES];
    int64_t *at;
    int32_t at_rows;
    int keep_rows; /* heads only: a tail is asked for few tile heights per head */
};

/* The terms of phase p at h. */
static int64_t lf__phase_sum(const lf_cost_side *s, int32_t p, int64_t h)
{
    int64_t f = 0;
    for (int32_t k = s->start[p]; k < s->start[p + 1]; k++)
        f += lf__term_bytes(&s->terms[k], h);
    return f;
}

/* Shrinks the terms to what the side holds and takes the sums at h = 1. */
static void lf__side_done(lf_cost_side *s)
{
    lf__row_term *t = realloc(s->terms, (size_t)(s->n_terms > 0 ? s->n_terms : 1) * sizeof *t);
    if (t)
        s->terms = t;
    for (int32_t p = 0; p < s->n_phases; p++)
        s->one[p] = lf__phase_sum(s, p, 1);
}

/* The sum of phase p at h, kept for later (-1 without memory: recomputed). */
static int64_t lf__side_sum(lf_cost_side *s, int32_t p, int64_t h, int64_t rows)
{
    if (h <= 1)
        return s->one[p];
    if (!s->at && s->keep_rows && rows >= 2 && rows < INT32_MAX / LF__SIDE_PHASES) {
        s->at = malloc((size_t)s->n_phases * (size_t)(rows + 1) * sizeof *s->at);
        if (s->at) {
            s->at_rows = (int32_t)rows;
            for (int64_t k = 0; k < (int64_t)s->n_phases * (rows + 1); k++)
                s->at[k] = -1;
        }
    }
    if (!s->at || h > s->at_rows)
        return lf__phase_sum(s, p, h);
    int64_t *f = &s->at[(int64_t)p * (s->at_rows + 1) + h];
    if (*f < 0)
        *f = lf__phase_sum(s, p, h);
    return *f;
}

/* Kinds whose windows in T depend on nothing but what their consumers ask
 * (a reduction, a resize or an upsample below the cut would feed the phases
 * or the sinks' height, which belong to the whole group). */
static int lf__plain_kind(lf_row_kind k)
{
    return k == LF_ROWS_WINDOW || k == LF_ROWS_VIEW || k == LF_ROWS_FULL;
}

static int lf__reads(const lf_op *op, int32_t p)
{
    for (int32_t j = 0; j < op->n_inputs; j++)
        if (op->inputs[j] == p)
            return 1;
    return 0;
}

/* Records the current windows' terms of phase p (skipping skip[]); 0 when
 * the side cannot keep them. */
static int lf__keep_phase(lf_cost_side *s, const lf__group *G, const uint8_t *skip, int32_t p,
                          int32_t cap)
{
    s->start[p] = s->n_terms;
    int32_t k = lf__window_terms(G, skip, s->terms + s->n_terms, cap - s->n_terms);
    if (k < 0)
        return 0;
    s->n_terms += k;
    s->start[p + 1] = s->n_terms;
    return 1;
}

static lf_status lf__side_new(lf_cost_side **out, int32_t cap)
{
    lf_cost_side *s = calloc(1, sizeof *s);
    if (s)
        s->terms = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *s->terms);
    if (!s || !s->terms) {
        lf_cost_side_free(s);
        return lf_set_error(LF_ENOMEM, "out of memory pricing a group at a cut op");
    }
    *out = s;
    return LF_OK;
}

lf_status lf_cost_head_side(lf_cost_model *cm, int32_t c, const int32_t *head, int32_t n,
                            lf_cost_side **out)
{
    *out = NULL;
    const lf_graph *g = cm->g;
    int32_t *members = malloc((size_t)(n + 1) * sizeof *members);
    if (!members)
        return lf_set_error(LF_ENOMEM, "out of memory pricing a group at a cut op");
    members[0] = c;
    memcpy(members + 1, head, (size_t)n * sizeof *members);
    lf__group G;
    lf_status st = lf__group_init(&G, cm, members, n + 1);
    free(members);
    if (st != LF_OK)
        return st;
    uint8_t *skip = calloc((size_t)G.nt, 1);
    int32_t cap = LF__SIDE_PHASES * 2 * G.nt;
    lf_cost_side *s = NULL;
    if (!skip || (st = lf__side_new(&s, cap)) != LF_OK) {
        free(skip);
        lf__group_destroy(&G);
        return st != LF_OK ? st : lf_set_error(LF_ENOMEM, "out of memory pricing a group at a cut op");
    }
    s->cut = c;
    s->keep_rows = 1;
    /* The head reads c and itself only (an edge from below c into the head
     * would widen a window of T), so its outside tensors are c's inputs:
     * they belong to T. */
    int ok = lf__plain_kind(cm->ops[c].kind) && cm->ops[c].h > 1 && n >= 1;
    for (int32_t i = 1; i < G.n && ok; i++) {
        const lf_op *op = &g->ops[G.tensor[i]];
        for (int32_t j = 0; j < op->n_inputs && ok; j++)
            ok = G.loc[op->inputs[j]] < G.n;
    }
    for (int32_t t = G.n; t < G.nt && ok; t++) {
        ok = lf__reads(&g->ops[c], G.tensor[t]);
        skip[t] = 1;
    }
    int32_t phases = ok ? lf__head_setup(&G) : -1;
    ok = phases >= 1 && phases <= LF__SIDE_PHASES && !G.sink[0];
    for (int32_t p = 0; ok && p < phases; p++) {
        lf__head_windows(&G, p);
        s->lo[p] = G.lo[0];
        s->hi[p] = G.hi[0];
        ok = G.hi[0] >= G.lo[0] && lf__keep_phase(s, &G, skip, p, cap);
    }
    if (ok) {
        int64_t in;
        s->separable = 1;
        s->n_phases = phases;
        s->sigma = G.sigma[0];
        lf__group_io(&G, &in, &s->out);
        s->weights = lf__group_weights(&G);
        s->wblk = lf__group_wblk(&G);
        s->height = G.main_href;
        lf__side_done(s);
    }
    free(skip);
    lf__group_destroy(&G);
    *out = s;
    return LF_OK;
}

lf_status lf_cost_tail_side(lf_cost_model *cm, const int32_t *tail, int32_t n,
                            const lf_cost_side *head, lf_cost_side **out)
{
    *out = NULL;
    int32_t c = head->cut;
    int32_t *members = malloc((size_t)(n + 1) * sizeof *members);
    if (!members)
        return lf_set_error(LF_ENOMEM, "out of memory pricing a group at a cut op");
    if (n > 0)
        memcpy(members, tail, (size_t)n * sizeof *members);
    members[n] = c;
    lf__group G;
    lf_status st = lf__group_init(&G, cm, members, n + 1);
    free(members);
    if (st != LF_OK)
        return st;
    lf_cost_side *s = NULL;
    int32_t cap = LF__SIDE_PHASES * 2 * G.nt;
    if ((st = lf__side_new(&s, cap)) != LF_OK) {
        lf__group_destroy(&G);
        return st;
    }
    /* The key is the head's whatever the tail is: a tail that does not
     * separate is known as such for every head of that key. */
    s->cut = c;
    s->n_phases = head->n_phases;
    s->sigma = head->sigma;
    memcpy(s->lo, head->lo, sizeof s->lo);
    memcpy(s->hi, head->hi, sizeof s->hi);
    int ok = head->separable;
    for (int32_t i = 0; i < G.n && ok; i++)
        ok = lf__plain_kind(cm->ops[G.tensor[i]].kind) && (i == n || !G.out[i]);
    /* c's own window and staging row are the head's. */
    uint8_t *skip = ok ? calloc((size_t)G.nt, 1) : NULL;
    if (skip)
        skip[n] = 1;
    ok = ok && skip;
    for (int32_t p = 0; ok && p < head->n_phases; p++) {
        lf__tail_windows(&G, head->lo[p], head->hi[p], head->sigma.num, head->sigma.den);
        ok = lf__keep_phase(s, &G, skip, p, cap);
    }
    if (ok) {
        int64_t outb;
        s->separable = 1;
        lf__group_io(&G, &s->in, &outb);
        for (int32_t i = 0; i < n; i++) {
            const lf__op_cost *oc = &cm->ops[G.tensor[i]];
            s->weights += oc->weight_bytes;
            if (oc->wblk > s->wblk)
                s->wblk = oc->wblk;
        }
        lf__side_done(s);
    }
    free(skip);
    lf__group_destroy(&G);
    *out = s;
    return LF_OK;
}

int lf_cost_side_separable(const lf_cost_side *s) { return s && s->separable; }

int lf_cost_side_same_key(const lf_cost_side *tail, const lf_cost_side *head)
{
    if (tail->cut != head->cut || tail->n_phases != head->n_phases ||
        tail->sigma.num != head->sigma.num || tail->sigma.den != head->sigma.den)
        return 0;
    for (int32_t p = 0; p < head->n_phases; p++)
        if (tail->lo[p] != head->lo[p] || tail->hi[p] != head->hi[p])
            return 0;
    return 1;
}

typedef struct lf__joined {
    lf_cost_side *tail, *head;
} lf__joined;

/* The group's feature bytes at h: the largest phase total of both sides
 * (tile heights past the head's sinks' height are not kept). */
static int64_t lf__joined_features(void *ctx, int64_t h, lf__peak *peak)
{
    const lf__joined *j = ctx;
    int64_t best = -1, rows = j->head->height;
    for (int32_t p = 0; p < j->head->n_phases; p++) {
        int64_t f = lf__side_sum(j->tail, p, h, rows) + lf__side_sum(j->head, p, h, rows);
        if (f > best) {
            best = f;
            if (peak) {
                peak->snapshot_op = -1;
                peak->phase = p;
                peak->n_snapshots = 1;
            }
        }
    }
    return best;
}

/* The pricing source of the joined group. */
static lf_status lf__join_priced(const lf_cost_side *tail, const lf_cost_side *head, lf__joined *j,
                                 lf__priced *p)
{
    if (!tail->separable || !head->separable || !lf_cost_side_same_key(tail, head))
        return lf_set_error(LF_EINVAL, "the two sides of a group at a cut op do not join");
    *p = (lf__priced){tail->in + head->in,
                      tail->out + head->out,
                      tail->weights + head->weights,
                      tail->wblk > head->wblk ? tail->wblk : head->wblk,
                      &head->height,
                      INT64_MAX,
                      lf__joined_features,
                      j};
    return LF_OK;
}

lf_status lf_cost_join_eval(lf_cost_model *cm, lf_cost_side *tail, lf_cost_side *head, int64_t limit,
                            lf_group_cost *out)
{
    memset(out, 0, sizeof *out);
    lf__joined j = {tail, head};
    lf__priced p;
    lf_status st = lf__join_priced(tail, head, &j, &p);
    p.limit = limit;
    lf__peak peak;
    return st != LF_OK ? st : cm->scheme->price(&p, cm->hw.buffer_bytes, out, &peak);
}

lf_status lf_cost_join_steps(lf_cost_model *cm, lf_cost_side *tail, lf_cost_side *head, int64_t below,
                             lf_cost_step *steps, int32_t cap, int32_t *n)
{
    lf__joined j = {tail, head};
    lf__priced p;
    *n = 0;
    lf_status st = lf__join_priced(tail, head, &j, &p);
    return st != LF_OK ? st : cm->scheme->steps(&p, below, steps, cap, n);
}

int64_t lf_cost_head_min_reads(lf_cost_model *cm, lf_cost_side *head)
{
    if (!head->separable || cm->scheme->weights_resident)
        return 1;
    int64_t beta = cm->hw.buffer_bytes, rows = head->height < 1 ? 1 : head->height;
    /* The head's own terms at h: what any pair holds at least. */
    int64_t f1 = 0;
    for (int32_t p = 0; p < head->n_phases; p++)
        if (head->one[p] > f1)
            f1 = head->one[p];
    if (head->weights + f1 < beta)
        return 1; /* a small tail may keep every weight resident */
    if (f1 + head->wblk >= beta)
        return 0;
    int64_t lo = 1, hi = rows;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2, f = 0;
        for (int32_t p = 0; p < head->n_phases; p++) {
            int64_t fp = lf__side_sum(head, p, mid, rows);
            if (fp > f)
                f = fp;
        }
        if (f + head->wblk < beta)
            lo = mid;
        else
            hi = mid - 1;
    }
    return (rows + lo - 1) / lo;
}

int64_t lf_cost_side_bytes(const lf_cost_side *s)
{
    return s ? (int64_t)sizeof *s + (int64_t)s->n_terms * (int64_t)sizeof *s->terms +
                   (s->at ? (int64_t)s->n_phases * (s->at_rows + 1) * 8 : 0)
             : 0;
}

void lf_cost_side_free(lf_cost_side *s)
{
    if (!s)
        return;
    free(s->terms);
    free(s->at);
    free(s);
}

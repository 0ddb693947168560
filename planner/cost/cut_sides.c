/* A group that holds a cut op, priced from its two sides (cost.h; DESIGN
 * §7). The row engine walks a group's members from its sinks down. In
 * G = T u {c} u H every sink lies in H (each op of T feeds c, c feeds H),
 * so H's walk alone fixes c's window and row scale at each sink phase; T's
 * walk then starts from those, and nothing in T reaches back: with no
 * reduction, resize or upsample in T u {c}, T has no say in the phases, the
 * sinks' height or any row scale above c. The feature bytes at tile height h
 * are then, phase by phase, T's terms plus H's terms, and the sums (inputs,
 * outputs, weights, the largest weight block) split the same way, because
 * H reads nothing below c but c and T writes nothing out but through c.
 * Attention in T (lf_cost_tail_side) keeps that: its K/V are read whole,
 * asking no rows, and whatever else the attention pricing reads of G (K/V,
 * query rows, heads, the two passes' inputs) T u {c} alone fixes when H
 * holds no score map and T's heads cannot run one after another. */
#include <stdlib.h>
#include <string.h>

#include "planner/cost/cost_internal.h"
#include "planner/cost/objective.h"

/* Sink phases a side keeps (groups with more are priced whole). */
#define LF__SIDE_PHASES LF_COST_SIDE_PHASES

struct lf_cost_side {
    int separable;
    int32_t cut;
    int32_t n_phases;
    int64_t lo[LF__SIDE_PHASES], hi[LF__SIDE_PHASES]; /* the cut op's window per phase */
    lf__rat sigma;                                     /* and its row scale */
    int64_t in, out, weights, wblk, height;
    int32_t start[LF__SIDE_PHASES + 1];
    int32_t n_terms;
    lf__row_term *terms; /* right after the side, in its block (none unless separable) */
    /* The terms' sum per phase at h = 1, and (a head's) at h = 2 .. at_rows
     * once asked (at[h * n_phases + p]; a row's first entry -1: not yet): a
     * head is joined with many tails, so its sums are taken once. */
    int64_t one[LF__SIDE_PHASES];
    /* A tail's floor at `full_rows` rows (lf__chord_end). */
    int64_t full[LF__SIDE_PHASES], full_rows;
    int64_t *at;
    int32_t at_rows;
    int keep_rows; /* heads only: a tail is asked for few tile heights per head */
    int score_free; /* heads: no window of a score or probability map */
    /* A tail that holds attention: what attn.c prices from besides its
     * windows and sums (lf__attn_keep), right after the terms; NULL for
     * any other side. */
    void *attn;
};

/* The terms of phase p at h. */
static int64_t lf__phase_sum(const lf_cost_side *s, int32_t p, int64_t h)
{
    int64_t f = 0;
    for (int32_t k = s->start[p]; k < s->start[p + 1]; k++)
        f += lf__term_bytes(&s->terms[k], h);
    return f;
}

/* The side b was built in (its terms in a scratch buffer), moved into one
 * block of the size it needs, with its sums at h = 1 taken. */
static lf_status lf__side_done(const lf_cost_side *b, lf_cost_side **out)
{
    size_t terms = (size_t)b->n_terms * sizeof *b->terms, attn = b->attn ? lf__attn_kept_size() : 0;
    lf_cost_side *s = malloc(sizeof *s + terms + attn);
    if (!s)
        return lf_set_error(LF_ENOMEM, "out of memory pricing a group at a cut op");
    *s = *b;
    s->terms = (lf__row_term *)(s + 1);
    if (b->n_terms > 0)
        memcpy(s->terms, b->terms, terms);
    if (attn) {
        s->attn = (char *)s->terms + terms;
        memcpy(s->attn, b->attn, attn);
    }
    for (int32_t p = 0; s->separable && p < s->n_phases; p++)
        s->one[p] = lf__phase_sum(s, p, 1);
    *out = s;
    return LF_OK;
}

/* What phase p's terms hold at least at h rows, without the rounding up:
 * each term's min(span + (h - 1) sigma, height) rows is concave in h, so
 * the sum lies above the chord from h = 1 to this end (lf__briefed_features). */
static int64_t lf__chord_end(const lf_cost_side *s, int32_t p, int64_t h)
{
    int64_t f = 0;
    for (int32_t k = s->start[p]; k < s->start[p + 1]; k++) {
        const lf__row_term *t = &s->terms[k];
        int64_t rows = t->span + (t->sigma.num == 0 ? 0 : (h - 1) * t->sigma.num / t->sigma.den);
        f += (rows < t->height ? rows : t->height) * t->row_bytes;
    }
    return f;
}

/* The sums of every phase at h (n_phases of them): kept for later in a
 * head (one row of `at` per h, -1 in its first entry until taken), else
 * taken into tmp. */
static const int64_t *lf__side_row(lf_cost_side *s, int64_t h, int64_t rows, int64_t *tmp)
{
    if (h <= 1)
        return s->one;
    if (!s->at && s->keep_rows && s->n_phases > 0 && rows >= 2 && rows < INT32_MAX / LF__SIDE_PHASES) {
        s->at = malloc((size_t)s->n_phases * (size_t)(rows + 1) * sizeof *s->at);
        if (s->at) {
            s->at_rows = (int32_t)rows;
            for (int64_t k = 0; k <= rows; k++)
                s->at[k * s->n_phases] = -1;
        }
    }
    int64_t *row = s->at && h <= s->at_rows ? &s->at[h * s->n_phases] : tmp;
    if (row == tmp || row[0] < 0)
        for (int32_t p = 0; p < s->n_phases; p++)
            row[p] = lf__phase_sum(s, p, h);
    return row;
}

/* The sum of phase p at h (lf__side_row). */
static int64_t lf__side_sum(lf_cost_side *s, int32_t p, int64_t h, int64_t rows)
{
    int64_t tmp[LF__SIDE_PHASES];
    return lf__side_row(s, h, rows, tmp)[p];
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

/* Adds up terms t[0..k) that price alike: a window as tall as its map is
 * the same bytes at every h (one constant term holds them all), and windows
 * of one span, row scale and height differ only in their row bytes. The
 * sums at every h stay exactly what they were; a side has fewer terms to
 * keep and add (about half on Inception-v3). Score windows stay apart from
 * the others (the attention pricing counts them apart: lf__count). Returns
 * the new count. */
static int32_t lf__merge_terms(lf__row_term *t, int32_t k)
{
    int32_t n = 0, fixed[2] = {-1, -1};
    for (int32_t i = 0; i < k; i++) {
        lf__row_term x = t[i];
        int sc = x.score != 0;
        if (x.span >= x.height) { /* min(span + growth, height) = height */
            x = (lf__row_term){1, {0, 1}, 1, x.height * x.row_bytes, sc};
            if (fixed[sc] >= 0) {
                t[fixed[sc]].row_bytes += x.row_bytes;
                continue;
            }
            fixed[sc] = n;
        } else {
            int32_t j = 0;
            while (j < n && !(t[j].span == x.span && t[j].height == x.height &&
                              t[j].sigma.num == x.sigma.num && t[j].sigma.den == x.sigma.den &&
                              (t[j].score != 0) == sc && j != fixed[0] && j != fixed[1]))
                j++;
            if (j < n) {
                t[j].row_bytes += x.row_bytes;
                continue;
            }
        }
        x.score = sc;
        t[n++] = x;
    }
    return n;
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
    s->n_terms += lf__merge_terms(s->terms + s->n_terms, k);
    s->start[p + 1] = s->n_terms;
    return 1;
}

/* Where a side being built keeps its terms: the view's scratch store, or
 * (a view on the heap) a buffer of its own (*own, freed by the caller). */
static lf__row_term *lf__terms_buffer(lf__group *G, int32_t cap, lf__row_term **own)
{
    *own = NULL;
    if (lf__group_grow_terms(G, cap > 0 ? cap : 1))
        return G->terms;
    *own = malloc((size_t)(cap > 0 ? cap : 1) * sizeof **own);
    return *own;
}

/* What a side is built in: the view of the cut op and the ops on one side
 * of it, ascending (the head: c first; a tail: c last; a short member list
 * stays on the stack), b (empty) with its terms in a buffer of *cap
 * (lf__terms_buffer), and no tensor of the view skipped yet. Without memory
 * everything is released. */
static lf_status lf__side_begin(lf__group *G, lf_cost_model *cm, int32_t c, const int32_t *ops,
                                int32_t n, int c_first, lf_cost_side *b, lf__row_term **own,
                                uint8_t **skip, int32_t *cap)
{
    int32_t local[64], *members = n + 1 <= 64 ? local : malloc((size_t)(n + 1) * sizeof *members);
    if (!members)
        return lf_set_error(LF_ENOMEM, "out of memory pricing a group at a cut op");
    members[c_first ? 0 : n] = c;
    if (n > 0)
        memcpy(members + (c_first ? 1 : 0), ops, (size_t)n * sizeof *members);
    lf_status st = lf__group_init(G, cm, members, n + 1);
    if (members != local)
        free(members);
    if (st != LF_OK)
        return st;
    *cap = LF__SIDE_PHASES * 2 * G->nt;
    memset(b, 0, sizeof *b);
    b->terms = lf__terms_buffer(G, *cap, own);
    *skip = calloc((size_t)G->nt > 0 ? (size_t)G->nt : 1, 1);
    if (*skip && b->terms)
        return LF_OK;
    free(*skip);
    free(*own);
    lf__group_destroy(G);
    return lf_set_error(LF_ENOMEM, "out of memory pricing a group at a cut op");
}

lf_status lf_cost_head_side(lf_cost_model *cm, int32_t c, const int32_t *head, int32_t n,
                            lf_cost_side **out)
{
    *out = NULL;
    const lf_graph *g = cm->g;
    lf__group G;
    lf_cost_side b;
    lf__row_term *own = NULL;
    uint8_t *skip = NULL;
    int32_t cap = 0;
    lf_status st = lf__side_begin(&G, cm, c, head, n, 1, &b, &own, &skip, &cap);
    if (st != LF_OK)
        return st;
    b.cut = c;
    b.keep_rows = 1;
    /* The head reads c and itself only (an edge from below c into the head
     * would widen a window of T), so its outside tensors are c's inputs:
     * they belong to T. */
    int ok = lf__plain_kind(cm->ops[c].kind) && cm->ops[c].h > 1 && n >= 1 && !cm->ops[c].global_in;
    for (int32_t i = 1; i < G.n && ok; i++) {
        const lf_op *op = &g->ops[G.tensor[i]];
        ok = !cm->ops[G.tensor[i]].global_in; /* attention groups are priced whole (attn.c) */
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
        b.lo[p] = G.lo[0];
        b.hi[p] = G.hi[0];
        ok = G.hi[0] >= G.lo[0] && lf__keep_phase(&b, &G, skip, p, cap);
    }
    if (ok) {
        int64_t in;
        b.separable = 1;
        b.n_phases = phases;
        b.sigma = G.sigma[0];
        lf__group_io(&G, &in, &b.out);
        b.weights = lf__group_weights(&G);
        b.wblk = lf__group_wblk(&G);
        b.height = G.main_href;
        b.score_free = 1;
        for (int32_t k = 0; k < b.n_terms; k++)
            b.score_free &= !b.terms[k].score;
    } else {
        b.n_terms = 0;
    }
    st = lf__side_done(&b, out);
    free(skip);
    free(own);
    lf__group_destroy(&G);
    return st;
}

lf_status lf_cost_tail_side(lf_cost_model *cm, const int32_t *tail, int32_t n,
                            const lf_cost_side *head, lf_cost_side **out)
{
    *out = NULL;
    int32_t c = head->cut;
    lf__group G;
    lf_cost_side b;
    lf__row_term *own = NULL;
    uint8_t *skip = NULL;
    int32_t cap = 0;
    lf_status st = lf__side_begin(&G, cm, c, tail, n, 0, &b, &own, &skip, &cap);
    if (st != LF_OK)
        return st;
    /* The key is the head's whatever the tail is: a tail that does not
     * separate is known as such for every head of that key. */
    b.cut = c;
    b.n_phases = head->n_phases;
    b.sigma = head->sigma;
    memcpy(b.lo, head->lo, sizeof b.lo);
    memcpy(b.hi, head->hi, sizeof b.hi);
    int ok = head->separable, attn = 0;
    /* Attention below the cut op: the pair is priced from the two sides
     * (its steps under DRAM, lf_cost_join_steps; its prices under energy and
     * latency, lf_cost_join_attn_prices: no price at one buffer either way),
     * when the head holds no score window (the pricing's ways of counting
     * treat those apart) and the tail's heads do not run one after another
     * (which hangs on the head's ops too). */
    int attn_ok = head->score_free;
    for (int32_t i = 0; i < G.n && ok; i++) {
        int global = cm->ops[G.tensor[i]].global_in != 0;
        attn |= global;
        ok = lf__plain_kind(cm->ops[G.tensor[i]].kind) && (!global || attn_ok) && (i == n || !G.out[i]);
    }
    uint64_t kept[512];
    if (ok && attn) {
        int present = 0, per_head = 0;
        if (lf__attn_kept_size() > sizeof kept)
            ok = 0;
        else if ((st = lf__attn_keep(&G, cm->scheme, kept, &present, &per_head)) != LF_OK)
            ok = 0;
        else
            ok = present && !per_head;
        b.attn = ok ? kept : NULL;
    }
    /* c's own window and staging row are the head's. */
    skip[n] = 1;
    if (ok)
        lf__tail_scales(&G, head->sigma.num, head->sigma.den);
    for (int32_t p = 0; ok && p < head->n_phases; p++) {
        lf__tail_windows(&G, head->lo[p], head->hi[p]);
        ok = lf__keep_phase(&b, &G, skip, p, cap);
    }
    if (ok) {
        int64_t outb;
        b.separable = 1;
        lf__group_io(&G, &b.in, &outb);
        for (int32_t i = 0; i < n; i++) {
            const lf__op_cost *oc = &cm->ops[G.tensor[i]];
            b.weights += oc->weight_bytes;
            if (oc->wblk > b.wblk)
                b.wblk = oc->wblk;
        }
        b.full_rows = head->height > 1 ? head->height : 1;
        for (int32_t p = 0; p < b.n_phases; p++)
            b.full[p] = lf__chord_end(&b, p, b.full_rows);
    } else {
        b.n_terms = 0;
        b.attn = NULL;
    }
    if (st == LF_OK)
        st = lf__side_done(&b, out);
    free(skip);
    free(own);
    lf__group_destroy(&G);
    return st;
}

int lf_cost_side_attention(const lf_cost_side *s) { return s && s->separable && s->attn; }

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

/* The largest phase total tail[p] + head[p] of n phases, and where it is
 * (the first phase on a tie). */
static int64_t lf__phase_peak(const int64_t *tail, const int64_t *head, int32_t n, lf__peak *peak)
{
    int64_t best = -1;
    for (int32_t p = 0; p < n; p++) {
        int64_t f = tail[p] + head[p];
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

/* The group's feature bytes at h: the largest phase total of both sides
 * (tile heights past the head's sinks' height are not kept). */
static int64_t lf__joined_features(void *ctx, int64_t h, lf__peak *peak)
{
    const lf__joined *j = ctx;
    int64_t rows = j->head->height, tmp_t[LF__SIDE_PHASES], tmp_h[LF__SIDE_PHASES];
    const int64_t *tail = lf__side_row(j->tail, h, rows, tmp_t), *head = lf__side_row(j->head, h, rows, tmp_h);
    return lf__phase_peak(tail, head, j->head->n_phases, peak);
}

/* The pricing source of the group of a tail (its sums) and head, with the
 * feature bytes from fn. */
static lf__priced lf__pair_priced(int64_t in, int64_t out, int64_t weights, int64_t wblk,
                                  lf_cost_side *head, int64_t limit,
                                  int64_t (*fn)(void *, int64_t, lf__peak *), void *ctx)
{
    return (lf__priced){.in = in + head->in,
                        .out = out + head->out,
                        .weights = weights + head->weights,
                        .wblk = wblk > head->wblk ? wblk : head->wblk,
                        .height = &head->height,
                        .limit = limit,
                        .features = fn,
                        .ctx = ctx};
}

/* The pricing source of the joined group. */
static lf_status lf__join_priced(const lf_cost_side *tail, const lf_cost_side *head, lf__joined *j,
                                 lf__priced *p)
{
    if (!tail->separable || !head->separable || !lf_cost_side_same_key(tail, head) || tail->attn)
        return lf_set_error(LF_EINVAL, "the two sides of a group at a cut op do not join");
    *p = lf__pair_priced(tail->in, tail->out, tail->weights, tail->wblk, j->head, INT64_MAX,
                         lf__joined_features, j);
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

void lf_cost_side_brief(const lf_cost_side *s, lf_cost_brief *b)
{
    memset(b, 0, sizeof *b);
    b->separable = s->separable && !s->attn; /* attention pairs: lf_cost_join_steps alone */
    b->n_phases = s->n_phases;
    b->in = s->in;
    b->out = s->out;
    b->weights = s->weights;
    b->wblk = s->wblk;
    for (int32_t p = 0; p < LF__SIDE_PHASES; p++)
        b->phase[p] = (struct lf_cost_brief_phase){s->one[p], s->full[p]};
    b->rows = s->full_rows;
}

/* The brief's floor of phase p at h: exact at one row, then the chord up to
 * `rows` (concave terms lie above it), and flat past it (they only grow). */
static int64_t lf__brief_floor(const lf_cost_brief *b, int32_t p, int64_t h)
{
    const struct lf_cost_brief_phase *f = &b->phase[p];
    if (h <= 1 || b->rows <= 1)
        return f->one;
    if (h >= b->rows)
        return f->full;
    return f->one + (f->full - f->one) * (h - 1) / (b->rows - 1);
}

typedef struct lf__briefed {
    const lf_cost_brief *tail;
    lf_cost_side *head;
} lf__briefed;

/* A floor of the joined group's feature bytes at h (exact at h = 1). */
static int64_t lf__briefed_features(void *ctx, int64_t h, lf__peak *peak)
{
    const lf__briefed *j = ctx;
    int32_t n = j->head->n_phases;
    if (h <= 1 && !peak) { /* most calls: both sides' sums at one row, kept */
        int64_t best = -1;
        for (int32_t p = 0; p < n; p++) {
            int64_t f = j->tail->phase[p].one + j->head->one[p];
            best = f > best ? f : best;
        }
        return best;
    }
    int64_t tail[LF__SIDE_PHASES], tmp[LF__SIDE_PHASES];
    for (int32_t p = 0; p < n; p++)
        tail[p] = lf__brief_floor(j->tail, p, h);
    return lf__phase_peak(tail, lf__side_row(j->head, h, j->head->height, tmp), n, peak);
}

int lf_cost_join_settles(lf_cost_model *cm, const lf_cost_brief *tail, lf_cost_side *head,
                         int64_t limit)
{
    /* (an attention tail's brief says it does not separate) */
    if (!tail->separable || !head->separable || tail->n_phases != head->n_phases)
        return 0;
    lf__briefed j = {tail, head};
    lf__priced p = lf__pair_priced(tail->in, tail->out, tail->weights, tail->wblk, head, limit,
                                   lf__briefed_features, &j);
    return cm->scheme->settles(&p, cm->hw.buffer_bytes);
}

/* The attention pricing's ways of counting (lf__count) of every state of
 * the joined group at h: its states are the head's sink phases (no
 * snapshot of its own: neither side holds a reduction), each holding both
 * sides' windows of that phase, the score windows all the tail's. */
static void lf__joined_counts(void *ctx, int64_t h, const lf__count *ways, int32_t n, int64_t *max)
{
    const lf__joined *j = ctx;
    const lf_cost_side *t = j->tail;
    int64_t tmp[LF__SIDE_PHASES];
    const int64_t *head = lf__side_row(j->head, h, j->head->height, tmp);
    for (int32_t w = 0; w < n; w++)
        max[w] = -1;
    for (int32_t p = 0; p < t->n_phases; p++) {
        int64_t sum[2] = {head[p], 0}; /* other windows, score windows */
        for (int32_t k = t->start[p]; k < t->start[p + 1]; k++)
            sum[t->terms[k].score != 0] += lf__term_bytes(&t->terms[k], h);
        for (int32_t w = 0; w < n; w++) { /* as rows.c counts a state */
            int64_t div = ways[w].div, o = sum[0], s = sum[1];
            int64_t x = (div > 1 ? (o + div - 1) / div : o) + (s > 0 && ways[w].tile >= 0 ? ways[w].tile : s);
            if (x > max[w])
                max[w] = x;
        }
    }
}

/* The steps of a pair whose tail holds attention (attn.c from the sides). */
static lf_status lf__join_attn_steps(lf_cost_side *tail, lf_cost_side *head, int64_t below, lf_cost_step *steps,
                                     int32_t cap, int32_t *n)
{
    lf__joined j = {tail, head};
    lf__priced p = lf__pair_priced(tail->in, tail->out, tail->weights, tail->wblk, head, INT64_MAX,
                                   lf__joined_features, &j);
    return lf__attn_kept_steps(tail->attn, &p, lf__joined_counts, &j, below, steps, cap, n);
}

lf_status lf_cost_join_attn_prices(lf_cost_model *cm, lf_cost_side *tail, lf_cost_side *head, int64_t lo,
                                   int64_t below, lf_cost_sched **out, int32_t *n)
{
    (void)cm;
    *out = NULL;
    *n = 0;
    if (!lf_cost_side_attention(tail) || !head || !head->separable || !lf_cost_side_same_key(tail, head))
        return lf_set_error(LF_EINVAL, "the two sides of a group at a cut op do not join as attention");
    lf__joined j = {tail, head};
    lf__priced p = lf__pair_priced(tail->in, tail->out, tail->weights, tail->wblk, head, INT64_MAX,
                                   lf__joined_features, &j);
    return lf__attn_kept_prices(tail->attn, &p, lf__joined_counts, &j, lo, below, out, n);
}

static lf_status lf__join_ask_steps(void *ctx, int64_t below, lf_cost_step *steps, int32_t cap, int32_t *n)
{
    const lf__joined *a = ctx;
    return lf__join_attn_steps(a->tail, a->head, below, steps, cap, n);
}

lf_status lf_cost_join_steps(lf_cost_model *cm, const lf_bitset *group, lf_cost_side *tail, lf_cost_side *head,
                             int64_t below, lf_cost_step *steps, int32_t cap, int32_t *n)
{
    lf__joined j = {tail, head};
    lf__priced p;
    *n = 0;
    if (tail && tail->attn && head && head->separable && lf_cost_side_same_key(tail, head)) {
        /* Copies of the pair one block away have its steps (the memo of
         * model.c, which prices attention groups whole the same way). */
        return group ? lf__steps_keyed(cm, group, below, steps, cap, n, lf__join_ask_steps, &j)
                     : lf__join_attn_steps(tail, head, below, steps, cap, n);
    }
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

int64_t lf_cost_head_min_steps(lf_cost_model *cm, lf_cost_side *head)
{
    if (head->separable && cm->scheme->weights_resident)
        return head->height > 1 ? head->height : 1;
    return lf_cost_head_min_reads(cm, head);
}

int64_t lf_cost_join_rows(const lf_cost_model *cm, const lf_cost_side *tail, const lf_cost_side *head,
                          int64_t f_d)
{
    if (cm->scheme->weights_resident)
        return head->height > 1 ? head->height : 1;
    int64_t w = tail->weights + head->weights, base = tail->in + tail->out + head->in + head->out;
    return w > 0 && f_d > base ? (f_d - base) / w : 1;
}

int64_t lf_cost_side_bytes(const lf_cost_side *s)
{
    return s ? (int64_t)sizeof *s + (int64_t)s->n_terms * (int64_t)sizeof *s->terms +
                   (s->attn ? (int64_t)lf__attn_kept_size() : 0) +
                   (s->at ? (int64_t)s->n_phases * (s->at_rows + 1) * 8 : 0)
             : 0;
}

void lf_cost_side_free(lf_cost_side *s)
{
    if (!s)
        return;
    free(s->at);
    free(s);
}

/* The row-window engine behind both schemes (DESIGN §5, docs/cost-models.md).
 *
 * A snapshot is a moment of the group's line-buffered schedule: a set of
 * active ops and the sinks that are producing rows at that moment. Walking the
 * active ops in reverse topological order, every consumer asks its inputs for
 * a row interval (its window); a tensor holds the hull of what its consumers
 * ask, capped at its height. The producer's own current row is the top of
 * that hull. The feature term is the sum of the held rows plus one staging row
 * per output, maximised over snapshots and over one period of sink phases.
 *
 * Snapshots: the group's own sinks, and, for every op that reads a value only
 * a streaming reduction can produce (the squeeze-and-excite multiply), the
 * moment that op starts, with only its ancestors active.
 *
 * Waits: when the sinks produce their first row, the ops before such a wait
 * have streamed their whole maps while an op after it (the MBConv block's
 * final add) reads its first rows; a tensor read on both sides (the block's
 * input) then spans one hull from row 0 to its last: it stays resident for
 * the wait. Read again instead (G->reread_waits), the readers after the wait
 * take their rows through a second window of their own, and the cost model
 * (model.c) charges the second read in F_D and keeps the cheaper choice. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "planner/cost/cost_internal.h"

#define LF_MAX_PHASES 64
#define LF_MAX_BOUNDARIES LF__MAX_WAITS

static int64_t lf__gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a < 0 ? -a : a;
}

/* The rationals here are row scales, nearly always whole (1, or a stride):
 * those skip the divisions of the gcd, which took a third of the snapshots'
 * set-up. Only the value matters to the sums (lf__growth, lf__rat_less). */
static lf__rat lf__rat_make(int64_t num, int64_t den)
{
    if (den == 1 || num == 0)
        return (lf__rat){num, 1};
    if (num == den)
        return (lf__rat){1, 1};
    int64_t d = lf__gcd(num, den);
    if (d == 0)
        return (lf__rat){0, 1};
    return (lf__rat){num / d, den / d};
}

static lf__rat lf__rat_mul(lf__rat a, int64_t num, int64_t den)
{
    if (num == den)
        return a;
    return lf__rat_make(a.num * num, a.den * den);
}

static int lf__rat_less(lf__rat a, lf__rat b) { return a.num * b.den < b.num * a.den; }

/* ceil((h - 1) * sigma): extra rows a tensor needs when the sinks advance h rows per step. */
static int64_t lf__growth(lf__rat s, int64_t h)
{
    if (h <= 1 || s.num == 0)
        return 0;
    int64_t x = (h - 1) * s.num;
    return (x + s.den - 1) / s.den;
}

static int64_t lf__floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Marks the active members of a snapshot and its sinks. snapshot_op < 0: the
 * whole group with its own sinks; otherwise the ancestors of that op within
 * the group, with the op as the only sink. */
/* Marks member lm and its ancestors within the group in mark[] (n bytes). */
static void lf__mark_ancestors(const lf__group *G, int32_t lm, uint8_t *mark)
{
    memset(mark, 0, (size_t)G->n);
    mark[lm] = 1;
    for (int32_t i = lm; i >= 0; i--) { /* members come in topological order */
        if (!mark[i])
            continue;
        for (int32_t k = G->in_off[i]; k < G->in_off[i + 1]; k++) {
            int32_t l = G->in_loc[k];
            if (l < G->n)
                mark[l] = 1;
        }
    }
}

static void lf__select(lf__group *G, int32_t snapshot_op)
{
    if (snapshot_op < 0) {
        memset(G->active, 1, (size_t)G->n);
        G->last = G->n - 1;
        for (int32_t i = 0; i < G->n; i++)
            G->sink[i] = (uint8_t)!G->inner[i];
        return;
    }
    int32_t lm = G->loc[snapshot_op];
    lf__mark_ancestors(G, lm, G->active);
    memset(G->sink, 0, (size_t)G->n);
    G->sink[lm] = 1;
    G->last = lm; /* none after it is active */
}

/* Member i's inputs take at least the row scale i asks of them. */
static void lf__scale_inputs(lf__group *G, int32_t i)
{
    const lf__op_cost *oc = G->cm->ops;
    int32_t v = G->tensor[i];
    lf__rat s = G->sigma[i];
    for (int32_t k = G->in_off[i]; k < G->in_off[i + 1]; k++) {
        int32_t l = G->in_loc[k];
        lf__rat d = {0, 1};
        if ((oc[v].global_in >> (k - G->in_off[i])) & 1)
            continue; /* read whole: priced by attn.c, no rows */
        switch (oc[v].kind) {
        case LF_ROWS_WINDOW: d = lf__rat_mul(s, oc[v].stride, 1); break;
        case LF_ROWS_VIEW: d = s; break;
        case LF_ROWS_REDUCTION: d = G->terminal[i] ? s : (lf__rat){0, 1}; break;
        case LF_ROWS_RESIZE: d = lf__rat_mul(s, G->height[l], G->height[i]); break;
        case LF_ROWS_UPSAMPLE: d = lf__rat_mul(s, 1, oc[v].stride); break;
        default: break;
        }
        if (lf__rat_less(G->sigma[l], d))
            G->sigma[l] = d;
    }
}

/* Per snapshot: which reductions are terminal (nothing spatial waits for
 * them), which values exist only after a reduction, each member's effective
 * height, the sinks' reference height and the row scales. */
static void lf__prepare(lf__group *G)
{
    const lf__op_cost *oc = G->cm->ops;
    /* Forward: post-reduction values and effective heights. They look only
     * at a member's inputs, all active with it in every snapshot (the group,
     * or an op with its ancestors), so one pass over the group serves all. */
    for (int32_t i = 0; i < G->n && !G->forward_done; i++) {
        int32_t v = G->tensor[i];
        int post = 0;
        int64_t hv = oc[v].h;
        int32_t k0 = G->in_off[i], k1 = G->in_off[i + 1];
        int64_t hin = k1 > k0 ? G->height[G->in_loc[k0]] : 1;
        if (oc[v].kind == LF_ROWS_REDUCTION) {
            post = 1;
            hv = hin;
        } else if (oc[v].h == 1) {
            for (int32_t k = k0; k < k1; k++) {
                int32_t l = G->in_loc[k];
                if (l < G->n) {
                    post |= G->post[l];
                    if (G->hv[l] > hv)
                        hv = G->hv[l];
                }
            }
        }
        G->post[i] = (uint8_t)post;
        G->hv[i] = hv;
    }
    G->forward_done = 1;
    /* Backward: a reduction is terminal when no active op downstream of it
     * reads a spatial map (then it simply accumulates rows as they stream). */
    G->href = 1;
    for (int32_t i = G->last; i >= 0; i--) {
        if (!G->active[i])
            continue;
        int spatial_below = 0;
        for (int32_t c = G->cons_off[i]; c < G->cons_off[i + 1]; c++) {
            int32_t l = G->cons_loc[c];
            if (G->active[l])
                spatial_below |= oc[G->tensor[l]].reads_spatial || !G->terminal[l];
        }
        /* terminal[] doubles as "nothing spatial below" for non-reductions. */
        G->terminal[i] = (uint8_t)!spatial_below;
        if (G->sink[i] && G->hv[i] > G->href)
            G->href = G->hv[i];
    }
    /* Row scales: sinks advance hv/href rows per step; inputs scale by stride. */
    for (int32_t t = 0; t < G->nt; t++)
        G->sigma[t] = (lf__rat){0, 1};
    for (int32_t i = G->last; i >= 0; i--) {
        if (!G->active[i])
            continue;
        if (G->sink[i])
            G->sigma[i] = lf__rat_make(G->hv[i], G->href);
        lf__scale_inputs(G, i);
    }
}

/* Number of sink phases after which the windows repeat: 1 unless sinks run
 * at different heights or a resize maps rows fractionally. */
static int32_t lf__phases(const lf__group *G)
{
    int64_t p = 1;
    for (int32_t i = 0; i <= G->last; i++) {
        if (!G->active[i])
            continue;
        int64_t f = 1;
        if (G->sink[i] && G->hv[i] != G->href)
            f = (G->href + G->hv[i] - 1) / G->hv[i];
        if (G->cm->ops[G->tensor[i]].kind == LF_ROWS_UPSAMPLE) {
            /* the input window moves every stride-th output row */
            int64_t u = G->cm->ops[G->tensor[i]].stride;
            if (u > 1)
                p = p / lf__gcd(p, u) * u;
        }
        if (G->cm->ops[G->tensor[i]].kind == LF_ROWS_RESIZE) {
            int64_t hin = G->height[G->in_loc[G->in_off[i]]];
            f = (G->height[i] + hin - 1) / hin;
            if (f < 2)
                f = 2;
        }
        if (f > 1)
            p = p / lf__gcd(p, f) * f;
        if (p >= LF_MAX_PHASES)
            return LF_MAX_PHASES;
    }
    return (int32_t)p;
}

/* The feature bytes of the windows in lo and hi (and lo2, hi2 for tensors
 * read again after a wait) for h rows per step. The windows do not depend on
 * h (only each tensor's growth does), so a group with one snapshot and one
 * phase keeps them for every tile height. */
/* Bytes of one window at h rows per step; kept in G->terms while the view
 * records its snapshots (lf__features). */
static int64_t lf__term(lf__group *G, int64_t span, lf__rat sigma, int64_t height, int64_t row_bytes,
                        int32_t score, int64_t h)
{
    if (G->recording) {
        if (G->n_terms == G->cap_terms &&
            !lf__group_grow_terms(G, G->cap_terms > 0 ? 2 * G->cap_terms : 256))
            G->recording = 0, G->record_failed = 1;
        else
            G->terms[G->n_terms++] = (lf__row_term){span, sigma, height, row_bytes, score};
    }
    int64_t rows = span + lf__growth(sigma, h);
    return (rows < height ? rows : height) * row_bytes;
}

static int64_t lf__tensor_window(lf__group *G, int32_t t, int64_t h, int32_t snapshot_op)
{
    const lf__op_cost *oc = G->cm->ops;
    int32_t v = G->tensor[t];
    int64_t h_t = G->height[t], sum = 0;
    int32_t sc = oc[v].score;
    int view = t < G->n && oc[v].kind == LF_ROWS_VIEW;
    if (G->hi[t] >= G->lo[t] && !view)
        sum += lf__term(G, G->hi[t] - G->lo[t] + 1, G->sigma[t], h_t, oc[v].row_bytes, sc, h);
    if (G->reread_waits && G->hi2[t] >= G->lo2[t] && !view)
        sum += lf__term(G, G->hi2[t] - G->lo2[t] + 1, G->sigma[t], h_t, oc[v].row_bytes, sc, h);
    if (t < G->n && G->active[t] && (G->out[t] || G->tensor[t] == snapshot_op))
        sum += lf__term(G, 1, G->sigma[t], h_t, oc[v].row_bytes, sc, h);
    return sum;
}

/* One state's feature bytes from its other windows o and its score windows
 * s: their sum; and each of the attention pricing's ways (G->count) keeps
 * its own maximum. */
static int64_t lf__state_bytes(lf__group *G, int64_t o, int64_t s)
{
    for (int32_t w = 0; w < G->n_count; w++) {
        const lf__count *c = &G->count[w];
        int64_t x = (c->div > 1 ? (o + c->div - 1) / c->div : o) + (s > 0 && c->tile >= 0 ? c->tile : s);
        if (x > G->count_max[w])
            G->count_max[w] = x;
    }
    return o + s;
}

/* Members after the snapshot's last active one hold nothing: no active op
 * reads them (inputs come earlier) and they stage no rows. */
/* Adds one held window to the merged list (lf__merged_sum); 0 when the
 * list cannot grow. */
static int lf__merge_term(lf__group *G, int64_t span, lf__rat sigma, int64_t height, int64_t row_bytes,
                          int32_t score)
{
    for (int32_t k = 0; k < G->n_merged; k++) {
        lf__row_term *m = &G->terms[k];
        if (m->span == span && m->sigma.num == sigma.num && m->sigma.den == sigma.den && m->height == height &&
            (m->score != 0) == (score != 0)) {
            m->row_bytes += row_bytes;
            return 1;
        }
    }
    if (G->n_merged == G->cap_terms && !lf__group_grow_terms(G, G->cap_terms > 0 ? 2 * G->cap_terms : 256))
        return 0;
    G->terms[G->n_merged++] = (lf__row_term){span, sigma, height, row_bytes, score != 0};
    return 1;
}

/* lf__window_sum of a one_window group (snapshot -1) from its windows
 * merged once: Σ min(span + growth, height) * row_bytes over windows of one
 * (span, row scale, height) is that min times their row bytes added, so the
 * same sum (score windows apart, for the attention pricing's ways of
 * counting a state: lf__state_bytes). The attention pricing and the
 * staircase ask it at dozens of tile heights, where a transformer group's
 * hundreds of windows fall into a handful of kinds. -1 when the list cannot
 * be kept (the caller sums). */
static int64_t lf__merged_sum(lf__group *G, int64_t h)
{
    const lf__op_cost *oc = G->cm->ops;
    if (G->merged_mode != 1 + G->reread_waits) {
        G->n_merged = 0;
        int ok = 1;
        for (int32_t t = 0; t < G->nt && ok; t++) {
            if (t > G->last && t < G->n)
                continue; /* as lf__window_sum: members after the last active one */
            int32_t v = G->tensor[t];
            int64_t h_t = G->height[t], rb = oc[v].row_bytes;
            int32_t sc = oc[v].score;
            int view = t < G->n && oc[v].kind == LF_ROWS_VIEW;
            if (G->hi[t] >= G->lo[t] && !view)
                ok = lf__merge_term(G, G->hi[t] - G->lo[t] + 1, G->sigma[t], h_t, rb, sc);
            if (ok && G->reread_waits && G->hi2[t] >= G->lo2[t] && !view)
                ok = lf__merge_term(G, G->hi2[t] - G->lo2[t] + 1, G->sigma[t], h_t, rb, sc);
            if (ok && t < G->n && G->active[t] && G->out[t])
                ok = lf__merge_term(G, 1, G->sigma[t], h_t, rb, sc);
        }
        if (!ok)
            return -1;
        G->merged_mode = 1 + G->reread_waits;
    }
    int64_t sum[2] = {0, 0}; /* other windows, score windows (lf__state_bytes) */
    for (int32_t k = 0; k < G->n_merged; k++) {
        const lf__row_term *m = &G->terms[k];
        int64_t rows = m->span + lf__growth(m->sigma, h);
        sum[m->score != 0] += (rows < m->height ? rows : m->height) * m->row_bytes;
    }
    return lf__state_bytes(G, sum[0], sum[1]);
}

static int64_t lf__window_sum(lf__group *G, int64_t h, int32_t snapshot_op)
{
    int64_t o = 0, s = 0;
    for (int32_t t = 0; t <= G->last; t++) {
        int64_t b = lf__tensor_window(G, t, h, snapshot_op);
        *(G->cm->ops[G->tensor[t]].score ? &s : &o) += b;
    }
    for (int32_t t = G->n; t < G->nt; t++) {
        int64_t b = lf__tensor_window(G, t, h, snapshot_op);
        *(G->cm->ops[G->tensor[t]].score ? &s : &o) += b;
    }
    return lf__state_bytes(G, o, s);
}

/* Active member i asks its inputs for the rows it reads at sink phase
 * `phase` (a sink, or a member nothing asked yet, sits at its phase row;
 * any other member at the top of what its consumers asked). */
static void lf__request_inputs(lf__group *G, int32_t i, int32_t phase)
{
    const lf__op_cost *oc = G->cm->ops;
    int32_t v = G->tensor[i];
    int64_t delta, vlo, vhi;
    /* Nobody asked rows of a member that is no sink only when its readers
     * read it whole, as the K or V of a product (or through such a member):
     * it is made before the query rows stream, and attn.c prices it. */
    if (G->cm->has_attn && !G->sink[i] && G->hi[i] == INT64_MIN)
        return;
    if (G->sink[i] || G->hi[i] == INT64_MIN) {
        delta = phase == 0 ? 0 : lf__floor_div((int64_t)phase * G->hv[i], G->href);
        vlo = vhi = delta;
    } else {
        delta = G->hi[i];
        vlo = G->lo[i];
        vhi = G->hi[i];
    }
    for (int32_t k = G->in_off[i]; k < G->in_off[i + 1]; k++) {
        int32_t l = G->in_loc[k];
        int64_t hin = G->height[l], a, b;
        if ((oc[v].global_in >> (k - G->in_off[i])) & 1)
            continue; /* read whole: priced by attn.c, no rows */
        switch (oc[v].kind) {
        case LF_ROWS_WINDOW:
            a = (int64_t)oc[v].stride * delta - oc[v].pad;
            b = a + oc[v].k - 1;
            break;
        case LF_ROWS_VIEW:
            a = vlo;
            b = vhi;
            break;
        case LF_ROWS_REDUCTION:
            /* A reduction whose result something spatial waits for can
             * only finish after the last input row. */
            a = b = G->terminal[i] ? delta : hin - 1;
            break;
        case LF_ROWS_RESIZE:
            a = lf__floor_div(delta * hin, G->height[i]);
            b = a + oc[v].linear;
            break;
        case LF_ROWS_UPSAMPLE:
            /* input rows i with i * s - p + t = r for a kernel tap t */
            b = lf__floor_div(delta + oc[v].pad, oc[v].stride);
            a = -lf__floor_div(-(delta + oc[v].pad - oc[v].k + 1), oc[v].stride);
            if (a > b)
                a = b; /* a row between taps reads none; keep the nearest */
            break;
        default: /* LF_ROWS_FULL */
            a = 0;
            b = hin - 1;
            break;
        }
        int64_t *lo = G->lo, *hi = G->hi;
        if (G->reread_waits && (G->after_mask[i] & G->before_mask[l])) {
            lo = G->lo2; /* read again after the wait: a window of its own */
            hi = G->hi2;
        }
        if (a < lo[l])
            lo[l] = a;
        if (b > hi[l])
            hi[l] = b;
        /* A view's second window passes through to its inputs too. */
        if (G->reread_waits && oc[v].kind == LF_ROWS_VIEW && G->hi2[i] >= G->lo2[i]) {
            if (G->lo2[i] < G->lo2[l])
                G->lo2[l] = G->lo2[i];
            if (G->hi2[i] > G->hi2[l])
                G->hi2[l] = G->hi2[i];
        }
    }
}

/* One snapshot at one phase: propagates windows and returns the feature bytes
 * for h rows per step. */
static int64_t lf__eval_phase(lf__group *G, int32_t phase, int64_t h, int32_t snapshot_op)
{
    G->merged_mode = 0;
    for (int32_t t = 0; t < G->nt; t++) {
        G->lo[t] = INT64_MAX;
        G->hi[t] = INT64_MIN;
    }
    if (G->reread_waits)
        for (int32_t t = 0; t < G->nt; t++) {
            G->lo2[t] = INT64_MAX;
            G->hi2[t] = INT64_MIN;
        }
    for (int32_t i = G->last; i >= 0; i--)
        if (G->active[i])
            lf__request_inputs(G, i, phase);
    return lf__window_sum(G, h, snapshot_op);
}

/* Ops whose start is a snapshot of its own: they read a spatial map and a
 * value that only exists after a reduction inside the group. */
static int lf__is_phase_boundary(const lf__group *G, int32_t i)
{
    int32_t v = G->tensor[i];
    if (!G->cm->ops[v].reads_spatial || G->cm->ops[v].kind == LF_ROWS_REDUCTION)
        return 0;
    for (int32_t k = G->in_off[i]; k < G->in_off[i + 1]; k++) {
        int32_t l = G->in_loc[k];
        if (l < G->n && G->post[l])
            return 1;
    }
    return 0;
}

/* Opens the record of the state about to be evaluated (its terms follow). */
static void lf__record_state(lf__group *G, int32_t snapshot_op, int32_t phase)
{
    if (!G->recording)
        return;
    if (G->n_states == LF__MAX_STATES) {
        G->recording = 0;
        G->record_failed = 1;
        return;
    }
    G->state_start[G->n_states] = G->n_terms;
    G->state_snapshot[G->n_states] = snapshot_op;
    G->state_phase[G->n_states] = phase;
    G->state_mode[G->n_states++] = G->reread_waits;
}

/* The current snapshot's phases the other way through the waits, only
 * recorded: the set-up (select, prepare) does not depend on the way. */
static void lf__record_other_way(lf__group *G, int32_t phases, int64_t h, int32_t snapshot_op)
{
    int32_t mode = G->reread_waits, n_count = G->n_count;
    G->reread_waits = !mode;
    G->n_count = 0; /* not this way's states */
    for (int32_t p = 0; p < phases; p++) {
        lf__record_state(G, snapshot_op, p);
        lf__eval_phase(G, p, h, snapshot_op);
    }
    G->reread_waits = mode;
    G->n_count = n_count;
}

/* One snapshot at every phase: the largest feature bytes and where (peak);
 * with `both`, its phases are recorded the other way through the waits too. */
static int64_t lf__eval_snapshot(lf__group *G, int32_t snapshot_op, int64_t h, lf__peak *peak,
                                 int32_t *n_phases, int both)
{
    lf__select(G, snapshot_op);
    lf__prepare(G);
    int32_t phases = lf__phases(G);
    *n_phases = phases;
    int64_t best = -1;
    for (int32_t p = 0; p < phases; p++) {
        lf__record_state(G, snapshot_op, p);
        int64_t f = lf__eval_phase(G, p, h, snapshot_op);
        if (f > best) {
            best = f;
            if (peak) {
                peak->phase = p;
                peak->snapshot_op = snapshot_op;
            }
        }
    }
    if (both)
        lf__record_other_way(G, phases, h, snapshot_op);
    return best;
}

int64_t lf__features(lf__group *G, int64_t h, lf__peak *peak)
{
    lf__peak local, cand = {-1, 0, 0};
    lf__peak *pk = peak ? peak : &local;
    if (G->one_window) {
        pk->snapshot_op = -1;
        pk->phase = 0;
        pk->n_snapshots = 1;
        int64_t merged = G->scratch ? lf__merged_sum(G, h) : -1;
        return merged >= 0 ? merged : lf__window_sum(G, h, -1);
    }
    if (G->cached_modes & (1 << G->reread_waits)) {
        /* Every snapshot and phase again, from the kept windows: the same
         * maximum, first peak on ties, as the full evaluation below. */
        int64_t best = -1;
        for (int32_t s = 0; s < G->n_states; s++) {
            if (G->state_mode[s] != G->reread_waits)
                continue;
            int64_t sum[2] = {0, 0};
            for (int32_t k = G->state_start[s]; k < G->state_start[s + 1]; k++) {
                const lf__row_term *t = &G->terms[k];
                int64_t rows = t->span + lf__growth(t->sigma, h);
                sum[t->score != 0] += (rows < t->height ? rows : t->height) * t->row_bytes;
            }
            int64_t f = lf__state_bytes(G, sum[0], sum[1]);
            if (f > best) {
                best = f;
                pk->snapshot_op = G->state_snapshot[s];
                pk->phase = G->state_phase[s];
            }
        }
        pk->n_snapshots = G->cached_snapshots;
        return best;
    }
    /* Record from the second full evaluation on: most groups are evaluated
     * once (LBDF, or an invalid group under BRR), and recording is not free. */
    G->n_terms = 0;
    G->n_states = 0;
    G->record_failed = 0;
    G->recording = G->full_evals++ > 0;
    /* Both ways at once where the waits' tensors are known (or found below). */
    int both = G->both_modes && G->recording;
    int32_t phases = 1, more = 1;
    int64_t best = lf__eval_snapshot(G, -1, h, pk, &phases, both && G->masks_done && G->has_waits);
    G->main_href = G->href;
    pk->n_snapshots = 1;
    /* post[] from the main snapshot identifies the phase boundaries. */
    int32_t n_boundaries = 0;
    int32_t list[LF_MAX_BOUNDARIES];
    for (int32_t i = 0; i < G->n; i++)
        if (lf__is_phase_boundary(G, i) && n_boundaries < LF_MAX_BOUNDARIES)
            list[n_boundaries++] = G->tensor[i];
    G->one_window = phases == 1 && n_boundaries == 0;
    memcpy(G->wait_ops, list, (size_t)n_boundaries * sizeof *list);
    G->n_wait_ops = n_boundaries;
    if (both && !G->masks_done && n_boundaries > 0) {
        /* The waits are known now; finding their tensors leaves the
         * snapshot's set-up alone (lf__wait_reread_bytes sets only masks). */
        lf__wait_reread_bytes(G);
        if (G->has_waits)
            lf__record_other_way(G, phases, h, -1);
    }
    both = both && G->masks_done && G->has_waits;
    for (int32_t k = 0; k < n_boundaries; k++) {
        int64_t f = lf__eval_snapshot(G, list[k], h, &cand, &more, both);
        pk->n_snapshots++;
        if (f > best) {
            best = f;
            pk->snapshot_op = cand.snapshot_op;
            pk->phase = cand.phase;
        }
    }
    /* Keep the windows when there is more than one state to re-evaluate
     * (one snapshot and phase keeps them in place: one_window). */
    int cached = G->recording && !G->record_failed && !G->one_window;
    G->cached_modes = !cached ? 0 : both ? 3 : 1 << G->reread_waits;
    G->cached_snapshots = pk->n_snapshots;
    if (cached)
        G->state_start[G->n_states] = G->n_terms;
    G->recording = 0;
    return best;
}

/* Is local tensor l read on both sides of some wait? */
static int lf__read_twice(const lf__group *G, int32_t l)
{
    if (!G->has_waits || !G->before_mask[l])
        return 0;
    for (int32_t c = G->cons_off[l]; c < G->cons_off[l + 1]; c++)
        if (G->after_mask[G->cons_loc[c]] & G->before_mask[l])
            return 1;
    return 0;
}

int64_t lf__wait_reread_bytes(lf__group *G)
{
    const lf__op_cost *oc = G->cm->ops;
    if (G->masks_done) /* found by a full evaluation that took both ways */
        return G->reread_bytes;
    G->has_waits = 0;
    G->reread_bytes = 0;
    G->masks_done = 1;
    int32_t n_waits = G->n_wait_ops;
    const int32_t *list = G->wait_ops;
    if (n_waits == 0)
        return 0;
    /* One pass each way over the group's edges for all waits at once (bit
     * k for the k-th): before_mask starts as each wait's own bit; forward,
     * after_mask[i] is the waits i descends from; backward, before_mask[i]
     * the waits i is an ancestor of, or is. */
    uint64_t *after = G->after_mask, *before = G->before_mask;
    memset(after, 0, (size_t)G->n * sizeof *after);
    memset(before, 0, (size_t)G->nt * sizeof *before);
    for (int32_t k = 0; k < n_waits; k++)
        before[G->loc[list[k]]] |= (uint64_t)1 << k;
    for (int32_t i = 0; i < G->n; i++)
        for (int32_t j = G->in_off[i]; j < G->in_off[i + 1]; j++) {
            int32_t l = G->in_loc[j];
            if (l < G->n)
                after[i] |= after[l] | before[l];
        }
    for (int32_t i = G->n - 1; i >= 0; i--)
        for (int32_t c = G->cons_off[i]; c < G->cons_off[i + 1]; c++)
            before[i] |= before[G->cons_loc[c]];
    /* Read before wait k: by an ancestor of its op other than the op. */
    for (int32_t k = 0; k < n_waits; k++)
        before[G->loc[list[k]]] &= ~((uint64_t)1 << k);
    for (int32_t t = G->n; t < G->nt; t++)
        for (int32_t c = G->cons_off[t]; c < G->cons_off[t + 1]; c++)
            before[t] |= before[G->cons_loc[c]];
    G->has_waits = 1;
    int64_t bytes = 0;
    for (int32_t t = 0; t < G->nt; t++)
        if (lf__read_twice(G, t)) {
            int64_t b = oc[G->tensor[t]].tensor_bytes;
            bytes += t >= G->n || G->out[t] ? b : 2 * b;
        }
    G->has_waits = bytes > 0;
    G->reread_bytes = bytes;
    return bytes;
}

void lf__features_explain(lf__group *G, const lf__peak *peak, lf_window_row *rows, int32_t *n_rows)
{
    const lf__op_cost *oc = G->cm->ops;
    G->one_window = 0;
    lf__select(G, peak->snapshot_op);
    lf__prepare(G);
    lf__eval_phase(G, peak->phase, 1, peak->snapshot_op);
    int32_t n = 0;
    for (int32_t t = 0; t < G->nt; t++) {
        int32_t v = G->tensor[t];
        lf_window_row *r = &rows[n++];
        memset(r, 0, sizeof *r);
        r->tensor = v;
        int member = t < G->n;
        int inner = G->hi[t] >= G->lo[t];
        if (!member)
            r->role = LF_ROLE_INPUT;
        else if (G->out[t])
            r->role = inner ? LF_ROLE_BOTH : LF_ROLE_OUTPUT;
        else
            r->role = LF_ROLE_INTERNAL;
        r->view = member && oc[v].kind == LF_ROWS_VIEW;
        r->row_bytes = oc[v].row_bytes;
        if (inner) {
            r->lo = G->lo[t];
            r->hi = G->hi[t];
            int64_t span = r->hi - r->lo + 1;
            r->rows = r->view ? 0 : (span < G->height[t] ? span : G->height[t]);
        }
        if (member && G->active[t] && (G->out[t] || v == peak->snapshot_op))
            r->staging = 1;
        r->dram_bytes = (!member || G->out[t]) ? oc[v].tensor_bytes : 0;
        if (lf__read_twice(G, t)) {
            r->wait = G->reread_waits ? LF_WAIT_REREAD : LF_WAIT_RESIDENT;
            if (G->reread_waits && G->hi2[t] >= G->lo2[t]) {
                r->lo2 = G->lo2[t];
                r->hi2 = G->hi2[t];
                int64_t span = r->hi2 - r->lo2 + 1;
                r->rows2 = r->view ? 0 : (span < G->height[t] ? span : G->height[t]);
            }
            if (G->reread_waits) /* read again; a tensor only the group uses is written first */
                r->dram_bytes += (!member || G->out[t]) ? oc[v].tensor_bytes : 2 * oc[v].tensor_bytes;
        }
        r->bytes = (r->rows + r->rows2 + r->staging) * r->row_bytes;
    }
    *n_rows = n;
}

/* ---- a group view as what the schemes price ------------------------------ */

static int64_t lf__view_features(void *ctx, int64_t h, lf__peak *peak)
{
    return lf__features(ctx, h, peak);
}

void lf__group_priced(lf__group *G, lf__priced *p)
{
    lf__group_io(G, &p->in, &p->out);
    p->weights = lf__group_weights(G);
    p->wblk = lf__group_wblk(G);
    p->col_m = p->col_krow = p->col_x = p->col_a = 0;
    const lf__op_cost *oc = &G->cm->ops[G->tensor[0]];
    if (G->n == 1 && oc->col_m > 0) { /* alone, so its input comes from DRAM */
        p->col_m = oc->col_m;
        p->col_krow = oc->col_krow;
        p->col_x = G->cm->ops[G->cm->g->ops[G->tensor[0]].inputs[0]].tensor_bytes;
        p->col_a = G->cm->hw.act_bytes;
    }
    p->height = &G->main_href;
    p->limit = INT64_MAX;
    p->keep_all = 0;
    p->features = lf__view_features;
    p->ctx = G;
}

/* ---- the two sides of a group at a cut op (cut_sides.c) ------------------ */

int32_t lf__head_setup(lf__group *G)
{
    lf__select(G, -1);
    lf__prepare(G);
    G->main_href = G->href;
    for (int32_t i = 0; i < G->n; i++)
        if (lf__is_phase_boundary(G, i))
            return -1;
    return lf__phases(G);
}

void lf__head_windows(lf__group *G, int32_t phase) { lf__eval_phase(G, phase, 1, -1); }

void lf__tail_scales(lf__group *G, int64_t sigma_num, int64_t sigma_den)
{
    int32_t c = G->n - 1;
    memset(G->active, 1, (size_t)G->n);
    G->last = c;
    memset(G->sink, 0, (size_t)G->n);
    memset(G->terminal, 0, (size_t)G->n);
    memset(G->post, 0, (size_t)G->n);
    G->forward_done = 0; /* post is not the group's any more */
    for (int32_t t = 0; t < G->nt; t++)
        G->sigma[t] = (lf__rat){0, 1};
    G->sigma[c] = (lf__rat){sigma_num, sigma_den};
    for (int32_t i = c; i >= 0; i--)
        lf__scale_inputs(G, i);
}

void lf__tail_windows(lf__group *G, int64_t lo, int64_t hi)
{
    int32_t c = G->n - 1;
    G->merged_mode = 0;
    for (int32_t t = 0; t < G->nt; t++) {
        G->lo[t] = INT64_MAX;
        G->hi[t] = INT64_MIN;
    }
    G->lo[c] = lo;
    G->hi[c] = hi;
    for (int32_t i = c; i >= 0; i--)
        lf__request_inputs(G, i, 0);
}

/* The terms lf__window_sum adds up for the windows in lo and hi (one
 * snapshot, nothing read again after a wait), less those of skipped local
 * tensors; -1 past cap. */
int32_t lf__window_terms(const lf__group *G, const uint8_t *skip, lf__row_term *terms, int32_t cap)
{
    const lf__op_cost *oc = G->cm->ops;
    int32_t n = 0;
    for (int32_t t = 0; t < G->nt; t++) {
        if (skip && skip[t])
            continue;
        int32_t v = G->tensor[t];
        int64_t h_t = G->height[t];
        int view = t < G->n && oc[v].kind == LF_ROWS_VIEW;
        int window = G->hi[t] >= G->lo[t] && !view;
        int staging = t < G->n && G->active[t] && G->out[t];
        if (n + window + staging > cap)
            return -1;
        if (window)
            terms[n++] = (lf__row_term){G->hi[t] - G->lo[t] + 1, G->sigma[t], h_t, oc[v].row_bytes,
                                        oc[v].score};
        if (staging)
            terms[n++] = (lf__row_term){1, G->sigma[t], h_t, oc[v].row_bytes, oc[v].score};
    }
    return n;
}

int64_t lf__term_bytes(const lf__row_term *t, int64_t h)
{
    int64_t rows = t->span + lf__growth(t->sigma, h);
    return (rows < t->height ? rows : t->height) * t->row_bytes;
}

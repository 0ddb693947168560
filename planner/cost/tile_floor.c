/* A floor on how often BRR reads an op's weights, for lower bounds on the
 * DRAM of every plan (planner/exact/window_bound.c; docs/search.md
 * "Certified bounds").
 *
 * Under BRR a group whose weights do not all fit beside its windows reads
 * them ceil(H / h*) times, H the sinks' reference height and h* the largest
 * tile height whose windows plus one weight block fit (brr.c). Op v's own
 * input window alone bounds h*: at h sink rows per step the row-window
 * engine (rows.c) holds min(H_x, span + ceil((h - 1) sigma_x)) rows of v's
 * input x, with span >= K_v (v asks for K_v rows) and sigma_x >= s_v sigma_v,
 * and stages or holds min(H_v, 1 + ceil((h - 1) sigma_v)) rows of v's own
 * output. What is left is sigma_v, which depends on the group: it is at
 * least (H_v - slack_v) / H, where slack_v, found below over every path from
 * v to a sink, is 0 along same-padded windows, views and resizes, and
 * unbounded past anything that can stop the rows flowing (a reduction that
 * something spatial waits for, unless the op that waits reads the same map:
 * neck_wait_frontier.c; an op needing its whole input); a transposed
 * convolution of stride s divides it by s. And H is at
 * least the smallest effective height of v or any op below it (a sink's
 * height; vectors after a reduction count their input's). Over every H in
 * that range the fewest tiles any group can have is the floor. Below v's
 * own height a group holds a path from v to a lower op, whose rows count
 * too (tile_path.c): NasNet-A's stage-1 1x1 convs at 256 KB, 4 -> 5. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cost/cost_internal.h"

#define LF__SLACK_NONE (INT64_MAX / 4)

/* Effective height of op u in any group (the engine's hv), or 0 when it
 * depends on the group (a vector inherits its inputs' heights there). */
static int64_t lf__fixed_hv(const lf_graph *g, const lf__op_cost *oc, int32_t u)
{
    if (oc[u].kind == LF_ROWS_REDUCTION)
        return g->ops[u].n_inputs > 0 ? oc[g->ops[u].inputs[0]].h : 1;
    return oc[u].h > 1 ? oc[u].h : 0;
}

static int64_t lf__ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

/* Frontier ops followed per waited reduction (neck_wait_frontier.c). */
#define LF__WAIT_FRONTIER 64

/* What consumer c makes of u's slack (sigma_u * H >= hv_u - slack_u in every
 * group holding u, given the same of c), following lf__scale_inputs. With
 * `mark`, only the ops x with mark[x] == in can share a group with u (the
 * region of lf_cost_tiles_refine; slack holds only for them). */
static int64_t lf__slack_via(const lf_graph *g, const lf__op_cost *oc, const int64_t *slack,
                             const uint8_t *waits_below, int32_t u, int32_t c, const int32_t *mark, int32_t in)
{
    int64_t hu = lf__fixed_hv(g, oc, u), hc = lf__fixed_hv(g, oc, c), sc = slack[c];
    /* A reduction something spatial waits for scales its input only in the
     * groups where nothing waits (its slack there: 0, as below it lie only
     * ops that read no spatial map and pass the rows on,
     * neck_wait_frontier.c); where something does, the group holds one of
     * its frontier ops, which all read u: the worst of them bounds u's
     * slack then. */
    if (oc[c].kind == LF_ROWS_REDUCTION && waits_below[c]) {
        int32_t front[LF__WAIT_FRONTIER];
        int32_t n_front = lf__wait_frontier(g, oc, c, u, front, LF__WAIT_FRONTIER);
        if (n_front < 0 || !hu || hu != hc)
            return LF__SLACK_NONE;
        int64_t worst = 0;
        for (int32_t k = 0; k < n_front; k++) {
            if (mark && mark[front[k]] != in)
                continue; /* in no group holding u */
            int64_t sm = lf__slack_via(g, oc, slack, waits_below, u, front[k], mark, in);
            worst = sm > worst ? sm : worst;
        }
        return worst;
    }
    if (sc >= LF__SLACK_NONE)
        return LF__SLACK_NONE;
    int64_t s;
    switch (oc[c].kind) {
    case LF_ROWS_WINDOW: s = oc[c].stride; break;
    case LF_ROWS_VIEW: s = 1; break;
    case LF_ROWS_REDUCTION:
        s = 1;
        break;
    case LF_ROWS_RESIZE:
        if (!hu || !hc || hu != oc[u].h)
            return LF__SLACK_NONE;
        return lf__ceil_div(oc[u].h * sc, oc[c].h);
    case LF_ROWS_UPSAMPLE:
        /* A transposed convolution asks sigma_c / stride of its input:
         * sigma_u H >= (hc - sc) / stride, rounded down. */
        if (!hu || !hc || oc[c].stride < 1)
            return LF__SLACK_NONE;
        return hc - sc <= 0 ? hu : hu - (hc - sc) / oc[c].stride;
    default:
        return LF__SLACK_NONE;
    }
    if (s < 1)
        return LF__SLACK_NONE;
    if (!hc) /* a vector after u: its height is at least u's in the group */
        return s * sc;
    if (!hu)
        return LF__SLACK_NONE;
    return hu - s * hc + s * sc;
}

/* Row bytes that v's window on x charges at least: x's own, or, when x is a
 * view inside the group, the distinct tensors of x's height behind it, each
 * holding the view's rows (seen: n_ops entries, stamped with `stamp`). */
static int64_t lf__leaf_row_bytes(const lf_graph *g, const lf__op_cost *oc, int32_t x, int64_t h,
                                  int64_t *seen, int64_t stamp, int depth)
{
    if (oc[x].h != h || seen[x] == stamp)
        return 0;
    seen[x] = stamp;
    if (oc[x].kind != LF_ROWS_VIEW)
        return oc[x].row_bytes;
    int64_t sum = 0;
    for (int32_t j = 0; depth < 8 && j < g->ops[x].n_inputs; j++)
        sum += lf__leaf_row_bytes(g, oc, g->ops[x].inputs[j], h, seen, stamp, depth + 1);
    return sum;
}

static int64_t lf__charged_row_bytes(const lf_graph *g, const lf__op_cost *oc, int32_t x, int64_t *seen,
                                     int64_t stamp)
{
    if (oc[x].kind != LF_ROWS_VIEW)
        return oc[x].row_bytes;
    int64_t behind = lf__leaf_row_bytes(g, oc, x, oc[x].h, seen, stamp, 0);
    return behind < oc[x].row_bytes ? behind : oc[x].row_bytes;
}

/* The fewest weight reads of v's groups at reference height H whose windows
 * fit at one row (budget: beta - 1 - v's weight block), or 0 when none fits. */
static int64_t lf__tiles_at(int64_t H, int64_t budget, int64_t k, int64_t hx, int64_t rbx,
                            int64_t hv, int64_t scaled, int64_t stride, int64_t rbv)
{
    /* bytes(h) grows with h: the largest h <= H within budget, by bisection */
    int64_t lo = 0, hi = H;
    while (lo < hi) {
        int64_t h = lo + (hi - lo + 1) / 2;
        int64_t in_rows = k + lf__ceil_div((h - 1) * stride * scaled, H);
        int64_t out_rows = 1 + lf__ceil_div((h - 1) * scaled, H);
        int64_t bytes = (in_rows < hx ? in_rows : hx) * rbx + (out_rows < hv ? out_rows : hv) * rbv;
        if (bytes <= budget)
            lo = h;
        else
            hi = h - 1;
    }
    return lo == 0 ? 0 : (H + lo - 1) / lo;
}

/* One tensor of a set's sum: at h rows per step it holds at least
 * min(height, span + (h - 1) * scaled / H) rows of row_bytes. */
typedef struct lf__tile_term {
    int64_t height, row_bytes, span, scaled;
} lf__tile_term;

struct lf_cost_tiles {
    const lf_cost_model *cm;
    int32_t *tiles;      /* per op: its own floor */
    int64_t *slack;      /* per op: sigma * H >= hv - slack in every group (LF__SLACK_NONE: no bound) */
    int64_t *hmin;       /* per op: the smallest reference height of its groups (INT64_MAX: none) */
    int64_t hmax;        /* the tallest op's height: the floors' range of reference heights */
    uint8_t *waits_below;
    uint8_t *flow;       /* per op: LF__ROW0_BELOW, LF__VEC_BELOW (lf__flow_below) */
    int64_t *seen, stamp; /* view walks (64-bit stamps: one or more a set never wrap) */
    int32_t *slot;       /* per op: its term in the set being summed, */
    int64_t *slot_stamp, sets; /* valid where slot_stamp is sets */
    int64_t *fhv, *scaled; /* per op: lf__fixed_hv, lf__scaled (tile_path.c) */
    double *dist;          /* tile_path.c's scratch */
    lf__tile_term *terms;
    int32_t n_terms, cap_terms;
    int32_t term_max;      /* the largest op id among the terms' tensors */
    int set_paths;         /* lf_cost_tiles_use_set_paths: the set's own reference height */
    lf__height_reach reach; /* lf__set_height's shortcut (height_reach.c), built with set_paths */
};

void lf_cost_tiles_free(lf_cost_tiles *t)
{
    if (!t)
        return;
    free(t->tiles);
    free(t->slack);
    free(t->hmin);
    free(t->waits_below);
    free(t->flow);
    free(t->seen);
    free(t->slot);
    free(t->slot_stamp);
    free(t->terms);
    free(t->fhv);
    free(t->scaled);
    free(t->dist);
    lf__height_reach_free(&t->reach);
    free(t);
}

/* sigma_v * H >= what v's rows scale to (0: nothing known). */
static int64_t lf__scaled(const lf_cost_tiles *t, int32_t v)
{
    int64_t hv = lf__fixed_hv(t->cm->g, t->cm->ops, v);
    return hv && t->slack[v] < hv ? hv - t->slack[v] : 0;
}

/* Reference heights tried one by one for an op's own floor; past this many
 * (maps thousands of rows high) the set floor of the op alone, which needs
 * one bisection whatever the heights, stands in. */
#define LF__TILE_HEIGHTS 4096
/* Heights below an op's own walked with the paths below it (tile_path.c),
 * at most this many: a pass over the graph per height and tile height tried. */
#define LF__TILE_PATH_HEIGHTS 128

/* v's own floor: its input and output windows at the tile heights of every
 * reference height its groups can have. */
static int32_t lf__op_floor(lf_cost_tiles *t, int32_t v, int64_t hmax)
{
    const lf_cost_model *cm = t->cm;
    const lf_graph *g = cm->g;
    const lf__op_cost *oc = cm->ops;
    const lf_op *op = &g->ops[v];
    int64_t hv = oc[v].h, scaled = lf__scaled(t, v);
    /* Alone in its group, a MatMul by a constant may take column blocks
     * (brr.c), which read the matrix once: no floor above 1 holds. */
    if (oc[v].col_m > 0)
        return 1;
    if (!cm->fusable[v] || oc[v].weight_bytes == 0 || oc[v].kind != LF_ROWS_WINDOW || hv <= 1 ||
        scaled == 0 || t->hmin[v] == INT64_MAX || (op->n_consumers == 0 && !op->is_output))
        return 1;
    if (hmax - t->hmin[v] >= LF__TILE_HEIGHTS)
        return lf_cost_tiles_of_set(t, &v, 1);
    int64_t budget = lf_cost_beta(cm) - 1 - oc[v].wblk, best = 1;
    /* Heights below v's own: a path to a lower op is in the group
     * (tile_path.c), where the range is short enough to walk it per
     * height; else v's windows alone at every height. Both are floors,
     * so the larger holds (the path's sums round rows down). */
    int64_t from = hv - t->hmin[v] <= LF__TILE_PATH_HEIGHTS ? hv : t->hmin[v];
    for (int32_t j = 0; j < op->n_inputs; j++) {
        int32_t x = op->inputs[j];
        int64_t rbx = lf__charged_row_bytes(g, oc, x, t->seen, ++t->stamp), fewest = INT64_MAX;
        int64_t above = INT64_MAX; /* at the heights from `from` on */
        for (int64_t H = t->hmin[v]; H <= hmax; H++) {
            int64_t k = lf__tiles_at(H, budget, oc[v].k, oc[x].h, rbx, hv, scaled, oc[v].stride,
                                     oc[v].row_bytes);
            if (k > 0 && k < fewest)
                fewest = k;
            if (k > 0 && k < above && H >= from)
                above = k;
        }
        if (from > t->hmin[v] && fewest != INT64_MAX) {
            lf__tile_path p = {t->fhv, t->scaled, oc[x].h, rbx};
            int64_t below = lf__tile_path_floor(cm, &p, v, t->hmin[v], t->dist);
            int64_t both = below < above ? below : above;
            fewest = both != INT64_MAX && both > fewest ? both : fewest;
        }
        if (fewest != INT64_MAX && fewest > best)
            best = fewest;
    }
    return (int32_t)(best < INT32_MAX ? best : INT32_MAX);
}

/* Bits of lf_cost_tiles.flow. LF__VEC_BELOW: every op below is a vector
 * that reads no map, so a reduction there is terminal in every group (rows.c:
 * nothing spatial below it). LF__ROW0_BELOW: every op below asks, at the
 * sinks' first phase (sinks at row 0, every other op at the top of what its
 * readers asked, rows.c lf__request_inputs), no row of its inputs past
 * their first: windows with k - 1 <= pad, views, resizes reading one row,
 * upsamplings with pad < stride, terminal reductions, whole reads of
 * vectors. */
#define LF__ROW0_BELOW 1
#define LF__VEC_BELOW 2

static uint8_t lf__asks_row0(const lf_graph *g, const lf__op_cost *oc, const uint8_t *flow, int32_t c)
{
    if (oc[c].global_in)
        return 0;
    switch (oc[c].kind) {
    case LF_ROWS_WINDOW: return (int64_t)oc[c].k - 1 <= oc[c].pad;
    case LF_ROWS_VIEW: return 1;
    case LF_ROWS_RESIZE: return oc[c].linear == 0;
    case LF_ROWS_UPSAMPLE: return oc[c].pad < oc[c].stride;
    case LF_ROWS_REDUCTION: return (flow[c] & LF__VEC_BELOW) != 0;
    default:
        for (int32_t j = 0; j < g->ops[c].n_inputs; j++)
            if (oc[g->ops[c].inputs[j]].h > 1)
                return 0;
        return 1;
    }
}

/* u's bits of lf_cost_tiles.flow, its consumers' known (ids are topological). */
static uint8_t lf__flow_below(const lf_graph *g, const lf__op_cost *oc, const uint8_t *flow, int32_t u)
{
    uint8_t f = LF__ROW0_BELOW | LF__VEC_BELOW;
    for (int32_t j = 0; j < g->ops[u].n_consumers; j++) {
        int32_t c = g->ops[u].consumers[j];
        if (!(g->ops[c].out.h == 1 && !oc[c].reads_spatial && (flow[c] & LF__VEC_BELOW)))
            f &= (uint8_t)~LF__VEC_BELOW;
        if (!(lf__asks_row0(g, oc, flow, c) && (flow[c] & LF__ROW0_BELOW)))
            f &= (uint8_t)~LF__ROW0_BELOW;
    }
    return f;
}

lf_status lf_cost_tiles_create(const lf_cost_model *cm, lf_cost_tiles **out)
{
    const lf_graph *g = cm->g;
    const lf__op_cost *oc = cm->ops;
    int32_t n = g->n_ops;
    size_t m = (size_t)n + 1;
    *out = NULL;
    lf_cost_tiles *t = calloc(1, sizeof *t);
    if (!t || !(t->tiles = malloc(m * sizeof *t->tiles)) || !(t->slack = malloc(m * sizeof *t->slack)) ||
        !(t->hmin = malloc(m * sizeof *t->hmin)) || !(t->waits_below = malloc(m)) || !(t->flow = malloc(m)) ||
        !(t->seen = calloc(m, sizeof *t->seen)) || !(t->slot = calloc(m, sizeof *t->slot)) ||
        !(t->slot_stamp = calloc(m, sizeof *t->slot_stamp)) || !(t->fhv = malloc(m * sizeof *t->fhv)) ||
        !(t->scaled = malloc(m * sizeof *t->scaled)) || !(t->dist = malloc(m * sizeof *t->dist))) {
        lf_cost_tiles_free(t);
        return lf_set_error(LF_ENOMEM, "out of memory for %d tile floors", (int)n);
    }
    t->cm = cm;
    int64_t hmax = 1;
    for (int32_t u = n - 1; u >= 0; u--) {
        const lf_op *op = &g->ops[u];
        int64_t hu = lf__fixed_hv(g, oc, u), s = 0;
        uint8_t below = 0;
        t->hmin[u] = hu ? hu : INT64_MAX;
        for (int32_t j = 0; j < op->n_consumers; j++) {
            int32_t c = op->consumers[j];
            below |= (uint8_t)(oc[c].reads_spatial || t->waits_below[c]);
            int64_t sc = lf__slack_via(g, oc, t->slack, t->waits_below, u, c, NULL, 0);
            s = sc > s ? sc : s;
            t->hmin[u] = t->hmin[c] < t->hmin[u] ? t->hmin[c] : t->hmin[u];
        }
        t->waits_below[u] = below;
        t->flow[u] = lf__flow_below(g, oc, t->flow, u);
        t->slack[u] = s;
        hmax = oc[u].h > hmax ? oc[u].h : hmax;
    }
    for (int32_t v = 0; v < n; v++) {
        t->tiles[v] = 1;
        t->fhv[v] = lf__fixed_hv(g, oc, v);
        t->scaled[v] = lf__scaled(t, v);
    }
    t->hmax = hmax;
    for (int32_t v = 0; v < n && !cm->scheme->weights_resident; v++)
        t->tiles[v] = lf__op_floor(t, v, hmax);
    *out = t;
    return LF_OK;
}

const int32_t *lf_cost_tiles_ops(const lf_cost_tiles *t) { return t->tiles; }

lf_status lf_cost_tile_floors(const lf_cost_model *cm, int32_t *tiles)
{
    lf_cost_tiles *t = NULL;
    lf_status st = lf_cost_tiles_create(cm, &t);
    if (st == LF_OK)
        memcpy(tiles, t->tiles, (size_t)cm->g->n_ops * sizeof *tiles);
    lf_cost_tiles_free(t);
    return st;
}

/* Tensor x held with at least `span` rows growing by `scaled` / H per row
 * step (terms of one tensor merge to the larger of each). */
static int lf__set_term(lf_cost_tiles *t, int32_t x, int64_t span, int64_t scaled)
{
    if (t->slot_stamp[x] != t->sets) {
        if (t->n_terms == t->cap_terms) {
            int32_t cap = t->cap_terms ? 2 * t->cap_terms : 64;
            lf__tile_term *p = realloc(t->terms, (size_t)cap * sizeof *p);
            if (!p)
                return 0;
            t->terms = p;
            t->cap_terms = cap;
        }
        t->slot_stamp[x] = t->sets;
        t->slot[x] = t->n_terms;
        t->term_max = x > t->term_max ? x : t->term_max;
        t->terms[t->n_terms++] = (lf__tile_term){t->cm->ops[x].h, t->cm->ops[x].row_bytes, span, scaled};
        return 1;
    }
    lf__tile_term *e = &t->terms[t->slot[x]];
    e->span = span > e->span ? span : e->span;
    e->scaled = scaled > e->scaled ? scaled : e->scaled;
    return 1;
}

/* A read of x: a view inside the group passes it to the distinct tensors
 * of its height behind it (an outside view holds at least their rows). */
static int lf__set_read(lf_cost_tiles *t, int32_t x, int64_t h, int64_t span, int64_t scaled, int depth)
{
    const lf__op_cost *oc = t->cm->ops;
    if (oc[x].h != h)
        return 1;
    if (oc[x].kind != LF_ROWS_VIEW)
        return lf__set_term(t, x, span, scaled);
    const lf_op *op = &t->cm->g->ops[x];
    int ok = 1;
    for (int32_t j = 0; ok && depth < 8 && j < op->n_inputs; j++)
        ok = lf__set_read(t, op->inputs[j], h, span, scaled, depth + 1);
    return ok;
}

static double lf__set_bytes(const lf_cost_tiles *t, double u)
{
    double b = 0;
    for (int32_t i = 0; i < t->n_terms; i++) {
        const lf__tile_term *e = &t->terms[i];
        double rows = (double)e->span + u * (double)e->scaled;
        b += (rows < (double)e->height ? rows : (double)e->height) * (double)e->row_bytes;
    }
    return b;
}

/* The set floor's count when u* is at most u (kept a hair above it,
 * against rounding). */
static int64_t lf__tiles_at_u(int64_t href, double u)
{
    u = u * (1 + 1e-9) + 1e-12;
    return (int64_t)ceil((double)href / (1.0 + u * (double)href) - 1e-6);
}

/* A reference height of every valid group holding the set
 * (lf_cost_tiles_use_set_paths), or 0 where none is proven. Take the
 * member v of the largest fixed height hv. If a valid group G holding the
 * set has its tallest sink at H < hv, v is no sink, and following
 * consumers inside G from v ends at a sink of fixed height at most H, or
 * at a vector (tile_path.c): a path of fusable ops in G. Each op w after v
 * on it holds at least one row of its output (no view; read by the next
 * one, or the end, which counts only when read or an output) beside the
 * set's terms at one row, and a tensor already among those terms counts
 * once. So every such path's rows outside the terms fit in `left` (beta -
 * 1 - the set's weight block - its terms at one row), and H is at least
 * the least fixed height of an op such a path reaches within left: a
 * shortest path over ids (topological), cut where it passes left; a
 * vector reached proves nothing (0). v is the member lf__set_top names.
 *
 * The search stops (0) at the first op it reaches at most `useless` high:
 * the caller's count at any such height is no more than it has already
 * (most sets of a window's relaxation: NasNet-A at 256 KB under BRR, 58,172
 * of 405,556 heights asked by the 16-op windows raised a count). */
static int64_t lf__set_height(lf_cost_tiles *t, int32_t v, double left, int64_t useless)
{
    const lf_cost_model *cm = t->cm;
    const lf_graph *g = cm->g;
    const lf__op_cost *oc = cm->ops;
    int64_t hv = t->fhv[v];
    if (lf__height_reach_cost(&t->reach, v, useless) <= left)
        return 0; /* such an op within reach with every row counted (height_reach.c) */
    /* Forward over ids: an op is looked at only once a reached op reads
     * into it (seen[w] == stamp, dist[w] its least input so far). */
    double *dist = t->dist;
    int64_t stamp = ++t->stamp;
    int32_t reach = v;
    int64_t low = hv;
    const lf_op *ov = &g->ops[v];
    for (int32_t j = 0; j < ov->n_consumers; j++) {
        int32_t c = ov->consumers[j];
        t->seen[c] = stamp;
        dist[c] = 0;
        reach = c > reach ? c : reach;
    }
    for (int32_t w = v + 1; w <= reach && w < g->n_ops; w++) {
        if (t->seen[w] != stamp || !cm->fusable[w])
            continue;
        const lf_op *op = &g->ops[w];
        double best = dist[w];
        if (oc[w].kind != LF_ROWS_VIEW && (op->n_consumers > 0 || op->is_output) && t->slot_stamp[w] != t->sets)
            best += (double)oc[w].row_bytes;
        if (best > left)
            continue;
        if (t->fhv[w] <= useless)
            return 0; /* a vector within reach (its height is the group's), or a height of no use */
        low = t->fhv[w] < low ? t->fhv[w] : low;
        /* Past the last term's tensor no step is free: the table has the
         * lowest op within reach from w (none: nothing lower). */
        int64_t below = w > t->term_max ? lf__height_reach_least(&t->reach, w, left - best) : -1;
        if (below >= 0) {
            if (below <= useless)
                return 0;
            low = below < low ? below : low;
            continue;
        }
        for (int32_t j = 0; j < op->n_consumers; j++) {
            int32_t c = op->consumers[j];
            if (t->seen[c] != stamp || best < dist[c])
                dist[c] = best;
            t->seen[c] = stamp;
            reach = c > reach ? c : reach;
        }
    }
    return low;
}

/* The terms of the snapshot at the start of `waiter`, which waits for a
 * reduction of map `held` (both members; lf_cost_tiles_of_set_holding).
 * Kept resident, the map is whole only there: the reduction, which the
 * waiter waits for, asks its last row and the waiter its first (rows.c);
 * in the sinks' snapshot a wait further down may have the waiter already
 * at its last rows (efficientnet_b0's blocks 3.0 and 3.1 in one group at
 * 256 KB: the whole-group sum passed beta though the group is valid and
 * keeps both maps). That snapshot has only the waiter's ancestors active:
 * the members above it (a valid group is convex, so a member that is a
 * graph ancestor of the waiter is one in the group), each asking its
 * inputs at least the rows it reads at one row (no growth is claimed:
 * their row scales there follow the waiter, not the sinks), and, a
 * consumer on its way to the waiter being active, at least a row of its
 * own output; the map whole; and the waiter, the snapshot's only sink at
 * one row of its own height per step, stages h rows of its output at h
 * rows per step (scaled = href: rows = 1 + u href = h). */
static int lf__held_terms(lf_cost_tiles *t, const int32_t *members, int32_t n, int32_t held, int32_t waiter,
                          int64_t href)
{
    const lf_graph *g = t->cm->g;
    const lf__op_cost *oc = t->cm->ops;
    int32_t lo = waiter;
    for (int32_t i = 0; i < n; i++)
        lo = members[i] < lo ? members[i] : lo;
    /* Ancestors of the waiter down to the lowest member (ids are topological). */
    int64_t stamp = ++t->stamp;
    t->seen[waiter] = stamp;
    for (int32_t v = waiter; v > lo; v--)
        for (int32_t j = 0; t->seen[v] == stamp && j < g->ops[v].n_inputs; j++)
            t->seen[g->ops[v].inputs[j]] = stamp;
    int ok = lf__set_term(t, held, oc[held].h, 0);
    if (ok && oc[waiter].kind != LF_ROWS_VIEW)
        ok = lf__set_term(t, waiter, 1, href);
    for (int32_t i = 0; ok && i < n; i++) {
        int32_t v = members[i];
        const lf_op *op = &g->ops[v];
        if (t->seen[v] != stamp)
            continue;
        if (v != waiter && oc[v].kind != LF_ROWS_VIEW)
            ok = lf__set_term(t, v, 1, 0);
        int64_t span = oc[v].kind == LF_ROWS_WINDOW ? oc[v].k : 1;
        for (int32_t j = 0; ok && j < op->n_inputs; j++)
            ok = lf__set_read(t, op->inputs[j], oc[op->inputs[j]].h, span, 0, 0);
    }
    return ok;
}

/* The member of the largest fixed height (the first such), or -1 when none
 * has one. */
static int32_t lf__set_top(const lf_cost_tiles *t, const int32_t *members, int32_t n)
{
    int32_t v = -1;
    for (int32_t i = 0; i < n; i++)
        if (t->fhv[members[i]] > (v < 0 ? 0 : t->fhv[v]))
            v = members[i];
    return v;
}

/* Narrows [*lo, *hi], which holds u* (the largest u whose sum fits in
 * budget), until the count at href is the same at both ends, or at the low
 * end no more than `best` (at most 64 steps). The count falls as u grows,
 * so the count at *hi never passes the one at u*, and the one at *lo never
 * falls below it. */
static void lf__tiles_bisect(const lf_cost_tiles *t, int64_t href, double budget, int32_t best, double *lo,
                             double *hi)
{
    for (int it = 0; it < 64 && lf__tiles_at_u(href, *lo) > best &&
                     lf__tiles_at_u(href, *lo) != lf__tiles_at_u(href, *hi);
         it++) {
        double mid = 0.5 * (*lo + *hi);
        if (lf__set_bytes(t, mid) <= budget)
            *lo = mid;
        else
            *hi = mid;
    }
}

static int32_t lf__tiles_of_set(lf_cost_tiles *t, const int32_t *members, int32_t n, int32_t held,
                                int32_t waiter, int *fits)
{
    const lf_cost_model *cm = t->cm;
    const lf_graph *g = cm->g;
    const lf__op_cost *oc = cm->ops;
    int32_t best = 1;
    int64_t wblk = 0, href = 1;
    for (int32_t i = 0; i < n; i++) {
        int32_t v = members[i];
        best = t->tiles[v] > best ? t->tiles[v] : best;
        wblk = oc[v].wblk > wblk ? oc[v].wblk : wblk;
        if (lf__fixed_hv(g, oc, v) && t->hmin[v] != INT64_MAX && t->hmin[v] > href)
            href = t->hmin[v];
    }
    if (cm->scheme->weights_resident || (n == 1 && oc[members[0]].col_m > 0))
        return 1; /* resident weights; or a lone op's column blocks read its matrix once */
    /* A group holding a product of two activations is priced by attn.c, not
     * by the row windows summed below: its K/V are made in a pass before
     * the query tiles and S, P are held a tile at a time, so the sum of
     * every member's windows at once overstates its footprint (BERT-large
     * at 1 MB: the Q/K/V projections with the core read their 3.1 MB of
     * weights once, in one tile of all 128 rows, where the sum claimed 2
     * tiles and the blocks' lower bound passed a valid plan by 0.57%).
     * The members' own floors stand (each op's windows are held together
     * while it runs). */
    for (int32_t i = 0; i < n; i++)
        if (oc[members[i]].global_in)
            return best;
    /* Every member's output and every tensor a member reads, at the least
     * window the engine can give it in a group holding the set; or those
     * of the waiter's snapshot (lf__held_terms). */
    t->sets++;
    t->n_terms = 0;
    t->term_max = -1;
    int ok = 1;
    if (held >= 0 && waiter >= 0)
        ok = lf__held_terms(t, members, n, held, waiter, href);
    for (int32_t i = 0; ok && (held < 0 || waiter < 0) && i < n; i++) {
        int32_t v = members[i];
        const lf_op *op = &g->ops[v];
        int64_t scaled = lf__scaled(t, v);
        if (oc[v].kind != LF_ROWS_VIEW && (op->n_consumers > 0 || op->is_output))
            ok = lf__set_term(t, v, 1, scaled);
        int window = oc[v].kind == LF_ROWS_WINDOW || oc[v].kind == LF_ROWS_VIEW;
        int64_t span = oc[v].kind == LF_ROWS_WINDOW ? oc[v].k : 1;
        int64_t reach = window ? scaled * (oc[v].kind == LF_ROWS_WINDOW ? oc[v].stride : 1) : 0;
        for (int32_t j = 0; ok && j < op->n_inputs; j++)
            ok = lf__set_read(t, op->inputs[j], oc[op->inputs[j]].h, span, reach, 0);
    }
    /* The sinks' snapshot with the map whole (lf_cost_tiles_of_set_holding). */
    if (ok && held >= 0 && waiter < 0)
        ok = lf__set_term(t, held, oc[held].h, 0);
    if (!ok)
        return best; /* no memory for the sum: the members' own floors */
    double budget = (double)(lf_cost_beta(cm) - 1 - wblk), hi = 0;
    if (lf__set_bytes(t, 0) > budget) {
        *fits = 0; /* no group holding the set fits even at one row */
        return best;
    }
    for (int32_t i = 0; i < t->n_terms; i++) {
        const lf__tile_term *e = &t->terms[i];
        if (e->scaled > 0 && e->span < e->height) {
            double u = (double)(e->height - e->span) / (double)e->scaled;
            hi = u > hi ? u : hi;
        }
    }
    if (lf__set_bytes(t, hi) <= budget)
        return best; /* every window fits whole: one tile may do */
    /* The sum grows with u = (h - 1) / H: h* <= 1 + u* H, where u* is the
     * largest u within budget, and ceil(H / h*) >= H / (1 + u* H), which
     * grows with H >= href. The bisection keeps u* in [lo, hi] and stops
     * once the count at href is known (the same answer as all 64 steps,
     * sooner: most sets of a window's relaxation stop there). */
    double lo = 0, left = budget - lf__set_bytes(t, 0);
    lf__tiles_bisect(t, href, budget, best, &lo, &hi);
    int32_t top = t->set_paths && held < 0 ? lf__set_top(t, members, n) : -1;
    if (top >= 0 && t->fhv[top] > href) {
        /* The set's own height (lf__set_height) lies in [href, the top
         * member's]; it is searched only when the top's count passes what
         * href's already gives, and stops at any height whose count at lo
         * (at least the one at u*) does not. */
        int64_t have = lf__tiles_at_u(href, hi), htop = t->fhv[top];
        have = have > best ? have : best;
        lf__tiles_bisect(t, htop, budget, (int32_t)(have < INT32_MAX ? have : INT32_MAX), &lo, &hi);
        if (lf__tiles_at_u(htop, lo) > have) {
            int64_t useless = href, far = htop - 1; /* the largest height whose count at lo is <= have */
            while (useless < far) {
                int64_t mid = useless + (far - useless + 1) / 2;
                if (lf__tiles_at_u(mid, lo) <= have)
                    useless = mid;
                else
                    far = mid - 1;
            }
            int64_t h = lf__set_height(t, top, left, useless);
            if (h > href) {
                href = h;
                lf__tiles_bisect(t, href, budget, best, &lo, &hi);
            }
        }
    }
    int64_t k = lf__tiles_at_u(href, hi);
    return k > best ? (int32_t)(k < INT32_MAX ? k : INT32_MAX) : best;
}

int32_t lf_cost_tiles_of_set(lf_cost_tiles *t, const int32_t *members, int32_t n)
{
    int fits = 1;
    return lf__tiles_of_set(t, members, n, -1, -1, &fits);
}

void lf_cost_tiles_use_set_paths(lf_cost_tiles *t, int on)
{
    t->set_paths = on;
    if (on && !t->reach.heights)
        lf__height_reach_build(t->cm, t->fhv, &t->reach);
}

void lf__tiles_set_paths_searched(lf_cost_tiles *t)
{
    t->set_paths = 1;
    lf__height_reach_free(&t->reach);
}

int32_t lf_cost_tiles_of_set_fitting(lf_cost_tiles *t, const int32_t *members, int32_t n)
{
    int fits = 1;
    int32_t k = lf__tiles_of_set(t, members, n, -1, -1, &fits);
    return fits ? k : 0;
}

int32_t lf_cost_tiles_of_set_holding(lf_cost_tiles *t, const int32_t *members, int32_t n, int32_t map,
                                     int32_t waiter)
{
    int fits = 1;
    int32_t k = lf__tiles_of_set(t, members, n, map, waiter, &fits);
    /* Where the rows flow from the sinks to the waiter at the first phase,
     * the sinks' snapshot holds the map whole too (lf__held_terms): r asks
     * its last row and the waiter, at a row at or above its first (no
     * upsampling that starts lower), its first. Both sums are floors. */
    const lf__op_cost *oc = t->cm->ops;
    if (fits && (t->flow[waiter] & LF__ROW0_BELOW) &&
        (oc[waiter].kind != LF_ROWS_UPSAMPLE || oc[waiter].pad <= oc[waiter].k - 1)) {
        int32_t sinks = lf__tiles_of_set(t, members, n, map, -1, &fits);
        k = sinks > k ? sinks : k;
    }
    return fits ? k : 0;
}

/* Sharper slacks from the ops a group can hold (lf_cost_tiles_refine; see
 * cost.h). A valid group G holding v holds only ops that can share a valid
 * group with v (`together`), so in G an op x below v has its consumers in G
 * among those ops: the worst consumer of the slack above is the worst
 * among them (or none: x a sink, slack 0), and a reduction below v is
 * pinned only by a path inside G to an op reading a spatial map, all of
 * whose ops are among them too (G is convex). The same recursion as
 * lf_cost_tiles_create, restricted to v's region (the ops below v found
 * from v along consumers whose path from v passes `together`: a path from v
 * to w lies in their hull, which a valid group holding both holds, so a
 * path that fails proves w can share no valid group with v; every path from
 * v to an op of such a group lies in the group, so the search from v meets
 * each of its ops along a path that passes, through ops of the region), gives a slack
 * of v that holds in every valid group holding v. Past `max_tests` tests
 * for one op its slack stays as it was. */
lf_status lf_cost_tiles_refine(lf_cost_tiles *t, int (*together)(void *ctx, const int32_t *path, int32_t n),
                               void *ctx, int32_t max_tests)
{
    const lf_cost_model *cm = t->cm;
    const lf_graph *g = cm->g;
    const lf__op_cost *oc = cm->ops;
    int32_t n = g->n_ops;
    if (cm->scheme->weights_resident)
        return LF_OK;
    size_t m = (size_t)n + 1;
    int32_t *mark = calloc(m, sizeof *mark), *region = malloc(m * sizeof *region);
    int32_t *parent = malloc(m * sizeof *parent), *path = malloc(m * sizeof *path);
    int64_t *rs = malloc(m * sizeof *rs);
    uint8_t *rw = malloc(m);
    lf_status st = LF_OK;
    if (!mark || !region || !parent || !path || !rs || !rw) {
        st = lf_set_error(LF_ENOMEM, "out of memory for %d tile floors", (int)n);
        goto done;
    }
    /* mark[x] == 2v + 1: x tested for root v and apart; 2v + 2: in v's region. */
    for (int32_t v = 0; v < n; v++) {
        if (t->slack[v] == 0 || !cm->fusable[v])
            continue;
        int32_t n_region = 0, tests = 0, in = 2 * v + 2, out = 2 * v + 1, ok = 1;
        region[n_region++] = v;
        mark[v] = in;
        for (int32_t i = 0; i < n_region && ok; i++) {
            const lf_op *op = &g->ops[region[i]];
            for (int32_t j = 0; j < op->n_consumers && ok; j++) {
                int32_t c = op->consumers[j];
                if (mark[c] == in || mark[c] == out)
                    continue;
                if (++tests > max_tests) {
                    ok = 0;
                    break;
                }
                /* The tree path from v to region[i], then c: a path from v
                 * to c, so inside their hull. */
                int32_t n_path = 0;
                path[n_path++] = c;
                for (int32_t u = region[i]; u != v; u = parent[u])
                    path[n_path++] = u;
                path[n_path++] = v;
                if (together(ctx, path, n_path)) {
                    mark[c] = in;
                    parent[c] = region[i];
                    region[n_region++] = c;
                } else {
                    mark[c] = out;
                }
            }
        }
        if (!ok)
            continue;
        /* Ids are topological: consumers before their inputs. */
        for (int32_t i = 1; i < n_region; i++)
            for (int32_t k = i; k > 0 && region[k - 1] < region[k]; k--) {
                int32_t s = region[k];
                region[k] = region[k - 1];
                region[k - 1] = s;
            }
        for (int32_t i = 0; i < n_region; i++) {
            int32_t x = region[i];
            const lf_op *op = &g->ops[x];
            int64_t s = 0;
            uint8_t below = 0;
            for (int32_t j = 0; j < op->n_consumers; j++) {
                int32_t c = op->consumers[j];
                if (mark[c] != in)
                    continue;
                below |= (uint8_t)(oc[c].reads_spatial || rw[c]);
                int64_t sc = lf__slack_via(g, oc, rs, rw, x, c, mark, in);
                s = sc > s ? sc : s;
            }
            rw[x] = below;
            rs[x] = s;
        }
        t->slack[v] = rs[v] < t->slack[v] ? rs[v] : t->slack[v];
    }
    for (int32_t v = 0; v < n; v++)
        t->tiles[v] = lf__op_floor(t, v, t->hmax);
done:
    free(parent);
    free(path);
    free(mark);
    free(region);
    free(rs);
    free(rw);
    return st;
}

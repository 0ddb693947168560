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
 * something spatial waits for, an op needing its whole input) and, not
 * being derived here, past a transposed convolution. And H is at
 * least the smallest effective height of v or any op below it (a sink's
 * height; vectors after a reduction count their input's). Over every H in
 * that range the fewest tiles any group can have is the floor. */
#include <stdlib.h>

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

/* What consumer c makes of u's slack (sigma_u * H >= hv_u - slack_u in every
 * group holding u, given the same of c), following lf__scale_inputs. */
static int64_t lf__slack_via(const lf_graph *g, const lf__op_cost *oc, const int64_t *slack,
                             const uint8_t *waits_below, int32_t u, int32_t c)
{
    int64_t hu = lf__fixed_hv(g, oc, u), hc = lf__fixed_hv(g, oc, c), sc = slack[c];
    if (sc >= LF__SLACK_NONE)
        return LF__SLACK_NONE;
    int64_t s;
    switch (oc[c].kind) {
    case LF_ROWS_WINDOW: s = oc[c].stride; break;
    case LF_ROWS_VIEW: s = 1; break;
    case LF_ROWS_REDUCTION:
        /* Scales its input only while nothing spatial waits for it. */
        if (waits_below[c])
            return LF__SLACK_NONE;
        s = 1;
        break;
    case LF_ROWS_RESIZE:
        if (!hu || !hc || hu != oc[u].h)
            return LF__SLACK_NONE;
        return lf__ceil_div(oc[u].h * sc, oc[c].h);
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
                                  int32_t *seen, int32_t stamp, int depth)
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

static int64_t lf__charged_row_bytes(const lf_graph *g, const lf__op_cost *oc, int32_t x, int32_t *seen,
                                     int32_t stamp)
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

lf_status lf_cost_tile_floors(const lf_cost_model *cm, int32_t *tiles)
{
    const lf_graph *g = cm->g;
    const lf__op_cost *oc = cm->ops;
    int32_t n = g->n_ops;
    for (int32_t v = 0; v < n; v++)
        tiles[v] = 1;
    if (cm->scheme->weights_resident || n == 0)
        return LF_OK;
    int64_t *slack = malloc((size_t)n * sizeof *slack);
    int64_t *hmin = malloc((size_t)n * sizeof *hmin);
    uint8_t *waits_below = malloc((size_t)n);
    int32_t *seen = calloc((size_t)n, sizeof *seen), stamp = 0;
    if (!slack || !hmin || !waits_below || !seen) {
        free(slack);
        free(hmin);
        free(waits_below);
        free(seen);
        return lf_set_error(LF_ENOMEM, "out of memory for %d tile floors", (int)n);
    }
    int64_t hmax = 1;
    for (int32_t u = n - 1; u >= 0; u--) {
        const lf_op *op = &g->ops[u];
        int64_t hu = lf__fixed_hv(g, oc, u), s = 0;
        uint8_t below = 0;
        hmin[u] = hu ? hu : INT64_MAX;
        for (int32_t j = 0; j < op->n_consumers; j++) {
            int32_t c = op->consumers[j];
            below |= (uint8_t)(oc[c].reads_spatial || waits_below[c]);
            int64_t sc = lf__slack_via(g, oc, slack, waits_below, u, c);
            s = sc > s ? sc : s;
            hmin[u] = hmin[c] < hmin[u] ? hmin[c] : hmin[u];
        }
        waits_below[u] = below;
        slack[u] = s;
        hmax = oc[u].h > hmax ? oc[u].h : hmax;
    }
    for (int32_t v = 0; v < n; v++) {
        const lf_op *op = &g->ops[v];
        int64_t hv = oc[v].h;
        if (!cm->fusable[v] || oc[v].weight_bytes == 0 || oc[v].kind != LF_ROWS_WINDOW || hv <= 1 ||
            slack[v] >= hv || hmin[v] == INT64_MAX || (op->n_consumers == 0 && !op->is_output))
            continue;
        int64_t scaled = hv - slack[v]; /* sigma_v * H is at least this */
        int64_t budget = lf_cost_beta(cm) - 1 - oc[v].wblk;
        int64_t best = 0;
        for (int32_t j = 0; j < op->n_inputs; j++) {
            int32_t x = op->inputs[j];
            int64_t rbx = lf__charged_row_bytes(g, oc, x, seen, ++stamp), fewest = INT64_MAX;
            for (int64_t H = hmin[v]; H <= hmax; H++) {
                int64_t t = lf__tiles_at(H, budget, oc[v].k, oc[x].h, rbx, hv, scaled, oc[v].stride,
                                         oc[v].row_bytes);
                if (t > 0 && t < fewest)
                    fewest = t;
            }
            if (fewest != INT64_MAX && fewest > best)
                best = fewest;
        }
        tiles[v] = best > 1 ? (int32_t)(best < INT32_MAX ? best : INT32_MAX) : 1;
    }
    free(slack);
    free(hmin);
    free(waits_below);
    free(seen);
    return LF_OK;
}

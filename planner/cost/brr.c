/* BRR (buffer-requirement reduction): weights may stream from DRAM one output
 * channel's block at a time, and feature maps are tiled by output rows. A
 * group is valid when its row windows plus one weight block fit; when all its
 * weights do not fit beside the windows, they are re-read once per row tile,
 * so the tile height h* is chosen as large as the buffer allows. */
#include "planner/cost/cost_internal.h"

static lf_status lf__brr_price(const lf__priced *p, int64_t beta, lf_group_cost *out,
                               lf__peak *peak)
{
    int64_t in = p->in, outb = p->out;
    int64_t weights = p->weights;
    int64_t wblk = p->wblk;
    int64_t feat1 = p->features(p->ctx, 1, peak);
    int64_t height = *p->height;
    out->weights = weights;
    out->features = feat1;
    out->in_bytes = in;
    out->out_bytes = outb;
    out->f_beta = feat1 + wblk;
    out->valid = out->f_beta < beta;
    if (weights + feat1 < beta) {
        out->weight_reads = 1;
        out->tile_rows = (int32_t)height;
        out->mbu = weights + feat1;
    } else if (!out->valid) {
        /* F_feat grows with h, so when h = 1 does not fit no larger tile
         * does: the bisection below would end at 1 (skipping it halves the
         * time the exact planner spends pricing groups on wide graphs). */
        out->tile_rows = 1;
        out->weight_reads = (int32_t)height;
        out->mbu = feat1 + wblk;
    } else {
        /* F_feat grows with h, so the largest tile that fits is found by
         * bisection over [1, height]. Under a limit, one look at the
         * smallest tile that would keep F_D within it settles most groups:
         * when that tile does not fit, F_D exceeds the limit. */
        int64_t lo = 1, hi = height, best_feat = feat1;
        if (p->limit < INT64_MAX && weights > 0) {
            int64_t room = p->limit - in - outb, most = room >= 0 ? room / weights : 0;
            if (most < 1) {
                out->tile_rows = 1;
                out->weight_reads = (int32_t)height;
                out->mbu = feat1 + wblk;
                out->f_d = in + outb + height * weights;
                out->steps = (int32_t)height;
                return LF_OK;
            }
            if (most < height) {
                int64_t need = (height + most - 1) / most; /* smallest h: ceil(H/h) <= most */
                int64_t f = p->features(p->ctx, need, NULL);
                if (f + wblk >= beta) {
                    out->tile_rows = (int32_t)(need - 1);
                    out->weight_reads = (int32_t)((height + need - 2) / (need - 1));
                    out->mbu = feat1 + wblk;
                    out->f_d = in + outb + (int64_t)out->weight_reads * weights;
                    out->steps = out->weight_reads;
                    return LF_OK;
                }
                lo = need;
                best_feat = f;
            }
        }
        while (lo < hi) {
            int64_t mid = lo + (hi - lo + 1) / 2;
            int64_t f = p->features(p->ctx, mid, NULL);
            if (f + wblk < beta) {
                lo = mid;
                best_feat = f;
            } else {
                hi = mid - 1;
            }
        }
        if (lo == 1)
            best_feat = feat1;
        out->tile_rows = (int32_t)lo;
        out->weight_reads = (int32_t)((height + lo - 1) / lo);
        out->mbu = best_feat + wblk;
    }
    out->f_d = in + outb + (int64_t)out->weight_reads * weights;
    out->steps = height > out->tile_rows ? (int32_t)((height + out->tile_rows - 1) / out->tile_rows) : 1;
    return LF_OK;
}

/* Every tile height that lowers the weight re-reads ceil(H/h) is one step:
 * from h = 1 (the validity threshold) through the smallest h of each smaller
 * re-read count, up to all weights resident. F_feat grows with h (as the
 * bisection above assumes), so the walk stops at the first need >= below. */
static lf_status lf__brr_steps(const lf__priced *p, int64_t below, lf_cost_step *steps,
                               int32_t cap, int32_t *n)
{
    int64_t in = p->in, outb = p->out;
    int64_t weights = p->weights;
    int64_t wblk = p->wblk;
    int64_t feat1 = p->features(p->ctx, 1, NULL);
    int64_t height = *p->height < 1 ? 1 : *p->height;
    lf_status st = LF_OK;
    *n = 0;
    if (feat1 + wblk >= below)
        return LF_OK;
    int64_t reads = height;
    st = lf__step_push(steps, cap, n, feat1 + wblk, in + outb + reads * weights);
    while (st == LF_OK && reads > 1) {
        int64_t h = (height + reads - 2) / (reads - 1); /* smallest h with ceil(H/h) < reads */
        reads = (height + h - 1) / h;
        int64_t need = p->features(p->ctx, h, NULL) + wblk;
        if (need >= below)
            break;
        st = lf__step_push(steps, cap, n, need, in + outb + reads * weights);
    }
    if (st == LF_OK && weights + feat1 < below)
        st = lf__step_push(steps, cap, n, weights + feat1, in + outb + weights);
    return st;
}

/* The same decisions as lf__brr_price under a limit, without the tile
 * search: validity at one row, all weights resident, or the one tile that
 * would keep F_D within the limit. */
static int lf__brr_settles(const lf__priced *p, int64_t beta)
{
    int64_t feat1 = p->features(p->ctx, 1, NULL);
    int64_t base = p->in + p->out, height = *p->height;
    if (feat1 + p->wblk >= beta)
        return 1;
    if (p->weights + feat1 < beta || p->weights == 0)
        return base + p->weights > p->limit;
    if (p->limit == INT64_MAX)
        return 0;
    int64_t room = p->limit - base, most = room >= 0 ? room / p->weights : 0;
    if (most < 1)
        return 1;
    if (most >= height)
        return 0;
    int64_t need = (height + most - 1) / most; /* smallest h: ceil(H/h) <= most */
    return p->features(p->ctx, need, NULL) + p->wblk >= beta;
}

/* Weights stream by output-channel block: the largest member block is
 * resident, whatever else is in the group. */
static void lf__brr_weight_bound(const lf__op_cost *c, int64_t *term, int64_t *block)
{
    *term = 0;
    *block = c->wblk;
}

const lf__scheme lf__scheme_brr = {"brr",           lf__brr_price,         lf__brr_steps,
                                   lf__brr_settles, lf__brr_weight_bound, 0};

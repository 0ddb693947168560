/* BRR (buffer-requirement reduction): weights may stream from DRAM one output
 * channel's block at a time, and feature maps are tiled by output rows. A
 * group is valid when its row windows plus one weight block fit; when all its
 * weights do not fit beside the windows, they are re-read once per row tile,
 * so the tile height h* is chosen as large as the buffer allows. */
#include "planner/cost/cost_internal.h"

/* Column blocks (DESIGN §16, docs/cost-models.md "Column blocks"). A lone
 * MatMul by a constant matrix over many rows (a Linear over tokens, a tied
 * LM head) may instead keep Bc columns of the matrix on chip while every
 * input row streams past: the matrix is read once, the input once per block
 * of columns, and the buffer holds one input row, the Bc columns and Bc
 * outputs. The widths tried, widest first, are ceil(M / C) for C = 1 .. 64
 * blocks and, narrower, round(2^(i/4)): a fixed ladder, so that the price
 * and the staircase (at most 64 + 4 log2 M steps) agree. */
#define LF__COL_EVEN 64
#define LF__COL_MAX (LF__COL_EVEN + 4 * 64)

static int32_t lf__col_widths(int64_t m, int64_t *bc)
{
    int32_t n = 0;
    for (int64_t c = 1; c <= LF__COL_EVEN && c <= m; c++) {
        int64_t w = (m + c - 1) / c;
        if (n == 0 || w < bc[n - 1])
            bc[n++] = w;
    }
    int64_t below = n > 0 ? bc[n - 1] : m + 1;
    int32_t top = 0;
    while (top < 4 * 62 && ((int64_t)1 << (top / 4)) < below)
        top++;
    for (int32_t i = top; i >= 0 && n < LF__COL_MAX; i--) {
        /* round(2^(i/4)) in integers: 2^(i/4) = 2^(i div 4) * 2^((i mod 4) / 4) */
        static const int64_t frac[4] = {10000, 11892, 14142, 16818};
        int64_t w = (((int64_t)1 << (i / 4)) * frac[i % 4] + 5000) / 10000;
        if (w >= 1 && w < below && (n == 0 || w < bc[n - 1]))
            bc[n++] = w;
    }
    return n;
}

static int64_t lf__col_need(const lf__priced *p, int64_t w)
{
    return p->col_krow + w * (p->wblk + p->col_a);
}

static int64_t lf__col_fd(const lf__priced *p, int64_t w)
{
    int64_t blocks = (p->col_m + w - 1) / w;
    return p->in + p->out + p->weights + (blocks - 1) * p->col_x;
}

/* Replaces the row-tiled price in out with the widest column block that
 * fits when that is valid where rows are not, or moves fewer bytes. */
static void lf__brr_cols(const lf__priced *p, int64_t beta, lf_group_cost *out)
{
    int64_t bc[LF__COL_MAX];
    int32_t n = lf__col_widths(p->col_m, bc);
    if (n == 0)
        return;
    int64_t least = lf__col_need(p, bc[n - 1]);
    out->col_able = 1;
    for (int32_t k = 0; k < n; k++) {
        int64_t need = lf__col_need(p, bc[k]);
        if (need >= beta)
            continue;
        int64_t fd = lf__col_fd(p, bc[k]);
        if (!out->valid || fd < out->f_d) {
            out->valid = 1;
            out->f_d = fd;
            out->mbu = need;
            out->weight_reads = 1;
            out->tile_rows = 1;
            out->col_bc = (int32_t)bc[k];
            out->col_blocks = (int32_t)((p->col_m + bc[k] - 1) / bc[k]);
            out->col_dram = (out->col_blocks - 1) * p->col_x;
        }
        break;
    }
    if (least < out->f_beta)
        out->f_beta = least;
}

static lf_status lf__brr_rows(const lf__priced *p, int64_t beta, lf_group_cost *out,
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

static lf_status lf__brr_price(const lf__priced *p, int64_t beta, lf_group_cost *out,
                               lf__peak *peak)
{
    lf_status st = lf__brr_rows(p, beta, out, peak);
    if (st == LF_OK && p->col_m > 0)
        lf__brr_cols(p, beta, out);
    return st;
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
    /* Rows that do not fit below `below` leave the column blocks, which may
     * (a lone MatMul by a constant: lm_head's output row alone is larger
     * than the buffer, one of its columns is not). */
    int rows = feat1 + wblk < below;
    int64_t reads = height;
    if (rows)
        st = lf__step_push_p(p, steps, cap, n, feat1 + wblk, in + outb + reads * weights);
    while (rows && st == LF_OK && reads > 1) {
        int64_t h = (height + reads - 2) / (reads - 1); /* smallest h with ceil(H/h) < reads */
        reads = (height + h - 1) / h;
        int64_t need = p->features(p->ctx, h, NULL) + wblk;
        if (need >= below)
            break;
        st = lf__step_push_p(p, steps, cap, n, need, in + outb + reads * weights);
    }
    if (rows && st == LF_OK && weights + feat1 < below)
        st = lf__step_push_p(p, steps, cap, n, weights + feat1, in + outb + weights);
    int64_t bc[LF__COL_MAX];
    int32_t nc = p->col_m > 0 ? lf__col_widths(p->col_m, bc) : 0;
    for (int32_t k = 0; st == LF_OK && k < nc; k++)
        if (lf__col_need(p, bc[k]) < below)
            st = lf__step_push_p(p, steps, cap, n, lf__col_need(p, bc[k]), lf__col_fd(p, bc[k]));
    return st;
}

/* The same decisions as lf__brr_price under a limit, without the tile
 * search: validity at one row, all weights resident, or the one tile that
 * would keep F_D within the limit. */
static int lf__brr_settles(const lf__priced *p, int64_t beta)
{
    int64_t feat1 = p->features(p->ctx, 1, NULL);
    int64_t base = p->in + p->out, height = *p->height;
    if (p->col_m > 0)
        return 0; /* column blocks may fit where rows do not: price it */
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

/* The merge rule (IOS's check_merge, DESIGN §12): convolutions that read the
 * same tensor with the same stride and activation run as one convolution
 * whose output channels are theirs side by side and whose kernel is the
 * largest, each smaller kernel zero-padded and centred in it. That computes
 * the same outputs only when centring lines every kernel up with its own
 * padding: the size difference is even on each axis and the padding plus
 * the offset (half the difference) equals the merged padding on all four
 * sides; then every output also has the same size. */
#include <string.h>

#include "planner/util/hashmap.h"
#include "search/schedule/schedule_internal.h"

static int32_t lf__one(int32_t v) { return v ? v : 1; }

int lf__merge_candidate(const lf__sched *x, int32_t unit)
{
    const lf_op *op = &x->g->ops[x->u[unit].op];
    return op->type == LF_OP_CONV && lf__one(op->attr.groups) == 1 && lf__one(op->attr.dh) == 1 &&
           lf__one(op->attr.dw) == 1 && op->n_inputs == 1;
}

/* What merged convolutions must share: the input tensor, the stride, the
 * fused activation, the epilogue (type and parameters) and the output size. */
uint64_t lf__merge_key(const lf__sched *x, int32_t unit)
{
    const lf_op *op = &x->g->ops[x->u[unit].op];
    int64_t k[10] = {op->inputs[0], lf__one(op->attr.sh), lf__one(op->attr.sw), op->attr.act, -1,
                     op->out.n, op->out.h, op->out.w, 0, 0};
    if (x->u[unit].epi >= 0) {
        const lf_op *e = &x->g->ops[x->u[unit].epi];
        float p[4] = {e->attr.clip_min, e->attr.clip_max, e->attr.alpha, e->attr.beta};
        k[4] = e->type;
        memcpy(&k[8], p, sizeof p);
    }
    return lf_hash_bytes(k, sizeof k, 0x5c4ed011eULL);
}

static int lf__same_epilogue(const lf__sched *x, int32_t a, int32_t b)
{
    int32_t ea = x->u[a].epi, eb = x->u[b].epi;
    if (ea < 0 || eb < 0)
        return ea < 0 && eb < 0;
    const lf_op *p = &x->g->ops[ea], *q = &x->g->ops[eb];
    return p->type == q->type && p->attr.clip_min == q->attr.clip_min && p->attr.clip_max == q->attr.clip_max &&
           p->attr.alpha == q->attr.alpha && p->attr.beta == q->attr.beta && p->attr.approximate == q->attr.approximate;
}

int lf__merge_ok(const lf__sched *x, const int32_t *units, int32_t n)
{
    if (n < 2)
        return 0;
    const lf_op *f = &x->g->ops[x->u[units[0]].op];
    int32_t kh = 0, kw = 0, pt = 0, pl = 0, pb = 0, pr = 0;
    for (int32_t i = 0; i < n; i++) {
        if (!lf__merge_candidate(x, units[i]))
            return 0;
        const lf_op *op = &x->g->ops[x->u[units[i]].op];
        if (op->inputs[0] != f->inputs[0] || lf__one(op->attr.sh) != lf__one(f->attr.sh) ||
            lf__one(op->attr.sw) != lf__one(f->attr.sw) || op->attr.act != f->attr.act ||
            op->out.n != f->out.n || op->out.h != f->out.h || op->out.w != f->out.w ||
            !lf__same_epilogue(x, units[0], units[i]))
            return 0;
        for (int32_t j = 0; j < i; j++)
            if (units[j] == units[i])
                return 0;
        int32_t h = lf__one(op->attr.kh), w = lf__one(op->attr.kw);
        kh = h > kh ? h : kh;
        kw = w > kw ? w : kw;
        pt = op->attr.pad_top > pt ? op->attr.pad_top : pt;
        pl = op->attr.pad_left > pl ? op->attr.pad_left : pl;
        pb = op->attr.pad_bottom > pb ? op->attr.pad_bottom : pb;
        pr = op->attr.pad_right > pr ? op->attr.pad_right : pr;
    }
    for (int32_t i = 0; i < n; i++) {
        const lf_op *op = &x->g->ops[x->u[units[i]].op];
        int32_t dh = kh - lf__one(op->attr.kh), dw = kw - lf__one(op->attr.kw);
        if (dh % 2 || dw % 2)
            return 0;
        if (op->attr.pad_top + dh / 2 != pt || op->attr.pad_bottom + dh / 2 != pb ||
            op->attr.pad_left + dw / 2 != pl || op->attr.pad_right + dw / 2 != pr)
            return 0;
    }
    return 1;
}

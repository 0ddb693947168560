/* TASO's rule generator, step 1 (DESIGN §11): enumerate every graph of up to
 * K ops over a small op vocabulary and fingerprint each on integer-valued
 * random inputs with the executor's own op kernels (lf_exec_eval_op).
 *
 * Two worlds of variables, as in TASO's generator:
 *   2-D: four square matrices {1, 1, 4, 4} (MatMul, Add, Mul, Relu, Concat
 *        along rows or columns), all interchangeable;
 *   4-D: four activations {1, 4, 4, 5} and three conv weights {4, 4, 3, 3}
 *        (Conv with SAME padding, stride 1, with or without a fused ReLU;
 *        Add, Mul, Relu and Concat along N or C on activations; Concat along
 *        out or in channels and Add on weights, which targets use to build a
 *        merged weight).
 * A graph has exactly one sink. Each graph is visited once: ops are unique
 * (common subexpressions are shared) and the op sequence must be the one
 * Kahn's algorithm gives when it always takes the available op of least
 * structural hash, which is checked as each op is appended. Values are
 * small integers, so every sum and product below 2^24 is exact in float and
 * equal graphs give bit-identical outputs whatever the order of operations.
 * Variables of each kind must be used as a prefix (v0, v1, ... without gaps),
 * which removes most renamings before pairing. */
#include <stdlib.h>
#include <string.h>

#include "planner/exec/exec.h"
#include "planner/optable.h"
#include "search/subst/rulegen_internal.h"

/* The vocabulary and the record list every step of the generator shares. */
const int32_t lf__rg_types[LF_RG_NTYPES] = {LF_RG_CONV, LF_RG_RELU, LF_RG_CONCAT, LF_RG_ADD, LF_RG_MUL, LF_RG_MATMUL};
const char *const lf__rg_type_names[LF_RG_NTYPES] = {"conv", "relu", "concat", "add", "mul", "matmul"};

int lf__rg_recs_push(lf__rg_recs *rs, const lf__rg_rec *r)
{
    if (rs->n == rs->cap) {
        int64_t cap = rs->cap ? 2 * rs->cap : 1024;
        lf__rg_rec *nr = realloc(rs->r, (size_t)cap * sizeof *nr);
        if (!nr)
            return 1;
        rs->r = nr, rs->cap = cap;
    }
    rs->r[rs->n++] = *r;
    return 0;
}


static uint64_t rg_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

uint64_t lf__rg_var_hash(int32_t v) { return rg_mix(0x5bd1e995u, (uint64_t)v + 1); }

uint64_t lf__rg_op_hash(int32_t type, int32_t param, const uint64_t *in, int32_t n_in)
{
    uint64_t a = n_in > 0 ? in[0] : 0, b = n_in > 1 ? in[1] : 0;
    if ((type == LF_RG_ADD || type == LF_RG_MUL) && a > b) { /* commutative */
        uint64_t t = a;
        a = b, b = t;
    }
    uint64_t h = rg_mix((uint64_t)type * 131u + (uint64_t)(param + 7), a);
    return rg_mix(h, b);
}

int32_t lf__rg_world_vars(int32_t world) { return world ? 7 : 4; }
int32_t lf__rg_var_kind(int32_t world, int32_t v) { return world && v >= 4 ? LF_RG_WEIGHT : LF_RG_ACT; }

lf_shape lf__rg_var_shape(int32_t world, int32_t v)
{
    if (!world)
        return (lf_shape){1, 1, 4, 4};
    return v < 4 ? (lf_shape){1, 4, 4, 5} : (lf_shape){4, 4, 3, 3};
}

/* IR attributes of an op over operand shapes (as taso_load.c reads TASO's). */
int lf__rg_attrs(int32_t world, const lf__rg_op *o, const lf_shape *in, lf_attrs *a)
{
    memset(a, 0, sizeof *a);
    if (o->type == LF_RG_CONCAT) {
        int32_t dim = world ? o->param : LF_DIM_H + o->param;
        a->axes = dim == LF_DIM_C ? 0 : LF_AXES(dim);
    } else if (o->type == LF_RG_CONV) {
        if (in[1].c <= 0 || in[0].c % in[1].c)
            return 0;
        a->out_channels = (int32_t)in[1].n;
        a->kh = (int32_t)in[1].h, a->kw = (int32_t)in[1].w;
        a->groups = (int32_t)(in[0].c / in[1].c);
        a->sh = a->sw = 1;
        a->pad_top = a->pad_bottom = (int32_t)(in[1].h - 1) / 2;
        a->pad_left = a->pad_right = (int32_t)(in[1].w - 1) / 2;
        a->act = o->param ? LF_ACT_RELU : LF_ACT_NONE;
    }
    return 1;
}

lf_op_type lf__rg_ir_type(int32_t t)
{
    switch (t) {
    case LF_RG_CONV: return LF_OP_CONV;
    case LF_RG_RELU: return LF_OP_RELU;
    case LF_RG_CONCAT: return LF_OP_CONCAT;
    case LF_RG_ADD: return LF_OP_ADD;
    case LF_RG_MUL: return LF_OP_MUL;
    default: return LF_OP_MATMUL;
    }
}

/* Integer values in {-3, -2, -1, 1, 2, 3} for variable v of a world. */
void lf__rg_fill(uint64_t seed, int32_t world, int32_t v, float *out, int64_t n)
{
    uint64_t s = rg_mix(seed, (uint64_t)(world * 16 + v));
    for (int64_t i = 0; i < n; i++) {
        s = rg_mix(s, (uint64_t)i);
        int32_t k = (int32_t)(s % 6u);
        out[i] = (float)(k < 3 ? k - 3 : k - 2);
    }
}

uint64_t lf__rg_fingerprint(lf_shape s, const float *x, int64_t n)
{
    uint64_t h = rg_mix(rg_mix(rg_mix(rg_mix(1, (uint64_t)s.n), (uint64_t)s.c), (uint64_t)s.h), (uint64_t)s.w);
    for (int64_t i = 0; i < n; i++) {
        float v = x[i] + 0.0f; /* -0 and 0 alike */
        uint32_t bits;
        memcpy(&bits, &v, sizeof bits);
        h = rg_mix(h, bits);
    }
    return h;
}

/* ---- depth-first enumeration ------------------------------------------------ */

typedef struct rg_state {
    const lf__rg_config *cfg;
    int32_t world, nv;
    lf__rg_graph g;
    uint64_t hash[LF_RG_MAXK];
    int32_t kind[LF_RG_MAXK], readers[LF_RG_MAXK];
    lf_shape shape[LF_RG_MAXK];
    float *val[LF_RG_MAXK];
    int64_t cap[LF_RG_MAXK];
    int32_t var_used[LF_RG_NV];
    const float *var_val[LF_RG_NV];
    lf__rg_recs *out;
    lf_status st;
} rg_state;

static int rg_tensor(const rg_state *s, int32_t ref, uint64_t *h, int32_t *kind, lf_shape *shape,
                     const float **val)
{
    if (ref < 0) {
        int32_t v = -1 - ref;
        *h = lf__rg_var_hash(v), *kind = lf__rg_var_kind(s->world, v);
        *shape = lf__rg_var_shape(s->world, v), *val = s->var_val[v];
    } else {
        *h = s->hash[ref], *kind = s->kind[ref], *shape = s->shape[ref], *val = s->val[ref];
    }
    return 1;
}

/* Gaps in the variables used so far (per kind): renamings to skip. */
static int32_t rg_gaps(const rg_state *s)
{
    int32_t gaps = 0;
    for (int32_t kind = 0; kind < 2; kind++) {
        int32_t top = -1, used = 0, base = kind ? 4 : 0, end = kind ? s->nv : (s->world ? 4 : s->nv);
        for (int32_t v = base; v < end; v++)
            if (s->var_used[v])
                top = v - base, used++;
        gaps += top + 1 - used;
    }
    return gaps;
}

static void rg_dfs(rg_state *s);

/* Tries op o at position d; recurses when it is canonical and can still
 * complete a graph. */
static void rg_try(rg_state *s, lf__rg_op o)
{
    int32_t d = s->g.n, n_in = o.type == LF_RG_RELU ? 1 : 2;
    uint64_t ih[2];
    int32_t ik[2];
    lf_shape is[2];
    const float *iv[2];
    lf_tensor it[2];
    for (int32_t p = 0; p < n_in; p++) {
        rg_tensor(s, o.in[p], &ih[p], &ik[p], &is[p], &iv[p]);
        it[p].shape = is[p], it[p].data = (float *)iv[p];
    }
    int32_t kind = ik[0];
    switch (o.type) {
    case LF_RG_RELU:
        if (s->world && kind != LF_RG_ACT)
            return;
        break;
    case LF_RG_CONV:
        if (ik[0] != LF_RG_ACT || ik[1] != LF_RG_WEIGHT)
            return;
        kind = LF_RG_ACT;
        break;
    case LF_RG_MUL:
        if (kind == LF_RG_WEIGHT)
            return;
        /* fall through */
    default:
        if (ik[0] != ik[1])
            return;
    }
    uint64_t h = lf__rg_op_hash(o.type, o.param, ih, n_in);
    int32_t avail = -1;
    for (int32_t p = 0; p < n_in; p++)
        if (o.in[p] >= 0 && o.in[p] > avail)
            avail = o.in[p];
    for (int32_t i = 0; i < d; i++)
        if (s->hash[i] == h || (i > avail && s->hash[i] > h))
            return; /* a repeated op, or not Kahn's least-hash order */
    /* unread ops after this one; each later op can lower that by one */
    int32_t unread = 1;
    for (int32_t i = 0; i < d; i++)
        unread += s->readers[i] == 0 && o.in[0] != i && (n_in < 2 || o.in[1] != i);
    int32_t left = s->cfg->max_ops - d - 1;
    if (unread > left + 1)
        return;
    lf_attrs a;
    lf_shape os;
    char err[8];
    if (!lf__rg_attrs(s->world, &o, is, &a) || lf_op_infer(lf__rg_ir_type(o.type), &a, is, n_in, &os, err, sizeof err))
        return;
    int64_t cnt = lf_shape_count(os);
    if (cnt > s->cap[d]) {
        float *nb = realloc(s->val[d], (size_t)cnt * sizeof *nb);
        if (!nb) {
            s->st = lf_set_error(LF_ENOMEM, "rule generator: out of memory");
            return;
        }
        s->val[d] = nb, s->cap[d] = cnt;
    }
    lf_tensor out = {os, s->val[d]};
    if (lf_exec_eval_op(lf__rg_ir_type(o.type), &a, it, n_in, &out, 1))
        return;
    int32_t saved[LF_RG_NV];
    memcpy(saved, s->var_used, sizeof saved);
    for (int32_t p = 0; p < n_in; p++)
        if (o.in[p] < 0)
            s->var_used[-1 - o.in[p]] = 1;
    for (int32_t p = 0; p < n_in; p++)
        if (o.in[p] >= 0)
            s->readers[o.in[p]]++;
    s->g.op[d] = o;
    s->hash[d] = h, s->kind[d] = kind, s->shape[d] = os, s->readers[d] = 0;
    s->g.n = d + 1;
    int32_t gaps = rg_gaps(s);
    if (gaps <= 2 * left) {
        if (unread == 1 && gaps == 0 && kind == LF_RG_ACT) {
            lf__rg_rec r;
            memset(&r, 0, sizeof r);
            r.g = s->g;
            r.fp = lf__rg_fingerprint(os, s->val[d], cnt);
            r.key = h;
            if (lf__rg_recs_push(s->out, &r) && !s->st)
                s->st = lf_set_error(LF_ENOMEM, "rule generator: out of memory");
        }
        if (left > 0)
            rg_dfs(s);
    }
    s->g.n = d;
    for (int32_t p = 0; p < n_in; p++)
        if (o.in[p] >= 0)
            s->readers[o.in[p]]--;
    memcpy(s->var_used, saved, sizeof saved);
}

/* Every op over tensors 0..nt-1 (variables then ops), in a fixed order. */
int32_t lf__rg_candidates(const lf__rg_config *cfg, int32_t world, int32_t n_ops, lf__rg_op *out, int32_t max)
{
    int32_t nv = lf__rg_world_vars(world), nt = nv + n_ops, n = 0;
#define RG_REF(i) ((int8_t)((i) < nv ? -1 - (i) : (i) - nv))
#define RG_PUSH(t, pa, x, y)                                                                                 \
    do {                                                                                                     \
        if (n < max)                                                                                         \
            out[n] = (lf__rg_op){(int8_t)(t), (int8_t)(pa), {RG_REF(x), (int8_t)((y) < 0 ? 0 : RG_REF(y))}}; \
        n++;                                                                                                 \
    } while (0)
    for (int32_t t = 0; t < LF_RG_NTYPES; t++) {
        int32_t type = lf__rg_types[t];
        if (!(cfg->types & (1u << t)) || (type == LF_RG_CONV && !world) || (type == LF_RG_MATMUL && world))
            continue;
        for (int32_t i = 0; i < nt; i++) {
            if (type == LF_RG_RELU) {
                RG_PUSH(type, 0, i, -1);
                continue;
            }
            for (int32_t j = 0; j < nt; j++) {
                if ((type == LF_RG_ADD || type == LF_RG_MUL) && j < i)
                    continue;
                if (type == LF_RG_CONCAT || type == LF_RG_CONV) {
                    RG_PUSH(type, 0, i, j);
                    RG_PUSH(type, 1, i, j);
                } else {
                    RG_PUSH(type, 0, i, j);
                }
            }
        }
    }
#undef RG_PUSH
#undef RG_REF
    return n;
}

static void rg_dfs(rg_state *s)
{
    lf__rg_op cand[4096];
    int32_t n = lf__rg_candidates(s->cfg, s->world, s->g.n, cand, 4096);
    for (int32_t i = 0; i < n && i < 4096 && !s->st; i++)
        rg_try(s, cand[i]);
}

lf_status lf__rg_enumerate_root(const lf__rg_config *cfg, int32_t world, lf__rg_op first, const float *const *var_val,
                                lf__rg_recs *out)
{
    rg_state s;
    memset(&s, 0, sizeof s);
    s.cfg = cfg, s.world = world, s.nv = lf__rg_world_vars(world), s.out = out;
    s.g.world = (int8_t)world;
    for (int32_t v = 0; v < s.nv; v++)
        s.var_val[v] = var_val[v];
    rg_try(&s, first);
    for (int32_t d = 0; d < LF_RG_MAXK; d++)
        free(s.val[d]);
    return s.st;
}

/* Random DAGs for property tests (header-only).
 *
 * rdag_build(seed, family, n) builds a small graph of about n compute ops
 * (never more than max(n, RDAG_MIN_OPS)) from one of a few shape families
 * that cover the structures the planners must handle: plain chains, diamonds
 * (two branches meeting in an Add), residual blocks (skip connections, also
 * nested), concats of parallel branches (inception-like) and
 * squeeze-and-excite blocks (GlobalAveragePool -> 1x1 conv -> Relu -> 1x1 conv
 * -> Sigmoid -> Mul with the map). RDAG_MIXED draws every block from every
 * family.
 *
 * Maps are tiny (8..16 pixels square, 3..32 channels) so that at a small
 * buffer (RDAG_BETA_SMALL, 2 KB, passed by the test into the hardware
 * description) some convs are unfusable (their weights alone reach beta),
 * squeeze-and-excite groups are invalid (the map must be resident) and many
 * random groups are invalid, while at RDAG_BETA_LARGE most groups fit. With
 * n <= RDAG_TINY (12) brute force over every plan stays cheap.
 *
 * Same (seed, family, n) -> the same graph on every platform (the draws come
 * from lf_rng, integer-only where it matters). Returns NULL only on an
 * internal error (which a test should report as a failure). */
#ifndef LF_TEST_RANDOM_DAGS_H
#define LF_TEST_RANDOM_DAGS_H

#include <stdint.h>
#include <stdio.h>

#include "planner/graph.h"
#include "planner/util/rng.h"

enum {
    RDAG_CHAIN = 0,
    RDAG_DIAMOND,
    RDAG_RESIDUAL, /* residual blocks, nested with some probability */
    RDAG_CONCAT,
    RDAG_SE,
    RDAG_MIXED,
    RDAG_FAMILIES
};

#define RDAG_TINY 12          /* "tiny" size: brute force over all plans is cheap */
#define RDAG_MIN_OPS 2
#define RDAG_MAX_OPS 400      /* larger requests are capped */
/* Buffer sizes the tests pass into the hardware description (measured over
 * seeds 0..99 of every family at 12 ops, LBDF): */
#define RDAG_BETA_SMALL 2048   /* ~12% of ops unfusable, ~97% of whole graphs invalid */
#define RDAG_BETA_MEDIUM 8192  /* ~1% unfusable, about half of whole graphs invalid */
#define RDAG_BETA_LARGE 32768  /* nothing unfusable, nearly every whole graph fits */

static const char *const rdag_family_names[RDAG_FAMILIES] = {"chain", "diamond", "residual",
                                                             "concat", "se", "mixed"};

typedef struct rdag__ctx {
    lf_graph_builder *b;
    lf_rng rng;
    int n;         /* ops added, the input included; op k is named "v<k>" */
    int compute;   /* compute ops added */
    int limit;     /* compute ops allowed in total */
    int err;
    int c[RDAG_MAX_OPS + 8], h[RDAG_MAX_OPS + 8];
} rdag__ctx;

static inline int rdag__pick(rdag__ctx *x, int n) { return (int)lf_rng_below(&x->rng, (uint32_t)n); }
static inline int rdag__coin(rdag__ctx *x, int percent) { return rdag__pick(x, 100) < percent; }
static inline int rdag__left(const rdag__ctx *x) { return x->limit - x->compute; }

static inline int rdag__channels(rdag__ctx *x)
{
    static const int choice[] = {4, 8, 8, 12, 16, 16, 24, 32};
    return choice[rdag__pick(x, (int)(sizeof choice / sizeof choice[0]))];
}

/* Adds an op reading the ops `in` (ids); records the output shape the graph
 * will infer (square maps, same padding). Returns the new op id. */
static inline int rdag__add(rdag__ctx *x, lf_op_type t, const lf_attrs *a, const int *in, int n_in,
                            int c, int h)
{
    char name[16], names[4][16];
    const char *ins[4];
    int id = x->n;
    if (x->err || id >= RDAG_MAX_OPS + 8 || n_in > 4) {
        x->err = 1;
        return in && n_in > 0 ? in[0] : 0;
    }
    snprintf(name, sizeof name, "v%d", id);
    for (int i = 0; i < n_in; i++) {
        snprintf(names[i], sizeof names[i], "v%d", in[i]);
        ins[i] = names[i];
    }
    if (lf_graph_builder_add(x->b, t, name, a, ins, n_in) < 0)
        x->err = 1;
    x->c[id] = c;
    x->h[id] = h;
    x->n++;
    x->compute += t != LF_OP_INPUT;
    return id;
}

static inline int rdag__conv(rdag__ctx *x, int in, int out_c, int k, int s, int groups, lf_act act)
{
    lf_attrs a = {0};
    a.out_channels = out_c;
    a.kh = a.kw = k;
    a.sh = a.sw = s;
    a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = k / 2;
    a.groups = groups;
    a.act = act;
    a.has_bias = rdag__coin(x, 30);
    int h = (x->h[in] + 2 * (k / 2) - k) / s + 1;
    return rdag__add(x, LF_OP_CONV, &a, &in, 1, out_c, h);
}

/* One compute op on t. want_c > 0 forces that many output channels and
 * stride 1 (the end of a branch that must match another); want_c < 0 keeps
 * the resolution but any channel count; 0 allows anything. */
static inline int rdag__unit(rdag__ctx *x, int t, int want_c)
{
    int c = x->c[t], h = x->h[t];
    lf_act act = rdag__coin(x, 50) ? LF_ACT_RELU : LF_ACT_NONE;
    if (want_c > 0 && want_c != c)
        return rdag__conv(x, t, want_c, rdag__coin(x, 50) ? 3 : 1, 1, 1, act);
    if (want_c == 0 && h >= 8 && rdag__coin(x, 12)) { /* downsample */
        if (rdag__coin(x, 50))
            return rdag__conv(x, t, rdag__channels(x), 3, 2, 1, act);
        lf_attrs a = {0};
        a.kh = a.kw = 3;
        a.sh = a.sw = 2;
        a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = 1;
        return rdag__add(x, LF_OP_MAXPOOL, &a, &t, 1, c, (h - 1) / 2 + 1);
    }
    switch (rdag__pick(x, 8)) {
    case 0:
    case 1:
        return rdag__conv(x, t, want_c > 0 ? want_c : rdag__channels(x), 3, 1, 1, act);
    case 2:
        return rdag__conv(x, t, want_c > 0 ? want_c : rdag__channels(x), 1, 1, 1, act);
    case 3:
        return rdag__conv(x, t, c, 3, 1, c, act); /* depthwise */
    case 4:
        return rdag__add(x, LF_OP_RELU, NULL, &t, 1, c, h);
    case 5: {
        lf_attrs a = {0};
        a.clip_min = 0.0f;
        a.clip_max = 6.0f;
        return rdag__add(x, LF_OP_CLIP, &a, &t, 1, c, h);
    }
    case 6: {
        lf_attrs a = {0};
        a.kh = a.kw = 3;
        a.sh = a.sw = 1;
        a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = 1;
        return rdag__add(x, rdag__coin(x, 50) ? LF_OP_MAXPOOL : LF_OP_AVGPOOL, &a, &t, 1, c, h);
    }
    default:
        return rdag__add(x, LF_OP_BATCHNORM, NULL, &t, 1, c, h);
    }
}

/* A branch of `len` units from t; want_c > 0 makes it end with that many
 * channels at t's resolution (units never downsample then). */
static inline int rdag__branch(rdag__ctx *x, int t, int len, int want_c)
{
    for (int i = 0; i < len; i++)
        t = rdag__unit(x, t, want_c > 0 ? (i == len - 1 ? want_c : -1) : 0);
    return t;
}

/* Residual block: t -> body -> Add(t, body). The body may itself hold a
 * residual block (nesting) when the budget allows. */
static inline int rdag__residual(rdag__ctx *x, int t, int depth)
{
    /* Room for the Add and for a closing 1x1 conv when the body ends with
     * other channels than t (the nested path may end that way). */
    int c = x->c[t], budget = rdag__left(x) - 2;
    int body = t, used = 0;
    int len = 1 + rdag__pick(x, 3);
    for (int i = 0; i < len && used < budget; i++) {
        int before = x->compute;
        if (depth < 2 && budget - used >= 4 && rdag__coin(x, 35)) {
            int saved = x->limit;
            x->limit = x->compute + (budget - used);
            body = rdag__residual(x, body, depth + 1);
            x->limit = saved;
        } else {
            body = rdag__unit(x, body, i == len - 1 ? c : -1);
        }
        used += x->compute - before;
    }
    if (x->c[body] != c || x->h[body] != x->h[t])
        body = rdag__conv(x, body, c, 1, 1, 1, LF_ACT_NONE);
    int in[2] = {t, body};
    return rdag__add(x, LF_OP_ADD, NULL, in, 2, c, x->h[t]);
}

static inline int rdag__diamond(rdag__ctx *x, int t)
{
    int room = rdag__left(x) - 1, c = x->c[t];
    int la = 1 + rdag__pick(x, room >= 4 ? 2 : 1);
    int lb = 1 + rdag__pick(x, room - la >= 2 ? 2 : 1);
    int want = rdag__coin(x, 50) ? c : rdag__channels(x);
    int a = rdag__branch(x, t, la, want);
    int bb = rdag__branch(x, t, lb, want);
    int in[2] = {a, bb};
    return rdag__add(x, LF_OP_ADD, NULL, in, 2, want, x->h[t]);
}

static inline int rdag__concat(rdag__ctx *x, int t)
{
    int room = rdag__left(x) - 1;
    int nb = 2 + rdag__pick(x, room >= 4 ? (room >= 6 ? 3 : 2) : 1);
    int in[4], ctot = 0;
    for (int i = 0; i < nb; i++) {
        int len = (room - nb >= 2 && rdag__coin(x, 40)) ? 2 : 1;
        room -= len;
        in[i] = rdag__branch(x, t, len, rdag__channels(x) / 2 + 2);
        ctot += x->c[in[i]];
    }
    return rdag__add(x, LF_OP_CONCAT, NULL, in, nb, ctot, x->h[t]);
}

/* Squeeze-and-excite: the multiply waits for the pool, so the map must stay
 * resident for the whole block (invalid at a small beta on a 16x16 map). */
static inline int rdag__se(rdag__ctx *x, int t)
{
    int c = x->c[t], r = c >= 8 ? c / 4 : 2;
    int p = rdag__add(x, LF_OP_GLOBALAVGPOOL, NULL, &t, 1, c, 1);
    int f1 = rdag__conv(x, p, r, 1, 1, 1, LF_ACT_NONE);
    int a1 = rdag__add(x, LF_OP_RELU, NULL, &f1, 1, r, 1);
    int f2 = rdag__conv(x, a1, c, 1, 1, 1, LF_ACT_NONE);
    int s = rdag__add(x, LF_OP_SIGMOID, NULL, &f2, 1, c, 1);
    int in[2] = {t, s};
    return rdag__add(x, LF_OP_MUL, NULL, in, 2, c, x->h[t]);
}

static inline int rdag__block(rdag__ctx *x, int t, int family, int depth)
{
    int left = rdag__left(x);
    if (family == RDAG_MIXED)
        family = rdag__pick(x, RDAG_MIXED);
    /* Families mix in plain units so that blocks are not back to back. */
    if (family == RDAG_CHAIN || rdag__coin(x, 25))
        return rdag__unit(x, t, 0);
    switch (family) {
    case RDAG_DIAMOND:
        return left >= 3 ? rdag__diamond(x, t) : rdag__unit(x, t, 0);
    case RDAG_RESIDUAL:
        return left >= 3 ? rdag__residual(x, t, depth) : rdag__unit(x, t, 0);
    case RDAG_CONCAT:
        return left >= 3 ? rdag__concat(x, t) : rdag__unit(x, t, 0);
    case RDAG_SE:
        return left >= 6 ? rdag__se(x, t) : rdag__unit(x, t, 0);
    default:
        return rdag__unit(x, t, 0);
    }
}

static inline lf_graph *rdag_build(uint64_t seed, int family, int n_ops_approx)
{
    rdag__ctx x;
    lf_graph *g = NULL;
    char gname[64];
    if (family < 0 || family >= RDAG_FAMILIES)
        return NULL;
    if (n_ops_approx < RDAG_MIN_OPS)
        n_ops_approx = RDAG_MIN_OPS;
    if (n_ops_approx > RDAG_MAX_OPS)
        n_ops_approx = RDAG_MAX_OPS;
    snprintf(gname, sizeof gname, "rdag-%s-%llu-%d", rdag_family_names[family],
             (unsigned long long)seed, n_ops_approx);
    x.n = x.compute = x.err = 0;
    x.limit = n_ops_approx;
    lf_rng_seed(&x.rng, seed, 0x7264616700000000ull + (uint64_t)family);
    if (lf_graph_builder_create(&x.b, gname) != LF_OK)
        return NULL;
    {
        static const int hs[] = {8, 12, 16, 16};
        static const int cs[] = {3, 4, 8};
        lf_attrs a = {0};
        a.in_h = a.in_w = hs[rdag__pick(&x, 4)];
        a.in_c = cs[rdag__pick(&x, 3)];
        rdag__add(&x, LF_OP_INPUT, &a, NULL, 0, a.in_c, a.in_h);
    }
    /* A stem conv so that every family starts from a few channels. */
    int t = rdag__conv(&x, 0, rdag__channels(&x), 3, 1, 1, LF_ACT_RELU);
    /* An occasional classifier head (pool -> flatten -> gemm) leaves room. */
    int head = n_ops_approx >= 6 && rdag__coin(&x, 30) ? 3 : 0;
    x.limit = n_ops_approx - head;
    while (!x.err && x.compute < x.limit)
        t = rdag__block(&x, t, family, 0);
    if (head && !x.err) {
        x.limit = n_ops_approx;
        int p = rdag__add(&x, LF_OP_GLOBALAVGPOOL, NULL, &t, 1, x.c[t], 1);
        int f = rdag__add(&x, LF_OP_FLATTEN, NULL, &p, 1, x.c[t], 1);
        lf_attrs a = {0};
        a.out_channels = 10;
        a.has_bias = 1;
        rdag__add(&x, LF_OP_GEMM, &a, &f, 1, 10, 1);
    }
    if (!x.err && lf_graph_builder_build(x.b, &g) != LF_OK)
        g = NULL;
    lf_graph_builder_free(x.b);
    return x.err ? NULL : g;
}

#endif

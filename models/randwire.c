/* RandWire-WS, small regime (Xie et al. 2019, Table 1 and §3):
 *
 *   conv1   3x3 conv stride 2, C/2 channels, BN, ReLU         112 x 112
 *   conv2   3x3 conv stride 2, C channels, BN, ReLU            56 x 56
 *   conv3   random graph of N nodes, C channels                28 x 28
 *   conv4   random graph of N nodes, 2C channels               14 x 14
 *   conv5   random graph of N nodes, 4C channels                7 x 7
 *   classifier: 1x1 conv to 1280 channels, BN, ReLU, global average pool,
 *   fully connected to 1000 classes
 *
 * with C = 78, N = 32 and WS(K = 4, P = 0.75) as in the paper's small
 * regime. A node sums its inputs, then applies ReLU, a 3x3 separable
 * convolution (depthwise 3x3, then pointwise 1x1) and BN (folded into the
 * pointwise conv). Nodes without predecessors read the stage's input, with
 * stride 2 in their depthwise conv; the stage's output is the mean of the
 * nodes without successors. Simplifications, none of which changes the
 * graph's shape or cost class: the learnable positive weights of each sum
 * and the mean's 1/n are scalings folded into the neighbouring convs, so
 * sums are plain Adds (a chain of n - 1 for n inputs).
 *
 * The random graph follows networkx's watts_strogatz_graph (the paper's
 * generator): a ring where each node is joined to its K/2 neighbours on
 * each side; then, for each of those K/2 rounds and each node u in order,
 * the edge (u, u + j) is rewired with probability P to (u, w), w uniform
 * over nodes that are neither u nor already joined to u (skipped when u is
 * joined to every node). Edges point from the smaller node to the larger,
 * which makes a DAG. Draws come from lf_rng, so the instances are not the
 * paper's (which used numpy's generator) but are the same on every
 * platform for a seed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/builder.h"
#include "models/randwire.h"
#include "planner/util/rng.h"

#define LF__RW_MAX_NODES 128

void lf_randwire_config_default(lf_randwire_config *c)
{
    c->channels = 78;
    c->nodes = 32;
    c->k = 4;
    c->p = 0.75;
    c->seed = 1;
}

/* Watts-Strogatz adjacency (n x n, symmetric). */
static void lf__ws(uint8_t *adj, int32_t n, int32_t k, double p, uint64_t seed)
{
    lf_rng r;
    lf_rng_seed(&r, seed, 0x7a4d);
    memset(adj, 0, (size_t)n * (size_t)n);
    for (int32_t j = 1; j <= k / 2; j++)
        for (int32_t u = 0; u < n; u++) {
            int32_t v = (u + j) % n;
            adj[u * n + v] = adj[v * n + u] = 1;
        }
    for (int32_t j = 1; j <= k / 2; j++)
        for (int32_t u = 0; u < n; u++) {
            int32_t v = (u + j) % n;
            if (!lf_rng_bernoulli(&r, p))
                continue;
            int32_t deg = 0;
            for (int32_t w = 0; w < n; w++)
                deg += adj[u * n + w];
            if (deg >= n - 1 || !adj[u * n + v])
                continue;
            int32_t w;
            do
                w = (int32_t)lf_rng_below(&r, (uint32_t)n);
            while (w == u || adj[u * n + w]);
            adj[u * n + v] = adj[v * n + u] = 0;
            adj[u * n + w] = adj[w * n + u] = 1;
        }
}

/* Sum of xs (n >= 1) as a chain of Adds named <prefix>.sum<i>. */
static int32_t lf__sum(lf_mb *m, const int32_t *xs, int32_t n)
{
    int32_t acc = xs[0];
    for (int32_t i = 1; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "sum%d", (int)i);
        acc = lf_mb_add(m, name, acc, xs[i]);
    }
    return acc;
}

/* One random stage on x: out_c channels, stride 2 at its input nodes. */
static int32_t lf__stage(lf_mb *m, const char *name, int32_t x, int32_t out_c, const lf_randwire_config *c,
                         uint64_t seed)
{
    int32_t n = c->nodes;
    uint8_t *adj = malloc((size_t)n * (size_t)n);
    int32_t *out = malloc(sizeof *out * (size_t)n), *ins = malloc(sizeof *ins * (size_t)n);
    if (!adj || !out || !ins) {
        free(adj);
        free(out);
        free(ins);
        lf_mb_fail(m, LF_ENOMEM, "randwire: out of memory");
        return -1;
    }
    lf__ws(adj, n, c->k, c->p, seed);
    lf_mb_push(m, "%s", name);
    int32_t in_c = lf_mb_shape(m, x).c;
    for (int32_t v = 0; v < n; v++) {
        int32_t ni = 0;
        for (int32_t u = 0; u < v; u++)
            if (adj[u * n + v])
                ins[ni++] = out[u];
        lf_mb_push(m, "node%d", (int)v);
        int32_t first = ni == 0;
        int32_t h = first ? x : lf__sum(m, ins, ni);
        h = lf_mb_relu(m, "relu", h);
        int32_t ch = first ? in_c : out_c;
        h = lf_mb_conv(m, "dw", h, ch, 3, first ? 2 : 1, 1, ch, 1, LF_MB_NO_BIAS);
        out[v] = lf_mb_conv(m, "pw", h, out_c, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
        lf_mb_pop(m);
    }
    int32_t no = 0;
    ins[0] = out[n - 1]; /* the last node is always a sink (also tells GCC ins[0] is set) */
    for (int32_t u = 0; u < n; u++) {
        int32_t sink = 1;
        for (int32_t v = u + 1; v < n; v++)
            sink &= !adj[u * n + v];
        if (sink)
            ins[no++] = out[u];
    }
    lf_mb_push(m, "out");
    int32_t y = lf__sum(m, ins, no);
    lf_mb_pop(m);
    lf_mb_pop(m);
    free(adj);
    free(out);
    free(ins);
    return y;
}

lf_status lf_model_randwire_ws(const lf_randwire_config *c, const lf_model_options *opt, lf_graph **out)
{
    *out = NULL;
    lf_randwire_config d;
    if (!c) {
        lf_randwire_config_default(&d);
        c = &d;
    }
    if (c->channels < 2 || c->channels > 4096 || c->nodes < 2 || c->nodes > LF__RW_MAX_NODES || c->k < 2 ||
        c->k % 2 || c->k >= c->nodes || !(c->p >= 0.0 && c->p <= 1.0))
        return lf_set_error(LF_EINVAL, "randwire: C %d, N %d, K %d, P %g: need C in 2..4096, N in 2..%d, "
                                       "K even in 2..N-1, P in [0, 1]",
                            (int)c->channels, (int)c->nodes, (int)c->k, c->p, LF__RW_MAX_NODES);
    int32_t size = opt && opt->input_size ? opt->input_size : 224, batch = opt && opt->batch ? opt->batch : 1;
    if (size < 32 || size > LF_MODEL_MAX_INPUT || batch < 1 || batch > LF_MODEL_MAX_BATCH)
        return lf_set_error(LF_ERANGE, "randwire: input size %d or batch %d out of range (32 to %d, 1 to %d)",
                            (int)size, (int)batch, LF_MODEL_MAX_INPUT, LF_MODEL_MAX_BATCH);
    lf_mb mb, *m = &mb;
    lf_mb_init(m, "randwire");
    int32_t x = lf_mb_input(m, "input", batch, 3, size, size);
    lf_mb_push(m, "conv1");
    x = lf_mb_conv(m, "conv", x, c->channels / 2, 3, 2, 1, 1, 1, LF_MB_FOLDED_BN);
    x = lf_mb_relu(m, "relu", x);
    lf_mb_pop(m);
    lf_mb_push(m, "conv2");
    x = lf_mb_conv(m, "conv", x, c->channels, 3, 2, 1, 1, 1, LF_MB_FOLDED_BN);
    x = lf_mb_relu(m, "relu", x);
    lf_mb_pop(m);
    x = lf__stage(m, "conv3", x, c->channels, c, c->seed);
    x = lf__stage(m, "conv4", x, 2 * c->channels, c, c->seed + 1);
    x = lf__stage(m, "conv5", x, 4 * c->channels, c, c->seed + 2);
    lf_mb_push(m, "classifier");
    x = lf_mb_conv(m, "conv", x, 1280, 1, 1, 0, 1, 1, LF_MB_FOLDED_BN);
    x = lf_mb_relu(m, "relu", x);
    x = lf_mb_global_avgpool(m, "avgpool", x);
    x = lf_mb_flatten(m, "flatten", x);
    lf_mb_gemm(m, "fc", x, 1000, LF_MB_BIAS);
    lf_mb_pop(m);
    return lf_mb_finish(m, out);
}

lf_status lf_model_randwire(const lf_model_options *opt, lf_graph **out)
{
    return lf_model_randwire_ws(NULL, opt, out);
}

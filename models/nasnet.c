/* NasNet-A (mobile), as TASO's and OCGGS's evaluation builds it
 * (examples/nasnet_a.py of TASO): a 7x7 stride-2 stem conv and a 3x3
 * stride-2 max pool, then three stages of five normal cells and one
 * reduction cell, with 128, 256 and 512 cell channels. Cells follow that
 * script: each squeezes its current input with a 1x1 conv (+ReLU) and fits
 * the previous one to it the same way; a separable conv is a grouped k x k
 * conv (groups = out channels) and a 1x1 conv; the branch pairs are added and
 * the five sums concatenated. Graph conventions as the rest of the registry:
 * activations are separate ops, convs carry no bias (TASO's have none).
 * The script builds 377 ops (OCGGS's Table 2 says 293, which its code does
 * not reproduce); with the 37 ReLUs TASO fuses into the stem and squeeze
 * convs as ops of their own, 414 here. No classifier head (the script has
 * none). */
#include <stdio.h>

#include "models/networks.h"

/* 1x1 conv + ReLU: TASO's squeeze (conv2d, activation RELU). */
static int32_t lf__squeeze(lf_mb *m, const char *name, int32_t x, int32_t out_c)
{
    lf_mb_push(m, "%s", name);
    x = lf_mb_relu(m, "relu", lf_mb_conv(m, "conv", x, out_c, 1, 1, 0, 1, 1, LF_MB_NO_BIAS));
    lf_mb_pop(m);
    return x;
}

/* TASO's seperable_conv: grouped k x k conv (each output channel reads
 * in/out input channels), then a 1x1 conv; no activation. */
static int32_t lf__sep(lf_mb *m, const char *name, int32_t x, int32_t out_c, int32_t k, int32_t stride)
{
    lf_mb_push(m, "%s", name);
    x = lf_mb_conv(m, "dw", x, out_c, k, stride, k / 2, out_c, 1, LF_MB_NO_BIAS);
    x = lf_mb_conv(m, "pw", x, out_c, 1, 1, 0, 1, 1, LF_MB_NO_BIAS);
    lf_mb_pop(m);
    return x;
}

static int32_t lf__normal(lf_mb *m, int32_t prev, int32_t cur, int32_t c)
{
    cur = lf__squeeze(m, "squeeze", cur, c);
    prev = lf__squeeze(m, "fit", prev, c);
    int32_t t[10], o[5];
    t[0] = lf__sep(m, "sep0", cur, c, 3, 1);
    t[1] = cur;
    t[2] = lf__sep(m, "sep1", prev, c, 3, 1);
    t[3] = lf__sep(m, "sep2", cur, c, 3, 1);
    t[4] = lf_mb_avgpool(m, "avg0", cur, 3, 1, 1, 1);
    t[5] = prev;
    t[6] = lf_mb_avgpool(m, "avg1", prev, 3, 1, 1, 1);
    t[7] = lf_mb_avgpool(m, "avg2", prev, 3, 1, 1, 1);
    t[8] = lf__sep(m, "sep3", prev, c, 3, 1);
    t[9] = lf__sep(m, "sep4", prev, c, 3, 1);
    for (int i = 0; i < 5; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "add%d", i);
        o[i] = lf_mb_add(m, nm, t[2 * i], t[2 * i + 1]);
    }
    return lf_mb_concat(m, "cat", o, 5);
}

static int32_t lf__reduction(lf_mb *m, int32_t prev, int32_t cur, int32_t c)
{
    cur = lf__squeeze(m, "squeeze", cur, c);
    prev = lf__squeeze(m, "fit", prev, c);
    int32_t o[5];
    o[0] = lf_mb_add(m, "add0", lf__sep(m, "sep0", prev, c, 7, 2), lf__sep(m, "sep1", cur, c, 5, 2));
    o[1] = lf_mb_add(m, "add1", lf_mb_maxpool(m, "max0", cur, 3, 2, 1, 0), lf__sep(m, "sep2", prev, c, 7, 2));
    o[2] = lf_mb_add(m, "add2", lf_mb_avgpool(m, "avg0", cur, 3, 2, 1, 1), lf__sep(m, "sep3", prev, c, 5, 2));
    o[3] = lf_mb_add(m, "add3", lf_mb_maxpool(m, "max1", o[0], 3, 1, 1, 0), o[1]);
    o[4] = lf_mb_add(m, "add4", lf_mb_avgpool(m, "avg1", o[0], 3, 1, 1, 1), o[1]);
    return lf_mb_concat(m, "cat", o, 5);
}

lf_status lf_model_nasnet_a(const lf_model_options *opt, lf_graph **out)
{
    lf_mb mb, *m = &mb;
    int32_t size, x;
    lf_models_begin(m, "nasnet_a", opt, &size, &x);
    x = lf_mb_relu(m, "stem.relu", lf_mb_conv(m, "stem.conv", x, 64, 7, 2, 3, 1, 1, LF_MB_NO_BIAS));
    x = lf_mb_maxpool(m, "stem.pool", x, 3, 2, 1, 0);
    int32_t c = 128;
    for (int s = 0; s < 3; s++, c *= 2) {
        int32_t prev = x, cur = x;
        for (int j = 0; j < 5; j++) {
            lf_mb_push(m, "stage%d.normal%d", s, j);
            int32_t t = lf__normal(m, prev, cur, c);
            lf_mb_pop(m);
            prev = cur;
            cur = t;
        }
        lf_mb_push(m, "stage%d.reduction", s);
        x = lf__reduction(m, prev, cur, 2 * c);
        lf_mb_pop(m);
    }
    return lf_mb_finish(m, out);
}

/* Networks of MetaFlow's evaluation that the model registry lacks, built with
 * the model builder for the substitution optimizer's benchmarks: torchvision's
 * AlexNet, Inception-v3's Mixed_7b (an Inception-E block) alone on its
 * 1280 x 8 x 8 input, an SRU text classifier (MetaFlow's RNNTC) and, from
 * models/randwire.c, RandWire-WS in its small regime (DOS's and IOS's). They stay out of the registry, whose every network is
 * pinned by the planner's tests and feeds the GNN's dataset. */
#include <stdio.h>
#include <string.h>

#include "models/builder.h"
#include "models/randwire.h"
#include "search/subst/subst.h"

static const char *const lf__names[] = {"alexnet", "inception_e", "inception_e13", "sru", "randwire", NULL};

const char *const *lf_subst_network_names(void) { return lf__names; }

/* fused: one Conv with its ReLU as an attribute (MetaFlow's 13-node block). */
static int32_t lf__basic(lf_mb *m, int fused, const char *name, int32_t x, int32_t out_c, int32_t kh, int32_t kw,
                         int32_t ph, int32_t pw)
{
    lf_mb_push(m, "%s", name);
    if (fused) {
        lf_attrs a;
        memset(&a, 0, sizeof a);
        a.out_channels = out_c, a.kh = kh, a.kw = kw, a.sh = a.sw = 1;
        a.pad_top = a.pad_bottom = ph, a.pad_left = a.pad_right = pw;
        a.folded_bn = 1, a.act = LF_ACT_RELU;
        x = lf_mb_op(m, LF_OP_CONV, "conv", &a, &x, 1);
    } else {
        x = lf_mb_conv_hw(m, "conv", x, out_c, kh, kw, 1, ph, pw, LF_MB_FOLDED_BN);
        x = lf_mb_relu(m, "relu", x);
    }
    lf_mb_pop(m);
    return x;
}

/* torchvision's InceptionE (models/inception.c builds the same inside inception_v3). */
static void lf__inception_e(lf_mb *m, int32_t size, int fused)
{
    int32_t x = lf_mb_input(m, "input", 1, 1280, size, size), b[4], pair[2];
    lf_mb_push(m, "Mixed_7b");
    b[0] = lf__basic(m, fused, "branch1x1", x, 320, 1, 1, 0, 0);
    int32_t t = lf__basic(m, fused, "branch3x3_1", x, 384, 1, 1, 0, 0);
    pair[0] = lf__basic(m, fused, "branch3x3_2a", t, 384, 1, 3, 0, 1);
    pair[1] = lf__basic(m, fused, "branch3x3_2b", t, 384, 3, 1, 1, 0);
    b[1] = lf_mb_concat(m, "cat", pair, 2);
    t = lf__basic(m, fused, "branch3x3dbl_1", x, 448, 1, 1, 0, 0);
    t = lf__basic(m, fused, "branch3x3dbl_2", t, 384, 3, 3, 1, 1);
    pair[0] = lf__basic(m, fused, "branch3x3dbl_3a", t, 384, 1, 3, 0, 1);
    pair[1] = lf__basic(m, fused, "branch3x3dbl_3b", t, 384, 3, 1, 1, 0);
    b[2] = lf_mb_concat(m, "cat_1", pair, 2);
    b[3] = lf_mb_avgpool(m, "avg_pool2d", x, 3, 1, 1, 1);
    b[3] = lf__basic(m, fused, "branch_pool", b[3], 192, 1, 1, 0, 0);
    lf_mb_concat(m, "cat_2", b, 4);
    lf_mb_pop(m);
}

/* torchvision's AlexNet; its adaptive 6x6 average pool is the identity at
 * 224 and is left out (other sizes are refused). */
static void lf__alexnet(lf_mb *m, int32_t size)
{
    int32_t x = lf_mb_input(m, "input", 1, 3, size, size);
    x = lf_mb_relu(m, "features.1", lf_mb_conv(m, "features.0", x, 64, 11, 4, 2, 1, 1, LF_MB_BIAS));
    x = lf_mb_maxpool(m, "features.2", x, 3, 2, 0, 0);
    x = lf_mb_relu(m, "features.4", lf_mb_conv(m, "features.3", x, 192, 5, 1, 2, 1, 1, LF_MB_BIAS));
    x = lf_mb_maxpool(m, "features.5", x, 3, 2, 0, 0);
    x = lf_mb_relu(m, "features.7", lf_mb_conv(m, "features.6", x, 384, 3, 1, 1, 1, 1, LF_MB_BIAS));
    x = lf_mb_relu(m, "features.9", lf_mb_conv(m, "features.8", x, 256, 3, 1, 1, 1, 1, LF_MB_BIAS));
    x = lf_mb_relu(m, "features.11", lf_mb_conv(m, "features.10", x, 256, 3, 1, 1, 1, 1, LF_MB_BIAS));
    x = lf_mb_maxpool(m, "features.12", x, 3, 2, 0, 0);
    x = lf_mb_flatten(m, "flatten", x);
    x = lf_mb_relu(m, "classifier.2", lf_mb_gemm(m, "classifier.1", x, 4096, LF_MB_BIAS));
    x = lf_mb_relu(m, "classifier.5", lf_mb_gemm(m, "classifier.4", x, 4096, LF_MB_BIAS));
    lf_mb_gemm(m, "classifier.6", x, 1000, LF_MB_BIAS);
}

static int32_t lf__bin(lf_mb *m, lf_op_type t, const char *name, int32_t a, int32_t b)
{
    int32_t in[2] = {a, b};
    return lf_mb_op(m, t, name, NULL, in, 2);
}

/* MetaFlow's RNN text classifier in miniature: one SRU layer (hidden 1024)
 * unrolled over `steps` tokens, its outputs summed, a 2-class Gemm. Per token
 * x (1024 x 1 x 1): x' = W x, f = sigmoid(W_f x + b_f), r = sigmoid(W_r x +
 * b_r), c = f (c_prev - x') + x', h = r (tanh c - x) + x (the SRU equations
 * with 1 - f and 1 - r expanded, so every op reads activations only). */
static void lf__sru(lf_mb *m, int32_t steps)
{
    enum { D = 1024 };
    int32_t c = lf_mb_input(m, "c0", 1, D, 1, 1), acc = -1;
    for (int32_t t = 0; t < steps; t++) {
        char nm[16];
        snprintf(nm, sizeof nm, "x%d", (int)t);
        int32_t x = lf_mb_input(m, nm, 1, D, 1, 1);
        lf_mb_push(m, "t%d", (int)t);
        int32_t xh = lf_mb_gemm(m, "w", x, D, LF_MB_NO_BIAS);
        int32_t f = lf_mb_sigmoid(m, "f", lf_mb_gemm(m, "wf", x, D, LF_MB_BIAS));
        int32_t r = lf_mb_sigmoid(m, "r", lf_mb_gemm(m, "wr", x, D, LF_MB_BIAS));
        c = lf__bin(m, LF_OP_ADD, "c", lf__bin(m, LF_OP_MUL, "fc", f, lf__bin(m, LF_OP_SUB, "d", c, xh)), xh);
        int32_t th = lf_mb_op(m, LF_OP_TANH, "tanh", NULL, &c, 1);
        int32_t h = lf__bin(m, LF_OP_ADD, "h", lf__bin(m, LF_OP_MUL, "re", r, lf__bin(m, LF_OP_SUB, "e", th, x)), x);
        acc = acc < 0 ? h : lf__bin(m, LF_OP_ADD, "sum", acc, h);
        lf_mb_pop(m);
    }
    lf_mb_gemm(m, "classifier", acc, 2, LF_MB_BIAS);
}

lf_status lf_subst_network(const char *name, int32_t input_size, lf_graph **out)
{
    *out = NULL;
    lf_mb mb;
    if (name && strcmp(name, "alexnet") == 0) {
        if (input_size && input_size != 224)
            return lf_set_error(LF_ERANGE, "alexnet: only input size 224 (its adaptive pool is left out)");
        lf_mb_init(&mb, "alexnet");
        lf__alexnet(&mb, 224);
    } else if (name && (strcmp(name, "inception_e") == 0 || strcmp(name, "inception_e13") == 0)) {
        if (input_size < 0 || input_size > 4096)
            return lf_set_error(LF_ERANGE, "%s: input size %d out of range", name, (int)input_size);
        lf_mb_init(&mb, name);
        lf__inception_e(&mb, input_size ? input_size : 8, strcmp(name, "inception_e13") == 0);
    } else if (name && strcmp(name, "sru") == 0) {
        if (input_size < 0 || input_size > 64)
            return lf_set_error(LF_ERANGE, "sru: %d tokens out of range (1 to 64)", (int)input_size);
        lf_mb_init(&mb, "sru");
        lf__sru(&mb, input_size ? input_size : 8);
    } else if (name && strcmp(name, "randwire") == 0) {
        lf_model_options mo = {input_size, 1};
        return lf_model_randwire(NULL, &mo, out); /* WS(32, 4, 0.75), C = 78, seed 1 */
    } else {
        return lf_set_error(LF_ENOTFOUND, "unknown network '%s' (substitution benchmarks: alexnet, inception_e, sru, randwire)",
                            name ? name : "");
    }
    return lf_mb_finish(&mb, out);
}

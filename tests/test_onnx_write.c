/* ONNX export (planner/io/onnx_write*.c): built-in networks written with the
 * executor's weights re-import to the same graph (same hash, op for op) and
 * run to the same outputs; an imported conformance-style model written back
 * re-imports to its hash too; an op with no ONNX form is one error naming
 * it; nothing is left behind on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/networks.h"
#include "models/registry.h"
#include "planner/exec/exec.h"
#include "planner/io/onnx.h"
#include "planner/optable.h"
#include "testlib.h"

#define TINY LF_SOURCE_DIR "/tests/data/onnx/tiny.onnx"

static lf_graph *import(const char *path, const lf_onnx_input_shape *s)
{
    int32_t threads = 1;
    lf_onnx_options opt = {.folder = lf_exec_fold, .folder_ctx = &threads};
    if (s) {
        opt.input_shapes = s;
        opt.n_input_shapes = 1;
    }
    lf_graph *g = NULL;
    lf_status st = lf_onnx_import(path, &opt, &g, NULL);
    if (st != LF_OK)
        fprintf(stderr, "import %s: %s\n", path, lf_last_error());
    return g;
}

/* Max |a - b| / max(1, |b|) over every graph output, both run at seed 0. */
static double output_gap(const lf_graph *a, const lf_graph *b)
{
    lf_exec *ea = NULL, *eb = NULL;
    lf_exec_options eo = {.seed = 0, .threads = 1};
    double gap = INFINITY;
    if (lf_exec_create(&ea, a, &eo) != LF_OK || lf_exec_create(&eb, b, &eo) != LF_OK ||
        lf_exec_run(ea) != LF_OK || lf_exec_run(eb) != LF_OK)
        goto done;
    gap = 0;
    for (int32_t v = 0; v < a->n_ops; v++) {
        if (!a->ops[v].is_output)
            continue;
        lf_shape sa, sb;
        const float *x = lf_exec_output(ea, v, &sa), *y = lf_exec_output(eb, v, &sb);
        if (!x || !y || lf_shape_count(sa) != lf_shape_count(sb)) {
            gap = INFINITY;
            goto done;
        }
        for (int64_t i = 0; i < lf_shape_count(sa); i++) {
            double d = fabs((double)x[i] - y[i]) / fmax(1.0, fabs((double)y[i]));
            if (!(d <= gap))
                gap = isnan(d) ? INFINITY : d;
        }
    }
done:
    lf_exec_free(ea);
    lf_exec_free(eb);
    return gap;
}

static void same_graph(const lf_graph *a, const lf_graph *b, const char *what)
{
    CHECK_EQ_I64(b->n_ops, a->n_ops);
    if (a->hash != b->hash) {
        fprintf(stderr, "%s: hash %016llx re-imports as %016llx\n", what, (unsigned long long)a->hash,
                (unsigned long long)b->hash);
        for (int32_t v = 0; v < a->n_ops && v < b->n_ops; v++)
            if (strcmp(a->ops[v].name, b->ops[v].name) != 0 || a->ops[v].type != b->ops[v].type ||
                memcmp(&a->ops[v].attr, &b->ops[v].attr, sizeof a->ops[v].attr) != 0) {
                fprintf(stderr, "  first difference at op %d: %s (%s) / %s (%s)\n", (int)v, a->ops[v].name,
                        lf_op_info_of(a->ops[v].type)->name, b->ops[v].name, lf_op_info_of(b->ops[v].type)->name);
                const int32_t *x = (const int32_t *)&a->ops[v].attr, *y = (const int32_t *)&b->ops[v].attr;
                for (size_t k = 0; k < sizeof(lf_attrs) / 4; k++)
                    if (x[k] != y[k])
                        fprintf(stderr, "  attribute word %zu: %d / %d\n", k, (int)x[k], (int)y[k]);
                break;
            }
    }
    CHECK(a->hash == b->hash);
}

static void test_builtin(const char *model, int input_size)
{
    lf_model_options mo = {0};
    mo.input_size = input_size;
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build(model, &mo, &g));
    if (!g)
        return;
    char path[256];
    snprintf(path, sizeof path, "test_onnx_write_%s.onnx", model);
    CHECK_OK(lf_onnx_write_graph(path, g, 0));
    lf_graph *h = import(path, NULL);
    CHECK(h != NULL);
    if (h) {
        same_graph(g, h, model);
        double gap = output_gap(g, h);
        if (!(gap <= 1e-4))
            fprintf(stderr, "%s: outputs differ by %g\n", model, gap);
        CHECK(gap <= 1e-4);
        lf_graph_free(h);
    }
    remove(path);
    lf_graph_free(g);
}

/* A built-in transformer (issue 35) at a short sequence: MatMul of two
 * activations and by a transposed constant (Transpose marked
 * fusionplan.ir_part), causal Softmax (an Add of a mask marked likewise),
 * LayerNorm, Gelu written out; same hash and outputs after import. */
static void test_transformer(const char *model, int32_t layers, int32_t seq_len, lf_model_phase phase,
                             int32_t context)
{
    lf_model_seq_options so = {.seq_len = seq_len, .layers = layers, .phase = phase, .context = context};
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build_seq(model, NULL, &so, &g));
    if (!g)
        return;
    char path[256];
    snprintf(path, sizeof path, "test_onnx_write_%s_%d.onnx", model, (int)phase);
    CHECK_OK(lf_onnx_write_graph(path, g, 0));
    lf_graph *h = import(path, NULL);
    CHECK(h != NULL);
    if (h) {
        same_graph(g, h, model);
        double gap = output_gap(g, h);
        if (!(gap <= 1e-4))
            fprintf(stderr, "%s: outputs differ by %g\n", model, gap);
        CHECK(gap <= 1e-4);
        lf_graph_free(h);
    }
    remove(path);
    lf_graph_free(g);
}

static int32_t op2(lf_mb *m, lf_op_type t, const char *name, const lf_attrs *a, int32_t x, int32_t y)
{
    int32_t in[2] = {x, y};
    return lf_mb_op(m, t, name, a, in, 2);
}

/* Llama's block in small (models/llama.c's ops at D = 32, 4 query and 2
 * key/value heads of 8, T = 6): RMSNorm (written out at opset 17, one op
 * again on import), rotary embeddings
 * (Slice, Neg, Concat, Mul, Add on cos/sin inputs), grouped-query causal
 * attention (query heads stacked, causal Softmax of 2 stacks), SwiGLU. The
 * built-in llama3_8b itself is over ONNX's 2 GB (its LM head alone is
 * 2.1 GB), so its ops are checked here. */
static void test_llama_block(void)
{
    lf_mb mb, *m = &mb;
    CHECK_OK(lf_mb_init(m, "llama_small"));
    int32_t x = lf_mb_input(m, "inputs_embeds", 1, 1, 6, 32);
    int32_t cos = lf_mb_input(m, "rope_cos", 1, 1, 6, 8), sin = lf_mb_input(m, "rope_sin", 1, 1, 6, 8);
    lf_attrs r = {0};
    r.axes = LF_AXES(LF_DIM_W);
    lf_attrs rn = r;
    rn.epsilon = 1e-5f;
    int32_t h = op2(m, LF_OP_RMSNORM, "norm", &rn, x, lf_mb_const(m, "norm.weight", 1, 1, 1, 32));
    int32_t q = lf_tf_split_heads(m, "query", lf_tf_linear(m, "q_proj", h, 32, 0), 4);
    int32_t k = lf_tf_split_heads(m, "key", lf_tf_linear(m, "k_proj", h, 16, 0), 2);
    int32_t v = lf_tf_split_heads(m, "value", lf_tf_linear(m, "v_proj", h, 16, 0), 2);
    lf_attrs sl = {0};
    sl.axes = LF_AXES(LF_DIM_W);
    sl.slice_end = 4;
    int32_t q1 = lf_mb_op(m, LF_OP_SLICE, "rope.first_half", &sl, &q, 1);
    sl.slice_begin = 4, sl.slice_end = 8;
    int32_t q2 = lf_mb_op(m, LF_OP_SLICE, "rope.second_half", &sl, &q, 1);
    q2 = lf_mb_op(m, LF_OP_NEG, "rope.neg", NULL, &q2, 1);
    int32_t rot = op2(m, LF_OP_CONCAT, "rope.rotate_half", &r, q2, q1);
    q = op2(m, LF_OP_ADD, "rope.add", NULL, op2(m, LF_OP_MUL, "rope.mul_cos", NULL, q, cos),
            op2(m, LF_OP_MUL, "rope.mul_sin", NULL, rot, sin));
    int32_t o = lf_tf_merge_heads(m, "merge", lf_tf_attention(m, q, k, v, 1));
    int32_t gate = lf_mb_op(m, LF_OP_SILU, "mlp.act", NULL, (int32_t[]){lf_tf_linear(m, "gate", o, 48, 0)}, 1);
    o = op2(m, LF_OP_MUL, "mlp.mul", NULL, gate, lf_tf_linear(m, "up", o, 48, 0));
    lf_tf_linear(m, "down", o, 32, 0);
    lf_graph *g = NULL;
    CHECK_OK(lf_mb_finish(m, &g));
    if (!g)
        return;
    int causal = 0;
    for (int32_t u = 0; u < g->n_ops; u++)
        causal |= g->ops[u].type == LF_OP_SOFTMAX && g->ops[u].attr.causal == 2;
    CHECK(causal); /* the grouped-query form is what is checked */
    CHECK_OK(lf_onnx_write_graph("test_onnx_write_llama.onnx", g, 0));
    lf_graph *hh = import("test_onnx_write_llama.onnx", NULL);
    CHECK(hh != NULL);
    if (hh) {
        same_graph(g, hh, "llama_small");
        double gap = output_gap(g, hh);
        if (!(gap <= 1e-5))
            fprintf(stderr, "llama_small: outputs differ by %g\n", gap);
        CHECK(gap <= 1e-5);
        lf_graph_free(hh);
    }
    remove("test_onnx_write_llama.onnx");
    lf_graph_free(g);
}

/* GPT-2's ops in small (models/gpt2.c at D = 16, 2 heads, T = 6, a
 * vocabulary of 20, 8 positions): the token and position lookups (Gathers
 * by int64 id inputs), LayerNorm, the tanh Gelu, causal attention of one
 * stack, and the tied LM head, a MatMul by the transposed token table (a
 * Transpose of a constant marked trans_b) that the token lookup reads too.
 * The built-in gpt2's is 150 MB, too slow for a test under the sanitizers. */
static void test_gpt_block(void)
{
    lf_mb mb, *m = &mb;
    CHECK_OK(lf_mb_init(m, "gpt_small"));
    lf_tf_sizes z = {1, 6, 1, 0, 0};
    int32_t ids = lf_tf_ids(m, "input_ids", &z), pos = lf_tf_ids(m, "position_ids", &z), wte;
    int32_t tok = lf_tf_lookup(m, "wte", ids, 20, 16, &wte);
    int32_t x = op2(m, LF_OP_ADD, "add_positions", NULL, tok, lf_tf_lookup(m, "wpe", pos, 8, 16, NULL));
    int32_t h = lf_tf_layernorm(m, "ln_1", x);
    int32_t q = lf_tf_split_heads(m, "query", lf_tf_linear(m, "q", h, 16, 1), 2);
    int32_t k = lf_tf_split_heads(m, "key", lf_tf_linear(m, "k", h, 16, 1), 2);
    int32_t v = lf_tf_split_heads(m, "value", lf_tf_linear(m, "v", h, 16, 1), 2);
    int32_t o = lf_tf_linear(m, "c_proj", lf_tf_merge_heads(m, "merge", lf_tf_attention(m, q, k, v, 1)), 16, 1);
    x = op2(m, LF_OP_ADD, "add", NULL, o, x);
    lf_attrs ga = {0};
    ga.approximate = 1;
    h = lf_tf_linear(m, "c_fc", lf_tf_layernorm(m, "ln_2", x), 64, 1);
    h = lf_mb_op(m, LF_OP_GELU, "act", &ga, &h, 1);
    x = op2(m, LF_OP_ADD, "add_1", NULL, lf_tf_linear(m, "mlp.c_proj", h, 16, 1), x);
    lf_attrs t = {0};
    t.trans_b = 1;
    op2(m, LF_OP_MATMUL, "lm_head", &t, lf_tf_layernorm(m, "ln_f", x), wte);
    lf_graph *g = NULL;
    CHECK_OK(lf_mb_finish(m, &g));
    if (!g)
        return;
    CHECK_OK(lf_onnx_write_graph("test_onnx_write_gpt.onnx", g, 0));
    lf_graph *hh = import("test_onnx_write_gpt.onnx", NULL);
    CHECK(hh != NULL);
    if (hh) {
        same_graph(g, hh, "gpt_small");
        double gap = output_gap(g, hh);
        if (!(gap <= 1e-5))
            fprintf(stderr, "gpt_small: outputs differ by %g\n", gap);
        CHECK(gap <= 1e-5);
        lf_graph_free(hh);
    }
    remove("test_onnx_write_gpt.onnx");
    lf_graph_free(g);
}

/* An imported model (values from the file) written from its IR and read
 * again: same hash, same outputs. */
static void test_imported(const char *path, const char *shape)
{
    lf_onnx_input_shape s;
    if (shape)
        CHECK_OK(lf_onnx_parse_input_shape(shape, &s));
    lf_graph *g = import(path, shape ? &s : NULL);
    CHECK(g != NULL);
    if (!g)
        return;
    CHECK_OK(lf_onnx_write_graph("test_onnx_write_imported.onnx", g, 0));
    lf_graph *h = import("test_onnx_write_imported.onnx", NULL);
    CHECK(h != NULL);
    if (h) {
        same_graph(g, h, path);
        CHECK(output_gap(g, h) <= 1e-4);
        lf_graph_free(h);
    }
    remove("test_onnx_write_imported.onnx");
    lf_graph_free(g);
}

/* A small graph with what the big networks bring (inception_v3's nested
 * Concats and padded AveragePool, deeplab's dilated Conv and Resize) and Pad,
 * Slice, HardSwish, Flatten and Gemm, quick to write and run. */
static void test_mix(void)
{
    lf_graph_builder *b = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "mix"));
    lf_attrs in = {.batch = 1, .in_c = 4, .in_h = 8, .in_w = 8};
    lf_attrs conv = {.out_channels = 8, .kh = 3, .kw = 3, .sh = 1, .sw = 1, .dh = 2, .dw = 2, .pad_top = 2,
                     .pad_left = 2, .pad_bottom = 2, .pad_right = 2, .folded_bn = 1};
    lf_attrs rs = {.out_h = 16, .out_w = 16, .linear = 1}, none = {0};
    lf_attrs ap = {.kh = 3, .kw = 3, .sh = 1, .sw = 1, .pad_top = 1, .pad_left = 1, .pad_bottom = 1,
                   .pad_right = 1, .count_include_pad = 1};
    lf_attrs pad = {.pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .pad_value = 0.5f};
    lf_attrs sl = {.slice_begin = 0, .slice_end = 12}, mp = {.kh = 2, .kw = 2, .sh = 2, .sw = 2};
    lf_attrs fc = {.out_channels = 5, .has_bias = 1};
    const char *x[] = {"x"}, *c1[] = {"c1"}, *r[] = {"r"}, *ab[] = {"a", "s"}, *cr[] = {"cat1", "r"};
    const char *c2[] = {"cat2"}, *apn[] = {"ap"}, *pd[] = {"pd"}, *sn[] = {"sl"}, *hs[] = {"hs"}, *mpn[] = {"mp"};
    const char *g[] = {"gap"}, *fl[] = {"flat"};
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_graph_builder_add(b, LF_OP_CONV, "c1", &conv, x, 1);
    lf_graph_builder_add(b, LF_OP_RESIZE, "r", &rs, c1, 1);
    lf_graph_builder_add(b, LF_OP_RELU, "a", &none, r, 1);
    lf_graph_builder_add(b, LF_OP_SIGMOID, "s", &none, r, 1);
    lf_graph_builder_add(b, LF_OP_CONCAT, "cat1", &none, ab, 2);
    lf_graph_builder_add(b, LF_OP_CONCAT, "cat2", &none, cr, 2);
    lf_graph_builder_add(b, LF_OP_AVGPOOL, "ap", &ap, c2, 1);
    lf_graph_builder_add(b, LF_OP_PAD, "pd", &pad, apn, 1);
    lf_graph_builder_add(b, LF_OP_SLICE, "sl", &sl, pd, 1);
    lf_graph_builder_add(b, LF_OP_HARDSWISH, "hs", &none, sn, 1);
    lf_graph_builder_add(b, LF_OP_MAXPOOL, "mp", &mp, hs, 1);
    lf_graph_builder_add(b, LF_OP_GLOBALAVGPOOL, "gap", &none, mpn, 1);
    lf_graph_builder_add(b, LF_OP_FLATTEN, "flat", &none, g, 1);
    lf_graph_builder_add(b, LF_OP_GEMM, "fc", &fc, fl, 1);
    lf_graph *gr = NULL;
    CHECK_OK(lf_graph_builder_build(b, &gr));
    lf_graph_builder_free(b);
    if (!gr)
        return;
    CHECK_OK(lf_onnx_write_graph("test_onnx_write_mix.onnx", gr, 3));
    lf_graph *h = import("test_onnx_write_mix.onnx", NULL);
    CHECK(h != NULL);
    if (h) {
        same_graph(gr, h, "mix");
        /* seed 3 wrote the weights; the original runs with seed 0 unless told */
        lf_exec *ea = NULL;
        lf_exec_options eo = {.seed = 3, .threads = 1};
        CHECK_OK(lf_exec_create(&ea, gr, &eo));
        const float *w = ea ? lf_exec_const_values(ea, 0) : NULL;
        const lf_const *c0 = lf_op_const(h, 1, 1);
        CHECK(w && c0 && c0->data && memcmp(w, c0->data, (size_t)lf_const_elems(c0) * sizeof *w) == 0);
        lf_exec_free(ea);
        lf_graph_free(h);
    }
    remove("test_onnx_write_mix.onnx");
    lf_graph_free(gr);
}

static void test_unsupported(void)
{
    /* A Softmax over two dims has no ONNX form (ONNX's is over one axis). */
    lf_graph_builder *b = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "mm"));
    lf_attrs in = {.batch = 1, .in_c = 1, .in_h = 4, .in_w = 4};
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_attrs sm = {0};
    sm.axes = LF_AXES(LF_DIM_H) | LF_AXES(LF_DIM_W);
    const char *ops[1] = {"x"};
    lf_graph_builder_add_op(b, LF_OP_SOFTMAX, "scores", &sm, ops, 1);
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    if (!g)
        return;
    remove("test_onnx_write_mm.onnx");
    CHECK(lf_onnx_write_graph("test_onnx_write_mm.onnx", g, 0) == LF_EUNSUPPORTED);
    CHECK(strstr(lf_last_error(), "'scores'") != NULL);
    CHECK(access("test_onnx_write_mm.onnx", F_OK) != 0);
    lf_graph_free(g);
}

int main(void)
{
    /* small inputs keep the runs quick; the ops are the same (resnet18 and the
     * rest at full size: tests/cli/onnx_export.sh, docs/RESULTS.md) */
    test_builtin("mobilenet_v2", 64);
    test_builtin("mobilenet_v3_small", 64);
    test_builtin("squeezenet1_1", 64);
    test_builtin("efficientnet_b0", 64);
    test_mix();
    test_imported(TINY, "x=2,3,16,16");
    /* ChannelShuffle (Reshape-Transpose-Reshape), Gather as Slice, Split */
    test_imported(LF_SOURCE_DIR "/tests/data/onnx/conformance/channel_shuffle/model.onnx", NULL);
    test_imported(LF_SOURCE_DIR "/tests/data/onnx/conformance/gather_one/model.onnx", NULL);
    test_imported(LF_SOURCE_DIR "/tests/data/onnx/conformance/split_consumed/model.onnx", NULL);
    test_unsupported();
    test_transformer("vit_b_16", 1, 0, LF_PHASE_PREFILL, 0);
    test_transformer("bert_base", 1, 8, LF_PHASE_PREFILL, 0);
    test_gpt_block(); /* the built-in gpt2 has the same ops (150 MB at one layer) */
    test_llama_block();
    return lf_test_result();
}

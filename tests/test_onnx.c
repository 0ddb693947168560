/* ONNX import (planner/io/onnx_*.c) as a library: the crafted fixture
 * tests/data/onnx/tiny.onnx imports with every normalisation and its report,
 * switches turn them off, tensor files round-trip, ONNX's own test tensors
 * read with their shapes, and every truncation or single-byte corruption of
 * a valid model gives a status (never a crash; run under ASan/UBSan in CI). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx.h"
#include "planner/optable.h"
#include "planner/util/fileio.h"
#include "testlib.h"

#define TINY LF_SOURCE_DIR "/tests/data/onnx/tiny.onnx"

static int count_type(const lf_graph *g, lf_op_type t)
{
    int n = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        n += g->ops[v].type == t;
    return n;
}

static void test_tiny(void)
{
    lf_onnx_input_shape s;
    CHECK_OK(lf_onnx_parse_input_shape("x=2,3,16,16", &s));
    CHECK_STR(s.name, "x");
    CHECK_EQ_I64(s.rank, 4);
    lf_onnx_options opt = {.input_shapes = &s, .n_input_shapes = 1};
    lf_graph *g = NULL;
    lf_onnx_report *rep = NULL;
    CHECK_OK(lf_onnx_import(TINY, &opt, &g, &rep));
    if (!g)
        return;
    /* input, conv1(+bn), relu, hardswish, conv2(+pad), silu, concat(3), gap, flatten, fc */
    CHECK_EQ_I64(g->n_ops, 10);
    CHECK_EQ_I64(count_type(g, LF_OP_BATCHNORM), 0);
    CHECK_EQ_I64(count_type(g, LF_OP_HARDSWISH), 1);
    CHECK_EQ_I64(count_type(g, LF_OP_SILU), 1);
    CHECK_EQ_I64(count_type(g, LF_OP_PAD), 0);
    CHECK_EQ_I64(count_type(g, LF_OP_CONCAT), 1);
    int32_t cat = lf_graph_find(g, "cat_outer"), conv1 = lf_graph_find(g, "conv1"), conv2 = lf_graph_find(g, "conv2");
    CHECK(cat >= 0 && conv1 >= 0 && conv2 >= 0);
    if (cat >= 0) {
        CHECK_EQ_I64(g->ops[cat].n_inputs, 3); /* (silu, hardswish), silu flattened */
        CHECK_EQ_I64(g->ops[cat].out.c, 24);
        CHECK_EQ_I64(g->ops[cat].out.n, 2);
    }
    if (conv1 >= 0) {
        CHECK_EQ_I64(g->ops[conv1].attr.folded_bn, 1);
        CHECK_EQ_I64(g->ops[conv1].weight_elems, 8 * 3 * 9 + 8);
        CHECK_EQ_I64(g->ops[conv1].param_count, 8 * 3 * 9 + 2 * 8);
    }
    if (conv2 >= 0) { /* the Pad's [1,1,1,1] moved into the conv: 16x16 stays 16x16 */
        CHECK_EQ_I64(g->ops[conv2].attr.pad_top, 1);
        CHECK_EQ_I64(g->ops[conv2].attr.pad_right, 1);
        CHECK_EQ_I64(g->ops[conv2].out.h, 16);
        CHECK_EQ_I64(g->ops[conv2].macs, 2LL * 8 * 16 * 16 * 8 * 9);
    }
    CHECK_EQ_I64(lf_onnx_report_count(rep, LF_ONNX_FOLD_BN), 1);
    CHECK_EQ_I64(lf_onnx_report_count(rep, LF_ONNX_FOLD_CONSTANTS), 4);
    CHECK_EQ_I64(lf_onnx_report_count(rep, LF_ONNX_RESHAPE_FLATTEN), 1);
    CHECK_EQ_I64(lf_onnx_report_opset(rep), 13);
    CHECK_EQ_I64(lf_onnx_report_nodes(rep), 19);
    lf_graph_free(g);
    lf_onnx_report_free(rep);

    /* Every normalisation off: the ops they remove stay. */
    opt.disable = (1u << LF_ONNX_FOLD_BN) | (1u << LF_ONNX_HARDSWISH) | (1u << LF_ONNX_SILU) |
                  (1u << LF_ONNX_FOLD_PAD) | (1u << LF_ONNX_FLATTEN_CONCAT);
    CHECK_OK(lf_onnx_import(TINY, &opt, &g, NULL));
    if (g) {
        CHECK_EQ_I64(count_type(g, LF_OP_BATCHNORM), 1);
        CHECK_EQ_I64(count_type(g, LF_OP_HARDSIGMOID), 1);
        CHECK_EQ_I64(count_type(g, LF_OP_SIGMOID), 1);
        CHECK_EQ_I64(count_type(g, LF_OP_PAD), 1);
        CHECK_EQ_I64(count_type(g, LF_OP_CONCAT), 2);
        lf_graph_free(g);
    }
    CHECK(lf_onnx_import(TINY, NULL, &g, NULL) == LF_EGRAPH); /* free 'batch' dim */
    CHECK(strstr(lf_last_error(), "free dimension 0 ('batch')") != NULL);
}

static void test_tensors(void)
{
    char path[] = "/tmp/lf_test_onnx_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    float vals[6] = {1.5f, -2.0f, 0.0f, 3.25f, 1e-7f, -1e9f};
    lf_onnx_tensor t = {.name = "t", .rank = 2, .dims = {2, 3}, .count = 6, .data = vals}, r;
    CHECK_OK(lf_onnx_write_tensor(path, &t));
    CHECK_OK(lf_onnx_read_tensor(path, &r));
    CHECK_STR(r.name, "t");
    CHECK_EQ_I64(r.rank, 2);
    CHECK_EQ_I64(r.dims[1], 3);
    CHECK(r.data && memcmp(r.data, vals, sizeof vals) == 0);
    lf_onnx_tensor_free(&r);
    remove(path);
    /* ONNX's own test data (libonnx-testdata), when installed: test_relu's input is 3x4x5. */
    const char *relu = "/usr/share/libonnx-testdata/data/node/test_relu/test_data_set_0/input_0.pb";
    FILE *f = fopen(relu, "rb");
    if (f) {
        fclose(f);
        CHECK_OK(lf_onnx_read_tensor(relu, &r));
        CHECK_EQ_I64(r.rank, 3);
        CHECK_EQ_I64(r.count, 60);
        lf_onnx_tensor_free(&r);
    }
    CHECK(lf_onnx_read_tensor(LF_SOURCE_DIR "/tests/data/onnx/corrupt.onnx", &r) != LF_OK);
}

static void test_damage(void)
{
    char *data = NULL;
    long len = 0;
    CHECK_OK(lf_read_file(TINY, &data, &len));
    if (!data)
        return;
    lf_onnx_input_shape s = {.name = "x", .rank = 4, .dims = {1, 3, 16, 16}};
    lf_onnx_options opt = {.input_shapes = &s, .n_input_shapes = 1};
    int ok = 0;
    for (long cut = 0; cut < len; cut++) {
        lf_graph *g = NULL;
        if (lf_onnx_import_memory(data, (size_t)cut, "cut.onnx", &opt, &g, NULL) == LF_OK) {
            ok++; /* a prefix that ends on a field boundary can be a valid smaller model */
            lf_graph_free(g);
        } else {
            CHECK(g == NULL);
        }
    }
    CHECK(ok < len / 10);
    for (long k = 0; k < len; k++) {
        data[k] ^= 0x5A;
        lf_graph *g = NULL;
        if (lf_onnx_import_memory(data, (size_t)len, "flip.onnx", &opt, &g, NULL) == LF_OK)
            lf_graph_free(g);
        data[k] ^= 0x5A;
    }
    free(data);
}

int main(void)
{
    test_tiny();
    test_tensors();
    test_damage();
    return lf_test_result();
}

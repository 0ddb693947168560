/* Graph IR: building, topological order, validation errors, shapes, weights,
 * MACs, consumers, hash and JSON dump. */
#include <stdlib.h>
#include <string.h>

#include "planner/graph.h"
#include "planner/optable.h"
#include "testlib.h"
#include "planner/io/graph_json.h"

static lf_attrs conv_attrs(int out_c, int k, int s, int p, int groups)
{
    lf_attrs a = {0};
    a.out_channels = out_c;
    a.kh = a.kw = k;
    a.sh = a.sw = s;
    a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = p;
    a.groups = groups;
    return a;
}

static lf_attrs input_attrs(int c, int h, int w)
{
    lf_attrs a = {0};
    a.in_c = c;
    a.in_h = h;
    a.in_w = w;
    return a;
}

/* x -> conv1 (3x3, 64) -> relu -> conv2 (3x3) -> add(x): added out of order. */
static lf_status build_block(lf_graph **g)
{
    lf_graph_builder *b;
    lf_status st = lf_graph_builder_create(&b, "block");
    if (st)
        return st;
    lf_attrs in = input_attrs(64, 56, 56), c = conv_attrs(64, 3, 1, 1, 1);
    const char *add_in[] = {"conv2", "x"}, *c2_in[] = {"relu"}, *r_in[] = {"conv1"}, *c1_in[] = {"x"};
    lf_graph_builder_add(b, LF_OP_ADD, "add", NULL, add_in, 2);
    lf_graph_builder_add(b, LF_OP_CONV, "conv2", &c, c2_in, 1);
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_graph_builder_add(b, LF_OP_RELU, "relu", NULL, r_in, 1);
    lf_graph_builder_add(b, LF_OP_CONV, "conv1", &c, c1_in, 1);
    st = lf_graph_builder_build(b, g);
    lf_graph_builder_free(b);
    return st;
}

static void test_block(void)
{
    lf_graph *g = NULL;
    CHECK_OK(build_block(&g));
    if (!g)
        return;
    CHECK_EQ_I64(g->n_ops, 5);
    const char *order[] = {"x", "conv1", "relu", "conv2", "add"};
    for (int i = 0; i < 5; i++)
        CHECK_STR(g->ops[i].name, order[i]);
    for (int i = 0; i < g->n_ops; i++)
        for (int j = 0; j < g->ops[i].n_inputs; j++)
            CHECK(g->ops[i].inputs[j] < i);
    CHECK_EQ_I64(g->ops[0].n_consumers, 2); /* conv1 and add */
    CHECK_EQ_I64(g->ops[0].consumers[0], 1);
    CHECK_EQ_I64(g->ops[0].consumers[1], 4);
    CHECK_EQ_I64(g->ops[1].weight_elems, 64 * 64 * 9);
    CHECK_EQ_I64(g->ops[1].macs, 64LL * 56 * 56 * 64 * 9);
    CHECK_EQ_I64(g->ops[4].out.c, 64);
    CHECK_EQ_I64(g->ops[4].out.h, 56);
    CHECK(g->ops[4].is_output);
    CHECK(!g->ops[3].is_output);
    CHECK_EQ_I64(lf_tensor_bytes(g, 0, 1), 200704);
    CHECK_EQ_I64(lf_graph_compute_ops(g), 4);
    CHECK_EQ_I64(lf_graph_find(g, "relu"), 2);
    CHECK_EQ_I64(lf_graph_find(g, "nope"), -1);
    lf_graph *g2 = NULL;
    CHECK_OK(build_block(&g2));
    if (g2)
        CHECK(g->hash == g2->hash);
    lf_graph_free(g2);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_OK(lf_graph_write_json(g, f));
    fclose(f);
    CHECK(strstr(buf, "\"name\": \"conv1\", \"type\": \"Conv\", \"inputs\": [0]") != NULL);
    CHECK(strstr(buf, "\"shape\": [1, 64, 56, 56]") != NULL);
    free(buf);
    lf_graph_free(g);
}

/* Expects building to fail with status st and a message containing needle. */
static void expect_fail(lf_graph_builder *b, lf_status st, const char *needle)
{
    lf_graph *g = NULL;
    lf_status got = lf_graph_builder_build(b, &g);
    CHECK_EQ_I64(got, st);
    CHECK(g == NULL);
    if (!strstr(lf_last_error(), needle)) {
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", lf_last_error(), needle);
        CHECK(0);
    }
    lf_graph_builder_free(b);
}

static void test_errors(void)
{
    lf_graph_builder *b;
    lf_attrs in = input_attrs(3, 32, 32), c = conv_attrs(8, 3, 1, 1, 1);
    const char *x[] = {"x"}, *a[] = {"a"}, *bb[] = {"b"}, *missing[] = {"ghost"};

    lf_graph_builder_create(&b, "dangling");
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_graph_builder_add(b, LF_OP_RELU, "r", NULL, missing, 1);
    expect_fail(b, LF_EGRAPH, "op 'r' reads 'ghost', which no op produces");

    lf_graph_builder_create(&b, "cyclic");
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    const char *ab[] = {"x", "b"};
    lf_graph_builder_add(b, LF_OP_ADD, "a", NULL, ab, 2);
    lf_graph_builder_add(b, LF_OP_RELU, "b", NULL, a, 1);
    lf_graph_builder_add(b, LF_OP_RELU, "c", NULL, bb, 1);
    expect_fail(b, LF_EGRAPH, "cycle");

    lf_graph_builder_create(&b, "mismatch");
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_attrs s2 = conv_attrs(3, 3, 2, 1, 1);
    lf_graph_builder_add(b, LF_OP_CONV, "down", &s2, x, 1);
    const char *xd[] = {"x", "down"};
    lf_graph_builder_add(b, LF_OP_ADD, "sum", NULL, xd, 2);
    expect_fail(b, LF_EGRAPH, "op 'sum' (Add): operand 1 shape 3x16x16 does not match 3x32x32");

    lf_graph_builder_create(&b, "groups");
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_attrs g2 = conv_attrs(8, 3, 1, 1, 2);
    lf_graph_builder_add(b, LF_OP_CONV, "gconv", &g2, x, 1);
    expect_fail(b, LF_EGRAPH, "not divisible by groups 2");

    lf_graph_builder_create(&b, "dup");
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_graph_builder_add(b, LF_OP_CONV, "x", &c, x, 1);
    expect_fail(b, LF_EGRAPH, "two ops are named 'x'");

    lf_graph_builder_create(&b, "empty");
    expect_fail(b, LF_EGRAPH, "no ops");
}

static void test_shapes(void)
{
    lf_shape in[2] = {{1, 32, 113, 113}, {1, 32, 1, 1}}, out;
    char err[200];
    lf_attrs mp = {0};
    mp.kh = mp.kw = 3;
    mp.sh = mp.sw = 2;
    mp.ceil_mode = 1;
    /* torchvision squeezenet: 111 -> ceil((111-3)/2)+1 = 55; 113 -> 56. */
    CHECK_OK(lf_op_infer(LF_OP_MAXPOOL, &mp, in, 1, &out, err, sizeof err));
    CHECK_EQ_I64(out.h, 56);
    lf_shape s111 = {1, 96, 111, 111};
    CHECK_OK(lf_op_infer(LF_OP_MAXPOOL, &mp, &s111, 1, &out, err, sizeof err));
    CHECK_EQ_I64(out.h, 55);
    mp.ceil_mode = 0;
    CHECK_OK(lf_op_infer(LF_OP_MAXPOOL, &mp, &s111, 1, &out, err, sizeof err));
    CHECK_EQ_I64(out.h, 55);
    CHECK_OK(lf_op_infer(LF_OP_MUL, &mp, in, 2, &out, err, sizeof err));
    CHECK_EQ_I64(out.h, 113);
    lf_attrs dw = conv_attrs(32, 3, 2, 1, 32);
    CHECK_OK(lf_op_infer(LF_OP_CONV, &dw, in, 1, &out, err, sizeof err));
    CHECK_EQ_I64(out.h, 57);
    int64_t we, pc;
    lf_attrs dwf = dw;
    dwf.folded_bn = 1;
    lf_op_weights(LF_OP_CONV, &dwf, in, 1, &out, &we, &pc);
    CHECK_EQ_I64(we, 32 * 9 + 32);
    CHECK_EQ_I64(pc, 32 * 9 + 64);
    lf_attrs rs = {0};
    rs.shape_c = -1;
    rs.shape_h = 1;
    rs.shape_w = 1;
    CHECK_OK(lf_op_infer(LF_OP_RESHAPE, &rs, in, 1, &out, err, sizeof err));
    CHECK_EQ_I64(out.c, 32 * 113 * 113);
    CHECK_EQ_I64(lf_op_type_from_name("BatchNormalization"), LF_OP_BATCHNORM);
    CHECK_EQ_I64(lf_op_type_from_name("Frobnicate"), LF_OP_TYPE_COUNT);
}

int main(void)
{
    test_block();
    test_errors();
    test_shapes();
    return lf_test_result();
}

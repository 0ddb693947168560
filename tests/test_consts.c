/* Constants as values (issue 11, DESIGN §10): weights implied by attributes
 * equal weights given as constants (same graph, same hash), constant values
 * are copied or adopted and come back unchanged, operands keep ONNX order,
 * constant-only ops fold (views natively, others through the registered
 * evaluator, shape-only through shape inference), unused constants are
 * dropped, and every misuse is one clear error naming the op. */
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/graph.h"
#include "planner/optable.h"
#include "testlib.h"
#include "planner/io/graph_json.h"

static lf_attrs input_attrs(int c, int h, int w)
{
    lf_attrs a = {0};
    a.in_c = c;
    a.in_h = h;
    a.in_w = w;
    return a;
}

static lf_attrs conv_attrs(int out_c, int k, int bias)
{
    lf_attrs a = {0};
    a.out_channels = out_c;
    a.kh = a.kw = k;
    a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = k / 2;
    a.has_bias = bias;
    return a;
}

/* x -> conv (3x3, 8, bias) -> bn -> relu, weights implied or explicit. */
static lf_graph *conv_bn_relu(int explicit_weights)
{
    lf_graph_builder *b = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "cbr"));
    lf_attrs in = input_attrs(4, 6, 6), c = conv_attrs(8, 3, 1);
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    if (explicit_weights) {
        CHECK(lf_graph_builder_add_const(b, "conv.weight", (lf_shape){8, 4, 3, 3}, NULL) >= 0);
        CHECK(lf_graph_builder_add_const(b, "conv.bias", (lf_shape){1, 8, 1, 1}, NULL) >= 0);
        CHECK(lf_graph_builder_add_const(b, "bn.scale", (lf_shape){1, 8, 1, 1}, NULL) >= 0);
        CHECK(lf_graph_builder_add_const(b, "bn.shift", (lf_shape){1, 8, 1, 1}, NULL) >= 0);
        const char *cv[] = {"x", "conv.weight", "conv.bias"}, *bn[] = {"conv", "bn.scale", "bn.shift"};
        CHECK(lf_graph_builder_add_op(b, LF_OP_CONV, "conv", &c, cv, 3) >= 0);
        CHECK(lf_graph_builder_add_op(b, LF_OP_BATCHNORM, "bn", NULL, bn, 3) >= 0);
    } else {
        const char *cv[] = {"x"}, *bn[] = {"conv"};
        lf_graph_builder_add(b, LF_OP_CONV, "conv", &c, cv, 1);
        lf_graph_builder_add(b, LF_OP_BATCHNORM, "bn", NULL, bn, 1);
    }
    const char *r[] = {"bn"};
    lf_graph_builder_add(b, LF_OP_RELU, "relu", NULL, r, 1);
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    return g;
}

static void test_implied_equals_explicit(void)
{
    lf_graph *a = conv_bn_relu(0), *b = conv_bn_relu(1);
    CHECK(a && b);
    if (!a || !b)
        goto done;
    CHECK(a->hash == b->hash);
    CHECK_EQ_I64(a->n_consts, 4);
    CHECK_EQ_I64(b->n_consts, 4);
    for (int32_t i = 0; i < a->n_consts && i < b->n_consts; i++) {
        CHECK_STR(a->consts[i].name, b->consts[i].name);
        CHECK(a->consts[i].data == NULL);
        CHECK_EQ_I64(lf_const_elems(&a->consts[i]), lf_const_elems(&b->consts[i]));
    }
    CHECK_STR(a->consts[0].name, "conv.weight");
    CHECK_STR(a->consts[3].name, "bn.shift");
    const lf_op *conv = &a->ops[1];
    CHECK_EQ_I64(conv->n_operands, 3);
    CHECK_EQ_I64(conv->operands[0].kind, LF_OPND_TENSOR);
    CHECK_EQ_I64(conv->operands[0].id, 0);
    CHECK_EQ_I64(conv->operands[1].kind, LF_OPND_CONST);
    CHECK_EQ_I64(conv->n_inputs, 1);
    CHECK_EQ_I64(conv->weight_elems, 8 * 4 * 9 + 8);
    CHECK_EQ_I64(a->ops[2].weight_elems, 16);
    CHECK(lf_op_const(a, 1, 0) == NULL);
    CHECK(lf_op_const(a, 1, 1) == &a->consts[0]);
    CHECK(lf_op_const(a, 1, 3) == NULL);
    CHECK_EQ_I64(lf_graph_find_const(a, "bn.scale"), 2);
    CHECK_EQ_I64(lf_graph_find_const(a, "relu"), -1);
    CHECK_EQ_I64(lf_graph_params(a), lf_graph_params(b));
    CHECK_EQ_I64(lf_graph_params(a), 8 * 36 + 8 + 16);
done:
    lf_graph_free(a);
    lf_graph_free(b);
}

/* Every built-in network: weight elements equal the bytes of constant
 * operands, every Conv/Gemm has its weights as constants, no values (but
 * scalars). */
static void test_builtin_constants(void)
{
    int32_t n = 0;
    const lf_model_entry *e = lf_models(&n);
    for (int32_t i = 0; i < n; i++) {
        lf_graph *g = NULL;
        lf_model_options opt = {0, 1};
        CHECK_OK(lf_model_build(e[i].name, &opt, &g));
        if (!g)
            continue;
        int64_t from_consts = 0, from_ops = 0;
        /* A constant several ops read (GPT-2's token table, tied to its LM
         * head) counts once, at its first reader. */
        uint8_t *read = calloc((size_t)g->n_consts + 1, 1);
        CHECK(read != NULL);
        for (int32_t c = 0; c < g->n_consts; c++) {
            from_consts += lf_const_elems(&g->consts[c]);
            /* shape only, but for the scalars a transformer computes with
             * (an exponent, an epsilon), which must not be drawn */
            CHECK(g->consts[c].data == NULL || lf_const_elems(&g->consts[c]) == 1);
        }
        for (int32_t v = 0; v < g->n_ops; v++) {
            const lf_op *op = &g->ops[v];
            from_ops += op->weight_elems;
            for (int32_t k = 0; read && k < op->n_operands; k++) {
                const lf_operand *o = &op->operands[k];
                if (o->kind != LF_OPND_CONST)
                    continue;
                if (read[o->id])
                    from_ops -= lf_const_elems(&g->consts[o->id]);
                read[o->id] = 1;
            }
            if (op->type == LF_OP_CONV || op->type == LF_OP_GEMM) {
                const lf_const *w = lf_op_const(g, v, 1);
                CHECK(w != NULL);
                if (w) {
                    CHECK(strstr(w->name, op->name) == w->name);
                    CHECK(strcmp(w->name + strlen(op->name), ".weight") == 0);
                }
            }
        }
        CHECK_EQ_I64(from_consts, from_ops);
        CHECK_EQ_I64(g->n_folded, 0);
        free(read);
        lf_graph_free(g);
    }
}

static void test_values(void)
{
    lf_graph_builder *b = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "vals"));
    lf_attrs in = input_attrs(2, 1, 1);
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    float bias[2] = {1.5f, -2.0f};
    CHECK_EQ_I64(lf_graph_builder_add_const(b, "bias", (lf_shape){1, 2, 1, 1}, bias), 0);
    bias[0] = 99.0f; /* copied: the graph keeps 1.5 */
    float *scale = malloc(2 * sizeof(float));
    scale[0] = 3.0f;
    scale[1] = 4.0f;
    CHECK_EQ_I64(lf_graph_builder_add_const_owned(b, "scale", (lf_shape){1, 2, 1, 1}, scale), 1);
    CHECK(lf_graph_builder_add_const(b, "unused", (lf_shape){1, 1, 1, 1}, bias) >= 0);
    /* Mul(scale, x): a constant first operand keeps its position */
    const char *mul[] = {"scale", "x"}, *add[] = {"mul", "bias"};
    CHECK(lf_graph_builder_add_op(b, LF_OP_MUL, "mul", NULL, mul, 2) >= 0);
    CHECK(lf_graph_builder_add_op(b, LF_OP_ADD, "add", NULL, add, 2) >= 0);
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    /* a builder builds once: its values moved into the graph */
    lf_graph *again = (lf_graph *)1;
    CHECK_EQ_I64(lf_graph_builder_build(b, &again), LF_EINVAL);
    CHECK(again == NULL);
    lf_graph_builder_free(b);
    if (!g)
        return;
    CHECK_EQ_I64(g->n_consts, 2); /* "unused" dropped; order of first use */
    CHECK_STR(g->consts[0].name, "scale");
    CHECK_STR(g->consts[1].name, "bias");
    CHECK(g->consts[0].data && g->consts[0].data[1] == 4.0f);
    CHECK(g->consts[1].data && g->consts[1].data[0] == 1.5f);
    const lf_op *m = &g->ops[1];
    CHECK_EQ_I64(m->n_operands, 2);
    CHECK_EQ_I64(m->operands[0].kind, LF_OPND_CONST);
    CHECK_EQ_I64(m->operands[1].kind, LF_OPND_TENSOR);
    CHECK_EQ_I64(m->n_inputs, 1);
    CHECK_EQ_I64(m->inputs[0], 0);
    CHECK_EQ_I64(m->weight_elems, 2);
    CHECK_EQ_I64(g->ops[2].weight_elems, 2);
    CHECK_EQ_I64(lf_graph_params(g), 4);
    /* JSON lists the operands and the constants */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_OK(lf_graph_write_json(g, f));
    fclose(f);
    CHECK(strstr(buf, "\"operands\": [{\"const\": 0}, {\"op\": 0}]") != NULL);
    CHECK(strstr(buf, "{\"id\": 1, \"name\": \"bias\", \"shape\": [1, 2, 1, 1], \"values\": true}") != NULL);
    free(buf);
    lf_graph_free(g);
}

/* Constants inside one adopted buffer (the ONNX importer's weight block):
 * the graph frees the buffer once, never a constant on its own; a builder
 * freed unbuilt frees it too; a refused constant does not free it (ASan and
 * the leak checker see any slip). */
static void test_adopted_block(void)
{
    lf_graph_builder *b = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "block"));
    lf_attrs in = input_attrs(2, 1, 1);
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    float *block = malloc(8 * sizeof(float));
    for (int k = 0; k < 8; k++)
        block[k] = (float)k + 0.5f;
    CHECK_OK(lf_graph_builder_adopt(b, block));
    CHECK_EQ_I64(lf_graph_builder_add_const_in(b, "scale", (lf_shape){1, 2, 1, 1}, block), 0);
    CHECK_EQ_I64(lf_graph_builder_add_const_in(b, "bias", (lf_shape){1, 2, 1, 1}, block + 4), 1);
    CHECK(lf_graph_builder_add_const_in(b, "unused", (lf_shape){1, 2, 1, 1}, block + 6) >= 0);
    CHECK_EQ_I64(lf_graph_builder_add_const_in(b, "bad", (lf_shape){1, -1, 1, 1}, block + 2), LF_ERANGE);
    float *own = malloc(2 * sizeof(float)); /* an owned constant beside them */
    own[0] = 7.0f;
    own[1] = 8.0f;
    CHECK_EQ_I64(lf_graph_builder_add_const_owned(b, "own", (lf_shape){1, 2, 1, 1}, own), 3);
    const char *mul[] = {"scale", "x"}, *add[] = {"mul", "bias"}, *add2[] = {"add", "own"};
    CHECK(lf_graph_builder_add_op(b, LF_OP_MUL, "mul", NULL, mul, 2) >= 0);
    CHECK(lf_graph_builder_add_op(b, LF_OP_ADD, "add", NULL, add, 2) >= 0);
    CHECK(lf_graph_builder_add_op(b, LF_OP_ADD, "add2", NULL, add2, 2) >= 0);
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    if (g) {
        CHECK_EQ_I64(g->n_consts, 3);
        CHECK(g->consts[0].data == block && g->consts[0].data[1] == 1.5f);
        CHECK(g->consts[1].data == block + 4 && g->consts[1].data[0] == 4.5f);
        CHECK(g->consts[2].data == own);
        lf_graph_free(g); /* frees block and own, once each */
    }
    CHECK_OK(lf_graph_builder_create(&b, "unbuilt"));
    block = malloc(4 * sizeof(float));
    CHECK_OK(lf_graph_builder_adopt(b, block));
    CHECK(lf_graph_builder_add_const_in(b, "k", (lf_shape){1, 4, 1, 1}, block) >= 0);
    lf_graph_builder_free(b); /* frees block */
}

/* A toy evaluator that knows Neg and Transpose (the executor's job). */
static int fold_calls;
static lf_status toy_fold(void *ctx, const lf_fold_request *rq)
{
    (void)ctx;
    fold_calls++;
    int64_t n = rq->out_shape.n * rq->out_shape.c * rq->out_shape.h * rq->out_shape.w;
    if (rq->type == LF_OP_NEG) {
        for (int64_t i = 0; i < n; i++)
            rq->out[i] = -rq->data[0][i];
        return LF_OK;
    }
    if (rq->type == LF_OP_TRANSPOSE && rq->shapes[0].n == 1 && rq->shapes[0].c == 1 &&
        rq->attrs->perm[2] == LF_DIM_W && rq->attrs->perm[3] == LF_DIM_H) {
        int64_t h = rq->shapes[0].h, w = rq->shapes[0].w;
        for (int64_t i = 0; i < h; i++)
            for (int64_t j = 0; j < w; j++)
                rq->out[j * h + i] = rq->data[0][i * w + j];
        return LF_OK;
    }
    return lf_set_error(LF_EUNSUPPORTED, "toy folder cannot do this");
}

/* x (1 x 2 x 3 x 1) + Reshape(Neg(Transpose(k))) with k = 1 x 1 x 3 x 2. */
static lf_status build_folding(lf_graph **g, lf_fold_fn fn, int with_values)
{
    lf_graph_builder *b = NULL;
    lf_status st = lf_graph_builder_create(&b, "fold");
    if (st)
        return st;
    lf_graph_builder_set_folder(b, fn, NULL);
    lf_attrs in = input_attrs(2, 3, 1);
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    const float k[6] = {1, 2, 3, 4, 5, 6}; /* rows (1, 2), (3, 4), (5, 6) */
    lf_graph_builder_add_const(b, "k", (lf_shape){1, 1, 3, 2}, with_values ? k : NULL);
    lf_attrs t = {0};
    t.perm[0] = LF_DIM_N;
    t.perm[1] = LF_DIM_C;
    t.perm[2] = LF_DIM_W;
    t.perm[3] = LF_DIM_H;
    lf_attrs r = {0};
    r.shape_c = 2;
    r.shape_h = 3;
    r.shape_w = 1;
    const char *kt[] = {"k"}, *ng[] = {"kT"}, *rs[] = {"neg"}, *add[] = {"x", "w"};
    /* added consumer first: folding follows the topological order */
    lf_graph_builder_add_op(b, LF_OP_ADD, "add", NULL, add, 2);
    lf_graph_builder_add_op(b, LF_OP_RESHAPE, "w", &r, rs, 1);
    lf_graph_builder_add_op(b, LF_OP_NEG, "neg", NULL, ng, 1);
    lf_graph_builder_add_op(b, LF_OP_TRANSPOSE, "kT", &t, kt, 1);
    st = lf_graph_builder_build(b, g);
    lf_graph_builder_free(b);
    return st;
}

static void test_folding(void)
{
    lf_graph *g = NULL;
    fold_calls = 0;
    CHECK_OK(build_folding(&g, toy_fold, 1));
    CHECK_EQ_I64(fold_calls, 2); /* Transpose and Neg; Reshape is copied */
    if (g) {
        CHECK_EQ_I64(g->n_ops, 2);
        CHECK_STR(g->ops[1].name, "add");
        CHECK_EQ_I64(g->n_consts, 1); /* k, kT and neg are unused once w exists */
        CHECK_STR(g->consts[0].name, "w");
        const lf_const *w = lf_op_const(g, 1, 1);
        CHECK(w == &g->consts[0]);
        CHECK(w && w->shape.c == 2 && w->shape.h == 3 && w->shape.w == 1);
        const float want[6] = {-1, -3, -5, -2, -4, -6}; /* -k^T, row-major */
        for (int i = 0; w && w->data && i < 6; i++)
            CHECK(w->data[i] == want[i]);
        CHECK(w && w->data);
        CHECK_EQ_I64(g->n_folded, 3);
        CHECK_STR(g->folded[0].name, "kT");
        CHECK_EQ_I64(g->folded[0].type, LF_OP_TRANSPOSE);
        CHECK_EQ_I64(g->folded[0].const_id, -1);
        CHECK_STR(g->folded[2].name, "w");
        CHECK_EQ_I64(g->folded[2].const_id, 0);
        CHECK(g->ops[1].is_output);
        lf_graph_free(g);
    }
    /* shape-only constants fold by shape inference alone */
    fold_calls = 0;
    g = NULL;
    CHECK_OK(build_folding(&g, NULL, 0));
    CHECK_EQ_I64(fold_calls, 0);
    if (g) {
        CHECK_EQ_I64(g->n_consts, 1);
        CHECK(g->consts[0].data == NULL);
        CHECK_EQ_I64(g->ops[1].weight_elems, 6);
        lf_graph_free(g);
    }
    /* values but no evaluator: one error naming the op */
    g = (lf_graph *)1;
    CHECK_EQ_I64(build_folding(&g, NULL, 1), LF_EUNSUPPORTED);
    CHECK(g == NULL);
    CHECK(strstr(lf_last_error(), "op 'kT' (Transpose)") != NULL);
    CHECK(strstr(lf_last_error(), "no evaluator") != NULL);
}

/* Expects building to fail with status st and a message containing needle. */
static void expect_fail(lf_graph_builder *b, lf_status st, const char *needle)
{
    lf_graph *g = NULL;
    CHECK_EQ_I64(lf_graph_builder_build(b, &g), st);
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
    lf_attrs in = input_attrs(4, 6, 6), c = conv_attrs(8, 3, 0);
    const char *xw[] = {"x", "w"}, *x[] = {"x"}, *wx[] = {"w", "x"};

    /* a weight read from an activation */
    lf_graph_builder_create(&b, "actweight");
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_attrs in2 = input_attrs(4, 3, 3);
    lf_graph_builder_add(b, LF_OP_INPUT, "w", &in2, NULL, 0);
    lf_graph_builder_add_op(b, LF_OP_CONV, "conv", &c, xw, 2);
    expect_fail(b, LF_EGRAPH, "op 'conv' (Conv): operand 1 is a weight and must be a constant, but reads op 'w'");

    /* a weight of the wrong shape */
    lf_graph_builder_create(&b, "badweight");
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_graph_builder_add_const(b, "w", (lf_shape){8, 4, 5, 5}, NULL);
    lf_graph_builder_add_op(b, LF_OP_CONV, "conv", &c, xw, 2);
    expect_fail(b, LF_EGRAPH, "op 'conv' (Conv): weight operand is 8x4x5x5, expected 8x4x3x3");

    /* an op and a constant with one name */
    lf_graph_builder_create(&b, "dup");
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_graph_builder_add_const(b, "x", (lf_shape){1, 1, 1, 1}, NULL);
    expect_fail(b, LF_EGRAPH, "two tensors (an op and a constant) are named 'x'");

    /* the old call reading a constant */
    lf_graph_builder_create(&b, "oldcall");
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_graph_builder_add_const(b, "w", (lf_shape){1, 4, 1, 1}, NULL);
    lf_graph_builder_add(b, LF_OP_ADD, "add", NULL, xw, 2);
    expect_fail(b, LF_EGRAPH, "op 'add' reads constant 'w' but was added without operands");

    /* an output computed from constants only */
    lf_graph_builder_create(&b, "constout");
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_graph_builder_add(b, LF_OP_RELU, "r", NULL, x, 1);
    lf_graph_builder_add_const(b, "w", (lf_shape){1, 4, 1, 1}, NULL);
    const char *w[] = {"w"};
    lf_graph_builder_add_op(b, LF_OP_NEG, "n", NULL, w, 1);
    lf_graph_builder_mark_output(b, "n");
    expect_fail(b, LF_EGRAPH, "output op 'n' is computed from constants only");

    /* an implied weight whose name is taken */
    lf_graph_builder_create(&b, "clash");
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_graph_builder_add(b, LF_OP_CONV, "c", &c, x, 1);
    const char *cc[] = {"c"};
    lf_graph_builder_add(b, LF_OP_RELU, "c.weight", NULL, cc, 1);
    expect_fail(b, LF_EGRAPH, "the weight 'c.weight' of op 'c' clashes");

    /* broadcast mismatch with a constant operand */
    lf_graph_builder_create(&b, "bcast");
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_graph_builder_add_const(b, "w", (lf_shape){1, 3, 1, 1}, NULL);
    lf_graph_builder_add_op(b, LF_OP_SUB, "sub", NULL, wx, 2);
    expect_fail(b, LF_EGRAPH, "op 'sub' (Sub): operand 0 shape 3x1x1 does not match 4x6x6");

    /* a kernel so large its implied weight is absurd */
    lf_graph_builder_create(&b, "hugekernel");
    lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
    lf_attrs huge = conv_attrs(1 << 30, 1, 0);
    huge.kh = huge.kw = 1 << 30;
    lf_graph_builder_add(b, LF_OP_CONV, "conv", &huge, x, 1);
    expect_fail(b, LF_ERANGE, "op 'conv' implies a weight of 1073741824x4x1073741824x1073741824");

    /* absurd and empty constant shapes are refused when added */
    lf_graph_builder_create(&b, "absurd");
    CHECK_EQ_I64(lf_graph_builder_add_const(b, "big", (lf_shape){1 << 20, 1 << 20, 1 << 20, 1}, NULL),
                 LF_ERANGE);
    CHECK_EQ_I64(lf_graph_builder_add_const(b, "empty", (lf_shape){1, 0, 1, 1}, NULL), LF_ERANGE);
    CHECK_EQ_I64(lf_graph_builder_add_const(b, "", (lf_shape){1, 1, 1, 1}, NULL), LF_EINVAL);
    float *owned = malloc(sizeof(float)); /* freed by the failing call (ASan checks) */
    CHECK_EQ_I64(lf_graph_builder_add_const_owned(b, "bad", (lf_shape){1, -1, 1, 1}, owned),
                 LF_ERANGE);
    lf_graph_builder_free(b);
}

/* The hash covers constant shapes where they are not implied, never values. */
static void test_hash(void)
{
    uint64_t h[3];
    const lf_shape shapes[3] = {{1, 4, 1, 1}, {1, 4, 1, 1}, {1, 1, 1, 1}};
    for (int i = 0; i < 3; i++) {
        lf_graph_builder *b = NULL;
        CHECK_OK(lf_graph_builder_create(&b, "h"));
        lf_attrs in = input_attrs(4, 2, 2);
        lf_graph_builder_add(b, LF_OP_INPUT, "x", &in, NULL, 0);
        float vals[4] = {(float)i, 1, 2, 3};
        lf_graph_builder_add_const(b, "k", shapes[i], vals);
        const char *ops[] = {"x", "k"};
        lf_graph_builder_add_op(b, LF_OP_MUL, "mul", NULL, ops, 2);
        lf_graph *g = NULL;
        CHECK_OK(lf_graph_builder_build(b, &g));
        lf_graph_builder_free(b);
        h[i] = g ? g->hash : 0;
        lf_graph_free(g);
    }
    CHECK(h[0] == h[1]); /* other values, same hash */
    CHECK(h[0] != h[2]); /* other shape */
}

int main(void)
{
    test_implied_equals_explicit();
    test_builtin_constants();
    test_values();
    test_adopted_block();
    test_folding();
    test_errors();
    test_hash();
    return lf_test_result();
}

/* The graph executor: whole networks byte-identical for one and two threads,
 * every kept intermediate consistent with its op applied to its inputs
 * (Relu, Add, Concat, pools ...), inputs set by hand equal to generated ones,
 * tensor lifetimes, the value generator, and error reporting. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graphs.h"
#include "models/registry.h"
#include "planner/exec/exec_bench.h"
#include "planner/io/exec_files.h"
#include "planner/io/onnx.h"
#include "planner/exec/exec.h"
#include "planner/exec/kernels.h"
#include "planner/optable.h"
#include "testlib.h"

static float *run_net(const char *name, int threads, int keep_all, uint64_t seed, lf_graph **gout,
                      lf_exec **exout, int64_t *count)
{
    lf_graph *g = NULL;
    lf_model_options mo = {96, 1};
    CHECK_OK(lf_model_build(name, &mo, &g));
    if (!g)
        return NULL;
    lf_exec_options o = {seed, threads, keep_all};
    lf_exec *ex = NULL;
    CHECK_OK(lf_exec_create(&ex, g, &o));
    CHECK_OK(lf_exec_run(ex));
    int32_t last = g->n_ops - 1;
    lf_shape s;
    const float *y = lf_exec_output(ex, last, &s);
    *count = lf_shape_count(s);
    float *copy = malloc((size_t)*count * sizeof *copy);
    if (y)
        memcpy(copy, y, (size_t)*count * sizeof *copy);
    if (gout) {
        *gout = g;
        *exout = ex;
    } else {
        lf_exec_free(ex);
        lf_graph_free(g);
    }
    return copy;
}

/* Same bytes for any thread count; a different seed changes the output. */
static void test_determinism(void)
{
    const char *nets[] = {"resnet18", "mobilenet_v3_small", "inception_v3", "squeezenet1_0"};
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        int64_t n1, n2, n3;
        float *a = run_net(nets[i], 1, 0, 7, NULL, NULL, &n1);
        float *b = run_net(nets[i], 2, 0, 7, NULL, NULL, &n2);
        float *c = run_net(nets[i], 2, 0, 8, NULL, NULL, &n3);
        CHECK_EQ_I64(n1, n2);
        int same = a && b && n1 == n2 && memcmp(a, b, (size_t)n1 * sizeof *a) == 0;
        if (!same)
            fprintf(stderr, "%s differs between 1 and 2 threads\n", nets[i]);
        CHECK(same);
        CHECK(a && c && memcmp(a, c, (size_t)n1 * sizeof *a) != 0);
        lf_tensor_stats s;
        lf_tensor_stats_of(a, n1, &s);
        CHECK_EQ_I64(s.n_nan + s.n_inf, 0);
        CHECK(s.max > s.min);
        free(a), free(b), free(c);
    }
}

/* With keep_all every op's output is kept: check the cheap ops against
 * their definition on their kept inputs. */
static void test_intermediates(void)
{
    lf_graph *g = NULL;
    lf_exec *ex = NULL;
    int64_t n;
    free(run_net("inception_v3", 2, 1, 3, &g, &ex, &n));
    if (!g)
        return;
    int checked[LF_OP_TYPE_COUNT] = {0};
    for (int32_t v = 0; v < g->n_ops; v++) {
        const lf_op *op = &g->ops[v];
        lf_shape ys;
        const float *y = lf_exec_output(ex, v, &ys);
        CHECK(y != NULL);
        if (!y || op->type == LF_OP_INPUT)
            continue;
        const float *x = lf_exec_output(ex, op->inputs[0], NULL);
        int64_t cnt = lf_shape_count(ys), bad = 0;
        switch (op->type) {
        case LF_OP_RELU:
            for (int64_t i = 0; i < cnt; i++)
                bad += y[i] != (x[i] > 0 ? x[i] : 0.0f);
            break;
        case LF_OP_ADD: {
            const float *x1 = lf_exec_output(ex, op->inputs[1], NULL);
            for (int64_t i = 0; i < cnt; i++)
                bad += y[i] != x[i] + x1[i];
            break;
        }
        case LF_OP_CONCAT: {
            int64_t off = 0, plane = ys.h * ys.w;
            for (int32_t k = 0; k < op->n_inputs; k++) {
                const lf_shape *xs = &g->ops[op->inputs[k]].out;
                const float *xk = lf_exec_output(ex, op->inputs[k], NULL);
                bad += memcmp(y + off * plane, xk, (size_t)(xs->c * plane) * sizeof *y) != 0;
                off += xs->c;
            }
            break;
        }
        case LF_OP_MAXPOOL: {
            /* Every output is one of the values of its window's input plane. */
            const lf_shape *xs = &g->ops[op->inputs[0]].out;
            int64_t P = xs->h * xs->w, Q = ys.h * ys.w;
            for (int64_t c = 0; c < ys.c; c++)
                for (int64_t q = 0; q < Q; q += 7) {
                    int found = 0;
                    for (int64_t p = 0; p < P && !found; p++)
                        found = x[c * P + p] == y[c * Q + q];
                    bad += !found;
                }
            break;
        }
        case LF_OP_GLOBALAVGPOOL: {
            const lf_shape *xs = &g->ops[op->inputs[0]].out;
            int64_t P = xs->h * xs->w;
            for (int64_t c = 0; c < ys.c; c++) {
                double s = 0;
                for (int64_t p = 0; p < P; p++)
                    s += x[c * P + p];
                bad += fabs(s / (double)P - y[c]) > 1e-5 * fmax(1.0, fabs(y[c]));
            }
            break;
        }
        case LF_OP_FLATTEN:
            bad += memcmp(x, y, (size_t)cnt * sizeof *y) != 0;
            break;
        default:
            continue;
        }
        checked[op->type]++;
        if (bad)
            fprintf(stderr, "op %s (%s): %lld mismatches\n", op->name, lf_op_info_of(op->type)->name,
                    (long long)bad);
        CHECK_EQ_I64(bad, 0);
    }
    CHECK(checked[LF_OP_RELU] > 0 && checked[LF_OP_CONCAT] > 0 && checked[LF_OP_MAXPOOL] > 0);
    lf_exec_free(ex);
    lf_graph_free(g);
}

/* The first conv of a network equals the kernel applied to the generated
 * input and the weights named after the op. */
static void test_values_by_name(void)
{
    lf_graph *g = NULL;
    lf_exec *ex = NULL;
    int64_t n;
    free(run_net("resnet18", 1, 1, 5, &g, &ex, &n));
    if (!g)
        return;
    int32_t conv = -1;
    for (int32_t v = 0; v < g->n_ops && conv < 0; v++)
        if (g->ops[v].type == LF_OP_CONV)
            conv = v;
    const lf_op *op = &g->ops[conv];
    const lf_op *in = &g->ops[op->inputs[0]];
    CHECK(in->type == LF_OP_INPUT);
    int64_t nx = lf_shape_count(in->out), nw = op->out.c * in->out.c * op->attr.kh * op->attr.kw;
    float *x = malloc(sizeof(float) * nx), *w = malloc(sizeof(float) * nw), *b = malloc(sizeof(float) * op->out.c);
    lf_exec_fill(5, in->name, LF_VALUE_INPUT, 0, x, nx);
    char name[256];
    snprintf(name, sizeof name, "%s.weight", op->name);
    lf_exec_fill(5, name, LF_VALUE_WEIGHT, nw / op->out.c, w, nw);
    snprintf(name, sizeof name, "%s.bias", op->name);
    lf_exec_fill(5, name, LF_VALUE_BIAS, 0, b, op->out.c);
    CHECK(memcmp(x, lf_exec_output(ex, op->inputs[0], NULL), sizeof(float) * nx) == 0);
    int64_t ny = lf_shape_count(op->out);
    float *y = malloc(sizeof(float) * ny);
    lf_tensor operands[3] = {{in->out, x}, {{op->out.c, in->out.c, op->attr.kh, op->attr.kw}, w},
                             {{1, op->out.c, 1, 1}, b}};
    lf_tensor out = {op->out, y};
    CHECK_OK(lf_exec_eval_op(LF_OP_CONV, &op->attr, operands, 3, &out, 1));
    CHECK(memcmp(y, lf_exec_output(ex, conv, NULL), sizeof(float) * ny) == 0);
    free(x), free(w), free(b), free(y);
    lf_exec_free(ex);
    lf_graph_free(g);
}

static void test_inputs_and_lifetimes(void)
{
    lf_graph *g = NULL;
    lf_model_options mo = {64, 2};
    CHECK_OK(lf_model_build("resnet18", &mo, &g));
    if (!g)
        return;
    lf_exec_options o = {9, 2, 0};
    lf_exec *ex = NULL;
    CHECK_OK(lf_exec_create(&ex, g, &o));
    CHECK_OK(lf_exec_run(ex));
    int32_t last = g->n_ops - 1;
    lf_shape s;
    int64_t ny = lf_shape_count(g->ops[last].out);
    CHECK_EQ_I64(g->ops[last].out.n, 2);
    float *y1 = malloc(sizeof(float) * ny);
    memcpy(y1, lf_exec_output(ex, last, &s), sizeof(float) * ny);
    int kept = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        kept += lf_exec_output(ex, v, NULL) != NULL;
    CHECK_EQ_I64(kept, 2); /* only the graph input and output survive */

    /* Setting the input to the generated values gives the same bytes; a
     * different input gives a different output; the two batch items of a
     * batch with equal halves are equal. */
    int64_t nx = lf_shape_count(g->ops[0].out);
    float *x = malloc(sizeof(float) * nx);
    lf_exec_fill(9, g->ops[0].name, LF_VALUE_INPUT, 0, x, nx);
    CHECK_OK(lf_exec_set_input(ex, 0, x, nx));
    CHECK_OK(lf_exec_run(ex));
    CHECK(memcmp(y1, lf_exec_output(ex, last, NULL), sizeof(float) * ny) == 0);
    memcpy(x + nx / 2, x, sizeof(float) * (size_t)(nx / 2));
    CHECK_OK(lf_exec_set_input(ex, 0, x, nx));
    CHECK_OK(lf_exec_run(ex));
    const float *y2 = lf_exec_output(ex, last, NULL);
    CHECK(memcmp(y2, y2 + ny / 2, sizeof(float) * (size_t)(ny / 2)) == 0);
    CHECK(memcmp(y1, y2, sizeof(float) * (size_t)(ny / 2)) == 0); /* item 0 unchanged */
    CHECK(memcmp(y1 + ny / 2, y2 + ny / 2, sizeof(float) * (size_t)(ny / 2)) != 0);
    CHECK(lf_exec_set_input(ex, 0, x, nx - 1) == LF_EINVAL);
    CHECK(strstr(lf_last_error(), g->ops[0].name) != NULL);
    CHECK(lf_exec_set_input(ex, last, x, nx) == LF_EINVAL);
    free(x), free(y1);
    lf_exec_free(ex);
    lf_graph_free(g);
}

static void test_generator(void)
{
    float a[1000], b[1000], c[1000];
    lf_exec_fill(1, "conv1.weight", LF_VALUE_WEIGHT, 27, a, 1000);
    lf_exec_fill(1, "conv1.weight", LF_VALUE_WEIGHT, 27, b, 1000);
    lf_exec_fill(1, "conv2.weight", LF_VALUE_WEIGHT, 27, c, 1000);
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK(memcmp(a, c, sizeof a) != 0);
    double bound = sqrt(3.0 / 27), m = 0, v = 0;
    int inside = 1;
    for (int i = 0; i < 1000; i++) {
        inside &= fabs(a[i]) <= bound;
        m += a[i] / 1000.0;
        v += (double)a[i] * a[i] / 1000.0;
    }
    CHECK(inside);
    CHECK_NEAR(m, 0.0, 0.02);
    CHECK_NEAR(v, 1.0 / 27, 0.2 / 27); /* variance 1/fan_in */
    lf_exec_fill(1, "bn.var", LF_VALUE_VARIANCE, 0, a, 1000);
    float lo = a[0];
    for (int i = 0; i < 1000; i++)
        lo = a[i] < lo ? a[i] : lo;
    CHECK(lo >= 0.5f);
    /* A prefix of a longer draw is the shorter draw. */
    lf_exec_fill(4, "x", LF_VALUE_INPUT, 0, a, 1000);
    lf_exec_fill(4, "x", LF_VALUE_INPUT, 0, b, 10);
    CHECK(memcmp(a, b, 10 * sizeof(float)) == 0);
    lf_tensor_stats s;
    float t[4] = {1, -2, NAN, INFINITY};
    lf_tensor_stats_of(t, 4, &s);
    CHECK_EQ_I64(s.n_nan, 1);
    CHECK_EQ_I64(s.n_inf, 1);
    CHECK_NEAR(s.min, -2, 0);
    CHECK_NEAR(s.mean, -0.5, 0);
}

static void test_eval_errors(void)
{
    float x[4] = {0}, y[4];
    lf_attrs a = {0};
    a.out_channels = 1;
    a.kh = a.kw = 1;
    lf_tensor in[1] = {{{1, 1, 2, 2}, x}};
    lf_tensor out = {{1, 1, 2, 2}, y};
    CHECK(lf_exec_eval_op(LF_OP_CONV, &a, in, 1, &out, 1) == LF_EGRAPH);
    CHECK(strstr(lf_last_error(), "Conv") != NULL);
    lf_tensor bad[2] = {{{1, 1, 2, 2}, x}, {{1, 1, 1, 2}, x}};
    CHECK(lf_exec_eval_op(LF_OP_CONV, &a, bad, 2, &out, 1) == LF_EGRAPH);
    CHECK(lf_exec_eval_op(LF_OP_INPUT, &a, in, 1, &out, 1) == LF_EUNSUPPORTED);
    CHECK(lf_exec_eval_op(LF_OP_RELU, NULL, in, 0, &out, 1) == LF_EGRAPH);
    CHECK_OK(lf_exec_eval_op(LF_OP_RELU, NULL, in, 1, &out, 0));
    /* Output shapes that do not fit the operands are refused, not written. */
    lf_tensor small = {{1, 1, 1, 2}, y}, big = {{2, 1, 2, 2}, y};
    CHECK(lf_exec_eval_op(LF_OP_RELU, NULL, in, 1, &small, 1) == LF_EGRAPH);
    lf_attrs pool = {0};
    pool.kh = pool.kw = 1;
    CHECK(lf_exec_eval_op(LF_OP_MAXPOOL, &pool, in, 1, &big, 1) == LF_EGRAPH);
    CHECK(lf_exec_eval_op(LF_OP_GLOBALAVGPOOL, NULL, in, 1, &out, 1) == LF_EGRAPH);
    lf_attrs cat = {0};
    lf_tensor two[2] = {{{1, 1, 2, 2}, x}, {{1, 1, 2, 1}, x}};
    CHECK(lf_exec_eval_op(LF_OP_CONCAT, &cat, two, 2, &big, 1) == LF_EGRAPH);
}

/* `fusionplan run`'s files and report (planner/io/exec_files.h): x =
 * (-1, 2, -3, 4) read from a TensorProto file, ReLU, the output written
 * and read back as (0, 2, 0, 4); its statistics line; a file count that does
 * not match the graph's inputs or outputs. */
static void test_files(void)
{
    lf_graph_builder *b = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "relu"));
    tg_input(b, "x", 1, 1, 4);
    tg_unary(b, LF_OP_RELU, "y", "x");
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    if (!g)
        return;
    char in[128], out[128];
    snprintf(in, sizeof in, "/tmp/lf_test_exec_%d_x.pb", (int)getpid());
    snprintf(out, sizeof out, "/tmp/lf_test_exec_%d_y.pb", (int)getpid());
    float xs[4] = {-1, 2, -3, 4};
    lf_onnx_tensor t;
    memset(&t, 0, sizeof t);
    snprintf(t.name, sizeof t.name, "x");
    t.rank = 4, t.dims[0] = 1, t.dims[1] = 1, t.dims[2] = 1, t.dims[3] = 4, t.count = 4, t.data = xs;
    CHECK_OK(lf_onnx_write_tensor(in, &t));
    lf_exec_options o = {1, 1, 0};
    lf_exec *ex = NULL;
    CHECK_OK(lf_exec_create(&ex, g, &o));
    const char *ins[2] = {in, in}, *outs[2] = {out, out};
    CHECK(lf_exec_read_inputs(ex, g, ins, 2) == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "--input: 2 files for 1 graph inputs") != NULL);
    CHECK_OK(lf_exec_read_inputs(ex, g, ins, 1));
    CHECK_OK(lf_exec_run(ex));
    CHECK(lf_exec_write_outputs(ex, g, outs, 2) == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "--output: 2 files for 1 graph outputs") != NULL);
    CHECK_OK(lf_exec_write_outputs(ex, g, outs, 1));
    lf_onnx_tensor r;
    memset(&r, 0, sizeof r);
    CHECK_OK(lf_onnx_read_tensor(out, &r));
    CHECK_STR(r.name, "y");
    CHECK_EQ_I64(r.count, 4);
    if (r.count == 4)
        CHECK(r.data[0] == 0 && r.data[1] == 2 && r.data[2] == 0 && r.data[3] == 4);
    lf_onnx_tensor_free(&r);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        lf_exec_report_write(f, ex, g, 1);
        fclose(f);
        lf_tensor_stats sx, sy;
        lf_tensor_stats_of(xs, 4, &sx);
        lf_tensor_stats_of(lf_exec_output(ex, 1, NULL), 4, &sy);
        CHECK(sy.min == 0 && sy.max == 4 && sy.mean == 1.5);
        char want[512];
        snprintf(want, sizeof want,
                 "input x: shape 1x1x1x4  min -3  max 4  mean 0.5  l2 5.47723  checksum %016llx\n"
                 "output y: shape 1x1x1x4  min 0  max 4  mean 1.5  l2 4.47214  checksum %016llx\n",
                 (unsigned long long)sx.checksum, (unsigned long long)sy.checksum);
        CHECK_STR(text, want);
        free(text);
    }
    remove(in);
    remove(out);
    lf_exec_free(ex);
    lf_graph_free(g);
}

/* bench exec's measurement (planner/exec/exec_bench.h) on squeezenet1_1 at
 * 64 x 64: the checksum is the outputs' of a plain run, the same for one and
 * two threads; the times are ordered (best <= median); the row carries them. */
static void test_bench(void)
{
    lf_graph *g = NULL;
    lf_model_options mo = {64, 1};
    CHECK_OK(lf_model_build("squeezenet1_1", &mo, &g));
    if (!g)
        return;
    lf_exec_bench_row r1, r2;
    CHECK_OK(lf_exec_bench(g, 1, 1, 3, 7, &r1));
    CHECK_OK(lf_exec_bench(g, 1, 2, 2, 7, &r2));
    CHECK(lf_exec_bench(g, 1, 1, 0, 7, &r2) == LF_EINVAL);
    CHECK(r1.checksum == r2.checksum);
    CHECK(r1.best_s > 0 && r1.best_s <= r1.median_s && r2.best_s <= r2.median_s);
    CHECK_NEAR(r1.gmacs, (double)lf_graph_macs(g) / 1e9, 0);
    lf_exec_options o = {7, 1, 0};
    lf_exec *ex = NULL;
    CHECK_OK(lf_exec_create(&ex, g, &o));
    CHECK_OK(lf_exec_run(ex));
    uint64_t sum = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].is_output) {
            lf_shape s;
            const float *y = lf_exec_output(ex, v, &s);
            sum ^= lf_exec_checksum(y, lf_shape_count(s));
        }
    CHECK(sum == r1.checksum);
    lf_exec_free(ex);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        lf_exec_bench_write_row(f, "squeezenet1_1", &r2);
        fclose(f);
        char head[64], tail[32];
        snprintf(head, sizeof head, "| squeezenet1_1 | 1 | 2 | no | %.2f | ", r2.gmacs);
        snprintf(tail, sizeof tail, " | %016llx |\n", (unsigned long long)r2.checksum);
        CHECK(strncmp(text, head, strlen(head)) == 0);
        CHECK(strlen(text) > strlen(tail) && strcmp(text + strlen(text) - strlen(tail), tail) == 0);
        free(text);
    }
    lf_graph_free(g);
}

int main(void)
{
    test_generator();
    test_eval_errors();
    test_values_by_name();
    test_inputs_and_lifetimes();
    test_intermediates();
    test_determinism();
    test_files();
    test_bench();
    return lf_test_result();
}

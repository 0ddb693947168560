/* The op table's properties and FLOPs (planner/optable.h) on real ops, with
 * the values the per-module switches they replaced gave: which types are
 * activations and which kernels take them as an epilogue (DOS units), which
 * ops the GPU profiler can run (by kernel class and by shape), the analytic
 * FLOPs of the substitution optimizer (pools count their window, data movers
 * nothing), the explainer's feature columns, and invariants every entry must
 * keep so that a new op type stays one entry. */
#include <stdlib.h>
#include <string.h>

#include "explain/features.h"
#include "models/builder.h"
#include "planner/gpu/opcost.h"
#include "planner/optable.h"
#include "search/schedule/schedule.h"
#include "search/subst/subst.h"
#include "testlib.h"

/* 1 when t is in the LF_OP_TYPE_COUNT-terminated list. */
static int in_list(lf_op_type t, const lf_op_type *list)
{
    for (int i = 0; list[i] != LF_OP_TYPE_COUNT; i++)
        if (list[i] == t)
            return 1;
    return 0;
}

/* Every type, against the lists the old switches held. */
static void test_flags_by_type(void)
{
    static const lf_op_type act[] = {LF_OP_RELU, LF_OP_CLIP, LF_OP_SIGMOID, LF_OP_HARDSIGMOID, LF_OP_HARDSWISH,
                                     LF_OP_SILU, LF_OP_TANH, LF_OP_LEAKYRELU, LF_OP_GELU, LF_OP_ELU,
                                     LF_OP_TYPE_COUNT};
    static const lf_op_type epi[] = {LF_OP_CONV, LF_OP_CONVTRANSPOSE, LF_OP_GEMM, LF_OP_MATMUL, LF_OP_ADD,
                                     LF_OP_TYPE_COUNT};
    static const lf_op_type no_kernel[] = {LF_OP_INPUT, LF_OP_RESHAPE, LF_OP_FLATTEN, LF_OP_IDENTITY, LF_OP_SLICE,
                                           LF_OP_TYPE_COUNT};
    static const lf_op_type window[] = {LF_OP_CONV, LF_OP_CONVTRANSPOSE, LF_OP_MAXPOOL, LF_OP_AVGPOOL,
                                        LF_OP_TYPE_COUNT};
    for (lf_op_type t = 0; t < LF_OP_TYPE_COUNT; t++) {
        CHECK_EQ_I64(lf_op_has(t, LF_OPF_ACTIVATION), in_list(t, act));
        CHECK_EQ_I64(lf_op_has(t, LF_OPF_TAKES_EPILOGUE), in_list(t, epi));
        CHECK_EQ_I64(lf_op_has(t, LF_OPF_NO_KERNEL), in_list(t, no_kernel));
        CHECK_EQ_I64(lf_op_has(t, LF_OPF_SLIDING_WINDOW), in_list(t, window));
        CHECK_EQ_I64(lf_op_has(t, LF_OPF_CLIP_BOUNDS), t == LF_OP_CLIP);
        CHECK_EQ_I64(lf_op_has(t, LF_OPF_ACCUMULATES_ROWS), t == LF_OP_GEMM);
        CHECK_EQ_I64(lf_op_has(t, LF_OPF_RESHAPES_ROWS), t == LF_OP_FLATTEN || t == LF_OP_RESHAPE);
        CHECK_EQ_I64(lf_op_has(t, LF_OPF_COPIES_VALUES),
                     t == LF_OP_FLATTEN || t == LF_OP_RESHAPE || t == LF_OP_IDENTITY);
    }
    CHECK(lf_op_has(LF_OP_CLIP, LF_OPF_ACTIVATION | LF_OPF_CLIP_BOUNDS));
    CHECK(!lf_op_has(LF_OP_RELU, LF_OPF_ACTIVATION | LF_OPF_CLIP_BOUNDS)); /* every bit asked */
    CHECK(!lf_op_has(LF_OP_TYPE_COUNT, 0));
    CHECK(!lf_op_has((lf_op_type)-1, 0));
}

/* What a new entry must keep consistent with the rest of its entry. */
static void test_entry_invariants(void)
{
    for (lf_op_type t = 0; t < LF_OP_TYPE_COUNT; t++) {
        const lf_op_info *in = lf_op_info_of(t);
        CHECK(in != NULL && in->name != NULL);
        if (!in)
            continue;
        if (in->flags & LF_OPF_ACTIVATION) /* a unary element-wise op an epilogue can run */
            CHECK(in->elementwise && in->min_operands == 1 && in->max_operands == 1);
        if (in->flags & LF_OPF_COPIES_VALUES)
            CHECK(in->flags & LF_OPF_NO_KERNEL);
        if (in->flags & LF_OPF_RESHAPES_ROWS)
            CHECK(in->rows == LF_ROWS_VIEW);
        if (in->flags & LF_OPF_SLIDING_WINDOW)
            CHECK(in->row_window != NULL);
        if (in->flags & LF_OPF_NO_KERNEL)
            CHECK(in->gpu == LF_GPU_NONE && in->flops != NULL && in->macs == NULL);
        if (in->gpu == LF_GPU_UNARY)
            CHECK(in->max_operands == 1 && in->elementwise);
        if (in->gpu == LF_GPU_BINARY)
            CHECK(in->min_operands <= 2 && in->max_operands >= 2 && in->elementwise);
        /* schema-v1 types have their own feature column, later ones name a v1 type */
        if (t > LF_OP_IDENTITY)
            CHECK(in->features_as > LF_OP_INPUT && in->features_as <= LF_OP_IDENTITY);
        else
            CHECK(in->features_as == LF_OP_INPUT);
        if (t != LF_OP_INPUT) {
            int32_t col = lf_feat_type_column(t);
            CHECK(col >= 0 && col < LF_FEAT_N_TYPES);
        }
    }
    CHECK_EQ_I64(lf_feat_type_column(LF_OP_CONV), 0);
    CHECK_EQ_I64(lf_feat_type_column(LF_OP_IDENTITY), LF_FEAT_N_TYPES - 1);
    CHECK_EQ_I64(lf_feat_type_column(LF_OP_CONVTRANSPOSE), lf_feat_type_column(LF_OP_CONV));
    CHECK_EQ_I64(lf_feat_type_column(LF_OP_GELU), lf_feat_type_column(LF_OP_SILU));
    CHECK_EQ_I64(lf_feat_type_column(LF_OP_SUB), lf_feat_type_column(LF_OP_ADD));
    CHECK_EQ_I64(lf_feat_type_column(LF_OP_REDUCEL2), lf_feat_type_column(LF_OP_GLOBALAVGPOOL));
    CHECK_EQ_I64(lf_op_info_of(LF_OP_CONV)->gpu, LF_GPU_CONV);
    CHECK_EQ_I64(lf_op_info_of(LF_OP_SQRT)->gpu, LF_GPU_UNARY);
    CHECK_EQ_I64(lf_op_info_of(LF_OP_POW)->gpu, LF_GPU_BINARY);
    CHECK_EQ_I64(lf_op_info_of(LF_OP_GLOBALMAXPOOL)->gpu, LF_GPU_POOL);
    CHECK_EQ_I64(lf_op_info_of(LF_OP_LOGSOFTMAX)->gpu, LF_GPU_SOFTMAX);
    CHECK_EQ_I64(lf_op_info_of(LF_OP_TRANSPOSE)->gpu, LF_GPU_NONE);
    CHECK_EQ_I64(lf_op_info_of(LF_OP_LAYERNORM)->gpu, LF_GPU_NONE);
}

/* x 1x64x56x56 -> conv 3x3 (64) -> relu -> maxpool 3x3/2 (1x64x28x28) ->
 * avgpool 2x2/2, softmax over C and over H, gelu, exp, a concat of the two,
 * a global pool, flatten and a Gemm to 10. */
static lf_graph *build_net(void)
{
    lf_mb m;
    lf_mb_init(&m, "optable");
    int32_t x = lf_mb_input(&m, "x", 1, 64, 56, 56);
    int32_t c = lf_mb_conv(&m, "conv", x, 64, 3, 1, 1, 1, 1, LF_MB_NO_BIAS);
    int32_t r = lf_mb_relu(&m, "relu", c);
    int32_t p = lf_mb_maxpool(&m, "pool", r, 3, 2, 1, 0);
    lf_mb_avgpool(&m, "avg", p, 2, 2, 0, 0);
    lf_attrs sm = {0};
    lf_mb_op(&m, LF_OP_SOFTMAX, "sm_c", &sm, &p, 1);
    sm.axes = LF_AXES(LF_DIM_H);
    lf_mb_op(&m, LF_OP_SOFTMAX, "sm_h", &sm, &p, 1);
    int32_t two[2];
    two[0] = lf_mb_op(&m, LF_OP_GELU, "gelu", NULL, &p, 1);
    two[1] = lf_mb_op(&m, LF_OP_EXP, "exp", NULL, &p, 1);
    lf_mb_concat(&m, "cat", two, 2);
    int32_t gap = lf_mb_global_avgpool(&m, "gap", p);
    int32_t f = lf_mb_flatten(&m, "flat", gap);
    lf_mb_gemm(&m, "fc", f, 10, LF_MB_BIAS);
    lf_graph *g = NULL;
    CHECK_OK(lf_mb_finish(&m, &g));
    return g;
}

static const lf_op *op_named(const lf_graph *g, const char *name)
{
    int32_t v = lf_graph_find(g, name);
    CHECK(v >= 0);
    return v >= 0 ? &g->ops[v] : NULL;
}

static void test_flops(const lf_graph *g)
{
    const lf_op *pool = op_named(g, "pool");
    if (!pool)
        return;
    CHECK_EQ_I64(pool->out.h, 28);
    /* one operation per window element: 64 x 28 x 28 x 9 */
    CHECK_NEAR(lf_op_flops(pool), 451584.0, 0);
    CHECK_NEAR(lf_op_flops(op_named(g, "avg")), 64.0 * 14 * 14 * 4, 0);
    /* 2 per MAC: 64 x 56 x 56 outputs x 64 x 3 x 3 */
    CHECK_EQ_I64(op_named(g, "conv")->macs, 115605504);
    CHECK_NEAR(lf_op_flops(op_named(g, "conv")), 231211008.0, 0);
    CHECK_NEAR(lf_op_flops(op_named(g, "fc")), 2.0 * 64 * 10, 0);
    /* one per output element */
    CHECK_NEAR(lf_op_flops(op_named(g, "relu")), 64.0 * 56 * 56, 0);
    CHECK_NEAR(lf_op_flops(op_named(g, "gelu")), 64.0 * 28 * 28, 0);
    CHECK_NEAR(lf_op_flops(op_named(g, "sm_c")), 64.0 * 28 * 28, 0);
    CHECK_NEAR(lf_op_flops(op_named(g, "gap")), 64.0, 0);
    /* data movement and views: nothing */
    CHECK_NEAR(lf_op_flops(op_named(g, "cat")), 0.0, 0);
    CHECK_NEAR(lf_op_flops(op_named(g, "flat")), 0.0, 0);
    CHECK_NEAR(lf_op_flops(op_named(g, "x")), 0.0, 0);
    /* a fused activation adds one per output element */
    lf_op fused = *op_named(g, "conv");
    fused.attr.act = LF_ACT_RELU;
    CHECK_NEAR(lf_op_flops(&fused), 231211008.0 + 64.0 * 56 * 56, 0);

    /* the substitution optimizer's per-op cost takes these FLOPs; views cost nothing */
    lf_subst_coster c;
    lf_subst_coster_init(&c, LF_OBJ_FLOPS, NULL, NULL);
    lf_subst_costs k;
    lf_subst_op_cost(&c, g, pool, &k);
    CHECK_NEAR(k.flops, 451584.0, 0);
    CHECK_NEAR(k.kernels, 1.0, 0);
    lf_subst_op_cost(&c, g, op_named(g, "flat"), &k);
    CHECK_NEAR(k.kernels, 0.0, 0);
    CHECK_NEAR(k.bytes, 0.0, 0);
}

static void test_measurable(const lf_graph *g)
{
    static const struct {
        const char *op;
        int measurable;
    } want[] = {
        {"x", 0},    {"conv", 1}, {"relu", 1},  {"pool", 1}, {"avg", 1},  {"sm_c", 1}, {"sm_h", 0},
        {"gelu", 1}, {"exp", 1},  {"cat", 1},   {"gap", 1},  {"flat", 0}, {"fc", 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int32_t v = lf_graph_find(g, want[i].op);
        CHECK(v >= 0);
        if (lf_gpu_op_measurable(g, v) != want[i].measurable)
            fprintf(stderr, "  op %s\n", want[i].op);
        CHECK_EQ_I64(lf_gpu_op_measurable(g, v), want[i].measurable);
    }
    char key[LF_GPU_OP_KEY_MAX];
    CHECK_OK(lf_gpu_op_key(g, lf_graph_find(g, "pool"), key, sizeof key));
    CHECK_STR(key, "MaxPool(t1x64x56x56)>1x64x28x28;k3x3;s2x2;p1,1,1,1");
    CHECK(lf_gpu_op_key(g, lf_graph_find(g, "flat"), key, sizeof key) == LF_EUNSUPPORTED);
}

/* DOS units: an activation after a kernel that takes an epilogue joins its
 * unit (Conv -> Gelu); Exp is no activation, Relu after a pool has no
 * epilogue to join. */
static void test_sched_units(void)
{
    lf_mb m;
    lf_mb_init(&m, "units");
    int32_t x = lf_mb_input(&m, "x", 1, 8, 8, 8);
    int32_t c1 = lf_mb_conv(&m, "c1", x, 8, 3, 1, 1, 1, 1, LF_MB_NO_BIAS);
    int32_t g1 = lf_mb_op(&m, LF_OP_GELU, "g1", NULL, &c1, 1);
    int32_t c2 = lf_mb_conv(&m, "c2", g1, 8, 3, 1, 1, 1, 1, LF_MB_NO_BIAS);
    int32_t e2 = lf_mb_op(&m, LF_OP_EXP, "e2", NULL, &c2, 1);
    int32_t p = lf_mb_maxpool(&m, "p", e2, 2, 2, 0, 0);
    lf_mb_relu(&m, "r", p);
    lf_graph *g = NULL;
    CHECK_OK(lf_mb_finish(&m, &g));
    if (!g)
        return;
    lf_sched_options o;
    lf_sched_options_default(&o);
    lf_sched_result r;
    CHECK_OK(lf_sched_run(g, &o, &r));
    CHECK_EQ_I64(r.stats.units, 5); /* c1+g1, c2, e2, p, r */
    lf_sched_result_destroy(&r);
    lf_graph_free(g);
}

/* RMSNorm is priced like LayerNorm: over D (W) it streams token rows, over
 * H it needs the whole map; its scale is one weight block of D values,
 * implied by the attributes when not given. */
static void test_rmsnorm_rows(void)
{
    lf_mb m;
    lf_mb_init(&m, "rmsnorm");
    int32_t x = lf_mb_input(&m, "x", 1, 1, 16, 64);
    lf_attrs a = {0};
    a.axes = LF_AXES(LF_DIM_W);
    int32_t y = lf_mb_op(&m, LF_OP_RMSNORM, "rms_w", &a, &x, 1);
    a.axes = LF_AXES(LF_DIM_H) | LF_AXES(LF_DIM_W);
    lf_mb_op(&m, LF_OP_RMSNORM, "rms_hw", &a, &y, 1);
    a.axes = LF_AXES(LF_DIM_W);
    lf_mb_op(&m, LF_OP_LAYERNORM, "ln_w", &a, &y, 1);
    lf_graph *g = NULL;
    CHECK_OK(lf_mb_finish(&m, &g));
    if (!g)
        return;
    int32_t w = lf_graph_find(g, "rms_w"), hw = lf_graph_find(g, "rms_hw"), ln = lf_graph_find(g, "ln_w");
    CHECK(w >= 0 && hw >= 0 && ln >= 0);
    if (w >= 0 && hw >= 0 && ln >= 0) {
        CHECK_EQ_I64(lf_op_row_kind(g, w), LF_ROWS_WINDOW);
        CHECK_EQ_I64(lf_op_row_kind(g, hw), LF_ROWS_FULL);
        CHECK_EQ_I64(lf_op_weight_block(g, w), 64);
        CHECK_EQ_I64(lf_op_weight_block(g, w), lf_op_weight_block(g, ln));
        CHECK_EQ_I64(g->ops[w].weight_elems, 64);
        CHECK_EQ_I64(g->ops[hw].weight_elems, 16 * 64);
        CHECK_EQ_I64(lf_op_macs(LF_OP_RMSNORM, &g->ops[w].attr, &g->ops[w].out, 1, &g->ops[w].out), 0);
    }
    lf_graph_free(g);
}

int main(void)
{
    test_rmsnorm_rows();
    test_flags_by_type();
    test_entry_invariants();
    lf_graph *g = build_net();
    if (g) {
        test_flops(g);
        test_measurable(g);
        lf_graph_free(g);
    }
    test_sched_units();
    return lf_test_result();
}

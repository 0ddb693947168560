/* Cost models: the worked examples of DESIGN §5 and hand-computed cases for
 * strides, phases, concat, pooling, squeeze-and-excite, terminal reductions
 * and BRR weight re-reads. Every expected number is derived in the comment
 * above its check (int8, N = 1). */
#include <stdlib.h>
#include <string.h>

#include "graphs.h"
#include "planner/cost/cost.h"
#include "fixtures.h"
#include "testlib.h"

/* Evaluates the group of the named ops. */
static lf_group_cost eval_named(lf_cost_model *cm, const char *const *names, int n)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_bitset s;
    lf_group_cost c = {0};
    lf_bitset_init(&s, g->n_ops);
    for (int i = 0; i < n; i++) {
        int32_t id = lf_graph_find(g, names[i]);
        CHECK(id >= 0);
        if (id >= 0)
            lf_bitset_set(&s, id);
    }
    CHECK_OK(lf_cost_eval(cm, &s, &c));
    lf_bitset_destroy(&s);
    return c;
}

/* Sum of F_D with every compute op alone: layer-by-layer traffic. */
static int64_t layer_by_layer(lf_cost_model *cm)
{
    const lf_graph *g = lf_cost_graph(cm);
    int64_t total = 0;
    for (int32_t v = 0; v < g->n_ops; v++) {
        if (g->ops[v].type == LF_OP_INPUT)
            continue;
        const char *name = g->ops[v].name;
        total += eval_named(cm, &name, 1).f_d;
    }
    return total;
}

/* DESIGN §5: ResNet basic block on 56x56x64, ReLU fused into conv1.
 * Weights 2 * 36,864; X 3 rows, A 3 rows, B 1 row, output staging 1 row, each
 * row 56 * 64 = 3,584: F_beta = 73,728 + 8 * 3,584 = 102,400.
 * F_D = X 200,704 + out 200,704 + weights 73,728 = 475,136. Layer by layer:
 * 2 convs * (200,704 * 2 + 36,864) + add (3 * 200,704) = 1,478,656. */
static void test_resnet_block(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "basic");
    tg_input(b, "x", 64, 56, 56);
    tg_conv(b, "conv1", "x", 64, 3, 1, 1, 1, 0, LF_ACT_RELU);
    tg_conv(b, "conv2", "conv1", 64, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "add", "conv2", "x");
    lf_graph *g = tf_build(b);
    lf_cost_model *cm = tf_model_hand(g, 256 * 1024, "lbdf");
    const char *grp[] = {"conv1", "conv2", "add"};
    lf_group_cost c = eval_named(cm, grp, 3);
    CHECK_EQ_I64(c.f_beta, 102400);
    CHECK_EQ_I64(c.f_d, 475136);
    CHECK_EQ_I64(c.weights, 73728);
    CHECK_EQ_I64(c.weight_reads, 1);
    CHECK(c.valid);
    CHECK_EQ_I64(layer_by_layer(cm), 1478656);
    /* The memo returns the same numbers and counts the hit. */
    lf_group_cost again = eval_named(cm, grp, 3);
    CHECK_EQ_I64(again.f_beta, 102400);
    lf_cost_stats st;
    lf_cost_stats_get(cm, &st);
    CHECK(st.hits >= 1);
    /* The explanation lists X with 3 rows and conv2's output with 1. */
    lf_bitset s;
    lf_bitset_init(&s, g->n_ops);
    for (int i = 1; i <= 3; i++)
        lf_bitset_set(&s, i);
    lf_cost_report rep;
    CHECK_OK(lf_cost_explain(cm, &s, &rep));
    CHECK_EQ_I64(rep.cost.f_beta, 102400);
    int64_t sum = 0;
    for (int i = 0; i < rep.n_rows; i++) {
        sum += rep.rows[i].bytes;
        if (rep.rows[i].tensor == 0)
            CHECK_EQ_I64(rep.rows[i].rows, 3);
        if (rep.rows[i].tensor == 2)
            CHECK_EQ_I64(rep.rows[i].rows, 1);
    }
    CHECK_EQ_I64(sum + rep.cost.weights, 102400);
    lf_cost_report_destroy(&rep);
    lf_bitset_destroy(&s);
    /* Under a 100 KB buffer (102,400 B) the block is invalid: strict inequality. */
    lf_cost_model *tight = tf_model_hand(g, 102400, "lbdf");
    CHECK(!eval_named(tight, grp, 3).valid);
    lf_cost_model_free(tight);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* DESIGN §5: MobileNetV2 block 24 -> 144 -> 24 on 56x56. Weights 3,456 +
 * 1,296 + 3,456 = 8,208; rows: X 2 (2,688), expanded 3 (24,192), depthwise 1
 * (8,064), projected 1 (1,344), output staging 1 (1,344): F_beta = 45,840.
 * F_D = 75,264 * 2 + 8,208 = 158,736. */
static void test_mbv2_block(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "mbv2");
    tg_input(b, "x", 24, 56, 56);
    tg_conv(b, "expand", "x", 144, 1, 1, 0, 1, 0, LF_ACT_RELU6);
    tg_conv(b, "dw", "expand", 144, 3, 1, 1, 144, 0, LF_ACT_RELU6);
    tg_conv(b, "project", "dw", 24, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "add", "project", "x");
    lf_graph *g = tf_build(b);
    lf_cost_model *cm = tf_model_hand(g, 256 * 1024, "lbdf");
    const char *grp[] = {"expand", "dw", "project", "add"};
    lf_group_cost c = eval_named(cm, grp, 4);
    CHECK_EQ_I64(c.f_beta, 45840);
    CHECK_EQ_I64(c.f_d, 158736);
    CHECK_EQ_I64(c.weights, 8208);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* Stride 2: X 56x56x32 -> conv3x3/2 (64) -> conv3x3 (64). The sink at row 0
 * needs T rows [-1, 1] (3 rows of 28 * 64 = 1,792); T's row 1 needs X rows
 * [1, 3] (3 rows of 56 * 32 = 1,792); staging 1,792. Weights 18,432 + 36,864.
 * F_beta = 55,296 + 7 * 1,792 = 67,840; F_D = 100,352 + 50,176 + 55,296. */
static void test_stride2(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "s2");
    tg_input(b, "x", 32, 56, 56);
    tg_conv(b, "down", "x", 64, 3, 2, 1, 1, 0, LF_ACT_RELU);
    tg_conv(b, "conv", "down", 64, 3, 1, 1, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    lf_cost_model *cm = tf_model_hand(g, 256 * 1024, "lbdf");
    const char *grp[] = {"down", "conv"};
    lf_group_cost c = eval_named(cm, grp, 2);
    CHECK_EQ_I64(c.f_beta, 67840);
    CHECK_EQ_I64(c.f_d, 205824);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* Sinks at two heights: X 8x8x4 -> a (1x1, 8x8x4) and b (1x1 stride 2,
 * 4x4x4). Phases of the 8-row sink: at phase 0 both read X row 0; at phase 1
 * a reads row 1 while b still holds row 0, so X needs 2 rows (2 * 32 B).
 * Staging a 32 + b 16, weights 16 + 16: F_beta = 32 + 64 + 48 = 144. */
static void test_phases(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "phases");
    tg_input(b, "x", 4, 8, 8);
    tg_conv(b, "a", "x", 4, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "b", "x", 4, 1, 2, 0, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    lf_cost_model *cm = tf_model_hand(g, 1024, "lbdf");
    const char *grp[] = {"a", "b"};
    lf_group_cost c = eval_named(cm, grp, 2);
    CHECK_EQ_I64(c.f_beta, 144);
    /* F_D reads X once for the two sinks: 256 + 256 + 64 + 32 weights. */
    CHECK_EQ_I64(c.f_d, 256 + 256 + 64 + 32);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* Concat is zero-copy: X 16x16x4 -> a (1x1, 8) and b (3x3, 8) -> concat ->
 * conv3x3 (8). The sink needs concat rows [-1, 1], passed to a and b (3 rows
 * of 128 each); b's row 1 needs X [0, 2] and a's X [1, 1]: X 3 rows of 64.
 * Staging 128. Weights 32 + 288 + 1,152 = 1,472.
 * F_beta = 1,472 + 192 + 384 + 384 + 128 = 2,560.
 * F_D = 1,024 + 2,048 + 1,472 = 4,544.
 * Without the final conv the concat is an output and pays its staging row
 * (256): X 3 rows 192, a 1 row 128, b 1 row 128, weights 320: 1,024. */
static void test_concat(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "concat");
    tg_input(b, "x", 4, 16, 16);
    tg_conv(b, "a", "x", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "b", "x", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    const char *cat_in[] = {"a", "b"};
    tg_concat(b, "cat", cat_in, 2);
    tg_conv(b, "conv", "cat", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    lf_cost_model *cm = tf_model_hand(g, 256 * 1024, "lbdf");
    const char *all[] = {"a", "b", "cat", "conv"};
    lf_group_cost c = eval_named(cm, all, 4);
    CHECK_EQ_I64(c.f_beta, 2560);
    CHECK_EQ_I64(c.f_d, 4544);
    const char *head[] = {"a", "b", "cat"};
    c = eval_named(cm, head, 3);
    CHECK_EQ_I64(c.f_beta, 1024);
    CHECK_EQ_I64(c.f_d, 1024 + 4096 + 320);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* Max pool 3x3/2 pad 1 on 16x16x8, then conv1x1 (8): the sink's row 0 needs
 * pool row 0 (1 row of 64), whose window is X rows [-1, 1] (3 rows of 128).
 * Staging 64, weights 64: F_beta = 64 + 384 + 64 + 64 = 576;
 * F_D = 2,048 + 512 + 64 = 2,624. */
static void test_maxpool(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "pool");
    tg_input(b, "x", 8, 16, 16);
    tg_pool(b, LF_OP_MAXPOOL, "pool", "x", 3, 2, 1);
    tg_conv(b, "conv", "pool", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    lf_cost_model *cm = tf_model_hand(g, 256 * 1024, "lbdf");
    const char *grp[] = {"pool", "conv"};
    lf_group_cost c = eval_named(cm, grp, 2);
    CHECK_EQ_I64(c.f_beta, 576);
    CHECK_EQ_I64(c.f_d, 2624);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* Squeeze-and-excite on X 14x14x16: GAP -> fc1 (1x1, 4, bias) -> relu ->
 * fc2 (1x1, 16, bias) -> sigmoid -> mul(X). The multiply's row 0 waits for the
 * pool to see X's last row, so X is held whole: 14 rows of 224 = 3,136.
 * Vectors read inside: 16 + 4 + 4 + 16 + 16 = 56. Staging 224. Weights 68 + 80.
 * F_beta = 148 + 3,136 + 56 + 224 = 3,564; F_D = 3,136 * 2 + 148 = 6,420.
 * With a 3x3 conv (16 -> 16) after the multiply, the peak is the group's sink
 * at row 0 (the multiply runs at row 1): X rows [1, 13] = 13, multiply 3 rows,
 * staging 224, weights 148 + 2,304. The multiply's own start (X 14 rows, its
 * row 1) is smaller. F_beta = 2,452 + 2,912 + 56 + 672 + 224 = 6,316. */
static void test_squeeze_excite(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "se");
    tg_input(b, "x", 16, 14, 14);
    tg_unary(b, LF_OP_GLOBALAVGPOOL, "gap", "x");
    tg_conv(b, "fc1", "gap", 4, 1, 1, 0, 1, 1, LF_ACT_NONE);
    tg_unary(b, LF_OP_RELU, "relu", "fc1");
    tg_conv(b, "fc2", "relu", 16, 1, 1, 0, 1, 1, LF_ACT_NONE);
    tg_unary(b, LF_OP_SIGMOID, "sig", "fc2");
    tg_binary(b, LF_OP_MUL, "mul", "x", "sig");
    tg_conv(b, "after", "mul", 16, 3, 1, 1, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    lf_cost_model *cm = tf_model_hand(g, 256 * 1024, "lbdf");
    const char *se[] = {"gap", "fc1", "relu", "fc2", "sig", "mul"};
    lf_group_cost c = eval_named(cm, se, 6);
    CHECK_EQ_I64(c.f_beta, 3564);
    CHECK_EQ_I64(c.f_d, 6420);
    const char *se_conv[] = {"gap", "fc1", "relu", "fc2", "sig", "mul", "after"};
    c = eval_named(cm, se_conv, 7);
    CHECK_EQ_I64(c.f_beta, 6316);
    /* A pool that ends its group streams: X 1 row (224) + staging 16. */
    const char *gap[] = {"gap"};
    c = eval_named(cm, gap, 1);
    CHECK_EQ_I64(c.f_beta, 240);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* Two squeeze-and-excite blocks in a row, where the first multiply's start
 * is the peak: X 8x8x16 -> p1 (pool) -> s1 (sigmoid) -> m1 = X * s1 ->
 * c1 (1x1, 16 -> 2) -> p2 -> s2 -> m2 = c1 * s2. Rows of X and m1 are 128 B,
 * rows of c1 and m2 16 B, vectors 16 B (s1) and 2 B (s2).
 * Sinks snapshot (m2 at row 0): c1 held whole (8 rows, 128), m1 row 7 (128),
 * X row 7 (128, the pool p1 is pinned there too), vectors 16 + 16 + 2 + 2,
 * staging 16: 436.
 * m1's start (its ancestors only): X held whole (8 rows, 1,024), vectors
 * 16 + 16, m1's first row 128: 1,184. Weights 32: F_beta = 1,216. */
static void test_two_se(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "se2");
    tg_input(b, "x", 16, 8, 8);
    tg_unary(b, LF_OP_GLOBALAVGPOOL, "p1", "x");
    tg_unary(b, LF_OP_SIGMOID, "s1", "p1");
    tg_binary(b, LF_OP_MUL, "m1", "x", "s1");
    tg_conv(b, "c1", "m1", 2, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_unary(b, LF_OP_GLOBALAVGPOOL, "p2", "c1");
    tg_unary(b, LF_OP_SIGMOID, "s2", "p2");
    tg_binary(b, LF_OP_MUL, "m2", "c1", "s2");
    lf_graph *g = tf_build(b);
    lf_cost_model *cm = tf_model_hand(g, 256 * 1024, "lbdf");
    const char *all[] = {"p1", "s1", "m1", "c1", "p2", "s2", "m2"};
    lf_group_cost c = eval_named(cm, all, 7);
    CHECK_EQ_I64(c.f_beta, 32 + 1184);
    lf_bitset s;
    lf_bitset_init(&s, g->n_ops);
    for (int i = 1; i < g->n_ops; i++)
        lf_bitset_set(&s, i);
    lf_cost_report rep;
    CHECK_OK(lf_cost_explain(cm, &s, &rep));
    CHECK(strstr(rep.snapshot, "'m1'") != NULL);
    CHECK_EQ_I64(rep.n_snapshots, 3);
    lf_cost_report_destroy(&rep);
    /* Without the first block the sinks snapshot is the only candidate:
     * c1 8 rows + m1 1 row + vectors 2 + 2 + staging 16. */
    const char *second[] = {"c1", "p2", "s2", "m2"};
    c = eval_named(cm, second, 4);
    CHECK_EQ_I64(c.f_beta, 32 + 128 + 128 + 2 + 2 + 16);
    lf_bitset_destroy(&s);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* BRR: X 8x8x64 -> conv3x3 (64), beta = 8,192. F_feat(h) = X min(8, 2 + h)
 * rows + staging min(8, h) rows, 512 B each; w_blk = 576. Alone the weights
 * (36,864) do not fit, so they stream: h = 6 gives 4,096 + 3,072 + 576 =
 * 7,744 < 8,192, h = 7 gives 7,680 + 576 > 8,192. h* = 6, 2 tiles, R_W = 2:
 * F_D = 4,096 * 2 + 2 * 36,864 = 81,920. F_beta = 2,048 + 576 = 2,624.
 * Under LBDF the same conv is unfusable (36,864 + 2,048 >= 8,192). */
static void test_brr_rereads(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "brr");
    tg_input(b, "x", 64, 8, 8);
    tg_conv(b, "conv", "x", 64, 3, 1, 1, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    lf_cost_model *cm = tf_model_hand(g, 8192, "brr");
    const char *grp[] = {"conv"};
    lf_group_cost c = eval_named(cm, grp, 1);
    CHECK_EQ_I64(c.f_beta, 2624);
    CHECK(c.valid);
    CHECK_EQ_I64(c.tile_rows, 6);
    CHECK_EQ_I64(c.weight_reads, 2);
    CHECK_EQ_I64(c.mbu, 7744);
    CHECK_EQ_I64(c.f_d, 81920);
    CHECK(lf_cost_fusable(cm, 1));
    lf_cost_model_free(cm);
    /* With a 64 KB buffer everything is resident: one read. */
    cm = tf_model_hand(g, 65536, "brr");
    c = eval_named(cm, grp, 1);
    CHECK_EQ_I64(c.weight_reads, 1);
    CHECK_EQ_I64(c.f_d, 4096 * 2 + 36864);
    CHECK_EQ_I64(c.mbu, 36864 + 2048);
    lf_cost_model_free(cm);
    cm = tf_model_hand(g, 8192, "lbdf");
    CHECK(!lf_cost_fusable(cm, 1));
    CHECK_EQ_I64(lf_cost_unfusable_count(cm), 1);
    int64_t all_ops = 0;
    CHECK_OK(lf_cost_unfusable_dram(cm, 1, &all_ops));
    CHECK_EQ_I64(all_ops, 81920);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

static void test_bad_scheme(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "tiny");
    tg_input(b, "x", 4, 4, 4);
    tg_unary(b, LF_OP_RELU, "r", "x");
    lf_graph *g = tf_build(b);
    lf_hw hw = tf_hw_bytes(1024);
    lf_cost_model *cm = NULL;
    CHECK_EQ_I64(lf_cost_model_create(&cm, g, &hw, "magic"), LF_ENOTFOUND);
    CHECK(cm == NULL);
    lf_graph_free(g);
}

int main(void)
{
    test_resnet_block();
    test_mbv2_block();
    test_stride2();
    test_phases();
    test_concat();
    test_maxpool();
    test_squeeze_excite();
    test_two_se();
    test_brr_rereads();
    test_bad_scheme();
    return lf_test_result();
}

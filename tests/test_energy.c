/* Energy and latency of groups and plans (DESIGN §19, docs/cost-models.md
 * "Energy and latency"), hand-computed for the worked examples of DESIGN §5
 * with round figures: DRAM 64 pJ/B, SRAM 2 pJ/B, 0.25 pJ per MAC, a peak of
 * 10^12 MAC/s and 25.6 GB/s. */
#include <string.h>

#include "graphs.h"
#include "fixtures.h"
#include "planner/cost/energy.h"
#include "planner/plan.h"
#include "testlib.h"

static lf_cost_model *model(const lf_graph *g, int64_t beta, const char *scheme, double peak)
{
    lf_hw hw = tf_hw_bytes(beta);
    hw.has_energy = 1;
    hw.dram_pj_per_byte = 64;
    hw.sram_pj_per_byte = 2;
    hw.mac_pj = 0.25;
    hw.peak_macs = peak;
    hw.dram_bandwidth = 25.6e9;
    lf_cost_model *cm = NULL;
    CHECK_OK(lf_cost_model_create(&cm, g, &hw, scheme));
    return cm;
}

static lf_group_perf perf_of(lf_cost_model *cm, const char *const *names, int n, lf_group_cost *c)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_bitset s;
    lf_group_perf p;
    memset(&p, 0, sizeof p);
    lf_bitset_init(&s, g->n_ops);
    for (int i = 0; i < n; i++)
        lf_bitset_set(&s, lf_graph_find(g, names[i]));
    CHECK_OK(lf_cost_eval(cm, &s, c));
    CHECK_OK(lf_group_perf_eval(cm, &s, c, &p));
    lf_bitset_destroy(&s);
    return p;
}

/* ResNet basic block on 56x56x64 (F_D = 475,136 B). MACs: two 3x3 convs of
 * 56 * 56 * 64 * 64 * 9 = 115,605,504 each = 231,211,008 (the add has none).
 * SRAM: DRAM staged 475,136; activations: conv1 reads X and writes A, conv2
 * reads A and writes B, the add reads B and X and writes: 7 maps of 200,704 =
 * 1,404,928; weights 73,728 read once per row step, 56 steps = 4,128,768;
 * total 6,008,832. Energy: DRAM 475,136 * 64 = 30,408,704 pJ, SRAM
 * 12,017,664 pJ, MAC 57,802,752 pJ; total 100,229,120 pJ. Latency: compute
 * 231,211,008 / 1e12 = 231.211008 us, memory 475,136 / 25.6e9 = 18.56 us:
 * compute-bound; without double buffering 249.771008 us. */
static void test_resnet_block(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "basic");
    tg_input(b, "x", 64, 56, 56);
    tg_conv(b, "conv1", "x", 64, 3, 1, 1, 1, 0, LF_ACT_RELU);
    tg_conv(b, "conv2", "conv1", 64, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "add", "conv2", "x");
    lf_graph *g = tf_build(b);
    lf_cost_model *cm = model(g, 256 * 1024, "lbdf", 1e12);
    const char *grp[] = {"conv1", "conv2", "add"};
    lf_group_cost c;
    lf_group_perf p = perf_of(cm, grp, 3, &c);
    CHECK_EQ_I64(c.f_d, 475136);
    CHECK_EQ_I64(c.steps, 56);
    CHECK_EQ_I64(p.macs, 231211008);
    CHECK_EQ_I64(p.sram_dram, 475136);
    CHECK_EQ_I64(p.sram_act, 1404928);
    CHECK_EQ_I64(p.sram_weights, 4128768);
    CHECK_EQ_I64(p.sram_bytes, 6008832);
    CHECK_NEAR(p.dram_pj, 30408704, 1e-6);
    CHECK_NEAR(p.sram_pj, 12017664, 1e-6);
    CHECK_NEAR(p.mac_pj, 57802752, 1e-6);
    CHECK_NEAR(p.total_pj, 100229120, 1e-6);
    CHECK_NEAR(p.compute_s, 231.211008e-6, 1e-15);
    CHECK_NEAR(p.memory_s, 18.56e-6, 1e-15);
    CHECK_NEAR(p.latency_s, 231.211008e-6, 1e-15);
    CHECK_NEAR(p.latency_serial_s, 249.771008e-6, 1e-15);
    CHECK_EQ_I64(p.bound, LF_BOUND_COMPUTE);
    CHECK(strcmp(lf_bound_name(p.bound), "compute") == 0);

    /* Layer by layer: the same MACs and activation traffic, the DRAM of
     * 1,478,656 B staged, and each conv's weights still read 56 times. */
    lf_plan pl;
    lf_plan_metrics m;
    CHECK_OK(lf_plan_init(&pl, g->n_ops));
    for (int32_t v = 1; v < g->n_ops; v++)
        pl.group_of[v] = v - 1;
    pl.n_groups = g->n_ops - 1;
    CHECK_OK(lf_plan_metrics_compute(&pl, cm, &m));
    CHECK_EQ_I64(m.dram_all, 1478656);
    CHECK_EQ_I64(m.perf.sram_bytes, 1478656 + 1404928 + 4128768);
    CHECK_NEAR(m.perf.total_pj, 1478656 * 64.0 + (1478656 + 1404928 + 4128768) * 2.0 + 57802752, 1e-3);
    /* Memory per group: conv 438,272 B -> 17.12 us < 115.6 us compute;
     * the add 602,112 B -> 23.52 us, no MACs: memory-bound. */
    CHECK_NEAR(m.perf.latency_s, 2 * 115.605504e-6 + 23.52e-6, 1e-12);
    CHECK_EQ_I64(m.n_compute_bound, 2);
    CHECK(m.has_energy && m.has_latency);
    lf_plan_destroy(&pl);
    lf_cost_model_free(cm);

    /* No compute peak: every group is memory-bound and latency is DRAM time. */
    cm = model(g, 256 * 1024, "lbdf", 0);
    p = perf_of(cm, grp, 3, &c);
    CHECK_EQ_I64(p.bound, LF_BOUND_MEMORY);
    CHECK_NEAR(p.latency_s, 18.56e-6, 1e-15);
    lf_cost_model_free(cm);

    /* BRR with a buffer too small for both weights: they stream, the group
     * runs weight_reads tiles, and the buffer reads the weights once per tile. */
    cm = model(g, 64 * 1024, "brr", 1e12);
    p = perf_of(cm, grp, 3, &c);
    CHECK(c.valid && c.weight_reads > 1);
    CHECK_EQ_I64(c.steps, c.weight_reads);
    CHECK_EQ_I64(p.sram_weights, 73728 * (int64_t)c.weight_reads);
    CHECK_EQ_I64(p.sram_dram, c.f_d);
    lf_cost_model_free(cm);
    /* BRR with room for every weight: one step, weights read once. */
    cm = model(g, 256 * 1024, "brr", 1e12);
    p = perf_of(cm, grp, 3, &c);
    CHECK_EQ_I64(c.weight_reads, 1);
    CHECK_EQ_I64(c.steps, 1);
    CHECK_EQ_I64(p.sram_weights, 73728);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* MobileNetV2 block 24 -> 144 -> 24 on 56x56 (F_D = 158,736 B). MACs: expand
 * 3,136 * 24 * 144 = 10,838,016, depthwise 3,136 * 144 * 9 = 4,064,256,
 * project 10,838,016: 25,740,288. Activations (X and the output 75,264,
 * expanded and depthwise 451,584): expand 75,264 + 451,584, depthwise 2 *
 * 451,584, project 451,584 + 75,264, add 3 * 75,264: 2,182,656. Weights
 * 8,208 * 56 steps = 459,648. SRAM 2,801,040. Energy 158,736 * 64 +
 * 2,801,040 * 2 + 25,740,288 * 0.25 = 10,159,104 + 5,602,080 + 6,435,072 =
 * 22,196,256 pJ. Compute 25.740288 us > memory 6.200625 us. */
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
    lf_cost_model *cm = model(g, 256 * 1024, "lbdf", 1e12);
    const char *grp[] = {"expand", "dw", "project", "add"};
    lf_group_cost c;
    lf_group_perf p = perf_of(cm, grp, 4, &c);
    CHECK_EQ_I64(c.f_d, 158736);
    CHECK_EQ_I64(p.macs, 25740288);
    CHECK_EQ_I64(p.sram_act, 2182656);
    CHECK_EQ_I64(p.sram_weights, 459648);
    CHECK_EQ_I64(p.sram_bytes, 2801040);
    CHECK_NEAR(p.total_pj, 22196256, 1e-6);
    CHECK_NEAR(p.latency_s, 25.740288e-6, 1e-15);
    CHECK_NEAR(p.memory_s, 6.200625e-6, 1e-15);
    CHECK_EQ_I64(p.bound, LF_BOUND_COMPUTE);
    /* The same through lf_group_perf_ops (members as a list). */
    int32_t ids[4];
    for (int i = 0; i < 4; i++)
        ids[i] = lf_graph_find(g, grp[i]);
    lf_group_perf q;
    CHECK_OK(lf_group_perf_ops(cm, ids, 4, &c, &q));
    CHECK_EQ_I64(q.sram_bytes, p.sram_bytes);
    CHECK_NEAR(q.total_pj, p.total_pj, 0);
    CHECK_EQ_I64(lf_group_perf_ops(cm, NULL, 1, &c, &q), LF_EINVAL);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

int main(void)
{
    test_resnet_block();
    test_mbv2_block();
    return lf_test_result();
}

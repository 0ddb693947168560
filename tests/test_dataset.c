/* Dataset tests: features on a hand-made group, labels against lf_cost_eval,
 * connectivity and convexity of sampled groups, deduplication, split sizes,
 * determinism across thread counts, sample expansion, and the file format
 * with its error cases. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain/dataset.h"
#include "models/registry.h"
#include "planner/util/fileio.h"
#include "tests/graphs.h"
#include "tests/testlib.h"

/* x (3x8x8) -> conv3x3 (16, stride 1, pad 1, ReLU fused) -> relu -> add(conv, relu) */
static lf_graph *hand_graph(void)
{
    lf_graph_builder *b = NULL;
    lf_graph *g = NULL;
    if (lf_graph_builder_create(&b, "hand") != LF_OK)
        return NULL;
    tg_input(b, "x", 3, 8, 8);
    tg_conv(b, "conv", "x", 16, 3, 1, 1, 1, 0, LF_ACT_RELU);
    tg_unary(b, LF_OP_RELU, "relu", "conv");
    tg_binary(b, LF_OP_ADD, "add", "conv", "relu");
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    return g;
}

static void test_features(void)
{
    lf_graph *g = hand_graph();
    CHECK(g != NULL);
    if (!g)
        return;
    int32_t conv = lf_graph_find(g, "conv"), relu = lf_graph_find(g, "relu");
    lf_bitset grp;
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    lf_bitset_set(&grp, conv);
    lf_bitset_set(&grp, relu);
    float x[2 * LF_FEAT_DIM];
    CHECK_OK(lf_feat_group(g, &grp, 1, 256 * 1024, x));
    const float *c = x, *r = x + LF_FEAT_DIM;
    CHECK_NEAR(c[LF_OP_CONV - 1], 1, 0);
    CHECK_NEAR(c[LF_OP_RELU - 1], 0, 0);
    CHECK_NEAR(r[LF_OP_RELU - 1], 1, 0);
    CHECK_NEAR(c[LF_FEAT_IN_C], log2(4.0), 1e-6);
    CHECK_NEAR(c[LF_FEAT_IN_H], log2(9.0), 1e-6);
    CHECK_NEAR(c[LF_FEAT_IN_W], log2(9.0), 1e-6);
    CHECK_NEAR(c[LF_FEAT_OUT_C], log2(17.0), 1e-6);
    CHECK_NEAR(c[LF_FEAT_OUT_H], log2(9.0), 1e-6);
    CHECK_NEAR(c[LF_FEAT_KERNEL], 2.0, 1e-6);              /* log2(1 + 3) */
    CHECK_NEAR(c[LF_FEAT_STRIDE], 1.0, 1e-6);              /* log2(1 + 1) */
    CHECK_NEAR(c[LF_FEAT_WEIGHT_BYTES], log2(433.0), 1e-5); /* 16*3*3*3 = 432 bytes */
    CHECK_NEAR(r[LF_FEAT_WEIGHT_BYTES], 0, 0);
    CHECK_NEAR(r[LF_FEAT_KERNEL], 1.0, 1e-6);
    CHECK_NEAR(c[LF_FEAT_BETA], log2(262145.0), 1e-5);
    CHECK_NEAR(c[LF_FEAT_OUT_LEAVES], 1, 0);  /* add reads conv outside the group */
    CHECK_NEAR(c[LF_FEAT_READS_OUTSIDE], 1, 0); /* reads the graph input */
    CHECK_NEAR(r[LF_FEAT_OUT_LEAVES], 1, 0);
    CHECK_NEAR(r[LF_FEAT_READS_OUTSIDE], 0, 0);
    int32_t s[4], d[4];
    CHECK_EQ_I64(lf_feat_group_edges(g, &grp, s, d, 4), 1);
    CHECK_EQ_I64(s[0], 0);
    CHECK_EQ_I64(d[0], 1);
    /* Whole graph minus the input: conv->relu, conv->add, relu->add. */
    lf_bitset_set(&grp, lf_graph_find(g, "add"));
    CHECK_EQ_I64(lf_feat_group_edges(g, &grp, s, d, 4), 3);
    CHECK_EQ_I64(lf_feat_group_edges(g, &grp, s, d, 1), 3); /* count beyond cap */
    lf_bitset_set(&grp, lf_graph_find(g, "x"));
    CHECK(lf_feat_group(g, &grp, 1, 1024, x) == LF_EINVAL); /* graph input */

    /* Standardization touches only the numeric columns. */
    float rows[2 * LF_FEAT_DIM];
    memcpy(rows, x, sizeof rows);
    lf_bitset_reset(&grp, lf_graph_find(g, "x"));
    lf_bitset_reset(&grp, lf_graph_find(g, "add"));
    CHECK_OK(lf_feat_group(g, &grp, 1, 256 * 1024, rows));
    lf_feat_norm nm;
    lf_feat_norm_fit(&nm, rows, 2);
    lf_feat_norm_apply(&nm, rows, 2);
    CHECK_NEAR(rows[LF_FEAT_IN_C] + rows[LF_FEAT_DIM + LF_FEAT_IN_C], 0, 1e-5);
    CHECK_NEAR(rows[LF_FEAT_IN_C], -1, 1e-5); /* conv reads 3 channels, relu 16 */
    CHECK_NEAR(rows[LF_FEAT_OUT_C], 0, 0);    /* equal column: std 1, centred */
    CHECK_NEAR(rows[LF_OP_CONV - 1], 1, 0);
    CHECK_NEAR(nm.std[LF_FEAT_BETA], 1, 0); /* constant column keeps std 1 */
    CHECK(lf_feat_schema_hash() == lf_feat_schema_hash());
    CHECK(lf_feat_name(LF_FEAT_BETA) && !strcmp(lf_feat_name(LF_FEAT_BETA), "log2_beta"));
    lf_bitset_destroy(&grp);
    lf_graph_free(g);
}

/* 1 when no path leaves the group and comes back (forward search from the
 * group's outside consumers). */
static int convex(const lf_graph *g, const lf_ds_group *gr)
{
    char *in = calloc((size_t)g->n_ops, 1), *seen = calloc((size_t)g->n_ops, 1);
    int32_t *stack = malloc(sizeof(int32_t) * (size_t)g->n_ops * 4);
    int32_t top = 0, ok = 1;
    for (int32_t v = 0; v < gr->n_nodes; v++)
        in[gr->ops[v]] = 1;
    for (int32_t v = 0; v < gr->n_nodes; v++) {
        const lf_op *op = &g->ops[gr->ops[v]];
        for (int32_t k = 0; k < op->n_consumers; k++)
            if (!in[op->consumers[k]] && !seen[op->consumers[k]]) {
                seen[op->consumers[k]] = 1;
                stack[top++] = op->consumers[k];
            }
    }
    while (top && ok) {
        const lf_op *op = &g->ops[stack[--top]];
        for (int32_t k = 0; k < op->n_consumers; k++) {
            int32_t c = op->consumers[k];
            if (in[c])
                ok = 0;
            else if (!seen[c]) {
                seen[c] = 1;
                stack[top++] = c;
            }
        }
    }
    free(in);
    free(seen);
    free(stack);
    return ok;
}

static int connected(const lf_ds_group *gr)
{
    int32_t *comp = malloc(sizeof(int32_t) * (size_t)gr->n_nodes);
    for (int32_t v = 0; v < gr->n_nodes; v++)
        comp[v] = v;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int32_t e = 0; e < gr->n_edges; e++) {
            int32_t a = comp[gr->src[e]], b = comp[gr->dst[e]];
            if (a != b) {
                comp[gr->src[e]] = comp[gr->dst[e]] = a < b ? a : b;
                changed = 1;
            }
        }
    }
    int ok = 1;
    for (int32_t v = 0; v < gr->n_nodes; v++)
        ok &= comp[v] == 0;
    free(comp);
    return ok;
}

static void test_labels(const char *scheme)
{
    lf_ds_config cfg;
    lf_ds_config_default(&cfg);
    cfg.scheme = scheme;
    cfg.scale = 0.05;
    cfg.only = "resnet18";
    cfg.seed = 4;
    lf_dataset ds;
    lf_dataset_init(&ds, scheme);
    CHECK_OK(lf_dataset_build(&ds, &cfg));
    CHECK_EQ_I64(ds.n_networks, 1);
    CHECK_EQ_I64(ds.requested[0], 36); /* ceil(715 * 0.05) */
    CHECK(ds.n_groups >= 30 && ds.n_groups <= 36);
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build("resnet18", NULL, &g));
    lf_cost_model *cms[LF_DS_MAX_BETAS] = {0};
    for (int32_t k = 0; k < ds.n_betas; k++) {
        lf_hw hw;
        lf_hw_default(&hw);
        hw.buffer_bytes = ds.betas[k];
        CHECK_OK(lf_cost_model_create(&cms[k], g, &hw, scheme));
    }
    lf_bitset bs;
    CHECK_OK(lf_bitset_init(&bs, g->n_ops));
    int bad_label = 0, bad_shape = 0, n_valid = 0, n_invalid = 0;
    for (int64_t i = 0; i < ds.n_groups; i++) {
        const lf_ds_group *gr = &ds.groups[i];
        lf_bitset_clear_all(&bs);
        for (int32_t v = 0; v < gr->n_nodes; v++)
            lf_bitset_set(&bs, gr->ops[v]);
        for (int32_t k = 0; k < ds.n_betas; k++) {
            lf_group_cost c;
            CHECK_OK(lf_cost_eval(cms[k], &bs, &c));
            bad_label += gr->valid[k] != (c.f_beta < ds.betas[k]);
            n_valid += gr->valid[k];
            n_invalid += !gr->valid[k];
        }
        bad_shape += gr->n_nodes < 2 || gr->n_nodes > 100 || !connected(gr) || !convex(g, gr);
        float x[100 * LF_FEAT_DIM];
        if (gr->n_nodes <= 100) {
            CHECK_OK(lf_feat_group(g, &bs, 1, 0, x));
            bad_shape += memcmp(x, gr->x, sizeof(float) * (size_t)gr->n_nodes * LF_FEAT_DIM) != 0;
        }
    }
    CHECK_EQ_I64(bad_label, 0);
    CHECK_EQ_I64(bad_shape, 0);
    CHECK(n_valid > 0 && n_invalid > 0);
    lf_bitset_destroy(&bs);
    for (int32_t k = 0; k < ds.n_betas; k++)
        lf_cost_model_free(cms[k]);
    lf_graph_free(g);
    lf_dataset_destroy(&ds);
}

static void test_dedup_split(void)
{
    lf_graph *g = hand_graph();
    if (!g)
        return;
    lf_dataset ds;
    lf_dataset_init(&ds, "lbdf");
    lf_cost_model *cms[LF_DS_MAX_BETAS] = {0};
    for (int32_t k = 0; k < ds.n_betas; k++) {
        lf_hw hw;
        lf_hw_default(&hw);
        hw.buffer_bytes = ds.betas[k];
        CHECK_OK(lf_cost_model_create(&cms[k], g, &hw, "lbdf"));
    }
    CHECK_EQ_I64(lf_dataset_add_network(&ds, "hand", 3), 0);
    lf_bitset a, b;
    CHECK_OK(lf_bitset_init(&a, g->n_ops));
    CHECK_OK(lf_bitset_init(&b, g->n_ops));
    lf_bitset_set(&a, lf_graph_find(g, "conv"));
    lf_bitset_set(&a, lf_graph_find(g, "relu"));
    lf_bitset_set(&b, lf_graph_find(g, "relu"));
    lf_bitset_set(&b, lf_graph_find(g, "add"));
    CHECK_OK(lf_dataset_add_group(&ds, 0, g, &a, cms));
    CHECK_OK(lf_dataset_add_group(&ds, 0, g, &b, cms));
    CHECK_OK(lf_dataset_add_group(&ds, 0, g, &a, cms));
    CHECK(lf_dataset_add_group(&ds, 5, g, &a, cms) == LF_EINVAL);
    CHECK_EQ_I64(ds.n_groups, 3);
    CHECK(lf_ds_group_hash(&ds, &ds.groups[0]) == lf_ds_group_hash(&ds, &ds.groups[2]));
    CHECK(lf_ds_group_hash(&ds, &ds.groups[0]) != lf_ds_group_hash(&ds, &ds.groups[1]));
    CHECK_EQ_I64(lf_dataset_dedup(&ds), 1);
    CHECK_EQ_I64(ds.n_groups, 2);
    CHECK_EQ_I64(ds.groups[0].ops[0], lf_graph_find(g, "conv")); /* the first copy stays */
    CHECK_EQ_I64(lf_dataset_dedup(&ds), 0);
    /* Labels: the tiny groups fit every buffer. */
    CHECK_EQ_I64(ds.groups[0].valid[0], 1);
    lf_bitset_destroy(&a);
    lf_bitset_destroy(&b);
    for (int32_t k = 0; k < ds.n_betas; k++)
        lf_cost_model_free(cms[k]);
    lf_graph_free(g);
    lf_dataset_destroy(&ds);

    /* Split sizes on a larger sample. */
    lf_ds_config cfg;
    lf_ds_config_default(&cfg);
    cfg.scale = 0.05;
    lf_dataset big;
    lf_dataset_init(&big, "lbdf");
    CHECK_OK(lf_dataset_build(&big, &cfg));
    int64_t n = big.n_groups;
    CHECK(n > 300);
    CHECK_EQ_I64(lf_dataset_count(&big, LF_DS_TRAIN), n * 8 / 10);
    CHECK_EQ_I64(lf_dataset_count(&big, LF_DS_VAL), n / 10);
    CHECK_EQ_I64(lf_dataset_count(&big, LF_DS_TEST), n - n * 8 / 10 - n / 10);
    CHECK_EQ_I64(lf_dataset_dedup(&big), 0); /* build already deduplicated */
    CHECK_EQ_I64(big.n_networks, 9);
    /* A different seed gives a different split. */
    int32_t *before = malloc(sizeof(int32_t) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        before[i] = big.groups[i].split;
    lf_dataset_split(&big, 99);
    int diff = 0;
    for (int64_t i = 0; i < n; i++)
        diff += before[i] != big.groups[i].split;
    CHECK(diff > 0);
    CHECK_EQ_I64(lf_dataset_count(&big, LF_DS_TRAIN), n * 8 / 10);
    free(before);

    /* Samples: one per group and buffer size, beta filled, standardized. */
    lf_feat_norm nm;
    lf_dataset_fit_norm(&big, &nm);
    CHECK(nm.std[LF_FEAT_BETA] > 0.5f && nm.std[LF_FEAT_BETA] < 2.0f);
    lf_gnn_sample *s = NULL;
    int64_t ns = 0;
    CHECK_OK(lf_dataset_samples(&big, LF_DS_TEST, &nm, &s, &ns));
    CHECK_EQ_I64(ns, lf_dataset_count(&big, LF_DS_TEST) * big.n_betas);
    if (ns >= 2) {
        CHECK(s[0].g.x[LF_FEAT_BETA] < s[1].g.x[LF_FEAT_BETA]); /* 128 KB then 256 KB */
        CHECK(s[0].g.src == s[1].g.src);
    }
    lf_dataset_samples_free(s, ns);
    lf_dataset_destroy(&big);
}

static void test_determinism_and_files(void)
{
    lf_ds_config cfg;
    lf_ds_config_default(&cfg);
    cfg.scheme = "brr";
    cfg.scale = 0.03;
    cfg.seed = 7;
    lf_dataset a, b;
    lf_dataset_init(&a, "brr");
    lf_dataset_init(&b, "brr");
    cfg.threads = 1;
    CHECK_OK(lf_dataset_build(&a, &cfg));
    cfg.threads = 2;
    CHECK_OK(lf_dataset_build(&b, &cfg));
    CHECK_EQ_I64(a.n_networks, 5); /* SE networks skipped under BRR */
    char pa[] = "/tmp/lf_test_ds_a_XXXXXX", pb[] = "/tmp/lf_test_ds_b_XXXXXX";
    int fa = mkstemp(pa), fb = mkstemp(pb);
    if (fa >= 0)
        close(fa);
    if (fb >= 0)
        close(fb);
    CHECK_OK(lf_dataset_save(&a, pa));
    CHECK_OK(lf_dataset_save(&b, pb));
    char *da = NULL, *db = NULL;
    long la = 0, lb = 0;
    CHECK_OK(lf_read_file(pa, &da, &la));
    CHECK_OK(lf_read_file(pb, &db, &lb));
    CHECK(la == lb && la > 100 && memcmp(da, db, (size_t)la) == 0);

    lf_dataset l;
    CHECK_OK(lf_dataset_load(&l, pa));
    CHECK_STR(l.scheme, "brr");
    CHECK_EQ_I64(l.seed, 7);
    CHECK_EQ_I64(l.n_groups, a.n_groups);
    CHECK_EQ_I64(l.n_networks, a.n_networks);
    int same = 1;
    for (int64_t i = 0; i < a.n_groups && same; i++) {
        const lf_ds_group *x = &a.groups[i], *y = &l.groups[i];
        same = x->n_nodes == y->n_nodes && x->n_edges == y->n_edges && x->split == y->split &&
               x->network == y->network && memcmp(x->valid, y->valid, LF_DS_MAX_BETAS) == 0 &&
               memcmp(x->ops, y->ops, sizeof(int32_t) * (size_t)x->n_nodes) == 0 &&
               memcmp(x->x, y->x, sizeof(float) * (size_t)x->n_nodes * LF_FEAT_DIM) == 0 &&
               memcmp(x->src, y->src, sizeof(int32_t) * (size_t)x->n_edges) == 0;
    }
    CHECK(same);
    lf_dataset_destroy(&l);

    /* Error cases on patched images. */
    char *p = malloc((size_t)la);
    memcpy(p, da, (size_t)la);
    p[0] = 'Z';
    CHECK(lf_dataset_load_memory(&l, p, (size_t)la, "m") == LF_EPARSE);
    CHECK(strstr(lf_last_error(), "bad magic") != NULL);
    memcpy(p, da, (size_t)la);
    p[8] = 2;
    CHECK(lf_dataset_load_memory(&l, p, (size_t)la, "m") == LF_EUNSUPPORTED);
    memcpy(p, da, (size_t)la);
    p[13] ^= 4;
    CHECK(lf_dataset_load_memory(&l, p, (size_t)la, "m") == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "feature schema") != NULL);
    memcpy(p, da, (size_t)la);
    CHECK(lf_dataset_load_memory(&l, p, (size_t)la - 3, "m") == LF_EPARSE);
    CHECK(lf_dataset_load_memory(&l, p, 10, "m") == LF_EPARSE);
    CHECK(lf_dataset_load_memory(&l, p, 0, "m") == LF_EPARSE);
    p[la / 2] ^= 0x10;
    CHECK(lf_dataset_load_memory(&l, p, (size_t)la, "m") == LF_EPARSE);
    CHECK(strstr(lf_last_error(), "checksum") != NULL);
    CHECK(lf_dataset_load(&l, "/nonexistent/ds.bin") != LF_OK);
    free(p);
    free(da);
    free(db);
    remove(pa);
    remove(pb);

    /* Bad configurations. */
    lf_dataset e;
    lf_dataset_init(&e, "x");
    cfg.scheme = "nope";
    CHECK(lf_dataset_build(&e, &cfg) == LF_EINVAL);
    cfg.scheme = "brr";
    cfg.only = "efficientnet_b0"; /* skipped under BRR */
    CHECK(lf_dataset_build(&e, &cfg) == LF_ENOTFOUND);
    lf_dataset_destroy(&e);
    lf_dataset_destroy(&a);
    lf_dataset_destroy(&b);
}

/* Buffer-sweep sampling: any built-in network, custom buffer sizes and an
 * exact group count; labels recomputed independently and monotone in beta. */
static lf_status sweep_build(lf_dataset *ds, int32_t threads)
{
    lf_ds_config cfg;
    lf_ds_config_default(&cfg);
    cfg.scheme = "lbdf";
    cfg.seed = 5;
    cfg.scale = 0; /* ignored (not even checked): groups wins */
    cfg.only = "resnet34"; /* not in Table I */
    cfg.any_network = 1;
    cfg.groups = 60;
    cfg.n_betas = 3;
    cfg.betas[0] = 64 * 1024;
    cfg.betas[1] = 128 * 1024;
    cfg.betas[2] = 256 * 1024;
    cfg.threads = threads;
    lf_dataset_init(ds, "lbdf");
    return lf_dataset_build(ds, &cfg);
}

static void test_sweep_config(void)
{
    lf_dataset a, b;
    CHECK_OK(sweep_build(&a, 1));
    CHECK_OK(sweep_build(&b, 2));
    CHECK_EQ_I64(a.n_networks, 1);
    CHECK_STR(a.networks[0], "resnet34");
    CHECK_EQ_I64(a.requested[0], 60);
    CHECK_EQ_I64(a.n_groups, 60);
    CHECK_EQ_I64(a.n_betas, 3);
    CHECK_EQ_I64(a.betas[0], 64 * 1024);
    CHECK_EQ_I64(a.betas[2], 256 * 1024);
    CHECK_EQ_I64(a.betas[3], 0);
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build("resnet34", NULL, &g));
    lf_cost_model *cms[3] = {0};
    for (int32_t k = 0; k < 3; k++) {
        lf_hw hw;
        lf_hw_default(&hw);
        hw.buffer_bytes = a.betas[k];
        CHECK_OK(lf_cost_model_create(&cms[k], g, &hw, "lbdf"));
    }
    lf_bitset bs;
    CHECK_OK(lf_bitset_init(&bs, g->n_ops));
    int bad_label = 0, not_monotone = 0, same_ops = 0, bad_shape = 0, n_valid[3] = {0};
    for (int64_t i = 0; i < a.n_groups; i++) {
        const lf_ds_group *gr = &a.groups[i];
        lf_bitset_clear_all(&bs);
        for (int32_t v = 0; v < gr->n_nodes; v++)
            lf_bitset_set(&bs, gr->ops[v]);
        bad_shape += gr->n_nodes < 2 || gr->n_nodes > 100 || !connected(gr) || !convex(g, gr);
        for (int32_t k = 0; k < 3; k++) {
            lf_group_cost c;
            CHECK_OK(lf_cost_eval(cms[k], &bs, &c));
            bad_label += gr->valid[k] != (c.f_beta < a.betas[k]);
            n_valid[k] += gr->valid[k];
            if (k)
                not_monotone += gr->valid[k - 1] && !gr->valid[k];
        }
        /* Distinct groups: no two share their op set. */
        for (int64_t j = 0; j < i; j++) {
            const lf_ds_group *o = &a.groups[j];
            same_ops += o->n_nodes == gr->n_nodes &&
                        memcmp(o->ops, gr->ops, sizeof(int32_t) * (size_t)gr->n_nodes) == 0;
        }
    }
    CHECK_EQ_I64(bad_label, 0);
    CHECK_EQ_I64(not_monotone, 0);
    CHECK_EQ_I64(same_ops, 0);
    CHECK_EQ_I64(bad_shape, 0);
    CHECK(n_valid[0] <= n_valid[1] && n_valid[1] <= n_valid[2]);
    CHECK(n_valid[2] > 0 && n_valid[0] < a.n_groups); /* the sizes separate something */
    /* Identical for 1 and 2 threads. */
    CHECK_EQ_I64(b.n_groups, a.n_groups);
    int same = b.n_groups == a.n_groups;
    for (int64_t i = 0; i < a.n_groups && same; i++) {
        const lf_ds_group *x = &a.groups[i], *y = &b.groups[i];
        same = x->n_nodes == y->n_nodes && x->split == y->split &&
               memcmp(x->valid, y->valid, LF_DS_MAX_BETAS) == 0 &&
               memcmp(x->ops, y->ops, sizeof(int32_t) * (size_t)x->n_nodes) == 0;
    }
    CHECK(same);
    lf_bitset_destroy(&bs);
    for (int32_t k = 0; k < 3; k++)
        lf_cost_model_free(cms[k]);
    lf_graph_free(g);
    lf_dataset_destroy(&a);
    lf_dataset_destroy(&b);

    /* A Table I network keeps its own stream: the same op sets with or
     * without any_network, and its squeeze-and-excite peers join under BRR. */
    lf_ds_config cfg;
    lf_ds_config_default(&cfg);
    cfg.scale = 0.02;
    cfg.only = "resnet18";
    lf_dataset plain, any;
    lf_dataset_init(&plain, "lbdf");
    lf_dataset_init(&any, "lbdf");
    CHECK_OK(lf_dataset_build(&plain, &cfg));
    cfg.any_network = 1;
    CHECK_OK(lf_dataset_build(&any, &cfg));
    CHECK_EQ_I64(any.n_groups, plain.n_groups);
    same = any.n_groups == plain.n_groups;
    for (int64_t i = 0; i < plain.n_groups && same; i++)
        same = plain.groups[i].n_nodes == any.groups[i].n_nodes &&
               memcmp(plain.groups[i].ops, any.groups[i].ops,
                      sizeof(int32_t) * (size_t)plain.groups[i].n_nodes) == 0;
    CHECK(same);
    lf_dataset_destroy(&plain);
    lf_dataset_destroy(&any);
    cfg.scheme = "brr";
    cfg.only = "mobilenet_v3_small"; /* squeeze-and-excite: kept with any_network */
    cfg.groups = 5;
    lf_dataset se;
    lf_dataset_init(&se, "brr");
    CHECK_OK(lf_dataset_build(&se, &cfg));
    CHECK_EQ_I64(se.n_groups, 5);
    CHECK_EQ_I64(se.n_betas, 5);
    lf_dataset_destroy(&se);

    /* Bad configurations. */
    lf_dataset e;
    lf_dataset_init(&e, "lbdf");
    lf_ds_config_default(&cfg);
    cfg.only = "resnet50";
    CHECK(lf_dataset_build(&e, &cfg) == LF_ENOTFOUND); /* not Table I, no any_network */
    cfg.any_network = 1;
    CHECK(lf_dataset_build(&e, &cfg) == LF_EINVAL); /* outside Table I needs groups */
    cfg.only = "no_such_net";
    cfg.groups = 3;
    CHECK(lf_dataset_build(&e, &cfg) == LF_ENOTFOUND);
    cfg.only = "resnet18";
    cfg.n_betas = 2;
    cfg.betas[0] = 256 * 1024;
    cfg.betas[1] = 128 * 1024;
    CHECK(lf_dataset_build(&e, &cfg) == LF_EINVAL); /* not ascending */
    cfg.n_betas = LF_DS_MAX_BETAS + 1;
    CHECK(lf_dataset_build(&e, &cfg) == LF_EINVAL);
    lf_dataset_destroy(&e);
}

int main(void)
{
    test_features();
    test_labels("lbdf");
    test_labels("brr");
    test_dedup_split();
    test_determinism_and_files();
    test_sweep_config();
    return lf_test_result();
}

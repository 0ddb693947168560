/* GSO rule filter tests: node features and the GCN normalization on a
 * hand-built graph, GCN and LR gradients of the per-node sigmoid loss against
 * finite differences, deterministic training for a seed with 1 and 2
 * threads, dataset and weight files round trips, the weight file's header
 * checks (one-line errors), the rule-mask hook of the searches, and the
 * shipped filter keeping every rule that matches a hand-built graph at a
 * permissive threshold. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain/features.h"
#include "explain/weights_dir.h"
#include "graphs.h"
#include "planner/util/rng.h"
#include "search/subst/gso/gso.h"
#include "testlib.h"

#define FD_EPS 1e-3f
#define FD_ABS 2e-3
#define FD_REL 2e-2

static int fd_close(double num, double ana)
{
    return fabs(num - ana) <= FD_ABS + FD_REL * fabs(ana);
}

/* x (1x4x8x8) -> c1 (3x3, pad 1, 4 ch) -> r1 (ReLU) -> c2 (1x1, 8 ch). */
static lf_graph *chain(void)
{
    lf_graph_builder *b = NULL;
    lf_graph *g = NULL;
    if (lf_graph_builder_create(&b, "chain"))
        return NULL;
    tg_input(b, "x", 4, 8, 8);
    tg_conv(b, "c1", "x", 4, 3, 1, 1, 1, 1, LF_ACT_NONE);
    tg_unary(b, LF_OP_RELU, "r1", "c1");
    tg_conv(b, "c2", "r1", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    lf_status st = lf_graph_builder_build(b, &g);
    lf_graph_builder_free(b);
    return st ? NULL : g;
}

static void test_features(void)
{
    lf_graph *g = chain();
    CHECK(g != NULL);
    if (!g)
        return;
    lf_gso_graph gg;
    CHECK_OK(lf_gso_graph_init(&gg, g));
    CHECK_EQ_I64(gg.n, 4);
    CHECK_EQ_I64(gg.n_edges, 3);
    int32_t x = lf_graph_find(g, "x"), c1 = lf_graph_find(g, "c1"), r1 = lf_graph_find(g, "r1"),
            c2 = lf_graph_find(g, "c2");
    const float *fx = gg.x + x * LF_GSO_FEAT_DIM, *f1 = gg.x + c1 * LF_GSO_FEAT_DIM,
                *fr = gg.x + r1 * LF_GSO_FEAT_DIM, *f2 = gg.x + c2 * LF_GSO_FEAT_DIM;
    int32_t conv = lf_feat_type_column(LF_OP_CONV), relu = lf_feat_type_column(LF_OP_RELU), a = LF_FEAT_N_TYPES;
    float sum = 0;
    for (int32_t c = 0; c < LF_FEAT_N_TYPES; c++)
        sum += fx[c];
    CHECK_NEAR(sum, 0, 0); /* the graph input has no type column */
    CHECK_NEAR(fx[a + 3], 2.321928, 1e-5);  /* log2(1 + 4) channels */
    CHECK_NEAR(f1[conv], 1, 0);
    CHECK_NEAR(f1[relu], 0, 0);
    CHECK_NEAR(f1[a + 0], 2, 1e-6);         /* kernel 3: log2(4) */
    CHECK_NEAR(f1[a + 1], 1, 1e-6);         /* stride 1: log2(2) */
    CHECK_NEAR(f1[a + 2], 1, 1e-6);         /* pad 1 */
    CHECK_NEAR(f1[a + 3], 2.321928, 1e-5);  /* 4 channels */
    CHECK_NEAR(f1[a + 4], 1, 1e-6);         /* one reader */
    CHECK_NEAR(f1[a + 5], 1, 0);            /* SAME padding */
    CHECK_NEAR(f1[a + 6], 0, 0);            /* no fused activation */
    CHECK_NEAR(fr[relu], 1, 0);
    CHECK_NEAR(fr[a + 0], 0, 0);            /* no window */
    CHECK_NEAR(f2[a + 0], 1, 1e-6);         /* kernel 1 */
    CHECK_NEAR(f2[a + 2], 0, 0);
    CHECK_NEAR(f2[a + 3], 3.169925, 1e-5);  /* 8 channels */
    CHECK_NEAR(f2[a + 4], 0, 0);            /* the output: no readers */
    /* P = D^-1/2 (A + I) D^-1/2 on the path x - c1 - r1 - c2: d = 2, 3, 3, 2 */
    CHECK_NEAR(gg.self[x], 0.5, 1e-7);
    CHECK_NEAR(gg.self[c1], 1.0 / 3, 1e-7);
    CHECK_NEAR(gg.self[c2], 0.5, 1e-7);
    for (int32_t e = 0; e < gg.n_edges; e++) {
        int32_t lo = gg.src[e] < gg.dst[e] ? gg.src[e] : gg.dst[e], hi = gg.src[e] ^ gg.dst[e] ^ lo;
        double want = (lo == x || hi == c2) ? 1 / sqrt(6.0) : 1.0 / 3;
        CHECK_NEAR(gg.ew[e], want, 1e-6);
    }
    /* the first layer's input: (P X) for the kernel column of c1 = 1/3 * 2 + 0 (x, r1 have none) */
    CHECK_NEAR(gg.px[c1 * LF_GSO_FEAT_DIM + a + 0], 2.0 / 3, 1e-6);
    /* and of r1: c1's 2 / sqrt(9) + c2's 1 / sqrt(6) */
    CHECK_NEAR(gg.px[r1 * LF_GSO_FEAT_DIM + a + 0], 2.0 / 3 + 1 / sqrt(6.0), 1e-6);
    lf_gso_graph_destroy(&gg);
    /* duplicate edges, both directions and self loops count once / not at all */
    float fz[3 * LF_GSO_FEAT_DIM] = {0};
    int32_t src[5] = {0, 1, 0, 1, 2}, dst[5] = {1, 0, 1, 2, 2};
    CHECK_OK(lf_gso_graph_from(&gg, 3, fz, 5, src, dst));
    CHECK_EQ_I64(gg.n_edges, 2);
    CHECK_NEAR(gg.self[1], 1.0 / 3, 1e-7);
    lf_gso_graph_destroy(&gg);
    int32_t bad[1] = {7};
    CHECK(lf_gso_graph_from(&gg, 3, fz, 1, src, bad) == LF_EINVAL);
    lf_graph_free(g);
}

/* A random 7-node graph with random features. */
static void random_graph(lf_rng *r, lf_gso_graph *gg)
{
    float x[7 * LF_GSO_FEAT_DIM];
    for (int i = 0; i < 7 * LF_GSO_FEAT_DIM; i++)
        x[i] = (float)(2 * lf_rng_uniform(r) - 1);
    int32_t src[10], dst[10];
    for (int e = 0; e < 10; e++) {
        dst[e] = 1 + (int32_t)lf_rng_below(r, 6);
        src[e] = (int32_t)lf_rng_below(r, (uint32_t)dst[e]);
    }
    lf_gso_graph_from(gg, 7, x, 10, src, dst);
}

static void check_gradients(lf_gso_kind k)
{
    lf_rng r;
    lf_rng_seed(&r, 42, (uint64_t)k);
    lf_gso_graph gg;
    random_graph(&r, &gg);
    int64_t np = lf_gso_n_params(k);
    float *p = malloc((size_t)np * sizeof *p), *g = calloc((size_t)np, sizeof *g);
    float *ws = malloc((size_t)lf_gso_ws_floats(gg.n) * sizeof *ws);
    float keep[7 * (LF_GSO_H1 + LF_GSO_H2)];
    for (int i = 0; i < 7 * (LF_GSO_H1 + LF_GSO_H2); i++)
        keep[i] = lf_rng_uniform(&r) < 0.2 ? 0.0f : 1.25f; /* dropout 0.2 */
    for (int64_t i = 0; i < np; i++)
        p[i] = (float)((2 * lf_rng_uniform(&r) - 1) * 0.6);
    uint8_t lab[7] = {1, 0, 0, 1, 1, 0, 0};
    const float *mask = k == LF_GSO_GCN ? keep : NULL;
    double loss = lf_gso_loss_grad(k, p, &gg, lab, 3.0, mask, g, ws);
    CHECK(loss > 0);
    int bad = 0, nonzero = 0;
    for (int64_t i = 0; i < np; i++) {
        float save = p[i];
        p[i] = save + FD_EPS;
        double lp = lf_gso_loss_grad(k, p, &gg, lab, 3.0, mask, NULL, ws);
        p[i] = save - FD_EPS;
        double lm = lf_gso_loss_grad(k, p, &gg, lab, 3.0, mask, NULL, ws);
        p[i] = save;
        double num = (lp - lm) / (2.0 * FD_EPS);
        nonzero += fabs(g[i]) > 1e-4;
        if (!fd_close(num, g[i])) {
            if (bad++ < 5)
                fprintf(stderr, "%s param %lld: numeric %.6g analytic %.6g\n", lf_gso_kind_name(k), (long long)i, num,
                        (double)g[i]);
        }
    }
    CHECK_EQ_I64(bad, 0);
    CHECK(nonzero > np / 4); /* the check is not vacuous */
    /* the prediction is the sigmoid of the loss's logits: with no dropout,
     * a node's loss term for label 0 is -log(1 - p) */
    float prob[7];
    lf_gso_predict(k, p, &gg, ws, prob);
    uint8_t zero[7] = {0};
    gg.n = 1; /* the loss of node 0 alone */
    double l0 = lf_gso_loss_grad(k, p, &gg, zero, 1.0, NULL, NULL, ws);
    gg.n = 7;
    if (k == LF_GSO_LR)
        CHECK_NEAR(l0, -log(1 - prob[0]), 1e-5);
    free(p);
    free(g);
    free(ws);
    lf_gso_graph_destroy(&gg);
}

static void test_gradients(void)
{
    check_gradients(LF_GSO_GCN);
    check_gradients(LF_GSO_LR);
}

static lf_status tiny_dataset(lf_gso_dataset *d, const lf_subst_ruleset *rs, int32_t threads)
{
    static const char *const nets[] = {"alexnet", "inception_e", NULL};
    lf_gso_dataset_options o;
    lf_gso_dataset_options_default(&o);
    o.n_graphs = 40;
    o.n_train = 30;
    o.seed = 7;
    o.networks = nets;
    o.threads = threads;
    return lf_gso_dataset_build(d, rs, &o, NULL, NULL);
}

static void test_training_determinism(void)
{
    lf_subst_ruleset rs;
    CHECK_OK(lf_subst_ruleset_open(&rs, "builtin", NULL));
    lf_gso_dataset d1, d2;
    CHECK_OK(tiny_dataset(&d1, &rs, 1));
    CHECK_OK(tiny_dataset(&d2, &rs, 2));
    CHECK_EQ_I64(d1.n_graphs, 40);
    int same = d1.n_graphs == d2.n_graphs;
    for (int32_t i = 0; same && i < d1.n_graphs; i++)
        same = d1.g[i].n == d2.g[i].n && memcmp(d1.g[i].x, d2.g[i].x, (size_t)d1.g[i].n * LF_GSO_FEAT_DIM * 4) == 0 &&
               memcmp(d1.labels[i], d2.labels[i], (size_t)d1.n_rules * d1.g[i].n) == 0;
    CHECK(same);
    /* some graphs differ from their base network: the augmentation does something */
    int changed = 0;
    for (int32_t i = 20; i < d1.n_graphs; i++)
        changed += strstr(d1.origin[i], "+0r+0p") == NULL;
    CHECK(changed > 10);
    /* dataset file round trip */
    char path[] = "/tmp/lf_gso_ds_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    CHECK_OK(lf_gso_dataset_save(&d1, path));
    lf_gso_dataset d3;
    CHECK_OK(lf_gso_dataset_load(&d3, path));
    CHECK_EQ_I64(d3.n_graphs, d1.n_graphs);
    CHECK_EQ_I64(d3.n_train, 30);
    same = d3.n_graphs == d1.n_graphs && d3.n_rules == d1.n_rules;
    for (int32_t i = 0; same && i < d1.n_graphs; i++)
        same = d1.g[i].n_edges == d3.g[i].n_edges &&
               memcmp(d1.g[i].px, d3.g[i].px, (size_t)d1.g[i].n * LF_GSO_FEAT_DIM * 4) == 0 &&
               memcmp(d1.labels[i], d3.labels[i], (size_t)d1.n_rules * d1.g[i].n) == 0 &&
               strcmp(d1.origin[i], d3.origin[i]) == 0;
    CHECK(same);
    lf_gso_dataset_destroy(&d3);
    unlink(path);

    lf_gso_train_options o;
    lf_gso_train_options_default(&o);
    o.epochs = 3;
    o.seed = 5;
    lf_gso_set a, b, c;
    CHECK_OK(lf_gso_train(&d1, &o, &a));
    o.threads = 2;
    CHECK_OK(lf_gso_train(&d1, &o, &b));
    o.seed = 6;
    CHECK_OK(lf_gso_train(&d1, &o, &c));
    int64_t bytes = (int64_t)a.n * lf_gso_n_params(a.kind) * 4;
    CHECK(a.n == b.n && memcmp(a.params, b.params, (size_t)bytes) == 0);
    CHECK(memcmp(a.params, c.params, (size_t)bytes) != 0);
    int trained = 0;
    for (int32_t k = 0; k < a.n; k++)
        trained += a.positives[k] > 0;
    CHECK(trained >= 2); /* conv_relu and friends match alexnet */
    /* weight file round trip, then the header checks */
    char wpath[] = "/tmp/lf_gso_w_XXXXXX";
    fd = mkstemp(wpath);
    if (fd >= 0)
        close(fd);
    CHECK_OK(lf_gso_save(&a, wpath));
    lf_gso_set l;
    CHECK_OK(lf_gso_load(&l, wpath));
    CHECK(l.n == a.n && memcmp(l.params, a.params, (size_t)bytes) == 0);
    CHECK(lf_gso_set_find(&l, "conv_relu") == lf_gso_set_find(&a, "conv_relu"));
    lf_gso_set_destroy(&l);
    FILE *f = fopen(wpath, "r+b");
    long len = 0;
    if (f) {
        fseek(f, 0, SEEK_END);
        len = ftell(f);
        fseek(f, 8, SEEK_SET);
        fputc(9, f); /* format version 9 */
        fclose(f);
    }
    CHECK(lf_gso_load(&l, wpath) == LF_EUNSUPPORTED);
    CHECK(strstr(lf_last_error(), wpath) != NULL && strstr(lf_last_error(), "version 9") != NULL);
    CHECK(strchr(lf_last_error(), '\n') == NULL);
    CHECK_OK(lf_gso_save(&a, wpath));
    CHECK(truncate(wpath, len - 100) == 0);
    CHECK(lf_gso_load(&l, wpath) == LF_EPARSE);
    CHECK(strstr(lf_last_error(), wpath) != NULL);
    CHECK_OK(lf_gso_save(&a, wpath));
    f = fopen(wpath, "r+b");
    if (f) {
        fseek(f, len / 2, SEEK_SET);
        int ch = fgetc(f);
        fseek(f, len / 2, SEEK_SET);
        fputc(ch ^ 0x5a, f);
        fclose(f);
    }
    CHECK(lf_gso_load(&l, wpath) == LF_EPARSE);
    CHECK(strstr(lf_last_error(), "checksum") != NULL);
    f = fopen(wpath, "wb");
    if (f) {
        fputs("LFGNNWT-this is not a GSO weight file", f);
        fclose(f);
    }
    CHECK(lf_gso_load(&l, wpath) == LF_EPARSE);
    CHECK(strstr(lf_last_error(), "bad magic") != NULL);
    unlink(wpath);
    CHECK(lf_gso_load(&l, wpath) != LF_OK);
    CHECK(strstr(lf_last_error(), wpath) != NULL && strchr(lf_last_error(), '\n') == NULL);
    lf_gso_set_destroy(&a);
    lf_gso_set_destroy(&b);
    lf_gso_set_destroy(&c);
    lf_gso_dataset_destroy(&d1);
    lf_gso_dataset_destroy(&d2);
    lf_subst_ruleset_close(&rs);
}

/* x -> a (3x3 conv) -> ra (ReLU); x -> b (3x3 conv) -> rb; Concat(ra, rb) ->
 * c (1x1 conv): conv_relu, merge_convs and enlarge_conv match. */
static lf_graph *fork_graph(void)
{
    lf_graph_builder *b = NULL;
    lf_graph *g = NULL;
    if (lf_graph_builder_create(&b, "fork"))
        return NULL;
    tg_input(b, "x", 8, 8, 8);
    tg_conv(b, "a", "x", 8, 3, 1, 1, 1, 1, LF_ACT_NONE);
    tg_unary(b, LF_OP_RELU, "ra", "a");
    tg_conv(b, "b", "x", 8, 3, 1, 1, 1, 1, LF_ACT_NONE);
    tg_unary(b, LF_OP_RELU, "rb", "b");
    const char *in[2] = {"ra", "rb"};
    tg_concat(b, "cat", in, 2);
    tg_conv(b, "c", "cat", 8, 1, 1, 0, 1, 1, LF_ACT_NONE);
    lf_status st = lf_graph_builder_build(b, &g);
    lf_graph_builder_free(b);
    return st ? NULL : g;
}

static void test_filter(void)
{
    lf_graph *g = fork_graph();
    CHECK(g != NULL);
    if (!g)
        return;
    lf_subst_ruleset rs;
    CHECK_OK(lf_subst_ruleset_open(&rs, "builtin", NULL));
    uint8_t *truth = calloc((size_t)rs.n, 1), *keep = calloc((size_t)rs.n, 1);
    CHECK_OK(lf_gso_truth(g, &rs, truth));
    int32_t matching = 0, kept = 0;
    for (int32_t k = 0; k < rs.n; k++)
        matching += truth[k];
    CHECK(matching >= 3);
    CHECK(truth[0] == 0 || strcmp(rs.rule[0]->name, "conv_bn") != 0); /* no BatchNorm here */
    /* an empty model set knows no rule: everything enabled is kept */
    lf_gso_set none;
    CHECK_OK(lf_gso_set_init(&none, LF_GSO_GCN, 0, NULL));
    CHECK_OK(lf_gso_filter(&none, g, &rs, 0.5, keep, &kept));
    CHECK_EQ_I64(kept, rs.n);
    lf_gso_set_destroy(&none);
    /* the shipped models at a permissive threshold never drop a matching rule */
    char path[4200];
    lf_gso_set s;
    if (lf_weights_find(LF_GSO_SHIPPED_GCN, path, sizeof path) == LF_OK && lf_gso_load(&s, path) == LF_OK) {
        CHECK_OK(lf_gso_filter(&s, g, &rs, 0.05, keep, &kept));
        for (int32_t k = 0; k < rs.n; k++)
            if (truth[k] && !keep[k]) {
                fprintf(stderr, "permissive filter drops matching rule %s\n", rs.rule[k]->name);
                CHECK(keep[k]);
            }
        CHECK(kept < rs.n); /* and still removes something */
        /* at the default threshold it keeps exactly the matching rules here */
        CHECK_OK(lf_gso_filter(&s, g, &rs, 0.5, keep, &kept));
        CHECK_NEAR(lf_gso_jaccard_distance(keep, truth, rs.n), 0, 0);
        lf_gso_set_destroy(&s);
    } else {
        fprintf(stderr, "shipped GSO weights not found (%s): filter check skipped\n", lf_last_error());
        CHECK(0);
    }
    uint8_t a[4] = {1, 1, 0, 0}, b[4] = {1, 0, 1, 0}, z[4] = {0};
    CHECK_NEAR(lf_gso_jaccard_distance(a, b, 4), 1 - 1.0 / 3, 1e-12);
    CHECK_NEAR(lf_gso_jaccard_distance(z, z, 4), 0, 0);
    /* the hook: a mask without conv_relu keeps the search from fusing the ReLUs */
    lf_subst_coster c;
    lf_subst_coster_init(&c, LF_OBJ_KERNELS, NULL, "lbdf");
    lf_subst_options o;
    lf_subst_options_default(&o);
    o.skip_check = 1;
    lf_subst_result all, masked;
    CHECK_OK(lf_subst_optimize(g, &rs, &c, &o, &all));
    for (int32_t k = 0; k < rs.n; k++)
        keep[k] = strcmp(rs.rule[k]->name, "conv_relu") != 0;
    o.rule_mask = keep;
    CHECK_OK(lf_subst_optimize(g, &rs, &c, &o, &masked));
    int used_all = 0, used_masked = 0;
    for (int32_t i = 0; i < all.n_steps; i++)
        used_all += strcmp(rs.rule[all.steps[i].rule]->name, "conv_relu") == 0;
    for (int32_t i = 0; i < masked.n_steps; i++)
        used_masked += strcmp(rs.rule[masked.steps[i].rule]->name, "conv_relu") == 0;
    CHECK(used_all > 0);
    CHECK_EQ_I64(used_masked, 0);
    CHECK(masked.after.kernels > all.after.kernels);
    lf_subst_result_destroy(&all);
    lf_subst_result_destroy(&masked);
    /* the same through split (its capacities and parts) and enum */
    for (int srch = 0; srch < 2; srch++) {
        o.search = srch ? LF_SEARCH_ENUM : LF_SEARCH_SPLIT;
        o.split_size = 3;
        CHECK_OK(lf_subst_optimize(g, &rs, &c, &o, &masked));
        used_masked = 0;
        for (int32_t i = 0; i < masked.n_steps; i++)
            used_masked += strcmp(rs.rule[masked.steps[i].rule]->name, "conv_relu") == 0;
        CHECK_EQ_I64(used_masked, 0);
        CHECK(masked.n_steps > 0); /* other rules still apply (merge_convs) */
        lf_subst_result_destroy(&masked);
    }
    free(truth);
    free(keep);
    lf_subst_ruleset_close(&rs);
    lf_graph_free(g);
}

static void test_perturb(void)
{
    lf_graph *g = chain();
    if (!g)
        return;
    lf_rng r;
    lf_rng_seed(&r, 3, 0);
    lf_graph *p = NULL;
    /* insert a ReLU (kind 2): one op more, every op's shape valid */
    CHECK_OK(lf_gso_perturb(g, 2, &r, &p));
    if (p) {
        CHECK_EQ_I64(p->n_ops, g->n_ops + 1);
        lf_graph_free(p);
    }
    /* delete the ReLU (kind 3): one op fewer */
    CHECK_OK(lf_gso_perturb(g, 3, &r, &p));
    if (p) {
        CHECK_EQ_I64(p->n_ops, g->n_ops - 1);
        CHECK(lf_graph_find(p, "r1") < 0);
        lf_graph_free(p);
    }
    /* split + concat (kind 4): three ops more */
    CHECK_OK(lf_gso_perturb(g, 4, &r, &p));
    if (p) {
        CHECK_EQ_I64(p->n_ops, g->n_ops + 3);
        lf_graph_free(p);
    }
    lf_graph_free(g);
}

/* The reports of gso-dataset and gso-train (report.c): the summary's counts
 * recomputed from the labels, and the evaluation table's rows and means
 * from lf_gso_evaluate. */
static char *read_back(FILE *f)
{
    long n = ftell(f);
    char *t = calloc((size_t)n + 1, 1);
    rewind(f);
    if (t && fread(t, 1, (size_t)n, f) != (size_t)n)
        t[0] = '\0';
    fclose(f);
    return t;
}

static void test_reports(void)
{
    lf_subst_ruleset rs;
    CHECK_OK(lf_subst_ruleset_open(&rs, "builtin", NULL));
    lf_gso_dataset d;
    CHECK_OK(tiny_dataset(&d, &rs, 1));
    int64_t nodes = 0, pos = 0;
    int32_t rules_matching = 0;
    for (int32_t k = 0; k < d.n_rules; k++) {
        int64_t before = pos;
        for (int32_t i = 0; i < d.n_graphs; i++)
            for (int32_t v = 0; v < d.g[i].n; v++)
                pos += d.labels[i][(int64_t)k * d.g[i].n + v] != 0;
        rules_matching += pos > before;
    }
    for (int32_t i = 0; i < d.n_graphs; i++)
        nodes += d.g[i].n;
    CHECK(rules_matching >= 2 && pos > 0);
    char want[512];
    snprintf(want, sizeof want, "40 graphs (30 train, 10 test), %.1f ops per graph, %d rules (%d match somewhere), "
                                "%.2f%% positive labels", (double)nodes / 40, (int)d.n_rules, (int)rules_matching,
             100.0 * (double)pos / ((double)nodes * d.n_rules));
    FILE *f = tmpfile();
    if (f) {
        lf_gso_dataset_summary_write(f, &d);
        char *t = read_back(f);
        CHECK_STR(t, want);
        free(t);
    }
    lf_gso_train_options o;
    lf_gso_train_options_default(&o);
    o.kind = LF_GSO_LR;
    o.epochs = 2;
    lf_gso_set s;
    CHECK_OK(lf_gso_train(&d, &o, &s));
    lf_gso_eval *ev = calloc((size_t)d.n_rules, sizeof *ev);
    double jac = 0, share = 0;
    CHECK_OK(lf_gso_evaluate(&s, &d, 0.5, ev, &jac, &share));
    f = tmpfile();
    if (f && ev) {
        CHECK_OK(lf_gso_eval_write(f, &s, &d, 0.5));
        char *t = read_back(f);
        int32_t k = lf_gso_set_find(&s, "conv_relu");
        CHECK(k >= 0 && s.positives[k] > 0);
        snprintf(want, sizeof want, "\n%-28s %9d %9d %7d %9.4f %9.4f", "conv_relu", (int)s.positives[k], (int)ev[k].matching,
                 (int)ev[k].kept, ev[k].node_acc, ev[k].graph_acc);
        CHECK(t && strncmp(t, "rule                            train+     test+", 48) == 0);
        CHECK(t && strstr(t, want));
        snprintf(want, sizeof want, "mean Jaccard distance kept vs matching %.4f, rules kept %.1f%% (search space "
                                    "removed %.1f%%)\n", jac, 100 * share, 100 * (1 - share));
        CHECK(t && strstr(t, "test graphs 10: mean graph accuracy ") && strstr(t, want));
        free(t);
    }
    free(ev);
    lf_gso_set_destroy(&s);
    lf_gso_dataset_destroy(&d);
    lf_subst_ruleset_close(&rs);
}

int main(void)
{
    test_features();
    test_gradients();
    test_perturb();
    test_training_determinism();
    test_filter();
    test_reports();
    return lf_test_result();
}

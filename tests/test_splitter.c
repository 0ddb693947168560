/* The tree splitter (paper Algorithm 1) and its parts: edge proposers, cut
 * construction with skip connections (hand-derived cut sets on residual,
 * bottleneck, inverted residual with and without squeeze-and-excite,
 * inception and chain blocks), the category rules with their tie-breaks,
 * the evaluation cap and fallback, rectify accounting, a property test on
 * random DAGs of every family (contract, never better than the optimal
 * split), determinism (call order, thread count) and the tree splitter inside
 * every partition search.
 *
 * Hand-built maps are 8x16x16 (int8), so a row is 128 B, a tensor 2,048 B
 * and a 3x3 conv 8 -> 8 has 576 B of weights. A run of m such convs in a
 * chain needs F_beta = 576m + 128(3m + 1) = 960m + 128 B (3 rows of each
 * tensor read, one staging row) and moves F_D = 4,096 + 576m B. */
#include <stdlib.h>
#include <string.h>

#include "graphs.h"
#include "hwdesc/hw.h"
#include "planner/exact/exact.h"
#include "planner/plan.h"
#include "random_dags.h"
#include "search/partition/search.h"
#include "splitter/cuts.h"
#include "splitter/proposer.h"
#include "splitter/splitter.h"
#include "splitter/tree.h"
#include "fixtures.h"
#include "testlib.h"

static int32_t id(const lf_graph *g, const char *name)
{
    int32_t v = lf_graph_find(g, name);
    CHECK(v >= 0);
    return v;
}

/* Bitset of the ops named in a space-separated list. */
static void set_of(const lf_graph *g, const char *names, lf_bitset *out)
{
    char buf[512];
    lf_bitset_clear_all(out);
    snprintf(buf, sizeof buf, "%s", names);
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "))
        lf_bitset_set(out, id(g, t));
}

/* Every compute op of the graph. */
static void all_ops(const lf_graph *g, lf_bitset *out)
{
    lf_bitset_clear_all(out);
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].type != LF_OP_INPUT)
            lf_bitset_set(out, v);
}

/* Space-separated names of the ops of cut c on each side of the prefix,
 * "|"-separated parts, e.g. "a b|c d". */
static void parts_string(const lf_graph *g, const lf_split_result *r, char *out, size_t len)
{
    size_t at = 0;
    out[0] = 0;
    for (int32_t p = 0; p < r->n_parts; p++) {
        for (int32_t v = lf_bitset_next(&r->parts[p], 0); v >= 0;
             v = lf_bitset_next(&r->parts[p], v + 1))
            at += (size_t)snprintf(out + at, len - at, "%s%s",
                                   v == lf_bitset_next(&r->parts[p], 0) ? "" : " ", g->ops[v].name);
        if (p + 1 < r->n_parts)
            at += (size_t)snprintf(out + at, len - at, "|");
    }
}

/* The cut edges of candidate c as "u>v u>v" by name. */
static void cut_string(const lf_graph *g, const lf_cut_set *cs, int32_t c, char *out, size_t len)
{
    size_t at = 0;
    out[0] = 0;
    for (int32_t e = 0; e < cs->n_edges; e++)
        if (lf_cut_edge_is_cut(cs, c, e))
            at += (size_t)snprintf(out + at, len - at, "%s%s>%s", at ? " " : "",
                                   g->ops[cs->members[cs->eu[e]]].name,
                                   g->ops[cs->members[cs->ev[e]]].name);
}

static void cut_parts_string(const lf_graph *g, const lf_cut_set *cs, int32_t c, char *out,
                             size_t len)
{
    size_t at = 0;
    out[0] = 0;
    for (int32_t q = 0; q < cs->cuts[c].n_parts; q++) {
        int first = 1;
        for (int32_t i = 0; i < cs->n_members; i++)
            if (cs->cuts[c].part_of[i] == q) {
                at += (size_t)snprintf(out + at, len - at, "%s%s", first ? "" : " ",
                                       g->ops[cs->members[i]].name);
                first = 0;
            }
        if (q + 1 < cs->cuts[c].n_parts)
            at += (size_t)snprintf(out + at, len - at, "|");
    }
}

/* Builds the cuts of the named edges ("u>v" pairs) inside group. */
static void cuts_of(const lf_graph *g, const lf_bitset *group, const char *edges, lf_cut_set *cs)
{
    lf_edge_score e[16];
    int32_t n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", edges);
    for (char *t = strtok(buf, " "); t && n < 16; t = strtok(NULL, " ")) {
        char *gt = strchr(t, '>');
        *gt = 0;
        e[n].u = id(g, t);
        e[n].v = id(g, gt + 1);
        e[n].score = 16 - n;
        n++;
    }
    CHECK_OK(lf_cut_set_build(cs, g, group, e, n));
}

/* ---- a proposer returning fixed edges (those inside the group) --------- */

typedef struct fixed_ctx {
    int32_t n;
    int32_t u[8], v[8];
} fixed_ctx;

static lf_status fixed_propose(const lf_proposer *p, lf_cost_model *cm, const lf_bitset *group,
                               uint64_t seed, int32_t k, lf_edge_score *out, int32_t *n_out)
{
    (void)cm;
    (void)seed;
    (void)k;
    const fixed_ctx *f = p->ctx;
    int32_t n = 0;
    for (int32_t i = 0; i < f->n; i++)
        if (lf_bitset_test(group, f->u[i]) && lf_bitset_test(group, f->v[i])) {
            out[n].u = f->u[i];
            out[n].v = f->v[i];
            out[n].score = (double)(f->n - i);
            n++;
        }
    *n_out = n;
    return LF_OK;
}

/* The edge into the middle member of the group (chains only). */
static lf_status middle_propose(const lf_proposer *p, lf_cost_model *cm, const lf_bitset *group,
                                uint64_t seed, int32_t k, lf_edge_score *out, int32_t *n_out)
{
    (void)p;
    (void)seed;
    (void)k;
    const lf_graph *g = lf_cost_graph(cm);
    int32_t m[64], n = lf_bitset_to_list(group, m);
    *n_out = 0;
    if (n >= 2) {
        int32_t v = m[n / 2];
        for (int32_t j = 0; j < g->ops[v].n_inputs; j++)
            if (lf_bitset_test(group, g->ops[v].inputs[j])) {
                out[0].u = g->ops[v].inputs[j];
                out[0].v = v;
                out[0].score = 1.0;
                *n_out = 1;
                break;
            }
    }
    return LF_OK;
}

static lf_status none_propose(const lf_proposer *p, lf_cost_model *cm, const lf_bitset *group,
                              uint64_t seed, int32_t k, lf_edge_score *out, int32_t *n_out)
{
    (void)p, (void)cm, (void)group, (void)seed, (void)k, (void)out;
    *n_out = 0;
    return LF_OK;
}

/* Runs a tree splitter on group and returns the parts as a string; checks
 * the contract. */
static void tree_parts(lf_cost_model *cm, const lf_proposer *p, int32_t k, const lf_bitset *group,
                       char *out, size_t len, int32_t *rectified)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_splitter *s = NULL;
    lf_split_result r;
    out[0] = 0;
    CHECK_OK(lf_splitter_tree_create(&s, p, k, NULL));
    CHECK_OK(lf_split_result_init(&r, g->n_ops));
    if (s && s->split(s, cm, group, 7, &r) == LF_OK) {
        CHECK_OK(lf_split_result_check(cm, group, &r));
        parts_string(g, &r, out, len);
        if (rectified)
            *rectified = r.rectified;
    } else {
        CHECK(0);
    }
    lf_split_result_destroy(&r);
    lf_splitter_free(s);
}

/* ---- hand-built blocks -------------------------------------------------- */

static lf_graph *chain(int n, int relus_after_first)
{
    lf_graph_builder *b;
    char names[16][16]; /* room for any int, so -Wformat-truncation stays quiet */
    CHECK_OK(lf_graph_builder_create(&b, "chain"));
    const char *prev = tg_input(b, "x", 8, 16, 16);
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "c%d", i + 1);
        prev = tg_conv(b, names[i], prev, 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
        if (i == 0 && relus_after_first) {
            prev = tg_unary(b, LF_OP_RELU, "r1", prev);
            prev = tg_unary(b, LF_OP_RELU, "r2", prev);
            prev = tg_unary(b, LF_OP_RELU, "r3", prev);
        }
    }
    return tf_build(b);
}

static lf_graph *basic_block(void)
{
    lf_graph_builder *b;
    CHECK_OK(lf_graph_builder_create(&b, "basic"));
    tg_input(b, "x", 8, 16, 16);
    tg_conv(b, "stem", "x", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "c1", "stem", 8, 3, 1, 1, 1, 0, LF_ACT_RELU);
    tg_conv(b, "c2", "c1", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "add", "stem", "c2");
    tg_unary(b, LF_OP_RELU, "relu", "add");
    return tf_build(b);
}

static lf_graph *bottleneck(void)
{
    lf_graph_builder *b;
    CHECK_OK(lf_graph_builder_create(&b, "bottleneck"));
    tg_input(b, "x", 8, 16, 16);
    tg_conv(b, "stem", "x", 16, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "a", "stem", 4, 1, 1, 0, 1, 0, LF_ACT_RELU);
    tg_conv(b, "b", "a", 4, 3, 1, 1, 1, 0, LF_ACT_RELU);
    tg_conv(b, "c", "b", 16, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "add", "stem", "c");
    tg_unary(b, LF_OP_RELU, "relu", "add");
    return tf_build(b);
}

static lf_graph *inverted_residual(int se)
{
    lf_graph_builder *b;
    CHECK_OK(lf_graph_builder_create(&b, se ? "ir-se" : "ir"));
    tg_input(b, "x", 8, 16, 16);
    tg_conv(b, "stem", "x", 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "exp", "stem", 24, 1, 1, 0, 1, 0, LF_ACT_RELU6);
    tg_conv(b, "dw", "exp", 24, 3, 1, 1, 24, 0, LF_ACT_RELU6);
    const char *in = "dw";
    if (se) {
        tg_unary(b, LF_OP_GLOBALAVGPOOL, "pool", "dw");
        tg_conv(b, "fc1", "pool", 6, 1, 1, 0, 1, 0, LF_ACT_NONE);
        tg_unary(b, LF_OP_RELU, "fr", "fc1");
        tg_conv(b, "fc2", "fr", 24, 1, 1, 0, 1, 0, LF_ACT_NONE);
        tg_unary(b, LF_OP_SIGMOID, "sig", "fc2");
        tg_binary(b, LF_OP_MUL, "mul", "dw", "sig");
        in = "mul";
    }
    tg_conv(b, "proj", in, 8, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "add", "stem", "proj");
    return tf_build(b);
}

static lf_graph *inception(void)
{
    lf_graph_builder *b;
    CHECK_OK(lf_graph_builder_create(&b, "inception"));
    tg_input(b, "x", 8, 16, 16);
    tg_conv(b, "stem", "x", 8, 3, 1, 1, 1, 0, LF_ACT_RELU);
    tg_conv(b, "b1", "stem", 4, 1, 1, 0, 1, 0, LF_ACT_RELU);
    tg_conv(b, "b2a", "stem", 4, 1, 1, 0, 1, 0, LF_ACT_RELU);
    tg_conv(b, "b2b", "b2a", 4, 3, 1, 1, 1, 0, LF_ACT_RELU);
    tg_pool(b, LF_OP_MAXPOOL, "b3p", "stem", 3, 1, 1);
    tg_conv(b, "b3c", "b3p", 4, 1, 1, 0, 1, 0, LF_ACT_RELU);
    const char *cat[3] = {"b1", "b2b", "b3c"};
    tg_concat(b, "cat", cat, 3);
    tg_conv(b, "post", "cat", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    return tf_build(b);
}

/* Cut sets derived by hand from the topological positions (paper Fig. 2(c)). */
static void test_cut_sets(void)
{
    char buf[256];
    lf_cut_set cs;
    /* Basic block: the skip edge stem>add spans positions 0..2, so it gives
     * three cuts, each taking the skip along (upper half of Fig. 2(c)). */
    lf_graph *g = basic_block();
    lf_bitset grp;
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    all_ops(g, &grp);
    cuts_of(g, &grp, "stem>add", &cs);
    CHECK_EQ_I64(cs.n_cuts, 3);
    cut_string(g, &cs, 0, buf, sizeof buf);
    CHECK_STR(buf, "stem>c1 stem>add");
    cut_string(g, &cs, 1, buf, sizeof buf);
    CHECK_STR(buf, "stem>add c1>c2");
    cut_parts_string(g, &cs, 1, buf, sizeof buf);
    CHECK_STR(buf, "stem c1|c2 add relu");
    cut_string(g, &cs, 2, buf, sizeof buf);
    CHECK_STR(buf, "stem>add c2>add");
    for (int32_t c = 0; c < cs.n_cuts; c++)
        CHECK(cs.cuts[c].n_cut >= 2);
    lf_cut_set_destroy(&cs);
    /* An edge under the skip takes the enclosing skip along (lower half). */
    cuts_of(g, &grp, "c1>c2", &cs);
    CHECK_EQ_I64(cs.n_cuts, 1);
    cut_string(g, &cs, 0, buf, sizeof buf);
    CHECK_STR(buf, "stem>add c1>c2");
    lf_cut_set_destroy(&cs);
    /* Duplicates: the skip and an edge under it share position 1. */
    cuts_of(g, &grp, "c1>c2 stem>add add>relu", &cs);
    CHECK_EQ_I64(cs.n_cuts, 4);
    CHECK_EQ_I64(cs.cuts[1].pos, 1);
    CHECK_EQ_I64(cs.cuts[1].edge, 0);
    CHECK_EQ_I64(cs.cuts[0].edge, 1);
    CHECK_EQ_I64(cs.cuts[3].edge, 2);
    lf_cut_set_destroy(&cs);
    lf_bitset_destroy(&grp);
    lf_graph_free(g);

    /* Bottleneck: an edge in the body, cut with the skip. */
    g = bottleneck();
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    all_ops(g, &grp);
    cuts_of(g, &grp, "b>c", &cs);
    CHECK_EQ_I64(cs.n_cuts, 1);
    cut_string(g, &cs, 0, buf, sizeof buf);
    CHECK_STR(buf, "stem>add b>c");
    cut_parts_string(g, &cs, 0, buf, sizeof buf);
    CHECK_STR(buf, "stem a b|c add relu");
    lf_cut_set_destroy(&cs);
    lf_bitset_destroy(&grp);
    lf_graph_free(g);

    /* Inverted residual with squeeze-and-excite: the SE skip dw>mul nested
     * in the residual stem>add. At the dw position three edges are cut. */
    g = inverted_residual(1);
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    all_ops(g, &grp);
    cuts_of(g, &grp, "dw>mul", &cs);
    CHECK_EQ_I64(cs.n_cuts, 6);
    cut_string(g, &cs, 0, buf, sizeof buf);
    CHECK_STR(buf, "stem>add dw>pool dw>mul");
    cut_string(g, &cs, 3, buf, sizeof buf);
    CHECK_STR(buf, "stem>add dw>mul fr>fc2");
    cut_parts_string(g, &cs, 3, buf, sizeof buf);
    CHECK_STR(buf, "stem exp dw pool fc1 fr|fc2 sig mul proj add");
    lf_cut_set_destroy(&cs);
    /* Inside the SE branch: both skips come along. */
    cuts_of(g, &grp, "fc1>fr", &cs);
    CHECK_EQ_I64(cs.n_cuts, 1);
    cut_string(g, &cs, 0, buf, sizeof buf);
    CHECK_STR(buf, "stem>add dw>mul fc1>fr");
    lf_cut_set_destroy(&cs);
    lf_bitset_destroy(&grp);
    lf_graph_free(g);

    g = inverted_residual(0);
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    all_ops(g, &grp);
    cuts_of(g, &grp, "exp>dw", &cs);
    cut_string(g, &cs, 0, buf, sizeof buf);
    CHECK_STR(buf, "stem>add exp>dw");
    lf_cut_set_destroy(&cs);
    lf_bitset_destroy(&grp);
    lf_graph_free(g);

    /* Inception: a cut through the concat's branches; without the stem the
     * prefix {b1, b2a} falls apart into two parts. */
    g = inception();
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    all_ops(g, &grp);
    cuts_of(g, &grp, "b2b>cat", &cs);
    CHECK_EQ_I64(cs.n_cuts, 3); /* positions of b2b, b3p, b3c */
    cut_string(g, &cs, 0, buf, sizeof buf);
    CHECK_STR(buf, "stem>b3p b1>cat b2b>cat");
    cut_parts_string(g, &cs, 0, buf, sizeof buf);
    CHECK_STR(buf, "stem b1 b2a b2b|b3p b3c cat post");
    lf_cut_set_destroy(&cs);
    set_of(g, "b1 b2a b2b cat post", &grp);
    cuts_of(g, &grp, "b2a>b2b", &cs);
    CHECK_EQ_I64(cs.n_cuts, 1);
    CHECK_EQ_I64(cs.cuts[0].n_parts, 3);
    cut_parts_string(g, &cs, 0, buf, sizeof buf);
    CHECK_STR(buf, "b1|b2a|b2b cat post");
    lf_cut_set_destroy(&cs);
    /* An edge outside the group is refused. */
    lf_edge_score bad = {id(g, "stem"), id(g, "b1"), 1.0};
    CHECK(lf_cut_set_build(&cs, g, &grp, &bad, 1) == LF_EINVAL);
    lf_cut_set_destroy(&cs);
    lf_bitset_destroy(&grp);
    lf_graph_free(g);
}

/* Chain of 8 convs: F_beta(m) = 960m + 128, every split of s parts moves
 * 4,096s + 4,608 B, so ties are broken by position. */
static void test_chain_categories(void)
{
    char buf[256];
    lf_graph *g = chain(8, 0);
    lf_bitset grp;
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    all_ops(g, &grp);
    lf_group_cost c;
    lf_cost_model *cm = tf_model_default(g, 5000, "lbdf");
    CHECK_OK(lf_cost_eval(cm, &grp, &c));
    CHECK_EQ_I64(c.f_beta, 960 * 8 + 128);
    /* beta 5,000: runs of up to 4 convs fit. Category 1 at positions 2, 3
     * and 4 with equal F_D: the smallest position wins. */
    int32_t rect = 0;
    tree_parts(cm, lf_proposer_all(), 0, &grp, buf, sizeof buf, &rect);
    CHECK_STR(buf, "c1 c2 c3|c4 c5 c6 c7 c8");
    CHECK_EQ_I64(rect, 1);
    /* Category 1 is preferred to an earlier-ranked category-2 cut. */
    fixed_ctx f = {2, {id(g, "c1"), id(g, "c4")}, {id(g, "c2"), id(g, "c5")}};
    lf_proposer fixed = {"fixed", 0, fixed_propose, NULL, &f};
    tree_parts(cm, &fixed, 0, &grp, buf, sizeof buf, NULL);
    CHECK_STR(buf, "c1 c2 c3 c4|c5 c6 c7 c8");
    lf_cost_model_free(cm);

    /* beta 3,000: at most 2 convs. No category 1 at the first level; the
     * category-2 cuts with 2 valid ops are positions 1 and 5 (equal F_D):
     * position 1 wins, and so on down the chain. */
    cm = tf_model_default(g, 3000, "lbdf");
    tree_parts(cm, lf_proposer_all(), 0, &grp, buf, sizeof buf, &rect);
    CHECK_STR(buf, "c1 c2|c3 c4|c5 c6|c7 c8");
    CHECK_EQ_I64(rect, 1);
    int hit = 1;
    CHECK_OK(lf_tree_rectify_test(cm, lf_proposer_all(), 0, &grp, 1, &hit));
    CHECK_EQ_I64(hit, 0);
    /* Category 3: the middle edge leaves 4 | 4, both invalid; each half's
     * middle edge then gives 2 | 2. */
    lf_proposer middle = {"middle", 0, middle_propose, NULL, NULL};
    tree_parts(cm, &middle, 1, &grp, buf, sizeof buf, &rect);
    CHECK_STR(buf, "c1 c2|c3 c4|c5 c6|c7 c8");
    CHECK_EQ_I64(rect, 1);
    /* Under a cap of 1 the category-3 recursion (2 sub-groups) fails: the
     * random split takes over and rectified is 0. */
    lf_tree_options o;
    lf_tree_options_default(&o);
    o.eval_cap = 1;
    lf_splitter *s = NULL;
    lf_split_result r;
    CHECK_OK(lf_split_result_init(&r, g->n_ops));
    CHECK_OK(lf_splitter_tree_create(&s, &middle, 1, &o));
    CHECK_OK(s->split(s, cm, &grp, 3, &r));
    CHECK_OK(lf_split_result_check(cm, &grp, &r));
    CHECK_EQ_I64(r.rectified, 0);
    CHECK_OK(s->split(s, cm, &grp, 3, &r)); /* memoized failure */
    lf_tree_stats ts;
    CHECK_OK(lf_splitter_tree_stats(s, &ts));
    CHECK_EQ_I64(ts.calls, 2);
    CHECK_EQ_I64(ts.memo_hits, 1);
    CHECK_EQ_I64(ts.groups, 1);
    CHECK_EQ_I64(ts.cap_hits, 1);
    CHECK_EQ_I64(ts.fallbacks, 2);
    CHECK_EQ_I64(ts.tree_success, 0);
    lf_splitter_free(s);
    /* No edge proposed: failure, fallback. */
    lf_proposer none = {"none", 0, none_propose, NULL, NULL};
    CHECK_OK(lf_splitter_tree_create(&s, &none, 3, NULL));
    CHECK_OK(s->split(s, cm, &grp, 3, &r));
    CHECK_OK(lf_split_result_check(cm, &grp, &r));
    CHECK_EQ_I64(r.rectified, 0);
    lf_splitter_free(s);
    lf_split_result_destroy(&r);
    lf_cost_model_free(cm);
    lf_bitset_destroy(&grp);
    lf_graph_free(g);

    /* Category 2 picks the most valid ops: c1 r1 r2 r3 (1,472 B) beats the
     * suffix c3 c4 (2,048 B, 2 ops) at beta 2,100; then c2 c3 c4 splits in
     * category 1 at its first position. */
    g = chain(4, 1);
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    all_ops(g, &grp);
    cm = tf_model_default(g, 2100, "lbdf");
    set_of(g, "c1 r1 r2 r3", &grp);
    CHECK_OK(lf_cost_eval(cm, &grp, &c));
    CHECK_EQ_I64(c.f_beta, 1472);
    all_ops(g, &grp);
    tree_parts(cm, lf_proposer_all(), 0, &grp, buf, sizeof buf, NULL);
    CHECK_STR(buf, "c1 r1 r2 r3|c2|c3 c4");
    lf_cost_model_free(cm);
    lf_bitset_destroy(&grp);
    lf_graph_free(g);
}

/* Basic block on 8x16x16: whole 3,264 B. Cuts (prefix | suffix, F_beta):
 * 0: 1,088 | 2,304; 1: 2,176 | 1,472; 2: 3,136 | 512; 3: 3,136 | 256, with
 * F_D totals 9,920, 14,016, 14,016, 9,920. */
static void test_blocks(void)
{
    char buf[256];
    lf_graph *g = basic_block();
    lf_bitset grp;
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    all_ops(g, &grp);
    lf_group_cost c;
    lf_cost_model *cm = tf_model_default(g, 3200, "lbdf");
    CHECK_OK(lf_cost_eval(cm, &grp, &c));
    CHECK_EQ_I64(c.f_beta, 3264);
    /* beta 3,200: category 1 at 0 and 3 tie at 9,920: position 0. */
    tree_parts(cm, lf_proposer_all(), 0, &grp, buf, sizeof buf, NULL);
    CHECK_STR(buf, "stem|c1 c2 add relu");
    lf_cost_model_free(cm);
    /* beta 2,200: only position 1 is category 1. */
    cm = tf_model_default(g, 2200, "lbdf");
    tree_parts(cm, lf_proposer_all(), 0, &grp, buf, sizeof buf, NULL);
    CHECK_STR(buf, "stem c1|c2 add relu");
    /* The skip edge alone reaches it too (its cuts include position 1). */
    fixed_ctx f = {1, {id(g, "stem")}, {id(g, "add")}};
    lf_proposer fixed = {"fixed", 0, fixed_propose, NULL, &f};
    int hit = 0;
    CHECK_OK(lf_tree_rectify_test(cm, &fixed, 1, &grp, 1, &hit));
    CHECK_EQ_I64(hit, 1);
    int64_t opt = 0;
    lf_plan parts;
    CHECK_OK(lf_exact_split(cm, &grp, NULL, &parts, &opt, NULL));
    CHECK_EQ_I64(opt, 14016);
    lf_plan_destroy(&parts);
    lf_cost_model_free(cm);
    lf_bitset_destroy(&grp);
    lf_graph_free(g);

    /* The other blocks at a beta that makes them invalid: the tree split
     * with `all` is a valid split, never better than the optimum. */
    lf_graph *gs[4] = {bottleneck(), inverted_residual(0), inverted_residual(1), inception()};
    for (int i = 0; i < 4; i++) {
        g = gs[i];
        CHECK_OK(lf_bitset_init(&grp, g->n_ops));
        all_ops(g, &grp);
        cm = tf_model_default(g, 1 << 20, "lbdf");
        CHECK_OK(lf_cost_eval(cm, &grp, &c));
        lf_cost_model_free(cm);
        cm = tf_model_default(g, c.f_beta * 3 / 4, "lbdf");
        for (int pi = 0; pi < 3; pi++) {
            const lf_proposer *p = pi == 0 ? lf_proposer_all()
                                   : pi == 1 ? lf_proposer_attrib()
                                             : lf_proposer_random();
            lf_tree_options o;
            lf_tree_options_default(&o);
            o.measure_gap = 1;
            lf_splitter *s = NULL;
            lf_split_result r;
            CHECK_OK(lf_split_result_init(&r, g->n_ops));
            CHECK_OK(lf_splitter_tree_create(&s, p, 3, &o));
            CHECK_OK(s->split(s, cm, &grp, 11, &r));
            CHECK_OK(lf_split_result_check(cm, &grp, &r));
            lf_tree_stats ts;
            CHECK_OK(lf_splitter_tree_stats(s, &ts));
            CHECK_EQ_I64(ts.groups, 1);
            if (ts.gap_groups == 1)
                CHECK(ts.gap_min >= 1.0);
            if (pi == 0) {
                CHECK_EQ_I64(ts.tree_success, 1);
                CHECK_EQ_I64(ts.gap_groups, 1);
            }
            /* Measuring after the split gives the same gap; measuring twice
             * adds nothing. */
            lf_tree_options o2 = o;
            o2.measure_gap = 0;
            lf_splitter *s2 = NULL;
            CHECK_OK(lf_splitter_tree_create(&s2, p, 3, &o2));
            CHECK_OK(s2->split(s2, cm, &grp, 11, &r));
            lf_tree_stats t2;
            CHECK_OK(lf_splitter_tree_stats(s2, &t2));
            CHECK_EQ_I64(t2.gap_groups, 0);
            CHECK_OK(lf_splitter_tree_measure_gaps(s2, cm));
            CHECK_OK(lf_splitter_tree_measure_gaps(s2, cm));
            CHECK_OK(lf_splitter_tree_stats(s2, &t2));
            CHECK_EQ_I64(t2.gap_groups, ts.gap_groups);
            CHECK(t2.gap_sum == ts.gap_sum);
            CHECK(lf_splitter_tree_measure_gaps((lf_splitter *)lf_splitter_random(), cm) == LF_EINVAL);
            lf_splitter_free(s2);
            lf_split_result_destroy(&r);
            lf_splitter_free(s);
        }
        lf_cost_model_free(cm);
        lf_bitset_destroy(&grp);
        lf_graph_free(g);
    }
}

static void test_proposers(void)
{
    lf_graph *g = inverted_residual(1);
    lf_bitset grp;
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    all_ops(g, &grp);
    lf_cost_model *cm = tf_model_default(g, 2048, "lbdf");
    int32_t ne = lf_group_edge_count(g, &grp);
    CHECK_EQ_I64(ne, 12);
    lf_edge_score *e = malloc((size_t)ne * sizeof *e), *e2 = malloc((size_t)ne * sizeof *e2);
    int32_t n = 0, n2 = 0;
    CHECK_OK(lf_proposer_run(lf_proposer_all(), cm, &grp, 1, 3, e, &n));
    CHECK_EQ_I64(n, ne); /* `all` ignores k */
    for (int32_t i = 1; i < n; i++)
        CHECK(e[i - 1].u < e[i].u || (e[i - 1].u == e[i].u && e[i - 1].v < e[i].v));
    CHECK_OK(lf_proposer_run(lf_proposer_random(), cm, &grp, 5, 3, e, &n));
    CHECK_EQ_I64(n, 3);
    CHECK_OK(lf_proposer_run(lf_proposer_random(), cm, &grp, 5, 3, e2, &n2));
    CHECK(n2 == 3 && memcmp(e, e2, 3 * sizeof *e) == 0);
    CHECK_OK(lf_proposer_run(lf_proposer_random(), cm, &grp, 5, 0, e2, &n2));
    CHECK_EQ_I64(n2, ne);
    int differs = 0;
    for (uint64_t seed = 6; seed < 16; seed++) {
        CHECK_OK(lf_proposer_run(lf_proposer_random(), cm, &grp, seed, 3, e2, &n2));
        differs |= memcmp(e, e2, 3 * sizeof *e) != 0;
    }
    CHECK(differs);
    /* attrib: the map dw feeds the SE multiply, which waits for the pool:
     * its whole map is held, so dw>mul ranks first. */
    CHECK_OK(lf_proposer_run(lf_proposer_attrib(), cm, &grp, 1, 3, e, &n));
    CHECK_EQ_I64(n, 3);
    CHECK(e[0].u == id(g, "dw"));
    CHECK(e[0].score >= e[1].score && e[1].score >= e[2].score);
    CHECK(e[0].score > 0.0 && e[0].score <= 1.0);
    const lf_proposer *p = NULL;
    CHECK_OK(lf_proposer_find("attrib", &p));
    CHECK(p == lf_proposer_attrib());
    CHECK(lf_proposer_find("nope", &p) == LF_ENOTFOUND);
    CHECK_STR(lf_last_error(), "unknown edge proposer 'nope' (known: all, random, attrib)");
    /* A proposer breaking the contract is caught. */
    fixed_ctx f = {1, {id(g, "stem")}, {id(g, "dw")}};
    lf_proposer fixed = {"fixed", 0, fixed_propose, NULL, &f};
    CHECK(lf_proposer_run(&fixed, cm, &grp, 1, 3, e, &n) == LF_EINVAL);
    free(e);
    free(e2);
    lf_cost_model_free(cm);
    lf_bitset_destroy(&grp);
    lf_graph_free(g);
}

/* Every family, several seeds, small and medium beta, all proposers: the
 * contract holds and no split beats the optimum. With `all` the recursion
 * always succeeds and the gap is at least 1. */
static void test_random_dags(void)
{
    int64_t groups = 0, successes = 0;
    for (int f = 0; f < RDAG_FAMILIES; f++)
        for (uint64_t seed = 0; seed < 5; seed++)
            for (int bi = 0; bi < 2; bi++) {
                lf_graph *g = rdag_build(200 + seed, f, 24);
                if (!g) {
                    CHECK(0);
                    continue;
                }
                lf_cost_model *cm = tf_model_default(g, bi ? RDAG_BETA_MEDIUM : RDAG_BETA_SMALL, "lbdf");
                lf_bitset grp[8];
                for (int i = 0; i < 8; i++)
                    CHECK_OK(lf_bitset_init(&grp[i], g->n_ops));
                int32_t ng = cm ? tf_invalid_components(cm, grp, 8) : 0;
                for (int pi = 0; pi < 3; pi++) {
                    const lf_proposer *p = pi == 0 ? lf_proposer_all()
                                           : pi == 1 ? lf_proposer_attrib()
                                                     : lf_proposer_random();
                    lf_tree_options o;
                    lf_tree_options_default(&o);
                    o.measure_gap = 1;
                    lf_splitter *s = NULL;
                    lf_split_result r;
                    CHECK_OK(lf_split_result_init(&r, g->n_ops));
                    CHECK_OK(lf_splitter_tree_create(&s, p, 3, &o));
                    for (int32_t i = 0; s && i < ng; i++) {
                        CHECK_OK(s->split(s, cm, &grp[i], seed, &r));
                        CHECK_OK(lf_split_result_check(cm, &grp[i], &r));
                        int64_t mine = 0;
                        for (int32_t q = 0; q < r.n_parts; q++) {
                            lf_group_cost c;
                            CHECK_OK(lf_cost_eval(cm, &r.parts[q], &c));
                            mine += c.f_d;
                        }
                        lf_plan opt;
                        int64_t best = 0;
                        if (lf_exact_split(cm, &grp[i], NULL, &opt, &best, NULL) == LF_OK) {
                            CHECK(mine >= best);
                            lf_plan_destroy(&opt);
                        }
                        if (pi == 0) {
                            groups++;
                            successes += r.rectified;
                            CHECK_EQ_I64(r.rectified, 1);
                        }
                    }
                    lf_tree_stats ts;
                    CHECK_OK(lf_splitter_tree_stats(s, &ts));
                    CHECK(ts.rectify_hits <= ts.groups && ts.tree_success <= ts.groups);
                    if (ts.gap_groups > 0)
                        CHECK(ts.gap_min >= 1.0 && ts.mean_gap >= 1.0);
                    lf_split_result_destroy(&r);
                    lf_splitter_free(s);
                }
                for (int i = 0; i < 8; i++)
                    lf_bitset_destroy(&grp[i]);
                lf_cost_model_free(cm);
                lf_graph_free(g);
            }
    CHECK(groups > 20);
    CHECK_EQ_I64(successes, groups);
}

/* The result for a group does not depend on which groups were split before:
 * two splitters meet the same groups in opposite orders. */
static void test_call_order(void)
{
    lf_graph *g = rdag_build(31, RDAG_MIXED, 40);
    lf_cost_model *cm = g ? tf_model_default(g, RDAG_BETA_SMALL, "lbdf") : NULL;
    if (!cm) {
        CHECK(0);
        lf_graph_free(g);
        return;
    }
    /* Groups: every window of 8 consecutive fusable ops, as components. */
    enum { NG = 24 };
    lf_bitset grp[NG];
    int32_t ng = 0;
    for (int32_t start = 1; start + 8 < g->n_ops && ng < NG; start += 2) {
        CHECK_OK(lf_bitset_init(&grp[ng], g->n_ops));
        for (int32_t v = start; v < start + 8; v++)
            if (lf_cost_fusable(cm, v) && g->ops[v].type != LF_OP_INPUT)
                lf_bitset_set(&grp[ng], v);
        lf_group_cost c;
        if (!lf_bitset_is_empty(&grp[ng]) && lf_cost_eval(cm, &grp[ng], &c) == LF_OK && !c.valid)
            ng++;
        else
            lf_bitset_destroy(&grp[ng]);
    }
    CHECK(ng > 3);
    for (int pi = 0; pi < 3; pi++) {
        const lf_proposer *p = pi == 0 ? lf_proposer_all()
                               : pi == 1 ? lf_proposer_attrib()
                                         : lf_proposer_random();
        lf_splitter *a = NULL, *b = NULL;
        CHECK_OK(lf_splitter_tree_create(&a, p, 3, NULL));
        CHECK_OK(lf_splitter_tree_create(&b, p, 3, NULL));
        lf_split_result ra[NG], rb;
        for (int32_t i = 0; i < ng; i++) {
            CHECK_OK(lf_split_result_init(&ra[i], g->n_ops));
            CHECK_OK(a->split(a, cm, &grp[i], lf_split_seed(5, &grp[i]), &ra[i]));
        }
        CHECK_OK(lf_split_result_init(&rb, g->n_ops));
        for (int32_t i = ng - 1; i >= 0; i--) {
            CHECK_OK(b->split(b, cm, &grp[i], lf_split_seed(5, &grp[i]), &rb));
            int same = rb.n_parts == ra[i].n_parts && rb.rectified == ra[i].rectified;
            for (int32_t q = 0; same && q < rb.n_parts; q++)
                same = lf_bitset_equal(&rb.parts[q], &ra[i].parts[q]);
            CHECK(same);
        }
        lf_tree_stats sa, sb;
        CHECK_OK(lf_splitter_tree_stats(a, &sa));
        CHECK_OK(lf_splitter_tree_stats(b, &sb));
        CHECK_EQ_I64(sa.groups, sb.groups);
        CHECK_EQ_I64(sa.rectify_hits, sb.rectify_hits);
        CHECK_EQ_I64(sa.tree_success, sb.tree_success);
        for (int32_t i = 0; i < ng; i++)
            lf_split_result_destroy(&ra[i]);
        lf_split_result_destroy(&rb);
        lf_splitter_free(a);
        lf_splitter_free(b);
    }
    for (int32_t i = 0; i < ng; i++)
        lf_bitset_destroy(&grp[i]);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* The tree splitter inside every search: valid plans, the same plan with 1
 * and 2 threads, and counters that add up. */
static void test_in_search(void)
{
    static const char *const algos[] = {"random", "local", "nsga2"};
    for (int f = 0; f < RDAG_FAMILIES; f += 2) {
        lf_graph *g = rdag_build(400 + (uint64_t)f, f, 40);
        lf_cost_model *cm = g ? tf_model_default(g, RDAG_BETA_SMALL, "lbdf") : NULL;
        if (!cm) {
            CHECK(0);
            lf_graph_free(g);
            continue;
        }
        for (int a = 0; a < 3; a++)
            for (int pi = 0; pi < 3; pi++) {
                const lf_proposer *p = pi == 0 ? lf_proposer_all()
                                       : pi == 1 ? lf_proposer_attrib()
                                                 : lf_proposer_random();
                lf_search_result r[2];
                lf_tree_stats ts[2];
                for (int t = 0; t < 2; t++) {
                    lf_splitter *s = NULL;
                    CHECK_OK(lf_splitter_tree_create(&s, p, 3, NULL));
                    lf_search_config cfg;
                    lf_search_config_default(&cfg);
                    cfg.algorithm = algos[a];
                    cfg.budget = 60;
                    cfg.seed = 9;
                    cfg.threads = t + 1;
                    cfg.quiet = 1;
                    cfg.splitter = s;
                    CHECK_OK(lf_search_run(cm, &cfg, &r[t]));
                    CHECK_OK(lf_plan_check(&r[t].best, cm));
                    CHECK_OK(lf_splitter_tree_stats(s, &ts[t]));
                    CHECK(ts[t].calls >= r[t].rectified);
                    CHECK(ts[t].groups <= ts[t].calls);
                    lf_splitter_free(s);
                }
                CHECK(r[0].best.n_groups == r[1].best.n_groups &&
                      memcmp(r[0].best.group_of, r[1].best.group_of,
                             (size_t)r[0].best.n_ops * sizeof(int32_t)) == 0);
                CHECK_EQ_I64(r[0].metrics.dram_fusable, r[1].metrics.dram_fusable);
                CHECK_EQ_I64(r[0].invalid_groups, r[1].invalid_groups);
                CHECK_EQ_I64(ts[0].groups, ts[1].groups);
                CHECK_EQ_I64(ts[0].rectify_hits, ts[1].rectify_hits);
                CHECK_EQ_I64(ts[0].tree_success, ts[1].tree_success);
                if (pi == 0)
                    CHECK_EQ_I64(ts[0].tree_success, ts[0].groups);
                for (int t = 0; t < 2; t++)
                    lf_search_result_destroy(&r[t]);
            }
        lf_cost_model_free(cm);
        lf_graph_free(g);
    }
}

int main(void)
{
    test_cut_sets();
    test_chain_categories();
    test_blocks();
    test_proposers();
    test_random_dags();
    test_call_order();
    test_in_search();
    return lf_test_result();
}

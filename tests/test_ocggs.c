/* Substitution optimizer, part 2: OCGGS's searches (issue 13). The order
 * over substitutions on hand-built sequences, Pruning = DPP = ENU = brute
 * force on random small graphs, every returned sequence replaying to the
 * graph reported, Sampling deterministic for a seed, the time cap, and the
 * networks of OCGGS's Table 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphs.h"
#include "models/registry.h"
#include "planner/util/rng.h"
#include "search/subst/ocggs_internal.h"
#include "search/subst/subst.h"
#include "testlib.h"

static lf_graph *build(lf_graph_builder *b)
{
    lf_graph *g = NULL;
    lf_status st = lf_graph_builder_build(b, &g);
    if (st)
        fprintf(stderr, "build: %s\n", lf_last_error());
    lf_graph_builder_free(b);
    return g;
}

static int32_t rule_index(const lf_subst_ruleset *rs, const char *name)
{
    for (int32_t i = 0; i < rs->n; i++)
        if (strcmp(rs->rule[i]->name, name) == 0)
            return i;
    return -1;
}

/* The match of rule k whose first op is named `first`; 1 when found. */
static int find_match(const lf_graph *g, const lf_subst_rule *r, const char *first, lf_subst_match *out)
{
    lf_subst_matches ms = {0, 0, NULL};
    int found = 0;
    if (lf_subst_find(g, r, &ms) == LF_OK)
        for (int32_t j = 0; j < ms.n && !found; j++)
            if (strcmp(g->ops[ms.m[j].op[0]].name, first) == 0) {
                *out = ms.m[j];
                found = 1;
            }
    lf_subst_matches_free(&ms);
    return found;
}

/* The built-in rules, verified once (verification runs the executor on
 * every rule's examples) and shared by the tests. */
static lf_subst_ruleset shared_rules;

static void open_rules(lf_subst_ruleset *rs) { *rs = shared_rules; }

/* Two independent conv -> relu pairs (a, b), and a chain conv -> bn -> relu (c). */
static lf_graph *order_graph(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "order");
    tg_input(b, "x", 4, 6, 6);
    tg_unary(b, LF_OP_RELU, "ra", tg_conv(b, "a", "x", 4, 3, 1, 1, 1, 1, LF_ACT_NONE));
    tg_unary(b, LF_OP_RELU, "rb", tg_conv(b, "b", "x", 4, 1, 1, 0, 1, 1, LF_ACT_NONE));
    lf_attrs bn = {0};
    const char *cin = tg_conv(b, "c", "x", 4, 3, 1, 1, 1, 1, LF_ACT_NONE);
    lf_graph_builder_add(b, LF_OP_BATCHNORM, "bn", &bn, &cin, 1);
    tg_unary(b, LF_OP_RELU, "rc", "bn");
    const char *in[3] = {"ra", "rb", "rc"};
    tg_concat(b, "cat", in, 3);
    return build(b);
}

/* Definition 8 on hand-built sequences: of two commuting steps one order is
 * kept and the other pruned; a step that replaces an op its predecessor
 * created is never pruned, whatever the original ids. */
static void test_partial_order(void)
{
    lf_subst_ruleset rs;
    open_rules(&rs);
    lf_graph *g = order_graph();
    int32_t relu = rule_index(&rs, "conv_relu"), cbn = rule_index(&rs, "conv_bn");
    CHECK(g && relu >= 0 && cbn >= 0);
    if (!g || relu < 0 || cbn < 0) {
        lf_graph_free(g);
        return;
    }
    lf__label *lab = NULL;
    CHECK_OK(lf__labels_root(g, &lab));
    for (int32_t v = 0; v < g->n_ops; v++)
        CHECK(lab[v].step == 0 && lab[v].idx == v);
    lf_subst_match ma, mb, mc;
    CHECK(find_match(g, rs.rule[relu], "a", &ma));
    CHECK(find_match(g, rs.rule[relu], "b", &mb));
    CHECK(find_match(g, rs.rule[cbn], "c", &mc));
    lf__label la = lf__step_label(lab, rs.rule[relu], &ma), lb = lf__step_label(lab, rs.rule[relu], &mb);
    lf__label lc = lf__step_label(lab, rs.rule[cbn], &mc);
    /* a step's label is its biggest replaced op: relu "ra" (id 2) and "rb" (id 4), bn (id 6) */
    CHECK_EQ_I64(la.step, 0);
    CHECK_EQ_I64(la.idx, lf_graph_find(g, "ra"));
    CHECK_EQ_I64(lb.idx, lf_graph_find(g, "rb"));
    CHECK_EQ_I64(lc.idx, lf_graph_find(g, "bn"));
    /* (a, b) is ordered, (b, a) is not: sorting keeps one of the two orders */
    CHECK(lf__ordered(LF__NO_STEP, la) && lf__ordered(la, lb) && !lf__ordered(lb, la));
    CHECK(!lf__ordered(la, la)); /* a step never follows itself */
    /* apply b first: a's match in the child keeps its label, so (b, a) is pruned */
    lf_graph *gb = NULL;
    CHECK_OK(lf_subst_apply(g, rs.rule[relu], &mb, &gb));
    lf__label *lb_lab = NULL;
    int32_t *created = NULL, n_created = 0;
    if (gb) {
        CHECK_OK(lf__labels_child(g, lab, rs.rule[relu], &mb, gb, 1, &lb_lab, &created, &n_created));
        CHECK_EQ_I64(n_created, 1); /* the fused conv, under the conv's name (rewrite.c) */
        if (n_created == 1) {
            CHECK_STR(gb->ops[created[0]].name, "b");
            CHECK(lb_lab[created[0]].step == 1 && lb_lab[created[0]].idx == 0);
        }
        lf_subst_match ma2;
        CHECK(find_match(gb, rs.rule[relu], "a", &ma2));
        lf__label la2 = lf__step_label(lb_lab, rs.rule[relu], &ma2);
        CHECK(la2.step == la.step && la2.idx == la.idx);
        CHECK(!lf__ordered(lb, la2));
    }
    free(created);
    /* the chain: conv_bn (label bn) creates the folded conv (named "c", the conv's name) with label
     * (1, 0); conv_relu on it then has label (1, 0) > bn's label (0, 6) */
    lf_graph *gc = NULL;
    CHECK_OK(lf_subst_apply(g, rs.rule[cbn], &mc, &gc));
    if (gc) {
        lf__label *lc_lab = NULL;
        created = NULL;
        CHECK_OK(lf__labels_child(g, lab, rs.rule[cbn], &mc, gc, 1, &lc_lab, &created, &n_created));
        lf_subst_match mr;
        CHECK(find_match(gc, rs.rule[relu], "c", &mr));
        lf__label lr = lf__step_label(lc_lab, rs.rule[relu], &mr);
        CHECK(lr.step == 1 && lr.idx == 0);
        CHECK(lf__ordered(lc, lr));
        /* the independent a after the chain's first step: label (0, ra) < (0, bn): pruned,
         * so the sequence (conv_bn c, conv_relu a) survives only as (conv_relu a, conv_bn c) */
        lf_subst_match ma3;
        CHECK(find_match(gc, rs.rule[relu], "a", &ma3));
        CHECK(!lf__ordered(lc, lf__step_label(lc_lab, rs.rule[relu], &ma3)));
        CHECK(lf__ordered(la, lc));
        free(lc_lab);
        free(created);
    }
    lf_graph_free(gc);
    free(lb_lab);
    lf_graph_free(gb);
    free(lab);
    lf_graph_free(g);
}

/* A random small graph of convs (1x1, 3x3), ReLUs, Adds and Concats over a
 * 4 x 6 x 6 input: convs sharing inputs, residual adds, concats of convs. */
static lf_graph *random_graph(uint64_t seed)
{
    lf_rng rng;
    lf_rng_seed(&rng, seed, 7);
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "rand");
    char names[16][16];
    int chan[16], n = 0;
    tg_input(b, "x", 4, 6, 6);
    snprintf(names[n], sizeof names[n], "x");
    chan[n++] = 4;
    int ops = 5 + (int)lf_rng_below(&rng, 4);
    for (int i = 0; i < ops; i++) {
        int kind = (int)lf_rng_below(&rng, 10), a = (int)lf_rng_below(&rng, (uint32_t)n);
        char nm[16];
        snprintf(nm, sizeof nm, "o%d", i);
        if (kind < 5) { /* conv 1x1 or 3x3, 4 or 8 channels */
            int k = lf_rng_below(&rng, 2) ? 3 : 1, c = lf_rng_below(&rng, 2) ? 8 : 4;
            tg_conv(b, nm, names[a], c, k, 1, k / 2, 1, 1, LF_ACT_NONE);
            chan[n] = c;
        } else if (kind < 7) {
            tg_unary(b, LF_OP_RELU, nm, names[a]);
            chan[n] = chan[a];
        } else {
            int bb = (int)lf_rng_below(&rng, (uint32_t)n);
            if (kind < 9 && chan[a] == chan[bb] && a != bb) {
                tg_binary(b, LF_OP_ADD, nm, names[a], names[bb]);
                chan[n] = chan[a];
            } else if (a != bb) {
                const char *in[2] = {names[a], names[bb]};
                tg_concat(b, nm, in, 2);
                chan[n] = chan[a] + chan[bb];
            } else {
                tg_unary(b, LF_OP_RELU, nm, names[a]);
                chan[n] = chan[a];
            }
        }
        snprintf(names[n], sizeof names[n], "%s", nm);
        n++;
    }
    return build(b);
}

/* Brute force: the cheapest graph within K rewrites, every sequence tried. */
static double brute(const lf_graph *g, const lf_subst_ruleset *rs, const lf_subst_coster *c, int K, int64_t *n)
{
    lf_subst_costs k;
    lf_subst_cost(c, g, 0, &k);
    double best = lf_subst_cost_value(c, &k);
    if (K == 0)
        return best;
    for (int32_t r = 0; r < rs->n; r++) {
        if (!rs->enabled[r])
            continue;
        lf_subst_matches ms = {0, 0, NULL};
        lf_subst_find(g, rs->rule[r], &ms);
        for (int32_t j = 0; j < ms.n; j++) {
            lf_graph *g2 = NULL;
            if (lf_subst_apply(g, rs->rule[r], &ms.m[j], &g2) != LF_OK)
                continue;
            (*n)++;
            double v = brute(g2, rs, c, K - 1, n);
            best = v < best ? v : best;
            lf_graph_free(g2);
        }
        lf_subst_matches_free(&ms);
    }
    return best;
}

/* Replays the steps on g by op names (the rules' matches whose ops carry
 * the recorded names); NULL when a step does not match. */
static lf_graph *replay(const lf_graph *g, const lf_subst_ruleset *rs, const lf_subst_result *res)
{
    lf_graph *cur = NULL;
    if (lf_subst_strip(g, &cur))
        return NULL;
    for (int32_t s = 0; s < res->n_steps && cur; s++) {
        const lf_subst_rule *r = rs->rule[res->steps[s].rule];
        lf_subst_matches ms = {0, 0, NULL};
        lf_subst_find(cur, r, &ms);
        lf_graph *next = NULL;
        for (int32_t j = 0; j < ms.n && !next; j++) {
            char buf[1024] = "";
            for (int32_t i = 0; i < r->n_nodes; i++) {
                strncat(buf, i ? "," : "", sizeof buf - strlen(buf) - 1);
                strncat(buf, cur->ops[ms.m[j].op[i]].name, sizeof buf - strlen(buf) - 1);
            }
            if (strcmp(buf, res->steps[s].ops) == 0 && lf_subst_apply(cur, r, &ms.m[j], &next) != LF_OK)
                next = NULL;
        }
        lf_subst_matches_free(&ms);
        lf_graph_free(cur);
        cur = next;
    }
    return cur;
}

static int close_to(double a, double b) { return fabs(a - b) <= 1e-9 * fabs(b) + 1e-18; }

/* On random small graphs, K = 3: Pruning, DPP, ENU and brute force find the
 * same optimum; Sampling (and backtracking bounded by K) a graph no worse
 * than the start and no better than the optimum; every search's sequence
 * (split's too) replays to the graph it reports (same canonical hash). */
static void test_exact_agree(void)
{
    lf_subst_ruleset rs;
    open_rules(&rs);
    lf_subst_coster c;
    lf_subst_coster_init(&c, LF_OBJ_TIME, NULL, NULL);
    int graphs = 0, improved = 0, multi = 0;
    for (uint64_t seed = 1; seed <= 24; seed++) {
        lf_graph *g = random_graph(seed);
        CHECK(g != NULL);
        if (!g)
            continue;
        graphs++;
        const int K = 3;
        int64_t n_brute = 0;
        double opt = brute(g, &rs, &c, K, &n_brute);
        const lf_subst_search ss[] = {LF_SEARCH_ENUM,   LF_SEARCH_PRUNE,     LF_SEARCH_DPP,
                                      LF_SEARCH_SAMPLE, LF_SEARCH_BACKTRACK, LF_SEARCH_SPLIT};
        double got[6] = {0};
        int64_t seqs[6] = {0};
        for (int s = 0; s < 6; s++) {
            lf_subst_options o;
            lf_subst_options_default(&o);
            o.search = ss[s];
            o.max_len = o.max_steps = o.bt_max_steps = K;
            o.split_size = 4;
            o.budget = 10000000;
            o.skip_check = 1;
            lf_subst_result r;
            if (lf_subst_optimize(g, &rs, &c, &o, &r) != LF_OK) {
                CHECK(0);
                continue;
            }
            got[s] = lf_subst_cost_value(&c, &r.after);
            seqs[s] = r.sequences;
            if (ss[s] != LF_SEARCH_SPLIT) /* split bounds each part */
                CHECK(r.n_steps <= K);
            lf_graph *again = replay(g, &rs, &r);
            CHECK(again != NULL);
            if (again) {
                CHECK(lf_subst_canon_hash(again) == lf_subst_canon_hash(r.graph));
                lf_subst_costs k;
                lf_subst_cost(&c, again, 0, &k);
                CHECK(close_to(lf_subst_cost_value(&c, &k), got[s]));
            }
            lf_graph_free(again);
            multi += s == 1 && r.n_steps >= 2;
            lf_subst_result_destroy(&r);
        }
        if (!close_to(got[0], opt) || !close_to(got[1], opt) || !close_to(got[2], opt))
            fprintf(stderr, "seed %llu: brute %.9g enum %.9g prune %.9g dpp %.9g\n", (unsigned long long)seed, opt,
                    got[0], got[1], got[2]);
        CHECK(close_to(got[0], opt));
        CHECK(close_to(got[1], opt));
        CHECK(close_to(got[2], opt));
        CHECK(got[3] >= opt * (1 - 1e-12));
        CHECK(got[4] >= opt * (1 - 1e-12)); /* backtracking bounded by K too */
        /* pruning examines fewer sequences than brute force, DPP the same as pruning */
        CHECK(seqs[1] <= n_brute);
        CHECK_EQ_I64(seqs[1], seqs[2]);
        lf_subst_costs k0;
        lf_subst_cost(&c, g, 0, &k0);
        CHECK(got[3] <= lf_subst_cost_value(&c, &k0));
        improved += opt < lf_subst_cost_value(&c, &k0);
        lf_graph_free(g);
    }
    /* the graphs exercise the searches: most improve, several in 2+ steps */
    CHECK(graphs == 24);
    CHECK(improved >= 12);
    CHECK(multi >= 4);
}

/* ResNet blocks (x2) and one SRU cell: Pruning and DPP agree at K = 10 and
 * Sampling reaches the optimum (the "done when" on small sizes),
 * deterministic for a seed; DPP reuses matches. */
static void test_networks_optimum(void)
{
    lf_subst_ruleset rs;
    open_rules(&rs);
    lf_subst_coster c;
    lf_subst_coster_init(&c, LF_OBJ_TIME, NULL, NULL);
    const char *nets[] = {"resnet_blocks", "sru"};
    const int32_t blocks[] = {2, 1}, sizes[] = {8, 0}; /* an 8 x 8 map keeps the numeric check quick */
    for (int i = 0; i < 2; i++) {
        lf_graph *g = NULL;
        CHECK_OK(lf_subst_network_blocks(nets[i], sizes[i], blocks[i], &g));
        if (!g)
            continue;
        lf_subst_result r[4];
        const lf_subst_search ss[] = {LF_SEARCH_PRUNE, LF_SEARCH_DPP, LF_SEARCH_SAMPLE, LF_SEARCH_SAMPLE};
        int ok = 1;
        for (int s = 0; s < 4; s++) {
            lf_subst_options o;
            lf_subst_options_default(&o);
            o.search = ss[s];
            CHECK_EQ_I64(o.max_steps, 10);
            o.seed = 7;
            ok &= lf_subst_optimize(g, &rs, &c, &o, &r[s]) == LF_OK; /* with the numeric check */
        }
        CHECK(ok);
        if (ok) {
            double p = lf_subst_cost_value(&c, &r[0].after);
            CHECK(p < lf_subst_cost_value(&c, &r[0].before));
            CHECK(close_to(lf_subst_cost_value(&c, &r[1].after), p));
            CHECK(close_to(lf_subst_cost_value(&c, &r[2].after), p));
            CHECK(r[1].reused > 0);
            CHECK(r[0].reused == 0);
            CHECK(r[0].max_err <= 1e-4 && r[2].max_err <= 1e-4);
            /* the same seed: the same sequence */
            CHECK_EQ_I64(r[2].n_steps, r[3].n_steps);
            for (int32_t k = 0; k < r[2].n_steps && k < r[3].n_steps; k++) {
                CHECK_STR(r[2].steps[k].ops, r[3].steps[k].ops);
                CHECK_EQ_I64(r[2].steps[k].rule, r[3].steps[k].rule);
            }
            CHECK(lf_subst_canon_hash(r[2].graph) == lf_subst_canon_hash(r[3].graph));
            CHECK_EQ_I64(r[2].sequences, r[3].sequences);
        }
        for (int s = 0; s < 4; s++)
            if (ok)
                lf_subst_result_destroy(&r[s]);
        lf_graph_free(g);
    }
}

/* The time cap: exact searches report no result (LF_ELIMIT), Sampling and
 * backtracking the best so far, marked. */
static void test_time_limit(void)
{
    lf_subst_ruleset rs;
    open_rules(&rs);
    lf_subst_coster c;
    lf_subst_coster_init(&c, LF_OBJ_TIME, NULL, NULL);
    lf_graph *g = NULL;
    CHECK_OK(lf_subst_network_blocks("inception_e", 0, 2, &g));
    if (g) {
        const lf_subst_search ss[] = {LF_SEARCH_PRUNE, LF_SEARCH_DPP, LF_SEARCH_ENUM, LF_SEARCH_SAMPLE,
                                      LF_SEARCH_BACKTRACK};
        for (int s = 0; s < 5; s++) {
            lf_subst_options o;
            lf_subst_options_default(&o);
            o.search = ss[s];
            o.max_len = 10;
            o.budget = 100000000;
            o.time_limit_s = 1e-3;
            o.skip_check = 1;
            lf_subst_result r;
            lf_status st = lf_subst_optimize(g, &rs, &c, &o, &r);
            if (s < 3) {
                CHECK(st == LF_ELIMIT);
                CHECK(strstr(lf_last_error(), "no result within the time limit") != NULL);
            } else {
                CHECK(st == LF_OK);
                if (!st) {
                    CHECK(r.timed_out);
                    CHECK(r.graph != NULL);
                    CHECK(lf_subst_cost_value(&c, &r.after) <= lf_subst_cost_value(&c, &r.before));
                    lf_subst_result_destroy(&r);
                }
            }
        }
    }
    lf_graph_free(g);
}

/* A carried-over match is re-checked: valid as found, invalid with an op swapped. */
static void test_match_valid(void)
{
    lf_subst_ruleset rs;
    open_rules(&rs);
    lf_graph *g = order_graph();
    int32_t relu = rule_index(&rs, "conv_relu");
    lf_subst_match m;
    if (g && relu >= 0 && find_match(g, rs.rule[relu], "a", &m)) {
        CHECK(lf_subst_match_valid(g, rs.rule[relu], &m));
        lf_subst_match bad = m;
        bad.op[1] = lf_graph_find(g, "rb"); /* relu of another conv */
        CHECK(!lf_subst_match_valid(g, rs.rule[relu], &bad));
        bad = m;
        bad.var[0].id = lf_graph_find(g, "a"); /* a binding the op does not read */
        CHECK(!lf_subst_match_valid(g, rs.rule[relu], &bad));
    } else {
        CHECK(0);
    }
    lf_graph_free(g);
}

/* OCGGS's Table 2 networks: op counts (the paper's, or the differences the
 * builders explain) and the blocks. */
static void test_table2_networks(void)
{
    struct {
        const char *name;
        int32_t blocks, ops;
    } nets[] = {
        {"resnet_blocks", 0, 40}, {"resnet_blocks", 2, 10}, {"bert", 0, 121}, {"bert", 1, 16},
        {"nasrnn", 0, 230},       {"nasrnn", 1, 46},        {"sru", 1, 13},   {"inception_e13", 0, 13},
        {"inception_e13", 4, 52}, {"inception_e", 2, 44},
    };
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        lf_graph *g = NULL;
        CHECK_OK(lf_subst_network_blocks(nets[i].name, 0, nets[i].blocks, &g));
        if (g)
            CHECK_EQ_I64(lf_graph_compute_ops(g), nets[i].ops);
        lf_graph_free(g);
    }
    lf_graph *g = NULL;
    CHECK(lf_subst_network_blocks("alexnet", 0, 2, &g) == LF_EINVAL);
    CHECK(lf_subst_network_blocks("resnet_blocks", 0, 65, &g) == LF_ERANGE);
    lf_model_options mo = {0, 1};
    CHECK_OK(lf_model_build("nasnet_a", &mo, &g));
    if (g)
        CHECK_EQ_I64(lf_graph_compute_ops(g), 414);
    lf_graph_free(g);
}

int main(void)
{
    CHECK_OK(lf_subst_ruleset_open(&shared_rules, "builtin", NULL));
    int32_t failed = 0;
    CHECK_OK(lf_subst_ruleset_verify(&shared_rules, &failed));
    CHECK_EQ_I64(failed, 1); /* taso_conv_mul */
    test_partial_order();
    test_match_valid();
    test_exact_agree();
    test_networks_optimum();
    test_time_limit();
    test_table2_networks();
    lf_subst_ruleset_close(&shared_rules);
    return lf_test_result();
}

/* Partition search: the random splitter's contract, genomes and their
 * repair, and property tests of random search, local search and NSGA-II on
 * random DAGs of every family (valid plans, exact metrics, determinism for
 * any thread count, never better than the brute-force optimum), a hand-made
 * chain whose optimum local search must find, and ResNet-18. */
#include <stdlib.h>
#include <string.h>

#include "graphs.h"
#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/plan.h"
#include "random_dags.h"
#include "search/partition/genome.h"
#include "search/partition/search.h"
#include "search/partition/simple.h"
#include "splitter/splitter.h"
#include "fixtures.h"
#include "testlib.h"

static const char *const algorithms[] = {"random", "local", "nsga2"};

static int metrics_equal(const lf_plan_metrics *a, const lf_plan_metrics *b)
{
    return a->dram_fusable == b->dram_fusable && a->dram_all == b->dram_all && a->mbu == b->mbu &&
           a->n_groups == b->n_groups && a->n_unfusable == b->n_unfusable &&
           a->n_invalid == b->n_invalid && a->dram_time_s == b->dram_time_s &&
           a->energy_j == b->energy_j;
}

/* Every group weakly connected (flood fill inside the group). */
static int groups_connected(const lf_plan *p, const lf_graph *g)
{
    int ok = 1;
    int32_t *stack = malloc((size_t)g->n_ops * sizeof(int32_t));
    uint8_t *seen = calloc((size_t)g->n_ops, 1);
    for (int32_t k = 0; ok && k < p->n_groups; k++) {
        int32_t first = -1, size = 0, top = 0, reached = 0;
        for (int32_t v = 0; v < g->n_ops; v++)
            if (p->group_of[v] == k) {
                size++;
                if (first < 0)
                    first = v;
            }
        if (first < 0)
            return 0;
        stack[top++] = first;
        seen[first] = 1;
        while (top > 0) {
            const lf_op *op = &g->ops[stack[--top]];
            reached++;
            for (int32_t j = 0; j < op->n_inputs + op->n_consumers; j++) {
                int32_t u = j < op->n_inputs ? op->inputs[j] : op->consumers[j - op->n_inputs];
                if (!seen[u] && p->group_of[u] == k) {
                    seen[u] = 1;
                    stack[top++] = u;
                }
            }
        }
        ok = reached == size;
    }
    free(stack);
    free(seen);
    return ok;
}

/* Every group of `fine` lies inside one group of `coarse`. */
static int refines(const lf_plan *fine, const lf_plan *coarse)
{
    int32_t *map = malloc((size_t)(fine->n_groups + 1) * sizeof(int32_t));
    int ok = 1;
    for (int32_t k = 0; k < fine->n_groups; k++)
        map[k] = -1;
    for (int32_t v = 0; v < fine->n_ops && ok; v++) {
        int32_t f = fine->group_of[v], c = coarse->group_of[v];
        if (f < 0 || c < 0) {
            ok = f == c;
            continue;
        }
        if (map[f] < 0)
            map[f] = c;
        ok = map[f] == c;
    }
    free(map);
    return ok;
}

/* A plan valid under DESIGN §4 except possibly for acyclicity and validity:
 * used to make brute force cheap. Returns 1 when valid and sets *dram. */
static int plan_valid_dram(const lf_plan *p, lf_cost_model *cm, lf_bitset *scratch, int64_t *dram)
{
    const lf_graph *g = lf_cost_graph(cm);
    if (!lf_plan_quotient_acyclic(p, g))
        return 0;
    int64_t total = 0;
    for (int32_t k = 0; k < p->n_groups; k++) {
        lf_bitset_clear_all(scratch);
        int32_t size = 0, first = -1;
        for (int32_t v = 0; v < g->n_ops; v++)
            if (p->group_of[v] == k) {
                lf_bitset_set(scratch, v);
                size++;
                first = first < 0 ? v : first;
            }
        if (size == 1 && !lf_cost_fusable(cm, first))
            continue;
        lf_group_cost c;
        if (lf_cost_eval(cm, scratch, &c) != LF_OK || !c.valid)
            return 0;
        total += c.f_d;
    }
    *dram = total;
    return 1;
}

/* Exact optimum by enumerating every genome (every valid plan is the
 * components of its own genome). Returns -1 when the genome is too long. */
static int64_t brute_force(lf_cost_model *cm, int max_edges)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_genome_map m;
    CHECK_OK(lf_genome_map_init(&m, cm));
    if (m.n_edges > max_edges) {
        lf_genome_map_destroy(&m);
        return -1;
    }
    uint8_t *genome = calloc((size_t)m.n_edges + 1, 1);
    lf_plan p;
    lf_bitset scratch;
    CHECK_OK(lf_plan_init(&p, g->n_ops));
    CHECK_OK(lf_bitset_init(&scratch, g->n_ops));
    int64_t best = -1;
    for (uint32_t code = 0; code < (1u << m.n_edges); code++) {
        for (int32_t e = 0; e < m.n_edges; e++)
            genome[e] = (uint8_t)((code >> e) & 1u);
        int64_t d;
        if (lf_genome_groups(&m, g, genome, &p) != LF_OK)
            break;
        if (plan_valid_dram(&p, cm, &scratch, &d) && (best < 0 || d < best))
            best = d;
    }
    free(genome);
    lf_plan_destroy(&p);
    lf_bitset_destroy(&scratch);
    lf_genome_map_destroy(&m);
    return best;
}

/* ---- the random splitter ----------------------------------------------- */

static void test_random_dags_build(void)
{
    for (int f = 0; f < RDAG_FAMILIES; f++)
        for (uint64_t seed = 0; seed < 20; seed++)
            for (int n = 2; n <= 40; n += 19) {
                lf_graph *g = rdag_build(seed, f, n);
                CHECK(g != NULL);
                if (!g)
                    continue;
                CHECK(lf_graph_compute_ops(g) <= n);
                CHECK(lf_graph_compute_ops(g) >= (n < 6 ? 1 : n / 2));
                lf_graph *h = rdag_build(seed, f, n);
                CHECK(h && h->hash == g->hash);
                lf_graph_free(h);
                lf_graph_free(g);
            }
}

/* Splits every invalid raw group of random genomes and checks the contract
 * and determinism (the same seed gives the same parts). */
static void test_random_split(void)
{
    int64_t checked = 0;
    const lf_splitter *sp = lf_splitter_random();
    CHECK_STR(sp->name, "random");
    for (int f = 0; f < RDAG_FAMILIES; f++)
        for (uint64_t seed = 0; seed < 6; seed++) {
            lf_graph *g = rdag_build(100 + seed, f, 30);
            lf_cost_model *cm = g ? tf_model_default(g, RDAG_BETA_SMALL, "lbdf") : NULL;
            if (!cm) {
                lf_graph_free(g);
                continue;
            }
            lf_genome_map m;
            CHECK_OK(lf_genome_map_init(&m, cm));
            uint8_t *genome = malloc((size_t)m.n_edges + 1);
            lf_plan p;
            lf_bitset grp;
            lf_split_result r1, r2;
            CHECK_OK(lf_plan_init(&p, g->n_ops));
            CHECK_OK(lf_bitset_init(&grp, g->n_ops));
            CHECK_OK(lf_split_result_init(&r1, g->n_ops));
            CHECK_OK(lf_split_result_init(&r2, g->n_ops));
            lf_rng rng;
            lf_rng_seed(&rng, seed, (uint64_t)f);
            for (int trial = 0; trial < 8; trial++) {
                double prob = trial == 0 ? 1.0 : lf_rng_uniform(&rng);
                for (int32_t e = 0; e < m.n_edges; e++)
                    genome[e] = (uint8_t)lf_rng_bernoulli(&rng, prob);
                CHECK_OK(lf_genome_groups(&m, g, genome, &p));
                for (int32_t k = 0; k < p.n_groups; k++) {
                    lf_plan_group_bitset(&p, k, &grp);
                    lf_group_cost c;
                    CHECK_OK(lf_cost_eval(cm, &grp, &c));
                    if (c.valid || lf_bitset_count(&grp) < 2)
                        continue;
                    uint64_t s = lf_split_seed(7, &grp);
                    CHECK_OK(sp->split(sp, cm, &grp, s, &r1));
                    CHECK_OK(lf_split_result_check(cm, &grp, &r1));
                    CHECK(r1.n_parts >= 2);
                    CHECK(r1.rectified == 1);
                    CHECK(r1.cost_queries >= r1.n_parts);
                    CHECK_OK(sp->split(sp, cm, &grp, s, &r2));
                    CHECK_EQ_I64(r2.n_parts, r1.n_parts);
                    for (int32_t q = 0; q < r1.n_parts && q < r2.n_parts; q++)
                        CHECK(lf_bitset_equal(&r1.parts[q], &r2.parts[q]));
                    checked++;
                }
            }
            lf_split_result_destroy(&r1);
            lf_split_result_destroy(&r2);
            lf_bitset_destroy(&grp);
            lf_plan_destroy(&p);
            free(genome);
            lf_genome_map_destroy(&m);
            lf_cost_model_free(cm);
            lf_graph_free(g);
        }
    CHECK(checked > 50);
    printf("random split: %lld invalid groups split and checked\n", (long long)checked);
}

/* The contract check itself must catch a cycle among parts: a -> b -> c with
 * a -> c, parts {a, c} and {b}. */
static void test_split_check_cycle(void)
{
    lf_graph_builder *b = NULL;
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "tri"));
    tg_input(b, "x", 4, 8, 8);
    tg_conv(b, "a", "x", 4, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "b", "a", 4, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "c", "a", "b");
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    lf_cost_model *cm = tf_model_default(g, 1 << 20, "lbdf");
    lf_bitset grp, *p;
    lf_split_result r;
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    CHECK_OK(lf_split_result_init(&r, g->n_ops));
    int32_t a = lf_graph_find(g, "a"), bb = lf_graph_find(g, "b"), c = lf_graph_find(g, "c");
    lf_bitset_set(&grp, a);
    lf_bitset_set(&grp, bb);
    lf_bitset_set(&grp, c);
    CHECK_OK(lf_split_result_add(&r, &p));
    lf_bitset_set(p, a);
    lf_bitset_set(p, c);
    CHECK_OK(lf_split_result_add(&r, &p));
    lf_bitset_set(p, bb);
    CHECK(lf_split_result_check(cm, &grp, &r) == LF_EPLAN);
    lf_split_result_reset(&r);
    CHECK_OK(lf_split_result_add(&r, &p));
    lf_bitset_set(p, a);
    CHECK_OK(lf_split_result_add(&r, &p));
    lf_bitset_set(p, bb);
    lf_bitset_set(p, c);
    CHECK_OK(lf_split_result_check(cm, &grp, &r));
    lf_split_result_destroy(&r);
    lf_bitset_destroy(&grp);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* ---- genomes and repair ------------------------------------------------- */

static void test_genome_and_repair(void)
{
    int64_t cyclic = 0, decoded = 0;
    for (int f = 0; f < RDAG_FAMILIES; f++)
        for (uint64_t seed = 0; seed < 6; seed++) {
            lf_graph *g = rdag_build(200 + seed, f, 30);
            lf_cost_model *cm = g ? tf_model_default(g, seed % 2 ? RDAG_BETA_SMALL : RDAG_BETA_MEDIUM, "lbdf")
                                  : NULL;
            if (!cm) {
                lf_graph_free(g);
                continue;
            }
            lf_genome_map m;
            lf_decoder *d = NULL;
            CHECK_OK(lf_genome_map_init(&m, cm));
            CHECK_OK(lf_decoder_create(&d, cm, &m, NULL, 5));
            uint8_t *genome = malloc((size_t)m.n_edges + 1);
            uint8_t *again = malloc((size_t)m.n_edges + 1);
            lf_plan raw, fixed, plan, plan2;
            CHECK_OK(lf_plan_init(&raw, g->n_ops));
            CHECK_OK(lf_plan_init(&fixed, g->n_ops));
            CHECK_OK(lf_plan_init(&plan, g->n_ops));
            CHECK_OK(lf_plan_init(&plan2, g->n_ops));
            lf_rng rng;
            lf_rng_seed(&rng, seed, 1000 + (uint64_t)f);
            for (int trial = 0; trial < 20 && d; trial++) {
                double prob = lf_rng_uniform(&rng);
                for (int32_t e = 0; e < m.n_edges; e++)
                    genome[e] = (uint8_t)lf_rng_bernoulli(&rng, prob);
                /* Repair alone: acyclic, connected, a refinement. */
                CHECK_OK(lf_genome_groups(&m, g, genome, &raw));
                CHECK(groups_connected(&raw, g));
                cyclic += !lf_plan_quotient_acyclic(&raw, g);
                memcpy(fixed.group_of, raw.group_of, (size_t)g->n_ops * sizeof(int32_t));
                fixed.n_groups = raw.n_groups;
                int32_t splits = -1;
                CHECK_OK(lf_plan_repair_cycles(d, &fixed, &splits));
                CHECK(lf_plan_quotient_acyclic(&fixed, g));
                CHECK(groups_connected(&fixed, g));
                CHECK(refines(&fixed, &raw));
                CHECK((splits == 0) == tf_plans_equal(&fixed, &raw));
                /* Full decode: a valid plan; its genome decodes to itself. */
                lf_decoded sum;
                CHECK_OK(lf_genome_decode(d, genome, &plan, again, &sum));
                CHECK_OK(lf_plan_check(&plan, cm));
                CHECK(refines(&plan, &raw));
                lf_plan_metrics pm;
                CHECK_OK(lf_plan_metrics_compute(&plan, cm, &pm));
                CHECK_EQ_I64(sum.dram, pm.dram_fusable);
                CHECK_EQ_I64(sum.n_groups, pm.n_groups);
                CHECK_EQ_I64(sum.mbu, pm.mbu);
                CHECK_OK(lf_genome_groups(&m, g, again, &plan2));
                CHECK(tf_plans_equal(&plan, &plan2));
                CHECK_OK(lf_genome_decode(d, again, &plan2, NULL, NULL));
                CHECK(tf_plans_equal(&plan, &plan2));
                uint8_t *enc = malloc((size_t)m.n_edges + 1);
                lf_genome_from_plan(&m, &plan, enc);
                CHECK(memcmp(enc, again, (size_t)m.n_edges) == 0);
                free(enc);
                decoded++;
            }
            /* A valid plan made elsewhere (greedy) round-trips exactly. */
            lf_plan gp;
            CHECK_OK(lf_plan_greedy(cm, &gp));
            lf_plan_canonicalize(&gp);
            lf_genome_from_plan(&m, &gp, genome);
            CHECK_OK(lf_genome_decode(d, genome, &plan, NULL, NULL));
            CHECK(tf_plans_equal(&gp, &plan));
            lf_plan_destroy(&gp);
            lf_plan_destroy(&raw);
            lf_plan_destroy(&fixed);
            lf_plan_destroy(&plan);
            lf_plan_destroy(&plan2);
            free(genome);
            free(again);
            lf_decoder_free(d);
            lf_genome_map_destroy(&m);
            lf_cost_model_free(cm);
            lf_graph_free(g);
        }
    CHECK(cyclic > 20); /* the repair was exercised */
    printf("genomes: %lld decoded, %lld raw plans had a cyclic quotient\n", (long long)decoded,
           (long long)cyclic);
}

/* The textbook cycle: a residual block whose first conv and add share a
 * group while the second conv is cut off. The repair cuts at the add. */
static void test_repair_residual(void)
{
    lf_graph_builder *b = NULL;
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "res"));
    tg_input(b, "x", 8, 8, 8);
    tg_conv(b, "c0", "x", 8, 3, 1, 1, 1, 0, LF_ACT_RELU);
    tg_conv(b, "c1", "c0", 8, 3, 1, 1, 1, 0, LF_ACT_RELU);
    tg_conv(b, "c2", "c1", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "add", "c0", "c2");
    tg_unary(b, LF_OP_RELU, "out", "add");
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    lf_cost_model *cm = tf_model_default(g, 1 << 20, "lbdf");
    lf_genome_map m;
    lf_decoder *d = NULL;
    CHECK_OK(lf_genome_map_init(&m, cm));
    CHECK_OK(lf_decoder_create(&d, cm, &m, NULL, 1));
    lf_plan p;
    CHECK_OK(lf_plan_init(&p, g->n_ops));
    int32_t c0 = lf_graph_find(g, "c0"), c1 = lf_graph_find(g, "c1"), c2 = lf_graph_find(g, "c2");
    int32_t add = lf_graph_find(g, "add"), out = lf_graph_find(g, "out");
    p.group_of[c0] = p.group_of[c1] = p.group_of[add] = p.group_of[out] = 0;
    p.group_of[c2] = 1;
    p.n_groups = 2;
    CHECK(!lf_plan_quotient_acyclic(&p, g));
    int32_t splits = 0;
    CHECK_OK(lf_plan_repair_cycles(d, &p, &splits));
    CHECK_EQ_I64(splits, 1);
    CHECK(lf_plan_quotient_acyclic(&p, g));
    CHECK_EQ_I64(p.n_groups, 3);
    CHECK(p.group_of[c0] == p.group_of[c1]);
    CHECK(p.group_of[add] == p.group_of[out]);
    CHECK(p.group_of[c0] != p.group_of[add]);
    lf_plan_destroy(&p);
    lf_decoder_free(d);
    lf_genome_map_destroy(&m);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* ---- searches ----------------------------------------------------------- */

/* Runs one search and checks what every returned plan must satisfy. */
static lf_status run_checked(lf_cost_model *cm, const lf_search_config *cfg, lf_search_result *r)
{
    lf_status st = lf_search_run(cm, cfg, r);
    CHECK_OK(st);
    if (st != LF_OK)
        return st;
    CHECK_EQ_I64(r->plans_proposed, cfg->budget);
    CHECK_OK(lf_plan_check(&r->best, cm));
    lf_plan_metrics m;
    CHECK_OK(lf_plan_metrics_compute(&r->best, cm, &m));
    CHECK(metrics_equal(&m, &r->metrics));
    CHECK_EQ_I64(r->metrics.n_invalid, 0);
    CHECK(r->rectified <= r->invalid_groups);
    lf_plan canon;
    CHECK_OK(lf_plan_copy(&canon, &r->best));
    lf_plan_canonicalize(&canon);
    CHECK(tf_plans_equal(&canon, &r->best));
    lf_plan_destroy(&canon);
    if (strcmp(cfg->algorithm, "nsga2") != 0) {
        CHECK_EQ_I64(r->n_pareto, 0);
        return st;
    }
    CHECK(r->n_pareto >= 1);
    for (int32_t i = 0; i < r->n_pareto; i++) {
        CHECK_OK(lf_plan_check(&r->pareto[i], cm));
        CHECK_OK(lf_plan_metrics_compute(&r->pareto[i], cm, &m));
        CHECK(metrics_equal(&m, &r->pareto_metrics[i]));
        if (i > 0) {
            CHECK(r->pareto_metrics[i - 1].dram_fusable <= r->pareto_metrics[i].dram_fusable);
            /* Both objectives by default: along the front DRAM rises as the
             * group count falls. */
            CHECK(r->pareto_metrics[i - 1].n_groups > r->pareto_metrics[i].n_groups);
        }
    }
    CHECK(tf_plans_equal(&r->pareto[0], &r->best));
    return st;
}

static int results_identical(const lf_search_result *a, const lf_search_result *b)
{
    int same = tf_plans_equal(&a->best, &b->best) && metrics_equal(&a->metrics, &b->metrics) &&
               a->invalid_groups == b->invalid_groups && a->splits == b->splits &&
               a->rectified == b->rectified && a->n_pareto == b->n_pareto;
    for (int32_t i = 0; same && i < a->n_pareto; i++)
        same = tf_plans_equal(&a->pareto[i], &b->pareto[i]);
    return same;
}

static void test_search_properties(void)
{
    int tiny = 0, optimum_hits[3] = {0, 0, 0};
    for (int f = 0; f < RDAG_FAMILIES; f++)
        for (uint64_t seed = 0; seed < 5; seed++)
            for (int size = 0; size < 2; size++) {
                int n = size == 0 ? RDAG_TINY : 40;
                lf_graph *g = rdag_build(300 + seed, f, n);
                int64_t beta = (seed + (uint64_t)f) % 2 ? RDAG_BETA_SMALL : RDAG_BETA_MEDIUM;
                lf_cost_model *cm = g ? tf_model_default(g, beta, seed % 3 == 2 ? "brr" : "lbdf") : NULL;
                if (!cm) {
                    lf_graph_free(g);
                    continue;
                }
                int64_t opt = size == 0 ? brute_force(cm, 14) : -1;
                tiny += opt >= 0;
                for (int a = 0; a < 3; a++) {
                    lf_search_config cfg;
                    lf_search_config_default(&cfg);
                    cfg.algorithm = algorithms[a];
                    cfg.budget = size == 0 ? 150 : 60;
                    cfg.seed = 11 + seed;
                    cfg.quiet = 1;
                    cfg.threads = 1;
                    lf_search_result r1, r2, r3;
                    if (run_checked(cm, &cfg, &r1) != LF_OK) {
                        lf_search_result_destroy(&r1);
                        continue;
                    }
                    cfg.threads = 2;
                    run_checked(cm, &cfg, &r2);
                    CHECK(results_identical(&r1, &r2));
                    run_checked(cm, &cfg, &r3);
                    CHECK(results_identical(&r2, &r3));
                    if (opt >= 0) {
                        CHECK(r1.metrics.dram_fusable >= opt);
                        optimum_hits[a] += r1.metrics.dram_fusable == opt;
                    }
                    lf_search_result_destroy(&r1);
                    lf_search_result_destroy(&r2);
                    lf_search_result_destroy(&r3);
                }
                lf_cost_model_free(cm);
                lf_graph_free(g);
            }
    printf("tiny graphs brute-forced: %d; optimum found by random %d, local %d, nsga2 %d\n", tiny,
           optimum_hits[0], optimum_hits[1], optimum_hits[2]);
    CHECK(tiny >= 20);
    /* With 150 plans on graphs of at most 12 ops the guided searches should
     * nearly always reach the optimum. */
    CHECK(optimum_hits[1] * 10 >= tiny * 8);
    CHECK(optimum_hits[2] * 10 >= tiny * 8);
}

/* Different seeds explore differently: on a medium graph with a small
 * budget, four seeds do not all return the same plan. */
static void test_seeds_differ(void)
{
    lf_graph *g = rdag_build(42, RDAG_MIXED, 60);
    lf_cost_model *cm = g ? tf_model_default(g, RDAG_BETA_SMALL, "lbdf") : NULL;
    for (int a = 0; cm && a < 3; a++) {
        lf_search_result r[4];
        int distinct = 0;
        for (int s = 0; s < 4; s++) {
            lf_search_config cfg;
            lf_search_config_default(&cfg);
            cfg.algorithm = algorithms[a];
            cfg.budget = 12;
            cfg.seed = 1000 + (uint64_t)s;
            cfg.quiet = 1;
            run_checked(cm, &cfg, &r[s]);
            distinct += s > 0 && !tf_plans_equal(&r[s].best, &r[0].best);
        }
        CHECK(distinct >= 1);
        for (int s = 0; s < 4; s++)
            lf_search_result_destroy(&r[s]);
    }
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* Six 3x3 convs on 8x8x8 (576 B of weights each) under a buffer that holds
 * three of them but not four: the unique optimum is two groups of three
 * (each half read and written once), and local search must find it. */
static void test_local_search_chain(void)
{
    lf_graph_builder *b = NULL;
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "chain6"));
    tg_input(b, "x", 8, 8, 8);
    const char *names[] = {"c1", "c2", "c3", "c4", "c5", "c6"};
    const char *prev = "x";
    for (int i = 0; i < 6; i++)
        prev = tg_conv(b, names[i], prev, 8, 3, 1, 1, 1, 0, LF_ACT_RELU);
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    lf_cost_model *cm = tf_model_default(g, 2800, "lbdf");
    CHECK_EQ_I64(brute_force(cm, 14), 2 * (512 + 512) + 6 * 576);
    for (int a = 0; a < 3; a++) {
        lf_search_config cfg;
        lf_search_config_default(&cfg);
        cfg.algorithm = algorithms[a];
        cfg.budget = 200;
        cfg.quiet = 1;
        lf_search_result r;
        if (run_checked(cm, &cfg, &r) == LF_OK && a == 1) {
            CHECK_EQ_I64(r.metrics.dram_fusable, 2 * (512 + 512) + 6 * 576);
            CHECK_EQ_I64(r.best.n_groups, 2);
            CHECK(r.best.group_of[lf_graph_find(g, "c1")] == r.best.group_of[lf_graph_find(g, "c3")]);
            CHECK(r.best.group_of[lf_graph_find(g, "c4")] == r.best.group_of[lf_graph_find(g, "c6")]);
        }
        lf_search_result_destroy(&r);
    }
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* A splitter that always gives up: decoding falls back to the random split
 * and counts it; plans stay valid. Shows the interface carries another
 * implementation. */
static lf_status giving_up(const lf_splitter *s, lf_cost_model *cm, const lf_bitset *group,
                           uint64_t seed, lf_split_result *res)
{
    (void)s;
    (void)cm;
    (void)seed;
    lf_bitset *p;
    lf_split_result_reset(res);
    lf_status st = lf_split_result_add(res, &p);
    if (st == LF_OK)
        lf_bitset_or(p, group);
    return st;
}

static void test_splitter_fallback(void)
{
    lf_graph *g = rdag_build(7, RDAG_RESIDUAL, 30);
    lf_cost_model *cm = g ? tf_model_default(g, RDAG_BETA_SMALL, "lbdf") : NULL;
    lf_splitter quitter = {"quitter", giving_up, NULL, NULL};
    for (int a = 0; cm && a < 3; a++) {
        lf_search_config cfg;
        lf_search_config_default(&cfg);
        cfg.algorithm = algorithms[a];
        cfg.budget = 40;
        cfg.quiet = 1;
        cfg.splitter = &quitter;
        lf_search_result r;
        if (run_checked(cm, &cfg, &r) == LF_OK) {
            CHECK(r.invalid_groups > 0);
            CHECK_EQ_I64(r.rectified, 0);
            CHECK_EQ_I64(r.fallbacks, r.invalid_groups);
        }
        lf_search_result_destroy(&r);
    }
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

static void test_config_errors(void)
{
    lf_graph *g = rdag_build(1, RDAG_CHAIN, 8);
    lf_cost_model *cm = g ? tf_model_default(g, RDAG_BETA_MEDIUM, "lbdf") : NULL;
    if (!cm) {
        lf_graph_free(g);
        return;
    }
    lf_search_config cfg;
    lf_search_result r;
    lf_search_config_default(&cfg);
    CHECK_EQ_I64(cfg.population, 10);
    CHECK_EQ_I64(cfg.objectives, 3);
    cfg.quiet = 1;
    cfg.algorithm = "anneal";
    CHECK(lf_search_run(cm, &cfg, &r) == LF_EINVAL);
    lf_search_result_destroy(&r);
    cfg.algorithm = "local";
    cfg.budget = 0;
    CHECK(lf_search_run(cm, &cfg, &r) == LF_EINVAL);
    lf_search_result_destroy(&r);
    cfg.budget = 5;
    cfg.objectives = 4;
    CHECK(lf_search_run(cm, &cfg, &r) == LF_EINVAL);
    lf_search_result_destroy(&r);
    /* A budget below the population: exactly that many plans. */
    cfg.objectives = 3;
    for (int a = 0; a < 3; a++) {
        cfg.algorithm = algorithms[a];
        cfg.budget = 3;
        run_checked(cm, &cfg, &r);
        lf_search_result_destroy(&r);
    }
    /* Population 1 and DRAM as the only NSGA-II objective. */
    cfg.population = 1;
    cfg.objectives = 1;
    cfg.budget = 30;
    for (int a = 0; a < 3; a++) {
        cfg.algorithm = algorithms[a];
        run_checked(cm, &cfg, &r);
        CHECK(r.n_pareto == (a == 2 ? 1 : 0));
        lf_search_result_destroy(&r);
    }
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* ResNet-18 at 256 KB under LBDF: every search returns a valid plan no worse
 * than layer by layer. */
static void test_resnet18(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    CHECK_OK(lf_model_build("resnet18", &opt, &g));
    lf_cost_model *cm = g ? tf_model_default(g, 256 * 1024, "lbdf") : NULL;
    if (!cm) {
        lf_graph_free(g);
        return;
    }
    lf_plan layer;
    lf_plan_metrics ml;
    CHECK_OK(lf_plan_layer(cm, &layer));
    CHECK_OK(lf_plan_metrics_compute(&layer, cm, &ml));
    for (int a = 0; a < 3; a++) {
        lf_search_config cfg;
        lf_search_config_default(&cfg);
        cfg.algorithm = algorithms[a];
        cfg.budget = 300;
        cfg.quiet = 1;
        cfg.threads = 2;
        lf_search_result r;
        if (run_checked(cm, &cfg, &r) == LF_OK) {
            CHECK(r.metrics.dram_fusable <= ml.dram_fusable);
            printf("resnet18 256KB %s: %.3f MB (layer %.3f MB), %d groups\n", algorithms[a],
                   r.metrics.dram_fusable / 1e6, ml.dram_fusable / 1e6, (int)r.metrics.n_groups);
        }
        lf_search_result_destroy(&r);
    }
    lf_plan_destroy(&layer);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* The budget curve: trace[i] is the best DRAM after plan i, never rises,
 * ends at the result, and equals the result of the same search run with
 * budget i + 1 (checked at a batch boundary and inside a batch, with
 * 1 and 2 threads), for every algorithm. */
static void test_trace(void)
{
    lf_graph *g = rdag_build(77, RDAG_MIXED, 40);
    lf_cost_model *cm = g ? tf_model_default(g, RDAG_BETA_SMALL, "lbdf") : NULL;
    for (int a = 0; cm && a < 3; a++) {
        lf_search_config cfg;
        lf_search_config_default(&cfg);
        cfg.algorithm = algorithms[a];
        cfg.budget = 150;
        cfg.seed = 5;
        cfg.quiet = 1;
        cfg.trace = 1;
        cfg.threads = 2;
        lf_search_result full;
        if (run_checked(cm, &cfg, &full) != LF_OK || !full.trace) {
            CHECK(full.trace != NULL);
            lf_search_result_destroy(&full);
            continue;
        }
        CHECK_EQ_I64(full.n_trace, 150);
        CHECK_EQ_I64(full.trace[149], full.metrics.dram_fusable);
        int monotone = 1;
        for (int64_t i = 1; i < full.n_trace; i++)
            monotone &= full.trace[i] <= full.trace[i - 1];
        CHECK(monotone);
        CHECK(full.trace[0] > full.trace[149]); /* the search improves on its first plan */
        const int64_t budgets[] = {1, 10, 37, 64, 65, 100};
        for (size_t k = 0; k < sizeof budgets / sizeof budgets[0]; k++) {
            lf_search_config c2 = cfg;
            c2.budget = budgets[k];
            c2.trace = 0;
            c2.threads = 1 + (int32_t)(k % 2);
            lf_search_result r;
            if (run_checked(cm, &c2, &r) == LF_OK)
                CHECK_EQ_I64(r.metrics.dram_fusable, full.trace[budgets[k] - 1]);
            CHECK(r.trace == NULL);
            lf_search_result_destroy(&r);
        }
        lf_search_result_destroy(&full);
    }
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* Seed plans and cost-guided edits (issue 17 item 7). A budget of one
 * plan with the greedy plan as seed returns exactly the greedy plan (local
 * search and NSGA-II; random search ignores seeds); a
 * plan of another graph or an invalid one is refused; guided local search
 * and NSGA-II are byte-identical with 1 and 2 threads, never beat the brute
 * force optimum, and reach it on most tiny graphs. */
static void test_initial_and_guided(void)
{
    lf_graph *g = rdag_build(77, RDAG_MIXED, 40);
    lf_cost_model *cm = g ? tf_model_default(g, RDAG_BETA_SMALL, "lbdf") : NULL;
    if (cm) {
        lf_plan greedy;
        lf_plan_metrics gm;
        CHECK_OK(lf_plan_greedy(cm, &greedy));
        CHECK_OK(lf_plan_metrics_compute(&greedy, cm, &gm));
        for (int a = 1; a < 3; a++) {
            lf_search_config cfg;
            lf_search_config_default(&cfg);
            cfg.algorithm = algorithms[a];
            cfg.budget = 1;
            cfg.quiet = 1;
            cfg.seeds = &greedy;
            cfg.n_seeds = 1;
            lf_search_result r;
            if (run_checked(cm, &cfg, &r) == LF_OK) {
                CHECK(tf_plans_equal(&r.best, &greedy));
                CHECK_EQ_I64(r.metrics.dram_fusable, gm.dram_fusable);
            }
            lf_search_result_destroy(&r);
        }
        /* refusals: no plans behind a count, a plan of another size, an
         * invalid plan (everything in one group overflows the small buffer) */
        lf_search_config cfg;
        lf_search_config_default(&cfg);
        cfg.quiet = 1;
        cfg.algorithm = "local";
        cfg.n_seeds = 1;
        lf_search_result r;
        CHECK_EQ_I64(lf_search_run(cm, &cfg, &r), LF_EINVAL);
        lf_search_result_destroy(&r);
        lf_plan other;
        CHECK_OK(lf_plan_init(&other, g->n_ops - 1));
        cfg.seeds = &other;
        CHECK_EQ_I64(lf_search_run(cm, &cfg, &r), LF_EINVAL);
        CHECK(strstr(lf_last_error(), "seed plan 0 has") != NULL);
        lf_search_result_destroy(&r);
        lf_plan_destroy(&other);
        lf_plan one;
        CHECK_OK(lf_plan_copy(&one, &greedy));
        for (int32_t v = 0; v < one.n_ops; v++)
            if (one.group_of[v] >= 0)
                one.group_of[v] = 0;
        lf_plan_canonicalize(&one);
        cfg.seeds = &one;
        CHECK(lf_search_run(cm, &cfg, &r) != LF_OK);
        lf_search_result_destroy(&r);
        lf_plan_destroy(&one);
        lf_plan_destroy(&greedy);
    }
    lf_cost_model_free(cm);
    lf_graph_free(g);

    int tiny = 0, hits[2] = {0, 0};
    for (int f = 0; f < RDAG_FAMILIES; f++)
        for (uint64_t seed = 0; seed < 5; seed++) {
            lf_graph *t = rdag_build(500 + seed, f, RDAG_TINY);
            lf_cost_model *tm = t ? tf_model_default(t, seed % 2 ? RDAG_BETA_SMALL : RDAG_BETA_MEDIUM,
                                                     seed % 3 == 2 ? "brr" : "lbdf")
                                  : NULL;
            int64_t opt = tm ? brute_force(tm, 14) : -1;
            tiny += opt >= 0;
            for (int a = 1; a < 3 && tm; a++) {
                lf_search_config cfg;
                lf_search_config_default(&cfg);
                cfg.algorithm = algorithms[a];
                cfg.budget = 150;
                cfg.seed = 3 + seed;
                cfg.quiet = 1;
                cfg.guided = 1;
                cfg.threads = 1;
                lf_search_result r1, r2;
                if (run_checked(tm, &cfg, &r1) == LF_OK) {
                    cfg.threads = 2;
                    run_checked(tm, &cfg, &r2);
                    CHECK(results_identical(&r1, &r2));
                    lf_search_result_destroy(&r2);
                    if (opt >= 0) {
                        CHECK(r1.metrics.dram_fusable >= opt);
                        hits[a - 1] += r1.metrics.dram_fusable == opt;
                    }
                }
                lf_search_result_destroy(&r1);
            }
            lf_cost_model_free(tm);
            lf_graph_free(t);
        }
    printf("guided: tiny graphs brute-forced %d; optimum found by local %d, nsga2 %d\n", tiny,
           hits[0], hits[1]);
    CHECK(tiny >= 10);
    CHECK(hits[0] * 10 >= tiny * 8);
    CHECK(hits[1] * 10 >= tiny * 8);
}

int main(void)
{
    test_random_dags_build();
    test_random_split();
    test_split_check_cycle();
    test_genome_and_repair();
    test_repair_residual();
    test_search_properties();
    test_seeds_differ();
    test_local_search_chain();
    test_splitter_fallback();
    test_config_errors();
    test_resnet18();
    test_trace();
    test_initial_and_guided();
    return lf_test_result();
}

/* Exact planner: equals brute force over every partition of small random
 * DAGs in the full key of DESIGN §4 (DRAM, groups, sorted group minima; both
 * schemes, three buffer sizes; concat seeds 7, 8 and 11 are settings where
 * the first-found plan of equal DRAM and groups is not the smallest), its split of one group equals
 * brute force over the group's partitions, its plans pass the validity
 * checks and never cost more than greedy on the built-in networks, and the
 * limits stop it with a clear message. With brute force's optimum as the
 * upper bound (branch and bound) it returns the same plan, one below it
 * fails naming the bound (tf_check_upper_bound). */
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/exact/exact.h"
#include "planner/exact/solve.h"
#include "planner/util/clock.h"
#include "random_dags.h"
#include "search/partition/simple.h"
#include "fixtures.h"
#include "testlib.h"

#define BRUTE_OPS 9

typedef struct brute {
    lf_cost_model *cm;
    const lf_graph *g;
    int32_t ops[64];        /* ops being partitioned */
    int32_t n;
    int32_t label[64];
    lf_plan plan;
    int64_t best_dram;
    int32_t best_groups;
    lf_plan best;           /* best plan in the full key of DESIGN §4 (canonical) */
    lf_plan_metrics best_m;
    int has_best;
    int64_t ties;           /* plans met with the best (DRAM, groups) but other minima */
    int64_t tried;
} brute;

/* Sorted group minima of a plan, by a plain scan. */
static void brute_minima(const lf_plan *p, int32_t *out, int32_t *n)
{
    int32_t seen[64] = {0};
    *n = 0;
    for (int32_t v = 0; v < p->n_ops; v++) {
        int32_t gi = p->group_of[v];
        if (gi >= 0 && gi < 64 && !seen[gi]) {
            seen[gi] = 1;
            out[(*n)++] = v; /* ops in id order: minima come out sorted */
        }
    }
}

/* Prices one partition (restricted growth string in label[]) if valid. */
static void brute_visit(brute *b, int32_t n_labels)
{
    for (int32_t i = 0; i < b->plan.n_ops; i++)
        b->plan.group_of[i] = -1;
    for (int32_t i = 0; i < b->n; i++)
        b->plan.group_of[b->ops[i]] = b->label[i];
    b->plan.n_groups = n_labels;
    b->tried++;
    if (lf_plan_check(&b->plan, b->cm) != LF_OK)
        return;
    lf_plan_metrics m;
    if (lf_plan_metrics_compute(&b->plan, b->cm, &m) != LF_OK)
        return;
    if (m.dram_fusable < b->best_dram || (m.dram_fusable == b->best_dram && m.n_groups < b->best_groups)) {
        b->best_dram = m.dram_fusable;
        b->best_groups = m.n_groups;
    }
    /* The full key, computed independently of lf_plan_compare: sorted list
     * of group minima (labels are a restricted growth string over ops in id
     * order, so label k first appears at group k's minimum). */
    lf_plan canon;
    if (lf_plan_copy(&canon, &b->plan) != LF_OK)
        return;
    lf_plan_canonicalize(&canon);
    int better = !b->has_best;
    if (b->has_best) {
        if (m.dram_fusable != b->best_m.dram_fusable)
            better = m.dram_fusable < b->best_m.dram_fusable;
        else if (m.n_groups != b->best_m.n_groups)
            better = m.n_groups < b->best_m.n_groups;
        else {
            int32_t ma[64], mb[64], na = 0, nb = 0;
            brute_minima(&canon, ma, &na);
            brute_minima(&b->best, mb, &nb);
            int c = 0;
            for (int32_t k = 0; k < na && k < nb && c == 0; k++)
                c = ma[k] < mb[k] ? -1 : ma[k] > mb[k] ? 1 : 0;
            if (c == 0)
                c = na < nb ? -1 : na > nb ? 1 : 0;
            better = c < 0;
            b->ties += c != 0;
        }
    }
    if (better) {
        lf_plan_destroy(&b->best);
        b->best = canon;
        b->best_m = m;
        b->has_best = 1;
    } else {
        lf_plan_destroy(&canon);
    }
}

static void brute_rec(brute *b, int32_t i, int32_t n_labels)
{
    if (i == b->n) {
        brute_visit(b, n_labels);
        return;
    }
    for (int32_t l = 0; l <= n_labels; l++) {
        b->label[i] = l;
        brute_rec(b, i + 1, l == n_labels ? n_labels + 1 : n_labels);
    }
}

/* The frontier bound of a run stopped at max_states = k (frontier.c) for k
 * from 1 up: never above the optimum opt, never falling as k grows, and opt
 * itself once the run finishes. Returns how many stopped runs proved more
 * than the first stopped run did (0 when none stopped). */
static int frontier_steps(lf_cost_model *cm, int64_t opt, int64_t states)
{
    lf_exact_config cfg;
    lf_exact_config_default(&cfg);
    cfg.lower_bound = 1;
    int64_t last = -1, first = -1;
    int rises = 0;
    int64_t step = states / 12 > 1 ? states / 12 : 1;
    for (int64_t k = 1;; k += step) {
        cfg.max_states = k;
        lf_plan p;
        lf_exact_stats st;
        lf_status s = lf_exact_plan(cm, &cfg, &p, &st);
        CHECK(s == LF_OK || s == LF_ELIMIT);
        CHECK(st.lower <= opt);
        CHECK(st.lower >= last);
        if (st.lower > opt || st.lower < last)
            fprintf(stderr, "  frontier: %lld states: %lld (last %lld, optimum %lld)\n", (long long)k,
                    (long long)st.lower, (long long)last, (long long)opt);
        last = st.lower;
        if (s == LF_OK) {
            CHECK_EQ_I64(st.lower, opt);
            lf_plan_destroy(&p);
            break;
        }
        if (first < 0)
            first = st.lower;
        rises += st.lower > first;
    }
    return rises;
}

/* The exact plan is the best plan of brute force in the full key of DESIGN
 * §4: equal DRAM and group count, and the same sorted list of group minima
 * (the brute-force best is kept by its own comparison, not lf_plan_compare). */
static void test_against_brute_force(void)
{
    const int64_t betas[] = {RDAG_BETA_SMALL, RDAG_BETA_MEDIUM, RDAG_BETA_LARGE};
    const char *schemes[] = {"lbdf", "brr"};
    int compared = 0;
    int64_t ties = 0, tie_cases = 0, skipped = 0, found = 0;
    int frontier_rises = 0, bb_pruned = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 14; seed++) {
            lf_graph *g = rdag_build(seed, fam, seed % 2 ? BRUTE_OPS : BRUTE_OPS - 1);
            CHECK(g != NULL);
            if (!g)
                continue;
            for (int bi = 0; bi < 3; bi++)
                for (int si = 0; si < 2; si++) {
                    brute b = {0};
                    b.cm = tf_model_default(g, betas[bi], schemes[si]);
                    b.g = g;
                    for (int32_t v = 0; v < g->n_ops && b.n < 64; v++)
                        if (g->ops[v].type != LF_OP_INPUT)
                            b.ops[b.n++] = v;
                    lf_plan_init(&b.plan, g->n_ops);
                    b.best_dram = INT64_MAX;
                    b.best_groups = INT32_MAX;
                    brute_rec(&b, 0, 0);
                    CHECK(b.has_best);
                    ties += b.ties;
                    tie_cases += b.ties > 0;
                    lf_plan exact;
                    lf_exact_stats st;
                    CHECK_OK(lf_exact_plan(b.cm, NULL, &exact, &st));
                    CHECK(st.groups_skipped >= 0 && st.groups_skipped <= st.groups);
                    skipped += st.groups_skipped;
                    found += st.groups;
                    CHECK_OK(lf_plan_check(&exact, b.cm));
                    lf_plan_metrics m;
                    CHECK_OK(lf_plan_metrics_compute(&exact, b.cm, &m));
                    CHECK_EQ_I64(m.dram_fusable, b.best_dram);
                    CHECK_EQ_I64(m.n_groups, b.best_groups);
                    int32_t me[64], mb[64], ne = 0, nb = 0;
                    brute_minima(&exact, me, &ne);
                    brute_minima(&b.best, mb, &nb);
                    int same = ne == nb;
                    for (int32_t k = 0; same && k < ne; k++)
                        same = me[k] == mb[k];
                    CHECK(same);
                    CHECK(lf_plan_compare(&exact, &m, &b.best, &b.best_m) == 0);
                    frontier_rises += frontier_steps(b.cm, b.best_dram, st.states) > 0;
                    bb_pruned += tf_check_upper_bound(b.cm, b.best_dram, &exact);
                    if (m.dram_fusable != b.best_dram || !same)
                        fprintf(stderr, "  family %s seed %d beta %lld %s\n", rdag_family_names[fam],
                                (int)seed, (long long)betas[bi], schemes[si]);
                    compared++;
                    lf_plan_destroy(&exact);
                    lf_plan_destroy(&b.plan);
                    lf_plan_destroy(&b.best);
                    lf_cost_model_free(b.cm);
                }
            lf_graph_free(g);
        }
    CHECK(compared == RDAG_FAMILIES * 14 * 6);
    /* The F_D floor spared pricing some of the groups (lf__on_group), and the
     * plans above still equal brute force's in the full order. */
    printf("exact against brute force: %lld of %lld candidate groups skipped by the F_D floor\n",
           (long long)skipped, (long long)found);
    CHECK(skipped > 0 && skipped < found);
    /* The tie-break must matter on these graphs, or this test could not fail. */
    fprintf(stderr, "  brute force: %d settings, %lld with ties in (DRAM, groups), %lld tied plans\n",
            compared, (long long)tie_cases, (long long)ties);
    CHECK(tie_cases >= 10);
    /* The frontier bound rises with the states allowed on many of them, or
     * the monotonicity checked above could not fail. */
    fprintf(stderr, "  frontier bound: rises with the state limit in %d of %d settings\n", frontier_rises,
            compared);
    CHECK(frontier_rises >= compared / 4);
    /* Branch and bound one unit below the optimum pruned states on many, or
     * its "no plan" could come from the goal's check alone. */
    fprintf(stderr, "  upper bound: the optimum less one pruned states in %d of %d settings\n", bb_pruned,
            compared);
    CHECK(bb_pruned >= compared / 4);
}

/* The connected candidates grown by ESU from their smallest op are the
 * connected order ideals the binary recursion over ready ops finds (the
 * enumeration the relaxations keep): the same groups priced, the same plans,
 * on random DAGs at every buffer and both schemes, with far fewer sets
 * visited on the wide ones. */
/* The optimum of universe u with connected candidates grown and with
 * every ideal: the same DRAM. */
static void solve_both(lf_cost_model *cm, const lf_bitset *u, lf_plan *grown, lf_plan *ideals,
                       lf_exact_stats *s_grown, lf_exact_stats *s_ideals)
{
    int64_t d_grown = -1, d_ideals = -2;
    CHECK_OK(lf__exact_solve(cm, u, NULL, grown, &d_grown, s_grown));
    CHECK_OK(lf__exact_solve_ideals(cm, u, NULL, ideals, &d_ideals, s_ideals));
    CHECK_EQ_I64(d_grown, d_ideals);
}

static void test_candidate_sets(void)
{
    const int64_t betas[] = {RDAG_BETA_SMALL, RDAG_BETA_MEDIUM, RDAG_BETA_LARGE};
    int compared = 0, fewer = 0;
    int64_t visits_grown = 0, visits_ideals = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 10; seed++) {
            lf_graph *g = rdag_build(seed, fam, 10 + (int)(seed % 5) * 6);
            CHECK(g != NULL);
            if (!g)
                continue;
            lf_bitset all;
            CHECK_OK(lf_bitset_init(&all, g->n_ops));
            for (int32_t v = 0; v < g->n_ops; v++)
                lf_bitset_set(&all, v);
            for (int bi = 0; bi < 3; bi++)
                for (int si = 0; si < 2; si++) {
                    lf_cost_model *cm = tf_model_default(g, betas[bi], si ? "brr" : "lbdf");
                    lf_plan grown, ideals;
                    lf_exact_stats s_grown, s_ideals;
                    solve_both(cm, &all, &grown, &ideals, &s_grown, &s_ideals);
                    CHECK(tf_plans_equal(&grown, &ideals));
                    CHECK_EQ_I64(s_grown.states, s_ideals.states);
                    CHECK_EQ_I64(s_grown.groups, s_ideals.groups);
                    CHECK(s_grown.candidates <= s_ideals.candidates);
                    fewer += s_grown.candidates * 2 < s_ideals.candidates;
                    visits_grown += s_grown.candidates;
                    visits_ideals += s_ideals.candidates;
                    compared++;
                    lf_plan_destroy(&grown);
                    lf_plan_destroy(&ideals);
                    lf_cost_model_free(cm);
                }
            lf_bitset_destroy(&all);
            lf_graph_free(g);
        }
    fprintf(stderr, "  ESU against order ideals: %d settings, %d visiting under half the sets, %lld sets against %lld\n",
            compared, fewer, (long long)visits_grown, (long long)visits_ideals);
    CHECK(compared == RDAG_FAMILIES * 10 * 6);
    CHECK(visits_grown < visits_ideals);
    /* Wide graphs, where the two differ most: a NasNet-A cell (five
     * branches from two inputs) and RandWire's first 30 ops. */
    const struct { const char *model; int32_t from, to; int64_t at_least; } wide[] = {
        {"nasnet_a", 27, 49, 20}, {"randwire", 1, 30, 20}};
    for (int i = 0; i < 2; i++) {
        lf_graph *g = NULL;
        CHECK_OK(lf_model_build(wide[i].model, NULL, &g));
        if (!g)
            continue;
        lf_cost_model *cm = tf_model_default(g, 256 * 1024, "lbdf");
        lf_bitset u;
        CHECK_OK(lf_bitset_init(&u, g->n_ops));
        for (int32_t v = wide[i].from; v <= wide[i].to; v++)
            lf_bitset_set(&u, v);
        lf_plan grown, ideals;
        lf_exact_stats s_grown, s_ideals;
        solve_both(cm, &u, &grown, &ideals, &s_grown, &s_ideals);
        /* Equal in the full order (plans that tie in it, joined across a
         * cut, may differ: the first state expanded wins). */
        lf_plan_metrics m_grown, m_ideals;
        CHECK_OK(lf_plan_metrics_compute(&grown, cm, &m_grown));
        CHECK_OK(lf_plan_metrics_compute(&ideals, cm, &m_ideals));
        CHECK(lf_plan_compare(&grown, &m_grown, &ideals, &m_ideals) == 0);
        CHECK_EQ_I64(s_grown.groups, s_ideals.groups);
        CHECK(s_grown.candidates * wide[i].at_least < s_ideals.candidates);
        fprintf(stderr, "  %s ops %d-%d: %lld groups, %lld sets grown against %lld ideals\n", wide[i].model,
                (int)wide[i].from, (int)wide[i].to, (long long)s_grown.groups, (long long)s_grown.candidates,
                (long long)s_ideals.candidates);
        lf_plan_destroy(&grown);
        lf_plan_destroy(&ideals);
        lf_bitset_destroy(&u);
        lf_cost_model_free(cm);
        lf_graph_free(g);
    }
}

/* The optimal split of the whole graph's fusable ops (as one group) equals
 * brute force over partitions of that group. */
static void test_split_against_brute_force(void)
{
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 10; seed < 13; seed++) {
            lf_graph *g = rdag_build(seed, fam, BRUTE_OPS);
            if (!g)
                continue;
            brute b = {0};
            b.cm = tf_model_default(g, RDAG_BETA_MEDIUM, "lbdf");
            b.g = g;
            /* The group: the longest run of fusable ops from the first one
             * whose union stays connected is simply all fusable ops when
             * none is unfusable; skip graphs with unfusable ops. */
            int any_unfusable = 0;
            lf_bitset grp;
            lf_bitset_init(&grp, g->n_ops);
            for (int32_t v = 0; v < g->n_ops; v++)
                if (g->ops[v].type != LF_OP_INPUT) {
                    any_unfusable |= !lf_cost_fusable(b.cm, v);
                    lf_bitset_set(&grp, v);
                    b.ops[b.n++] = v;
                }
            if (!any_unfusable) {
                lf_plan_init(&b.plan, g->n_ops);
                b.best_dram = INT64_MAX;
                b.best_groups = INT32_MAX;
                brute_rec(&b, 0, 0);
                lf_plan parts;
                int64_t dram = 0;
                CHECK_OK(lf_exact_split(b.cm, &grp, NULL, &parts, &dram, NULL));
                CHECK_EQ_I64(dram, b.best_dram);
                CHECK_OK(lf_plan_check(&parts, b.cm));
                lf_plan_destroy(&parts);
                lf_plan_destroy(&b.plan);
                lf_plan_destroy(&b.best);
            }
            lf_bitset_destroy(&grp);
            lf_cost_model_free(b.cm);
            lf_graph_free(g);
        }
}

static void test_networks(void)
{
    const char *nets[] = {"resnet18", "mobilenet_v2", "squeezenet1_0", "efficientnet_b0", "vgg16"};
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        lf_graph *g = NULL;
        lf_model_options opt = {0, 1};
        CHECK_OK(lf_model_build(nets[i], &opt, &g));
        for (int s = 0; s < 2 && g; s++) {
            lf_cost_model *cm = tf_model_default(g, 128 * 1024, s ? "brr" : "lbdf");
            lf_plan exact, greedy;
            lf_plan_metrics me, mg;
            lf_exact_stats xs;
            CHECK_OK(lf_exact_plan(cm, NULL, &exact, &xs));
            CHECK_OK(lf_plan_check(&exact, cm));
            CHECK_OK(lf_plan_metrics_compute(&exact, cm, &me));
            CHECK_EQ_I64(xs.lower, me.dram_fusable);
            /* Stopped runs' frontier bounds on a real network (width 2). */
            if (i == 2)
                CHECK(frontier_steps(cm, me.dram_fusable, xs.states) > 0);
            CHECK_OK(lf_plan_greedy(cm, &greedy));
            lf_plan_canonicalize(&greedy);
            CHECK_OK(lf_plan_metrics_compute(&greedy, cm, &mg));
            CHECK(me.dram_fusable <= mg.dram_fusable);
            /* Issue 15.7: of the plans with 3,408,896 B and 15 groups, the
             * smallest group minima give MBU 109,696 B (not 113,280). */
            if (i == 0 && s == 0) {
                CHECK_EQ_I64(me.dram_fusable, 3408896);
                CHECK_EQ_I64(me.n_groups, 15);
                CHECK_EQ_I64(me.mbu, 109696);
            }
            lf_plan_destroy(&exact);
            lf_plan_destroy(&greedy);
            lf_cost_model_free(cm);
        }
        lf_graph_free(g);
    }
}

static void test_limits(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    CHECK_OK(lf_model_build("resnet18", &opt, &g));
    if (!g)
        return;
    lf_cost_model *cm = tf_model_default(g, 256 * 1024, "lbdf");
    lf_exact_config cfg;
    lf_exact_config_default(&cfg);
    cfg.max_states = 5;
    lf_plan p;
    CHECK_EQ_I64(lf_exact_plan(cm, &cfg, &p, NULL), LF_ELIMIT);
    CHECK(strstr(lf_last_error(), "more than 5 states") != NULL);
    lf_exact_config_default(&cfg);
    cfg.max_candidates = 10;
    CHECK_EQ_I64(lf_exact_plan(cm, &cfg, &p, NULL), LF_ELIMIT);
    CHECK(strstr(lf_last_error(), "candidate groups") != NULL);
    CHECK(strstr(lf_last_error(), "--max-candidates") != NULL);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* Issue 18.11: the time and memory limits fire on a case far beyond them
 * (Inception-v3, 2 MB: about 15 s and 9,136 states under LBDF, minutes under
 * BRR), each with one line naming the limit and what was reached. */
static void test_time_and_memory_limits(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    CHECK_OK(lf_model_build("inception_v3", &opt, &g));
    if (!g)
        return;
    lf_exact_config cfg;
    lf_exact_config_default(&cfg);
    CHECK(cfg.time_limit_s > 0 && cfg.time_limit_s <= 60);
    CHECK(cfg.memory_limit > 0 && cfg.memory_limit <= 4000000000LL);

    lf_cost_model *cm = tf_model_default(g, 2 * 1024 * 1024, "brr");
    cfg.time_limit_s = 0.3;
    lf_plan p;
    lf_exact_stats st;
    double t0 = lf_now_seconds();
    CHECK_EQ_I64(lf_exact_plan(cm, &cfg, &p, &st), LF_ELIMIT);
    double took = lf_now_seconds() - t0;
    const char *msg = lf_last_error();
    CHECK(strstr(msg, "time limit of 0.3 s reached") != NULL);
    CHECK(strstr(msg, "candidate sets") != NULL && strchr(msg, '\n') == NULL);
    CHECK(took < 30); /* not a timing test: only that it stopped at all */
    lf_cost_model_free(cm);

    cm = tf_model_default(g, 2 * 1024 * 1024, "lbdf");
    lf_exact_config_default(&cfg);
    cfg.memory_limit = 64 * 1024;
    CHECK_EQ_I64(lf_exact_plan(cm, &cfg, &p, &st), LF_ELIMIT);
    msg = lf_last_error();
    CHECK(strstr(msg, "memory limit of 0.1 MB reached") != NULL);
    CHECK(strstr(msg, "of cost memo") != NULL && strchr(msg, '\n') == NULL);
    CHECK(st.memory_bytes > cfg.memory_limit);
    CHECK(st.states > 0 && st.states < 9136);
    /* The memo was held to half the limit, and its own limit is back. */
    lf_cost_stats cs;
    lf_cost_stats_get(cm, &cs);
    CHECK(cs.bytes <= cfg.memory_limit / 2);
    CHECK_EQ_I64(lf_cost_memo_limit(cm, LF_COST_MEMO_DEFAULT_LIMIT), LF_COST_MEMO_DEFAULT_LIMIT);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* A bounded memo changes how often groups are priced, never the answer:
 * inception_v3 under LBDF at 256 KB with a memo of 32 KB (a few entries per shard)
 * gives the same plan as with the default memo, and the memo stays within its
 * bound. (Groups that span a cut op skip the memo, so a network of parallel
 * branches is what fills it.) */
static void test_bounded_memo(void)
{
    lf_graph *g = NULL;
    lf_model_options opt = {0, 1};
    CHECK_OK(lf_model_build("inception_v3", &opt, &g));
    if (!g)
        return;
    lf_cost_model *a = tf_model_default(g, 256 * 1024, "lbdf");
    lf_cost_model *b = tf_model_default(g, 256 * 1024, "lbdf");
    lf_exact_config cfg;
    lf_exact_config_default(&cfg);
    lf_plan pa, pb;
    lf_plan_metrics ma, mb;
CHECK_OK(lf_exact_plan(a, &cfg, &pa, NULL));
    cfg.memory_limit = 0; /* no planner limit, so the memo keeps the limit set here */
    lf_cost_memo_limit(b, 32 * 1024);
    CHECK_OK(lf_exact_plan(b, &cfg, &pb, NULL));
    lf_cost_stats cs;
    lf_cost_stats_get(b, &cs);
    CHECK(cs.bytes <= 32 * 1024);
    CHECK(cs.evictions > 0);
    CHECK_OK(lf_plan_metrics_compute(&pa, a, &ma));
    CHECK_OK(lf_plan_metrics_compute(&pb, b, &mb));
    CHECK_EQ_I64(ma.dram_fusable, 20207851); /* RESULTS: inception_v3 256 KB LBDF */
    CHECK(lf_plan_compare(&pa, &ma, &pb, &mb) == 0);
    CHECK(memcmp(pa.group_of, pb.group_of, (size_t)g->n_ops * sizeof(int32_t)) == 0);
    lf_plan_destroy(&pa);
    lf_plan_destroy(&pb);
    lf_cost_model_free(a);
    lf_cost_model_free(b);
    lf_graph_free(g);
}

int main(void)
{
    test_against_brute_force();
    test_candidate_sets();
    test_split_against_brute_force();
    test_networks();
    test_limits();
    test_time_and_memory_limits();
    test_bounded_memo();
    return lf_test_result();
}

/* Separators of a few tensors (planner/exact/separators.c): random DAGs of
 * every family and a few built-in networks against the exact optimum (itself
 * checked against brute force in test_exact), under both schemes: the
 * bounds bracket the optimum, the plan is valid with the upper bound's DRAM,
 * and where every chosen cut is one no valid group spans, both bounds are
 * the optimum. */
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "graphs.h"
#include "models/registry.h"
#include "planner/exact/exact.h"
#include "planner/app/pipeline.h"
#include "planner/exact/separators.h"
#include "planner/exact/solve.h"
#include "planner/util/clock.h"
#include "random_dags.h"
#include "search/partition/simple.h"
#include "testlib.h"

/* Bounds with cuts of up to `width` tensors and pieces of `piece_ops`,
 * checked against the optimum `opt`; returns b.exact (-1 on failure). */
static int check_bounds(lf_cost_model *cm, int32_t width, int32_t piece_ops, int64_t opt, const char *what,
                        lf__sep_bounds *out)
{
    lf_plan plan;
    lf__sep_bounds b;
    lf_status st = lf__separator_bounds(cm, NULL, width, piece_ops, &plan, &b);
    CHECK_OK(st);
    if (st != LF_OK)
        return -1;
    lf_plan_metrics m;
    CHECK_OK(lf_plan_check(&plan, cm));
    CHECK_OK(lf_plan_metrics_compute(&plan, cm, &m));
    CHECK_EQ_I64(m.dram_fusable, b.upper);
    CHECK(b.lower <= opt);
    CHECK(opt <= b.upper);
    CHECK(b.pieces_exact == b.pieces && b.pieces_lower == b.pieces);
    if (b.exact) {
        CHECK_EQ_I64(b.lower, opt);
        CHECK_EQ_I64(b.upper, opt);
    }
    if (b.lower > opt || b.upper < opt || (b.exact && b.upper != opt))
        fprintf(stderr, "  %s width %d pieces of %d: [%lld, %lld] (exact %d, %d pieces, %d hard cuts), optimum %lld\n",
                what, width, piece_ops, (long long)b.lower, (long long)b.upper, b.exact, b.pieces, b.cuts_hard,
                (long long)opt);
    *out = b;
    lf_plan_destroy(&plan);
    return b.exact;
}

/* The cuts found are the places only that many tensors cross, checked by
 * recounting them from the edges. */
static void check_cuts(lf_cost_model *cm, int32_t width)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf__sep_cut *cuts = NULL;
    int32_t k = -1;
    CHECK_OK(lf__separator_cuts(cm, width, &cuts, &k));
    for (int32_t i = 0; i < k; i++) {
        int32_t c = cuts[i].pos, cross = 0;
        for (int32_t u = 0; u <= c; u++) {
            int any = 0;
            for (int32_t j = 0; j < g->ops[u].n_consumers; j++)
                any |= g->ops[u].consumers[j] > c;
            cross += any;
        }
        CHECK_EQ_I64(cross, cuts[i].width);
        CHECK(cuts[i].width <= width);
        CHECK((cuts[i].spannable == 0) == (cuts[i].extra == 0));
    }
    free(cuts);
}

static void test_random_dags(void)
{
    const int64_t betas[] = {RDAG_BETA_SMALL, RDAG_BETA_MEDIUM, RDAG_BETA_LARGE};
    const char *schemes[] = {"lbdf", "brr"};
    int settings = 0, exact = 0, exact_wide = 0, open = 0, soft_tight = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 9; seed++) {
            lf_graph *g = rdag_build(seed, fam, 8 + (int)(seed % 4) * 8);
            CHECK(g != NULL);
            if (!g)
                continue;
            for (int bi = 0; bi < 3; bi++)
                for (int si = 0; si < 2; si++) {
                    lf_cost_model *cm = tf_model_default(g, betas[bi], schemes[si]);
                    int64_t opt = tf_exact_optimum(cm);
                    CHECK(opt >= 0);
                    check_cuts(cm, 4);
                    char what[96];
                    snprintf(what, sizeof what, "%s seed %llu beta %lld %s", rdag_family_names[fam],
                             (unsigned long long)seed, (long long)betas[bi], schemes[si]);
                    /* Pieces of 3 ops: many cuts, most of them spanned at
                     * the large buffer; of 12: fewer, larger pieces. */
                    for (int32_t piece = 3; piece <= 12; piece *= 4) {
                        lf__sep_bounds b;
                        int e = check_bounds(cm, 4, piece, opt, what, &b);
                        settings++;
                        if (e == 1 && b.pieces > 1) {
                            exact++;
                            /* a cut of two or more tensors joined exactly */
                            lf__sep_cut *cuts = NULL;
                            int32_t k = 0;
                            CHECK_OK(lf__separator_cuts(cm, 4, &cuts, &k));
                            for (int32_t i = 0; i < k; i++)
                                if (cuts[i].width >= 2 && cuts[i].spannable == 0) {
                                    exact_wide++;
                                    break;
                                }
                            free(cuts);
                        }
                        if (e == 0) {
                            open++;
                            soft_tight += b.lower == opt;
                        }
                    }
                    lf_cost_model_free(cm);
                }
            lf_graph_free(g);
        }
    fprintf(stderr, "  random DAGs: %d settings, %d joined exactly (%d with a cut of 2+ tensors), "
                    "%d with spanned cuts (%d of them with the lower bound at the optimum)\n",
            settings, exact, exact_wide, open, soft_tight);
    /* Neither kind may be missing, or the test proves less than it says. */
    CHECK(exact > 0 && exact_wide > 0 && open > 0);
}

/* Built-in networks whose exact optimum takes well under a second. */
static void test_networks(void)
{
    static const struct {
        const char *model, *scheme;
        int64_t beta;
    } cases[] = {
        {"squeezenet1_0", "lbdf", 256 * 1024}, {"resnet18", "brr", 256 * 1024},
        {"mobilenet_v2", "lbdf", 128 * 1024},  {"inception_v3", "lbdf", 256 * 1024},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lf_graph *g = NULL;
        CHECK_OK(lf_model_build(cases[i].model, NULL, &g));
        if (!g)
            continue;
        lf_cost_model *cm = tf_model_default(g, cases[i].beta, cases[i].scheme);
        int64_t opt = tf_exact_optimum(cm);
        CHECK(opt > 0);
        check_cuts(cm, 4);
        lf__sep_bounds b;
        check_bounds(cm, 4, 24, opt, cases[i].model, &b);
        fprintf(stderr, "  %s %s %lld: [%lld, %lld], optimum %lld, %d pieces, %d hard cuts, exact %d\n",
                cases[i].model, cases[i].scheme, (long long)cases[i].beta, (long long)b.lower, (long long)b.upper,
                (long long)opt, b.pieces, b.cuts_hard, b.exact);
        lf_cost_model_free(cm);
        lf_graph_free(g);
    }
}

/* The pieces between cuts no valid group spans: solved, they give the
 * optimum; each piece's own graph has the piece's optimum; with pieces left
 * open (a candidate limit), the bounds still bracket it. */
static void check_hard_pieces(lf_cost_model *cm, int64_t opt, const char *what, int *joined, int *open_seen,
                              int *polished, int *polished_opt)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf__hard_pieces h;
    CHECK_OK(lf__hard_pieces_solve(cm, NULL, 4, &h));
    if (h.pieces > 1) {
        CHECK_EQ_I64(h.solved, h.pieces);
        CHECK_EQ_I64(h.dram_solved, opt);
        CHECK_OK(lf_plan_check(&h.plan, cm));
        int64_t lower = -1;
        CHECK_OK(lf__hard_pieces_lower(cm, &h, NULL, &lower));
        CHECK_EQ_I64(lower, opt);
        ++*joined;
        /* Each piece as a graph of its own: the same optimum as the piece
         * solved inside the whole graph. */
        lf_bitset u;
        CHECK_OK(lf_bitset_init(&u, g->n_ops));
        for (int32_t i = 0; i < h.pieces; i++) {
            int32_t lo = i > 0 ? h.ends[i - 1] : -1, hi = h.ends[i];
            lf_bitset_clear_all(&u);
            for (int32_t v = lo + 1; v <= hi; v++)
                if (g->ops[v].type != LF_OP_INPUT)
                    lf_bitset_set(&u, v);
            lf_plan pp;
            int64_t in_whole = -1;
            CHECK_OK(lf__exact_solve(cm, &u, NULL, &pp, &in_whole, NULL));
            lf_plan_destroy(&pp);
            lf_graph *pg = NULL;
            CHECK_OK(lf__piece_graph(g, lo, hi, &pg));
            if (!pg)
                continue;
            lf_cost_model *pm = NULL;
            CHECK_OK(lf_cost_model_create(&pm, pg, lf_cost_hw(cm), lf_cost_scheme_name(cm)));
            int64_t own = tf_exact_optimum(pm);
            CHECK_EQ_I64(own, in_whole);
            if (own != in_whole)
                fprintf(stderr, "  %s piece (%d, %d]: own graph %lld, in the whole %lld\n", what, lo, hi,
                        (long long)own, (long long)in_whole);
            lf_cost_model_free(pm);
            lf_graph_free(pg);
        }
        lf_bitset_destroy(&u);
    }
    lf__hard_pieces_free(&h);
    /* A candidate limit leaves the larger pieces open. */
    lf_exact_config few;
    lf_exact_config_default(&few);
    few.max_candidates = 40;
    CHECK_OK(lf__hard_pieces_solve(cm, &few, 4, &h));
    if (h.pieces > 1 && h.solved > 0 && h.solved < h.pieces) {
        int64_t lower = -1;
        CHECK_OK(lf__hard_pieces_lower(cm, &h, NULL, &lower));
        CHECK(lower <= opt);
        CHECK(lower >= h.dram_solved);
        lf_plan p;
        CHECK_OK(lf_plan_greedy(cm, &p));
        lf_plan_metrics m;
        CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
        int64_t d = m.dram_fusable, before = d;
        CHECK_OK(lf__hard_pieces_apply(cm, &h, &p, &d));
        CHECK_OK(lf_plan_check(&p, cm));
        CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
        CHECK_EQ_I64(m.dram_fusable, d);
        CHECK(opt <= d && d <= before);
        ++*open_seen;
        /* The open pieces polished: never worse, still valid; with every
         * open piece within the first window (24 ops), the optimum. */
        int64_t applied = d;
        int32_t widest = -1, open_ops = 0, given_up = -1;
        CHECK_OK(lf__hard_pieces_polish(cm, &h, 0, &p, &d, &widest, &given_up, NULL, NULL));
        CHECK_OK(lf_plan_check(&p, cm));
        CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
        CHECK_EQ_I64(m.dram_fusable, d);
        CHECK(opt <= d && d <= applied);
        CHECK_EQ_I64(widest, 32);
        /* No deadline: no pace to give up on, and these graphs' windows
         * stay far below the 5 million candidate sets of the 32-op pass. */
        CHECK_EQ_I64(given_up, 0);
        for (int32_t i = 0; i < h.pieces; i++) {
            int32_t lo = i > 0 ? h.ends[i - 1] : -1, hi = h.ends[i];
            if (!h.done[i] && hi - lo > open_ops)
                open_ops = hi - lo;
        }
        if (open_ops <= 24) {
            CHECK_EQ_I64(d, opt);
            ++*polished_opt;
            if (d != opt)
                fprintf(stderr, "  %s: open pieces of <= 24 ops polished to %lld, optimum %lld\n", what,
                        (long long)d, (long long)opt);
        }
        *polished += d < applied;
        lf_plan_destroy(&p);
    }
    lf__hard_pieces_free(&h);
}

static void test_hard_pieces(void)
{
    const int64_t betas[] = {RDAG_BETA_SMALL, RDAG_BETA_MEDIUM};
    const char *schemes[] = {"lbdf", "brr"};
    int joined = 0, open_seen = 0, polished = 0, polished_opt = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 9; seed++) {
            lf_graph *g = rdag_build(seed, fam, 12 + (int)(seed % 3) * 10);
            CHECK(g != NULL);
            if (!g)
                continue;
            for (int bi = 0; bi < 2; bi++)
                for (int si = 0; si < 2; si++) {
                    lf_cost_model *cm = tf_model_default(g, betas[bi], schemes[si]);
                    char what[96];
                    snprintf(what, sizeof what, "%s seed %llu beta %lld %s", rdag_family_names[fam],
                             (unsigned long long)seed, (long long)betas[bi], schemes[si]);
                    check_hard_pieces(cm, tf_exact_optimum(cm), what, &joined, &open_seen, &polished, &polished_opt);
                    lf_cost_model_free(cm);
                }
            lf_graph_free(g);
        }
    fprintf(stderr, "  hard pieces: %d settings joined exactly, %d with pieces left open (%d improved by "
                    "polishing those; %d polished to the optimum, as every open piece fits a window)\n", joined, open_seen, polished, polished_opt);
    CHECK(joined > 0 && open_seen > 0 && polished > 0 && polished_opt > 0);
}

/* NasNet-A at 256 KB under LBDF: from op 140 on, two cuts of two or three
 * tensors in every cell that no valid group spans. Its first cell after op
 * 140 as a graph of its own has the optimum it has inside the whole graph. */
static void test_nasnet_cell(void)
{
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build("nasnet_a", NULL, &g));
    if (!g)
        return;
    lf_cost_model *cm = tf_model_default(g, 256 * 1024, "lbdf");
    lf__sep_cut *cuts = NULL;
    int32_t k = 0, hard = 0, first = -1;
    CHECK_OK(lf__separator_cuts(cm, 4, &cuts, &k));
    for (int32_t i = 0; i < k; i++)
        if (cuts[i].spannable == 0) {
            hard++;
            if (first < 0)
                first = cuts[i].pos;
        }
    CHECK_EQ_I64(hard, 24);
    CHECK_EQ_I64(first, 140);
    free(cuts);
    lf_bitset u;
    CHECK_OK(lf_bitset_init(&u, g->n_ops));
    for (int32_t v = 141; v <= 163; v++)
        lf_bitset_set(&u, v);
    lf_plan pp;
    int64_t in_whole = -1;
    CHECK_OK(lf__exact_solve(cm, &u, NULL, &pp, &in_whole, NULL));
    lf_plan_destroy(&pp);
    lf_bitset_destroy(&u);
    lf_graph *pg = NULL;
    CHECK_OK(lf__piece_graph(g, 140, 163, &pg));
    lf_cost_model *pm = pg ? tf_model_default(pg, 256 * 1024, "lbdf") : NULL;
    if (pm)
        CHECK_EQ_I64(tf_exact_optimum(pm), in_whole);
    fprintf(stderr, "  nasnet_a lbdf 256 KB: %d cuts of <= 4 tensors no group spans, the first after op %d; "
                    "ops 141-163: %lld B\n", hard, first, (long long)in_whole);
    lf_cost_model_free(pm);
    lf_graph_free(pg);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* Through the pipeline: a candidate limit that stops the whole DP but not
 * any piece between unspanned cuts still ends with the optimum. */
static void test_pipeline(void)
{
    int proven = 0, stopped = 0, stopped_polished = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 6; seed++) {
            lf_graph *g = rdag_build(seed, fam, 30);
            if (!g)
                continue;
            lf_cost_model *cm = tf_model_default(g, RDAG_BETA_SMALL, "lbdf");
            lf_exact_stats whole;
            lf_plan p;
            int64_t opt = -1, most = 0;
            if (lf_exact_plan(cm, NULL, &p, &whole) == LF_OK) {
                lf_plan_metrics m;
                CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
                opt = m.dram_fusable;
                lf_plan_destroy(&p);
            }
            lf__hard_pieces h;
            CHECK_OK(lf__hard_pieces_solve(cm, NULL, 4, &h));
            lf_bitset u;
            CHECK_OK(lf_bitset_init(&u, g->n_ops));
            for (int32_t i = 0; i < h.pieces && h.pieces > 1; i++) {
                lf_bitset_clear_all(&u);
                for (int32_t v = (i > 0 ? h.ends[i - 1] : -1) + 1; v <= h.ends[i]; v++)
                    if (g->ops[v].type != LF_OP_INPUT)
                        lf_bitset_set(&u, v);
                lf_exact_stats es;
                int64_t d;
                CHECK_OK(lf__exact_solve(cm, &u, NULL, &p, &d, &es));
                lf_plan_destroy(&p);
                if (es.candidates > most)
                    most = es.candidates;
            }
            lf_bitset_destroy(&u);
            if (h.pieces > 1 && opt >= 0 && most > 0 && most < whole.candidates) {
                lf_planner_config c;
                lf_planner_config_default(&c);
                c.search = "exact";
                c.threads = 1;
                c.exact.time_limit_s = 0;
                c.exact.max_candidates = most;
                lf_planned r;
                CHECK_OK(lf_plan_network(cm, &c, &r));
                CHECK_STR(r.search, "exact");
                CHECK_EQ_I64(r.metrics.dram_fusable, opt);
                CHECK(strstr(r.bound_note, "proven optimal") != NULL);
                CHECK(strstr(r.bound_note, "proven optimal: 0 ") == NULL && strstr(r.bound_note, "proven optimal: 1 ") == NULL);
                lf_planned_destroy(&r);
                proven++;
            }
            /* Stopped with pieces left open: the best effort's bounds
             * still bracket the optimum, its plan at the upper one. */
            if (h.pieces > 1 && opt >= 0) {
                lf_planner_config c;
                lf_planner_config_default(&c);
                c.search = "exact";
                c.threads = 1;
                c.best_effort = 1;
                c.budget = 50;
                c.exact.time_limit_s = 0;
                c.exact.max_candidates = 60;
                lf_planned r;
                CHECK_OK(lf_plan_network(cm, &c, &r));
                if (strcmp(r.search, "exact-best-effort") == 0) {
                    CHECK(r.lower_bound <= opt && opt <= r.metrics.dram_fusable);
                    if (r.lower_bound > opt || opt > r.metrics.dram_fusable)
                        fprintf(stderr, "  %s seed %llu: [%lld, %lld], optimum %lld\n", rdag_family_names[fam],
                                (unsigned long long)seed, (long long)r.lower_bound,
                                (long long)r.metrics.dram_fusable, (long long)opt);
                    stopped++;
                    stopped_polished += strstr(r.bound_note, "open pieces polished") != NULL;
                }
                lf_planned_destroy(&r);
            }
            lf__hard_pieces_free(&h);
            lf_cost_model_free(cm);
            lf_graph_free(g);
        }
    fprintf(stderr, "  pipeline: %d networks proven optimal by their pieces past a candidate limit; "
                    "%d stopped with bounds around the optimum (%d with open pieces polished)\n",
            proven, stopped, stopped_polished);
    CHECK(proven > 0 && stopped > 0);
}

/* No piece solved (BRR, where weights stream and every hull fits, has no
 * separator; or the separators failed): with a deadline the polish runs on
 * the whole plan, never worse, valid, and on graphs within its first
 * window (24 ops) it takes every op alone to the optimum; without one it
 * leaves the plan as it was (the best-effort polish before it was all). */
static void test_polish_unsolved(void)
{
    int reached = 0, improved = 0, first_pass = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 3; seed++) {
            lf_graph *g = rdag_build(200 + seed, fam, 12 + (int)seed * 4);
            lf_cost_model *cm = g ? tf_model_default(g, RDAG_BETA_MEDIUM, "brr") : NULL;
            CHECK(cm != NULL);
            if (!cm) {
                lf_graph_free(g);
                continue;
            }
            int64_t opt = tf_exact_optimum(cm);
            lf__hard_pieces h;
            memset(&h, 0, sizeof h);
            lf_plan p;
            lf_plan_metrics m;
            /* Every op alone (a lone group is never split by the polish,
             * so not the greedy plan, often one group here). */
            CHECK_OK(lf_plan_init(&p, g->n_ops));
            for (int32_t v = 0, gi = 0; v < g->n_ops; v++)
                p.group_of[v] = g->ops[v].type == LF_OP_INPUT ? -1 : gi++;
            p.n_groups = 0;
            for (int32_t v = 0; v < g->n_ops; v++)
                p.n_groups += g->ops[v].type != LF_OP_INPUT;
            lf_plan_canonicalize(&p);
            CHECK_OK(lf_plan_check(&p, cm));
            CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
            int64_t greedy = m.dram_fusable, d = greedy;
            int32_t widest = -1;
            CHECK_OK(lf__hard_pieces_polish(cm, &h, 0, &p, &d, &widest, NULL, NULL, NULL));
            CHECK(d == greedy && widest == 0);
            /* With a breadth-first polish after the first pass (the
             * pipeline's): valid, its figure recomputed, between the
             * optimum and the start, the optimum on the small graphs. */
            lf_plan q;
            CHECK_OK(lf_plan_copy(&q, &p));
            lf_polish_config bfs;
            lf_polish_config_default(&bfs);
            bfs.window_ops = 160;
            bfs.max_states = 5000;
            bfs.max_windows = 8;
            bfs.breadth_first = 1;
            int64_t dq = greedy;
            int32_t wq = -1, bfs_improved = -1;
            CHECK_OK(lf__hard_pieces_polish(cm, &h, lf_now_seconds() + 600, &q, &dq, &wq, NULL, &bfs, &bfs_improved));
            CHECK_OK(lf_plan_check(&q, cm));
            CHECK_OK(lf_plan_metrics_compute(&q, cm, &m));
            CHECK_EQ_I64(m.dram_fusable, dq);
            CHECK(opt <= dq && dq <= greedy);
            CHECK(bfs_improved == 0 || bfs_improved == 1);
            if (g->n_ops <= 24)
                CHECK_EQ_I64(dq, opt);
            lf_plan_destroy(&q);
            /* The breadth-first pass of narrow windows that runs first when
             * no piece is solved, before any plain pass: alone (the plain
             * passes' deadline already past when it returns is not asked
             * for, so the deadline is far), it says when it lowered the
             * figure, and the plan stays valid between the optimum and the
             * start. */
            lf_plan r2;
            CHECK_OK(lf_plan_copy(&r2, &p));
            int64_t dr = greedy;
            int32_t wr = -1, first_improved = -1;
            CHECK_OK(lf__hard_pieces_polish(cm, &h, lf_now_seconds() + 600, &r2, &dr, &wr, NULL, NULL, &first_improved));
            CHECK_OK(lf_plan_check(&r2, cm));
            CHECK_OK(lf_plan_metrics_compute(&r2, cm, &m));
            CHECK_EQ_I64(m.dram_fusable, dr);
            CHECK(opt <= dr && dr <= greedy);
            CHECK(first_improved == 0 || first_improved == 1);
            first_pass += first_improved == 1;
            lf_plan_destroy(&r2);
            CHECK_OK(lf__hard_pieces_polish(cm, &h, lf_now_seconds() + 600, &p, &d, &widest, NULL, NULL, NULL));
            CHECK_OK(lf_plan_check(&p, cm));
            CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
            CHECK_EQ_I64(m.dram_fusable, d);
            CHECK(opt <= d && d <= greedy);
            if (g->n_ops <= 24) {
                CHECK_EQ_I64(d, opt);
                reached += d == opt;
            }
            improved += d < greedy;
            lf_plan_destroy(&p);
            lf_cost_model_free(cm);
            lf_graph_free(g);
        }
    fprintf(stderr, "  no piece solved: %d plans polished to the optimum, %d improved on ops alone, %d by the breadth-first passes run first\n",
            reached, improved, first_pass);
    CHECK(reached > 5 && improved > 3 && first_pass > 3);
}

int main(void)
{
    test_polish_unsolved();
    test_pipeline();
    test_random_dags();
    test_hard_pieces();
    test_nasnet_cell();
    test_networks();
    return lf_test_result();
}

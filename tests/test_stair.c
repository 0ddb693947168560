/* The best-effort staircase (planner/app/stair.h, `curve --best-effort`):
 * where the exact staircase is stopped by a limit, every grid buffer's band
 * [lower, upper] holds the optimum there (brute force over every plan of
 * small random DAGs; the exact staircase on a CNN), and so does the band
 * between grid buffers; each plan is valid at its buffer and costs its
 * upper; bounds are monotone; proven buffers equal the optimum; a run
 * whose exact staircase ends gives its steps, all proven. The checker is
 * itself checked: a band moved by one byte past the optimum is caught.
 * Bad input is LF_EINVAL; the result is the same with 1 and 2 threads. */
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/app/stair.h"
#include "planner/app/stair_internal.h"
#include "planner/cost/cost.h"
#include "fixtures.h"
#include "random_dags.h"
#include "search/partition/simple.h"
#include "search/sweep/stair_report.h"
#include "testlib.h"

static int64_t brute_at(const lf_graph *g, const char *scheme, int64_t beta)
{
    return tf_brute_optimum_all(g, scheme, beta);
}

/* The optimum at beta from an exact staircase. */
typedef struct truth {
    const lf_graph *g;
    const char *scheme;
    const lf_curve *curve; /* NULL: brute force */
} truth;

static int64_t opt_at(const truth *t, int64_t beta)
{
    return t->curve ? lf_curve_dram_at(t->curve, beta) : brute_at(t->g, t->scheme, beta);
}

/* The claims of s against the truth: violations counted, not asserted, so
 * that a mutated staircase can be shown to be caught. probes: buffers
 * between grid buffers to test the bands at (n_probes of them). */
static int violations(const truth *t, const lf_stair *s, const int64_t *probes, int32_t n_probes)
{
    int bad = 0;
    for (int32_t k = 0; k < s->n; k++) {
        const lf_stair_step *st = &s->steps[k];
        int64_t opt = opt_at(t, st->beta);
        bad += !(st->lower <= opt && opt <= st->upper);
        bad += st->solved && st->lower != st->upper;
        bad += st->found_at > st->beta || st->lower_at < st->beta;
        if (k > 0)
            bad += st->beta <= s->steps[k - 1].beta || st->upper > s->steps[k - 1].upper ||
                   st->lower > s->steps[k - 1].lower;
        lf_hw hw;
        lf_hw_default(&hw);
        hw.buffer_bytes = st->beta;
        lf_cost_model *cm = NULL;
        lf_plan_metrics m;
        if (lf_cost_model_create(&cm, t->g, &hw, t->scheme) != LF_OK || lf_plan_check(&st->plan, cm) != LF_OK ||
            lf_plan_metrics_compute(&st->plan, cm, &m) != LF_OK || m.dram_all != st->upper)
            bad++;
        lf_cost_model_free(cm);
    }
    /* Between grid buffers: [next lower, this upper]. */
    for (int32_t i = 0; i < n_probes && !s->exact; i++) {
        int64_t b = probes[i];
        int32_t k = 0;
        while (k + 1 < s->n && s->steps[k + 1].beta <= b)
            k++;
        int64_t opt = opt_at(t, b), lo = k + 1 < s->n ? s->steps[k + 1].lower : s->steps[k].lower;
        bad += !(lo <= opt && opt <= s->steps[k].upper);
    }
    return bad;
}

static char *json_of(const lf_stair *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    lf_stair_report_json(f, s, "m", "lbdf");
    lf_stair_report_csv(f, s, "m", "lbdf");
    fclose(f);
    return text;
}

static int open_steps, proven_steps, carried_plans, carried_lowers;

/* One staircase stopped at a limit, checked and mutated. */
static void check_stopped(const truth *t, int64_t lo, int64_t hi, int32_t points, int64_t max_states)
{
    lf_hw hw;
    lf_hw_default(&hw);
    lf_exact_config ec;
    lf_exact_config_default(&ec);
    ec.time_limit_s = 0;
    ec.max_states = max_states;
    ec.threads = 1;
    lf_stair s;
    CHECK_OK(lf_stair_compute(t->g, &hw, t->scheme, lo, hi, points, &ec, &s));
    CHECK(!s.exact && s.stopped[0]);
    int64_t grid[64];
    int32_t n = 0;
    lf_stair_grid(lo, hi, points, grid, &n);
    CHECK_EQ_I64(s.n, n);
    for (int32_t k = 0; k < s.n && k < n; k++)
        CHECK_EQ_I64(s.steps[k].beta, grid[k]);
    /* Probes: the exact steps' buffers and one byte below each, or a few
     * buffers between grid buffers. */
    int64_t probes[256];
    int32_t np = 0;
    if (t->curve) {
        for (int32_t k = 0; k < t->curve->n && np + 2 <= 256; k++) {
            probes[np++] = t->curve->points[k].beta;
            if (t->curve->points[k].beta > lo)
                probes[np++] = t->curve->points[k].beta - 1;
        }
    } else {
        for (int32_t k = 0; k + 1 < s.n; k++)
            probes[np++] = s.steps[k].beta + (s.steps[k + 1].beta - s.steps[k].beta) / 2;
    }
    CHECK_EQ_I64(violations(t, &s, probes, np), 0);
    for (int32_t k = 0; k < s.n; k++) {
        open_steps += s.steps[k].lower < s.steps[k].upper;
        proven_steps += s.steps[k].lower == s.steps[k].upper;
        carried_plans += s.steps[k].found_at < s.steps[k].beta;
        carried_lowers += s.steps[k].lower_at > s.steps[k].beta;
    }
    /* Mutations: a step whose lower meets the optimum raised by one byte,
     * an upper lowered by one (its plan then costs more), a lower carried
     * wrong (below a larger buffer's). */
    for (int32_t k = 0; k < s.n; k++) {
        lf_stair_step *st = &s.steps[k];
        if (st->lower == opt_at(t, st->beta)) {
            st->lower++;
            CHECK(violations(t, &s, probes, np) > 0);
            st->lower--;
        }
        st->upper--;
        CHECK(violations(t, &s, probes, np) > 0);
        st->upper++;
        if (k > 0 && st->lower > 0) {
            int64_t keep = s.steps[k - 1].lower;
            s.steps[k - 1].lower = st->lower - 1;
            CHECK(violations(t, &s, probes, np) > 0);
            s.steps[k - 1].lower = keep;
        }
    }
    /* Byte-identical with 2 threads. */
    ec.threads = 2;
    lf_stair s2;
    CHECK_OK(lf_stair_compute(t->g, &hw, t->scheme, lo, hi, points, &ec, &s2));
    char *a = json_of(&s), *b = json_of(&s2);
    CHECK(strcmp(a, b) == 0);
    free(a);
    free(b);
    lf_stair_destroy(&s2);
    lf_stair_destroy(&s);
}

static void test_random_dags(void)
{
    const char *schemes[] = {"lbdf", "brr"};
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 2; seed++) {
            lf_graph *g = rdag_build(seed, fam, 7);
            CHECK(g != NULL);
            for (int si = 0; si < 2 && g; si++) {
                truth t = {g, schemes[si], NULL};
                check_stopped(&t, 512, 64 * 1024, 7, 2);
            }
            lf_graph_free(g);
        }
}

/* A CNN whose exact staircase is known: stopped at a few states, the
 * bands hold it; with the default limits the exact staircase itself. */
static void test_cnn(void)
{
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build("squeezenet1_1", NULL, &g));
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    lf_curve c;
    CHECK_OK(lf_curve_compute(g, &hw, "lbdf", 65536, 524288, NULL, &c));
    truth t = {g, "lbdf", &c};
    check_stopped(&t, 65536, 524288, 6, 20);
    lf_exact_config ec;
    lf_exact_config_default(&ec);
    lf_stair s;
    CHECK_OK(lf_stair_compute(g, &hw, "lbdf", 65536, 524288, 0, &ec, &s));
    CHECK(s.exact);
    CHECK_EQ_I64(s.n, c.n);
    for (int32_t k = 0; k < s.n && k < c.n; k++) {
        CHECK_EQ_I64(s.steps[k].beta, c.points[k].beta);
        CHECK_EQ_I64(s.steps[k].lower, c.points[k].dram_all);
        CHECK_EQ_I64(s.steps[k].upper, c.points[k].dram_all);
    }
    CHECK_EQ_I64(lf_stair_proven(&s), c.n);
    CHECK_EQ_I64(violations(&t, &s, NULL, 0), 0);
    lf_stair_destroy(&s);
    lf_curve_destroy(&c);
    lf_graph_free(g);
}

/* The monotone passes on steps made by hand: the plan of a smaller
 * buffer's step replaces a worse one (priced at the larger buffer), never
 * a better one; a lower bound carries down to smaller buffers, not up; a
 * bound above its upper is an internal error. */
static void test_monotone(void)
{
    lf_graph *g = rdag_build(0, RDAG_RESIDUAL, 7);
    CHECK(g != NULL);
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    int64_t b0 = RDAG_BETA_MEDIUM, b1 = RDAG_BETA_LARGE;
    lf_cost_model *cm0 = NULL, *cm1 = NULL;
    hw.buffer_bytes = b0;
    CHECK_OK(lf_cost_model_create(&cm0, g, &hw, "lbdf"));
    hw.buffer_bytes = b1;
    CHECK_OK(lf_cost_model_create(&cm1, g, &hw, "lbdf"));
    lf_stair s;
    memset(&s, 0, sizeof s);
    s.n = 2;
    s.steps = calloc(2, sizeof *s.steps);
    lf_stair_step *lo = &s.steps[0], *hi = &s.steps[1];
    /* below: the optimum at b0; above: the layer-by-layer plan at b1. */
    CHECK_OK(lf_exact_plan(cm0, NULL, &lo->plan, NULL));
    CHECK_OK(lf_plan_metrics_compute(&lo->plan, cm0, &lo->metrics));
    CHECK_OK(lf_plan_layer(cm1, &hi->plan));
    CHECK_OK(lf_plan_metrics_compute(&hi->plan, cm1, &hi->metrics));
    lo->beta = lo->found_at = lo->lower_at = b0;
    hi->beta = hi->found_at = hi->lower_at = b1;
    lo->upper = lo->metrics.dram_all;
    hi->upper = hi->metrics.dram_all;
    CHECK(lo->upper < hi->upper); /* else the carry has nothing to do */
    lf_plan_metrics m;
    CHECK_OK(lf_plan_metrics_compute(&lo->plan, cm1, &m));
    CHECK_OK(lf__stair_carry_plan(lo, hi, cm1));
    CHECK_EQ_I64(hi->upper, m.dram_all);
    CHECK_EQ_I64(hi->found_at, b0);
    CHECK_EQ_I64(lf_plan_compare(&hi->plan, &hi->metrics, &lo->plan, &m), 0);
    /* Not the other way: the layer plan at b0 is worse than its optimum. */
    lf_stair_step worse;
    memset(&worse, 0, sizeof worse);
    CHECK_OK(lf_plan_layer(cm0, &worse.plan));
    worse.found_at = b0 / 2;
    int64_t up = hi->upper;
    CHECK_OK(lf__stair_carry_plan(&worse, hi, cm1));
    CHECK_EQ_I64(hi->upper, up);
    CHECK_EQ_I64(hi->found_at, b0);
    lf_plan_destroy(&worse.plan);
    /* Lower bounds: carried down only. */
    lo->lower = 10;
    hi->lower = 20;
    CHECK_OK(lf__stair_settle(&s));
    CHECK_EQ_I64(lo->lower, 20);
    CHECK_EQ_I64(lo->lower_at, b1);
    CHECK_EQ_I64(hi->lower, 20);
    CHECK_EQ_I64(hi->lower_at, b1);
    hi->lower = hi->upper + 1;
    CHECK_EQ_I64(lf__stair_settle(&s), LF_EPLAN);
    CHECK(strstr(lf_last_error(), "internal error") != NULL);
    lf_stair_destroy(&s);
    lf_cost_model_free(cm0);
    lf_cost_model_free(cm1);
    lf_graph_free(g);
}

static void test_bad_input(void)
{
    lf_graph *g = rdag_build(1, RDAG_CHAIN, 4);
    CHECK(g != NULL);
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    lf_exact_config ec;
    lf_exact_config_default(&ec);
    lf_stair s;
    CHECK_EQ_I64(lf_stair_compute(g, &hw, "lbdf", 4096, 4096, 4, &ec, &s), LF_EINVAL);
    lf_stair_destroy(&s);
    CHECK_EQ_I64(lf_stair_compute(g, &hw, "lbdf", 0, 4096, 4, &ec, &s), LF_EINVAL);
    lf_stair_destroy(&s);
    CHECK_EQ_I64(lf_stair_compute(g, &hw, "lbdf", 1024, 4096, 1, &ec, &s), LF_EINVAL);
    CHECK(strstr(lf_last_error(), "grid buffers (2 to 1024)") != NULL);
    lf_stair_destroy(&s);
    CHECK_EQ_I64(lf_stair_compute(g, &hw, "lbdf", 1024, 4096, LF_STAIR_MAX_POINTS + 1, &ec, &s), LF_EINVAL);
    lf_stair_destroy(&s);
    CHECK_EQ_I64(lf_stair_compute(g, &hw, "lbdf", 1024, 4096, 4, NULL, &s), LF_EINVAL);
    lf_stair_destroy(&s);
    ec.objective = 1;
    CHECK_EQ_I64(lf_stair_compute(g, &hw, "lbdf", 1024, 4096, 4, &ec, &s), LF_EINVAL);
    CHECK(strstr(lf_last_error(), "DRAM objective only") != NULL);
    lf_stair_destroy(&s);
    lf_graph_free(g);
    /* The grid: both ends to the byte, geometric, repeats dropped. */
    int64_t grid[8];
    int32_t n = 0;
    lf_stair_grid(1024, 16384, 5, grid, &n);
    CHECK_EQ_I64(n, 5);
    CHECK_EQ_I64(grid[0], 1024);
    CHECK_EQ_I64(grid[1], 2048);
    CHECK_EQ_I64(grid[2], 4096);
    CHECK_EQ_I64(grid[4], 16384);
    lf_stair_grid(10, 12, 8, grid, &n);
    CHECK_EQ_I64(n, 3);
    CHECK_EQ_I64(grid[2], 12);
}

int main(void)
{
    test_bad_input();
    test_monotone();
    test_random_dags();
    test_cnn();
    /* The tests saw both kinds of step (else they test nothing of the bands). */
    CHECK(open_steps > 0);
    CHECK(proven_steps > 0);
    printf("open steps %d, proven steps %d, plans carried up %d, lower bounds carried down %d\n", open_steps,
           proven_steps, carried_plans, carried_lowers);
    return lf_test_result();
}

/* The staircase's Pareto fronts (planner/exact/curve_front.c) against the
 * rules they stand for, on random fronts and steps:
 * - lf__front_extend, which offers only the pairs (point, step) that no
 *   other pair beats outright, skips blocks of points the target beats and
 *   rebuilds a large target by one merge, leaves the target exactly as
 *   adding every pair one by one with lf__front_add does (the same points,
 *   needs, figures, group counts and back links: ties go to the same pair);
 * - lf__front_dominated says 1 exactly when no pair, at the need and
 *   figure floors it is given, would enter the target. */
#include <stdlib.h>
#include <string.h>

#include "planner/exact/curve_front.h"
#include "testlib.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static int64_t rnd(int64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int64_t)(rng % (uint64_t)n);
}

/* A front of n points (needs ascending, figures descending, as the front
 * keeps them), on a coarse grid so that offers tie with its points; state
 * ps for every back link. */
static void random_front(lf__front *f, int32_t n, int32_t ps)
{
    f->p = malloc((size_t)(n ? n : 1) * sizeof *f->p);
    f->b = malloc((size_t)(n ? n : 1) * sizeof *f->b);
    f->n = f->cap = n;
    int64_t need = 100 + 4 * rnd(50), dram = 1000 + 10 * (int64_t)n * 3;
    for (int32_t k = 0; k < n && f->p && f->b; k++) {
        f->p[k] = (lf__fpoint){dram, need};
        f->b[k] = (lf__fback){ps, k, (int32_t)rnd(2)};
        need += 4 + 4 * rnd(2);
        dram -= 10 + 10 * rnd(3);
    }
}

static void free_front(lf__front *f)
{
    free(f->p);
    free(f->b);
}

static int same_front(const lf__front *a, const lf__front *b)
{
    if (a->n != b->n)
        return 0;
    for (int32_t i = 0; i < a->n; i++)
        if (a->p[i].dram != b->p[i].dram || a->p[i].need != b->p[i].need ||
            a->b[i].prev_state != b->b[i].prev_state || a->b[i].prev_idx != b->b[i].prev_idx ||
            a->b[i].groups != b->b[i].groups)
            return 0;
    return 1;
}

static lf__front copy_front(const lf__front *f)
{
    lf__front c = {NULL, NULL, f->n, f->n};
    c.p = malloc((size_t)(f->n ? f->n : 1) * sizeof *c.p);
    c.b = malloc((size_t)(f->n ? f->n : 1) * sizeof *c.b);
    if (c.p && c.b) {
        memcpy(c.p, f->p, (size_t)f->n * sizeof *c.p);
        memcpy(c.b, f->b, (size_t)f->n * sizeof *c.b);
    }
    return c;
}

/* Random steps: needs ascending, figures descending. */
static int32_t random_steps(lf_cost_step *st, int32_t max)
{
    int32_t n = 1 + (int32_t)rnd(max);
    int64_t need = 50 + 4 * rnd(300), f = 500 + 10 * rnd(100);
    for (int32_t k = 0; k < n; k++) {
        st[k] = (lf_cost_step){need, f};
        need += 4 + 4 * rnd(200);
        f -= 10 + 10 * rnd(20);
        if (f < 0)
            return k + 1;
    }
    return n;
}

static void test_extend(void)
{
    int merged = 0;
    for (int round = 0; round < 2000; round++) {
        int32_t n_src = 1 + (int32_t)rnd(round % 3 == 0 ? 300 : 40);
        int32_t n_to = (int32_t)rnd(round % 2 == 0 ? 400 : 50);
        lf__front src, to;
        random_front(&src, n_src, 7);
        random_front(&to, n_to, 9);
        lf_cost_step st[12];
        int32_t ns = random_steps(st, 12);
        int64_t lo = rnd(3) == 0 ? 0 : 100 + 4 * rnd(300);
        lf__front want = copy_front(&to);
        lf__join_acc acc = {0}, acc2 = {0};
        for (int32_t i = 0; i < src.n; i++)
            for (int32_t k = 0; k < ns; k++) {
                int64_t need = st[k].need > lo ? st[k].need : lo;
                if (src.p[i].need > need)
                    need = src.p[i].need;
                lf__front_add(&acc, &want, src.p[i].dram + st[k].f_d, need, src.b[i].groups + 1, 3, i, 0);
            }
        merged += to.n >= 64 && !same_front(&to, &want);
        lf__front_extend(&acc2, &src, 3, &to, st, ns, lo);
        CHECK_EQ_I64(acc.status, LF_OK);
        CHECK_EQ_I64(acc2.status, LF_OK);
        CHECK(same_front(&to, &want));
        free_front(&want);
        free_front(&src);
        free_front(&to);
    }
    /* Targets large enough to be rebuilt by a merge did change. */
    CHECK(merged > 200);
}

static void test_dominated(void)
{
    int yes = 0;
    for (int round = 0; round < 2000; round++) {
        lf__front from, to;
        random_front(&from, 1 + (int32_t)rnd(30), 1);
        random_front(&to, (int32_t)rnd(30), 2);
        int64_t need = 100 + 4 * rnd(400), floor = 10 * rnd(60);
        /* Every point of `from` with the floor added, at need or more, is
         * beaten (less DRAM, no more need) by a point of `to`. */
        int want = 1;
        for (int32_t i = 0; i < from.n && want; i++) {
            int64_t nd = from.p[i].need > need ? from.p[i].need : need, d = from.p[i].dram + floor;
            int beaten = 0;
            for (int32_t j = 0; j < to.n; j++)
                beaten |= to.p[j].need <= nd && to.p[j].dram < d;
            want = beaten;
        }
        CHECK_EQ_I64(lf__front_dominated(&from, &to, need, floor), want);
        yes += want;
        free_front(&from);
        free_front(&to);
    }
    CHECK(yes > 100 && yes < 1900);
}

int main(void)
{
    test_extend();
    test_dominated();
    return lf_test_result();
}

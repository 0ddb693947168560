/* The table of the cheapest paths down to a lower op
 * (planner/cost/height_reach.c) and its use by the set heights of
 * planner/cost/tile_floor.c (lf__set_height). First the table against a
 * forward search from each op (random DAGs of every family and NasNet-A,
 * every op and every height). Then the claim that the table only saves
 * time: the set floors of random sets, with the sets' own heights found
 * through the table and by the search alone, are equal, on random DAGs
 * under BRR at two buffers and on NasNet-A at 256 KB, where many of them
 * are raised by the set's own height (so the heights are exercised). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "models/registry.h"
#include "planner/cost/cost_internal.h"
#include "planner/util/rng.h"
#include "random_dags.h"
#include "testlib.h"

/* tile_floor.c's fixed height: a reduction takes its input's, a vector 0. */
static int64_t fixed_hv(const lf_cost_model *cm, int32_t u)
{
    if (cm->ops[u].kind == LF_ROWS_REDUCTION)
        return cm->g->ops[u].n_inputs > 0 ? cm->ops[cm->g->ops[u].inputs[0]].h : 1;
    return cm->ops[u].h > 1 ? cm->ops[u].h : 0;
}

static double step_of(const lf_cost_model *cm, int32_t w)
{
    const lf_op *op = &cm->g->ops[w];
    return cm->ops[w].kind != LF_ROWS_VIEW && (op->n_consumers > 0 || op->is_output) ? (double)cm->ops[w].row_bytes
                                                                                      : 0;
}

/* The least rows over paths of fusable ops from v to the first op at most h
 * high, by a forward pass over ids from v (1e300: none). */
static double forward_cost(const lf_cost_model *cm, const int64_t *fhv, int32_t v, int64_t h, double *dist)
{
    const lf_graph *g = cm->g;
    double best = 1e300;
    for (int32_t u = 0; u < g->n_ops; u++)
        dist[u] = 1e300;
    for (int32_t j = 0; j < g->ops[v].n_consumers; j++) {
        int32_t c = g->ops[v].consumers[j];
        if (cm->fusable[c])
            dist[c] = step_of(cm, c) < dist[c] ? step_of(cm, c) : dist[c];
    }
    for (int32_t u = v + 1; u < g->n_ops; u++) {
        if (dist[u] >= 1e300)
            continue;
        if (fhv[u] <= h) {
            best = dist[u] < best ? dist[u] : best;
            continue;
        }
        for (int32_t j = 0; j < g->ops[u].n_consumers; j++) {
            int32_t c = g->ops[u].consumers[j];
            double d = dist[u] + step_of(cm, c);
            if (cm->fusable[c] && d < dist[c])
                dist[c] = d;
        }
    }
    return best;
}

/* Every op and every height of cm's table against the forward search, and
 * lf__height_reach_least at budgets around each cost. Returns the finite
 * costs checked. */
static int64_t check_table(const lf_cost_model *cm)
{
    const lf_graph *g = cm->g;
    int64_t *fhv = malloc((size_t)g->n_ops * sizeof *fhv);
    double *dist = malloc((size_t)g->n_ops * sizeof *dist);
    lf__height_reach r;
    int64_t finite = 0;
    CHECK(fhv && dist);
    if (!fhv || !dist)
        goto done;
    for (int32_t u = 0; u < g->n_ops; u++)
        fhv[u] = fixed_hv(cm, u);
    lf__height_reach_build(cm, fhv, &r);
    CHECK(r.n_heights > 0 && r.heights[0] == 0);
    for (int32_t v = 0; v < g->n_ops; v++) {
        for (int32_t i = 0; i < r.n_heights; i++) {
            double want = forward_cost(cm, fhv, v, r.heights[i], dist);
            double got = lf__height_reach_cost(&r, v, r.heights[i]);
            if (got != want) {
                fprintf(stderr, "  %s op %d height %lld: table %.0f, search %.0f\n", g->name, (int)v,
                        (long long)r.heights[i], got, want);
                CHECK(got == want);
            }
            if (want >= 1e300)
                continue;
            finite++;
            /* Within exactly the cost the height is reached, one byte less
             * only a taller one (or none). */
            int64_t at = lf__height_reach_least(&r, v, want), under = lf__height_reach_least(&r, v, want - 1);
            CHECK(at <= r.heights[i]);
            CHECK(under == INT64_MAX || forward_cost(cm, fhv, v, under, dist) <= want - 1);
            CHECK(under > r.heights[i]);
        }
    }
    lf__height_reach_free(&r);
done:
    free(fhv);
    free(dist);
    return finite;
}

typedef struct tally {
    int64_t sets, raised, unfit;
} tally;

/* Random sets of fusable ops (a run of ids, each kept with probability
 * 3/4): the set floor with the table equals the one found by the search
 * alone, and with either, no less than without the sets' heights. */
static void check_sets(const lf_cost_model *cm, int n_sets, int max_len, uint64_t seed, tally *t)
{
    const lf_graph *g = cm->g;
    lf_cost_tiles *plain = NULL, *table = NULL, *search = NULL;
    int32_t *members = malloc((size_t)g->n_ops * sizeof *members);
    CHECK(members != NULL);
    CHECK_OK(lf_cost_tiles_create(cm, &plain));
    CHECK_OK(lf_cost_tiles_create(cm, &table));
    CHECK_OK(lf_cost_tiles_create(cm, &search));
    if (!members || !plain || !table || !search)
        goto done;
    lf_cost_tiles_use_set_paths(table, 1);
    lf__tiles_set_paths_searched(search);
    lf_rng r;
    lf_rng_seed(&r, seed, 0x6865696768ULL);
    for (int k = 0; k < n_sets; k++) {
        int32_t from = (int32_t)lf_rng_below(&r, (uint32_t)g->n_ops);
        int32_t len = 1 + (int32_t)lf_rng_below(&r, (uint32_t)max_len), n = 0;
        for (int32_t u = from; u < g->n_ops && u < from + len; u++)
            if (g->ops[u].type != LF_OP_INPUT && cm->fusable[u] && lf_rng_below(&r, 4) != 0)
                members[n++] = u;
        if (n == 0)
            continue;
        int32_t a = lf_cost_tiles_of_set_fitting(table, members, n);
        int32_t b = lf_cost_tiles_of_set_fitting(search, members, n);
        int32_t p = lf_cost_tiles_of_set_fitting(plain, members, n);
        if (a != b) {
            fprintf(stderr, "  %s: set of %d ops from %s: %d with the table, %d searched\n", g->name, (int)n,
                    g->ops[members[0]].name, (int)a, (int)b);
            CHECK(a == b);
        }
        CHECK(a == 0 || a >= p);
        t->sets++;
        t->raised += a > p;
        t->unfit += a == 0;
    }
done:
    lf_cost_tiles_free(plain);
    lf_cost_tiles_free(table);
    lf_cost_tiles_free(search);
    free(members);
}

static void test_random_dags(void)
{
    tally t = {0};
    int64_t finite = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 6; seed++) {
            lf_graph *g = rdag_build(seed + 300, fam, 12 + (int)(seed % 3) * 10);
            CHECK(g != NULL);
            if (!g)
                continue;
            const int64_t betas[] = {RDAG_BETA_SMALL, RDAG_BETA_MEDIUM};
            for (int bi = 0; bi < 2; bi++) {
                lf_cost_model *cm = tf_model_default(g, betas[bi], "brr");
                if (!cm)
                    continue;
                finite += check_table(cm);
                check_sets(cm, 300, 8, seed * 2 + (uint64_t)bi, &t);
                lf_cost_model_free(cm);
            }
            lf_graph_free(g);
        }
    fprintf(stderr, "  random DAGs: %lld finite table costs; %lld sets, %lld raised by their height, %lld unfit\n",
            (long long)finite, (long long)t.sets, (long long)t.raised, (long long)t.unfit);
    CHECK(finite > 1000);
    CHECK(t.raised > 20);
}

static void test_nasnet(void)
{
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build("nasnet_a", NULL, &g));
    if (!g)
        return;
    lf_cost_model *cm = tf_model_default(g, 256 * 1024, "brr");
    tally t = {0};
    int64_t finite = 0;
    if (cm) {
        finite = check_table(cm);
        check_sets(cm, 6000, 24, 46, &t);
    }
    fprintf(stderr, "  NasNet-A BRR 256 KB: %lld finite table costs; %lld sets, %lld raised by their height, %lld unfit\n",
            (long long)finite, (long long)t.sets, (long long)t.raised, (long long)t.unfit);
    CHECK(finite > 1000);
    CHECK(t.raised > 100);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

int main(void)
{
    test_random_dags();
    test_nasnet();
    return lf_test_result();
}

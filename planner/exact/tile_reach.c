/* BRR tile floors sharpened by what can share a group (docs/search.md
 * "Certified bounds", "Tile floors past a far wait").
 *
 * An op's tile floor (planner/cost/tile_floor.c) needs a bound on how fast
 * its rows move per sink row in every group holding it, and anything below
 * the op that can stop the rows (a squeeze-and-excite reduction that a
 * spatial op waits for) makes that bound void for every op above it. On
 * PP-OCRv4 detection every backbone op lies above the neck's SE blocks, so
 * every floor there was 1 and the windows under BRR let parts holding two
 * of the 20 x 20 stage's 148 KB pointwise convs read their weights once,
 * where every group holding them reads them 10 times. A group holding v and
 * an op w holds their hull, so where the hull holds an unfusable op or its
 * monotone F_beta floor (the one the enumeration prunes with) reaches beta,
 * no valid group holds both: the wait that lies past such a hull cannot
 * stop v's rows in any valid group. lf_cost_tiles_refine redoes the slack
 * over the ops that pass this test. */
#include <stdlib.h>
#include <string.h>

#include "planner/exact/solve.h"

/* Hulls tested per op; past it the op keeps its old floor. */
#define LF__REACH_TESTS 512

typedef struct lf__reach {
    lf__exact x;
    const lf_graph *g;
    int32_t *fwd, *bwd, gen;
    int32_t *hull;
} lf__reach;

/* 0 when no valid group holds both a < b: their hull (a, b and every op on
 * a path between them; b is a descendant of a here) holds an unfusable op
 * or reaches beta under the monotone floor. */
static int lf__reach_together(void *ctx, int32_t a, int32_t b)
{
    lf__reach *r = ctx;
    const lf_graph *g = r->g;
    if (!r->x.fusable[a] || !r->x.fusable[b])
        return 0;
    int32_t gen = ++r->gen, n_hull = 0;
    r->fwd[a] = gen;
    for (int32_t v = a; v < b; v++) {
        if (r->fwd[v] != gen)
            continue;
        for (int32_t j = 0; j < g->ops[v].n_consumers; j++)
            if (g->ops[v].consumers[j] <= b)
                r->fwd[g->ops[v].consumers[j]] = gen;
    }
    if (r->fwd[b] != gen) /* not below a: its hull is the two ops */
        return lf__dp_floor_of(&r->x, (int32_t[]){a, b}, 2, r->x.beta) < r->x.beta;
    r->bwd[b] = gen;
    for (int32_t v = b; v >= a; v--) {
        if (r->bwd[v] != gen || r->fwd[v] != gen)
            continue;
        if (!r->x.fusable[v])
            return 0;
        r->hull[n_hull++] = v;
        for (int32_t j = 0; j < g->ops[v].n_inputs; j++)
            r->bwd[g->ops[v].inputs[j]] = gen;
    }
    return lf__dp_floor_of(&r->x, r->hull, n_hull, r->x.beta) < r->x.beta;
}

lf_status lf__tiles_create_sharp(lf_cost_model *cm, lf_cost_tiles **out)
{
    lf_status st = lf_cost_tiles_create(cm, out);
    if (st != LF_OK)
        return st;
    const lf_graph *g = lf_cost_graph(cm);
    lf__reach r;
    memset(&r, 0, sizeof r);
    r.g = g;
    st = lf__dp_setup(&r.x, cm, NULL, NULL);
    r.fwd = calloc((size_t)g->n_ops + 1, sizeof *r.fwd);
    r.bwd = calloc((size_t)g->n_ops + 1, sizeof *r.bwd);
    r.hull = malloc(((size_t)g->n_ops + 1) * sizeof *r.hull);
    if (st == LF_OK && (!r.fwd || !r.bwd || !r.hull))
        st = lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    if (st == LF_OK)
        st = lf_cost_tiles_refine(*out, lf__reach_together, &r, LF__REACH_TESTS);
    if (st == LF_OK)
        st = r.x.status;
    free(r.fwd);
    free(r.bwd);
    free(r.hull);
    lf__dp_teardown(&r.x);
    if (st != LF_OK) {
        lf_cost_tiles_free(*out);
        *out = NULL;
    }
    return st;
}

lf_status lf__tile_floors_sharp(lf_cost_model *cm, int32_t *tiles)
{
    lf_cost_tiles *t = NULL;
    lf_status st = lf__tiles_create_sharp(cm, &t);
    if (st == LF_OK)
        memcpy(tiles, lf_cost_tiles_ops(t), (size_t)lf_cost_graph(cm)->n_ops * sizeof *tiles);
    lf_cost_tiles_free(t);
    return st;
}

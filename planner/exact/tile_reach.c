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
 * an op w below it holds their hull, and so every path from v to w; where a
 * path holds an unfusable op or its monotone F_beta floor (the one the
 * enumeration prunes with) reaches beta, no valid group holds both: a wait
 * that lies past every such path cannot stop v's rows in any valid group.
 * lf_cost_tiles_refine redoes the slack over the ops reached along paths
 * that pass. */
#include <stdlib.h>
#include <string.h>

#include "planner/exact/solve.h"

/* Paths tested per op; past it the op keeps its old floor. */
#define LF__REACH_TESTS 64

/* The enumeration's state for the floor, set up at the first test (the
 * refinement tests nothing where weights stay resident). */
typedef struct lf__reach {
    lf_cost_model *cm;
    lf__exact x;
    int ready;
    lf_status st;
} lf__reach;

/* 0 when no valid group holds the n ops of `path` (a path between two ops:
 * inside their hull, which a group holding both holds, being convex): one
 * of them is unfusable or their monotone F_beta floor reaches beta. */
static int lf__reach_together(void *ctx, const int32_t *path, int32_t n)
{
    lf__reach *r = ctx;
    if (!r->ready) {
        r->ready = 1;
        r->st = lf__dp_setup(&r->x, r->cm, NULL, NULL);
    }
    if (r->st != LF_OK)
        return 1; /* no floor: nothing proved apart */
    for (int32_t i = 0; i < n; i++)
        if (!r->x.fusable[path[i]])
            return 0;
    return lf__dp_floor_of(&r->x, path, n, r->x.beta) < r->x.beta;
}

lf_status lf__tiles_create_sharp(lf_cost_model *cm, lf_cost_tiles **out)
{
    lf_status st = lf_cost_tiles_create(cm, out);
    if (st != LF_OK)
        return st;
    lf__reach r;
    memset(&r, 0, sizeof r);
    r.cm = cm;
    st = lf_cost_tiles_refine(*out, lf__reach_together, &r, LF__REACH_TESTS);
    if (st == LF_OK && r.ready)
        st = r.st != LF_OK ? r.st : r.x.status;
    if (r.ready)
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

/* The BRR tile floors (planner/cost/tile_floor.c): a hand-computed chain,
 * then brute force: random convex connected groups around every op of real
 * networks (valid-padded convs in Inception-v3, resizes in DeepLabV3,
 * squeeze-and-excite in EfficientNet-B0, cells in NasNet-A) and of random
 * DAGs, each priced by the cost model, never reading an op's weights fewer
 * times than its floor once the weights do not all fit. */
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "graphs.h"
#include "models/registry.h"
#include "planner/exact/solve.h"
#include "planner/util/rng.h"
#include "random_dags.h"
#include "testlib.h"

/* The weight reads of the valid group of ops a and (when >= 0) b; -1 when
 * it is invalid or cannot be priced. */
static int32_t reads_of(lf_cost_model *cm, int32_t a, int32_t b)
{
    lf_bitset s;
    lf_group_cost c;
    if (lf_bitset_init(&s, lf_cost_graph(cm)->n_ops) != LF_OK)
        return -1;
    lf_bitset_set(&s, a);
    if (b >= 0)
        lf_bitset_set(&s, b);
    lf_status st = lf_cost_eval(cm, &s, &c);
    lf_bitset_destroy(&s);
    return st == LF_OK && c.valid ? c.weight_reads : -1;
}

/* x (16 x 16 x 16, int8) -> a: 3x3 conv, same padding, to 64 channels
 * (weights 9,216 B, one channel's block 144 B) -> b: 1x1 conv to 16
 * (weights 1,024 B, block 64 B), at beta 4,096 B. Rows: x 256 B, a 1,024 B,
 * b 256 B; both maps 16 high, so sigma_a * H >= 16 in every group. At h rows
 * per step a holds (3 + h - 1) rows of x and h of its own output:
 * 512 + 1,280 h <= 4,095 - 144 allows h <= 2: ceil(16 / 2) = 8 tiles. b
 * holds h rows of a and h of its output: 1,280 h <= 4,031, h <= 3: 6 tiles.
 * a alone reads its weights 8 times; b alone keeps them resident (the floor
 * counts only where weights do not fit); {a, b} reads them 8 times. */
static void test_hand_chain(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "tiles");
    tg_input(b, "x", 16, 16, 16);
    tg_conv(b, "a", "x", 64, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "b", "a", 16, 1, 1, 0, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    if (!g)
        return;
    lf_cost_model *cm = tf_model_hand(g, 4096, "brr");
    int32_t tiles[3] = {0, 0, 0};
    CHECK_OK(lf_cost_tile_floors(cm, tiles));
    int32_t a = lf_graph_find(g, "a"), bb = lf_graph_find(g, "b");
    CHECK_EQ_I64(tiles[0], 1);
    CHECK_EQ_I64(tiles[a], 8);
    CHECK_EQ_I64(tiles[bb], 6);
    /* a alone, b alone, both: 8, 1 (resident) and 8 weight reads. */
    const int32_t reads[3] = {8, 1, 8};
    for (int k = 0; k < 3; k++) {
        CHECK_EQ_I64(reads_of(cm, k != 1 ? a : bb, k == 2 ? bb : -1), reads[k]);
    }
    lf_cost_model_free(cm);
    /* LBDF keeps weights resident: every floor is 1. */
    cm = tf_model_hand(g, 4096, "lbdf");
    CHECK_OK(lf_cost_tile_floors(cm, tiles));
    CHECK(tiles[a] == 1 && tiles[bb] == 1);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* x (16 x 16 x 16) -> a: 3x3 conv, same padding, 16 channels (weights
 * 2,304 B, block 144 B) -> c: 3x3 conv, no padding, 16 channels (14 rows),
 * at beta 2,600 B; all rows 256 B but c's (224 B). Alone, a holds
 * (h + 2) + h rows: 512 + 512 h <= 2,455 allows h <= 3, ceil(16 / 3) = 6
 * weight reads. With c in the group the sinks are 14 high and only
 * sigma_a * H >= 14 holds (a's slack is 16 - 14 = 2): a's windows alone at
 * H = 14 allow h <= 3, ceil(14 / 3) = 5 tiles (without the slack, H = 14
 * would allow only h = 2). But a group of height 14 holds c (a is no sink
 * there: tile_path.c), and c's own rows count too: at h = 3 (u = 2 / 14)
 * x holds 5 rows, a 3 and c 3, 1,280 + 768 + 672 = 2,720 > 2,455; at h = 2
 * 1,024 + 512 + 448 = 1,984 fits: ceil(14 / 2) = 7 tiles. So a's floor is
 * min(6 at H = 16, 7 at H = 14) = 6, what a alone reads: exact. {a, c}
 * itself fits h = 1 only. */
static void test_hand_slack(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "tiles_slack");
    tg_input(b, "x", 16, 16, 16);
    tg_conv(b, "a", "x", 16, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "c", "a", 16, 3, 1, 0, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    if (!g)
        return;
    lf_cost_model *cm = tf_model_hand(g, 2600, "brr");
    int32_t tiles[3] = {0, 0, 0}, a = lf_graph_find(g, "a"), c = lf_graph_find(g, "c");
    CHECK_OK(lf_cost_tile_floors(cm, tiles));
    CHECK_EQ_I64(tiles[a], 6);
    const int32_t reads[2] = {6, 14};
    for (int k = 0; k < 2; k++) {
        CHECK_EQ_I64(reads_of(cm, a, k ? c : -1), reads[k]);
    }
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* x (24 x 16 x 16) -> a: 3x3 conv, same padding, 8 channels (weights
 * 1,728 B, block 216 B) -> d: 2x2 conv of stride 2, 16 channels (8 x 8;
 * weights 512 B, block 32 B), at beta 3,000 B. Rows: x 384 B, a 128 B, d
 * 128 B; budget 3,000 - 1 - 216 = 2,783. Alone a streams (1,728 + 3 * 384
 * + 128 >= 3,000) and holds (h + 2) rows of x and h of its own: 768 + 512 h
 * fits h = 3, ceil(16 / 3) = 6 reads. With d the sinks are 8 high and
 * sigma_a = 2: at h = 2 the path's floor counts x 5 rows, a 3 and d 2,
 * 1,920 + 384 + 256 = 2,560, and fits, h = 3 does not (x 7 rows and a 5: 3,328): ceil(8 / 2) = 4 reads,
 * what {a, d} reads. The floor is 4, met below a's own height; counting d's
 * row three times gives h = 1 there, 8 tiles, and a floor of 6 above what
 * {a, d} reads. */
static void test_hand_path(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "tiles_path");
    tg_input(b, "x", 24, 16, 16);
    tg_conv(b, "a", "x", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "d", "a", 16, 2, 2, 0, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    if (!g)
        return;
    lf_cost_model *cm = tf_model_hand(g, 3000, "brr");
    int32_t tiles[3] = {0, 0, 0}, a = lf_graph_find(g, "a"), d = lf_graph_find(g, "d");
    CHECK_OK(lf_cost_tile_floors(cm, tiles));
    CHECK_EQ_I64(tiles[a], 4);
    CHECK_EQ_I64(reads_of(cm, a, -1), 6);
    CHECK_EQ_I64(reads_of(cm, a, d), 4);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* The set's own reference height (lf_cost_tiles_use_set_paths): x (16 x 16
 * x 16, int8) -> a: 1x1 conv to 64 (weights 1,024 B, block 16), read by
 * b and c: 1x1 convs to 64 (4,096 B each, block 64), each read by a 2x2
 * conv of stride 2 (d after b, e after c: 8 x 8, rows of 512 B). Rows of
 * 16 x 16 maps: x 256 B, a, b, c 1,024 B each. The set {a, b, c} at one
 * row: 3,328 B beside the block 64. A group holding it whose sinks are
 * lower than 16 holds d or e too: one more row of 512 B. At beta 3,600 that
 * passes beta - 1 - 64 - 3,328 = 207 B: every valid group holding the set
 * has 16-row sinks, holds 3,328 h B at h rows per step, so h = 1 and its
 * weights (9,216 B, not resident) are read 16 times: the floor is 16
 * (16 / (1 + 16 u*) with u* = (3,535 / 3,328 - 1) / 16: 15.06). Each op
 * alone fits a path down (a: 256 + 1,024 + b's 1,024 + d's 512 = 2,816 B),
 * so without the set's height the floor takes H = 8: 8 / (1 + 8 u*) rounds
 * up to 8. At beta 4,000 (607 B left) d's row fits and both say 8; the
 * group still reads 16 times. At 3,300 the one-row sum with the block
 * (3,392 B) passes beta: no valid group holds the set. */
static void test_set_height(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "tiles_set_height");
    tg_input(b, "x", 16, 16, 16);
    tg_conv(b, "a", "x", 64, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "b", "a", 64, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "c", "a", 64, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "d", "b", 64, 2, 2, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "e", "c", 64, 2, 2, 0, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    if (!g)
        return;
    const int64_t betas[] = {3600, 4000, 3300};
    const int32_t plain_want[] = {8, 8, 8}, paths_want[] = {16, 8, 8}, fits_want[] = {1, 1, 0};
    for (int i = 0; i < 3; i++) {
        lf_cost_model *cm = tf_model_hand(g, betas[i], "brr");
        int32_t abc[3] = {lf_graph_find(g, "a"), lf_graph_find(g, "b"), lf_graph_find(g, "c")};
        lf_cost_tiles *plain = NULL, *paths = NULL;
        CHECK_OK(lf_cost_tiles_create(cm, &plain));
        CHECK_OK(lf_cost_tiles_create(cm, &paths));
        if (plain && paths) {
            lf_cost_tiles_use_set_paths(paths, 1);
            CHECK_EQ_I64(lf_cost_tiles_of_set_fitting(paths, abc, 3) > 0, fits_want[i]);
            if (fits_want[i]) {
                CHECK_EQ_I64(lf_cost_tiles_of_set(plain, abc, 3), plain_want[i]);
                CHECK_EQ_I64(lf_cost_tiles_of_set(paths, abc, 3), paths_want[i]);
            }
        }
        lf_bitset s;
        lf_group_cost c;
        if (lf_bitset_init(&s, g->n_ops) == LF_OK) {
            for (int k = 0; k < 3; k++)
                lf_bitset_set(&s, abc[k]);
            CHECK_OK(lf_cost_eval(cm, &s, &c));
            CHECK_EQ_I64(c.valid, fits_want[i]);
            if (fits_want[i])
                CHECK_EQ_I64(c.weight_reads, 16);
            lf_bitset_destroy(&s);
        }
        lf_cost_tiles_free(plain);
        lf_cost_tiles_free(paths);
        lf_cost_model_free(cm);
    }
    lf_graph_free(g);
}

typedef struct grower {
    const lf_graph *g;
    lf_cost_model *cm;
    int32_t *members;
    uint8_t *in, *down, *up;
    lf_bitset set;
} grower;

/* Grows a connected set of up to `size` fusable ops from v by random
 * neighbours and closes it under paths (convex); 0 when the closure takes
 * an op that cannot be grouped. */
static int grow_group(grower *w, lf_rng *r, int32_t v, int32_t size)
{
    const lf_graph *g = w->g;
    int32_t n = 0;
    memset(w->in, 0, (size_t)g->n_ops);
    w->members[n++] = v;
    w->in[v] = 1;
    for (int32_t tries = 0; n < size && tries < 8 * size; tries++) {
        const lf_op *op = &g->ops[w->members[lf_rng_below(r, (uint32_t)n)]];
        int32_t deg = op->n_inputs + op->n_consumers;
        if (deg == 0)
            continue;
        int32_t j = (int32_t)lf_rng_below(r, (uint32_t)deg);
        int32_t u = j < op->n_inputs ? op->inputs[j] : op->consumers[j - op->n_inputs];
        if (w->in[u] || g->ops[u].type == LF_OP_INPUT || !lf_cost_fusable(w->cm, u))
            continue;
        w->in[u] = 1;
        w->members[n++] = u;
    }
    /* Convex: add every op both below and above some member. */
    for (int32_t u = 0; u < g->n_ops; u++) {
        w->down[u] = w->in[u];
        for (int32_t j = 0; j < g->ops[u].n_inputs && !w->down[u]; j++)
            w->down[u] = w->down[g->ops[u].inputs[j]];
    }
    for (int32_t u = g->n_ops - 1; u >= 0; u--) {
        w->up[u] = w->in[u];
        for (int32_t j = 0; j < g->ops[u].n_consumers && !w->up[u]; j++)
            w->up[u] = w->up[g->ops[u].consumers[j]];
    }
    lf_bitset_clear_all(&w->set);
    for (int32_t u = 0; u < g->n_ops; u++) {
        if (!(w->down[u] && w->up[u]))
            continue;
        if (g->ops[u].type == LF_OP_INPUT || !lf_cost_fusable(w->cm, u))
            return 0;
        lf_bitset_set(&w->set, u);
    }
    return 1;
}

typedef struct tally {
    int64_t groups, checked, binding, tight;
    int64_t sets, sets_above, sets_tight; /* set floors: checked, above every member's, met */
    int64_t sharper; /* ops whose floor tile_reach.c raised */
    int64_t paths_above; /* set floors that the set's own height (lf__set_height) raised */
    int64_t held, held_parts, held_tight; /* kept waits checked (check_held) */
} tally;

/* A valid group G (members, n; in[]: membership) holding a wait's reduction
 * r and its reader m keeps the map p whole or reads it again, one way for
 * all its waits (model.c, lf__eval_waits). Kept (wait_resident, nothing
 * read again), p's window spans every row at the first phase of the sinks'
 * snapshot: r, which m waits for, asks p's last row and m its first
 * (rows.c), and windows are not clipped at the top. So no kept map is held
 * only partly: lf_cost_tiles_of_set_holding of G, or of any part of G
 * holding r and m (the windows' bound passes a part, window_bound.c,
 * lf__win_wait_rereads), is never 0 (no group keeps it) and, where G's
 * weights stream, never past G's weight reads. */
static void check_held(lf_cost_model *cm, lf_cost_tiles *tp, const lf__wait_pairs *wp, const uint8_t *in,
                       const int32_t *members, int32_t n, const lf_group_cost *c, lf_rng *r, tally *t)
{
    if (!c->valid || !c->wait_resident || c->reread_bytes > 0)
        return;
    const lf_graph *g = lf_cost_graph(cm);
    int streams = c->weights + c->features >= lf_cost_beta(cm);
    int32_t *part = malloc(((size_t)n + 1) * sizeof *part);
    if (!part)
        return;
    for (int32_t i = 0; i < wp->n; i++) {
        int32_t rr = wp->r[i], m = wp->m[i], p = wp->map[i];
        if (!in[rr] || !in[m])
            continue;
        int32_t whole = lf_cost_tiles_of_set_holding(tp, members, n, p, m), n_part = 0;
        for (int32_t k = 0; k < n; k++)
            if (members[k] == rr || members[k] == m || lf_rng_below(r, 2))
                part[n_part++] = members[k];
        int32_t some = lf_cost_tiles_of_set_holding(tp, part, n_part, p, m);
        t->held++;
        t->held_parts += n_part < n;
        t->held_tight += streams && whole > 1 && whole == c->weight_reads;
        if (whole == 0 || some == 0 || (streams && (whole > c->weight_reads || some > c->weight_reads))) {
            fprintf(stderr, "  %s beta %lld: group of %d ops keeps %s through the wait of %s, reads %d; "
                            "held floor %d, of a part of %d ops %d\n",
                    g->name, (long long)lf_cost_beta(cm), (int)n, g->ops[p].name, g->ops[m].name,
                    (int)c->weight_reads, (int)whole, (int)n_part, (int)some);
            CHECK(whole != 0 && some != 0);
            CHECK(!streams || (whole <= c->weight_reads && some <= c->weight_reads));
        }
    }
    free(part);
}

/* Random groups around every op with a floor above 1 (and a few others):
 * a valid group whose weights do not all fit reads them at least as often
 * as each member's floor, or as the set floor of the whole group and of a
 * random part of it. */
static void check_graph(const lf_graph *g, int64_t beta, int per_op, uint64_t seed, tally *t)
{
    lf_cost_model *cm = tf_model_default(g, beta, "brr");
    int32_t *tiles = malloc((size_t)g->n_ops * sizeof *tiles);
    int32_t *part = malloc((size_t)g->n_ops * sizeof *part);
    lf_cost_tiles *ts = NULL, *tp = NULL;
    lf__wait_pairs wp = {0, NULL, NULL, NULL};
    grower w = {g, cm, malloc((size_t)g->n_ops * sizeof(int32_t)), malloc((size_t)g->n_ops),
                malloc((size_t)g->n_ops), malloc((size_t)g->n_ops), {0}};
    CHECK(cm && tiles && part && w.members && w.in && w.down && w.up);
    if (!cm || !tiles || !part || !w.members || !w.in || !w.down || !w.up ||
        lf_bitset_init(&w.set, g->n_ops) != LF_OK)
        goto done;
    /* The floors sharpened by what can share a group (tile_reach.c): never
     * below the plain ones, and checked against the priced groups below. */
    CHECK_OK(lf_cost_tile_floors(cm, tiles));
    CHECK_OK(lf__tiles_create_sharp(cm, &ts));
    CHECK_OK(lf__tiles_create_sharp(cm, &tp));
    if (!ts || !tp)
        goto done;
    lf_cost_tiles_use_set_paths(tp, 1);
    for (int32_t v = 0; v < g->n_ops; v++) {
        CHECK(lf_cost_tiles_ops(ts)[v] >= tiles[v]);
        t->sharper += lf_cost_tiles_ops(ts)[v] > tiles[v];
    }
    CHECK_OK(lf__tile_floors_sharp(cm, tiles));
    CHECK(memcmp(lf_cost_tiles_ops(ts), tiles, (size_t)g->n_ops * sizeof *tiles) == 0);
    CHECK_OK(lf__wait_pairs_find(cm, &wp));
    lf_rng r, rh; /* rh: check_held's parts, apart from the groups' stream */
    lf_rng_seed(&r, seed, 0x74696c65ULL);
    lf_rng_seed(&rh, seed, 0x68656c64ULL);
    for (int32_t v = 0; v < g->n_ops; v++) {
        if (g->ops[v].type == LF_OP_INPUT || !lf_cost_fusable(cm, v))
            continue;
        int reps = tiles[v] > 1 ? per_op : (v % 8 == 0);
        for (int k = 0; k < reps; k++) {
            int32_t size = 1 + (int32_t)lf_rng_below(&r, k < per_op / 2 ? 6 : 40);
            if (!grow_group(&w, &r, v, size))
                continue;
            lf_group_cost c;
            CHECK_OK(lf_cost_eval(cm, &w.set, &c));
            t->groups++;
            if (c.valid && wp.n > 0) {
                int32_t n_all = lf_bitset_to_list(&w.set, w.members);
                memset(w.in, 0, (size_t)g->n_ops);
                for (int32_t i = 0; i < n_all; i++)
                    w.in[w.members[i]] = 1;
                check_held(cm, tp, &wp, w.in, w.members, n_all, &c, &rh, t);
            }
            if (!c.valid || c.weights + c.features < beta)
                continue;
            /* The set floors of the whole group and of a random part of it. */
            int32_t n_all = lf_bitset_to_list(&w.set, w.members), n_part = 0, own = 1;
            for (int32_t i = 0; i < n_all; i++) {
                own = tiles[w.members[i]] > own ? tiles[w.members[i]] : own;
                if (lf_rng_below(&r, 2))
                    part[n_part++] = w.members[i];
            }
            int32_t whole = lf_cost_tiles_of_set(ts, w.members, n_all);
            /* With the sets' own heights: never below, never past the group's
             * reads, and no subset of a valid group is found unfit. */
            int32_t pw = lf_cost_tiles_of_set(tp, w.members, n_all);
            int32_t pp = n_part > 0 ? lf_cost_tiles_of_set(tp, part, n_part) : 1;
            CHECK(pw >= whole);
            t->paths_above += pw > whole;
            CHECK(lf_cost_tiles_of_set_fitting(tp, w.members, n_all) == pw);
            CHECK(n_part == 0 || lf_cost_tiles_of_set_fitting(tp, part, n_part) == pp);
            if (pw > c.weight_reads || pp > c.weight_reads) {
                fprintf(stderr, "  %s beta %lld: group of %d ops around %s reads %d, set floor with paths %d, part %d\n",
                        g->name, (long long)beta, (int)n_all, g->ops[v].name, (int)c.weight_reads, (int)pw,
                        (int)pp);
                CHECK(pw <= c.weight_reads && pp <= c.weight_reads);
            }
            t->sets++;
            t->sets_above += whole > own;
            t->sets_tight += whole > 1 && whole == c.weight_reads;
            if (whole > c.weight_reads || (n_part > 0 && lf_cost_tiles_of_set(ts, part, n_part) > c.weight_reads)) {
                fprintf(stderr, "  %s beta %lld: group of %d ops around %s reads %d, set floor %d\n", g->name,
                        (long long)beta, (int)n_all, g->ops[v].name, (int)c.weight_reads, (int)whole);
                CHECK(whole <= c.weight_reads);
                CHECK(n_part == 0 || lf_cost_tiles_of_set(ts, part, n_part) <= c.weight_reads);
            }
            for (int32_t u = lf_bitset_next(&w.set, 0); u >= 0; u = lf_bitset_next(&w.set, u + 1)) {
                t->checked++;
                t->binding += tiles[u] > 1;
                t->tight += tiles[u] > 1 && c.weight_reads == tiles[u];
                if (c.weight_reads < tiles[u]) {
                    fprintf(stderr, "  %s beta %lld: op %s floor %d, group of %d ops around %s reads %d\n",
                            g->name, (long long)beta, g->ops[u].name, (int)tiles[u],
                            (int)lf_bitset_count(&w.set), g->ops[v].name, (int)c.weight_reads);
                    CHECK(c.weight_reads >= tiles[u]);
                }
            }
        }
    }
done:
    lf__wait_pairs_free(&wp);
    lf_cost_tiles_free(ts);
    lf_cost_tiles_free(tp);
    free(part);
    lf_bitset_destroy(&w.set);
    free(w.members);
    free(w.in);
    free(w.down);
    free(w.up);
    free(tiles);
    lf_cost_model_free(cm);
}

/* A wait far below (tile_reach.c): x (16 x 16 x 16, int8) -> a: 1x1 conv to
 * 64 channels (weights 1,024 B) -> b: 1x1 conv to 64 (4,096 B, block 64) ->
 * c: 3x3 conv, same padding, to 64 -> squeeze-and-excite on c (gap, sigmoid,
 * m = r * s with r = relu(c)), at beta 5,120 B. A group holding gap and m
 * waits for the pool, which stops c's rows and, through c, b's and a's; m
 * reads r, not c, so the wait's own multiply pins nothing of c
 * (neck_wait_frontier.c; test_wait_pinned for the block that does): the
 * plain floors are 1.
 * But no valid group holds b and c: their monotone floor is a's row read by
 * b (1,024 B) + 3 rows of b (3,072) + c's row (1,024) + c's block (576) =
 * 5,696 >= beta, and {a, b, c} needs more. So every valid group holding a
 * and b ends at b, whose rows flow: at h rows per step it holds h rows of
 * x (256 B each), of a (1,024) and b's staging rows (1,024): 2,304 h B
 * beside the 64 B block. Their weights (5,120 B) never fit whole; h = 2
 * fits (4,672 B), h = 3 does not: ceil(16 / 2) = 8 reads, and the set
 * floor, 16 / (5,055 / 2,304) = 7.3, rounds up to the same 8: tight. */
static void test_far_wait(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "tiles_far_wait");
    tg_input(b, "x", 16, 16, 16);
    tg_conv(b, "a", "x", 64, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "b", "a", 64, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "c", "b", 64, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_unary(b, LF_OP_GLOBALAVGPOOL, "gap", "c");
    tg_unary(b, LF_OP_SIGMOID, "s", "gap");
    tg_unary(b, LF_OP_RELU, "r", "c");
    tg_binary(b, LF_OP_MUL, "m", "r", "s");
    lf_graph *g = tf_build(b);
    if (!g)
        return;
    lf_cost_model *cm = tf_model_hand(g, 5120, "brr");
    int32_t a = lf_graph_find(g, "a"), bb = lf_graph_find(g, "b"), ab[2] = {a, bb};
    lf_cost_tiles *plain = NULL, *sharp = NULL;
    CHECK_OK(lf_cost_tiles_create(cm, &plain));
    CHECK_OK(lf__tiles_create_sharp(cm, &sharp));
    if (plain && sharp) {
        CHECK_EQ_I64(lf_cost_tiles_of_set(plain, ab, 2), 1);
        CHECK_EQ_I64(lf_cost_tiles_of_set(sharp, ab, 2), 8);
        CHECK_EQ_I64(reads_of(cm, a, bb), 8);
    }
    lf_cost_tiles_free(plain);
    lf_cost_tiles_free(sharp);
    tally t = {0};
    check_graph(g, 5120, 200, 5, &t);
    CHECK(t.sharper > 0);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* The weight reads of the group of the n ops in `ops` (-1: invalid). */
static int32_t reads_of_set(lf_cost_model *cm, const int32_t *ops, int32_t n)
{
    lf_bitset s;
    lf_group_cost c;
    if (lf_bitset_init(&s, lf_cost_graph(cm)->n_ops) != LF_OK)
        return -1;
    for (int32_t i = 0; i < n; i++)
        lf_bitset_set(&s, ops[i]);
    lf_status st = lf_cost_eval(cm, &s, &c);
    lf_bitset_destroy(&s);
    return st == LF_OK && c.valid ? c.weight_reads : -1;
}

/* A transposed convolution, kernel k = stride s, no padding or bias. */
static void tg_convtranspose(lf_graph_builder *b, const char *name, const char *in, int out_c, int k, int s)
{
    lf_attrs a = {0};
    a.out_channels = out_c;
    a.kh = a.kw = k;
    a.sh = a.sw = s;
    a.groups = 1;
    lf_graph_builder_add(b, LF_OP_CONVTRANSPOSE, name, &a, &in, 1);
}

/* A wait pinned by its own multiply (neck_wait_frontier.c): test_hand_chain's
 * x -> a (3x3 conv to 64, weights 9,216 B, block 144 B), then
 * squeeze-and-excite on a (gap, sigmoid, m = a * s), at beta 20,480 B. A
 * group holding gap waits for it only if it holds m (the first op below
 * gap that reads a map), and m reads a: a's rows move with m's there, with
 * the sinks' elsewhere, so sigma_a * H >= 16 in every group. At h rows per
 * step a holds h + 2 rows of x (256 B) and h of its own (1,024 B):
 * 512 + 1,280 h <= 20,335 allows h <= 15 of 16 rows: a floor of 2, where
 * the plain floors before this rule gave 1 (a wait below stopped a's rows).
 * The block {a, gap, s, m} keeps a's map (16,384 B) through the wait and
 * reads its weights 8 times: the set floor with the map held is at most
 * that. The same block with a transposed convolution of stride 2 after m
 * (u: 16 -> 32 rows, which asks sigma_m / 2 of m): the same floors. */
static void test_wait_pinned(void)
{
    for (int up = 0; up < 2; up++) {
        lf_graph_builder *b = NULL;
        lf_graph_builder_create(&b, "tiles_wait_pinned");
        tg_input(b, "x", 16, 16, 16);
        tg_conv(b, "a", "x", 64, 3, 1, 1, 1, 0, LF_ACT_NONE);
        tg_unary(b, LF_OP_GLOBALAVGPOOL, "gap", "a");
        tg_unary(b, LF_OP_SIGMOID, "s", "gap");
        tg_binary(b, LF_OP_MUL, "m", "a", "s");
        if (up)
            tg_convtranspose(b, "u", "m", 16, 2, 2);
        lf_graph *g = tf_build(b);
        if (!g)
            return;
        lf_cost_model *cm = tf_model_hand(g, 20480, "brr");
        int32_t a = lf_graph_find(g, "a");
        int32_t block[4] = {a, lf_graph_find(g, "gap"), lf_graph_find(g, "s"), lf_graph_find(g, "m")};
        lf_cost_tiles *plain = NULL;
        CHECK_OK(lf_cost_tiles_create(cm, &plain));
        if (plain) {
            int32_t reads = reads_of_set(cm, block, 4), set = lf_cost_tiles_of_set(plain, block, 4);
            int32_t held = lf_cost_tiles_of_set_holding(plain, block, 4, a, block[3]);
            fprintf(stderr, "  wait pinned%s: floor of a %d, set floor %d (%d with a's map held), the block reads %d\n",
                    up ? " (transposed conv after)" : "", (int)lf_cost_tiles_ops(plain)[a], (int)set, (int)held,
                    (int)reads);
            CHECK_EQ_I64(lf_cost_tiles_ops(plain)[a], 2);
            CHECK_EQ_I64(reads, 8);
            CHECK(set >= 2 && set <= reads);
            CHECK(held >= set && held <= reads);
        }
        lf_cost_tiles_free(plain);
        tally t = {0};
        check_graph(g, 20480, 200, 5, &t);
        check_graph(g, 6144, 200, 5, &t);
        lf_cost_model_free(cm);
        lf_graph_free(g);
    }
}

/* Maps 6,000 rows high: the floors of an op whose groups' reference heights
 * span more than LF__TILE_HEIGHTS values come from one bisection (the set
 * floor of the op alone); still never above what its groups read. x (16 x
 * 6000 x 16) -> a: 3x3 conv, 64 channels -> four 2x2 convs of stride 2
 * (3,000 rows, ... 375), at beta 4,096 B. */
static void test_tall_maps(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "tiles_tall");
    tg_input(b, "x", 16, 6000, 16);
    tg_conv(b, "a", "x", 64, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "d1", "a", 16, 2, 2, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "d2", "d1", 16, 2, 2, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "d3", "d2", 16, 2, 2, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "d4", "d3", 16, 2, 2, 0, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    if (!g)
        return;
    tally t = {0};
    check_graph(g, 4096, 200, 3, &t);
    lf_cost_model *cm = tf_model_hand(g, 4096, "brr");
    int32_t tiles[8] = {0};
    CHECK_OK(lf_cost_tile_floors(cm, tiles));
    /* a alone holds (h + 2) rows of x and h of its own: h <= 2 of 6,000. */
    int32_t a = lf_graph_find(g, "a");
    CHECK_EQ_I64(reads_of(cm, a, -1), 3000);
    CHECK(tiles[a] > 1 && tiles[a] <= 3000);
    CHECK(t.binding > 0 && t.checked > 0);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

/* Prints what was checked and fails a run that checked too little: more
 * than `binding` member floors above 1, more than `tight` of them met, and
 * set floors above their members' and met. */
static void tally_check(const char *what, const tally *t, int64_t binding, int64_t tight)
{
    fprintf(stderr, "  %s: %lld groups, %lld members checked, %lld with a floor above 1, %lld met; "
                    "%lld set floors, %lld above every member's, %lld met, %lld raised by their own height; "
                    "%lld op floors sharpened; %lld kept waits (%lld with a part, %lld met)\n",
            what, (long long)t->groups, (long long)t->checked, (long long)t->binding, (long long)t->tight,
            (long long)t->sets, (long long)t->sets_above, (long long)t->sets_tight, (long long)t->paths_above,
            (long long)t->sharper, (long long)t->held, (long long)t->held_parts, (long long)t->held_tight);
    CHECK(t->binding > binding);
    CHECK(t->tight > tight);
    CHECK(t->sets_above > tight && t->sets_tight > tight);
}

static void test_networks(void)
{
    static const char *models[] = {"inception_v3", "deeplabv3_mobilenet_v3_large", "efficientnet_b0",
                                   "nasnet_a", "resnet50", "mobilenet_v2"};
    static const int64_t betas[] = {64 * 1024, 256 * 1024, 1024 * 1024};
    tally t = {0};
    for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
        lf_graph *g = NULL;
        lf_model_options opt = {0, 1};
        CHECK_OK(lf_model_build(models[m], &opt, &g));
        if (!g)
            continue;
        for (size_t b = 0; b < sizeof betas / sizeof *betas; b++)
            check_graph(g, betas[b], 40, m * 10 + b, &t);
        lf_graph_free(g);
    }
    /* Not vacuous: many floors bind, and some are met exactly. */
    tally_check("networks", &t, 1000, 100);
    CHECK(t.paths_above > 1000);
    /* Kept squeeze-and-excite maps (efficientnet_b0, deeplabv3's
     * MobileNetV3): before the waiter's own snapshot, the floor with the
     * map held passed beta on a valid group of efficientnet_b0 at 256 KB
     * that keeps it (check_held). */
    CHECK(t.held > 50 && t.held_parts > 25);
}

/* Groups holding a product of two activations are priced by attn.c (K/V
 * made before the query tiles, S and P one tile at a time), not by the
 * row windows summed at once: every run of consecutive ops of BERT's first
 * layer (the embeddings, the projections with the attention core, the FFN)
 * that is a valid group whose weights do not all fit reads them at least
 * as often as its set floor. Before tile_floor.c left those sets to their
 * members' floors, 287 of BERT-base's 650 such runs at 256 KB read them
 * fewer times (the projections and the core at 1 MB in BERT-large: 1 read,
 * set floor 2). */
static void test_attention_runs(void)
{
    static const char *models[] = {"bert_base", "bert_large"};
    static const int64_t betas[] = {64 * 1024, 256 * 1024, 1024 * 1024, 4096 * 1024};
    int64_t checked = 0, attn = 0, tight = 0;
    for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
        lf_graph *g = NULL;
        lf_model_options opt = {0, 1};
        lf_model_seq_options so = {0, 1, LF_PHASE_PREFILL, 0};
        CHECK_OK(lf_model_build_seq(models[m], &opt, &so, &g));
        if (!g)
            continue;
        for (size_t b = 0; b < sizeof betas / sizeof *betas; b++) {
            lf_cost_model *cm = tf_model_default(g, betas[b], "brr");
            lf_cost_tiles *t = NULL;
            lf_bitset s;
            int32_t *members = malloc((size_t)g->n_ops * sizeof *members);
            CHECK(cm && members);
            if (!cm || !members || lf__tiles_create_sharp(cm, &t) != LF_OK ||
                lf_bitset_init(&s, g->n_ops) != LF_OK) {
                CHECK(0);
                free(members);
                lf_cost_tiles_free(t);
                lf_cost_model_free(cm);
                continue;
            }
            for (int32_t i = 0; i < g->n_ops; i++) {
                lf_bitset_clear_all(&s);
                for (int32_t j = i, n = 0; j < g->n_ops && j < i + 60; j++) {
                    if (g->ops[j].type == LF_OP_INPUT || !lf_cost_fusable(cm, j))
                        break;
                    lf_bitset_set(&s, j);
                    members[n++] = j;
                    lf_group_cost c;
                    CHECK_OK(lf_cost_eval(cm, &s, &c));
                    if (!c.valid || c.weights == 0 || c.weights + c.features < betas[b])
                        continue;
                    int32_t k = lf_cost_tiles_of_set(t, members, n);
                    checked++;
                    attn += c.attn != 0;
                    tight += k > 1 && k == c.weight_reads;
                    CHECK(lf_cost_tiles_of_set_fitting(t, members, n) == k);
                    if (k > c.weight_reads) {
                        fprintf(stderr, "  %s beta %lld: ops %s .. %s read their weights %d times, set floor %d\n",
                                g->name, (long long)betas[b], g->ops[i].name, g->ops[j].name,
                                (int)c.weight_reads, (int)k);
                        CHECK(k <= c.weight_reads);
                    }
                }
            }
            lf_bitset_destroy(&s);
            free(members);
            lf_cost_tiles_free(t);
            lf_cost_model_free(cm);
        }
        lf_graph_free(g);
    }
    fprintf(stderr, "  attention runs: %lld checked, %lld attention groups, %lld floors above 1 met\n",
            (long long)checked, (long long)attn, (long long)tight);
    CHECK(checked > 2000 && attn > 1000 && tight > 0);
}

static void test_random_dags(void)
{
    tally t = {0};
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 8; seed++) {
            lf_graph *g = rdag_build(seed, fam, 12 + (int)(seed % 4) * 8);
            CHECK(g != NULL);
            if (!g)
                continue;
            check_graph(g, RDAG_BETA_SMALL, 12, seed, &t);
            check_graph(g, RDAG_BETA_MEDIUM, 12, seed, &t);
            lf_graph_free(g);
        }
    tally_check("random DAGs", &t, 100, 10);
    CHECK(t.paths_above > 30);
}

/* Every convex set of fusable ops of small random DAGs (brute force, up to
 * 2^14 sets a graph): no valid set whose weights do not all fit reads them
 * fewer times than a member's floor, and a member's floor is met by some
 * set in many cases (the floors below a member's own height come from the
 * paths to lower ops, tile_path.c). */
static void test_exhaustive(void)
{
    int64_t sets = 0, members = 0, binding = 0, met = 0;
    for (int fam = 0; fam < RDAG_FAMILIES; fam++)
        for (uint64_t seed = 0; seed < 12; seed++) {
            lf_graph *g = rdag_build(100 + seed, fam, 8 + (int)(seed % 3) * 2);
            CHECK(g != NULL);
            if (!g)
                continue;
            for (int b = 0; b < 2; b++) {
                int64_t beta = b ? RDAG_BETA_MEDIUM : RDAG_BETA_SMALL;
                lf_cost_model *cm = tf_model_default(g, beta, "brr");
                int32_t n = g->n_ops, ops[16], k = 0, tiles[64], fewest[64];
                lf_bitset set;
                if (!cm || n > 64 || lf_bitset_init(&set, n) != LF_OK) {
                    CHECK(0);
                    lf_cost_model_free(cm);
                    continue;
                }
                CHECK_OK(lf_cost_tile_floors(cm, tiles));
                for (int32_t v = 0; v < n; v++) {
                    fewest[v] = INT32_MAX;
                    if (g->ops[v].type != LF_OP_INPUT && lf_cost_fusable(cm, v) && k < 14)
                        ops[k++] = v;
                }
                for (uint32_t mask = 1; mask < (1u << k); mask++) {
                    uint8_t in[64] = {0}, down[64], up[64];
                    for (int i = 0; i < k; i++)
                        in[ops[i]] = (uint8_t)((mask >> i) & 1u);
                    int convex = 1;
                    for (int32_t u = 0; u < n; u++) {
                        down[u] = in[u];
                        for (int32_t j = 0; j < g->ops[u].n_inputs && !down[u]; j++)
                            down[u] = down[g->ops[u].inputs[j]];
                    }
                    for (int32_t u = n - 1; u >= 0; u--) {
                        up[u] = in[u];
                        for (int32_t j = 0; j < g->ops[u].n_consumers && !up[u]; j++)
                            up[u] = up[g->ops[u].consumers[j]];
                        convex &= !(down[u] && up[u]) || in[u];
                    }
                    if (!convex)
                        continue;
                    lf_bitset_clear_all(&set);
                    for (int32_t u = 0; u < n; u++)
                        if (in[u])
                            lf_bitset_set(&set, u);
                    lf_group_cost c;
                    CHECK_OK(lf_cost_eval(cm, &set, &c));
                    if (!c.valid || c.weights + c.features < beta)
                        continue;
                    sets++;
                    for (int32_t u = 0; u < n; u++) {
                        if (!in[u])
                            continue;
                        members++;
                        fewest[u] = c.weight_reads < fewest[u] ? c.weight_reads : fewest[u];
                        if (c.weight_reads < tiles[u]) {
                            fprintf(stderr, "  %s beta %lld: op %s floor %d, a set of %d ops reads %d\n",
                                    g->name, (long long)beta, g->ops[u].name, (int)tiles[u],
                                    (int)lf_bitset_count(&set), (int)c.weight_reads);
                            CHECK(c.weight_reads >= tiles[u]);
                        }
                    }
                }
                for (int i = 0; i < k; i++) {
                    binding += tiles[ops[i]] > 1;
                    met += tiles[ops[i]] > 1 && fewest[ops[i]] == tiles[ops[i]];
                }
                lf_bitset_destroy(&set);
                lf_cost_model_free(cm);
            }
            lf_graph_free(g);
        }
    fprintf(stderr, "  exhaustive: %lld streaming sets, %lld members; %lld floors above 1, %lld met by a set\n",
            (long long)sets, (long long)members, (long long)binding, (long long)met);
    CHECK(sets > 1000 && binding > 100 && met > binding / 8);
}

int main(void)
{
    test_hand_chain();
    test_hand_slack();
    test_hand_path();
    test_set_height();
    test_exhaustive();
    test_far_wait();
    test_wait_pinned();
    test_random_dags();
    test_tall_maps();
    test_networks();
    test_attention_runs();
    return lf_test_result();
}

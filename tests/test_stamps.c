/* Generation stamps of the windows' scratch marks (window_reads.c, the
 * counters of window_bound.c, window_join.c, window_waits.c, tile_floor.c,
 * cut_bound.c, separators.c, wait_pairs.c): a mark is current when it holds
 * the stamp of the set being grown, and the stamps advance two or three
 * times a candidate set. A 32-bit stamp wraps after 2^31 sets (minutes of a
 * --time-limit 0 run), and a mark left 2^32 stamps ago then reads as
 * current: an op skipped as seen, a bound that drops a read or takes a
 * closed part for an open one. The stamps are 64-bit; these checks run the
 * walks with a stamp one past INT32_MAX over marks holding INT32_MIN, the
 * value a 32-bit stamp wraps to there, so a stamp narrowed back to 32 bits
 * reads every op as seen and fails them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "graphs.h"
#include "planner/exact/downsets.h"
#include "planner/exact/window_reads.h"
#include "planner/exact/window_waits.h"
#include "testlib.h"

_Static_assert(sizeof(((lf__waits *)0)->stamp) == 8 && sizeof(*((lf__waits *)0)->mark) == 8,
               "the waits' stamps are 64-bit (test_stamps.c, top)");

#define LF__T_PAST ((int64_t)INT32_MAX + 1)

/* Ops 0 and 1 joined, both in the set: one component, closed where neither
 * has an edge out of the universe (open bit 1), open where one has. */
static void test_closed_component(void)
{
    uint8_t in_s[2] = {1, 1}, open[2] = {0, 0};
    int32_t sub[2] = {0, 1}, adj_start[3] = {0, 1, 2}, adj[2] = {1, 0}, stack[2];
    int64_t seen[2] = {INT32_MIN, INT32_MIN};
    lf__exact x;
    memset(&x, 0, sizeof x);
    x.in_s = in_s, x.sub = sub, x.n_sub = 2, x.adj_start = adj_start, x.adj = adj;
    CHECK_EQ_I64(lf__win_closed_component(&x, open, seen, LF__T_PAST, stack), 1);
    CHECK_EQ_I64(seen[0], LF__T_PAST);
    CHECK_EQ_I64(seen[1], LF__T_PAST);
    open[1] = 1;
    CHECK_EQ_I64(lf__win_closed_component(&x, open, seen, LF__T_PAST + 1, stack), 0);
}

/* x -> a (4,096 B) read by c and d (test_window_reads.c's fan-out): the set
 * {c} after a is placed, d still to come, pays a's read once more. */
static void test_closed_reads(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "fanout2");
    tg_input(b, "x", 32, 8, 8);
    tg_conv(b, "a", "x", 64, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "c", "a", 16, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_conv(b, "d", "a", 16, 1, 1, 0, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    if (!g)
        return;
    CHECK_EQ_I64(g->n_ops, 4);
    uint8_t in_u[4] = {1, 1, 1, 1}, fusable[4] = {0, 1, 1, 1}, in_d[4] = {1, 1, 0, 0}, in_s[4] = {0, 0, 1, 0};
    uint8_t internal[4] = {0, 1, 0, 0}, open[4] = {0, 0, 2, 2}; /* c reads a, read twice */
    int64_t bytes[4] = {2048, 4096, 1024, 1024};
    int64_t seen[4] = {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN};
    int32_t sub[1] = {2};
    lf__exact x;
    memset(&x, 0, sizeof x);
    x.g = g, x.in_u = in_u, x.fusable = fusable, x.in_d = in_d, x.in_s = in_s, x.sub = sub, x.n_sub = 1;
    CHECK_EQ_I64(lf__win_closed_reads(&x, open, internal, NULL, bytes, seen, LF__T_PAST), 4096);
    /* The next set's stamp: a counted again, once. */
    CHECK_EQ_I64(lf__win_closed_reads(&x, open, internal, NULL, bytes, seen, LF__T_PAST + 1), 4096);
    /* The same stamp again: a already seen for this set. */
    CHECK_EQ_I64(lf__win_closed_reads(&x, open, internal, NULL, bytes, seen, LF__T_PAST + 1), 0);
    lf_graph_free(g);
}

int main(void)
{
    test_closed_component();
    test_closed_reads();
    return lf_test_result();
}

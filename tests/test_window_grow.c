/* The candidate cap of a grown window (planner/exact/window_bound.c,
 * lf__win_grow_cap): hand-computed values at each of its limits. A grown
 * try past its cap fails and the shorter window's charge stands, so the
 * cap decides time, never soundness (the grown windows' bound against the
 * exact optimum on random DAGs: test_window_reads, test_cut_bounds). */
#include "planner/exact/solve.h"
#include "testlib.h"

static void test_cap_values(void)
{
    const int64_t plenty = 1000000;
    /* Small windows keep the old floor: PP-OCRv4's 198-205 (53 sets) and
     * 182-197 (1,060) may grow within 20,000, past which their 31- and
     * 62-op tries fail in milliseconds (they took 0.05 and 0.34 s to
     * 200,000). */
    CHECK_EQ_I64(lf__win_grow_cap(53, plenty), 20000);
    CHECK_EQ_I64(lf__win_grow_cap(1060, plenty), 20000);
    CHECK_EQ_I64(lf__win_grow_cap(1250, plenty), 20000);
    CHECK_EQ_I64(lf__win_grow_cap(1251, plenty), 20016);
    /* Sixteen times the last try: 1-112 (8,329) -> 1-181 needs 96,656,
     * 206-220 (9,036) -> 206-235 needs 96,976; both fit. */
    CHECK_EQ_I64(lf__win_grow_cap(8329, plenty), 133264);
    CHECK(lf__win_grow_cap(8329, plenty) >= 96656);
    CHECK(lf__win_grow_cap(9036, plenty) >= 96976);
    /* At most 200,000, and what the pass's grown tries have left. */
    CHECK_EQ_I64(lf__win_grow_cap(12500, plenty), 200000);
    CHECK_EQ_I64(lf__win_grow_cap(19999, plenty), 200000);
    CHECK_EQ_I64(lf__win_grow_cap((int64_t)1 << 60, plenty), 200000);
    CHECK_EQ_I64(lf__win_grow_cap(8329, 5000), 5000);
    CHECK_EQ_I64(lf__win_grow_cap(53, 19000), 19000);
}

int main(void)
{
    test_cap_values();
    return lf_test_result();
}

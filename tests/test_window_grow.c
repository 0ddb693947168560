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
    CHECK_EQ_I64(lf__win_grow_cap(53, plenty, 0), 20000);
    CHECK_EQ_I64(lf__win_grow_cap(1060, plenty, 0), 20000);
    CHECK_EQ_I64(lf__win_grow_cap(1250, plenty, 0), 20000);
    CHECK_EQ_I64(lf__win_grow_cap(1251, plenty, 0), 20016);
    /* Sixteen times the last try: 1-112 (8,329) -> 1-181 needs 96,656,
     * 206-220 (9,036) -> 206-235 needs 96,976; both fit. */
    CHECK_EQ_I64(lf__win_grow_cap(8329, plenty, 0), 133264);
    CHECK(lf__win_grow_cap(8329, plenty, 0) >= 96656);
    CHECK(lf__win_grow_cap(9036, plenty, 0) >= 96976);
    /* At most 200,000, and what the pass's grown tries have left. */
    CHECK_EQ_I64(lf__win_grow_cap(12500, plenty, 0), 200000);
    CHECK_EQ_I64(lf__win_grow_cap(19999, plenty, 0), 200000);
    CHECK_EQ_I64(lf__win_grow_cap((int64_t)1 << 60, plenty, 0), 200000);
    CHECK_EQ_I64(lf__win_grow_cap(8329, 5000, 0), 5000);
    CHECK_EQ_I64(lf__win_grow_cap(53, 19000, 0), 19000);
    /* A short window's last step is not held to 200,000: 206-235 (96,976
     * sets) -> 206-256 needs 628,416; still 16 times, and what is left. */
    CHECK_EQ_I64(lf__win_grow_cap(96976, plenty, 1), 1000000);
    CHECK_EQ_I64(lf__win_grow_cap(96976, 2000000, 1), 1551616);
    CHECK(lf__win_grow_cap(96976, 2000000, 1) >= 628416);
    CHECK_EQ_I64(lf__win_grow_cap(30000, 2000000, 1), 480000);
    CHECK_EQ_I64(lf__win_grow_cap(53, 2000000, 1), 20000);
    CHECK_EQ_I64(lf__win_grow_cap((int64_t)1 << 60, (int64_t)1 << 40, 1), 1000000);
}

int main(void)
{
    test_cap_values();
    return lf_test_result();
}

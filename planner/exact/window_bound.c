/* A lower bound on the DRAM of every valid plan from windows of consecutive
 * ops, each solved exactly in a relaxation (docs/search.md "Certified
 * bounds"). It reaches where the block DPs of bounds.c do not: a window is
 * small whatever the blocks are.
 *
 * Cut the ops into windows W of consecutive ids. A tensor is internal to W
 * when its op and all its readers lie in W and it is no graph output. Take
 * any valid plan and a window W: the parts G n W of its groups G are convex,
 * follow the plan's group order, and hold only ops of valid groups, so the
 * monotone floor of F_beta the enumeration prunes with admits each of them
 * (connected or not). An internal tensor is written when a reader lies in
 * another group and read once per other group of its readers: the parts of
 * W count exactly that. So the relaxed DP over W, charging each part only
 * the internal tensors it reads from outside it and those it writes for a
 * reader outside it, is at most what the plan pays for W's internal tensors.
 * Windows charge disjoint tensors; every other tensor takes its forced-cut
 * floor (cut_bound.c), and every fusable op's weights are read once.
 *
 * Under the connected charge a part with no edge to a fusable op outside
 * the window's universe is its whole group, and pays the reads of the
 * other groups it proves (window_reads.c).
 *
 * Two things decide how much a window sees: where it ends (lf__window_end: at
 * the point within its size where the fewest bytes it writes are still to
 * be read) and the readers past its end solved with it (lf__win_ghosts), so
 * that the tensors it writes for them are internal too. NasNet-A at 256 KB
 * under LBDF, windows of 24 ops: 45.5 MB with neither, 50.1 ending at the
 * narrowest point, 59.7 with the readers as well (docs/results/exact.md).
 *
 * Under BRR a part also pays the weight reads its group cannot avoid: when
 * the part's weights plus the floor of its windows reach beta, no group
 * holding it keeps its weights resident, so the group reads them at least
 * as often as the part's tile floor (lf_cost_tiles_of_set), and the part's
 * own weights that many times; the read every weight gets once is counted
 * outside the windows, so a part adds (reads - 1) times its weights.
 *
 * "Its weights" are those the window claims: its own ops' and its ghosts'
 * that no window solved before it in the pass claimed (lf__win_try). The
 * part of a ghost lies in the ghost's group G as much as the ghost's own
 * window's part does, and G reads every weight as often as its set floor
 * says, so each window may charge any weights of G once, as long as no two
 * windows charge the same op's. A concat's window holds the next cells'
 * 1x1 convs as ghosts; charging only its own ops, it put the concat with
 * them at almost no cost (NasNet-A at 256 KB under BRR, windows of 16 ops:
 * 120.91 -> 127.68 MB). Counting a ghost's weights in both windows passes
 * the optimum on random DAGs (test_cut_bounds, test_ghost_rereads).
 *
 * Under BRR the tile floor of a part also takes the part's own reference
 * height where no path from it to a lower op fits beside its rows
 * (lf_cost_tiles_use_set_paths): a NasNet-A cell at 56 x 56 with the next
 * cells' 1x1 convs was charged 7 weight reads (a group holding it might end
 * at 7 x 7 sinks, as far as each op alone shows), where any valid group
 * holding it ends at 56 rows and reads them 56 times; and a streaming part
 * whose rows at one row with its weight block reach beta is no plan's
 * (lf_cost_tiles_of_set_fitting). NasNet-A at 256 KB under BRR, windows of 16
 * ops: 128.20 -> 134.82 MB; of 24: 135.99 -> 152.53 MB. Those heights
 * mostly end at once through a table of the cheapest paths down
 * (height_reach.c): the connected passes up to 24 ops there, 1.35 -> 1.0 s
 * of CPU, the same bounds. */
#include <stdlib.h>
#include <string.h>

#include "planner/exact/set_memo.h"
#include "planner/exact/solve.h"
#include "planner/exact/window_waits.h"
#include "planner/exact/window_win.h"
#include "planner/util/clock.h"

/* Window sizes: the first pass, and the last one without a time limit. */
#define LF__WIN_FIRST 16
#define LF__WIN_MAX_UNTIMED 64
/* A pass with a time limit starts only with this many times the last
 * pass's time left (lf__window_lower_bound). */
#define LF__WIN_NEXT 3
/* ... and under BRR's connected passes this many: they have seven eighths
 * of the time, and the next pass costs about 1.4 times the last one
 * (NasNet-A at 256 KB: 24 ops 151.05 MB, 36 ops 155.82 MB). */
#define LF__WIN_NEXT_BRR 1.5
/* A window whose DP visits fewer candidate sets is solved again twice as
 * long (lf__win_grow). */
#define LF__WIN_CHEAP 20000
/* ... each try within at most this many (a longer window can cost
 * thousands of times more: PP-OCRv4's neck, 16 ops 1,060 candidate sets,
 * 62 ops 25 million)... */
#define LF__WIN_GROW_MAX 200000
/* ... and all of them together in one bound at most this many. */
#define LF__WIN_GROW_TOTAL 1000000
/* ... and each try within this many times the candidate sets of the try
 * it grows (at least LF__WIN_CHEAP): on a chain a window twice as long
 * visits about ten times as many (PP-OCRv4 detection: ops 1-112 8,329,
 * 1-181 96,656; 206-220 9,036, 206-235 96,976), where it meets a wide
 * part hundreds of times more (182-197 1,060, 182-243 past 200,000 in
 * 0.34 s: four times what the windows that grew took together). */
#define LF__WIN_GROW_RATIO 16
/* A window of at most this many ops that grew once grows once more, past
 * LF__WIN_CHEAP, within LF__WIN_GROW_RATIO times its sets and what the
 * grown tries have left (not LF__WIN_GROW_MAX): PP-OCRv4 detection's neck
 * window 206-235 (96,976 sets) becomes 206-256 (628,416 sets, 0.26 s),
 * BRR 15.97 -> 16.05 MB untimed; 1-181 is far longer and stops (its
 * next try, 1-256, fails past 1.38 million sets after 1.9 s). */
#define LF__WIN_SHORT (2 * LF__WIN_FIRST)
/* A grown window takes in the next one once where its ghosts lie
 * (window_merge.c), within this many times the candidate sets of the try
 * it grows, and all such tries in one bound within this many: PP-OCRv4
 * detection's 1-181 (53,232 sets) becomes 1-189 (198,645; 0.12 s of a
 * 0.28 s pass at load 10), +134,016 B. Once: 1-189 -> 1-197 (860,196
 * sets) failed past its share and left 206-235 unsolved. */
#define LF__WIN_MERGE_RATIO 8
#define LF__WIN_MERGE_TOTAL 1000000
/* A pass stops growing after this many tries to grow (or take in the next
 * window) failed one after another: on NasNet-A at 256 KB every cell's try
 * fails at its cap (19 of 19 under BRR, two thirds of the pass's time),
 * where PP-OCRv4 detection's neck grows after two failures. */
#define LF__WIN_GROW_FAILS 3
/* A grown try has the shares of the plain windows it covers, at most this
 * part of what its pass has left (lf__win_grow_share). */
#define LF__WIN_GROW_SHARE 0.5
/* ... and where it covers every window of the plain cut left in its pass,
 * this part: PP-OCRv4 detection's 206-256 (628,416 sets) is the last
 * try of its pass, and under BRR at 10 s half of what was left stopped it
 * at a third of its sets (docs/results/exact.md, branch ocrbrr3). */
#define LF__WIN_GROW_LAST 0.875
/* The part of the windows' time the grown pass may take (the passes after
 * it have the rest and what it leaves). On NasNet-A and RandWire at 256 KB
 * it ends at 0.07-0.2 s of a 3 s windows' limit, both schemes (its tries
 * stop at their caps); on PP-OCRv4 detection it is the pass that counts,
 * and under BRR at 10 s half of the windows' 0.6 s stopped its last try
 * (docs/results/exact.md, branch ocrbrr3). */
#define LF__WIN_GROWN_PART 0.75
/* The part of what the join left that the grown pass's merges' cones may
 * take (window_cone.c; only where a window merged, and what they leave
 * goes on to the passes of the other charge). All of it: on PP-OCRv4
 * detection at 256 KB (LBDF, --time-limit 10) the longest cone, 182-256,
 * needs about 0.3 s of CPU and stopped with half (16,353,793 B, 3 runs of
 * 3); with all of it 16,430,593 B, 3 of 3, within 1% of the optimum. */
#define LF__WIN_CONE_PART 1.0


/* Seconds left to the pass running (0 when it has no limit). */
static double lf__win_left(const lf__win *w)
{
    return w->pass_end > 0 ? w->pass_end - lf_now_seconds() : 0;
}

/* An even share of what the pass has left among `parts` windows (0: no
 * limit; -1: the pass is over). */
static double lf__win_share(const lf__win *w, int32_t parts)
{
    if (w->pass_end <= 0)
        return 0;
    double left = lf__win_left(w);
    if (left <= 0)
        return -1;
    return left > 1e-3 * parts ? left / parts : 1e-3;
}

static lf_status lf__win_solve(lf__win *w, const int32_t *ops, int32_t from, int32_t to, int32_t parts);

/* The share of a grown try ending at ops[to2) with `left` windows of the
 * plain cut still ahead: the shares of those it covers, at most half of
 * what the pass has left (a try past its limits leaves the rest to the
 * windows after it), at least one even share. An even share alone starved
 * the long windows: PP-OCRv4 detection at 256 KB (LBDF), --time-limit 10,
 * the window 1-181 had 7 ms of a 142 ms pass (it takes 22 ms), 205-235 the
 * same, and the pass ended 63 ms early at 15.97 MB; with these shares
 * 16.05 MB. Starved below a few percent of a core, tries that cannot
 * finish take that half one after another and the cheap windows behind
 * them keep their forced floors (docs/results/exact.md). */
static double lf__win_grow_share(const lf__win *w, int32_t to2, int32_t left)
{
    double share = lf__win_share(w, left);
    if (share <= 0)
        return share;
    int32_t covered = 0;
    for (int32_t k = w->n_win - left; k < w->n_win && w->ends[k] <= to2; k++)
        covered++;
    double pass_left = lf__win_left(w), wide = pass_left * (covered > 1 ? covered : 1) / left;
    /* A try that covers every window left leaves only the shorter window's
     * rest behind it when it fails, not windows of the plain cut. */
    double part = covered == left ? LF__WIN_GROW_LAST : LF__WIN_GROW_SHARE;
    if (wide > pass_left * part)
        wide = pass_left * part;
    return wide > share ? wide : share;
}

/* The window ops[from..to), past its limits, as two halves on their own. */
static lf_status lf__win_halves(lf__win *w, const int32_t *ops, int32_t from, int32_t to, int32_t parts)
{
    w->split++;
    if (to - from < 2) { /* one op alone: its tensor keeps its forced-cut floor */
        w->windows++;
        return LF_OK;
    }
    int32_t mid = from + (to - from) / 2;
    lf_status st = lf__win_solve(w, ops, from, mid, parts + 1);
    return st == LF_OK ? lf__win_solve(w, ops, mid, to, parts) : st;
}

/* Solves the window ops[from..to) with `parts` windows still to come (this
 * one included) sharing what is left of the limits; past them, the two
 * halves on their own. */
static lf_status lf__win_solve(lf__win *w, const int32_t *ops, int32_t from, int32_t to, int32_t parts)
{
    double share = lf__win_share(w, parts);
    if (share < 0) { /* the pass is over: forced-cut floors */
        w->windows++;
        return LF_OK;
    }
    lf_status st = lf__win_try(w, ops, from, to, share, 0);
    return st == LF_ELIMIT ? lf__win_halves(w, ops, from, to, parts) : st;
}

/* The window ops[from..*to), just solved, solved again twice as long (the
 * longer result kept) while its DP visits fewer than LF__WIN_CHEAP
 * candidate sets. Any window gives a bound (the top of the file), and a
 * window that charges a tensor sees whether the groups around it fit
 * together, where two windows apart each fit their side alone: on a chain
 * of narrow ops the DP is tiny at any length. PP-OCRv4 detection at
 * 256 KB (LBDF): windows of 36 ops bound it at 14.43 MB; grown from 16
 * ops, its backbone and the ops that read it (ids 1-181) are one window
 * of 53,232 candidate sets and the bound is 15.66 MB. Wide parts stop
 * growing at once. A longer try past its limits leaves the last one
 * charged (its tensors and its charge are put back). A window that grew
 * and stopped takes in the next one once where its ghosts lie
 * (window_merge.c). */
static lf_status lf__win_grow(lf__win *w, const int32_t *ops, int32_t n_ops, int32_t from, int32_t *to,
                              int32_t left, int32_t window_ops)
{
    int32_t to0 = *to;
    int extra = 0, merged = 0;
    while (w->grow && *to < n_ops && w->grow_left > 0 && w->failed_in_row < LF__WIN_GROW_FAILS) {
        int32_t to2 = *to, size = *to - from, merge = 0;
        /* A window that grew and is still short grows once more past
         * LF__WIN_CHEAP (lf__win_grow_cap's last step); a longer one takes
         * in the next window where its ghosts lie (window_merge.c). */
        if (w->last_candidates >= w->cheap) {
            if (!extra && *to != to0 && *to - from <= LF__WIN_SHORT) {
                extra = 1;
            } else {
                if (merged || *to == to0 || w->merge_left <= 0)
                    return LF_OK;
                lf_status ms = lf__window_merge_end(w->g, w->bytes, w->cut_floor, ops, n_ops, from, *to,
                                                    window_ops, &to2);
                if (ms != LF_OK || to2 < 0)
                    return ms;
                merge = merged = 1;
            }
        }
        while (!merge && to2 <= *to && size < n_ops) {
            size *= 2;
            to2 = lf__window_end(w->g, w->bytes, ops, n_ops, from, size);
        }
        double share = lf__win_grow_share(w, to2, left);
        if (to2 <= *to || share < 0)
            return LF_OK;
        int64_t traffic = w->traffic, charge = w->last_charge;
        int32_t windows = w->windows, solved = w->solved;
        for (int32_t i = from; i < to2; i++)
            w->saved[i] = w->charged[ops[i]];
        for (int32_t i = from; i < *to; i++)
            w->charged[ops[i]] = 0;
        /* The last try's claims go with its charge (put back below if the
         * grown one fails). */
        w->n_kept = w->n_claims;
        for (int32_t k = 0; k < w->n_claims; k++) {
            w->kept_claims[k] = w->claims[k];
            w->claimed[w->claims[k]] = 0;
        }
        w->traffic -= charge;
        w->windows--;
        w->solved--;
        int32_t kept = w->n_keep > 0 ? --w->n_keep : -1; /* the last try's kept record, put back below */
        int64_t merge_cap = w->last_candidates * LF__WIN_MERGE_RATIO;
        lf_status st = lf__win_try(w, ops, from, to2, share,
                                   merge ? (merge_cap < w->merge_left ? merge_cap : w->merge_left)
                                         : lf__win_grow_cap(w->last_candidates, w->grow_left, extra));
        *(merge ? &w->merge_left : &w->grow_left) -= w->last_candidates;
        w->failed_in_row = st == LF_OK ? 0 : w->failed_in_row + 1;
        if (st != LF_OK) {
            for (int32_t i = from; i < to2; i++)
                w->charged[ops[i]] = w->saved[i];
            for (int32_t k = 0; k < w->n_kept; k++)
                w->claimed[w->kept_claims[k]] = 1;
            w->n_claims = w->n_kept;
            memcpy(w->claims, w->kept_claims, (size_t)w->n_kept * sizeof *w->claims);
            w->traffic = traffic;
            w->last_charge = charge;
            w->n_keep = kept >= 0 ? kept + 1 : w->n_keep; /* its from, to and excess are untouched */
            w->windows = windows;
            w->solved = solved;
            return st == LF_ELIMIT ? LF_OK : st;
        }
        if (w->recording) { /* the shorter window's record goes with its charge */
            w->rec_from[w->n_rec - 2] = w->rec_from[w->n_rec - 1];
            w->rec_to[w->n_rec - 2] = w->rec_to[w->n_rec - 1];
            w->rec_charge[w->n_rec - 2] = w->rec_charge[w->n_rec - 1];
            w->n_rec--;
        }
        if (w->recording && merge) {
            /* The shorter window's claims go with its charge (kept_claims:
             * the claims its try made, given back for the merged try). */
            int32_t at = w->merge_claims_at[w->n_merge];
            if (at + w->n_kept > w->cap_merge_claims) {
                int32_t cap = 2 * (at + w->n_kept);
                int32_t *mc = realloc(w->merge_claims, (size_t)cap * sizeof *mc);
                if (!mc)
                    return lf_set_error(LF_ENOMEM, "out of memory computing bounds");
                w->merge_claims = mc;
                w->cap_merge_claims = cap;
            }
            if (w->n_kept > 0)
                memcpy(w->merge_claims + at, w->kept_claims, (size_t)w->n_kept * sizeof *w->kept_claims);
            w->merge_claims_at[w->n_merge + 1] = at + w->n_kept;
            w->merge_from[w->n_merge] = from;
            w->merge_b[w->n_merge] = *to;
            w->merge_charge[w->n_merge] = charge;
            w->merge_next[w->n_merge++] = to2;
        }
        w->merged += merge;
        w->grew++;
        *to = to2;
    }
    return LF_OK;
}

int64_t lf__win_grow_cap(int64_t last_candidates, int64_t grow_left, int last_step)
{
    int64_t cap = last_candidates < LF__WIN_GROW_TOTAL ? last_candidates * LF__WIN_GROW_RATIO : LF__WIN_GROW_TOTAL;
    if (cap < LF__WIN_CHEAP)
        cap = LF__WIN_CHEAP;
    if (cap > LF__WIN_GROW_MAX && !last_step)
        cap = LF__WIN_GROW_MAX;
    return cap < grow_left ? cap : grow_left;
}

/* One pass with windows of window_ops consecutive ops and `seconds` of the
 * time limit (0: none): the bound into *lower. */
static lf_status lf__win_pass(lf__win *w, const int32_t *ops, int32_t n_ops, int32_t window_ops,
                              double seconds, int64_t *lower)
{
    memset(w->charged, 0, (size_t)w->g->n_ops);
    memset(w->claimed, 0, (size_t)w->g->n_ops);
    w->n_claims = 0;
    w->n_keep = 0;
    w->traffic = 0;
    w->windows = w->solved = w->split = w->merged = w->grew = w->failed_in_row = 0;
    /* The grown pass records its windows for window_cone.c; the passes
     * after it leave the record alone. */
    w->recording = w->grow;
    if (w->recording) {
        w->n_rec = w->n_merge = w->coned = 0;
        w->merge_claims_at[0] = 0;
        w->n_ops_all = n_ops;
        memset(w->tried_end, 0, (size_t)n_ops + 1);
    }
    w->pass_end = seconds > 0 ? lf_now_seconds() + seconds : 0;
    lf_status st = LF_OK;
    /* Windows differ in cost by far more than their number (a NasNet-A
     * cell at 56 x 56 against one at 7 x 7): each first has an even share
     * of what is left, and those past it are tried again with what the
     * cheap ones left behind (halved only then). */
    int32_t n_win = 0;
    for (int32_t from = 0; from < n_ops; from = w->ends[n_win++])
        w->ends[n_win] = lf__window_end(w->g, w->bytes, ops, n_ops, from, window_ops);
    /* The windows as solved (grown where cheap: lf__win_grow); the shares
     * count the windows of the plain cut still ahead. */
    int32_t n_failed = 0, ahead = 0;
    w->n_win = n_win;
    for (int32_t from = 0, to; from < n_ops && st == LF_OK; from = to) {
        while (ahead < n_win - 1 && w->ends[ahead] <= from)
            ahead++;
        int32_t left = n_win - ahead;
        to = lf__window_end(w->g, w->bytes, ops, n_ops, from, window_ops);
        double share = lf__win_share(w, left);
        st = share < 0 ? LF_ELIMIT : lf__win_try(w, ops, from, to, share, 0);
        if (st == LF_OK)
            st = lf__win_grow(w, ops, n_ops, from, &to, left, window_ops);
        if (st == LF_ELIMIT) {
            w->failed[2 * n_failed] = from;
            w->failed[2 * n_failed++ + 1] = to;
            st = LF_OK;
        }
    }
    /* Without a time limit a second try would fail the same way. */
    for (int32_t j = 0; j < n_failed && st == LF_OK; j++) {
        int32_t from = w->failed[2 * j], to = w->failed[2 * j + 1];
        st = w->pass_end > 0 ? lf__win_solve(w, ops, from, to, n_failed - j)
                             : lf__win_halves(w, ops, from, to, n_failed - j);
    }
    int64_t rest = 0;
    for (int32_t p = 0; p < w->g->n_ops; p++)
        rest += w->charged[p] ? 0 : w->cut_floor[p];
    *lower = w->weights + w->traffic + rest;
    return st;
}

/* The pass just run as charges into a slot of keep[LF__WIN_KEPT]: the next
 * empty one, or the one whose pass charged least past the floors where
 * that is less than this pass (LF_ENOMEM when out of memory). */
static lf_status lf__win_keep(const lf__win *w, const int32_t *ops, lf__win_charges *keeps)
{
    if (!keeps)
        return LF_OK;
    int64_t mine = 0, least = INT64_MAX;
    for (int32_t r = 0; r < w->n_keep; r++)
        mine += w->keep_excess[r];
    lf__win_charges *keep = NULL;
    for (int32_t i = 0; i < LF__WIN_KEPT && !keep; i++)
        if (!keeps[i].charged_by)
            keep = &keeps[i];
    for (int32_t i = 0; i < LF__WIN_KEPT && !keep; i++) {
        int64_t sum = 0;
        for (int32_t r = 0; r < keeps[i].n; r++)
            sum += keeps[i].excess[r];
        if (sum < least && sum < mine) {
            least = sum;
            keep = &keeps[i];
        }
    }
    if (!keep)
        return LF_OK;
    if (!keep->charged_by) {
        keep->charged_by = malloc(((size_t)w->g->n_ops + 1) * sizeof *keep->charged_by);
        keep->excess = malloc(((size_t)w->g->n_ops + 1) * sizeof *keep->excess);
        if (!keep->charged_by || !keep->excess)
            return lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    }
    for (int32_t p = 0; p < w->g->n_ops; p++)
        keep->charged_by[p] = -1;
    for (int32_t r = 0; r < w->n_keep; r++) {
        for (int32_t i = w->keep_from[r]; i < w->keep_to[r]; i++)
            if (w->charged[ops[i]])
                keep->charged_by[ops[i]] = r;
        keep->excess[r] = w->keep_excess[r];
    }
    keep->n = w->n_keep;
    return LF_OK;
}

void lf__win_charges_free(lf__win_charges *c)
{
    free(c->charged_by);
    free(c->excess);
    memset(c, 0, sizeof *c);
}

/* The grown pass's merges tried again as cones (window_cone.c) from the
 * grown pass's state (kept in w->cone_keep*: the passes in between
 * overwrite w's), on LF__WIN_CONE_PART of what is left of `end` (0: no
 * limit); the larger bound into ws. */
static lf_status lf__win_cone_stage(lf__win *w, const int32_t *ops, double end, int64_t cone_traffic,
                                    lf__window_stats *ws)
{
    int32_t n = w->g->n_ops;
    double now = lf_now_seconds();
    int64_t coned = 0;
    memcpy(w->charged, w->cone_keep, (size_t)n);
    memcpy(w->claimed, w->cone_keep_claimed, (size_t)n);
    memcpy(w->claim_from, w->cone_keep_from, (size_t)n * sizeof *w->claim_from);
    w->traffic = cone_traffic;
    w->pass_end = end > 0 ? now + (end - now) * LF__WIN_CONE_PART : 0;
    /* The cones' tries are no pass's windows: not kept. */
    int32_t *keep_from = w->keep_from;
    w->keep_from = NULL;
    lf_status st = LF_OK;
    if (end == 0 || end - now > 1e-3)
        st = lf__win_cone(w, ops, &coned);
    w->keep_from = keep_from;
    if (st == LF_OK && coned > ws->lower) {
        ws->lower = coned;
        ws->coned = w->coned;
    }
    return st;
}

lf_status lf__window_lower_bound(lf_cost_model *cm, const lf_exact_config *cfg, int32_t max_window_ops,
                                 lf__window_stats *ws)
{
    return lf__window_lower_bound_keep(cm, cfg, max_window_ops, ws, NULL);
}

lf_status lf__window_lower_bound_keep(lf_cost_model *cm, const lf_exact_config *cfg, int32_t max_window_ops,
                                      lf__window_stats *ws, lf__win_charges *keep)
{
    return lf__window_lower_bound_grown(cm, cfg, max_window_ops, ws, keep, LF__WIN_FIRST, LF__WIN_CHEAP);
}

lf_status lf__window_lower_bound_grown(lf_cost_model *cm, const lf_exact_config *cfg, int32_t max_window_ops,
                                       lf__window_stats *ws, lf__win_charges *keep, int32_t grown_first,
                                       int64_t cheap)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf__win w;
    memset(&w, 0, sizeof w);
    memset(ws, 0, sizeof *ws);
    w.cm = cm;
    w.g = g;
    w.t0 = lf_now_seconds();
    w.grow_left = LF__WIN_GROW_TOTAL;
    w.merge_left = LF__WIN_MERGE_TOTAL;
    w.cheap = cheap;
    lf_exact_config_default(&w.total);
    if (cfg)
        w.total = *cfg;
    int32_t n = g->n_ops, n_ops = 0;
    int32_t *ops = malloc(((size_t)n + 1) * sizeof *ops);
    w.internal = calloc((size_t)n + 1, 1);
    w.charged = calloc((size_t)n + 1, 1);
    w.seen = calloc((size_t)n + 1, sizeof *w.seen);
    w.cut_floor = calloc((size_t)n + 1, sizeof *w.cut_floor);
    w.ghost = calloc((size_t)n + 1, 1);
    w.open = calloc((size_t)n + 1, 1);
    w.claimed = calloc((size_t)n + 1, 1);
    w.mine = calloc((size_t)n + 1, 1);
    w.claims = malloc(((size_t)n + 1) * sizeof *w.claims);
    w.kept_claims = malloc(((size_t)n + 1) * sizeof *w.kept_claims);
    w.ghost_list = malloc(((size_t)n + 1) * sizeof *w.ghost_list);
    w.own_ops = malloc(((size_t)n + 1) * sizeof *w.own_ops);
    w.stack = malloc(((size_t)n + 1) * sizeof *w.stack);
    w.bytes = malloc(((size_t)n + 1) * sizeof *w.bytes);
    w.wbytes = malloc(((size_t)n + 1) * sizeof *w.wbytes);
    w.ends = malloc(((size_t)n + 1) * sizeof *w.ends);
    w.failed = malloc(2 * ((size_t)n + 1) * sizeof *w.failed);
    w.saved = malloc((size_t)n + 1);
    if (keep) {
        w.keep_from = malloc(((size_t)n + 1) * sizeof *w.keep_from);
        w.keep_to = malloc(((size_t)n + 1) * sizeof *w.keep_to);
        w.keep_excess = malloc(((size_t)n + 1) * sizeof *w.keep_excess);
    }
    w.rec_from = malloc(((size_t)n + 1) * sizeof *w.rec_from);
    w.rec_to = malloc(((size_t)n + 1) * sizeof *w.rec_to);
    w.rec_charge = malloc(((size_t)n + 1) * sizeof *w.rec_charge);
    w.merge_from = malloc(((size_t)n + 1) * sizeof *w.merge_from);
    w.merge_b = malloc(((size_t)n + 1) * sizeof *w.merge_b);
    w.merge_next = malloc(((size_t)n + 1) * sizeof *w.merge_next);
    w.merge_charge = malloc(((size_t)n + 1) * sizeof *w.merge_charge);
    w.cone_lat = malloc(((size_t)n + 1) * sizeof *w.cone_lat);
    w.tried_end = calloc((size_t)n + 2, 1);
    w.cone_saved = malloc((size_t)n + 1);
    w.cone_base = malloc((size_t)n + 1);
    w.cone_best = malloc((size_t)n + 1);
    w.cone_keep = malloc((size_t)n + 1);
    w.claim_from = calloc((size_t)n + 1, sizeof *w.claim_from);
    w.merge_claims_at = malloc(((size_t)n + 2) * sizeof *w.merge_claims_at);
    w.cone_keep_claimed = malloc((size_t)n + 1);
    w.cone_claimed_saved = malloc((size_t)n + 1);
    w.cone_claimed_best = malloc((size_t)n + 1);
    w.cone_keep_from = malloc(((size_t)n + 1) * sizeof *w.cone_keep_from);
    w.cone_from_saved = malloc(((size_t)n + 1) * sizeof *w.cone_from_saved);
    w.cone_from_best = malloc(((size_t)n + 1) * sizeof *w.cone_from_best);
    w.cone_mark = calloc((size_t)n + 1, 1);
    w.cone_ops = malloc(((size_t)n + 1) * sizeof *w.cone_ops);
    w.cone_scratch = malloc(((size_t)n + 1) * sizeof *w.cone_scratch);
    int ok = (!keep || (w.keep_from && w.keep_to && w.keep_excess)) && ops && w.internal && w.charged && w.seen &&
             w.cut_floor && w.ghost && w.open && w.stack && w.claimed &&
             w.mine && w.claims && w.kept_claims && w.ghost_list &&
             w.own_ops && w.bytes && w.wbytes && w.ends && w.failed && w.saved && w.rec_from && w.rec_to &&
             w.rec_charge && w.merge_from && w.merge_b && w.merge_next && w.merge_charge && w.cone_lat && w.tried_end && w.cone_saved &&
             w.cone_base && w.cone_best && w.cone_keep && w.cone_mark && w.cone_ops && w.cone_scratch &&
             w.claim_from && w.merge_claims_at && w.cone_keep_claimed && w.cone_claimed_saved &&
             w.cone_claimed_best && w.cone_keep_from && w.cone_from_saved && w.cone_from_best;
    lf_status st = ok ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    if (st == LF_OK)
        st = lf__win_reach_init(&w.reach, n);
    for (int32_t v = 0; v < n && st == LF_OK; v++) {
        w.bytes[v] = lf_cost_tensor_bytes(cm, v);
        w.wbytes[v] = lf_cost_weight_bytes(cm, v);
    }
    /* The floors do not depend on the windows: once for every pass. */
    if (st == LF_OK)
        st = lf__cut_tensor_floors_apart(cm, w.cut_floor, &w.apart);
    if (st == LF_OK)
        st = lf__waits_init(&w.waits, cm);
    if (st == LF_OK && (w.memo_rereads = !lf_cost_weights_resident(cm)))
        st = lf__set_memo_init(&w.rereads, n);
    if (st == LF_OK)
        st = lf__tiles_create_sharp(cm, &w.tiles);
    if (st == LF_OK) /* the sets' own reference heights (tile_floor.c, lf__set_height) */
        lf_cost_tiles_use_set_paths(w.tiles, 1);
    if (st == LF_OK)
        st = lf__wait_pairs_find(cm, &w.pairs);
    if (st == LF_OK && !(w.held = malloc(((size_t)w.pairs.n + 1) * sizeof *w.held)))
        st = lf_set_error(LF_ENOMEM, "out of memory computing bounds");
    for (int32_t v = 0; v < n && st == LF_OK; v++) {
        if (g->ops[v].type == LF_OP_INPUT)
            continue;
        ops[n_ops++] = v;
        if (lf_cost_fusable(cm, v))
            w.weights += lf_cost_weight_bytes(cm, v);
    }
    /* Window sizes grow by half while time is left: larger windows usually
     * charge more, and every pass is a floor, so the best one counts. A pass
     * may take all that is left of its time, and the next one starts only
     * when at least LF__WIN_NEXT times the last pass's time is left (a pass
     * with larger windows costs several times more: NasNet-A at 256 KB
     * under LBDF, 0.3 s with 16 ops, 3.5 s with 24; halving each pass's
     * share left the passes that count halving their windows). Passes stop at
     * max_window_ops, or without a time limit at LF__WIN_MAX_UNTIMED ops.
     *
     * First the passes with the second charge alone, over connected sets,
     * on at most half of the time: a tenth of the cost of both charges at
     * the same size, so their windows grow larger (NasNet-A at 256 KB,
     * windows up to 36 ops: LBDF 60.1 MB in 0.8 s, where both charges give
     * 59.7 MB with 24 ops in 3.2 s; BRR 126.3 MB in 2.4 s, both charges
     * 126.4 MB with 24 ops in 9.9 s). Then both charges with the rest.
     *
     * Under BRR the join (window_join.c) is skipped and the connected
     * passes take its share (seven eighths of what the grown pass left, the
     * both charges' eighth as before): it charges no weight re-reads, so it
     * stays below the connected pass it joins (256 KB, its windows against
     * the pass's: NasNet-A 24 ops 40.95 against 151.05 MB after 1.37 s of
     * CPU, more than the pass; RandWire 5.75 against 5.96 MB; PP-OCRv4
     * detection 11.41 against 12.79 MB). */
    int join = lf_cost_weights_resident(cm);
    double end = w.total.time_limit_s > 0 ? w.t0 + w.total.time_limit_s : 0;
    int32_t cap = max_window_ops > 0 ? max_window_ops : end == 0 ? LF__WIN_MAX_UNTIMED : INT32_MAX;
    /* Without a cap on the windows' size, first one pass of windows of
     * LF__WIN_FIRST ops grown where cheap (lf__win_grow), charging
     * connected parts, on at most LF__WIN_GROWN_PART of the time; the passes above
     * then run as they would without it, on what it leaves. Growing in
     * every pass costs the larger windows their time on wide graphs
     * (NasNet-A at 256 KB, LBDF, 2 s: 57.70 -> 45.86 MB); one pass that
     * grows ends early there (NasNet-A and RandWire, both schemes, 0.4-0.6
     * s of 4 s). On a quarter PP-OCRv4 detection's window 1-181 ran out
     * of its share in a 10 s run (the windows had 0.58 s, the pass 0.14:
     * 15.66 MB under BRR where half gives 15.97, its untimed figure, in
     * 0.17 s); since the merge (window_merge.c) half no longer does. */
    /* Where no window grew and every one was solved whole, the grown pass
     * was the connected pass of LF__WIN_FIRST ops, window for window: the
     * connected passes start one size up (NasNet-A at 256 KB under BRR,
     * where every try to grow fails, 0.15 s of CPU; docs/results/exact.md,
     * branch nasbrr3). */
    int32_t first_conn = cap < LF__WIN_FIRST ? cap : LF__WIN_FIRST;
    int cone = 0; /* the grown pass merged (window_cone.c) */
    int64_t cone_traffic = 0;
    if (max_window_ops <= 0 && st == LF_OK) {
        double now = lf_now_seconds(), seconds = end > 0 ? (end - now) * LF__WIN_GROWN_PART : 0;
        int64_t lower = 0;
        w.connected = 1;
        w.grow = 1;
        if (end == 0 || seconds > 1e-3)
            st = lf__win_pass(&w, ops, n_ops, grown_first, seconds, &lower);
        /* Its state, for its merges tried again as cones (window_cone.c)
         * after the join (LBDF) or at once (BRR). */
        cone = st == LF_OK && w.recording && w.n_merge > 0 && lower > 0;
        if (cone) {
            memcpy(w.cone_keep, w.charged, (size_t)n);
            memcpy(w.cone_keep_claimed, w.claimed, (size_t)n);
            memcpy(w.cone_keep_from, w.claim_from, (size_t)n * sizeof *w.claim_from);
            cone_traffic = w.traffic;
        }
        w.recording = 0;
        w.grow = 0;
        if (st == LF_OK && lower > 0 && w.grew == 0 && w.split == 0 && w.solved == w.windows &&
            LF__WIN_FIRST < cap && LF__WIN_FIRST < n_ops)
            first_conn = LF__WIN_FIRST + LF__WIN_FIRST / 2;
        if (st == LF_OK && lower > 0) {
            ws->lower = lower;
            ws->window_ops = grown_first;
            ws->connected = 1;
            ws->windows = w.windows;
            ws->windows_solved = w.solved;
            ws->halved = w.split;
            ws->grown = 1;
            ws->merged = w.merged;
        }
        if (st == LF_OK && lower > 0)
            st = lf__win_keep(&w, ops, keep);
        /* Under BRR (no join) the merges' cones at once: the passes after
         * the grown one, on 7/8 of what it leaves, never pass it where it
         * merged (PP-OCRv4 detection at 256 KB), and after them the cones
         * had an eighth, a few hundredths of a second in a 10 s run. */
        if (cone && !join && st == LF_OK)
            st = lf__win_cone_stage(&w, ops, end, cone_traffic, ws);
    }
    for (int kind = 0; kind < 2 && st == LF_OK; kind++) {
        w.connected = kind == 0;
        double now0 = lf_now_seconds();
        double kind_end = end > 0 && kind == 0 ? now0 + (end - now0) * (join ? 0.5 : 0.875) : end;
        int64_t before = kind == 0 && first_conn > LF__WIN_FIRST ? ws->lower : -1; /* the kind's last pass */
        for (int32_t size = kind == 0 ? first_conn : cap < LF__WIN_FIRST ? cap : LF__WIN_FIRST; st == LF_OK;
             size = size + size / 2 > cap ? cap : size + size / 2) {
            int last = size >= n_ops || size >= cap;
            double start = lf_now_seconds(), seconds = kind_end > 0 ? kind_end - start : 0;
            if (kind_end > 0 && seconds <= 1e-3)
                break;
            int64_t lower = 0;
            st = lf__win_pass(&w, ops, n_ops, size, seconds, &lower);
            if (st != LF_OK)
                break;
            if (lower > ws->lower || ws->window_ops == 0) {
                ws->grown = 0;
                ws->merged = 0;
                ws->coned = 0;
                ws->lower = lower;
                ws->window_ops = size;
                ws->connected = w.connected;
                ws->windows = w.windows;
                ws->windows_solved = w.solved;
                ws->halved = w.split;
            }
            if ((st = lf__win_keep(&w, ops, keep)) != LF_OK)
                break;
            /* A pass below the last one: larger windows stopped paying (NasNet-A
             * LBDF without a time limit: 36 ops 63.1 MB, 54 and 64 no more, 20 min). */
            double now = lf_now_seconds();
            double next = kind == 0 && !join ? LF__WIN_NEXT_BRR : LF__WIN_NEXT;
            if (last || lower < before || (kind_end > 0 && kind_end - now < next * (now - start)))
                break;
            before = lower;
        }
        /* The connected charge joined at its windows' boundaries (window_join.c),
         * on three quarters of what is left: a floor like any pass. */
        if (kind == 0 && join && st == LF_OK && ws->window_ops > 0) {
            lf_exact_config jc = w.total;
            jc.time_limit_s = end > 0 ? (end - lf_now_seconds()) * 3 / 4 : 0;
            int64_t joined = 0;
            int32_t n_win = 0;
            for (int32_t from = 0; from < n_ops; from = w.ends[n_win++])
                w.ends[n_win] = lf__window_end(g, w.bytes, ops, n_ops, from, ws->window_ops);
            if (end == 0 || jc.time_limit_s > 1e-3)
                st = lf__window_join_bound(cm, &jc, w.ends, n_win, 1, &joined);
            if (st == LF_OK && joined > ws->lower)
                ws->lower = joined;
        }
        /* The grown pass's merges again as the cones of the ops they took
         * in (window_cone.c), on LF__WIN_CONE_PART of what the join left
         * (before it, they starved the join: the join's time is the one
         * PP-OCRv4 detection's 16,257,409 B needs at a few tenths of a
         * second): the larger total kept. Under BRR there is no join: they
         * ran right after the grown pass. */
        if (kind == 0 && cone && join && st == LF_OK)
            st = lf__win_cone_stage(&w, ops, end, cone_traffic, ws);
    }
    ws->wall_s = lf_now_seconds() - w.t0;
    free(ops);
    free(w.internal);
    free(w.charged);
    free(w.seen);
    free(w.conn);
    free(w.cut_floor);
    lf__reader_apart_free(&w.apart);
    free(w.ghost);
    free(w.open);
    lf__win_reach_free(&w.reach);
    free(w.claimed);
    free(w.mine);
    free(w.claims);
    free(w.kept_claims);
    free(w.ghost_list);
    free(w.own_ops);
    free(w.stack);
    free(w.bytes);
    free(w.wbytes);
    free(w.ends);
    free(w.failed);
    free(w.saved);
    free(w.rec_from);
    free(w.rec_to);
    free(w.rec_charge);
    free(w.merge_from);
    free(w.merge_b);
    free(w.merge_next);
    free(w.merge_charge);
    free(w.cone_lat);
    free(w.tried_end);
    free(w.cone_saved);
    free(w.cone_base);
    free(w.cone_best);
    free(w.cone_keep);
    free(w.claim_from);
    free(w.merge_claims);
    free(w.merge_claims_at);
    free(w.cone_keep_claimed);
    free(w.cone_claimed_saved);
    free(w.cone_claimed_best);
    free(w.cone_keep_from);
    free(w.cone_from_saved);
    free(w.cone_from_best);
    free(w.cone_mark);
    free(w.cone_ops);
    free(w.cone_scratch);
    free(w.keep_from);
    free(w.keep_to);
    free(w.keep_excess);
    lf__waits_destroy(&w.waits);
    lf__set_memo_destroy(&w.rereads);
    lf_cost_tiles_free(w.tiles);
    lf__wait_pairs_free(&w.pairs);
    free(w.held);
    return st;
}

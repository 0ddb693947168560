/* The staircase of the optimum against the buffer with certified bounds
 * where exactness runs out (issue 46: `fusionplan curve --best-effort`).
 *
 * The exact staircase (planner/exact/curve.h) proves the optimum at every
 * buffer of a range, or nothing: on a wide graph (PP-OCRv4 detection,
 * NasNet-A, RandWire) it does not end in minutes. The best-effort staircase
 * first gives it a share of the time; where it ends, its steps are the
 * answer, every one proven. Where it does not, a grid of buffers from the
 * range's smallest to its largest (geometric) is solved one buffer at a
 * time by the single-buffer exact planner with best effort
 * (lf_plan_network, search exact: certified bounds and the best plan found
 * when a limit stops it), each on its share of the time left.
 *
 * Two facts make the grid a staircase of bands (docs/search.md
 * "Best-effort staircase"): a plan valid at a buffer is valid at every
 * larger one and costs no more there (each group's need is below the
 * smaller buffer; the prices at a fixed tiling do not grow with the
 * buffer), and so the optimum never rises with the buffer. Hence
 *
 *   upper(b_i) = the least figure at b_i of the plans found at b_j <= b_i
 *                (each priced again at b_i: the plan is kept with it),
 *   lower(b_i) = the largest certified lower bound found at b_j >= b_i,
 *
 * both monotone, and for every buffer b of [b_i, b_{i+1}) the optimum lies
 * in [lower(b_{i+1}), upper(b_i)]. A grid buffer whose band closes
 * (lower = upper) is proven. */
#ifndef LF_STAIR_H
#define LF_STAIR_H

#include <stdint.h>

#include "hwdesc/hw.h"
#include "planner/exact/curve.h"
#include "planner/graph.h"
#include "planner/plan.h"

/* Grid buffers by default, and the most allowed. */
#define LF_STAIR_DEFAULT_POINTS 16
#define LF_STAIR_MAX_POINTS 1024
/* The exact staircase's share of the time limit (it also stops early when
 * its pace shows it would need over four times its share: lf_exact_plan's
 * "reached early"). */
#define LF_STAIR_CURVE_SHARE 0.25

typedef struct lf_stair_step {
    int64_t beta;       /* a buffer (bytes), ascending: a grid buffer, or the exact staircase's step */
    int64_t lower;      /* the optimum over all ops at beta is at least this (the objective's
                           unit, as lf_curve_point.dram_all: bytes, fJ or fs) ... */
    int64_t upper;      /* ... and at most this: plan's figure over all ops at beta */
    int64_t found_at;   /* the buffer whose solve found plan (beta, or a smaller grid buffer's
                           plan carried up) */
    int64_t lower_at;   /* the buffer whose solve proved lower (beta, or a larger one's) */
    int32_t solved;     /* 1: the single-buffer planner proved the optimum at beta itself (or the
                           exact staircase did); lower == upper follows */
    lf_plan plan;       /* canonical, valid at beta, costs upper there */
    lf_plan_metrics metrics; /* plan's figures at beta */
    double wall_s;      /* a grid buffer: its solve's wall seconds (0 for the exact staircase's) */
} lf_stair_step;

typedef struct lf_stair {
    int64_t beta_min, beta_max;
    int32_t exact;      /* 1: the exact staircase ended: steps are its points, each lower =
                           upper (the optimum from beta to the next step's buffer) */
    int32_t n;
    lf_stair_step *steps;
    int32_t objective;  /* the exact config's objective (lf_plan_objective) */
    char stopped[512];  /* exact 0: why the exact staircase stopped (its one-line message) */
    double curve_s;     /* wall seconds of the exact staircase's try */
    double wall_s;      /* the whole computation */
} lf_stair;

/* The staircase of g under scheme over [beta_min, beta_max] with at most
 * `points` grid buffers where the exact staircase does not end (0: the
 * default; 2 to LF_STAIR_MAX_POINTS, no more than the range has bytes).
 * ec (not NULL) gives the limits: a positive time_limit_s bounds the whole
 * computation (LF_STAIR_CURVE_SHARE of it to the exact staircase, then the
 * grid buffers in ascending order, each on an equal share of the time
 * left, what one leaves going to the next); with time_limit_s 0 its
 * max_states and max_candidates bound the exact staircase and each grid
 * buffer's solve alike, which makes the result the same on any machine and
 * load (and with any ec->threads, as every planner here). *out is
 * initialised here; destroy it after a failure too. Errors: LF_EINVAL for
 * an empty range or a bad count of points, or what the planners report
 * other than their limits. */
lf_status lf_stair_compute(const lf_graph *g, const lf_hw *hw, const char *scheme, int64_t beta_min,
                           int64_t beta_max, int32_t points, const lf_exact_config *ec, lf_stair *out);
void lf_stair_destroy(lf_stair *s);

/* (upper - lower) / lower of step k in percent; 0 when they meet. */
double lf_stair_gap(const lf_stair *s, int32_t k);
/* The largest of those (*at: its step, -1 when none is open). */
double lf_stair_worst_gap(const lf_stair *s, int32_t *at);
/* Steps with lower == upper. */
int32_t lf_stair_proven(const lf_stair *s);

/* The grid's buffers: n (2 or more) geometric steps from lo to hi, both
 * included, rounded to bytes, repeats dropped (*n_out of them, ascending,
 * into out: room for n). */
void lf_stair_grid(int64_t lo, int64_t hi, int32_t n, int64_t *out, int32_t *n_out);

#endif

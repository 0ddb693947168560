/* OCGGS's Table 3 (and Figures 4 and 5) as a library run (`fusionplan bench
 * ocggs`): every search on every network at every sequence length K under a
 * time cap, with the optimized cost, the search's wall and CPU time and its
 * peak heap. The exact searches (ENU, Pruning, DPP) have no result when the
 * cap ends them, as the paper reports; the others the best found by then.
 * Built-in rules, verified first; one thread; the final numeric check is
 * skipped (figures only). Timings are measurements, never pass/fail. */
#ifndef LF_OCGGS_BENCH_H
#define LF_OCGGS_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "hwdesc/hw.h"
#include "planner/status.h"
#include "search/subst/subst.h"

#define LF_OCGGS_BENCH_MODELS 16
#define LF_OCGGS_BENCH_KS 8
#define LF_OCGGS_BENCH_SEARCHES 6

typedef struct lf_ocggs_bench_config {
    int32_t n_models, n_ks, n_searches;
    char models[LF_OCGGS_BENCH_MODELS][LF_SUBST_SPEC_MAX]; /* "NAME" or "NAME:BLOCKS" (lf_subst_network_spec) */
    int32_t ks[LF_OCGGS_BENCH_KS];             /* longest sequences, 1 to 64 */
    lf_subst_search searches[LF_OCGGS_BENCH_SEARCHES];
    double time_limit_s;     /* cap per search (default 60) */
    int cpu_clock;           /* 1: the cap counts the process's CPU time (default), 0: the wall clock */
    int64_t budget;          /* backtrack and split: graphs expanded (default 1000) */
    uint64_t seed;           /* sample's tie-breaking (default 1) */
    const char *rules;       /* rule sources (lf_subst_ruleset_open; NULL: "builtin") */
    const char *taso_path;   /* TASO's rule file, for a "taso" source */
    lf_subst_objective objective; /* time (default), flops, bytes or kernels */
    const lf_hw *hw;         /* the roofline's <gpu> figures (NULL: the defaults) */
} lf_ocggs_bench_config;

/* Table 3: inception_v3, resnet_blocks:8, resnext50_32x4d, nasnet_a,
 * bert:8, sru:1, nasrnn:5; enum, prune, dpp, split, backtrack, sample; K 10. */
void lf_ocggs_bench_config_default(lf_ocggs_bench_config *cfg);
/* The lists from comma-separated text, replacing the defaults: networks
 * (their form checked, lf_subst_network_spec_check), searches by name
 * (lf_subst_search_from_name) and lengths K. LF_EINVAL with a message
 * naming the item (or the count) at fault; cfg is unchanged then. */
lf_status lf_ocggs_bench_set_models(lf_ocggs_bench_config *cfg, const char *list);
lf_status lf_ocggs_bench_set_searches(lf_ocggs_bench_config *cfg, const char *list);
lf_status lf_ocggs_bench_set_ks(lf_ocggs_bench_config *cfg, const char *list);

/* One search on one network at one K. */
typedef struct lf_ocggs_cell {
    int ok;              /* a result (0: an exact search ended by the cap) */
    double cost;         /* the objective of the optimized graph */
    double secs, cpu;    /* search time: wall clock, process CPU */
    double mb;           /* peak heap of the search (MB; NaN when not measurable) */
    int timed_out;       /* a best-so-far search ended by the cap */
    int64_t work;        /* sequences examined (OCGGS) or graphs expanded */
} lf_ocggs_cell;

typedef struct lf_ocggs_bench {
    lf_ocggs_bench_config cfg;
    lf_subst_ruleset rules;
    int32_t failed;      /* rules disabled by verification */
    lf_subst_coster coster;
    double scale;        /* cost unit of the tables: us for time, else 1 */
    lf_ocggs_cell *cells;/* [(model * n_ks + k) * n_searches + search] */
    double start[LF_OCGGS_BENCH_MODELS]; /* the networks' cost before any rewrite */
    int32_t blocks[LF_OCGGS_BENCH_MODELS], ops[LF_OCGGS_BENCH_MODELS];
} lf_ocggs_bench;

/* Checks cfg (the objective), opens and verifies the rules. LF_EINVAL names
 * what is wrong. Safe to close after a failure. */
lf_status lf_ocggs_bench_open(lf_ocggs_bench *b, const lf_ocggs_bench_config *cfg);
void lf_ocggs_bench_close(lf_ocggs_bench *b);

/* Progress: one line per search ("inception_v3 K 10 dpp: 41.385 in 0.012 s"
 * or why there is no result), newline included. */
typedef void (*lf_ocggs_bench_notice_fn)(void *user, const char *line);

/* Runs every cell; notice may be NULL. */
lf_status lf_ocggs_bench_run(lf_ocggs_bench *b, lf_ocggs_bench_notice_fn notice, void *user);

const lf_ocggs_cell *lf_ocggs_bench_cell(const lf_ocggs_bench *b, int32_t model, int32_t k, int32_t search);
/* The paper's name of a search ("ENU", "Pruning", "DPP", "MF (split)", ...). */
const char *lf_ocggs_bench_title(lf_subst_search s);

/* The settings line (before a run). */
void lf_ocggs_bench_write_header(FILE *f, const lf_ocggs_bench *b);
/* The networks and the four Markdown tables (cost, wall time, CPU time,
 * peak heap) of a finished run. */
void lf_ocggs_bench_write_tables(FILE *f, const lf_ocggs_bench *b);
/* Chart `what` (0 cost, 1 CPU time, 2 peak heap) of a finished run as SVG at
 * PREFIX-cost.svg, -time.svg or -memory.svg (the path in path): against K
 * when several are given, else against the networks' blocks. */
lf_status lf_ocggs_bench_save_chart(const lf_ocggs_bench *b, const char *prefix, int what, char *path,
                                    size_t len);

#endif

/* The GSO rule filter as a benchmark (`fusionplan bench gso`, GSO's Figure 7
 * and §4.3), one row per network: the filter's time (median of repeated
 * runs, one thread), the rules kept by the GCNs and by the LR baseline
 * against the rules that truly match (the matcher), the Jaccard distance
 * between them and, optionally, the substitution search's CPU time and result
 * without a filter and with each. Rules are verified first; disabled ones
 * count nowhere. Timings are measurements, never pass/fail. */
#ifndef LF_GSO_BENCH_H
#define LF_GSO_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "hwdesc/hw.h"
#include "planner/status.h"
#include "search/subst/gso/gso.h"
#include "search/subst/subst.h"

#define LF_GSO_BENCH_MODELS 16

typedef struct lf_gso_bench_config {
    int32_t n_models;
    char models[LF_GSO_BENCH_MODELS][LF_SUBST_SPEC_MAX]; /* lf_subst_network_spec */
    const char *rules;        /* rule sources (default "builtin,taso") */
    const char *taso_path;    /* TASO's rule file for "taso" */
    lf_subst_search search;   /* default backtrack */
    int64_t budget;           /* graphs expanded per search (default 1000) */
    int32_t max_len;          /* enum: longest sequence (default 3) */
    int32_t max_steps;        /* prune, dpp, sample: longest sequence (default 10) */
    int32_t repeat;           /* filter runs per network, the median is reported (1 to 64, default 21) */
    const char *gcn_weights, *lr_weights; /* NULL: the shipped models */
    int with_search;          /* also the searches without and with each filter (default 1) */
    int every_model;          /* also time every GCN, the constant ones too */
    const lf_hw *hw;          /* the roofline of the searches' time objective (NULL: the defaults) */
} lf_gso_bench_config;

/* resnet18, resnet50, inception_e, alexnet, vgg16, sru; the rest as above. */
void lf_gso_bench_config_default(lf_gso_bench_config *cfg);
/* The networks from a comma-separated list (lf_subst_network_list). */
lf_status lf_gso_bench_set_models(lf_gso_bench_config *cfg, const char *list);

/* One network: [0] the GCNs (gso), [1] the LR baseline; searches [0]
 * without a filter, [1] with gso, [2] with lr. */
typedef struct lf_gso_bench_row {
    int32_t ops;              /* ops of the graph, inputs included */
    double ms[2];             /* median filter time */
    double all_ms;            /* every_model: median time of every GCN */
    int32_t kept[2], matching;
    double jaccard[2];        /* kept vs matching */
    double cpu[3];            /* with_search: search CPU seconds (the calling thread's) */
    double cost_us[3];        /* with_search: best roofline time */
} lf_gso_bench_row;

typedef struct lf_gso_bench {
    lf_gso_bench_config cfg;
    lf_gso_set sets[2];
    lf_subst_ruleset rules;
    int32_t failed, enabled;  /* rules disabled by verification, rules enabled */
    lf_subst_coster coster;
    uint8_t *mask[2], *truth;
    int32_t n_rows;
    lf_gso_bench_row rows[LF_GSO_BENCH_MODELS];
} lf_gso_bench;

/* Loads both model sets and opens and verifies the rules. Safe to close
 * after a failure. */
lf_status lf_gso_bench_open(lf_gso_bench *b, const lf_gso_bench_config *cfg);
void lf_gso_bench_close(lf_gso_bench *b);

/* Called after each row (row index i of b->rows). */
typedef void (*lf_gso_bench_row_fn)(void *user, const lf_gso_bench *b, int32_t i);
/* Runs every network; row may be NULL. */
lf_status lf_gso_bench_run(lf_gso_bench *b, lf_gso_bench_row_fn row, void *user);

/* The settings line and the Markdown table's head (before a run). */
void lf_gso_bench_write_header(FILE *f, const lf_gso_bench *b);
/* Row i of the table. */
void lf_gso_bench_write_row(FILE *f, const lf_gso_bench *b, int32_t i);

#endif

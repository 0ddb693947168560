/* Backtracking against exhaustive substitution search (`fusionplan bench
 * subst`, MetaFlow's comparison): per network, the cost before, the best
 * found by TASO/MetaFlow's backtracking and by exhaustive enumeration within
 * its budget, with the graphs expanded and the search times. Built-in rules,
 * verified first; the final numeric check is skipped (figures only). */
#ifndef LF_SUBST_BENCH_H
#define LF_SUBST_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "hwdesc/hw.h"
#include "planner/status.h"
#include "search/subst/subst.h"

#define LF_SUBST_BENCH_MODELS 16

typedef struct lf_subst_bench_config {
    int32_t n_models;
    char models[LF_SUBST_BENCH_MODELS][LF_SUBST_SPEC_MAX]; /* substitution or built-in networks */
    int32_t input_size;       /* 0: each network's own */
    int32_t threads;          /* threads over a search's candidates (default 1) */
    int64_t budget;           /* backtracking: graphs expanded (default 1000) */
    int64_t enum_budget;      /* exhaustive: graphs expanded (default 200000) */
    double alpha;             /* backtracking's alpha (default 1.05) */
    lf_subst_objective objective; /* default time */
    const lf_hw *hw;          /* the roofline (NULL: the defaults) */
    const char *rules;        /* rule sources (lf_subst_ruleset_open; NULL: "builtin") */
    const char *taso_path;    /* TASO's rule file, for a "taso" source */
} lf_subst_bench_config;

/* alexnet, vgg16, inception_e13, resnet18 and the defaults above. */
void lf_subst_bench_config_default(lf_subst_bench_config *cfg);
/* Networks from a comma-separated list (empty items skipped); LF_EINVAL
 * "at most 16" beyond that, cfg unchanged then. */
lf_status lf_subst_bench_set_models(lf_subst_bench_config *cfg, const char *list);

typedef struct lf_subst_bench_row {
    int32_t ops;              /* compute ops */
    double start, backtrack, exhaustive; /* the objective (us for time) */
    int64_t bt_expanded, en_expanded;
    double bt_s, en_s;        /* search seconds */
    int complete;             /* the exhaustive search ended within its budget */
} lf_subst_bench_row;

typedef struct lf_subst_bench {
    lf_subst_bench_config cfg;
    lf_subst_ruleset rules;
    int32_t failed;
    lf_subst_coster coster;
    int32_t n_rows;
    lf_subst_bench_row rows[LF_SUBST_BENCH_MODELS];
} lf_subst_bench;

/* Opens and verifies the rules (cfg->rules). Safe to close after a failure. */
lf_status lf_subst_bench_open(lf_subst_bench *b, const lf_subst_bench_config *cfg);
void lf_subst_bench_close(lf_subst_bench *b);
/* Runs every network; row (may be NULL) is called after each. */
lf_status lf_subst_bench_run(lf_subst_bench *b, void (*row)(void *user, const lf_subst_bench *b, int32_t i),
                             void *user);
/* The settings line and the Markdown table's head. */
void lf_subst_bench_write_header(FILE *f, const lf_subst_bench *b);
/* Row i, with whether backtracking reached the exhaustive optimum (or, when
 * the exhaustive search was cut by its budget, how the two compare). */
void lf_subst_bench_write_row(FILE *f, const lf_subst_bench *b, int32_t i);

#endif

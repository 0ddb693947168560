/* Internals shared by the partition searches: candidates (candidates.c), the
 * parallel batch evaluator with the best-plan and Pareto bookkeeping
 * (batch.c), and the algorithms (random_search.c, local_search.c, nsga2.c),
 * which driver.c dispatches to through its table. Not part of the public
 * API. */
#ifndef LF_SEARCH_INTERNAL_H
#define LF_SEARCH_INTERNAL_H

#include <stdint.h>

#include "planner/util/busy_clock.h"
#include "planner/util/clock.h"
#include "planner/util/pool.h"
#include "planner/util/rng.h"
#include "search/partition/genome.h"
#include "search/partition/search.h"

/* A decoded plan with what the searches compare it by. */
typedef struct lf__cand {
    lf_plan plan;          /* canonical */
    uint8_t *genome;       /* lf_genome_from_plan(plan): the repaired genome */
    lf_decoded sum;
    lf_plan_metrics key;   /* dram_fusable and n_groups set, for lf_plan_compare */
    uint64_t hash;         /* of the genome, to find duplicates fast */
    int64_t index;         /* plan number (position in the proposal order) */
} lf__cand;

lf_status lf__cand_init(lf__cand *c, int32_t n_ops, int32_t n_edges);
void lf__cand_destroy(lf__cand *c);
void lf__cand_assign(lf__cand *dst, const lf__cand *src, int32_t n_edges); /* both initialised */
int lf__cand_compare(const lf__cand *a, const lf__cand *b);                 /* lf_plan_compare */
int lf__cand_same(const lf__cand *a, const lf__cand *b);                    /* equal partitions */

/* Scratch for proposal functions (drawn on the calling thread). */
typedef struct lf__scratch {
    uint8_t *genome;       /* n_edges genes */
    int32_t *ops;          /* n_ops ints */
    int32_t *aux;          /* max(n_ops, n_edges) + 1 ints */
} lf__scratch;

typedef struct lf__search lf__search;

/* A worker's private state for one plan of a batch (batch.c). */
typedef struct lf__work {
    uint8_t *genome;       /* the claimed proposal */
    int64_t index;         /* its plan number */
    lf__cand cand;         /* the decoded result, swapped into the batch when kept */
    lf_decode_stats delta; /* what decoding it added to the decoder's counters */
    lf_status st;
    char msg[256];         /* the error message (thread-local otherwise) */
} lf__work;

/* Fills `genome` with proposal number `index` (slot: its position in the
 * batch), drawing only from r. */
typedef lf_status (*lf__propose_fn)(lf__search *s, void *arg, int32_t slot, lf_rng *r,
                                    lf__scratch *w, uint8_t *genome);

struct lf__search {
    lf_cost_model *cm;
    const lf_graph *g;
    const lf_search_config *cfg;
    lf_genome_map map;
    int32_t n_ops, n_edges;
    int32_t nthreads;
    lf_decoder **dec;      /* one per thread */
    lf__work *work;        /* one per thread */
    lf_pool *pool;
    lf__scratch prop;      /* proposals are drawn by the calling thread */
    uint8_t *in_genomes;   /* the batch's proposals, cap_in x n_edges */
    int32_t cap_in;
    lf__cand *batch_out;   /* the batch being decoded */
    lf_decode_stats stats; /* sums over kept plans (independent of the threads) */
    int64_t fail_index;    /* first failed plan of the batch, -1 if none */
    lf_status fail_st;
    char fail_msg[256];
    lf_busy_clock split_clock; /* wall time with some thread in the splitter */
    int have_clock;
    lf__cand best;
    int have_best;
    int64_t proposed;      /* plans proposed so far (next plan's index) */
    int64_t *trace;        /* cfg->trace: best DRAM after each plan, budget entries */
    /* Pareto archive over the selected objectives (NSGA-II only). */
    int32_t objectives;    /* bit 0 DRAM, bit 1 group count */
    lf__cand *arch;
    int32_t n_arch, cap_arch;
    int use_archive;
    /* Cost-guided edits (guided.c; cfg->guided): a scratch group and the
     * F_D of each group of the plan being edited. */
    lf_bitset guide;
    int64_t *guide_fd;
    int32_t *guide_members, *guide_start, *guide_pos; /* the plan's groups as member lists */
    lf_plan guide_plan;    /* NSGA-II: a child's raw groups */
};

/* Proposes plans s->proposed .. s->proposed + n - 1 (on the calling thread,
 * in order), decodes them on the pool into out[0 .. n), then merges them into the best plan (and the archive) in
 * index order and advances s->proposed. */
lf_status lf__search_batch(lf__search *s, int32_t n, lf__propose_fn fn, void *arg, lf__cand *out);

/* The random-search proposal: p uniform in [0, 1), each gene fused with p. */
/* Slot i < cfg->n_seeds proposes seed plan i, later slots a random genome:
 * the initial population of local search and NSGA-II. */
lf_status lf__propose_initial(lf__search *s, void *arg, int32_t slot, lf_rng *r, lf__scratch *w,
                              uint8_t *genome);
lf_status lf__propose_random(lf__search *s, void *arg, int32_t slot, lf_rng *r, lf__scratch *w,
                             uint8_t *genome);


/* The cost-guided edits of guided.c on groups `in` (op -> group id in
 * 0 .. n_ops, -1 for inputs; groups may be invalid or unrepaired): write the
 * edited groups into gof (n_ops entries, may be `in`) and set *done, or
 * leave both alone when no edit saves DRAM. Run on the calling thread (they
 * use the search's scratch). */
lf_status lf__guided_merge(lf__search *s, const int32_t *in, int32_t *gof, int *done);
lf_status lf__guided_move(lf__search *s, const int32_t *in, int32_t *gof, int *done);

/* Candidate arrays. */
lf_status lf__cands_alloc(lf__cand **out, int32_t n, int32_t n_ops, int32_t n_edges);
void lf__cands_free(lf__cand *c, int32_t n);

/* 1 when a is at least as good as b in every selected objective and better
 * in one. */
int lf__dominates(const lf__cand *a, const lf__cand *b, int32_t objectives);

/* The searches' entry points, declared from their rows in searches.def (so
 * a new search needs no line here); the driver finds a budgeted one by name
 * with lf__search_budget_fn (NULL for a name that is not one). */
#define LF_SEARCH_PLAN(name, aliases, fn, help) lf_status fn(lf_cost_model *cm, lf_plan *out);
#define LF_SEARCH_BUDGET(name, aliases, fn, help) lf_status fn(lf__search *s);
#define LF_SEARCH_EXACT(name, aliases, help)
#include "search/partition/searches.def"
#undef LF_SEARCH_PLAN
#undef LF_SEARCH_BUDGET
#undef LF_SEARCH_EXACT
typedef lf_status (*lf__search_fn)(lf__search *s);
lf__search_fn lf__search_budget_fn(const char *name);

#endif

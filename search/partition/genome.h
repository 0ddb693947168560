/* The genome of a partition plan and its decoding into a valid plan
 * (DESIGN §6).
 *
 * A genome holds one gene per edge between two fusable ops (1 = fused; one
 * byte per gene, which keeps crossover and mutation simple). The groups of a
 * genome are the connected components of its fused edges: every fusable op is
 * in exactly one group, unfusable ops are singletons, graph inputs are in
 * none. Such groups are weakly connected by construction but may be invalid
 * (F_beta >= beta) or form a cyclic quotient, so decoding alternates two
 * repairs until the plan is stable:
 *
 *   1. cycle repair (repair.c): while the quotient has a strongly connected
 *      component of several groups, split one group of each such component
 *      deterministically by topological position (details in repair.c);
 *   2. every group is priced with lf_cost_eval; each invalid group goes to
 *      the splitter, whose parts replace it. Splitting can create new cycles,
 *      so the loop goes back to 1 until no group is split.
 *
 * Both steps only ever split groups, so the loop ends (at worst with single
 * ops, which form a valid acyclic plan). Decoding is a pure function of the
 * genome, the cost model, the splitter and the search seed (the splitter's
 * stream is derived per group), whatever thread runs it.
 *
 * The inverse, lf_genome_from_plan, sets a gene when both ends of the edge
 * share a group; decoding that genome gives the plan back exactly when the
 * plan is valid (its groups are connected, valid and acyclic). */
#ifndef LF_SEARCH_GENOME_H
#define LF_SEARCH_GENOME_H

#include <stdint.h>

#include "planner/plan.h"
#include "planner/util/busy_clock.h"
#include "splitter/splitter.h"

/* The edges a genome ranges over, for one graph under one cost model. */
typedef struct lf_genome_map {
    int32_t n_ops;
    int32_t n_edges;
    int32_t *eu, *ev;       /* edge e runs from op eu[e] to op ev[e] (eu < ev), ordered by
                               consumer, then operand slot; parallel edges appear once */
    int32_t *adj_start;     /* op v's incident edges: adj[adj_start[v] .. adj_start[v + 1]) */
    int32_t *adj;
} lf_genome_map;

lf_status lf_genome_map_init(lf_genome_map *m, lf_cost_model *cm);
void lf_genome_map_destroy(lf_genome_map *m); /* safe after a failed init */

/* Plan (or a bare op -> group array, -1 for inputs) -> genome of n_edges genes. */
void lf_genome_from_plan(const lf_genome_map *m, const lf_plan *p, uint8_t *genome);
void lf_genome_from_groups(const lf_genome_map *m, const int32_t *group_of, uint8_t *genome);

/* The raw groups of a genome (components of fused edges, no repair), as a
 * canonical plan. `out` must be initialised for the graph's op count. The
 * result may be cyclic or hold invalid groups. */
lf_status lf_genome_groups(const lf_genome_map *m, const lf_graph *g, const uint8_t *genome,
                           lf_plan *out);

/* What decoding did, summed over every decode of one decoder. */
typedef struct lf_decode_stats {
    int64_t decodes;        /* genomes decoded */
    int64_t invalid_groups; /* invalid groups met (each handed to the splitter) */
    int64_t splits;         /* groups split: by the splitter or by the cycle repair */
    int64_t repair_splits;  /* of which by the cycle repair */
    int64_t rectified;      /* splitter calls that succeeded without falling back */
    int64_t fallbacks;      /* splitter calls that gave up (random split used instead) */
    int64_t split_queries;  /* cost queries made inside the splitter */
    int64_t local_hits;     /* group costs answered by the decoder's own cache */
    double split_s;         /* seconds inside the splitter (this decoder's thread) */
} lf_decode_stats;

/* Summary of one decoded plan (the search's objectives). */
typedef struct lf_decoded {
    int64_t dram;           /* sum of F_D over groups of fusable ops */
    int64_t obj;            /* sum of the cost model's objective over them (= dram by
                               default; planner/cost/objective.h): the fitness */
    int64_t mbu;            /* largest MBU over those groups */
    int32_t n_groups;       /* groups of fusable ops */
} lf_decoded;

/* Per-thread decoding workspace: buffers are reused across decodes, so a
 * decoder must not be shared between threads (make one per thread). The cost
 * model, map and splitter are shared read-only. `splitter` NULL means the
 * random split; `seed` is the search seed the splitter streams derive from.
 * Its fields (end of this header) are internal to genome.c, decoder.c and
 * repair.c. */
typedef struct lf_decoder lf_decoder;

lf_status lf_decoder_create(lf_decoder **d, lf_cost_model *cm, const lf_genome_map *m,
                            const lf_splitter *splitter, uint64_t seed);
void lf_decoder_free(lf_decoder *d);

/* Decodes a genome into a valid canonical plan (`out` initialised for the
 * graph's op count). `repaired` (n_edges genes, may be NULL or equal to
 * `genome`) receives lf_genome_from_plan of the result; `sum` (may be NULL)
 * its objectives. */
lf_status lf_genome_decode(lf_decoder *d, const uint8_t *genome, lf_plan *out, uint8_t *repaired,
                           lf_decoded *sum);

/* Cycle repair alone, on a plan whose groups are weakly connected: splits
 * groups (see repair.c) until the quotient is acyclic; groups stay weakly
 * connected, the plan comes back canonical, *n_splits (may be NULL) says how
 * many groups were split. Validity is not looked at. */
lf_status lf_plan_repair_cycles(lf_decoder *d, lf_plan *p, int32_t *n_splits);

void lf_decoder_stats(const lf_decoder *d, lf_decode_stats *st);

/* Makes the decoder also count its time in the splitter on a clock shared
 * by several decoders (the union of their intervals: wall time). NULL: none. */
void lf_decoder_set_busy_clock(lf_decoder *d, lf_busy_clock *clock);

/* ---- internal: shared by genome.c, decoder.c and repair.c ------------- */

struct lf_decoder {
    lf_cost_model *cm;
    const lf_graph *g;
    const lf_genome_map *m;
    const lf_splitter *sp;
    uint64_t seed;
    int32_t n;          /* ops */
    int32_t ng;         /* group ids in use: [0, ng), dense */
    int32_t *gof;       /* op -> group, -1 for graph inputs */
    uint8_t *bits;      /* working genome */
    int32_t *uf;        /* union-find parents; also a relabel map */
    int32_t *gstart;    /* group -> members gmem[gstart[k] .. gstart[k + 1]), ascending */
    int32_t *gmem;
    /* cycle repair: quotient CSR, SCC ids and workspace, per-group marks */
    int32_t *qstart, *qsucc, *comp, *csize, *work, *cut_at, *seen_exit, *fresh, *best;
    lf_bitset scratch;
    lf_split_result split;
    lf_decode_stats st;
    lf_busy_clock *clock;
    /* A small direct-mapped cache of group costs in front of the shared
     * memo: neighbouring plans share most groups, and answering those
     * without the memo's locks and shared counters is what lets threads
     * scale. Entries hold the full bitset, so a hit is exact. */
    int32_t cache_mask;     /* entries - 1 (a power of two) */
    struct lf__cache_entry *cache;
    uint64_t *cache_words;  /* (cache_mask + 1) * scratch.nwords */
};

/* Relabels groups densely in order of their smallest op (canonical ids). */
void lf__decoder_relabel(lf_decoder *d);
/* Groups = components of the working genome d->bits (canonical ids). */
void lf__decoder_components(lf_decoder *d);
/* Builds the member lists of the current groups. */
void lf__decoder_members(lf_decoder *d);
/* Makes the quotient acyclic; *splits receives the groups split. */
void lf__decoder_repair(lf_decoder *d, int32_t *splits);

#endif

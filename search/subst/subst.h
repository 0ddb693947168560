/* Substitution optimizer (DESIGN §11): rules, matcher, rewriter, canonical
 * graph hash, numeric verification.
 *
 * A rule is a small source pattern over pattern variables plus a target
 * builder. Source nodes are typed (a set of op types; all of them is a
 * wildcard) and list their operands as references to earlier source nodes or
 * to variables; a variable binds an activation (an op's output) or a constant
 * of the graph, and a repeated variable means "the same tensor". Attribute and
 * shape constraints compare a field of a node with a number or with the same
 * field of another node; a rule may add a predicate for what a table cannot
 * say. `mapped` names the source nodes whose outputs the target replaces: the
 * target adds one op per mapped node, which takes that node's name, so the
 * rest of the graph reads it unchanged. Every other source node disappears,
 * so a match is rejected when one of them is read outside the match or is a
 * graph output, and when the rewrite would make the graph cyclic (the match is
 * not convex).
 *
 * Rewrites build a new graph (graphs are never mutated). Targets compute
 * weights with ops over constants (Concat of two weights, Pad of a kernel,
 * Mul by a folded BatchNorm scale); the graph builder folds those into new
 * constants with the reference executor, or into shape-only constants when the
 * source constants carry only shapes. */
#ifndef LF_SUBST_H
#define LF_SUBST_H

#include <stddef.h>
#include <stdint.h>

#include "planner/graph.h"
#include "planner/status.h"

#define LF_SUBST_MAX_NODES 6
#define LF_SUBST_MAX_VARS 8
#define LF_SUBST_MAX_REFS 5
#define LF_SUBST_MAX_CONS 12

/* An operand reference in a source pattern: >= 0 is a source node, negative
 * values are variables (LF_SUBST_VAR(k)). */
#define LF_SUBST_VAR(k) (-1 - (k))
#define LF_SUBST_TYPE(t) ((uint64_t)1 << (t))
#define LF_SUBST_ANY_TYPE (~(uint64_t)0)

typedef enum lf_subst_var_kind {
    LF_SUBST_VAR_ACT = 1,   /* an op's output */
    LF_SUBST_VAR_CONST = 2, /* a constant of the graph */
    LF_SUBST_VAR_ANY = 3
} lf_subst_var_kind;

typedef struct lf_subst_node {
    uint64_t types;                   /* bit t: op type t matches */
    int32_t min_opnds, max_opnds;     /* operand count range of the op */
    int32_t n_refs;                   /* references below; positions past the op's own
                                         operand count leave their variable unbound */
    int32_t ref[LF_SUBST_MAX_REFS];
    int32_t commutative;              /* two operands that may match in either order */
    int32_t after;                    /* >= 0: this node's op id must exceed that node's
                                         (one match per unordered pair of equal roles) */
} lf_subst_node;

/* Fields a constraint can compare. Attribute fields read lf_attrs (kernel,
 * stride, dilation and groups of 0 read as 1); OUT_* read the op's output
 * shape, IN_* the shape of its first operand. */
typedef enum lf_subst_field {
    LF_SF_KH = 0, LF_SF_KW, LF_SF_SH, LF_SF_SW, LF_SF_DH, LF_SF_DW,
    LF_SF_PAD_T, LF_SF_PAD_L, LF_SF_PAD_B, LF_SF_PAD_R,
    LF_SF_GROUPS, LF_SF_ACT, LF_SF_AXES, LF_SF_TRANS_A, LF_SF_TRANS_B,
    LF_SF_OUT_N, LF_SF_OUT_C, LF_SF_OUT_H, LF_SF_OUT_W,
    LF_SF_IN_N, LF_SF_IN_C, LF_SF_IN_H, LF_SF_IN_W,
    LF_SF_N_OPNDS,
    LF_SF_SAME_PAD,   /* 1 when every pad is (kernel - 1) * dilation / 2 and kernels are odd */
    LF_SF_COUNT
} lf_subst_field;

typedef enum lf_subst_cmp { LF_SC_EQ = 0, LF_SC_NE, LF_SC_LT, LF_SC_LE, LF_SC_GT, LF_SC_GE } lf_subst_cmp;

typedef struct lf_subst_constraint {
    int32_t node;
    lf_subst_field field;
    lf_subst_cmp cmp;
    int64_t value;       /* used when other < 0 */
    int32_t other;       /* >= 0: compare with the same field of this node */
} lf_subst_constraint;

/* A match: the op of every source node and the binding of every variable
 * (id -1: unbound, an optional operand the op does not have). */
typedef struct lf_subst_match {
    int32_t op[LF_SUBST_MAX_NODES];
    lf_operand var[LF_SUBST_MAX_VARS];
} lf_subst_match;

/* The target builder's view of one rewrite (search/subst/rewrite.c). */
typedef struct lf_subst_tctx lf_subst_tctx;

typedef struct lf_subst_rule {
    const char *name;
    const char *origin;       /* "metaflow", "taso", "ocggs", "taso-file" */
    const char *summary;      /* the source pattern and what it becomes, in words */
    int32_t n_nodes, n_vars;
    lf_subst_node nodes[LF_SUBST_MAX_NODES];
    lf_subst_var_kind var_kind[LF_SUBST_MAX_VARS];
    int32_t n_cons;
    lf_subst_constraint cons[LF_SUBST_MAX_CONS];
    uint32_t mapped;          /* bit i: source node i is replaced by a target op of its name */
    int32_t target_ops;       /* ops the target adds (for listings) */
    /* Extra condition on a complete match (NULL: none); 1 accepts. */
    int (*check)(const lf_graph *g, const lf_subst_match *m, const struct lf_subst_rule *r);
    /* Builds the target. */
    lf_status (*target)(lf_subst_tctx *t);
    /* Builds verification example k (0, 1, 2: different shapes meeting the
     * constraints) into b: graph inputs and constants with values. NULL when
     * the rule has no example generator. */
    lf_status (*example)(const struct lf_subst_rule *r, int32_t k, lf_graph_builder *b);
    const void *data;         /* rule-private data (loaded rules) */
} lf_subst_rule;

/* ---- matching ------------------------------------------------------------ */

typedef struct lf_subst_matches {
    int32_t n, cap;
    lf_subst_match *m;
} lf_subst_matches;

void lf_subst_matches_free(lf_subst_matches *ms);

/* Appends every valid match of r in g to ms, in a deterministic order (depth
 * first over source nodes, candidates by ascending op id). */
lf_status lf_subst_find(const lf_graph *g, const lf_subst_rule *r, lf_subst_matches *ms);

/* As lf_subst_find, but node 0 of the pattern only binds ops v with
 * roots[v] != 0 (roots has g->n_ops entries): the matches near a region of
 * the graph (OCGGS's DPP searches new matches around the ops a step created). */
lf_status lf_subst_find_rooted(const lf_graph *g, const lf_subst_rule *r, const uint8_t *roots,
                               lf_subst_matches *ms);

/* 1 when m (ops and variables given, e.g. a match carried over from an earlier
 * graph by op names) is a valid match of r in g: op types and operand counts,
 * every operand bound as the pattern says (commutative nodes in either
 * order), constraints, no removed op read outside the match, convexity. */
int lf_subst_match_valid(const lf_graph *g, const lf_subst_rule *r, const lf_subst_match *m);

/* Value of a constraint field for op v of g. */
int64_t lf_subst_field_of(const lf_graph *g, int32_t v, lf_subst_field f);

/* ---- rewriting ----------------------------------------------------------- */

/* Applies match m of r to g and builds the new graph into *out. Fails
 * (LF_EGRAPH with a message) when the target is not shape-valid, makes a cycle
 * or leaves an op without readers; g is untouched either way. */
lf_status lf_subst_apply(const lf_graph *g, const lf_subst_rule *r, const lf_subst_match *m,
                         lf_graph **out);

/* For target builders. */
const lf_op *lf_subst_t_op(const lf_subst_tctx *t, int32_t node);       /* source node's op */
const lf_graph *lf_subst_t_graph(const lf_subst_tctx *t);
/* Name of the tensor bound to variable k (an op or a constant), NULL when unbound. */
const char *lf_subst_t_var(const lf_subst_tctx *t, int32_t k);
/* Shape of the tensor bound to variable k ({0} when unbound). */
lf_shape lf_subst_t_var_shape(const lf_subst_tctx *t, int32_t k);
/* Adds a target op with operands named as in the graph (variables' names,
 * earlier target ops' names). maps >= 0: the op replaces source node `maps`
 * and takes its name; -1: a fresh name. *name (may be NULL) receives the
 * op's name, valid until the rewrite ends. */
lf_status lf_subst_t_add(lf_subst_tctx *t, lf_op_type type, const lf_attrs *a,
                         const char *const *opnds, int32_t n, int32_t maps, const char **name);
/* Adds a constant with a fresh name; data (malloc'd, N*C*H*W floats, or NULL
 * for shape only) is taken over, also on failure. */
lf_status lf_subst_t_const(lf_subst_tctx *t, lf_shape s, float *data, const char **name);

/* ---- canonical hash ------------------------------------------------------- */

/* A hash of g that does not depend on op numbering or names: each op hashes
 * its type, attributes, output shape and its operands' hashes (constants by
 * shape), and the graph hashes the sorted multiset of its ops' hashes. */
uint64_t lf_subst_canon_hash(const lf_graph *g);

/* ---- values ---------------------------------------------------------------- */

/* A copy of g whose constants all carry values: g's own where it has them,
 * otherwise the ones the executor generates for seed. */
lf_status lf_subst_materialize(const lf_graph *g, uint64_t seed, lf_graph **out);
/* A copy of g whose constants carry shapes only (search works on these). */
lf_status lf_subst_strip(const lf_graph *g, lf_graph **out);

/* Compares the outputs of a and b (matched by op name) with the executor for
 * seed; constants without values are generated by name. *max_err receives
 * the largest |a-b| / max(1, |b|). Fails with LF_EGRAPH naming the output
 * when the outputs do not pair up or differ beyond tol. */
lf_status lf_subst_compare(const lf_graph *a, const lf_graph *b, uint64_t seed, double tol,
                           double *max_err);

/* ---- networks of MetaFlow's evaluation (search/subst/networks.c) --------------- */

/* "alexnet" (torchvision, input 224 only), "inception_e" (Inception-v3's
 * Mixed_7b alone, 1280 x size x size input, default 8; "inception_e13" is
 * the same block with each ReLU fused into its conv, MetaFlow's 13 nodes) and "sru" (one SRU
 * layer, hidden 1024, unrolled over size tokens, default 8, and a 2-class
 * Gemm: MetaFlow's RNN text classifier). LF_ENOTFOUND for other names. */
lf_status lf_subst_network(const char *name, int32_t input_size, lf_graph **out);
/* OCGGS's networks (Table 2) too: "resnet_blocks" (TASO's ResNet blocks as
 * torchvision BasicBlocks: conv, ReLU, conv, Add, ReLU; 64 x 56 x 56; default
 * 8 blocks, OCGGS's "ResNet"), "bert" (TASO's attention blocks, 64 tokens of
 * 1024, 16 heads; default 8) and "nasrnn" (NAS RNN cells, hidden 512; default
 * 5). blocks (0: the default) repeats the block: also Inception-E blocks in a
 * row for inception_e and inception_e13 (default 1) and the tokens of sru.
 * LF_EINVAL for blocks on a network without them. */
lf_status lf_subst_network_blocks(const char *name, int32_t input_size, int32_t blocks, lf_graph **out);
const char *const *lf_subst_network_names(void); /* NULL-terminated */
/* The benchmarks' network lists (search/subst/network_spec.c): "NAME" (a
 * substitution network above at its default size, else a built-in network of
 * models/registry.h) or "NAME:BLOCKS" (a substitution network with BLOCKS
 * blocks). _check reads the form alone (LF_EINVAL "'SPEC': blocks must be 1
 * to 64"); *blocks (may be NULL) is BLOCKS, 0 without. */
lf_status lf_subst_network_spec_check(const char *spec, int32_t *blocks);
lf_status lf_subst_network_spec(const char *spec, lf_graph **out, int32_t *blocks);
/* A comma-separated list of specs (empty items skipped) into specs[max]:
 * LF_EINVAL "1 to MAX networks", a malformed spec (above) or a name too long;
 * specs and *n are untouched then. */
#define LF_SUBST_SPEC_MAX 64
lf_status lf_subst_network_list(const char *list, char (*specs)[LF_SUBST_SPEC_MAX], int32_t max, int32_t *n);

/* ---- rule sets --------------------------------------------------------------- */

/* The built-in rule table (search/subst/rules_builtin.c). */
const lf_subst_rule *lf_subst_builtin_rules(int32_t *n);

/* Verifies r numerically: builds each example, applies the rule's first match
 * and compares source and result with the executor (tolerance 1e-4 of
 * DESIGN §10). *ok is 1 when every example passes; otherwise why holds the
 * reason. Returns an error status only for failures of the machinery (memory). */
lf_status lf_subst_verify(const lf_subst_rule *r, int *ok, char *why, size_t why_len);

/* ---- TASO's rule file ------------------------------------------------------------ */

typedef struct lf_taso_stats {
    int32_t loaded;            /* rules in the file */
    int32_t mapped;            /* rules whose ops all exist in the IR */
    int32_t unmapped_types;    /* rules with an op type the IR lacks */
    int32_t unmapped_split;    /* rules with a SPLIT (sized by TASO's concat history) */
    int32_t unmapped_weight;   /* rules whose source computes a conv weight (folded in the IR) */
    int32_t unmapped_act;      /* rules with a MatMul carrying a fused ReLU (the IR's has none) */
    int32_t unmapped_shape;    /* rules whose pattern the IR cannot express otherwise */
} lf_taso_stats;

/* A rule set: built-in rules and/or rules loaded from TASO's rule file, with
 * their verification results. */
typedef struct lf_subst_ruleset {
    int32_t n;
    const lf_subst_rule **rule;
    int32_t *enabled;          /* 0 after a failed verification */
    char **why;                /* per rule: NULL before verification, "ok" or the reason */
    int32_t n_builtin;         /* the first n_builtin rules are built in */
    struct lf_taso_stats *taso;/* TASO's rule file: counts (NULL when not loaded) */
    void *loaded_;             /* private: rules loaded from files */
    int32_t n_generated;       /* rules from the generated set (after the TASO file's) */
    void *generated_;          /* private: the generated rules */
} lf_subst_ruleset;

/* spec: comma-separated sources, "builtin", "taso" (TASO's generated rules
 * from taso_path, mapped onto the IR where its op types exist), "generated"
 * (the rule set fusionplan's own generator wrote, shipped with it and found
 * as the explainer weights are: lf_subst_generated_path) or "generated=FILE"
 * (a file `fusionplan rules --generate` wrote). */
lf_status lf_subst_ruleset_open(lf_subst_ruleset *rs, const char *spec, const char *taso_path);
/* The sources' names, NULL-terminated, in the order a set numbers their
 * rules: builtin, taso, generated (the table in ruleset.c). */
const char *const *lf_subst_rule_sources(void);
void lf_subst_ruleset_close(lf_subst_ruleset *rs); /* safe after a failed open */
/* Path of the shipped generated rule set (LF_SUBST_GENERATED_FILE):
 * $FUSIONPLAN_WEIGHTS_DIR, share/fusionplan/weights next to the executable or
 * above it, or the install prefix's; LF_EIO naming the folders otherwise. */
#define LF_SUBST_GENERATED_FILE "subst-rules-generated.bin"
lf_status lf_subst_generated_path(char *out, size_t len);
/* Verifies every rule, disabling those that fail; returns how many failed in *failed. */
lf_status lf_subst_ruleset_verify(lf_subst_ruleset *rs, int32_t *failed);

/* ---- generated rules (search/subst/rulegen*.c) ------------------------------------- */

/* TASO's generator (DESIGN §11): every graph of up to max_ops ops over the
 * op types `types` (comma-separated: conv, relu, concat, add, mul, matmul;
 * NULL for all) on 2-D matrices and on 4-D activations with conv weights,
 * fingerprinted on random integer inputs with the executor's op kernels;
 * graphs with equal fingerprints pair up into rules (both directions where
 * the source has no weight computation), rules that follow from a smaller
 * one by a common subgraph (on the input side, or the same op on top of two
 * equal operands) or from another by renaming variables are dropped, and
 * each survivor is verified numerically on three other shapes (lf_subst_verify).
 * The result is a rule collection in TASO's format (the loader's and
 * `--rules generated`'s). Deterministic for seed, with any thread count. */
typedef struct lf_subst_rulegen_opts {
    int32_t max_ops;   /* K, 1 to 5 (0: 3) */
    const char *types; /* NULL: all */
    uint64_t seed;
    int32_t threads;   /* <= 0: 1 */
} lf_subst_rulegen_opts;

typedef struct lf_subst_rulegen_stats {
    int64_t graphs;      /* graphs enumerated (one output each) */
    int64_t classes;     /* fingerprints two or more graphs share */
    int64_t pairs;       /* ordered pairs of graphs with equal fingerprints */
    int64_t pruned_common;   /* pairs dropped for a common subgraph */
    int64_t pruned_renaming; /* pairs equal to an earlier one up to renaming */
    int64_t candidates;  /* rules verified */
    int64_t failed;      /* of those, failed verification (fingerprint collisions) */
    int64_t pruned_merged;   /* verified rules another gives by merging variables */
    int64_t rules;       /* rules written */
} lf_subst_rulegen_stats;

lf_status lf_subst_rulegen(const lf_subst_rulegen_opts *o, uint8_t **buf, size_t *len,
                           lf_subst_rulegen_stats *stats);

/* How many rules of the collection `ref` (e.g. TASO's file) that the IR can
 * map are in `gen` up to renaming and the operand order of Add and Mul, or
 * are a rule of gen with some variables merged (*merged of *found: the
 * generator drops those, since the general rule matches wherever they do).
 * *mappable and *found receive the counts; for the first max_missing
 * mappable rules not found, missing[i] is the rule's index in ref and
 * why[i] the reason (a static string). */
lf_status lf_subst_rules_cover(const uint8_t *gen, size_t gen_len, const uint8_t *ref, size_t ref_len,
                               int32_t *mappable, int32_t *found, int32_t *merged, int32_t *missing,
                               const char **why, int32_t max_missing, int32_t *n_missing);

/* ---- cost functions (search/subst/cost.c) ------------------------------------------ */

typedef enum lf_subst_objective {
    LF_OBJ_TIME = 0, LF_OBJ_FLOPS, LF_OBJ_BYTES, LF_OBJ_KERNELS, LF_OBJ_DRAM,
    LF_OBJ_ENERGY,  /* the exact energy optimum of the fusion plan (planner/cost/objective.h) */
    LF_OBJ_LATENCY, /* the exact latency optimum of the fusion plan */
    LF_OBJ_COUNT
} lf_subst_objective;

/* 1 for the fusion-aware objectives (dram, energy, latency): each candidate
 * graph is planned exactly (lf_subst_cost with_dram). */
int lf_subst_objective_fused(lf_subst_objective o);

const char *lf_subst_objective_name(lf_subst_objective o);
lf_subst_objective lf_subst_objective_from_name(const char *s); /* LF_OBJ_COUNT when unknown */

/* Every dimension of a graph's cost. */
typedef struct lf_subst_costs {
    double time_s;   /* sum over kernels of the roofline max(flops/peak, bytes/bw) + launch, or
                        the measured time where the coster has one (op_time) */
    double flops;
    double bytes;    /* bytes read and written by kernels (weights included) */
    double kernels;  /* kernel launches */
    double dram;     /* exact fusion optimum at the buffer (all ops), -1 when not computed */
    double energy_pj, latency_s; /* the energy or latency optimum over all ops when the objective
                                    is energy or latency (its plan's DRAM is dram), -1 otherwise */
} lf_subst_costs;

typedef struct lf_subst_coster {
    lf_subst_objective objective;
    const void *hw;            /* const lf_hw * (hwdesc/hw.h) */
    const char *scheme;        /* cost model of the dram objective: "lbdf" or "brr" */
    double peak_flops, bandwidth, launch_s; /* from <gpu>, or the defaults */
    int32_t elem_bytes;        /* bytes per element for the roofline (4: fp32) */
    double exact_time_limit_s; /* per candidate graph of the dram objective */
    /* Measured op times (DESIGN §12), NULL for the roofline alone: when set,
     * an op's time is op_time(op_time_ctx, g, v) wherever that is >= 0, its
     * roofline elsewhere (planner/gpu/opcost.h: lf_gpu_op_time_hook with an
     * lf_gpu_profiler; it must be safe to call from several threads). */
    double (*op_time)(void *ctx, const lf_graph *g, int32_t v);
    void *op_time_ctx;
} lf_subst_coster;

/* Roofline figures when the hardware has no <gpu> section or leaves one out. */
#define LF_SUBST_DEFAULT_PEAK 15.7e12   /* FLOP/s (a V100's FP32 peak) */
#define LF_SUBST_DEFAULT_BW 900e9       /* bytes/s */
#define LF_SUBST_DEFAULT_LAUNCH 5e-6    /* s per kernel */

void lf_subst_coster_init(lf_subst_coster *c, lf_subst_objective o, const void *hw, const char *scheme);
/* Computes every dimension; the exact DRAM only when with_dram (it solves a
 * planning problem). */
lf_status lf_subst_cost(const lf_subst_coster *c, const lf_graph *g, int with_dram, lf_subst_costs *out);
/* One op's share of lf_subst_cost (dram -1): nothing for views and free
 * concats, else its FLOPs, bytes, one kernel and its roofline time with the
 * launch. op may be a synthetic op that is not in g (a merged conv of the
 * scheduler) as long as its inputs are ops of g. */
void lf_subst_op_cost(const lf_subst_coster *c, const lf_graph *g, const lf_op *op, lf_subst_costs *out);
/* One op's share of lf_subst_cost: returns 1 and its FLOPs, bytes and
 * roofline time (launch included) when it runs a kernel, 0 (and zeros) for
 * ops that cost nothing: views, slices, a free concat. */
int lf_subst_op_roofline(const lf_subst_coster *c, const lf_graph *g, int32_t v, double *flops, double *bytes,
                         double *time_s);
/* The objective's value of costs. */
double lf_subst_cost_value(const lf_subst_coster *c, const lf_subst_costs *k);

/* ---- searches (search/subst/search.c, backtrack.c, enum.c, split.c) --------------- */

/* prune, dpp, sample: OCGGS's Algorithms 1, 2 and 3 (labels.c, prune.c,
 * dpp.c, sample.c) over sequences of at most max_steps substitutions. */
typedef enum lf_subst_search {
    LF_SEARCH_BACKTRACK = 0, LF_SEARCH_ENUM, LF_SEARCH_SPLIT,
    LF_SEARCH_PRUNE, LF_SEARCH_DPP, LF_SEARCH_SAMPLE, LF_SEARCH_COUNT
} lf_subst_search;
const char *lf_subst_search_name(lf_subst_search s);
lf_subst_search lf_subst_search_from_name(const char *s);

typedef struct lf_subst_options {
    lf_subst_search search;
    double alpha;              /* backtrack: enqueue when cost < alpha * best (default 1.05) */
    int64_t budget;            /* graphs expanded (default 1000) */
    int32_t max_len;           /* enum: sequence length K (default 3) */
    int32_t split_size;        /* split: parts of at most this many ops (default 30) */
    uint64_t seed;             /* values of the final numeric check */
    int32_t threads;           /* OpenMP threads over the candidates of an expansion (0, 1: one);
                                  results do not depend on it */
    int32_t skip_check;        /* 1: return the search's shape-only graph unchecked (benchmarks
                                  that write nothing); 0: replay on values and check */
    const uint8_t *rule_mask;  /* NULL: every enabled rule; else rule k of the set is tried only
                                  where rule_mask[k] != 0 (the GSO filter, search/subst/gso) */
    /* OCGGS (prune, dpp, sample) */
    int32_t max_steps;         /* K: longest sequence (default 10) */
    double time_limit_s;       /* wall-clock cap of the search, 0: none. prune, dpp and enum
                                  then fail with LF_ELIMIT ("no result", as OCGGS reports its
                                  exact searches); the others return the best found so far */
    int32_t sample_size;       /* sample: Q (default 20) */
    int32_t eta;               /* sample: most successive cost-increasing steps (default 1) */
    int32_t time_limit_cpu;    /* 1: time_limit_s counts the process's CPU time instead of the
                                  wall clock (reproducible caps on a shared machine) */
    int32_t bt_max_steps;      /* backtrack, split: longest sequence of a search phase (split:
                                  of each part and of the boundary pass), 0: unbounded (default;
                                  OCGGS's Table 3 bounds its baselines by K as well) */
} lf_subst_options;

/* 1 when the search may try rule k of rs under o (enabled and not masked
 * out): the one test every search makes before matching a rule. */
int lf_subst_rule_active(const lf_subst_ruleset *rs, const lf_subst_options *o, int32_t k);

/* The op types g holds (bit LF_SUBST_TYPE(t)), and whether rule r can
 * match a graph holding only those (every source node accepts one of them):
 * the searches drop the rules that cannot, once per graph, before matching
 * (type_filter.c). */
uint64_t lf_subst_graph_types(const lf_graph *g);
int lf_subst_rule_possible(const lf_subst_rule *r, uint64_t types);

void lf_subst_options_default(lf_subst_options *o);

typedef struct lf_subst_step {
    int32_t rule;              /* index in the rule set */
    char *ops;                 /* names of the replaced ops, comma-separated */
} lf_subst_step;

typedef struct lf_subst_result {
    lf_graph *graph;           /* the best graph found (owned) */
    lf_subst_costs before, after;
    int32_t n_steps;
    lf_subst_step *steps;      /* the applied sequence */
    int64_t expanded, generated, deduplicated, rejected;
    int32_t parts;             /* split: parts searched */
    double wall_s;             /* everything: search, replay on values, check */
    double search_s;           /* the search alone */
    int64_t peak_graphs;       /* most graphs held at once (queue and best) */
    double max_err;            /* numeric check of the result against the input */
    /* OCGGS statistics (sequences and reused: prune, dpp, sample; 0 for the others) */
    int64_t sequences;         /* substitution sequences examined (graphs built and costed) */
    int64_t reused;            /* dpp, sample: candidate steps carried over from the parent
                                  without re-matching */
    int64_t peak_heap;         /* peak heap bytes in use by the search above its start
                                  (glibc mallinfo2, sampled at every new graph, every search;
                                  -1: not measurable) */
    int32_t timed_out;         /* the time cap ended the search (best-so-far searches) */
    double search_cpu_s;       /* CPU time of the process during the search (on a shared
                                  machine, what search_s would be on an idle one for the
                                  one-thread searches) */
} lf_subst_result;

void lf_subst_result_destroy(lf_subst_result *r);

/* Searches for a cheaper graph equivalent to g under the enabled rules of rs,
 * then replays the applied sequence on g with values (its own or generated
 * from o->seed) and checks the result against g with the executor (DESIGN
 * §10 tolerance) before returning it. */
lf_status lf_subst_optimize(const lf_graph *g, const lf_subst_ruleset *rs, const lf_subst_coster *c,
                            const lf_subst_options *o, lf_subst_result *res);

#endif

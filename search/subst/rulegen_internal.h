/* The rule generator's pieces (rulegen_enum.c, rulegen.c, rulegen_key.c). */
#ifndef LF_RULEGEN_INTERNAL_H
#define LF_RULEGEN_INTERNAL_H

#include <stdint.h>

#include "search/subst/subst.h"

/* TASO's op type numbers, which the rule file keeps. */
enum { LF_RG_CONV = 3, LF_RG_RELU = 8, LF_RG_CONCAT = 12, LF_RG_ADD = 16, LF_RG_MUL = 17, LF_RG_MATMUL = 18 };
enum { LF_RG_ACT = 0, LF_RG_WEIGHT = 1 };
#define LF_RG_MAXK 5
#define LF_RG_NV 7
#define LF_RG_NTYPES 6
extern const int32_t lf__rg_types[LF_RG_NTYPES];   /* conv relu concat add mul matmul */
extern const char *const lf__rg_type_names[LF_RG_NTYPES];

typedef struct lf__rg_config {
    int32_t max_ops;
    uint32_t types;       /* bit t: lf__rg_types[t] is used */
    uint64_t seed;
} lf__rg_config;

/* An op: type, parameter (Conv: fused ReLU; Concat: axis) and operands (>= 0
 * an earlier op, < 0 variable -1 - ref). */
typedef struct lf__rg_op {
    int8_t type, param, in[2];
} lf__rg_op;

typedef struct lf__rg_graph {
    int8_t n, world;
    lf__rg_op op[LF_RG_MAXK];
} lf__rg_graph;

typedef struct lf__rg_rec {
    uint64_t fp;   /* hash of the sink's shape and values */
    uint64_t key;  /* structural hash of the sink (unique per graph) */
    lf__rg_graph g;
} lf__rg_rec;

typedef struct lf__rg_recs {
    int64_t n, cap;
    lf__rg_rec *r;
} lf__rg_recs;

/* Appends; 1 when out of memory. */
int lf__rg_recs_push(lf__rg_recs *rs, const lf__rg_rec *r);

uint64_t lf__rg_var_hash(int32_t v);
uint64_t lf__rg_op_hash(int32_t type, int32_t param, const uint64_t *in, int32_t n_in);
int32_t lf__rg_world_vars(int32_t world);
int32_t lf__rg_var_kind(int32_t world, int32_t v);
lf_shape lf__rg_var_shape(int32_t world, int32_t v);
int lf__rg_attrs(int32_t world, const lf__rg_op *o, const lf_shape *in, lf_attrs *a);
lf_op_type lf__rg_ir_type(int32_t t);
void lf__rg_fill(uint64_t seed, int32_t world, int32_t v, float *out, int64_t n);
uint64_t lf__rg_fingerprint(lf_shape s, const float *x, int64_t n);
int32_t lf__rg_candidates(const lf__rg_config *cfg, int32_t world, int32_t n_ops, lf__rg_op *out, int32_t max);
/* Every graph whose first op is `first` (a candidate at n_ops 0). */
lf_status lf__rg_enumerate_root(const lf__rg_config *cfg, int32_t world, lf__rg_op first,
                                const float *const *var_val, lf__rg_recs *out);

/* A rule: source and target graph over the same variables; each side's last
 * op is its one output. */
typedef struct lf__rg_rule {
    lf__rg_graph src, dst;
} lf__rg_rule;

/* Hash of r that is the same under any renaming of its activations among
 * themselves and of its weights among themselves (and any operand order of
 * Add and Mul). */
uint64_t lf__rg_rule_key(const lf__rg_rule *r);
/* Appends the keys of every rule that merges some of r's variables. */
int lf__rg_merged_keys(const lf__rg_rule *r, uint64_t **keys, int64_t *n, int64_t *cap);
/* Serializes rules in TASO's format (taso_rules.proto); *buf is malloc'd. */
lf_status lf__rg_pack(const lf__rg_rule *rules, int64_t n, uint8_t **buf, size_t *len);
/* A TASO rule (a TasoRules__Rule) as a generated rule; NULL, or why it
 * cannot be one. */
const char *lf__rg_from_taso(const void *taso_rule, lf__rg_rule *r);
const char *lf__rg_unpack_each(const uint8_t *data, size_t len, void **collection, int64_t *n);
const void *lf__rg_collection_rule(void *collection, int64_t i);
void lf__rg_collection_free(void *collection);

#endif

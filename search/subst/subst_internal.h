/* Internals shared by search/subst's files: the rule table's pieces. */
#ifndef LF_SUBST_INTERNAL_H
#define LF_SUBST_INTERNAL_H

#include "search/subst/subst.h"

/* The rule being applied (targets read rule-private data through it). */
const lf_subst_rule *lf__subst_t_rule(const lf_subst_tctx *t);

/* Example builders of the built-in rules (rules_examples.c). Shapes vary
 * with k (0, 1, 2); constants carry values drawn from (k, name). */
lf_status lf__ex_conv_act(const lf_subst_rule *r, int32_t k, lf_graph_builder *b);
lf_status lf__ex_gemm_act(const lf_subst_rule *r, int32_t k, lf_graph_builder *b);
lf_status lf__ex_conv_bn(const lf_subst_rule *r, int32_t k, lf_graph_builder *b);
lf_status lf__ex_conv_scale(const lf_subst_rule *r, int32_t k, lf_graph_builder *b); /* Mul and Add */
lf_status lf__ex_two_convs(const lf_subst_rule *r, int32_t k, lf_graph_builder *b);
lf_status lf__ex_one_conv(const lf_subst_rule *r, int32_t k, lf_graph_builder *b);
lf_status lf__ex_two_gemms(const lf_subst_rule *r, int32_t k, lf_graph_builder *b);
lf_status lf__ex_two_matmuls(const lf_subst_rule *r, int32_t k, lf_graph_builder *b);
lf_status lf__ex_concat_convs(const lf_subst_rule *r, int32_t k, lf_graph_builder *b);
lf_status lf__ex_residual(const lf_subst_rule *r, int32_t k, lf_graph_builder *b);

/* What an activation-epilogue rule fuses: the op type and the act it becomes. */
typedef struct lf__subst_act {
    lf_op_type producer; /* LF_OP_CONV or LF_OP_GEMM */
    lf_op_type op;
    lf_act act;
} lf__subst_act;



/* TASO's rule file (taso_load.c): loads and maps the rules of path onto the
 * IR. *out receives the mapped rules (malloc'd array, freed with
 * lf__taso_free), st the counts. */
typedef struct lf__taso_rules lf__taso_rules;
lf_status lf__taso_load(const char *path, lf__taso_rules **out, lf_taso_stats *st);
int32_t lf__taso_count(const lf__taso_rules *t);
const lf_subst_rule *lf__taso_rule(const lf__taso_rules *t, int32_t i);
void lf__taso_free(lf__taso_rules *t);
/* As lf__taso_load from a serialized collection in memory: `what` names it in
 * errors; rules are named PREFIX_NNN (their index in the collection) with
 * origin `origin` (kept by pointer: a string literal). */
lf_status lf__taso_load_mem(const uint8_t *data, size_t len, const char *what, const char *prefix,
                            const char *origin, lf__taso_rules **out, lf_taso_stats *st);
#endif

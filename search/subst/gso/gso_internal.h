/* Internals shared by search/subst/gso's files. */
#ifndef LF_SUBST_GSO_INTERNAL_H
#define LF_SUBST_GSO_INTERNAL_H

#include "search/subst/gso/gso.h"

/* Allocates the arrays of a dataset of n_graphs graphs over n_rules rules
 * (names and graphs still empty); lf_gso_dataset_destroy frees it. */
lf_status lf__gso_dataset_alloc(lf_gso_dataset *d, int32_t n_rules, int32_t n_graphs);

/* The model of a rule that never matched a training graph: every node
 * scores sigmoid(-8) = 3e-4 (weights 0, output bias -8). Such models are
 * stored in weight files as their name alone. */
void lf__gso_never(lf_gso_kind k, float *p);

#endif

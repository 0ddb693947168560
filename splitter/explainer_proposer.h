/* Any explainer of explain/ as an edge proposer of the tree splitter
 * (DESIGN §8, §9): the group is featurised with the cost model's beta and
 * hardware, standardised with the GNN's normaliser, explained, and the top k
 * edges (ties by (u, v)) are returned as op-id pairs. The splitter depends
 * on explain/, never the reverse, so the adapter lives here. */
#ifndef LF_SPLITTER_EXPLAINER_PROPOSER_H
#define LF_SPLITTER_EXPLAINER_PROPOSER_H

#include "explain/explainer.h"
#include "splitter/proposer.h"

/* Wraps e as a proposer named after it. Borrows e and m: both must outlive
 * the proposer. propose() fails with LF_EINVAL when the GNN was trained for
 * another cost scheme than the cost model's. */
lf_status lf_proposer_from_explainer(lf_proposer **out, const lf_explainer *e, const lf_gnn *m);

#endif

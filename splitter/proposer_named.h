/* Edge proposers by name: the analytic ones (all, random, attrib) and the GNN
 * explainers (gnne, pg, rg, saliency, occlusion), which need the trained GNN
 * and, for pg and rg, their own weights. Weight files default to the ones
 * shipped in explain/weights/ for the cost model's scheme. Used by the CLI
 * and by the sweep runner (search/sweep), which resolve proposers by name. */
#ifndef LF_SPLITTER_PROPOSER_NAMED_H
#define LF_SPLITTER_PROPOSER_NAMED_H

#include "splitter/explainer_proposer.h"
#include "planner/cost/cost.h"
#include "splitter/splitter.h"

/* Every proposer name, NULL-terminated, in the order help texts list them:
 * the analytic ones (splitter/proposer.h), then the explainers
 * (lf_names(LF_NAMES_PROPOSER) hands this list out). */
const char *const *lf_named_proposer_names(void);

/* A proposer with whatever it needs kept alive. */
typedef struct lf_named_proposer {
    const lf_proposer *proposer;
    lf_proposer *wrapped;
    lf_explainer *owned;
    const lf_explainer *explainer;
    lf_gnn gnn;
    lf_pgx pg;
    lf_rgx rg;
    int have_gnn, have_pg, have_rg;
} lf_named_proposer;

/* LF_OK when `name` is a proposer lf_named_proposer_open accepts: a name
 * above, GNNExplainer with settings as "gnne:KEY=VALUE[:KEY=VALUE]..."
 * (epochs: Adam iterations, 100; patience: stop once the ranking has held
 * that many iterations, 0 = never; top: with patience, only the first places
 * count, 0 = all); otherwise LF_EINVAL with a message naming the fault. */
lf_status lf_named_proposer_check(const char *name);
/* 1 when lf_named_proposer_check accepts `name`. */
int lf_named_proposer_known(const char *name);

/* Opens proposer `name` for cost model cm. NULL paths mean the shipped
 * weights. On failure np is left empty (safe to close). */
lf_status lf_named_proposer_open(lf_named_proposer *np, const char *name, lf_cost_model *cm,
                                 const char *gnn_path, const char *pg_path, const char *rg_path);
void lf_named_proposer_close(lf_named_proposer *np);

#endif

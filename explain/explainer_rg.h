/* Internal layout of the RG-Explainer's parameters, shared by
 * rgexplainer.c (init, files, explainer) and rgexplainer_train.c (policy,
 * locator, episodes, training). Not part of the public API. */
#ifndef LF_EXPLAIN_EXPLAINER_RG_H
#define LF_EXPLAIN_EXPLAINER_RG_H

#include "explain/explainer.h"

/* Views into the policy's part of a flat vector (params + n_loc, or a
 * gradient laid out the same way). */
typedef struct lf_rgx_pol {
    float *ws, *wn;      /* H each: z_seed and z_sel weights */
    float *wa, *ba;      /* H x F, H: node features */
    float *R[2], *r[2];  /* residual blocks: H x H, H */
    float *wnode, *watt; /* H each: candidate score, attention */
    float *wstop;        /* 2 x H: [continue; stop] */
} lf_rgx_pol;

void lf__rg_pol_view(const lf_rgx *p, float *flat, lf_rgx_pol *v);
int64_t lf__rg_loc_count(int32_t d);
int64_t lf__rg_pol_count(void);
/* Locator score of a node with embedding nv in a group with readout gemb;
 * with grad and gs != 0, accumulates gs * d score / d locator parameters. */
double lf__rg_loc_node(const lf_rgx *p, const float *nv, const float *gemb, double gs,
                       float *grad);

#endif

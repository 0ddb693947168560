/* The GSO training set by augmentation (GSO §3.3): every graph is a base
 * network after a random mix of substitution steps (the intermediate graphs
 * a search walks through: a random applicable match of a random rule) and
 * random perturbations (perturb.c). Labels come from the matcher: node v of
 * a graph is 1 for rule r when some match of r uses v. Graph i draws from
 * its own random stream, so the set does not depend on the thread count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/util/rng.h"
#include "search/subst/gso/gso_internal.h"

static const char *const lf__default_networks[] = {
    "alexnet", "vgg16", "resnet18", "resnet34", "resnet50", "squeezenet1_1", "mobilenet_v2",
    "inception_e", "inception_e13", "sru", NULL};

void lf_gso_dataset_options_default(lf_gso_dataset_options *o)
{
    memset(o, 0, sizeof *o);
    o->n_graphs = 2000;
    o->n_train = 1500;
    o->seed = 1;
    o->threads = 1;
}

/* A base network, shape-only: a substitution benchmark network or a built-in model. */
static lf_status lf__base(const char *name, lf_graph **out)
{
    lf_graph *g = NULL;
    lf_status st = LF_ENOTFOUND;
    for (const char *const *n = lf_subst_network_names(); *n; n++)
        if (strcmp(*n, name) == 0)
            st = lf_subst_network(name, 0, &g);
    if (st == LF_ENOTFOUND) {
        lf_model_options mo = {0, 1};
        st = lf_model_build(name, &mo, &g);
    }
    if (st)
        return st;
    st = lf_subst_strip(g, out);
    lf_graph_free(g);
    return st;
}

/* One random substitution step on *g (replaced); LF_ENOTFOUND when no match applies. */
static lf_status lf__rewrite_step(const lf_subst_ruleset *rs, lf_rng *rng, lf_graph **g)
{
    for (int tries = 0; tries < 8; tries++) {
        /* a random rule among those that match, then a random match of it */
        int32_t start = (int32_t)lf_rng_below(rng, (uint32_t)rs->n);
        for (int32_t d = 0; d < rs->n; d++) {
            int32_t k = (start + d) % rs->n;
            if (!rs->enabled[k])
                continue;
            lf_subst_matches ms = {0, 0, NULL};
            lf_status st = lf_subst_find(*g, rs->rule[k], &ms);
            if (st || ms.n == 0) {
                lf_subst_matches_free(&ms);
                if (st)
                    return st;
                continue;
            }
            lf_graph *next = NULL;
            st = lf_subst_apply(*g, rs->rule[k], &ms.m[lf_rng_below(rng, (uint32_t)ms.n)], &next);
            lf_subst_matches_free(&ms);
            if (st == LF_ENOMEM)
                return st;
            if (st == LF_OK) {
                lf_graph_free(*g);
                *g = next;
                return LF_OK;
            }
            break; /* rejected (shape, cycle): draw again */
        }
    }
    return LF_ENOTFOUND;
}

/* Labels of g: n_rules x n, rule-major. */
static lf_status lf__labels(const lf_graph *g, const lf_subst_ruleset *rs, uint8_t *lab)
{
    memset(lab, 0, (size_t)rs->n * (size_t)g->n_ops);
    for (int32_t k = 0; k < rs->n; k++) {
        if (!rs->enabled[k])
            continue;
        lf_subst_matches ms = {0, 0, NULL};
        lf_status st = lf_subst_find(g, rs->rule[k], &ms);
        for (int32_t j = 0; j < ms.n; j++)
            for (int32_t i = 0; i < rs->rule[k]->n_nodes; i++)
                lab[(int64_t)k * g->n_ops + ms.m[j].op[i]] = 1;
        lf_subst_matches_free(&ms);
        if (st)
            return st;
    }
    return LF_OK;
}

/* Graph i of the set from its base. */
static lf_status lf__make(const lf_subst_ruleset *rs, const lf_gso_dataset_options *o, const lf_graph *base,
                          const char *base_name, int32_t i, lf_gso_graph *gg, uint8_t **labels, char **origin)
{
    lf_rng rng;
    lf_rng_seed(&rng, o->seed, (uint64_t)i + 1);
    lf_graph *g = NULL;
    lf_status st = lf_subst_strip(base, &g);
    /* a few base networks stay as they are; the rest get 1-6 edits */
    int32_t steps = i < 20 ? 0 : 1 + (int32_t)lf_rng_below(&rng, 6);
    int32_t rewrites = 0, perturbs = 0;
    for (int32_t s = 0; s < steps && !st; s++) {
        lf_status e;
        if (lf_rng_bernoulli(&rng, 0.5)) {
            e = lf__rewrite_step(rs, &rng, &g);
            rewrites += e == LF_OK;
        } else {
            lf_graph *next = NULL;
            e = lf_gso_perturb(g, -1, &rng, &next);
            if (e == LF_OK) {
                lf_graph_free(g);
                g = next;
                perturbs++;
            }
        }
        if (e == LF_ENOMEM)
            st = e;
    }
    if (!st)
        st = lf_gso_graph_init(gg, g);
    if (!st && !(*labels = malloc((size_t)(rs->n ? rs->n : 1) * (size_t)(g->n_ops ? g->n_ops : 1))))
        st = lf_set_error(LF_ENOMEM, "gso dataset: out of memory");
    if (!st)
        st = lf__labels(g, rs, *labels);
    if (!st) {
        char buf[160];
        snprintf(buf, sizeof buf, "%s+%dr+%dp", base_name, (int)rewrites, (int)perturbs);
        if (!(*origin = malloc(strlen(buf) + 1)))
            st = lf_set_error(LF_ENOMEM, "gso dataset: out of memory");
        else
            memcpy(*origin, buf, strlen(buf) + 1);
    }
    lf_graph_free(g);
    return st;
}

void lf_gso_dataset_destroy(lf_gso_dataset *d)
{
    if (!d)
        return;
    for (int32_t k = 0; d->rules && k < d->n_rules; k++)
        free(d->rules[k]);
    for (int32_t i = 0; i < d->n_graphs; i++) {
        if (d->g)
            lf_gso_graph_destroy(&d->g[i]);
        if (d->labels)
            free(d->labels[i]);
        if (d->origin)
            free(d->origin[i]);
    }
    free(d->rules);
    free(d->g);
    free(d->labels);
    free(d->origin);
    memset(d, 0, sizeof *d);
}

lf_status lf__gso_dataset_alloc(lf_gso_dataset *d, int32_t n_rules, int32_t n_graphs)
{
    memset(d, 0, sizeof *d);
    d->rules = calloc((size_t)(n_rules ? n_rules : 1), sizeof *d->rules);
    d->g = calloc((size_t)(n_graphs ? n_graphs : 1), sizeof *d->g);
    d->labels = calloc((size_t)(n_graphs ? n_graphs : 1), sizeof *d->labels);
    d->origin = calloc((size_t)(n_graphs ? n_graphs : 1), sizeof *d->origin);
    if (!d->rules || !d->g || !d->labels || !d->origin) {
        lf_gso_dataset_destroy(d);
        return lf_set_error(LF_ENOMEM, "gso dataset: out of memory for %d graphs", (int)n_graphs);
    }
    d->n_rules = n_rules;
    d->n_graphs = n_graphs;
    return LF_OK;
}

lf_status lf_gso_dataset_build(lf_gso_dataset *d, const lf_subst_ruleset *rs,
                               const lf_gso_dataset_options *o,
                               void (*progress)(void *user, int32_t done, int32_t total), void *user)
{
    memset(d, 0, sizeof *d);
    if (o->n_graphs < 1 || o->n_train < 1 || o->n_train > o->n_graphs)
        return lf_set_error(LF_EINVAL, "gso dataset: %d graphs with %d for training", (int)o->n_graphs,
                            (int)o->n_train);
    const char *const *nets = o->networks ? o->networks : lf__default_networks;
    int32_t nn = 0;
    while (nets[nn])
        nn++;
    if (nn == 0)
        return lf_set_error(LF_EINVAL, "gso dataset: no base networks");
    lf_graph **base = calloc((size_t)nn, sizeof *base);
    if (!base)
        return lf_set_error(LF_ENOMEM, "gso dataset: out of memory");
    lf_status st = LF_OK;
    for (int32_t k = 0; k < nn && !st; k++)
        st = lf__base(nets[k], &base[k]);
    if (!st)
        st = lf__gso_dataset_alloc(d, rs->n, o->n_graphs);
    for (int32_t k = 0; k < rs->n && !st; k++) {
        size_t len = strlen(rs->rule[k]->name);
        if (!(d->rules[k] = malloc(len + 1)))
            st = lf_set_error(LF_ENOMEM, "gso dataset: out of memory");
        else
            memcpy(d->rules[k], rs->rule[k]->name, len + 1);
    }
    if (!st) {
        d->n_train = o->n_train;
        lf_status *sts = calloc((size_t)o->n_graphs, sizeof *sts);
        if (!sts)
            st = lf_set_error(LF_ENOMEM, "gso dataset: out of memory");
        int32_t done = 0, nt = o->threads > 0 ? o->threads : 1;
        (void)nt;
        char msg[512] = "";
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic) if (nt > 1)
#endif
        for (int32_t i = 0; i < (sts ? o->n_graphs : 0); i++) {
            sts[i] = lf__make(rs, o, base[i % nn], nets[i % nn], i, &d->g[i], &d->labels[i], &d->origin[i]);
#ifdef _OPENMP
#pragma omp critical /* unnamed: a named one is a global symbol of the library */
#endif
            {
                if (sts[i] && !msg[0])
                    snprintf(msg, sizeof msg, "%s", lf_last_error());
                done++;
                if (progress)
                    progress(user, done, o->n_graphs);
            }
        }
        for (int32_t i = 0; sts && i < o->n_graphs && !st; i++)
            if (sts[i])
                st = lf_set_error(sts[i], "gso dataset: graph %d: %s", (int)i, msg);
        free(sts);
    }
    for (int32_t k = 0; k < nn; k++)
        lf_graph_free(base[k]);
    free(base);
    if (st)
        lf_gso_dataset_destroy(d);
    return st;
}

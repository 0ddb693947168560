/* Edge proposers by name (see proposer_named.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitter/proposer_named.h"
#include "explain/weights.h"
#include "explain/weights_dir.h"
#include "splitter/explainer_proposer.h"

/* The GNN explainers as proposers, in the order help texts list them: one
 * row each, naming lf__open_NAME below. With LF_PROPOSERS_ANALYTIC
 * (splitter/proposer.h) they make the list the registry hands out
 * (lf_names(LF_NAMES_PROPOSER)). */
#define LF__EXPLAINERS(X) X(gnne) X(pg) X(rg) X(saliency) X(occlusion)

#define LF__NAME(n) #n,
static const char *const lf__names[] = {LF_PROPOSERS_ANALYTIC(LF__NAME) LF__EXPLAINERS(LF__NAME) NULL};
static const char *const lf__explainer_names[] = {LF__EXPLAINERS(LF__NAME)};
#undef LF__NAME

const char *const *lf_named_proposer_names(void) { return lf__names; }

/* The explainer's row, -1 for another name. */
static int lf__explainer(const char *name)
{
    for (int i = 0; i < (int)(sizeof lf__explainer_names / sizeof *lf__explainer_names); i++)
        if (strcmp(name, lf__explainer_names[i]) == 0)
            return i;
    return -1;
}

/* Splits "NAME[:KEY=VALUE]..." into the base name and GNNExplainer's
 * settings (the only proposer with any: its iteration count and early stop
 * trade the paper's result for time, so a user may want both side by side,
 * as `compare --proposer gnne,gnne:epochs=20`). */
static lf_status lf__parse(const char *name, char *base, size_t len, lf_gnne_config *gc)
{
    lf_gnne_config_default(gc);
    const char *colon = strchr(name, ':');
    size_t n = colon ? (size_t)(colon - name) : strlen(name);
    if (n >= len)
        return lf_set_error(LF_EINVAL, "unknown proposer '%s'", name);
    memcpy(base, name, n);
    base[n] = '\0';
    if (!colon)
        return LF_OK;
    if (strcmp(base, "gnne") != 0)
        return lf_set_error(LF_EINVAL, "proposer '%s' takes no parameters (in '%s')", base, name);
    for (const char *p = colon + 1;;) {
        const char *end = strchr(p, ':');
        size_t k = end ? (size_t)(end - p) : strlen(p);
        char item[64], *eq, *stop;
        if (k == 0 || k >= sizeof item)
            return lf_set_error(LF_EINVAL, "bad parameter in proposer '%s': expected KEY=VALUE", name);
        memcpy(item, p, k);
        item[k] = '\0';
        if (!(eq = strchr(item, '=')) || eq[1] == '\0')
            return lf_set_error(LF_EINVAL, "bad parameter '%s' in proposer '%s': expected KEY=VALUE",
                                item, name);
        *eq = '\0';
        long v = strtol(eq + 1, &stop, 10);
        if (*stop != '\0' || v < 0 || v > 100000)
            return lf_set_error(LF_EINVAL, "parameter '%s' of proposer '%s' must be an integer in [0, 100000]",
                                item, name);
        if (strcmp(item, "epochs") == 0)
            gc->epochs = (int32_t)v;
        else if (strcmp(item, "patience") == 0)
            gc->patience = (int32_t)v;
        else if (strcmp(item, "top") == 0)
            gc->top = (int32_t)v;
        else
            return lf_set_error(LF_EINVAL, "unknown parameter '%s' of proposer '%s' (gnne takes epochs, "
                                           "patience and top)", item, name);
        if (!end)
            return LF_OK;
        p = end + 1;
    }
}

lf_status lf_named_proposer_check(const char *name)
{
    char base[32];
    lf_gnne_config gc;
    const lf_proposer *p;
    lf_status st = lf__parse(name, base, sizeof base, &gc);
    if (st == LF_OK && lf__explainer(base) < 0 && lf_proposer_find(base, &p) != LF_OK)
        st = lf_set_error(LF_EINVAL, "unknown proposer '%s'", name);
    return st;
}

int lf_named_proposer_known(const char *name) { return lf_named_proposer_check(name) == LF_OK; }

/* The shipped weight file `kind`-`scheme`.bin, or the user's path; NULL (with
 * the message set) when the shipped file cannot be found. */
static const char *lf__weights_path(char *buf, size_t len, const char *given, const char *kind,
                                    const char *scheme)
{
    if (given)
        return given;
    char file[64];
    snprintf(file, sizeof file, "%s-%s.bin", kind, scheme);
    return lf_weights_find(file, buf, len) == LF_OK ? buf : NULL;
}

/* What an explainer's opening needs besides the GNN, loaded before. */
typedef struct lf__open_args {
    const lf_gnne_config *gc;
    const char *scheme, *pg_path, *rg_path;
} lf__open_args;

static lf_status lf__open_saliency(lf_named_proposer *cp, const lf__open_args *a)
{
    (void)a;
    cp->explainer = lf_explainer_saliency();
    return LF_OK;
}

static lf_status lf__open_occlusion(lf_named_proposer *cp, const lf__open_args *a)
{
    (void)a;
    cp->explainer = lf_explainer_occlusion();
    return LF_OK;
}

static lf_status lf__open_gnne(lf_named_proposer *cp, const lf__open_args *a)
{
    lf_status st = lf_explainer_gnne_create(&cp->owned, a->gc);
    cp->explainer = cp->owned;
    return st;
}

static lf_status lf__open_pg(lf_named_proposer *cp, const lf__open_args *a)
{
    char buf[4096];
    const char *path = lf__weights_path(buf, sizeof buf, a->pg_path, "pg", a->scheme);
    lf_status st = path ? lf_pgx_load(&cp->pg, path) : LF_EIO;
    cp->have_pg = st == LF_OK;
    if (st == LF_OK)
        st = lf_explainer_pg_create(&cp->owned, &cp->pg);
    cp->explainer = cp->owned;
    return st;
}

static lf_status lf__open_rg(lf_named_proposer *cp, const lf__open_args *a)
{
    char buf[4096];
    const char *path = lf__weights_path(buf, sizeof buf, a->rg_path, "rg", a->scheme);
    lf_status st = path ? lf_rgx_load(&cp->rg, path) : LF_EIO;
    cp->have_rg = st == LF_OK;
    if (st == LF_OK)
        st = lf_explainer_rg_create(&cp->owned, &cp->rg);
    cp->explainer = cp->owned;
    return st;
}

#define LF__OPEN(n) lf__open_##n,
static lf_status (*const lf__opens[])(lf_named_proposer *cp, const lf__open_args *a) = {
    LF__EXPLAINERS(LF__OPEN)};
#undef LF__OPEN

lf_status lf_named_proposer_open(lf_named_proposer *cp, const char *name, lf_cost_model *cm,
                               const char *gnn_path, const char *pg_path, const char *rg_path)
{
    memset(cp, 0, sizeof *cp);
    char base[32];
    lf_gnne_config gc;
    lf_status st = lf__parse(name, base, sizeof base, &gc);
    if (st != LF_OK)
        return st;
    int row = lf__explainer(base);
    if (row < 0)
        return lf_proposer_find(base, &cp->proposer);
    lf__open_args a = {&gc, lf_cost_scheme_name(cm), pg_path, rg_path};
    char buf[4096];
    const char *path = lf__weights_path(buf, sizeof buf, gnn_path, "gnn", a.scheme);
    if (!path)
        return LF_EIO;
    st = lf_gnn_load(&cp->gnn, path, NULL);
    if (st != LF_OK)
        return st;
    cp->have_gnn = 1;
    st = lf__opens[row](cp, &a);
    if (st == LF_OK)
        st = lf_proposer_from_explainer(&cp->wrapped, cp->explainer, &cp->gnn);
    if (st == LF_OK)
        cp->proposer = cp->wrapped;
    else
        lf_named_proposer_close(cp);
    return st;
}

void lf_named_proposer_close(lf_named_proposer *cp)
{
    lf_proposer_free(cp->wrapped);
    lf_explainer_free(cp->owned);
    if (cp->have_pg)
        lf_pgx_destroy(&cp->pg);
    if (cp->have_rg)
        lf_rgx_destroy(&cp->rg);
    if (cp->have_gnn)
        lf_gnn_destroy(&cp->gnn);
    memset(cp, 0, sizeof *cp);
}

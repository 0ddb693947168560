/* Edge proposers by name (see proposer_named.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitter/proposer_named.h"
#include "explain/weights.h"
#include "explain/weights_dir.h"
#include "splitter/proposer.h"

static int lf__is_explainer(const char *name)
{
    const char *names[] = {"gnne", "pg", "rg", "saliency", "occlusion"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
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
    if (st == LF_OK && !lf__is_explainer(base) && lf_proposer_find(base, &p) != LF_OK)
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

lf_status lf_named_proposer_open(lf_named_proposer *cp, const char *name, lf_cost_model *cm,
                               const char *gnn_path, const char *pg_path, const char *rg_path)
{
    memset(cp, 0, sizeof *cp);
    char base[32];
    lf_gnne_config gc;
    lf_status st = lf__parse(name, base, sizeof base, &gc);
    if (st != LF_OK)
        return st;
    name = base;
    if (!lf__is_explainer(name))
        return lf_proposer_find(name, &cp->proposer);
    const char *scheme = lf_cost_scheme_name(cm);
    char buf[4096];
    const char *path = lf__weights_path(buf, sizeof buf, gnn_path, "gnn", scheme);
    if (!path)
        return LF_EIO;
    st = lf_gnn_load(&cp->gnn, path, NULL);
    if (st != LF_OK)
        return st;
    cp->have_gnn = 1;
    if (strcmp(name, "saliency") == 0) {
        cp->explainer = lf_explainer_saliency();
    } else if (strcmp(name, "occlusion") == 0) {
        cp->explainer = lf_explainer_occlusion();
    } else if (strcmp(name, "gnne") == 0) {
        st = lf_explainer_gnne_create(&cp->owned, &gc);
        cp->explainer = cp->owned;
    } else if (strcmp(name, "pg") == 0) {
        path = lf__weights_path(buf, sizeof buf, pg_path, "pg", scheme);
        st = path ? lf_pgx_load(&cp->pg, path) : LF_EIO;
        cp->have_pg = st == LF_OK;
        if (st == LF_OK)
            st = lf_explainer_pg_create(&cp->owned, &cp->pg);
        cp->explainer = cp->owned;
    } else {
        path = lf__weights_path(buf, sizeof buf, rg_path, "rg", scheme);
        st = path ? lf_rgx_load(&cp->rg, path) : LF_EIO;
        cp->have_rg = st == LF_OK;
        if (st == LF_OK)
            st = lf_explainer_rg_create(&cp->owned, &cp->rg);
        cp->explainer = cp->owned;
    }
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

/* Node labels and the order over substitutions of OCGGS (Definitions 6 to 8;
 * reference/substitution-and-scheduling.md §2.5 (a)). Ops of the input graph
 * are labelled (0, op id); an op a step creates is labelled (step number,
 * position among the ops it created). A step's label is the biggest label
 * of the ops it replaces, and a sequence is kept only when its steps' labels
 * increase. Because every op a step creates carries that step's number, a
 * step that depends on the previous one always has the bigger label, so the
 * rule only orders steps that commute: of every set of commuting steps
 * exactly one order survives (Theorem 4, Corollary 1). Graphs carry no
 * labels: ops are matched between a parent and its child by name (the
 * rewriter keeps the names of the ops it copies). */
#include <stdlib.h>
#include <string.h>

#include "search/subst/ocggs_internal.h"

int lf__label_cmp(lf__label a, lf__label b)
{
    if (a.step != b.step)
        return a.step < b.step ? -1 : 1;
    return a.idx < b.idx ? -1 : a.idx > b.idx;
}

lf__label lf__step_label(const lf__label *lab, const lf_subst_rule *r, const lf_subst_match *m)
{
    lf__label best = LF__NO_STEP;
    for (int32_t i = 0; i < r->n_nodes; i++)
        if (lf__label_cmp(lab[m->op[i]], best) > 0)
            best = lab[m->op[i]];
    return best;
}

int lf__ordered(lf__label last, lf__label next) { return lf__label_cmp(last, next) < 0; }

lf_status lf__labels_root(const lf_graph *g, lf__label **out)
{
    *out = malloc((size_t)(g->n_ops ? g->n_ops : 1) * sizeof **out);
    if (!*out)
        return lf_set_error(LF_ENOMEM, "labels: out of memory");
    for (int32_t v = 0; v < g->n_ops; v++)
        (*out)[v] = (lf__label){0, v};
    return LF_OK;
}

lf_status lf__labels_child(const lf_graph *parent, const lf__label *plab, const lf_subst_rule *r,
                           const lf_subst_match *m, const lf_graph *child, int32_t step, lf__label **out,
                           int32_t **created, int32_t *n_created)
{
    *out = NULL;
    *created = NULL;
    *n_created = 0;
    lf_strmap kept;
    lf_status st = lf_strmap_init(&kept, (size_t)parent->n_ops * 2 + 8);
    if (st)
        return st;
    for (int32_t v = 0; v < parent->n_ops && !st; v++) {
        int matched = 0;
        for (int32_t i = 0; i < r->n_nodes; i++)
            matched |= m->op[i] == v;
        if (!matched)
            st = lf_strmap_put(&kept, parent->ops[v].name, (void *)(intptr_t)(v + 1));
    }
    size_t n = (size_t)(child->n_ops ? child->n_ops : 1);
    lf__label *lab = st ? NULL : malloc(n * sizeof *lab);
    int32_t *cr = st ? NULL : malloc(n * sizeof *cr);
    if (!st && (!lab || !cr))
        st = lf_set_error(LF_ENOMEM, "labels: out of memory");
    int32_t k = 0;
    for (int32_t v = 0; v < child->n_ops && !st; v++) {
        void *p = NULL;
        if (lf_strmap_get(&kept, child->ops[v].name, &p)) {
            lab[v] = plab[(intptr_t)p - 1];
        } else {
            lab[v] = (lf__label){step, k};
            cr[k++] = v;
        }
    }
    lf_strmap_destroy(&kept);
    if (st) {
        free(lab);
        free(cr);
        return st;
    }
    *out = lab;
    *created = cr;
    *n_created = k;
    return LF_OK;
}

/* Diameter of one rule's pattern: vertices are its source nodes and its
 * activation variables, edges the operand references. */
static int32_t lf__diameter(const lf_subst_rule *r)
{
    enum { N = LF_SUBST_MAX_NODES + LF_SUBST_MAX_VARS, FAR = 1000 };
    int32_t d[N][N], n = r->n_nodes + r->n_vars;
    for (int32_t a = 0; a < n; a++)
        for (int32_t b = 0; b < n; b++)
            d[a][b] = a == b ? 0 : FAR;
    for (int32_t i = 0; i < r->n_nodes; i++)
        for (int32_t p = 0; p < r->nodes[i].n_refs; p++) {
            int32_t ref = r->nodes[i].ref[p];
            int32_t j = ref >= 0 ? ref : r->n_nodes + (-1 - ref);
            if (ref < 0 && !(r->var_kind[-1 - ref] & LF_SUBST_VAR_ACT))
                continue; /* constants are not ops: no path through them */
            if (j < n && j != i)
                d[i][j] = d[j][i] = 1;
        }
    for (int32_t k = 0; k < n; k++)
        for (int32_t a = 0; a < n; a++)
            for (int32_t b = 0; b < n; b++)
                if (d[a][k] + d[k][b] < d[a][b])
                    d[a][b] = d[a][k] + d[k][b];
    int32_t best = 0;
    for (int32_t a = 0; a < n; a++)
        for (int32_t b = 0; b < n; b++)
            if (d[a][b] < FAR && d[a][b] > best)
                best = d[a][b];
    return best;
}

int32_t lf__rules_diameter(const lf_subst_ruleset *rs)
{
    int32_t best = 0;
    for (int32_t k = 0; k < rs->n; k++)
        if (rs->enabled[k]) {
            int32_t d = lf__diameter(rs->rule[k]);
            best = d > best ? d : best;
        }
    return best;
}

lf_status lf__ball(const lf_graph *g, const int32_t *seeds, int32_t n, int32_t radius, uint8_t *mark)
{
    int32_t *q = malloc((size_t)(g->n_ops ? g->n_ops : 1) * sizeof *q);
    int32_t *dist = malloc((size_t)(g->n_ops ? g->n_ops : 1) * sizeof *dist);
    if (!q || !dist) {
        free(q);
        free(dist);
        return lf_set_error(LF_ENOMEM, "labels: out of memory");
    }
    int32_t qh = 0, qt = 0;
    for (int32_t i = 0; i < n; i++)
        if (!mark[seeds[i]]) {
            mark[seeds[i]] = 1;
            dist[seeds[i]] = 0;
            q[qt++] = seeds[i];
        }
    while (qh < qt) {
        int32_t v = q[qh++];
        if (dist[v] >= radius)
            continue;
        const lf_op *op = &g->ops[v];
        for (int32_t side = 0; side < 2; side++) {
            int32_t cnt = side ? op->n_consumers : op->n_inputs;
            const int32_t *nb = side ? op->consumers : op->inputs;
            for (int32_t k = 0; k < cnt; k++)
                if (!mark[nb[k]]) {
                    mark[nb[k]] = 1;
                    dist[nb[k]] = dist[v] + 1;
                    q[qt++] = nb[k];
                }
        }
    }
    free(q);
    free(dist);
    return LF_OK;
}

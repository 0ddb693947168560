/* Validating a plan read back from a file (lf_plan_doc) against its network:
 * the graph it claims, the partition rules of DESIGN §4 and every figure the
 * cost model recomputes. Unlike lf_plan_check, which stops at the first
 * violation, every discrepancy is reported, each as one line. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/plan_read.h"

typedef struct lf__issues {
    lf_plan_issue_fn fn;
    void *user;
    int32_t n;
} lf__issues;

static void lf__issue(lf__issues *is, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void lf__issue(lf__issues *is, const char *fmt, ...)
{
    char full[1024], line[LF_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(full, sizeof full, fmt, ap);
    va_end(ap);
    lf_text_line(line, sizeof line, full);
    is->n++;
    if (is->fn)
        is->fn(is->user, line);
}

static void lf__cmp_i64(lf__issues *is, const char *where, const char *field, int64_t file,
                        int64_t model)
{
    if (file != model)
        lf__issue(is, "%s: %s is %" PRId64 " in the file, the cost model gives %" PRId64, where,
                  field, file, model);
}

static void lf__cmp_double(lf__issues *is, const char *where, const char *field, double file,
                           double model)
{
    /* The writer prints 10 significant digits. */
    if (fabs(file - model) > 1e-8 * fmax(fabs(file), fabs(model)))
        lf__issue(is, "%s: %s is %.10g in the file, the cost model gives %.10g", where, field, file,
                  model);
}

/* The plan's own claims about the hardware, scheme and beta against cm's. */
static void lf__check_setting(const lf_plan_doc *d, lf_cost_model *cm, lf__issues *is)
{
    const lf_hw *hw = lf_cost_hw(cm);
    if (strcmp(d->scheme, lf_cost_scheme_name(cm)) != 0)
        lf__issue(is, "scheme: the plan says '%s', the cost model is '%s'", d->scheme,
                  lf_cost_scheme_name(cm));
    if (d->beta != lf_cost_beta(cm))
        lf__issue(is, "beta: the plan says %" PRId64 " B, the hardware gives %" PRId64 " B",
                  d->beta, lf_cost_beta(cm));
    if (d->hw.buffer_bytes != hw->buffer_bytes)
        lf__issue(is, "hardware.buffer_bytes: the plan says %" PRId64 ", the hardware gives %" PRId64,
                  d->hw.buffer_bytes, hw->buffer_bytes);
    if (d->hw.act_bytes != hw->act_bytes)
        lf__issue(is, "hardware.act_bytes: the plan says %d, the hardware gives %d",
                  (int)d->hw.act_bytes, (int)hw->act_bytes);
    if (d->hw.weight_bytes != hw->weight_bytes)
        lf__issue(is, "hardware.weight_bytes: the plan says %d, the hardware gives %d",
                  (int)d->hw.weight_bytes, (int)hw->weight_bytes);
}

/* Every op exactly once: group_of against the "groups" and "unfusable"
 * listings. Returns 0 when group_of itself is unusable (a graph input in a
 * group, a compute op in none), after which nothing can be priced. */
static int lf__check_cover(const lf_plan_doc *d, lf_cost_model *cm, lf__issues *is, int32_t *owner,
                           uint8_t *id_seen)
{
    const lf_graph *g = lf_cost_graph(cm);
    const int32_t *go = d->plan.group_of;
    int usable = 1;
    for (int32_t v = 0; v < g->n_ops; v++) {
        owner[v] = -1;
        if (g->ops[v].type == LF_OP_INPUT && go[v] != -1) {
            lf__issue(is, "group_of[%d]: graph input '%s' is in group %d", (int)v, g->ops[v].name,
                      (int)go[v]);
            usable = 0;
        } else if (g->ops[v].type != LF_OP_INPUT && go[v] < 0) {
            lf__issue(is, "group_of[%d]: op '%s' is in no group", (int)v, g->ops[v].name);
            usable = 0;
        }
    }
    int32_t n_listed = d->n_groups + d->n_unfusable;
    for (int32_t e = 0; e < n_listed; e++) {
        int unf = e >= d->n_groups;
        int32_t i = unf ? e - d->n_groups : e;
        int32_t n = unf ? 1 : d->groups[i].n_ops;
        const int32_t *ops = unf ? &d->unfusable[i].op : d->groups[i].ops;
        int32_t id = unf ? d->unfusable[i].group : d->groups[i].id;
        char where[48];
        snprintf(where, sizeof where, "%s[%d]", unf ? "unfusable" : "groups", (int)i);
        if (id_seen[id])
            lf__issue(is, "%s: group %d is listed twice", where, (int)id);
        id_seen[id] = 1;
        for (int32_t j = 0; j < n; j++) {
            int32_t v = ops[j];
            if (g->ops[v].type == LF_OP_INPUT) {
                lf__issue(is, "%s: lists graph input %d '%s'", where, (int)v, g->ops[v].name);
                continue;
            }
            if (owner[v] == e) {
                lf__issue(is, "%s: lists op %d '%s' twice", where, (int)v, g->ops[v].name);
                continue;
            }
            if (owner[v] >= 0) {
                int32_t o = owner[v], ou = o >= d->n_groups, oi = ou ? o - d->n_groups : o;
                lf__issue(is, "op %d '%s' is in two groups: %s[%d] (group %d) and %s (group %d)",
                          (int)v, g->ops[v].name, ou ? "unfusable" : "groups", (int)oi,
                          (int)(ou ? d->unfusable[oi].group : d->groups[oi].id), where, (int)id);
                continue;
            }
            owner[v] = e;
            if (go[v] != id)
                lf__issue(is, "op %d '%s': group_of says group %d, %s lists it in group %d", (int)v,
                          g->ops[v].name, (int)go[v], where, (int)id);
            if (unf && lf_cost_fusable(cm, v))
                lf__issue(is, "%s: op %d '%s' is fusable", where, (int)v, g->ops[v].name);
        }
    }
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].type != LF_OP_INPUT && owner[v] < 0)
            lf__issue(is, "op %d '%s' is in neither groups nor unfusable", (int)v, g->ops[v].name);
    return usable;
}

/* Weak connectivity of the group holding `first`, by a walk over edges
 * inside the group; returns an unreached member or -1. */
static int32_t lf__unreached(const lf_graph *g, const int32_t *go, int32_t first, int32_t *stack,
                             uint8_t *seen)
{
    int32_t k = go[first], top = 0;
    stack[top++] = first;
    seen[first] = 1;
    while (top > 0) {
        const lf_op *op = &g->ops[stack[--top]];
        for (int32_t j = 0; j < op->n_inputs + op->n_consumers; j++) {
            int32_t u = j < op->n_inputs ? op->inputs[j] : op->consumers[j - op->n_inputs];
            if (go[u] == k && !seen[u]) {
                seen[u] = 1;
                stack[top++] = u;
            }
        }
    }
    for (int32_t v = first; v < g->n_ops; v++)
        if (go[v] == k && !seen[v])
            return v;
    return -1;
}

/* The rules of DESIGN §4 for every group, then the figures. */
static lf_status lf__check_groups(const lf_plan_doc *d, lf_cost_model *cm, lf__issues *is,
                                  int32_t *stack, uint8_t *seen, lf_group_cost *cost)
{
    const lf_graph *g = lf_cost_graph(cm);
    const int32_t *go = d->plan.group_of;
    int32_t ng = d->plan.n_groups;
    int32_t *first = malloc((size_t)ng * sizeof(int32_t) + 1), *size = calloc((size_t)ng + 1, 4);
    lf_bitset set = {0};
    lf_status st = first && size ? lf_bitset_init(&set, g->n_ops)
                                 : lf_set_error(LF_ENOMEM, "out of memory validating a plan");
    for (int32_t k = 0; st == LF_OK && k < ng; k++)
        first[k] = -1;
    for (int32_t v = 0; st == LF_OK && v < g->n_ops; v++)
        if (go[v] >= 0) {
            if (first[go[v]] < 0)
                first[go[v]] = v;
            size[go[v]]++;
        }
    for (int32_t k = 0; st == LF_OK && k < ng; k++) {
        int32_t f = first[k];
        if (f < 0)
            continue;
        for (int32_t v = f; v < g->n_ops; v++)
            if (go[v] == k && size[k] > 1 && !lf_cost_fusable(cm, v))
                lf__issue(is, "group %d: unfusable op %d '%s' is not alone (%d ops)", (int)k, (int)v,
                          g->ops[v].name, (int)size[k]);
        memset(seen, 0, (size_t)g->n_ops);
        int32_t u = lf__unreached(g, go, f, stack, seen);
        if (u >= 0)
            lf__issue(is, "group %d is not weakly connected: op %d '%s' is not reached from op %d '%s'",
                      (int)k, (int)u, g->ops[u].name, (int)f, g->ops[f].name);
        lf_plan_group_bitset(&d->plan, k, &set);
        if ((st = lf_cost_eval(cm, &set, &cost[k])) != LF_OK)
            break;
        if (!cost[k].valid && (size[k] > 1 || lf_cost_fusable(cm, f)))
            lf__issue(is, "group %d (with op %d '%s') overflows the buffer: F_beta %" PRId64
                          " B >= beta %" PRId64 " B",
                      (int)k, (int)f, g->ops[f].name, cost[k].f_beta, lf_cost_beta(cm));
    }
    if (st == LF_OK && !lf_plan_quotient_acyclic(&d->plan, g))
        lf__issue(is, "the groups form a cycle: a path leaves a group and re-enters it");
    for (int32_t i = 0; st == LF_OK && i < d->n_groups; i++) {
        const lf_plan_doc_group *dg = &d->groups[i];
        if (dg->id >= ng || first[dg->id] < 0)
            continue; /* reported as a listing mismatch */
        const lf_group_cost *c = &cost[dg->id];
        char where[64];
        snprintf(where, sizeof where, "groups[%d] (group %d)", (int)i, (int)dg->id);
        lf__cmp_i64(is, where, "f_beta", dg->f_beta, c->f_beta);
        lf__cmp_i64(is, where, "f_d", dg->f_d, c->f_d);
        lf__cmp_i64(is, where, "mbu", dg->mbu, c->mbu);
        lf__cmp_i64(is, where, "weights", dg->weights, c->weights);
        lf__cmp_i64(is, where, "weight_reads", dg->weight_reads, c->weight_reads);
        lf__cmp_i64(is, where, "tile_rows", dg->tile_rows, c->tile_rows);
        if (dg->valid != c->valid)
            lf__issue(is, "%s: valid is %s in the file, the cost model gives %s", where,
                      dg->valid ? "true" : "false", c->valid ? "true" : "false");
    }
    for (int32_t i = 0; st == LF_OK && i < d->n_unfusable; i++) {
        const lf_plan_doc_unfusable *u = &d->unfusable[i];
        if (u->group >= ng || first[u->group] < 0)
            continue;
        char where[64];
        snprintf(where, sizeof where, "unfusable[%d] (op %d)", (int)i, (int)u->op);
        int64_t dram = 0;
        lf_bitset_clear_all(&set);
        lf_bitset_set(&set, u->op);
        lf_group_cost c;
        if ((st = lf_cost_eval(cm, &set, &c)) != LF_OK ||
            (st = lf_cost_unfusable_dram(cm, u->op, &dram)) != LF_OK)
            break;
        lf__cmp_i64(is, where, "f_beta", u->f_beta, c.f_beta);
        lf__cmp_i64(is, where, "dram", u->dram, dram);
    }
    lf_bitset_destroy(&set);
    free(first);
    free(size);
    return st;
}

/* The metrics of plan `from` (as written: `f`) against the cost model's;
 * where names them ("metrics", "pareto[2]"). */
static lf_status lf__check_metrics(const lf_plan *from, const lf_plan_metrics *f, const char *where,
                                   lf_cost_model *cm, lf__issues *is)
{
    lf_plan p;
    lf_plan_metrics m;
    lf_status st = lf_plan_copy(&p, from);
    if (st != LF_OK)
        return st;
    lf_plan_canonicalize(&p);
    st = lf_plan_metrics_compute(&p, cm, &m);
    lf_plan_destroy(&p);
    if (st != LF_OK)
        return st;
    lf__cmp_i64(is, where, "dram_fusable", f->dram_fusable, m.dram_fusable);
    lf__cmp_i64(is, where, "dram_all", f->dram_all, m.dram_all);
    lf__cmp_i64(is, where, "mbu", f->mbu, m.mbu);
    lf__cmp_i64(is, where, "groups", f->n_groups, m.n_groups);
    lf__cmp_i64(is, where, "unfusable", f->n_unfusable, m.n_unfusable);
    lf__cmp_i64(is, where, "invalid", f->n_invalid, m.n_invalid);
    lf__cmp_double(is, where, "dram_time_s", f->dram_time_s, m.dram_time_s);
    if ((f->energy_j < 0) != (m.energy_j < 0))
        lf__issue(is, "%s: energy_j is %s in the file, the cost model gives %s",
                  where, f->energy_j < 0 ? "null" : "a figure", m.energy_j < 0 ? "none" : "a figure");
    else if (m.energy_j >= 0)
        lf__cmp_double(is, where, "energy_j", f->energy_j, m.energy_j);
    if (f->has_energy && !m.has_energy)
        lf__issue(is, "%s: energy_pj is in the file, but its hardware gives no energy figures", where);
    else if (f->has_energy) {
        lf__cmp_double(is, where, "energy_pj.dram", f->perf.dram_pj, m.perf.dram_pj);
        lf__cmp_double(is, where, "energy_pj.sram", f->perf.sram_pj, m.perf.sram_pj);
        lf__cmp_double(is, where, "energy_pj.mac", f->perf.mac_pj, m.perf.mac_pj);
        lf__cmp_double(is, where, "energy_pj.total", f->perf.total_pj, m.perf.total_pj);
    }
    if (f->has_latency && !m.has_latency)
        lf__issue(is, "%s: latency_s is in the file, but its hardware gives no compute peak", where);
    else if (f->has_latency) {
        lf__cmp_double(is, where, "latency_s", f->perf.latency_s, m.perf.latency_s);
        if (f->perf.latency_serial_s > 0)
            lf__cmp_double(is, where, "latency_serial_s", f->perf.latency_serial_s,
                           m.perf.latency_serial_s);
    }
    return LF_OK;
}

/* Each Pareto plan: graph inputs in no group and compute ops in one, then
 * the first rule of DESIGN §4 it breaks, then its metrics. */
static lf_status lf__check_pareto(const lf_plan_doc *d, lf_cost_model *cm, lf__issues *is)
{
    const lf_graph *g = lf_cost_graph(cm);
    for (int32_t i = 0; i < d->n_pareto; i++) {
        const lf_plan *p = &d->pareto[i].plan;
        char where[32];
        snprintf(where, sizeof where, "pareto[%d]", (int)i);
        int usable = 1;
        for (int32_t v = 0; v < g->n_ops && usable; v++)
            if ((g->ops[v].type == LF_OP_INPUT) != (p->group_of[v] < 0)) {
                lf__issue(is, "%s.group_of[%d]: op '%s' is %s", where, (int)v, g->ops[v].name,
                          p->group_of[v] < 0 ? "in no group" : "a graph input in a group");
                usable = 0;
            }
        if (!usable)
            continue;
        lf_plan c;
        lf_status st = lf_plan_copy(&c, p);
        if (st != LF_OK)
            return st;
        lf_plan_canonicalize(&c);
        if ((st = lf_plan_check(&c, cm)) == LF_EPLAN)
            lf__issue(is, "%s: %s", where, lf_last_error());
        lf_plan_destroy(&c);
        if (st != LF_OK && st != LF_EPLAN)
            return st;
        if ((st = lf__check_metrics(p, &d->pareto[i].metrics, where, cm, is)) != LF_OK)
            return st;
    }
    return LF_OK;
}

lf_status lf_plan_validate(const lf_plan_doc *doc, lf_cost_model *cm, lf_plan_issue_fn issue,
                           void *user, int32_t *n_issues)
{
    if (n_issues)
        *n_issues = 0;
    if (!doc || !cm || !doc->plan.group_of)
        return lf_set_error(LF_EINVAL, "lf_plan_validate needs a plan read with lf_plan_doc_read "
                                       "and a cost model");
    const lf_graph *g = lf_cost_graph(cm);
    char hex[17];
    lf_graph_hash_hex(g, hex);
    if (doc->n_ops != g->n_ops)
        return lf_set_error(LF_EPLAN, "%s: model.ops: the plan has %d ops, graph '%s' has %d: the "
                                      "plan is for another graph",
                            doc->origin, (int)doc->n_ops, g->name, (int)g->n_ops);
    if (strcmp(doc->graph_hash, hex) != 0)
        return lf_set_error(LF_EPLAN, "%s: model.graph_hash: %s is not the hash of graph '%s' (%s): "
                                      "the plan is for another graph",
                            doc->origin, doc->graph_hash, g->name, hex);
    lf__issues is = {issue, user, 0};
    if (doc->compute_ops != lf_graph_compute_ops(g))
        lf__issue(&is, "model.compute_ops: the plan says %d, the graph has %d", (int)doc->compute_ops,
                  (int)lf_graph_compute_ops(g));
    lf__check_setting(doc, cm, &is);
    int32_t n = g->n_ops;
    int32_t *owner = malloc((size_t)n * sizeof(int32_t)), *stack = malloc((size_t)n * sizeof(int32_t));
    uint8_t *seen = calloc((size_t)n, 1);
    lf_group_cost *cost = calloc((size_t)doc->plan.n_groups + 1, sizeof *cost);
    lf_status st = owner && stack && seen && cost
                       ? LF_OK
                       : lf_set_error(LF_ENOMEM, "out of memory validating a plan");
    if (st == LF_OK && lf__check_cover(doc, cm, &is, owner, seen)) {
        st = lf__check_groups(doc, cm, &is, stack, seen, cost);
        if (st == LF_OK)
            st = lf__check_metrics(&doc->plan, &doc->metrics, "metrics", cm, &is);
    }
    if (st == LF_OK)
        st = lf__check_pareto(doc, cm, &is);
    free(owner);
    free(stack);
    free(seen);
    free(cost);
    if (n_issues)
        *n_issues = is.n;
    return st;
}

void lf_plan_verdict_write(FILE *f, const char *path, const lf_plan_doc *doc, int32_t n_issues)
{
    if (n_issues > 0) {
        fprintf(f, "%s: %d discrepanc%s\n", path, (int)n_issues, n_issues == 1 ? "y" : "ies");
        return;
    }
    char model[80];
    lf_text_line(model, sizeof model, doc->model);
    fprintf(f, "%s: OK (%s, %s %lld B, %d groups, %d unfusable, DRAM %lld B fusable ops)\n", path, model,
            doc->scheme, (long long)doc->beta, (int)doc->metrics.n_groups, (int)doc->metrics.n_unfusable,
            (long long)doc->metrics.dram_fusable);
}

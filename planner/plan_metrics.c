/* A plan's metrics (lf_plan_metrics_compute), and the figures of ops alone
 * kept between plans priced at one buffer (lf_plan_alone): a staircase's
 * report prices, at each step, its plan and the layer-by-layer plan, and
 * every op unfusable there is alone in both. */
#include "planner/plan.h"

#include <stdlib.h>
#include <string.h>

#include "planner/cost/objective.h"

/* What an op alone adds to a plan's metrics. */
typedef struct lf__alone_fig {
    lf_group_perf perf;
    int64_t dram, objective, mbu;
    uint8_t unfusable, valid;
} lf__alone_fig;

struct lf_plan_alone {
    const lf_cost_model *cm; /* the model, buffer and objective the figures hold for */
    int64_t beta;
    int objective;
    int32_t n;
    uint8_t *have; /* per op: fig[v] is known */
    lf__alone_fig *fig;
};

lf_status lf_plan_alone_create(lf_plan_alone **out, int32_t n_ops)
{
    lf_plan_alone *a = calloc(1, sizeof *a);
    if (a) {
        a->n = n_ops;
        a->have = calloc((size_t)(n_ops > 0 ? n_ops : 1), 1);
        a->fig = malloc((size_t)(n_ops > 0 ? n_ops : 1) * sizeof *a->fig);
    }
    if (!a || !a->have || !a->fig) {
        lf_plan_alone_free(a);
        *out = NULL;
        return lf_set_error(LF_ENOMEM, "out of memory for the figures of ops alone");
    }
    *out = a;
    return LF_OK;
}

void lf_plan_alone_free(lf_plan_alone *a)
{
    if (!a)
        return;
    free(a->have);
    free(a->fig);
    free(a);
}

/* Forgets a's figures unless they were taken with cm at its present buffer
 * and objective (a model moved to another buffer prices ops anew). */
static void lf__alone_hold(lf_plan_alone *a, const lf_cost_model *cm)
{
    int objective = (int)lf_cost_objective(cm);
    if (a->cm == cm && a->beta == lf_cost_beta(cm) && a->objective == objective)
        return;
    memset(a->have, 0, (size_t)(a->n > 0 ? a->n : 1));
    a->cm = cm;
    a->beta = lf_cost_beta(cm);
    a->objective = objective;
}

/* The figures of op v alone (members: the bitset holding v alone), from a
 * or priced (and kept in a; a may be NULL). */
static lf_status lf__alone(lf_cost_model *cm, lf_plan_alone *a, int32_t v, const lf_bitset *members,
                           lf__alone_fig *f)
{
    if (a && v < a->n && a->have[v]) {
        *f = a->fig[v];
        return LF_OK;
    }
    lf_status st;
    memset(f, 0, sizeof *f);
    if (!lf_cost_fusable(cm, v)) {
        int64_t d = 0;
        f->unfusable = 1;
        st = lf_cost_unfusable_dram(cm, v, &d);
        f->dram = d;
        if (st == LF_OK)
            st = lf_unfusable_perf(cm, v, d, &f->perf);
        if (st == LF_OK)
            f->objective = lf_cost_objective_unfusable(cm, v, d);
    } else {
        lf_group_cost c;
        if ((st = lf_cost_eval(cm, members, &c)) == LF_OK)
            st = lf_group_perf_eval(cm, members, &c, &f->perf);
        if (st == LF_OK) {
            f->dram = c.f_d;
            f->objective = lf_cost_objective_of(cm, members, &c);
            f->mbu = c.mbu;
            f->valid = (uint8_t)(c.valid != 0);
        }
    }
    if (st == LF_OK && a && v < a->n) {
        a->fig[v] = *f;
        a->have[v] = 1;
    }
    return st;
}

lf_status lf_plan_metrics_compute(const lf_plan *p, lf_cost_model *cm, lf_plan_metrics *m)
{
    return lf_plan_metrics_compute_alone(p, cm, NULL, m);
}

lf_status lf_plan_metrics_compute_alone(const lf_plan *p, lf_cost_model *cm, lf_plan_alone *a, lf_plan_metrics *m)
{
    const lf_graph *g = lf_cost_graph(cm);
    const lf_hw *hw = lf_cost_hw(cm);
    memset(m, 0, sizeof *m);
    if (a)
        lf__alone_hold(a, cm);
    int32_t *first = malloc((size_t)(p->n_groups + 1) * sizeof(int32_t));
    int32_t *size = calloc((size_t)p->n_groups + 1, sizeof(int32_t));
    /* Each group's ops as a chain (next op of the same group, -1 at the
     * last), so that a group's bitset costs its members, not a pass over
     * every op: a staircase's report prices hundreds of plans of hundreds
     * of groups (bert_base LBDF energy, 482 steps). */
    int32_t *last = malloc((size_t)(p->n_groups + 1) * sizeof(int32_t));
    int32_t *next = malloc((size_t)(p->n_ops + 1) * sizeof(int32_t));
    lf_bitset members = {0};
    lf_status st = (first && size && last && next) ? lf_bitset_init(&members, g->n_ops)
                                                   : lf_set_error(LF_ENOMEM, "out of memory computing plan metrics");
    for (int32_t gi = 0; st == LF_OK && gi < p->n_groups; gi++)
        first[gi] = last[gi] = -1;
    for (int32_t v = 0; st == LF_OK && v < p->n_ops; v++) {
        int32_t gi = p->group_of[v];
        next[v] = -1;
        if (gi < 0)
            continue;
        if (gi >= p->n_groups) {
            st = lf_set_error(LF_EPLAN, "op '%s' is in group %d of %d", g->ops[v].name, (int)gi,
                              (int)p->n_groups);
            break;
        }
        if (first[gi] < 0)
            first[gi] = v;
        else
            next[last[gi]] = v;
        last[gi] = v;
        size[gi]++;
    }
    for (int32_t gi = 0; st == LF_OK && gi < p->n_groups; gi++) {
        if (first[gi] < 0)
            continue;
        lf_group_perf perf;
        if (size[gi] == 1) {
            /* An op alone: unfusable (charged with its weights streamed) or
             * a group of one, priced once per buffer where a is given. */
            lf__alone_fig f;
            lf_bitset_clear_all(&members);
            lf_bitset_set(&members, first[gi]);
            st = lf__alone(cm, a, first[gi], &members, &f);
            if (f.unfusable) {
                if (st == LF_OK) {
                    lf_group_perf_add(&m->perf, &f.perf);
                    m->n_compute_bound += f.perf.bound == LF_BOUND_COMPUTE;
                    m->objective_all += f.objective;
                }
                m->dram_all += f.dram;
                m->n_unfusable++;
                continue;
            }
            if (st != LF_OK)
                break;
            lf_group_perf_add(&m->perf, &f.perf);
            m->n_compute_bound += f.perf.bound == LF_BOUND_COMPUTE;
            m->dram_fusable += f.dram;
            m->dram_all += f.dram;
            m->objective += f.objective;
            m->objective_all += f.objective;
            if (f.mbu > m->mbu)
                m->mbu = f.mbu;
            m->n_groups++;
            m->n_invalid += !f.valid;
            continue;
        }
        lf_group_cost c;
        lf_bitset_clear_all(&members);
        for (int32_t v = first[gi]; v >= 0; v = next[v])
            lf_bitset_set(&members, v);
        if ((st = lf_cost_eval(cm, &members, &c)) != LF_OK ||
            (st = lf_group_perf_eval(cm, &members, &c, &perf)) != LF_OK)
            break;
        lf_group_perf_add(&m->perf, &perf);
        m->n_compute_bound += perf.bound == LF_BOUND_COMPUTE;
        m->dram_fusable += c.f_d;
        m->dram_all += c.f_d;
        int64_t obj = lf_cost_objective_of(cm, &members, &c);
        m->objective += obj;
        m->objective_all += obj;
        if (c.mbu > m->mbu)
            m->mbu = c.mbu;
        m->n_groups++;
        m->n_invalid += !c.valid;
    }
    m->dram_time_s = hw->dram_bandwidth > 0 ? (double)m->dram_all / hw->dram_bandwidth : 0.0;
    m->energy_j = hw->dram_pj_per_byte > 0 ? (double)m->dram_all * hw->dram_pj_per_byte * 1e-12 : -1.0;
    m->has_energy = lf_hw_has_energy(hw);
    m->has_latency = hw->peak_macs > 0;
    m->perf.bound = m->perf.compute_s > m->perf.memory_s ? LF_BOUND_COMPUTE : LF_BOUND_MEMORY;
    lf_bitset_destroy(&members);
    free(first);
    free(size);
    free(last);
    free(next);
    return st;
}


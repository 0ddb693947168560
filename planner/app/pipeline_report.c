/* How a network and its plan are reported: `fusionplan info`'s summary and
 * op table, the summary line of `fusionplan plan` and its group table, into
 * a caller's stream. */
#include <stdio.h>
#include <string.h>

#include "planner/cost/objective.h"
#include "planner/optable.h"
#include "planner/app/pipeline.h"
#include "planner/residency.h"
#include "planner/util/format.h"
#include "search/partition/simple.h"

/* The summary line's search figures: plans, invalid groups, splits, memo
 * hits and the splitter's own. */
static void lf__print_search(FILE *f, const lf_planned *r)
{
    const lf_search_result *res = &r->search_result;
    int64_t lookups = res->cache_hits + res->cache_misses;
    fprintf(f, "; %lld plans proposed, %lld invalid groups met, %lld splits, memo hits %.1f%%",
            (long long)res->plans_proposed, (long long)res->invalid_groups, (long long)res->splits,
            lookups ? 100.0 * (double)res->cache_hits / (double)lookups : 0.0);
    if (r->have_tree_stats) {
        const lf_tree_stats *ts = &r->tree_stats;
        fprintf(f, "; %s: %lld distinct invalid groups, rectify rate %.1f%%, rectified without "
                   "fallback %lld",
                r->split_name, (long long)ts->groups, 100.0 * ts->rectify_rate,
                (long long)ts->tree_success);
        if (ts->gap_groups > 0)
            fprintf(f, ", mean split gap %.3f", ts->mean_gap);
        fprintf(f, ", %.3f s in the splitter (wall)", ts->split_s);
    } else {
        fprintf(f, "; %s split, %.3f s in the splitter (wall)", r->split_name, res->split_s);
    }
}

void lf_planned_print_summary(FILE *f, const lf_planned *r, lf_cost_model *cm, const char *model)
{
    const lf_plan_metrics *m = &r->metrics;
    char beta[32], fus[32], all[32], mbu[32], gap[80] = "";
    lf_hw_format_size(lf_cost_beta(cm), beta, sizeof beta);
    lf_format_commas(m->dram_fusable, fus, sizeof fus);
    lf_format_commas(m->dram_all, all, sizeof all);
    lf_format_commas(m->mbu, mbu, sizeof mbu);
    /* Gaps and bounds are on the objective (DRAM over fusable ops by default). */
    if (r->exact_objective > 0)
        snprintf(gap, sizeof gap, "; gap to optimum %.2f%%",
                 100.0 * (double)(m->objective - r->exact_objective) / (double)r->exact_objective);
    else if (r->lower_bound > 0 && strcmp(r->search, "exact-best-effort") != 0)
        snprintf(gap, sizeof gap, "; gap to optimum at most %.2f%% (certified)",
                 100.0 * (double)(m->objective - r->lower_bound) / (double)r->lower_bound);
    /* The objective is named only when it is not DRAM (outputs as before). */
    char obj[40] = "";
    if (lf_cost_objective(cm) != LF_PLAN_OBJ_DRAM)
        snprintf(obj, sizeof obj, " (objective %s)", lf_plan_objective_name(lf_cost_objective(cm)));
    fprintf(f, "%s %s %s %s%s: DRAM %s B fusable ops (%.3f MB), %s B all ops; MBU %s B; %d groups, "
               "%d unfusable",
            model, beta, lf_cost_scheme_name(cm), r->search, obj, fus, (double)m->dram_fusable / 1e6, all,
            mbu, (int)m->n_groups, (int)m->n_unfusable);
    fprintf(f, "; DRAM time %.3f ms", m->dram_time_s * 1e3);
    if (lf_cost_objective(cm) != LF_PLAN_OBJ_DRAM) {
        /* The figure the planner compares, to the unit: what --upper-bound
         * takes (bounds below are in it too). */
        char of[32];
        lf_format_commas(m->objective, of, sizeof of);
        fprintf(f, "; %s %s %s over fusable ops", lf_plan_objective_name(lf_cost_objective(cm)), of,
                lf_plan_objective_unit(lf_cost_objective(cm)));
    }
    if (m->has_energy)
        fprintf(f, "; energy %.3f mJ (DRAM %.3f, SRAM %.3f, MAC %.3f mJ)", m->perf.total_pj * 1e-9,
                m->perf.dram_pj * 1e-9, m->perf.sram_pj * 1e-9, m->perf.mac_pj * 1e-9);
    if (m->has_latency)
        fprintf(f, "; latency %.3f ms double-buffered, %.3f ms without (%s-bound; %d of %d groups "
                   "compute-bound)",
                m->perf.latency_s * 1e3, m->perf.latency_serial_s * 1e3, lf_bound_name(m->perf.bound),
                (int)m->n_compute_bound, (int)(m->n_groups + m->n_unfusable));
    if (r->heuristic)
        lf__print_search(f, r);
    const lf_polish_stats *ps = &r->polish;
    if (ps->passes > 0) {
        char before[32], after[32];
        lf_format_commas(ps->dram_before, before, sizeof before);
        lf_format_commas(ps->dram_after, after, sizeof after);
        lf_plan_objective o = lf_cost_objective(cm);
        fprintf(f, "; polish: %d passes, %d windows solved, %d improved, %d past the limit, %s %s -> %s %s",
                (int)ps->passes, (int)ps->windows, (int)ps->improved, (int)ps->limited,
                o == LF_PLAN_OBJ_DRAM ? "DRAM" : lf_plan_objective_name(o), before, after,
                lf_plan_objective_unit(o));
    }
    if (strcmp(r->search, "exact") == 0 && r->bound_note[0])
        fprintf(f, "; %s", r->bound_note); /* how a stopped DP's optimum was proven */
    if (strcmp(r->search, "exact-best-effort") == 0) {
        char lo[32], up[32], what[48] = "";
        lf_plan_objective o = lf_cost_objective(cm);
        lf_format_commas(r->lower_bound, lo, sizeof lo);
        lf_format_commas(m->objective, up, sizeof up);
        if (o != LF_PLAN_OBJ_DRAM) /* DRAM: as before */
            snprintf(what, sizeof what, " (%s over fusable ops)", lf_plan_objective_name(o));
        fprintf(f, "; not proven optimal (the exact planner stopped at a limit): the optimum%s is in "
                   "[%s, %s] %s, this plan within %.2f%% of it (from %s)",
                what, lo, up, lf_plan_objective_unit(o),
                r->lower_bound > 0 ? 100.0 * (double)(m->objective - r->lower_bound) / (double)r->lower_bound
                                   : 100.0,
                r->bound_note);
    }
    const lf_exact_stats *es = &r->exact_stats;
    if (es->states > 0)
        fprintf(f, "; %lld downsets, %lld candidate sets, %lld groups priced", (long long)es->states,
                (long long)es->candidates, (long long)(es->groups - es->groups_skipped));
    if (es->pruned > 0) /* --upper-bound's branch and bound */
        fprintf(f, "; %lld downsets pruned by the upper bound", (long long)es->pruned);
    fprintf(f, "%s; wall %.3f s\n", gap, r->wall_s);
}

lf_status lf_plan_print_groups(FILE *f, const lf_plan *p, lf_cost_model *cm)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf_bitset s;
    lf_status st = lf_bitset_init(&s, g->n_ops);
    if (st != LF_OK)
        return st;
    const lf_hw *hw = lf_cost_hw(cm);
    int has_energy = lf_hw_has_energy(hw), has_latency = hw->peak_macs > 0;
    fprintf(f, "\n%6s %5s  %-30s %-30s %12s %12s", "group", "ops", "first op", "last op", "F_beta B",
            "F_D B");
    if (has_energy)
        fprintf(f, " %11s", "energy uJ");
    if (has_latency)
        fprintf(f, " %11s %-7s", "latency us", "bound");
    fputs(" \n", f);
    for (int32_t gi = 0; gi < p->n_groups; gi++) {
        lf_plan_group_bitset(p, gi, &s);
        int32_t first = lf_bitset_next(&s, 0), last = first, n = 0;
        for (int32_t v = first; v >= 0; v = lf_bitset_next(&s, v + 1)) {
            last = v;
            n++;
        }
        lf_group_cost c;
        char fb[32], fd[32];
        int unfusable = n == 1 && !lf_cost_fusable(cm, first);
        if ((st = lf_cost_eval(cm, &s, &c)) != LF_OK)
            break;
        lf_group_perf perf;
        if (unfusable)
            lf_cost_unfusable_dram(cm, first, &c.f_d);
        st = unfusable ? lf_unfusable_perf(cm, first, c.f_d, &perf) : lf_group_perf_eval(cm, &s, &c, &perf);
        if (st != LF_OK)
            break;
        lf_format_commas(c.f_beta, fb, sizeof fb);
        lf_format_commas(c.f_d, fd, sizeof fd);
        fprintf(f, "%6d %5d  %-30s %-30s %12s %12s", (int)gi, (int)n, g->ops[first].name,
                g->ops[last].name, fb, fd);
        if (has_energy)
            fprintf(f, " %11.3f", perf.total_pj * 1e-6);
        if (has_latency)
            fprintf(f, " %11.3f %-7s", perf.latency_s * 1e6, lf_bound_name(perf.bound));
        fprintf(f, " %s\n",
                unfusable ? (c.weights > 0 ? "unfusable (weights streamed)" : "unfusable (window too large)")
                          : (c.valid ? "" : "INVALID"));
    }
    lf_bitset_destroy(&s);
    return st;
}

static void lf__print_hw(FILE *f, const lf_hw *hw)
{
    char buf[32];
    lf_hw_format_size(hw->buffer_bytes, buf, sizeof buf);
    fprintf(f, "hardware  %s (%s): buffer %s, %d-byte activations, %d-byte weights, DRAM %.1f GB/s",
            hw->name, hw->source, buf, (int)hw->act_bytes, (int)hw->weight_bytes,
            hw->dram_bandwidth / 1e9);
    if (hw->dram_pj_per_byte > 0)
        fprintf(f, ", %.1f pJ/B", hw->dram_pj_per_byte);
    fprintf(f, "\n");
}

lf_status lf_network_print_summary(FILE *f, lf_cost_model *cm, const lf_hw *hw)
{
    const lf_graph *g = lf_cost_graph(cm);
    char hex[17], params[32], a[32], b[32];
    lf_graph_hash_hex(g, hex);
    lf_format_commas(lf_graph_params(g), params, sizeof params);
    fprintf(f, "model     %s: %d ops, %s params, %.3f GMACs, hash %s\n", g->name,
            (int)lf_graph_compute_ops(g), params, (double)lf_graph_macs(g) / 1e9, hex);
    lf__print_hw(f, hw);
    int32_t nun = lf_cost_unfusable_count(cm);
    fprintf(f, "scheme    %s: %d fusable ops, %d unfusable", lf_cost_scheme_name(cm),
            (int)(lf_graph_compute_ops(g) - nun), (int)nun);
    int shown = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].type != LF_OP_INPUT && !lf_cost_fusable(cm, v))
            fprintf(f, "%s%s", shown++ ? ", " : " (", g->ops[v].name);
    fprintf(f, "%s\n", shown ? ")" : "");
    lf_plan plan;
    lf_plan_metrics m;
    lf_status st = lf_plan_layer(cm, &plan);
    if (st == LF_OK) {
        st = lf_plan_metrics_compute(&plan, cm, &m);
        lf_plan_destroy(&plan);
    }
    if (st != LF_OK)
        return st;
    lf_format_commas(m.dram_fusable, a, sizeof a);
    lf_format_commas(m.dram_all, b, sizeof b);
    fprintf(f, "layer-by-layer DRAM: %s B over fusable ops, %s B over all ops (%.3f ms at DRAM bandwidth)\n",
            a, b, m.dram_time_s * 1e3);
    return LF_OK;
}

lf_status lf_network_print_ops(FILE *f, lf_cost_model *cm)
{
    const lf_graph *g = lf_cost_graph(cm);
    fprintf(f, "\n%5s  %-34s %-17s %-16s %12s %12s %12s  %s\n", "id", "name", "type", "output",
            "weights B", "F_beta B", "F_D B", "fusable");
    lf_bitset one;
    lf_status st = lf_bitset_init(&one, g->n_ops);
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
        const lf_op *op = &g->ops[v];
        char shape[48];
        snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)op->out.c, (long long)op->out.h,
                 (long long)op->out.w);
        if (op->type == LF_OP_INPUT) {
            fprintf(f, "%5d  %-34s %-17s %-16s %12s %12s %12s  %s\n", (int)v, op->name, "Input", shape,
                    "-", "-", "-", "-");
            continue;
        }
        lf_group_cost c;
        lf_bitset_clear_all(&one);
        lf_bitset_set(&one, v);
        st = lf_cost_eval(cm, &one, &c);
        int64_t fd = c.f_d;
        if (st == LF_OK && !lf_cost_fusable(cm, v))
            st = lf_cost_unfusable_dram(cm, v, &fd);
        char w[32], fb[32], fdd[32];
        lf_format_commas(c.weights, w, sizeof w);
        lf_format_commas(c.f_beta, fb, sizeof fb);
        lf_format_commas(fd, fdd, sizeof fdd);
        fprintf(f, "%5d  %-34s %-17s %-16s %12s %12s %12s  %s\n", (int)v, op->name,
                lf_op_info_of(op->type)->name, shape, w, fb, fdd,
                lf_cost_fusable(cm, v) ? "yes" : c.weights > 0 ? "no (weights streamed)" : "no (window too large)");
    }
    lf_bitset_destroy(&one);
    return st;
}

void lf_residency_print(FILE *f, const lf_residency *r, const lf_graph *g, int32_t list)
{
    char kept[32], cap[32], ws[32], without[32], with[32], saved[32];
    lf_format_commas(r->resident_bytes, kept, sizeof kept);
    lf_format_commas(r->capacity, cap, sizeof cap);
    lf_format_commas(r->working_set, ws, sizeof ws);
    lf_format_commas(r->dram_without, without, sizeof without);
    lf_format_commas(r->dram_with, with, sizeof with);
    lf_format_commas(r->saved_bytes, saved, sizeof saved);
    fprintf(f, "weight residency (decode step, exact knapsack): keep %d of %d weight tensors "
               "resident, %s B of the %s B left beside the step's largest working set (%s B); "
               "DRAM per token %s B without, %s B with them (%s B saved)\n",
            (int)r->n_resident, (int)r->n_weights, kept, cap, ws, without, with, saved);
    for (int32_t i = 0; list && i < r->n_resident; i++)
        fprintf(f, "  resident: %s\n", g->consts[r->resident[i]].name);
}

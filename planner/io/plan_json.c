/* Plan as JSON, field by field as docs/plan-format.md describes it. Fixed
 * formatting (2-space indent, one group field per line, short arrays on one
 * line) so that equal plans give equal bytes and diffs stay readable. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "planner/cost/objective.h"
#include "planner/io/json.h"
#include "planner/io/plan_view_internal.h"
#include "planner/optable.h"
#include "planner/residency.h"

#define LF__PLAN_FORMAT "fusionplan-plan"
#define LF__PLAN_FORMAT_VERSION 1

/* Bandwidths and energies are doubles, but usually whole numbers: print those
 * without an exponent (25600000000, not 2.56e+10). Zero means "not given". */
static void lf__json_quantity(FILE *f, double v)
{
    if (!(v > 0) || !isfinite(v))
        fputs("null", f);
    else if (v < 1e15 && v == floor(v))
        fprintf(f, "%.0f", v);
    else
        lf_json_double(f, v);
}

static void lf__json_opt_string(FILE *f, const char *s)
{
    if (s)
        lf_json_string(f, s);
    else
        fputs("null", f);
}

static void lf__json_tensor(FILE *f, const lf_graph *g, int32_t v, int32_t act_bytes, int last)
{
    fprintf(f, "        {\"op\": %d, \"name\": ", (int)v);
    lf_json_string(f, g->ops[v].name);
    fprintf(f, ", \"bytes\": %" PRId64 "}%s\n", lf_tensor_bytes(g, v, act_bytes), last ? "" : ",");
}

static void lf__json_ids(FILE *f, const int32_t *ids, int32_t n)
{
    fputc('[', f);
    for (int32_t i = 0; i < n; i++)
        fprintf(f, "%s%d", i ? ", " : "", (int)ids[i]);
    fputc(']', f);
}

/* Energy and latency (DESIGN §19) as object members, each null where the
 * hardware does not give it; shared by the plan metrics, each group and each
 * unfusable op. `sep` goes before every member (",\n" and an indent, or ", "). */
static void lf__json_perf(FILE *f, const lf_group_perf *p, int has_energy, int has_latency,
                          const char *sep)
{
    fprintf(f, "%s\"macs\": %" PRId64 "%s\"sram_bytes\": %" PRId64 "%s\"energy_pj\": ", sep, p->macs, sep,
            p->sram_bytes, sep);
    if (has_energy) {
        fputs("{\"dram\": ", f);
        lf_json_double(f, p->dram_pj);
        fputs(", \"sram\": ", f);
        lf_json_double(f, p->sram_pj);
        fputs(", \"mac\": ", f);
        lf_json_double(f, p->mac_pj);
        fputs(", \"total\": ", f);
        lf_json_double(f, p->total_pj);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    fprintf(f, "%s\"latency_s\": ", sep);
    if (has_latency)
        lf_json_double(f, p->latency_s);
    else
        fputs("null", f);
    fprintf(f, "%s\"latency_serial_s\": ", sep);
    if (has_latency)
        lf_json_double(f, p->latency_serial_s);
    else
        fputs("null", f);
    fprintf(f, "%s\"bound\": %s", sep,
            !has_latency ? "null" : p->bound == LF_BOUND_COMPUTE ? "\"compute\"" : "\"memory\"");
}

static void lf__json_group(FILE *f, const lf__plan_view *pv, const lf_graph *g, int32_t act_bytes,
                           int32_t k, int32_t *scratch, int last)
{
    const lf_group_cost *c = &pv->cost[k];
    const int32_t *mem = pv->member + pv->start[k];
    int32_t n = pv->start[k + 1] - pv->start[k];
    fprintf(f, "    {\n      \"id\": %d,\n      \"ops\": ", (int)k);
    lf__json_ids(f, mem, n);
    fputs(",\n      \"names\": [", f);
    for (int32_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", f);
        lf_json_string(f, g->ops[mem[i]].name);
    }
    fprintf(f,
            "],\n      \"f_beta\": %" PRId64 ",\n      \"f_d\": %" PRId64 ",\n      \"mbu\": %" PRId64
            ",\n      \"weights\": %" PRId64 ",\n      \"weight_reads\": %d,\n      \"tile_rows\": %d"
            ",\n      \"valid\": %s",
            c->f_beta, c->f_d, c->mbu, c->weights, (int)c->weight_reads, (int)c->tile_rows,
            c->valid ? "true" : "false");
    lf__json_perf(f, &pv->perf[k], pv->metrics.has_energy, pv->metrics.has_latency, ",\n      ");
    fputs(",\n      \"inputs\": [", f);
    int32_t n_in = lf__plan_group_inputs(pv, g, k, scratch);
    if (n_in)
        fputc('\n', f);
    for (int32_t i = 0; i < n_in; i++)
        lf__json_tensor(f, g, scratch[i], act_bytes, i + 1 == n_in);
    fputs(n_in ? "      ],\n      \"outputs\": [" : "],\n      \"outputs\": [", f);
    int32_t n_out = 0;
    for (int32_t i = 0; i < n; i++)
        if (lf__plan_leaves_group(pv, g, mem[i]))
            scratch[n_out++] = mem[i];
    if (n_out)
        fputc('\n', f);
    for (int32_t i = 0; i < n_out; i++)
        lf__json_tensor(f, g, scratch[i], act_bytes, i + 1 == n_out);
    fprintf(f, "%s]\n    }%s\n", n_out ? "      " : "", last ? "" : ",");
}

/* The plan metrics as object members; `more` when another member follows. */
static void lf__json_metrics(FILE *f, const lf_plan_metrics *m, const char *indent, int more)
{
    fprintf(f,
            "%s\"dram_fusable\": %" PRId64 ",\n%s\"dram_all\": %" PRId64 ",\n%s\"mbu\": %" PRId64
            ",\n%s\"groups\": %d,\n%s\"unfusable\": %d,\n%s\"invalid\": %d,\n%s\"dram_time_s\": ",
            indent, m->dram_fusable, indent, m->dram_all, indent, m->mbu, indent, (int)m->n_groups,
            indent, (int)m->n_unfusable, indent, (int)m->n_invalid, indent);
    lf_json_double(f, m->dram_time_s);
    fprintf(f, ",\n%s\"energy_j\": ", indent);
    if (m->energy_j < 0)
        fputs("null", f);
    else
        lf_json_double(f, m->energy_j);
    char sep[24];
    snprintf(sep, sizeof sep, ",\n%s", indent);
    lf__json_perf(f, &m->perf, m->has_energy, m->has_latency, sep);
    fprintf(f, ",\n%s\"compute_bound_groups\": %d", indent, (int)m->n_compute_bound);
    fputs(more ? ",\n" : "\n", f);
}

static void lf__json_header(FILE *f, const lf_graph *g, lf_cost_model *cm, const lf_plan_meta *meta)
{
    const lf_hw *hw = lf_cost_hw(cm);
    char hex[17];
    lf_graph_hash_hex(g, hex);
    fprintf(f, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n", LF__PLAN_FORMAT,
            LF__PLAN_FORMAT_VERSION);
    fputs("  \"tool\": {\n    \"name\": \"fusionplan\",\n    \"version\": ", f);
    lf_json_string(f, LF_VERSION);
    fputs("\n  },\n  \"model\": {\n    \"name\": ", f);
    lf_json_string(f, meta && meta->model ? meta->model : g->name);
    fputs(",\n    \"graph\": ", f);
    lf_json_string(f, g->name);
    fprintf(f, ",\n    \"graph_hash\": \"%s\",\n    \"ops\": %d,\n    \"compute_ops\": %d\n  },\n", hex,
            (int)g->n_ops, (int)lf_graph_compute_ops(g));
    fputs("  \"hardware\": {\n    \"name\": ", f);
    lf_json_string(f, hw->name);
    fputs(",\n    \"source\": ", f);
    lf_json_string(f, hw->source);
    fprintf(f,
            ",\n    \"buffer_bytes\": %" PRId64 ",\n    \"act_bytes\": %d,\n    \"weight_bytes\": %d,"
            "\n    \"dram_bandwidth\": ",
            hw->buffer_bytes, (int)hw->act_bytes, (int)hw->weight_bytes);
    lf__json_quantity(f, hw->dram_bandwidth);
    fputs(",\n    \"dram_pj_per_byte\": ", f);
    lf__json_quantity(f, hw->dram_pj_per_byte);
    fputs(",\n    \"peak_macs\": ", f);
    lf__json_quantity(f, hw->peak_macs);
    if (lf_hw_has_energy(hw)) { /* the figures energy was priced with, defaults filled in */
        lf_hw_energy e;
        lf_hw_energy_model(hw, &e);
        fputs(",\n    \"sram_pj_per_byte\": ", f);
        lf_json_double(f, e.sram_pj_per_byte);
        fputs(",\n    \"mac_pj\": ", f);
        lf_json_double(f, e.mac_pj);
    }
    if (hw->no_attention) /* written only when off: plans without it read as before */
        fputs(",\n    \"attention\": false", f);
    fputs("\n  },\n  \"scheme\": ", f);
    lf_json_string(f, lf_cost_scheme_name(cm));
    if (lf_cost_objective(cm) != LF_PLAN_OBJ_DRAM) { /* only when not the default */
        fputs(",\n  \"objective\": ", f);
        lf_json_string(f, lf_plan_objective_name(lf_cost_objective(cm)));
    }
    fprintf(f, ",\n  \"beta\": %" PRId64 ",\n  \"search\": {\n    \"algorithm\": ", lf_cost_beta(cm));
    lf__json_opt_string(f, meta ? meta->search : NULL);
    fprintf(f, ",\n    \"seed\": %" PRIu64 ",\n    \"budget\": ", meta ? meta->seed : (uint64_t)0);
    if (meta && meta->budget >= 0)
        fprintf(f, "%" PRId64 "\n  },\n", meta->budget);
    else
        fputs("null\n  },\n", f);
}

static void lf__json_unfusable(FILE *f, const lf__plan_view *pv, const lf_graph *g)
{
    int32_t n = 0, written = 0;
    for (int32_t k = 0; k < pv->plan.n_groups; k++)
        n += pv->lone_unfusable[k];
    fputs(n ? "  \"unfusable\": [\n" : "  \"unfusable\": []", f);
    for (int32_t k = 0; k < pv->plan.n_groups; k++) {
        if (!pv->lone_unfusable[k])
            continue;
        int32_t v = pv->member[pv->start[k]];
        fprintf(f, "    {\"id\": %d, \"name\": ", (int)v);
        lf_json_string(f, g->ops[v].name);
        fprintf(f, ", \"type\": \"%s\", \"group\": %d, \"f_beta\": %" PRId64 ", \"dram\": %" PRId64,
                lf_op_info_of(g->ops[v].type)->name, (int)k, pv->cost[k].f_beta, pv->unfusable_dram[k]);
        lf__json_perf(f, &pv->perf[k], pv->metrics.has_energy, pv->metrics.has_latency, ", ");
        fprintf(f, "}%s\n", ++written < n ? "," : "");
    }
    if (n)
        fputs("  ]", f);
}

/* The weight-residency answer of a decode step (planner/residency.h). */
static lf_status lf__json_residency(FILE *f, const lf_plan *p, lf_cost_model *cm)
{
    const lf_graph *g = lf_cost_graph(cm);
    const lf_hw *hw = lf_cost_hw(cm);
    lf_residency r;
    lf_status st = lf_residency_compute(p, cm, &r);
    if (st != LF_OK)
        return st;
    fprintf(f,
            ",\n  \"weight_residency\": {\n    \"working_set\": %" PRId64 ",\n    \"capacity\": %" PRId64
            ",\n    \"weights\": %d,\n    \"resident\": [",
            r.working_set, r.capacity, (int)r.n_weights);
    for (int32_t i = 0; i < r.n_resident; i++) {
        const lf_const *c = &g->consts[r.resident[i]];
        fputs(i ? ",\n      {\"name\": " : "\n      {\"name\": ", f);
        lf_json_string(f, c->name);
        fprintf(f, ", \"bytes\": %" PRId64 "}", lf_const_elems(c) * hw->weight_bytes);
    }
    fprintf(f,
            "%s],\n    \"resident_bytes\": %" PRId64 ",\n    \"saved_bytes\": %" PRId64
            ",\n    \"dram_per_token\": %" PRId64 ",\n    \"dram_per_token_resident\": %" PRId64
            "\n  }",
            r.n_resident ? "\n    " : "", r.resident_bytes, r.saved_bytes, r.dram_without,
            r.dram_with);
    lf_residency_destroy(&r);
    return LF_OK;
}

/* One Pareto plan: its metrics and its canonical op -> group map. */
static void lf__json_pareto_entry(FILE *f, const lf__plan_view *pv, int last)
{
    fputs("    {\n", f);
    lf__json_metrics(f, &pv->metrics, "      ", 1);
    fputs("      \"group_of\": ", f);
    lf__json_ids(f, pv->plan.group_of, pv->plan.n_ops);
    fprintf(f, "\n    }%s\n", last ? "" : ",");
}

/* Views of the Pareto plans, all prepared before anything is written so that
 * a bad Pareto plan fails the call without leaving half a document. */
static lf_status lf__pareto_views(const lf_plan_meta *meta, lf_cost_model *cm, lf__plan_view **out,
                                  int32_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    int32_t n = meta && meta->pareto ? meta->n_pareto : 0;
    if (n <= 0)
        return LF_OK;
    lf__plan_view *pv = calloc((size_t)n, sizeof *pv);
    if (!pv)
        return lf_set_error(LF_ENOMEM, "out of memory writing a Pareto front of %d plans", (int)n);
    lf_status st = LF_OK;
    int32_t i = 0;
    for (; st == LF_OK && i < n; i++)
        st = lf__plan_view_init(&pv[i], &meta->pareto[i], cm);
    if (st != LF_OK) {
        /* Copied first: lf_set_error below overwrites the same message. */
        char buf[400];
        snprintf(buf, sizeof buf, "%s", lf_last_error());
        for (int32_t j = 0; j < i; j++)
            lf__plan_view_destroy(&pv[j]);
        free(pv);
        return lf_set_error(st, "Pareto plan %d: %s", (int)(i - 1), buf);
    }
    *out = pv;
    *n_out = n;
    return LF_OK;
}

lf_status lf_plan_write_json(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta)
{
    if (!f || !p || !cm)
        return lf_set_error(LF_EINVAL, "lf_plan_write_json needs a stream, a plan and a cost model");
    if (meta && meta->n_pareto > 0 && !meta->pareto)
        return lf_set_error(LF_EINVAL, "plan metadata lists %d Pareto plans but gives none",
                            (int)meta->n_pareto);
    const lf_graph *g = lf_cost_graph(cm);
    lf__plan_view pv, *pareto = NULL;
    int32_t n_pareto = 0;
    lf_status st = lf__plan_view_init(&pv, p, cm);
    if (st != LF_OK)
        return st;
    if ((st = lf__pareto_views(meta, cm, &pareto, &n_pareto)) != LF_OK) {
        lf__plan_view_destroy(&pv);
        return st;
    }
    /* Room for every operand slot of the largest group. */
    int32_t slots = 1;
    for (int32_t v = 0; v < g->n_ops; v++)
        slots += g->ops[v].n_inputs + 1;
    int32_t *scratch = malloc((size_t)slots * sizeof(int32_t));
    if (!scratch) {
        for (int32_t i = 0; i < n_pareto; i++)
            lf__plan_view_destroy(&pareto[i]);
        free(pareto);
        lf__plan_view_destroy(&pv);
        return lf_set_error(LF_ENOMEM, "out of memory writing a plan");
    }
    lf__json_header(f, g, cm, meta);
    fputs("  \"metrics\": {\n", f);
    lf__json_metrics(f, &pv.metrics, "    ", 0);
    fputs("  },\n  \"group_of\": ", f);
    lf__json_ids(f, pv.plan.group_of, pv.plan.n_ops);
    int32_t n_fusable = 0, written = 0;
    for (int32_t k = 0; k < pv.plan.n_groups; k++)
        n_fusable += !pv.lone_unfusable[k];
    fputs(n_fusable ? ",\n  \"groups\": [\n" : ",\n  \"groups\": [],\n", f);
    for (int32_t k = 0; k < pv.plan.n_groups; k++)
        if (!pv.lone_unfusable[k])
            lf__json_group(f, &pv, g, lf_cost_hw(cm)->act_bytes, k, scratch, ++written == n_fusable);
    if (n_fusable)
        fputs("  ],\n", f);
    lf__json_unfusable(f, &pv, g);
    if (st == LF_OK && meta && meta->residency)
        st = lf__json_residency(f, p, cm);
    if (n_pareto > 0) {
        fputs(",\n  \"pareto\": [\n", f);
        for (int32_t i = 0; i < n_pareto; i++)
            lf__json_pareto_entry(f, &pareto[i], i + 1 == n_pareto);
        fputs("  ]", f);
    }
    fputs("\n}\n", f);
    for (int32_t i = 0; i < n_pareto; i++)
        lf__plan_view_destroy(&pareto[i]);
    free(pareto);
    free(scratch);
    lf__plan_view_destroy(&pv);
    if (st == LF_OK && ferror(f))
        st = lf_set_error(LF_EIO, "error writing plan JSON");
    return st;
}

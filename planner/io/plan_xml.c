/* Plan as XML: the JSON plan's content (plan_json.c), elements for structure
 * and attributes for values, valid under planner/io/plan.xsd. A JSON null is
 * an attribute left out. Fixed formatting, so equal plans give equal bytes. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "planner/cost/objective.h"
#include "planner/io/plan_view_internal.h"
#include "planner/optable.h"

/* An attribute value: markup characters escaped; control characters, which
 * XML 1.0 cannot carry, and bytes that are not UTF-8 become '?'. */
static void lf__xml_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        unsigned char c = *p;
        int n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        int ok = n > 0 && !(n == 2 && c < 0xc2);
        for (int i = 1; ok && i < n; i++)
            ok = (p[i] & 0xc0) == 0x80;
        if (!ok) {
            fputc('?', f);
            p++;
            continue;
        }
        if (n > 1) {
            fwrite(p, 1, (size_t)n, f);
            p += n;
            continue;
        }
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
        }
        p++;
    }
}

static void lf__attr(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=\"", name);
    lf__xml_text(f, value);
    fputc('"', f);
}

/* A double attribute, left out when not given (zero, negative or not finite). */
static void lf__attr_quantity(FILE *f, const char *name, double v)
{
    if (!(v > 0) || !isfinite(v))
        return;
    if (v < 1e15 && v == floor(v))
        fprintf(f, " %s=\"%.0f\"", name, v);
    else
        fprintf(f, " %s=\"%.10g\"", name, v);
}

static void lf__ids(FILE *f, const int32_t *ids, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        fprintf(f, "%s%d", i ? " " : "", (int)ids[i]);
}

/* Energy and latency (DESIGN §19) as attributes, where the hardware gives them. */
static void lf__perf(FILE *f, const lf_group_perf *p, int has_energy, int has_latency)
{
    fprintf(f, " macs=\"%" PRId64 "\" sram_bytes=\"%" PRId64 "\"", p->macs, p->sram_bytes);
    if (has_energy)
        fprintf(f, " energy_dram_pj=\"%.17g\" energy_sram_pj=\"%.17g\" energy_mac_pj=\"%.17g\" "
                   "energy_total_pj=\"%.17g\"",
                p->dram_pj, p->sram_pj, p->mac_pj, p->total_pj);
    if (has_latency)
        fprintf(f, " latency_s=\"%.17g\" latency_serial_s=\"%.17g\" bound=\"%s\"", p->latency_s,
                p->latency_serial_s, lf_bound_name(p->bound));
}

static void lf__metrics(FILE *f, const lf_plan_metrics *m)
{
    fprintf(f,
            " dram_fusable=\"%" PRId64 "\" dram_all=\"%" PRId64 "\" mbu=\"%" PRId64
            "\" groups=\"%d\" unfusable=\"%d\" invalid=\"%d\"",
            m->dram_fusable, m->dram_all, m->mbu, (int)m->n_groups, (int)m->n_unfusable,
            (int)m->n_invalid);
    if (isfinite(m->dram_time_s))
        fprintf(f, " dram_time_s=\"%.10g\"", m->dram_time_s);
    if (m->energy_j >= 0 && isfinite(m->energy_j))
        fprintf(f, " energy_j=\"%.10g\"", m->energy_j);
    lf__perf(f, &m->perf, m->has_energy, m->has_latency);
    fprintf(f, " compute_bound_groups=\"%d\"", (int)m->n_compute_bound);
}

static void lf__tensor(FILE *f, const char *tag, const lf_graph *g, int32_t v, int32_t act_bytes)
{
    fprintf(f, "      <%s op=\"%d\"", tag, (int)v);
    lf__attr(f, "name", g->ops[v].name);
    fprintf(f, " bytes=\"%" PRId64 "\"/>\n", lf_tensor_bytes(g, v, act_bytes));
}

static void lf__group(FILE *f, const lf__plan_view *pv, const lf_graph *g, int32_t act_bytes,
                      int32_t k, int32_t *scratch)
{
    const lf_group_cost *c = &pv->cost[k];
    fprintf(f,
            "    <group id=\"%d\" f_beta=\"%" PRId64 "\" f_d=\"%" PRId64 "\" mbu=\"%" PRId64
            "\" weights=\"%" PRId64 "\" weight_reads=\"%d\" tile_rows=\"%d\" valid=\"%s\"",
            (int)k, c->f_beta, c->f_d, c->mbu, c->weights, (int)c->weight_reads, (int)c->tile_rows,
            c->valid ? "true" : "false");
    lf__perf(f, &pv->perf[k], pv->metrics.has_energy, pv->metrics.has_latency);
    fputs(">\n", f);
    for (int32_t i = pv->start[k]; i < pv->start[k + 1]; i++) {
        fprintf(f, "      <op id=\"%d\"", (int)pv->member[i]);
        lf__attr(f, "name", g->ops[pv->member[i]].name);
        fputs("/>\n", f);
    }
    int32_t n_in = lf__plan_group_inputs(pv, g, k, scratch);
    for (int32_t i = 0; i < n_in; i++)
        lf__tensor(f, "input", g, scratch[i], act_bytes);
    for (int32_t i = pv->start[k]; i < pv->start[k + 1]; i++)
        if (lf__plan_leaves_group(pv, g, pv->member[i]))
            lf__tensor(f, "output", g, pv->member[i], act_bytes);
    fputs("    </group>\n", f);
}

static void lf__header(FILE *f, const lf_graph *g, lf_cost_model *cm, const lf_plan_meta *meta)
{
    const lf_hw *hw = lf_cost_hw(cm);
    char hex[17];
    lf_graph_hash_hex(g, hex);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plan format=\"fusionplan-plan\" "
          "version=\"1\"",
          f);
    lf__attr(f, "scheme", lf_cost_scheme_name(cm));
    if (lf_cost_objective(cm) != LF_PLAN_OBJ_DRAM) /* only when not the default */
        lf__attr(f, "objective", lf_plan_objective_name(lf_cost_objective(cm)));
    fprintf(f, " beta=\"%" PRId64 "\">\n  <tool name=\"fusionplan\"", lf_cost_beta(cm));
    lf__attr(f, "version", LF_VERSION);
    fputs("/>\n  <model", f);
    lf__attr(f, "name", meta && meta->model ? meta->model : g->name);
    lf__attr(f, "graph", g->name);
    fprintf(f, " graph_hash=\"%s\" ops=\"%d\" compute_ops=\"%d\"/>\n  <hardware", hex, (int)g->n_ops,
            (int)lf_graph_compute_ops(g));
    lf__attr(f, "name", hw->name);
    lf__attr(f, "source", hw->source);
    fprintf(f, " buffer_bytes=\"%" PRId64 "\" act_bytes=\"%d\" weight_bytes=\"%d\"", hw->buffer_bytes,
            (int)hw->act_bytes, (int)hw->weight_bytes);
    lf__attr_quantity(f, "dram_bandwidth", hw->dram_bandwidth);
    lf__attr_quantity(f, "dram_pj_per_byte", hw->dram_pj_per_byte);
    lf__attr_quantity(f, "peak_macs", hw->peak_macs);
    if (lf_hw_has_energy(hw)) {
        lf_hw_energy e;
        lf_hw_energy_model(hw, &e);
        fprintf(f, " sram_pj_per_byte=\"%.17g\" mac_pj=\"%.17g\"", e.sram_pj_per_byte, e.mac_pj);
    }
    if (hw->no_attention) /* as the JSON plan: written only when off */
        fputs(" attention=\"false\"", f);
    fputs("/>\n  <search", f);
    if (meta && meta->search)
        lf__attr(f, "algorithm", meta->search);
    fprintf(f, " seed=\"%" PRIu64 "\"", meta ? meta->seed : (uint64_t)0);
    if (meta && meta->budget >= 0)
        fprintf(f, " budget=\"%" PRId64 "\"", meta->budget);
    fputs("/>\n", f);
}

lf_status lf_plan_write_xml(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta)
{
    if (!f || !p || !cm)
        return lf_set_error(LF_EINVAL, "lf_plan_write_xml needs a stream, a plan and a cost model");
    if (meta && meta->n_pareto > 0 && !meta->pareto)
        return lf_set_error(LF_EINVAL, "plan metadata lists %d Pareto plans but gives none",
                            (int)meta->n_pareto);
    const lf_graph *g = lf_cost_graph(cm);
    int32_t n_pareto = meta && meta->pareto ? meta->n_pareto : 0;
    lf__plan_view pv;
    lf_status st = lf__plan_view_init(&pv, p, cm);
    if (st != LF_OK)
        return st;
    /* Pareto plans are checked and priced before anything is written. */
    lf_plan_metrics *pm = calloc((size_t)n_pareto + 1, sizeof *pm);
    lf_plan *canon = calloc((size_t)n_pareto + 1, sizeof *canon);
    int32_t slots = 1;
    for (int32_t v = 0; v < g->n_ops; v++)
        slots += g->ops[v].n_inputs + 1;
    int32_t *scratch = malloc((size_t)slots * sizeof(int32_t));
    if (!pm || !canon || !scratch)
        st = lf_set_error(LF_ENOMEM, "out of memory writing a plan");
    for (int32_t i = 0; st == LF_OK && i < n_pareto; i++) {
        lf__plan_view v;
        if ((st = lf__plan_view_init(&v, &meta->pareto[i], cm)) != LF_OK) {
            char buf[400];
            snprintf(buf, sizeof buf, "%s", lf_last_error());
            st = lf_set_error(st, "Pareto plan %d: %s", (int)i, buf);
            break;
        }
        pm[i] = v.metrics;
        canon[i] = v.plan;
        v.plan.group_of = NULL; /* kept */
        lf__plan_view_destroy(&v);
    }
    if (st == LF_OK) {
        lf__header(f, g, cm, meta);
        fputs("  <metrics", f);
        lf__metrics(f, &pv.metrics);
        fputs("/>\n  <group_of>", f);
        lf__ids(f, pv.plan.group_of, pv.plan.n_ops);
        fputs("</group_of>\n  <groups>\n", f);
        for (int32_t k = 0; k < pv.plan.n_groups; k++)
            if (!pv.lone_unfusable[k])
                lf__group(f, &pv, g, lf_cost_hw(cm)->act_bytes, k, scratch);
        fputs("  </groups>\n  <unfusable>\n", f);
        for (int32_t k = 0; k < pv.plan.n_groups; k++) {
            if (!pv.lone_unfusable[k])
                continue;
            int32_t v = pv.member[pv.start[k]];
            fprintf(f, "    <op id=\"%d\"", (int)v);
            lf__attr(f, "name", g->ops[v].name);
            lf__attr(f, "type", lf_op_info_of(g->ops[v].type)->name);
            fprintf(f, " group=\"%d\" f_beta=\"%" PRId64 "\" dram=\"%" PRId64 "\"", (int)k,
                    pv.cost[k].f_beta, pv.unfusable_dram[k]);
            lf__perf(f, &pv.perf[k], pv.metrics.has_energy, pv.metrics.has_latency);
            fputs("/>\n", f);
        }
        fputs("  </unfusable>\n", f);
        if (n_pareto > 0) {
            fputs("  <pareto>\n", f);
            for (int32_t i = 0; i < n_pareto; i++) {
                fputs("    <point", f);
                lf__metrics(f, &pm[i]);
                fputs(">\n      <group_of>", f);
                lf__ids(f, canon[i].group_of, canon[i].n_ops);
                fputs("</group_of>\n    </point>\n", f);
            }
            fputs("  </pareto>\n", f);
        }
        fputs("</plan>\n", f);
        if (ferror(f))
            st = lf_set_error(LF_EIO, "error writing plan XML");
    }
    for (int32_t i = 0; canon && i < n_pareto; i++)
        lf_plan_destroy(&canon[i]);
    free(canon);
    free(pm);
    free(scratch);
    lf__plan_view_destroy(&pv);
    return st;
}

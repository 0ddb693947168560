/* Plans for bindings: one lf_plan_network call on a cost model built from a
 * graph, a hardware object and an option object, kept in a handle that
 * exports, renders and re-checks the plan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cost/objective.h"
#include "planner/app/api/api_internal.h"
#include "planner/io/plan_read.h"
#include "planner/app/pipeline.h"
#include "planner/app/registry.h"

struct lf_api_plan {
    lf_pipeline p;  /* p.graph is the caller's: never freed here */
    json_t *options; /* the option strings lf_planned points into */
};

/* The planner options of an option object (exact_set: a limit was given). */
static lf_status lf__planner_options(const json_t *o, lf_planner_config *pc, const char **scheme,
                                     int *exact_set)
{
    static const char *w = "options";
    const char *objectives = NULL;
    int64_t seed = (int64_t)pc->seed;
    lf_status st;
    if ((st = lf__api_str(o, w, "scheme", scheme)) || (st = lf__api_str(o, w, "search", &pc->search)) ||
        (st = lf__api_str(o, w, "objective", &pc->objective)) ||
        (st = lf__api_int(o, w, "budget", 1, INT64_MAX / 2, &pc->budget)) ||
        (st = lf__api_int(o, w, "seed", 0, INT64_MAX / 2, &seed)) ||
        (st = lf__api_i32(o, w, "threads", 0, 1024, &pc->threads)) ||
        (st = lf__api_i32(o, w, "population", 1, 1000000, &pc->population)) ||
        (st = lf__api_str(o, w, "objectives", &objectives)) ||
        (st = lf__api_str(o, w, "split", &pc->split)) || (st = lf__api_str(o, w, "proposer", &pc->proposer)) ||
        (st = lf__api_i32(o, w, "k", 0, 1000000, &pc->k)) ||
        (st = lf__api_str(o, w, "gnn_weights", &pc->gnn_weights)) ||
        (st = lf__api_str(o, w, "pg_weights", &pc->pg_weights)) ||
        (st = lf__api_str(o, w, "rg_weights", &pc->rg_weights)) ||
        (st = lf__api_flag(o, w, "split_continue", &pc->split_continue)) ||
        (st = lf__api_flag(o, w, "split_gap", &pc->split_gap)) ||
        (st = lf__api_flag(o, w, "compare_exact", &pc->compare_exact)) ||
        (st = lf__api_str(o, w, "seed_plans", &pc->seed_plans)) ||
        (st = lf__api_flag(o, w, "guided", &pc->guided)) ||
        (st = lf__api_i32(o, w, "polish", 0, 1000000, &pc->polish)) ||
        (st = lf__api_flag(o, w, "best_effort", &pc->best_effort)) ||
        (st = lf__api_num(o, w, "time_limit", 0.0, 1e7, &pc->exact.time_limit_s)) ||
        (st = lf__api_int(o, w, "max_states", 1, INT32_MAX - 1, &pc->exact.max_states)) ||
        (st = lf__api_int(o, w, "max_candidates", 1, INT64_MAX, &pc->exact.max_candidates)) ||
        (st = lf__api_int(o, w, "memory_limit", 0, INT64_MAX, &pc->exact.memory_limit)) ||
        (st = lf__api_int(o, w, "upper_bound", 1, INT64_MAX, &pc->exact.upper_bound)))
        return st;
    pc->seed = (uint64_t)seed;
    if (lf_plan_objective_from_name(pc->objective) == LF_PLAN_OBJ_COUNT)
        return lf_set_error(LF_EINVAL, "options: objective: unknown '%.40s' (use dram, energy or latency)",
                            pc->objective);
    if (objectives && strcmp(objectives, "dram") && strcmp(objectives, "dram,groups"))
        return lf_set_error(LF_EINVAL, "options: objectives: unknown '%s' (use dram,groups or dram)",
                            objectives);
    pc->objectives = objectives && strcmp(objectives, "dram") == 0 ? 1 : 3;
    *exact_set = json_object_get(o, "time_limit") || json_object_get(o, "max_states") ||
                 json_object_get(o, "max_candidates") || json_object_get(o, "memory_limit");
    /* names resolve through the registries, with the CLI's messages */
    if ((st = lf_name_check(LF_NAMES_SEARCH, pc->search)) || (st = lf_name_check(LF_NAMES_SCHEME, *scheme)) ||
        (st = lf_name_check(LF_NAMES_SPLIT, pc->split)))
        return st;
    return lf_planner_config_check(pc, *exact_set);
}

lf_status lf_api_plan_run(const lf_graph *g, const char *hw_json, const char *options_json,
                          lf_progress_fn progress, void *user, lf_api_plan **out)
{
    static const char *const allowed[] = {
        "scheme", "search", "budget", "seed", "threads", "population", "objectives", "split",
        "proposer", "k", "gnn_weights", "pg_weights", "rg_weights", "split_continue", "split_gap",
        "compare_exact", "seed_plans", "guided", "polish", "best_effort", "time_limit",
        "max_states", "max_candidates", "memory_limit", "objective", "upper_bound", NULL};
    *out = NULL;
    if (!g)
        return lf_set_error(LF_EINVAL, "plan: no graph");
    lf_api_plan *h = calloc(1, sizeof *h);
    if (!h)
        return lf_set_error(LF_ENOMEM, "out of memory");
    lf_pipeline_config cfg;
    lf_pipeline_config_default(&cfg);
    const char *scheme = "lbdf";
    int exact_set = 0;
    lf_status st = lf__api_object(options_json, "options", allowed, &h->options);
    if (st == LF_OK)
        st = lf__planner_options(h->options, &cfg.planner, &scheme, &exact_set);
    if (st == LF_OK)
        st = lf__api_hw(hw_json, &cfg.hw);
    if (st == LF_OK)
        st = lf_cost_model_create(&h->p.cm, g, &cfg.hw, scheme);
    if (st != LF_OK) {
        lf_api_plan_free(h);
        return st;
    }
    h->p.graph = (lf_graph *)g;
    h->p.model_name = g->name;
    cfg.planner.progress = progress;
    cfg.planner.progress_user = user;
    if ((st = lf_plan_network(h->p.cm, &cfg.planner, &h->p.result)) != LF_OK) {
        lf_api_plan_free(h);
        return st;
    }
    *out = h;
    return LF_OK;
}

void lf_api_plan_free(lf_api_plan *h)
{
    if (!h)
        return;
    lf_planned_destroy(&h->p.result);
    lf_cost_model_free(h->p.cm);
    json_decref(h->options);
    free(h);
}

static lf_plan_meta lf__meta(const lf_api_plan *h)
{
    const lf_planned *r = &h->p.result;
    lf_plan_meta meta = {h->p.model_name, r->search, r->heuristic ? r->seed : 0,
                         r->heuristic ? r->budget : -1, 0, NULL, NULL, h->p.residency};
    return meta;
}

lf_status lf_api_plan_render(lf_api_plan *h, const char *format, char **out, size_t *len)
{
    *out = NULL;
    if (len)
        *len = 0;
    lf_plan_meta meta = lf__meta(h);
    const lf_plan *p = &h->p.result.plan;
    lf__api_mem m;
    lf_status st = lf__api_mem_open(&m);
    if (st != LF_OK)
        return st;
    if (!format || strcmp(format, "json") == 0)
        st = lf_plan_write_json(m.f, p, h->p.cm, &meta);
    else if (strcmp(format, "dot") == 0)
        st = lf_plan_write_dot(m.f, p, h->p.cm, &meta);
    else if (strcmp(format, "xml") == 0)
        st = lf_plan_write_xml(m.f, p, h->p.cm, &meta);
    else if (strcmp(format, "svg") == 0 || strcmp(format, "png") == 0)
        st = lf_plan_write_image(m.f, format, p, h->p.cm, &meta);
    else if (strcmp(format, "stream") == 0)
        st = lf_plan_write_stream(m.f, p, h->p.cm, &meta);
    else if (strcmp(format, "html") == 0)
        st = lf_plan_write_html(m.f, p, h->p.cm, &meta);
    else
        st = lf_set_error(LF_EINVAL, "render: unknown format '%s' (use json, dot, xml, svg, png, "
                                     "stream or html; save() writes onnx)", format);
    if (st != LF_OK) {
        lf__api_mem_abort(&m);
        return st;
    }
    return lf__api_mem_close(&m, out, len);
}

lf_status lf_api_plan_json(const lf_api_plan *h, char **out)
{
    return lf_api_plan_render((lf_api_plan *)h, "json", out, NULL);
}

/* A real as the plan file prints it (%.10g), so both forms give one value. */
static json_t *lf__real10(double x)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.10g", x);
    return json_real(strtod(buf, NULL));
}

lf_status lf_api_plan_run_json(const lf_api_plan *h, char **out)
{
    const lf_planned *r = &h->p.result;
    const lf_search_result *s = &r->search_result;
    const lf_plan_metrics *m = &r->metrics;
    int known = r->exact_dram >= 0;
    /* the plan file's metrics again, so that a binding reads the figures
     * without parsing the whole plan */
    json_t *metrics = json_pack("{s:I, s:I, s:I, s:i, s:i, s:i, s:o, s:o}", "dram_fusable",
                                (json_int_t)m->dram_fusable, "dram_all", (json_int_t)m->dram_all,
                                "mbu", (json_int_t)m->mbu, "groups", (int)m->n_groups, "unfusable",
                                (int)m->n_unfusable, "invalid", (int)m->n_invalid, "dram_time_s",
                                lf__real10(m->dram_time_s), "energy_j",
                                m->energy_j < 0 ? json_null() : lf__real10(m->energy_j));
    if (metrics) { /* DESIGN §19, as the plan file writes them: null where the hardware lacks them */
        const lf_group_perf *pf = &m->perf;
        json_object_set_new(metrics, "macs", json_integer((json_int_t)pf->macs));
        json_object_set_new(metrics, "sram_bytes", json_integer((json_int_t)pf->sram_bytes));
        json_object_set_new(metrics, "energy_pj",
                            !m->has_energy ? json_null()
                                           : json_pack("{s:o, s:o, s:o, s:o}", "dram", lf__real10(pf->dram_pj),
                                                       "sram", lf__real10(pf->sram_pj), "mac",
                                                       lf__real10(pf->mac_pj), "total", lf__real10(pf->total_pj)));
        json_object_set_new(metrics, "latency_s", m->has_latency ? lf__real10(pf->latency_s) : json_null());
        json_object_set_new(metrics, "latency_serial_s",
                            m->has_latency ? lf__real10(pf->latency_serial_s) : json_null());
        json_object_set_new(metrics, "bound",
                            m->has_latency ? json_string(lf_bound_name(pf->bound)) : json_null());
        json_object_set_new(metrics, "compute_bound_groups", json_integer(m->n_compute_bound));
    }
    json_t *v = json_pack(
        "{s:o, s:s, s:I, s:I, s:f, s:o, s:b, s:o, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
        "s:I, s:f}",
        "metrics", metrics, "search", r->search ? r->search : "", "seed", (json_int_t)r->seed,
        "budget", (json_int_t)r->budget, "wall_s", r->wall_s, "exact_dram",
        known ? json_integer(r->exact_dram) : json_null(), "optimal",
        known && r->exact_objective == m->objective, "lower_bound",
        r->lower_bound > 0 ? json_integer(r->lower_bound) : json_null(), "bound_note", r->bound_note,
        "exact_error", r->exact_error, "split", r->split_name, "states",
        (json_int_t)r->exact_stats.states, "candidates", (json_int_t)r->exact_stats.candidates,
        "groups_priced", (json_int_t)(r->exact_stats.groups - r->exact_stats.groups_skipped), "plans",
        (json_int_t)s->plans_proposed, "invalid_groups", (json_int_t)s->invalid_groups, "splits",
        (json_int_t)s->splits, "cache_hits", (json_int_t)s->cache_hits, "cache_misses",
        (json_int_t)s->cache_misses, "split_s", s->split_s);
    if (v) { /* the objective the bounds and the optimum are figures of (B, fJ, fs) */
        lf_plan_objective o = lf_cost_objective(h->p.cm);
        json_object_set_new(v, "objective", json_string(lf_plan_objective_name(o)));
        json_object_set_new(v, "objective_unit", json_string(lf_plan_objective_unit(o)));
        json_object_set_new(v, "objective_fusable", json_integer((json_int_t)m->objective));
        json_object_set_new(v, "pruned", json_integer((json_int_t)r->exact_stats.pruned));
        json_object_set_new(v, "exact_objective",
                            r->exact_objective >= 0 ? json_integer((json_int_t)r->exact_objective) : json_null());
    }
    const lf_tree_stats *ts = &r->tree_stats;
    const lf_polish_stats *ps = &r->polish;
    if (v)
        json_object_set_new(v, "tree", !r->have_tree_stats ? json_null() :
            json_pack("{s:I, s:f, s:I, s:I, s:f, s:f}", "groups", (json_int_t)ts->groups,
                      "rectify_rate", ts->rectify_rate, "tree_success", (json_int_t)ts->tree_success,
                      "gap_groups", (json_int_t)ts->gap_groups, "mean_gap", ts->mean_gap, "split_s",
                      ts->split_s));
    if (v)
        json_object_set_new(v, "polish", ps->passes <= 0 ? json_null() :
            json_pack("{s:i, s:i, s:i, s:i, s:I, s:I}", "passes", (int)ps->passes, "windows",
                      (int)ps->windows, "improved", (int)ps->improved, "limited", (int)ps->limited,
                      "dram_before", (json_int_t)ps->dram_before, "dram_after",
                      (json_int_t)ps->dram_after));
    return v ? lf__api_dump(v, out) : lf_set_error(LF_ENOMEM, "out of memory");
}

lf_status lf_api_plan_save(lf_api_plan *h, const char *path, const char *format)
{
    if (!path)
        return lf_set_error(LF_EINVAL, "save: no path");
    return lf_pipeline_save(&h->p, path, format, 0);
}

static void lf__issue(void *user, const char *message)
{
    json_array_append_new((json_t *)user, json_string(message));
}

lf_status lf_api_plan_validate(lf_api_plan *h, char **out)
{
    *out = NULL;
    char *text = NULL;
    size_t len = 0;
    lf_status st = lf_api_plan_render(h, "json", &text, &len);
    if (st != LF_OK)
        return st;
    lf_plan_doc doc;
    st = lf_plan_doc_read_memory(&doc, text, len, "plan");
    free(text);
    json_t *issues = json_array();
    int32_t n = 0;
    if (st == LF_OK)
        st = issues ? lf_plan_validate(&doc, h->p.cm, lf__issue, issues, &n)
                    : lf_set_error(LF_ENOMEM, "out of memory");
    lf_plan_doc_destroy(&doc);
    if (st != LF_OK) {
        json_decref(issues);
        return st;
    }
    return lf__api_dump(issues, out);
}

lf_status lf_api_validate_file(const char *path, const lf_graph *g, const char *hw_json, char **out)
{
    *out = NULL;
    lf_plan_doc doc;
    lf_status st = lf_plan_doc_read(&doc, path);
    lf_model_source src;
    memset(&src, 0, sizeof src);
    if (st == LF_OK && !g)
        st = lf_model_source_for_plan(&src, path, doc.model);
    lf_hw hw = doc.hw;
    if (st == LF_OK && hw_json && *hw_json)
        st = lf__api_hw(hw_json, &hw);
    if (st == LF_OK && !lf_name_known(LF_NAMES_SCHEME, doc.scheme))
        st = lf_set_error(LF_EINVAL, "%s: scheme: unknown cost model '%s'", path, doc.scheme);
    lf_graph *own = NULL;
    if (st == LF_OK && !g && (st = lf_model_source_load(&src, &own, NULL)) == LF_OK)
        g = own;
    lf_cost_model *cm = NULL;
    json_t *issues = json_array();
    int32_t n = 0;
    if (st == LF_OK && (st = lf_cost_model_create(&cm, g, &hw, doc.scheme)) == LF_OK)
        st = lf_plan_validate(&doc, cm, lf__issue, issues, &n);
    json_t *v = NULL;
    if (st == LF_OK && !(v = json_pack("{s:s, s:s, s:O}", "model", doc.model, "scheme", doc.scheme,
                                       "issues", issues)))
        st = lf_set_error(LF_ENOMEM, "out of memory");
    json_decref(issues);
    lf_cost_model_free(cm);
    lf_graph_free(own);
    lf_plan_doc_destroy(&doc);
    return st == LF_OK ? lf__api_dump(v, out) : st;
}

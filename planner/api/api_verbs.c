/* The other verbs for bindings, each one library call with its JSON report:
 * info's text, the staircase (lf_curve_report_compute), the substitution optimizer
 * (lf_subst_job_run) and inter-operator scheduling (lf_sched_run). */
#include <stdlib.h>
#include <string.h>

#include "planner/app/api/api_internal.h"
#include "planner/cost/cost.h"
#include "planner/exact/exact.h"
#include "planner/app/pipeline.h"
#include "planner/app/registry.h"
#include "search/schedule/schedule.h"
#include "search/subst/job.h"
#include "search/subst/report.h"
#include "search/sweep/curve_report.h"

lf_status lf_api_info(const lf_graph *g, const char *hw_json, const char *scheme, int ops, char **out)
{
    *out = NULL;
    lf_hw hw;
    lf_cost_model *cm = NULL;
    if (!scheme)
        scheme = "lbdf";
    lf_status st = lf_name_check(LF_NAMES_SCHEME, scheme);
    if (st == LF_OK)
        st = lf__api_hw(hw_json, &hw);
    if (st == LF_OK)
        st = lf_cost_model_create(&cm, g, &hw, scheme);
    lf__api_mem m;
    if (st == LF_OK && (st = lf__api_mem_open(&m)) == LF_OK) {
        st = lf_network_print_summary(m.f, cm, &hw);
        if (st == LF_OK && ops)
            st = lf_network_print_ops(m.f, cm);
        if (st != LF_OK)
            lf__api_mem_abort(&m);
        else
            st = lf__api_mem_close(&m, out, NULL);
    }
    lf_cost_model_free(cm);
    return st;
}

lf_status lf_api_curve(const lf_graph *g, const char *hw_json, const char *options_json,
                       char **json, char **svg)
{
    static const char *const allowed[] = {"scheme", "min", "max", "time_limit", "max_states",
                                          "max_candidates", "memory_limit", "threads", NULL};
    static const char *w = "options";
    *json = NULL;
    if (svg)
        *svg = NULL;
    json_t *o;
    lf_status st = lf__api_object(options_json, w, allowed, &o);
    if (st != LF_OK)
        return st;
    const char *scheme = "lbdf";
    int64_t lo = 64 * 1024, hi = 4 * 1024 * 1024;
    lf_exact_config ec;
    lf_exact_config_default(&ec);
    lf_hw hw;
    if ((st = lf__api_str(o, w, "scheme", &scheme)) || (st = lf__api_size(o, w, "min", &lo)) ||
        (st = lf__api_size(o, w, "max", &hi)) ||
        (st = lf__api_num(o, w, "time_limit", 0.0, 1e7, &ec.time_limit_s)) ||
        (st = lf__api_int(o, w, "max_states", 1, INT32_MAX - 1, &ec.max_states)) ||
        (st = lf__api_int(o, w, "max_candidates", 1, INT64_MAX, &ec.max_candidates)) ||
        (st = lf__api_int(o, w, "memory_limit", 0, INT64_MAX, &ec.memory_limit)) ||
        (st = lf__api_i32(o, w, "threads", 0, 1024, &ec.threads)) ||
        (st = lf_name_check(LF_NAMES_SCHEME, scheme)) || (st = lf__api_hw(hw_json, &hw))) {
        json_decref(o);
        return st;
    }
    if (hi <= lo) {
        json_decref(o);
        return lf_set_error(LF_EINVAL, "curve: max must be larger than min");
    }
    lf_curve_report r;
    memset(&r, 0, sizeof r);
    st = lf_curve_report_compute(&r, g, g->name, &hw, scheme, lo, hi, &ec);
    lf__api_mem m;
    for (int k = 0; k < 2 && st == LF_OK; k++) {
        if (k == 1 && !svg)
            break;
        if ((st = lf__api_mem_open(&m)) != LF_OK)
            break;
        if (k == 0)
            lf_curve_report_json(m.f, &r);
        else
            st = lf_curve_report_svg(m.f, &r);
        if (st != LF_OK)
            lf__api_mem_abort(&m);
        else
            st = lf__api_mem_close(&m, k == 0 ? json : svg, NULL);
    }
    lf_curve_report_destroy(&r);
    json_decref(o);
    if (st != LF_OK) {
        free(*json);
        *json = NULL;
    }
    return st;
}

lf_status lf_api_optimize(const lf_graph *g, const char *hw_json, const char *options_json,
                          lf_graph **out_graph, char **report)
{
    static const char *const allowed[] = {"search", "objective", "scheme", "budget", "max_steps",
                                          "seed", "time_limit", "threads", "dram", "rules", NULL};
    static const char *w = "options";
    *out_graph = NULL;
    *report = NULL;
    json_t *o;
    lf_status st = lf__api_object(options_json, w, allowed, &o);
    if (st != LF_OK)
        return st;
    lf_subst_job_config cfg;
    lf_subst_job_config_default(&cfg);
    lf_subst_options *so = &cfg.options;
    const char *search = "backtrack", *objective = "time", *scheme = NULL;
    int64_t seed = 1;
    int32_t steps = -1;
    lf_hw hw;
    cfg.rules = "builtin,generated"; /* as `fusionplan optimize` */
    if ((st = lf__api_str(o, w, "search", &search)) || (st = lf__api_str(o, w, "objective", &objective)) ||
        (st = lf__api_str(o, w, "scheme", &scheme)) || (st = lf__api_str(o, w, "rules", &cfg.rules)) ||
        (st = lf__api_int(o, w, "budget", 1, 100000000, &so->budget)) ||
        (st = lf__api_i32(o, w, "max_steps", 1, 64, &steps)) ||
        (st = lf__api_int(o, w, "seed", 0, INT64_MAX, &seed)) ||
        (st = lf__api_num(o, w, "time_limit", 0.0, 1e7, &so->time_limit_s)) ||
        (st = lf__api_i32(o, w, "threads", 1, 1024, &so->threads)) ||
        (st = lf__api_flag(o, w, "dram", &cfg.with_dram)) || (st = lf__api_hw(hw_json, &hw)) ||
        (scheme && (st = lf_name_check(LF_NAMES_SCHEME, scheme)))) {
        json_decref(o);
        return st;
    }
    so->seed = (uint64_t)seed;
    if (steps > 0) /* as optimize --max-steps: the longest sequence of every search */
        so->max_steps = so->bt_max_steps = so->max_len = steps;
    so->search = lf_subst_search_from_name(search);
    lf_subst_objective obj = lf_subst_objective_from_name(objective);
    if (so->search == LF_SEARCH_COUNT)
        st = lf_set_error(LF_EINVAL, "optimize: unknown search '%s' (backtrack, enum, split, prune, dpp, "
                                     "sample)", search);
    else if (obj == LF_OBJ_COUNT)
        st = lf_set_error(LF_EINVAL, "optimize: unknown objective '%s' (time, flops, bytes, kernels, "
                                     "dram)", objective);
    if (st != LF_OK) {
        json_decref(o);
        return st;
    }
    lf_subst_coster_init(&cfg.coster, obj, &hw, scheme);
    lf_subst_job job;
    st = lf_subst_job_run(g, &cfg, &job, NULL, NULL);
    lf__api_mem m;
    if (st == LF_OK && (st = lf__api_mem_open(&m)) == LF_OK) {
        if ((st = lf_subst_job_write_json(m.f, &job, g->name)) != LF_OK)
            lf__api_mem_abort(&m);
        else
            st = lf__api_mem_close(&m, report, NULL);
    }
    if (st == LF_OK && job.result.n_steps > 0) {
        *out_graph = job.result.graph;
        job.result.graph = NULL;
    }
    lf_subst_job_destroy(&job);
    json_decref(o);
    return st;
}

lf_status lf_api_schedule(const lf_graph *g, const char *hw_json, const char *options_json, char **out)
{
    static const char *const allowed[] = {"max_group_ops", "max_groups", "max_part_ops", "max_states",
                                          "max_endings", "streams", "merge", "concurrent", NULL};
    static const char *w = "options";
    *out = NULL;
    json_t *o;
    lf_status st = lf__api_object(options_json, w, allowed, &o);
    if (st != LF_OK)
        return st;
    lf_sched_options so;
    lf_sched_options_default(&so);
    lf_hw hw;
    if ((st = lf__api_i32(o, w, "max_group_ops", 1, 64, &so.max_group_ops)) ||
        (st = lf__api_i32(o, w, "max_groups", 1, 64, &so.max_groups)) ||
        (st = lf__api_i32(o, w, "max_part_ops", 1, 64, &so.max_part_ops)) ||
        (st = lf__api_int(o, w, "max_states", 1, (int64_t)1 << 26, &so.max_states)) ||
        (st = lf__api_int(o, w, "max_endings", 1, (int64_t)1 << 40, &so.max_endings)) ||
        (st = lf__api_i32(o, w, "streams", 1, 64, &so.greedy_streams)) ||
        (st = lf__api_flag(o, w, "merge", &so.merge)) || (st = lf__api_flag(o, w, "concurrent", &so.concurrent)) ||
        (st = lf__api_hw(hw_json, &hw))) {
        json_decref(o);
        return st;
    }
    json_decref(o);
    if (!so.merge && !so.concurrent)
        return lf_set_error(LF_EINVAL, "schedule: merge and concurrent cannot both be false");
    so.hw = &hw;
    lf_sched_result r;
    memset(&r, 0, sizeof r);
    st = lf_sched_run(g, &so, &r);
    lf__api_mem m;
    if (st == LF_OK && (st = lf__api_mem_open(&m)) == LF_OK) {
        if ((st = lf_sched_write_json(g, g->name, &so, &r, m.f)) != LF_OK)
            lf__api_mem_abort(&m);
        else
            st = lf__api_mem_close(&m, out, NULL);
    }
    lf_sched_result_destroy(&r);
    return st;
}

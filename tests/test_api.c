/* The binding API (planner/app/api/api.h): each call gives what the pipeline
 * gives for the same inputs (the plan JSON byte for byte against
 * lf_pipeline_run and lf_plan_write_json), option objects are checked
 * member by member with one-line messages, handles are safe to free after
 * failures, and everything is released (the sanitizer build runs this). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "planner/app/api/api.h"
#include "planner/io/plan_export.h"
#include "planner/app/pipeline.h"
#include "testlib.h"

/* The plan file lf_pipeline_run's plan would be written as. */
static char *pipeline_json(const char *model, int64_t buffer, const char *search)
{
    lf_pipeline_config cfg;
    lf_pipeline_config_default(&cfg);
    cfg.source.model = model;
    cfg.hw.buffer_bytes = buffer;
    cfg.planner.search = search;
    lf_pipeline p = {0};
    char *buf = NULL;
    size_t len = 0;
    if (lf_pipeline_run(&p, &cfg) == LF_OK) {
        FILE *f = open_memstream(&buf, &len);
        const lf_planned *r = &p.result;
        lf_plan_meta meta = {p.model_name, r->search, r->heuristic ? r->seed : 0,
                             r->heuristic ? r->budget : -1, 0, NULL, NULL, 0};
        if (f) {
            lf_plan_write_json(f, &r->plan, p.cm, &meta);
            fclose(f);
        }
    }
    lf_pipeline_close(&p);
    return buf;
}

static void test_plan_equals_pipeline(void)
{
    lf_graph *g = NULL;
    CHECK_OK(lf_api_graph_load("{\"model\": \"resnet18\"}", &g));
    static const char *searches[] = {"greedy", "exact", "layer"};
    for (int i = 0; i < 3; i++) {
        char opts[64];
        snprintf(opts, sizeof opts, "{\"search\": \"%s\"}", searches[i]);
        lf_api_plan *p = NULL;
        CHECK_OK(lf_api_plan_run(g, "{\"buffer\": \"128KB\"}", opts, NULL, NULL, &p));
        char *mine = NULL, *want = pipeline_json("resnet18", 128 * 1024, searches[i]);
        if (p)
            CHECK_OK(lf_api_plan_json(p, &mine));
        CHECK(mine && want && strcmp(mine, want) == 0);
        char *run = NULL;
        if (p)
            CHECK_OK(lf_api_plan_run_json(p, &run));
        json_t *r = run ? json_loads(run, 0, NULL) : NULL;
        CHECK(r && json_is_boolean(json_object_get(r, "optimal")));
        if (r && i == 1) /* exact: optimal, the optimum known */
            CHECK(json_is_true(json_object_get(r, "optimal")) && json_is_integer(json_object_get(r, "exact_dram")));
        json_decref(r);
        char *issues = NULL;
        if (p)
            CHECK_OK(lf_api_plan_validate(p, &issues));
        CHECK_STR(issues, "[]");
        char *dot = NULL;
        size_t len = 0;
        if (p)
            CHECK_OK(lf_api_plan_render(p, "dot", &dot, &len));
        CHECK(dot && len == strlen(dot) && strstr(dot, "digraph") != NULL);
        lf_api_free(dot);
        if (p)
            CHECK(lf_api_plan_render(p, "onnx", &dot, &len) == LF_EINVAL && dot == NULL);
        lf_api_free(dot);
        lf_api_free(issues);
        lf_api_free(run);
        lf_api_free(mine);
        free(want);
        lf_api_plan_free(p);
    }
    lf_graph_free(g);
}

static void test_options_checked(void)
{
    lf_graph *g = NULL;
    CHECK_OK(lf_api_graph_load("{\"model\": \"squeezenet1_1\", \"input_size\": 64}", &g));
    lf_api_plan *p = (lf_api_plan *)1;
    CHECK(lf_api_plan_run(g, NULL, "{\"serach\": \"exact\"}", NULL, NULL, &p) == LF_EINVAL && p == NULL);
    CHECK(strstr(lf_last_error(), "unknown option 'serach'") != NULL);
    CHECK(lf_api_plan_run(g, NULL, "{\"budget\": \"many\"}", NULL, NULL, &p) == LF_EINVAL);
    CHECK_STR(lf_last_error(), "options: budget: expected an integer");
    CHECK(lf_api_plan_run(g, NULL, "{\"search\": \"best\"}", NULL, NULL, &p) == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "unknown search 'best'") != NULL);
    CHECK(lf_api_plan_run(g, "{\"buffer\": \"12 parsecs\"}", NULL, NULL, NULL, &p) == LF_EINVAL);
    CHECK(strncmp(lf_last_error(), "hardware: buffer: ", 18) == 0);
    CHECK(lf_api_plan_run(g, NULL, "[1]", NULL, NULL, &p) == LF_EINVAL);
    CHECK(lf_api_plan_run(g, NULL, "{", NULL, NULL, &p) == LF_EINVAL);
    CHECK(lf_api_plan_run(g, NULL, "{\"seed_plans\": \"greedy\"}", NULL, NULL, &p) == LF_EINVAL);
    lf_api_plan_free(NULL);
    lf_graph *bad = (lf_graph *)1;
    CHECK(lf_api_graph_load("{\"model\": \"nosuch\"}", &bad) != LF_OK && bad == NULL);
    CHECK(strstr(lf_last_error(), "unknown model 'nosuch'") != NULL);
    CHECK(lf_api_graph_load("{\"model\": \"resnet18\", \"onnx\": \"x.onnx\"}", &bad) == LF_EINVAL);
    char *hw = NULL;
    CHECK_OK(lf_api_hw_json("{\"buffer\": 1000, \"bandwidth\": \"1GB/s\", \"act_bytes\": 2}", &hw));
    json_t *h = hw ? json_loads(hw, 0, NULL) : NULL;
    CHECK(h && json_integer_value(json_object_get(h, "buffer_bytes")) == 1000 &&
          json_real_value(json_object_get(h, "dram_bandwidth")) == 1e9 &&
          json_integer_value(json_object_get(h, "act_bytes")) == 2);
    CHECK(h && json_is_true(json_object_get(h, "attention")));
    json_decref(h);
    lf_api_free(hw);
    hw = NULL;
    CHECK_OK(lf_api_hw_json("{\"attention\": false}", &hw));
    h = hw ? json_loads(hw, 0, NULL) : NULL;
    CHECK(h && json_is_false(json_object_get(h, "attention")));
    json_decref(h);
    lf_api_free(hw);
    hw = NULL;
    CHECK(lf_api_hw_json("{\"attention\": 0}", &hw) == LF_EINVAL && hw == NULL);
    CHECK(strstr(lf_last_error(), "attention: expected true or false") != NULL);
    lf_graph_free(g);
}

static void test_other_verbs(void)
{
    lf_graph *g = NULL;
    CHECK_OK(lf_api_graph_load("{\"model\": \"squeezenet1_1\", \"input_size\": 64}", &g));
    char *json = NULL, *svg = NULL;
    CHECK_OK(lf_api_curve(g, NULL, "{\"min\": \"16KB\", \"max\": 262144}", &json, &svg));
    json_t *c = json ? json_loads(json, 0, NULL) : NULL;
    CHECK(c && json_array_size(json_object_get(c, "points")) >= 2);
    CHECK(svg && strstr(svg, "<svg") != NULL);
    json_decref(c);
    lf_api_free(json);
    lf_api_free(svg);
    CHECK(lf_api_curve(g, NULL, "{\"min\": \"1MB\", \"max\": \"64KB\"}", &json, NULL) == LF_EINVAL && !json);
    char *sched = NULL;
    CHECK_OK(lf_api_schedule(g, NULL, "{\"max_groups\": 4}", &sched));
    CHECK(sched && strstr(sched, "\"dos\"") != NULL);
    lf_api_free(sched);
    lf_graph *opt = NULL;
    char *rep = NULL;
    CHECK_OK(lf_api_optimize(g, NULL, "{\"objective\": \"flops\", \"budget\": 5}", &opt, &rep));
    CHECK(rep && strstr(rep, "\"model\"") != NULL);
    lf_graph_free(opt);
    lf_api_free(rep);
    CHECK(lf_api_optimize(g, NULL, "{\"objective\": \"speed\"}", &opt, &rep) == LF_EINVAL && !opt && !rep);
    char *info = NULL;
    CHECK_OK(lf_api_info(g, "{\"buffer\": \"64KB\"}", "brr", 1, &info));
    CHECK(info && strstr(info, "squeezenet1_1") != NULL);
    lf_api_free(info);
    CHECK(lf_api_info(g, NULL, "xyz", 0, &info) == LF_EINVAL && !info);
    char *graph = NULL;
    CHECK_OK(lf_api_graph_json(g, &graph));
    CHECK(graph && strstr(graph, "\"ops\"") != NULL);
    lf_api_free(graph);
    char *models = NULL;
    CHECK_OK(lf_api_models_json(&models));
    CHECK(models && strstr(models, "\"resnet50\"") != NULL);
    lf_api_free(models);
    CHECK(strcmp(lf_api_version(), LF_VERSION) == 0);
    lf_graph_free(g);
}

int main(void)
{
    test_plan_equals_pipeline();
    test_options_checked();
    test_other_verbs();
    return lf_test_result();
}

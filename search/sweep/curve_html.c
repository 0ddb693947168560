/* `fusionplan curve --html`: the staircase as one page (DESIGN §20) with a
 * slider over its steps; each step's plan is drawn in the plan page's graph
 * view (planner/io/plan_html.c), priced at the step's buffer size. */
#include <stdlib.h>

#include "planner/cost/objective.h"
#include "planner/io/plan_export.h"
#include "search/sweep/curve_report.h"

lf_status lf_curve_report_html(FILE *f, const lf_curve_report *r, const lf_graph *g, const lf_hw *hw)
{
    const lf_curve *c = &r->curve;
    if (c->n < 1)
        return lf_set_error(LF_EINVAL, "the curve has no step to draw");
    lf_cost_model **cms = calloc((size_t)c->n, sizeof *cms);
    lf_plan *plans = calloc((size_t)c->n, sizeof *plans);
    char *extra = NULL;
    size_t extra_len = 0;
    FILE *mem = NULL;
    lf_status st = cms && plans ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory drawing the curve");
    for (int32_t k = 0; k < c->n && st == LF_OK; k++) {
        lf_hw at = *hw;
        at.buffer_bytes = c->points[k].beta;
        st = lf_cost_model_create(&cms[k], g, &at, r->scheme);
        if (st == LF_OK) /* each plan names the staircase's objective */
            st = lf_cost_set_objective(cms[k], (lf_plan_objective)r->objective);
        plans[k] = c->points[k].plan; /* shallow: the curve keeps them */
    }
    if (st == LF_OK && !(mem = open_memstream(&extra, &extra_len)))
        st = lf_set_error(LF_ENOMEM, "out of memory drawing the curve");
    if (st == LF_OK) {
        /* The steps' figures are the objective's (bytes, fJ or fs): the
         * page labels its axis and slider with its name and unit. */
        lf_plan_objective o = (lf_plan_objective)r->objective;
        fprintf(mem, "{\"kind\": \"curve\", \"objective\": \"%s\", \"unit\": \"%s\", \"beta_min\": %lld, "
                     "\"beta_max\": %lld, \"steps\": [",
                lf_plan_objective_name(o), lf_plan_objective_unit(o), (long long)c->beta_min, (long long)c->beta_max);
        for (int32_t k = 0; k < c->n; k++)
            fprintf(mem, "%s\n{\"beta\": %lld, \"dram_all\": %lld, \"layer_dram_all\": %lld}", k ? "," : "",
                    (long long)c->points[k].beta, (long long)c->points[k].dram_all, (long long)r->layer_all[k]);
        fputs("\n]}", mem);
        if (fclose(mem) != 0)
            st = lf_set_error(LF_ENOMEM, "out of memory drawing the curve");
    }
    if (st == LF_OK) {
        lf_plan_meta meta = {.model = r->model, .search = "exact", .budget = -1};
        char title[256];
        snprintf(title, sizeof title, "%s: optimal %s against the buffer (%s)", r->model,
                 r->objective == LF_PLAN_OBJ_ENERGY ? "energy" : r->objective == LF_PLAN_OBJ_LATENCY ? "latency" : "DRAM",
                 r->scheme);
        st = lf_plan_write_html_steps(f, title, c->n, plans, cms, &meta, extra);
    }
    for (int32_t k = 0; cms && k < c->n; k++)
        lf_cost_model_free(cms[k]);
    free(cms);
    free(plans);
    free(extra);
    return st;
}

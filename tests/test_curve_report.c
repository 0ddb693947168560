/* The curve report (search/sweep/curve_report.h, `fusionplan curve`): each
 * step's figures equal its plan's metrics at the step's buffer, the
 * layer-by-layer column equals lf_plan_layer there, and the table, CSV,
 * JSON and SVG hold one entry per step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "search/partition/simple.h"
#include "search/sweep/curve_report.h"
#include "tests/testlib.h"

static int count(const char *s, const char *sub)
{
    int n = 0;
    for (const char *p = strstr(s, sub); p; p = strstr(p + strlen(sub), sub))
        n++;
    return n;
}

int main(void)
{
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build("squeezenet1_1", NULL, &g));
    lf_hw hw;
    lf_hw_default(&hw);
    lf_curve_report r;
    CHECK_OK(lf_curve_report_compute(&r, g, "squeezenet1_1", &hw, "lbdf", 65536, 524288, NULL));
    const lf_curve *c = &r.curve;
    CHECK(c->n > 3);
    for (int32_t k = 0; k < c->n; k++) {
        lf_hw h = hw;
        h.buffer_bytes = c->points[k].beta;
        lf_cost_model *cm = NULL;
        CHECK_OK(lf_cost_model_create(&cm, g, &h, "lbdf"));
        lf_plan lp;
        lf_plan_metrics lm;
        CHECK_OK(lf_plan_layer(cm, &lp));
        CHECK_OK(lf_plan_metrics_compute(&lp, cm, &lm));
        CHECK_EQ_I64(r.layer_all[k], lm.dram_all);
        CHECK_EQ_I64(r.metrics[k].dram_all, c->points[k].dram_all);
        CHECK(c->points[k].dram_all <= lm.dram_all);
        lf_plan_destroy(&lp);
        lf_cost_model_free(cm);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    lf_curve_report_print(f, &r, 65536, 524288);
    fclose(f);
    char want[128];
    snprintf(want, sizeof want, "squeezenet1_1 lbdf: optimal DRAM over all ops from 64 KB to 512 KB in %d steps;",
             (int)c->n);
    CHECK(strncmp(text, want, strlen(want)) == 0);
    CHECK_EQ_I64(count(text, "\n"), c->n + 3);
    CHECK_EQ_I64(count(text, "%\n"), c->n);
    free(text);
    f = open_memstream(&text, &len);
    lf_curve_report_csv(f, &r);
    fclose(f);
    CHECK_EQ_I64(count(text, "\nsqueezenet1_1,lbdf,"), c->n);
    snprintf(want, sizeof want, "squeezenet1_1,lbdf,65536,%lld,", (long long)c->points[0].dram_all);
    CHECK(strstr(text, want) != NULL);
    free(text);
    f = open_memstream(&text, &len);
    lf_curve_report_json(f, &r);
    fclose(f);
    CHECK_EQ_I64(count(text, "\"buffer_from\": "), c->n);
    CHECK_EQ_I64(count(text, "\"group_of\": ["), c->n);
    free(text);
    f = open_memstream(&text, &len);
    CHECK_OK(lf_curve_report_svg(f, &r));
    fclose(f);
    CHECK(strstr(text, "<svg") != NULL && strstr(text, "squeezenet1_1 lbdf optimum") != NULL);
    free(text);
    lf_curve_report_destroy(&r);
    /* Past the limits: the staircase's error, and r still destroyable. */
    lf_exact_config ec;
    lf_exact_config_default(&ec);
    ec.max_candidates = 10;
    CHECK_EQ_I64(lf_curve_report_compute(&r, g, "squeezenet1_1", &hw, "lbdf", 65536, 524288, &ec), LF_ELIMIT);
    lf_curve_report_destroy(&r);
    lf_graph_free(g);
    return lf_test_result();
}

/* The pipeline's report formatters and checks (planner/app/pipeline.h,
 * planner/cost/cost.h, planner/io/plan_export.h, planner/util/format.h):
 * the summary line and group table of `fusionplan plan`, the network
 * summary and op table of `info` and the group explanation of `cost` equal
 * the golden outputs written by the CLI; option combinations are refused
 * with the CLI's line; export formats follow the file extension; thousands
 * separators. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/plan_export.h"
#include "planner/app/pipeline.h"
#include "planner/util/fileio.h"
#include "planner/util/format.h"
#include "tests/testlib.h"

static void test_commas(void)
{
    char b[32];
    CHECK_STR(lf_format_commas(0, b, sizeof b), "0");
    CHECK_STR(lf_format_commas(999, b, sizeof b), "999");
    CHECK_STR(lf_format_commas(1478656, b, sizeof b), "1,478,656");
    CHECK_STR(lf_format_commas(-1000, b, sizeof b), "-1,000");
    CHECK_STR(lf_format_commas(INT64_MIN, b, sizeof b), "-9,223,372,036,854,775,808");
    CHECK_STR(lf_format_commas(1234567, b, 6), "1,234");
}

static void test_formats(void)
{
    const char *f = NULL;
    CHECK_OK(lf_plan_format_of("a/plan.json", &f));
    CHECK_STR(f, "json");
    CHECK_OK(lf_plan_format_of("plan.GV", &f));
    CHECK_STR(f, "dot");
    CHECK_OK(lf_plan_format_of("map.yml", &f));
    CHECK_STR(f, "stream");
    CHECK_OK(lf_plan_format_of("m.onnx", NULL));
    CHECK_OK(lf_plan_format_of("plan.HTML", &f));
    CHECK_STR(f, "html");
    CHECK_EQ_I64(lf_plan_format_of("plan.txt", &f), LF_EINVAL);
    CHECK(strstr(lf_last_error(), "cannot tell the plan format of 'plan.txt'") != NULL);
    CHECK_EQ_I64(lf_plan_format_of(".json", &f), LF_EINVAL); /* nothing before the extension */
}

static void test_config_check(void)
{
    lf_planner_config c;
    lf_planner_config_default(&c);
    CHECK_OK(lf_planner_config_check(&c, 0));
    c.seed_plans = "greedy";
    CHECK_EQ_I64(lf_planner_config_check(&c, 0), LF_EINVAL);
    CHECK_STR(lf_last_error(), "--seed-plans applies to --search local or nsga2");
    c.search = "nsga2";
    CHECK_OK(lf_planner_config_check(&c, 1)); /* seed plans use the exact limits */
    c.seed_plans = NULL;
    CHECK_EQ_I64(lf_planner_config_check(&c, 1), LF_EINVAL);
    CHECK_STR(lf_last_error(), "--time-limit, --memory-limit and --max-candidates apply to --search "
                               "exact, --compare-exact or --seed-plans");
    c.compare_exact = 1;
    CHECK_OK(lf_planner_config_check(&c, 1));
    c.compare_exact = 0;
    c.search = "exact";
    CHECK_OK(lf_planner_config_check(&c, 1));
}

/* The summary and the group table of squeezenet1_0 at 128 KB, greedy:
 * tests/golden/plan-squeezenet1_0.txt, the wall time masked. */
static void test_summary_matches_golden(void)
{
    lf_pipeline_config cfg;
    lf_pipeline_config_default(&cfg);
    cfg.source.model = "squeezenet1_0";
    cfg.hw.buffer_bytes = 131072;
    lf_pipeline p;
    CHECK_OK(lf_pipeline_run(&p, &cfg));
    char *out = NULL, *golden = NULL;
    size_t out_len = 0;
    long golden_len = 0;
    FILE *f = open_memstream(&out, &out_len);
    CHECK(f != NULL);
    if (f && p.cm) {
        lf_planned_print_summary(f, &p.result, p.cm, p.model_name);
        CHECK_OK(lf_plan_print_groups(f, &p.result.plan, p.cm));
        fclose(f);
    }
    CHECK_OK(lf_read_file(LF_SOURCE_DIR "/tests/golden/plan-squeezenet1_0.txt", &golden, &golden_len));
    if (out && golden) {
        /* mask "; wall N.NNN s" as the golden test does */
        char *w = strstr(out, "; wall ");
        CHECK(w != NULL);
        if (w) {
            char *end = strstr(w, " s\n");
            CHECK(end != NULL);
            if (end) {
                w[7] = '-';
                memmove(w + 8, end, strlen(end) + 1);
            }
        }
        CHECK_STR(out, golden);
    }
    free(out);
    free(golden);
    lf_pipeline_close(&p);
}

/* A stream into a string (malloc'd, complete after fclose). */
static char *capture_begin(FILE **f, char **buf, size_t *len)
{
    *buf = NULL;
    *f = open_memstream(buf, len);
    return *buf;
}

static void check_golden(const char *text, const char *name)
{
    char path[512], *golden = NULL;
    long n = 0;
    snprintf(path, sizeof path, "%s/tests/golden/%s", LF_SOURCE_DIR, name);
    CHECK_OK(lf_read_file(path, &golden, &n));
    CHECK(text && golden && strcmp(text, golden) == 0);
    if (text && golden && strcmp(text, golden) != 0)
        fprintf(stderr, "differs from %s:\n%s\n", name, text);
    free(golden);
}

/* info --model squeezenet1_1 --buffer 128KB, and cost --model resnet18 --group 1-4. */
static void test_info_and_cost_match_golden(void)
{
    lf_pipeline_config cfg;
    lf_pipeline_config_default(&cfg);
    cfg.source.model = "squeezenet1_1";
    cfg.hw.buffer_bytes = 131072;
    lf_pipeline p;
    CHECK_OK(lf_pipeline_open(&p, &cfg));
    FILE *f;
    char *text;
    size_t len;
    capture_begin(&f, &text, &len);
    if (f && p.cm) {
        CHECK_OK(lf_network_print_summary(f, p.cm, &cfg.hw));
        CHECK_OK(lf_network_print_ops(f, p.cm));
        fclose(f);
        check_golden(text, "info-squeezenet1_1.txt");
    }
    free(text);
    lf_pipeline_close(&p);

    lf_pipeline_config_default(&cfg);
    cfg.source.model = "resnet18";
    CHECK_OK(lf_pipeline_open(&p, &cfg));
    lf_bitset grp;
    lf_cost_report rep = {0};
    CHECK_OK(lf_bitset_init(&grp, p.graph->n_ops));
    for (int32_t v = 1; v <= 4; v++)
        lf_bitset_set(&grp, v);
    CHECK_OK(lf_cost_explain(p.cm, &grp, &rep));
    capture_begin(&f, &text, &len);
    if (f) {
        lf_cost_report_print(f, p.cm, &grp, &rep);
        fclose(f);
        check_golden(text, "cost-resnet18.txt");
    }
    free(text);
    lf_cost_report_destroy(&rep);
    lf_bitset_destroy(&grp);
    lf_pipeline_close(&p);
}

/* efficientnet_b0's ops 15-40 at 256 KB hold a squeeze-and-excite wait: the
 * tensor read on both sides is read again, and the text says so on the F_D
 * line, the wait line and the tensor's row. */
static void test_cost_wait_text(void)
{
    lf_pipeline_config cfg;
    lf_pipeline_config_default(&cfg);
    cfg.source.model = "efficientnet_b0";
    lf_pipeline p;
    CHECK_OK(lf_pipeline_open(&p, &cfg));
    lf_bitset grp;
    lf_cost_report rep = {0};
    CHECK_OK(lf_bitset_init(&grp, p.graph->n_ops));
    for (int32_t v = 15; v <= 40; v++)
        lf_bitset_set(&grp, v);
    CHECK_OK(lf_cost_explain(p.cm, &grp, &rep));
    CHECK(rep.cost.reread_bytes > 0);
    FILE *f;
    char *text;
    size_t len;
    capture_begin(&f, &text, &len);
    if (f) {
        lf_cost_report_print(f, p.cm, &grp, &rep);
        fclose(f);
        char want[96], num[32];
        snprintf(want, sizeof want, " + read again after the wait %s\n",
                 lf_format_commas(rep.cost.reread_bytes, num, sizeof num));
        CHECK(text && strstr(text, want) != NULL);
        CHECK(text && strstr(text, "\nwait      tensors read before and after a squeeze-and-excite wait "
                                   "are read from DRAM again after it\n") != NULL);
        CHECK(text && strstr(text, "  (read again after the wait)\n") != NULL);
    }
    free(text);
    lf_cost_report_destroy(&rep);
    lf_bitset_destroy(&grp);
    lf_pipeline_close(&p);
}

int main(void)
{
    test_cost_wait_text();
    test_info_and_cost_match_golden();
    test_commas();
    test_formats();
    test_config_check();
    test_summary_matches_golden();
    return lf_test_result();
}

/* The substitution job (search/subst/job.h) and its reports (report.h): the
 * work of `fusionplan optimize` as one library call. The job finds what
 * lf_subst_optimize finds on its own, with the figures the command prints
 * (resnet_blocks, two blocks at 8 x 8: 51.457 us down to 41.385 us with two
 * conv + ReLU fusions); the filter's rules are the only ones searched; the
 * text and JSON reports carry those figures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "search/subst/gso/gso.h"
#include "search/subst/job.h"
#include "search/subst/report.h"
#include "testlib.h"

static lf_graph *blocks2(void)
{
    lf_graph *g = NULL;
    CHECK_OK(lf_subst_network_blocks("resnet_blocks", 8, 2, &g));
    return g;
}

/* What f received, as a string (caller frees). */
static char *text_of(FILE *f)
{
    long n = ftell(f);
    char *s = calloc((size_t)n + 1, 1);
    rewind(f);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n)
        s[0] = '\0';
    fclose(f);
    return s;
}

static void test_job_matches_optimize(void)
{
    lf_graph *g = blocks2();
    if (!g)
        return;
    lf_subst_job_config cfg;
    lf_subst_job_config_default(&cfg);
    cfg.options.search = LF_SEARCH_DPP;
    lf_subst_job job;
    CHECK_OK(lf_subst_job_run(g, &cfg, &job, NULL, NULL));
    CHECK_EQ_I64(job.rules.n, 22);
    CHECK_EQ_I64(job.failed, 1); /* taso_conv_mul */
    CHECK(job.keep == NULL && job.options.rule_mask == NULL);
    CHECK_EQ_I64(job.result.n_steps, 2);
    CHECK_NEAR(job.result.before.time_s * 1e6, 51.457, 5e-4);
    CHECK_NEAR(job.result.after.time_s * 1e6, 41.385, 5e-4);
    CHECK_NEAR(job.result.before.kernels, 10, 0);
    CHECK_NEAR(job.result.after.kernels, 8, 0);
    CHECK(job.result.before.dram < 0); /* not asked for */
    CHECK(job.peak_rss_kb > 0);
    for (int32_t i = 0; i < job.result.n_steps; i++)
        CHECK_STR(job.rules.rule[job.result.steps[i].rule]->name, "conv_relu");

    /* the same search run directly */
    lf_subst_ruleset rs;
    int32_t failed = 0;
    CHECK_OK(lf_subst_ruleset_open(&rs, "builtin", NULL));
    CHECK_OK(lf_subst_ruleset_verify(&rs, &failed));
    lf_subst_result r;
    memset(&r, 0, sizeof r);
    CHECK_OK(lf_subst_optimize(g, &rs, &cfg.coster, &cfg.options, &r));
    CHECK_EQ_I64(r.n_steps, job.result.n_steps);
    for (int32_t i = 0; i < r.n_steps && i < job.result.n_steps; i++)
        CHECK_STR(r.steps[i].ops, job.result.steps[i].ops);
    CHECK(r.after.time_s == job.result.after.time_s);
    lf_subst_result_destroy(&r);
    lf_subst_ruleset_close(&rs);

    /* the text report: the command's lines */
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        lf_subst_job_report(f, &job, "resnet_blocks", g, NULL);
        char *s = text_of(f);
        CHECK(s && strstr(s, "model resnet_blocks (10 ops), 22 rules (1 disabled by verification: taso_conv_mul), "
                             "search dpp (K 10), objective time\n"));
        CHECK(s && strstr(s, "roofline: 15.7 TFLOP/s, 900 GB/s, 5 us per kernel (defaults: no <gpu> section)\n"));
        CHECK(s && strstr(s, "time (us)                51.457           41.385   -19.57%\n"));
        CHECK(s && strstr(s, "kernels                  10.000            8.000   -20.00%\n"));
        CHECK(s && strstr(s, "applied sequence: 2 steps\n    1 conv_relu "));
        CHECK(s && strstr(s, "check: the optimized graph's outputs equal the original's"));
        CHECK(s && !strstr(s, "DRAM (bytes)"));
        free(s);
    }
    f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        CHECK_OK(lf_subst_job_write_json(f, &job, "resnet_blocks"));
        char *s = text_of(f);
        CHECK(s && strstr(s, "\"model\": \"resnet_blocks\",\n  \"search\": \"dpp\",\n  \"objective\": \"time\""));
        CHECK(s && strstr(s, "\"max_steps\": 10,\n"));
        CHECK(s && strstr(s, "\"kernels\": 8}"));
        CHECK(s && !strstr(s, "rules_searched"));
        /* the file holds the same bytes */
        char path[256];
        snprintf(path, sizeof path, "/tmp/lf_test_subst_job_%d.json", (int)getpid());
        CHECK_OK(lf_subst_job_save_json(path, &job, "resnet_blocks"));
        FILE *in = fopen(path, "r");
        if (in) {
            fseek(in, 0, SEEK_END);
            char *t = text_of(in);
            CHECK(s && t && strcmp(s, t) == 0);
            free(t);
        }
        remove(path);
        free(s);
    }
    lf_subst_job_destroy(&job);
    lf_subst_job_destroy(&job); /* twice is safe */
    lf_graph_free(g);
}

/* with_dram prices both graphs exactly, as lf_subst_cost does. */
static void test_job_dram(void)
{
    lf_graph *g = blocks2();
    if (!g)
        return;
    lf_subst_job_config cfg;
    lf_subst_job_config_default(&cfg);
    cfg.options.budget = 5;
    cfg.with_dram = 1;
    lf_subst_job job;
    CHECK_OK(lf_subst_job_run(g, &cfg, &job, NULL, NULL));
    lf_subst_costs k;
    CHECK_OK(lf_subst_cost(&cfg.coster, g, 1, &k));
    CHECK(k.dram > 0);
    CHECK(job.result.before.dram == k.dram);
    CHECK_OK(lf_subst_cost(&cfg.coster, job.result.graph, 1, &k));
    CHECK(job.result.after.dram == k.dram);
    lf_subst_job_destroy(&job);
    lf_graph_free(g);
}

static int filtered_calls;
static void on_filtered(void *user, const lf_subst_job *job)
{
    (void)user;
    filtered_calls++;
    CHECK(job->keep != NULL && job->result.n_steps == 0); /* before the search */
}

/* A filter whose only model is conv_relu's constant "no": every other rule
 * is unknown and kept, conv_relu is not searched. */
static void test_job_filter(void)
{
    lf_graph *g = blocks2();
    if (!g)
        return;
    const char *names[] = {"conv_relu"};
    lf_gso_set set;
    CHECK_OK(lf_gso_set_init(&set, LF_GSO_LR, 1, names));
    lf_subst_job_config cfg;
    lf_subst_job_config_default(&cfg);
    cfg.options.search = LF_SEARCH_DPP;
    cfg.filter = &set;
    lf_subst_job job;
    CHECK_OK(lf_subst_job_run(g, &cfg, &job, on_filtered, NULL));
    CHECK_EQ_I64(filtered_calls, 1);
    CHECK(job.options.rule_mask == job.keep);
    CHECK_EQ_I64(job.filter.enabled, 21);
    CHECK_EQ_I64(job.filter.kept, 20);
    CHECK_EQ_I64(job.filter.unknown, 20);
    CHECK(job.filter.kind == LF_GSO_LR);
    for (int32_t i = 0; i < job.result.n_steps; i++)
        CHECK(strcmp(job.rules.rule[job.result.steps[i].rule]->name, "conv_relu") != 0);
    CHECK(job.result.after.time_s > 41.385e-6); /* without the fusions the optimum is out of reach */
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        lf_gso_filter_stats_write(f, &job.filter, &job.rules, job.keep);
        char *s = text_of(f);
        CHECK(s && strncmp(s, "filter lr: 20 of 21 rules kept (4.8% of the search space removed) in ", 69) == 0);
        CHECK(s && strstr(s, " ms, 20 without a model kept: ") && !strstr(s, " conv_relu "));
        free(s);
    }
    f = tmpfile();
    if (f) {
        CHECK_OK(lf_subst_job_write_json(f, &job, "m"));
        char *s = text_of(f);
        CHECK(s && strstr(s, "\"rules_searched\": [") && !strstr(s, "\"conv_relu\""));
        free(s);
    }
    lf_subst_job_destroy(&job);
    lf_gso_set_destroy(&set);
    lf_graph_free(g);
}

/* A bad rule source fails cleanly and the job is still safe to destroy. */
static void test_job_errors(void)
{
    lf_graph *g = blocks2();
    if (!g)
        return;
    lf_subst_job_config cfg;
    lf_subst_job_config_default(&cfg);
    cfg.rules = "builtin,nonsense";
    lf_subst_job job;
    CHECK(lf_subst_job_run(g, &cfg, &job, NULL, NULL) == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "nonsense") != NULL);
    lf_subst_job_destroy(&job);
    lf_graph_free(g);
}

int main(void)
{
    test_job_matches_optimize();
    test_job_dram();
    test_job_filter();
    test_job_errors();
    return lf_test_result();
}

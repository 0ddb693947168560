/* Unit tests for the sweep front-end engines in search/sweep: a buffer
 * sweep's sizes and networks from option strings (with the one-line errors
 * the CLI shows), and a whole sweep over networks and schemes against
 * lf_buffer_sweep_run called directly; sweep-report's tables from results
 * files (duplicates counted once, a missing cell leaving its table out, a
 * truncated line skipped); one cell run alone, appended or skipped on
 * resume; the cell list and the progress line; compare's grid of tables
 * against one table run directly, and its name checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/registry.h"
#include "planner/util/fileio.h"
#include "search/sweep/buffer_sweep.h"
#include "search/sweep/compare.h"
#include "search/sweep/report.h"
#include "search/sweep/sweep.h"
#include "tests/testlib.h"

static void test_buffer_sizes(void)
{
    lf_buffer_sweep_config cfg;
    memset(&cfg, 0, sizeof cfg);
    CHECK_OK(lf_buffer_sweep_set_buffers(&cfg, NULL, NULL, NULL));
    CHECK_EQ_I64(cfg.nb, 5); /* 128 KB .. 2048 KB doubling */
    CHECK_EQ_I64(cfg.betas[0], 131072);
    CHECK_EQ_I64(cfg.betas[4], 2097152);
    CHECK_OK(lf_buffer_sweep_set_buffers(&cfg, NULL, "64KB", "256KB"));
    CHECK_EQ_I64(cfg.nb, 3);
    CHECK_EQ_I64(cfg.betas[2], 262144);
    CHECK_OK(lf_buffer_sweep_set_buffers(&cfg, "100KB,1MB", NULL, NULL));
    CHECK_EQ_I64(cfg.nb, 2);
    CHECK_EQ_I64(cfg.betas[0], 102400);
    CHECK_EQ_I64(cfg.betas[1], 1048576);
    static const struct {
        const char *list, *from, *to, *message;
    } bad[] = {
        {"128KB", "64KB", NULL, "--buffers cannot be combined with --from or --to"},
        {"256KB,128KB", NULL, NULL, "--buffers must be strictly ascending ('128KB' after '256KB')"},
        {",", NULL, NULL, "--buffers names no size"},
        {"1KB,2KB,3KB,4KB,5KB,6KB,7KB,8KB,9KB", NULL, NULL, "--buffers has 9 sizes; at most 8"},
        {NULL, "1MB", "128KB", "--from (1MB) is larger than --to (128KB)"},
        {NULL, NULL, "300KB", "--to (300KB) must be --from (128KB) times a power of two"},
        {NULL, "1KB", "1MB", "--from 1KB --to 1MB doubles past 8 sizes; narrow the range"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ_I64(lf_buffer_sweep_set_buffers(&cfg, bad[i].list, bad[i].from, bad[i].to), LF_EINVAL);
        CHECK_STR(lf_last_error(), bad[i].message);
    }
    CHECK_EQ_I64(lf_buffer_sweep_set_buffers(&cfg, "12x", NULL, NULL), LF_EINVAL);
    CHECK(strncmp(lf_last_error(), "--buffers: ", 11) == 0);
}

static void test_network_lists(void)
{
    lf_buffer_sweep_set set;
    CHECK_OK(lf_buffer_sweep_set_init(&set, "resnet18,squeezenet1_1", "lbdf,brr", NULL));
    CHECK_EQ_I64(set.n_models, 2);
    CHECK_EQ_I64(set.n_schemes, 2);
    CHECK_STR(set.models[1], "squeezenet1_1");
    CHECK_STR(set.schemes[1], "brr");
    lf_model_source onnx = {0};
    onnx.onnx = "net.onnx";
    CHECK_OK(lf_buffer_sweep_set_init(&set, "ignored", "brr", &onnx));
    CHECK_EQ_I64(set.n_models, 1);
    CHECK_STR(set.models[0], "net.onnx");
    static const struct {
        const char *models, *schemes, *message;
    } bad[] = {
        {"resnet18,foo", "lbdf", "unknown model 'foo'; 'fusionplan models' lists the built-in networks"},
        {",", "lbdf", "--models names no network"},
        {"resnet18", "lbdf,lbdf", "--scheme names lbdf twice"},
        {"resnet18", "xx", "unknown scheme 'xx' (use lbdf or brr)"},
        {"resnet18", "lbdf,brr,lbdf", "unknown --scheme 'lbdf,brr,lbdf' (use lbdf, brr or lbdf,brr)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ_I64(lf_buffer_sweep_set_init(&set, bad[i].models, bad[i].schemes, NULL), LF_EINVAL);
        CHECK_STR(lf_last_error(), bad[i].message);
    }
}

/* Each finished sweep is reported once, in network-major order. */
static int n_done;
static void count_done(void *user, const lf_buffer_sweep *sw, int32_t i, double seconds)
{
    (void)user;
    CHECK_EQ_I64(i, n_done);
    CHECK_STR(sw->scheme, i % 2 ? "brr" : "lbdf");
    CHECK(seconds >= 0);
    n_done++;
}

static void test_set_run(void)
{
    lf_buffer_sweep_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.search = "local";
    cfg.budget = 40;
    cfg.seed = 2;
    cfg.threads = 1;
    cfg.k = 3;
    cfg.samples = 50;
    cfg.do_exact = 1;
    lf_hw_default(&cfg.hw);
    CHECK_OK(lf_buffer_sweep_set_buffers(&cfg, "128KB,512KB", NULL, NULL));
    lf_buffer_sweep_set set;
    CHECK_OK(lf_buffer_sweep_set_init(&set, "squeezenet1_1,resnet18", "lbdf,brr", NULL));
    CHECK_OK(lf_buffer_sweep_set_run(&set, &cfg, count_done, NULL, NULL));
    CHECK_EQ_I64(n_done, 4);
    CHECK_EQ_I64(set.n_sweeps, 4);
    CHECK_STR(set.sweeps[2].model, "resnet18");
    CHECK_STR(set.sweeps[3].scheme, "brr");
    /* The same figures as one sweep run directly. */
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build("resnet18", NULL, &g));
    lf_buffer_sweep direct;
    CHECK_OK(lf_buffer_sweep_run(g, "resnet18", "brr", &cfg, &direct, NULL, NULL));
    for (int32_t b = 0; b < cfg.nb; b++) {
        const lf_buffer_sweep_point *p = &set.sweeps[3].pts[b], *q = &direct.pts[b];
        CHECK_EQ_I64(p->beta, q->beta);
        CHECK_EQ_I64(p->m.dram_all, q->m.dram_all);
        CHECK_EQ_I64(p->exact_all, q->exact_all);
        CHECK_EQ_I64(p->layer_all, q->layer_all);
        CHECK_NEAR(p->valid_pct, q->valid_pct, 0);
        CHECK(p->exact_all > 0 && p->exact_all <= p->layer_all);
    }
    CHECK(set.sweeps[3].pts[1].exact_all < set.sweeps[3].pts[0].exact_all);
    lf_graph_free(g);
    lf_buffer_sweep_set_destroy(&set);
    /* A missing file fails the run after no sweep. */
    lf_model_source onnx = {0};
    onnx.onnx = "/nonexistent/net.onnx";
    CHECK_OK(lf_buffer_sweep_set_init(&set, "", "lbdf", &onnx));
    CHECK(lf_buffer_sweep_set_run(&set, &cfg, NULL, NULL, NULL) != LF_OK);
    CHECK_EQ_I64(set.n_sweeps, 0);
    lf_buffer_sweep_set_destroy(&set);
}

static int n_report_notices;
static char last_notice[LF_MESSAGE_MAX];
static void report_notice(void *user, const char *message)
{
    (void)user;
    n_report_notices++;
    snprintf(last_notice, sizeof last_notice, "%s", message);
}

static void write_bytes(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK_EQ_I64(fwrite(data, 1, n, f), n);
        fclose(f);
    }
}

static void test_sweep_report(void)
{
    char dir[] = "/tmp/lf_test_sweep_setup_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char a[300], b[300], c[300];
    snprintf(a, sizeof a, "%s/a.jsonl", dir);
    snprintf(b, sizeof b, "%s/b.jsonl", dir);
    snprintf(c, sizeof c, "%s/c.jsonl", dir);
    lf_sweep_grid g;
    lf_sweep_grid_init(&g);
    CHECK_OK(lf_sweep_grid_set(&g, "models", "squeezenet1_1"));
    CHECK_OK(lf_sweep_grid_set(&g, "buffers", "128KB"));
    CHECK_OK(lf_sweep_grid_set(&g, "searches", "ls"));
    CHECK_OK(lf_sweep_grid_set(&g, "proposers", "none,attrib"));
    CHECK_OK(lf_sweep_grid_set(&g, "seeds", "1-2"));
    g.budget = 30;
    g.exact = 1;
    g.threads = 1;
    lf_sweep_options o = {a, 0, NULL, NULL, NULL};
    CHECK_OK(lf_sweep_run(&g, &o));
    lf_sweep_grid_destroy(&g);
    lf_sweep_record *recs = NULL;
    int64_t n = 0, truncated = 0;
    CHECK_OK(lf_sweep_records_load(a, &recs, &n, &truncated));
    CHECK_EQ_I64(n, 4);

    /* The file twice: every cell counts once. */
    const char *paths[2] = {a, a};
    lf_sweep_report r;
    CHECK_OK(lf_sweep_report_build(&r, paths, 2, report_notice, NULL));
    CHECK_EQ_I64(n_report_notices, 0);
    CHECK_EQ_I64(r.n_tables, 1);
    CHECK_EQ_I64(r.n_incomplete, 0);
    if (r.n_tables == 1 && n == 4) {
        const lf_cmp_table *t = &r.tables[0];
        CHECK_STR(t->model, "squeezenet1_1");
        CHECK_EQ_I64(t->beta, 131072);
        CHECK_EQ_I64(t->n_rows, 2);
        CHECK_EQ_I64(t->n_seeds, 2);
        CHECK_EQ_I64(t->seeds[1], 2);
        CHECK_STR(t->rows[1].proposer, "attrib");
        CHECK_EQ_I64(t->rows[1].baseline, 0);
        CHECK(t->has_exact);
        CHECK_EQ_I64(t->exact_dram, recs[0].exact_dram_fusable);
        /* cells: (none, 1), (none, 2), (attrib, 1), (attrib, 2) */
        CHECK_EQ_I64(t->rows[0].dram[1], recs[1].dram_fusable);
        CHECK_EQ_I64(t->rows[1].dram[0], recs[2].dram_fusable);
        CHECK_EQ_I64(t->rows[1].groups[1], recs[3].groups);
    }
    lf_sweep_report_destroy(&r);

    /* The second cell missing, and the last line cut in half. */
    char *text = NULL;
    long len = 0;
    CHECK_OK(lf_read_file(a, &text, &len));
    if (text) {
        char *l2 = strchr(text, '\n') + 1, *l3 = strchr(l2, '\n') + 1, *l4 = strchr(l3, '\n') + 1;
        size_t n1 = (size_t)(l2 - text), n34 = (size_t)(text + len - l3);
        char *cut = malloc((size_t)len);
        memcpy(cut, text, n1);
        memcpy(cut + n1, l3, n34);
        write_bytes(b, cut, n1 + n34);
        write_bytes(c, text, (size_t)(l4 - text) + 10);
        free(cut);
    }
    free(text);
    paths[0] = b;
    n_report_notices = 0;
    CHECK_EQ_I64(lf_sweep_report_build(&r, paths, 1, report_notice, NULL), LF_EINVAL);
    CHECK_EQ_I64(r.n_incomplete, 1);
    CHECK_EQ_I64(n_report_notices, 1);
    CHECK_STR(last_notice, "squeezenet1_1 lbdf 128 KB budget 30: table left out: local + none seed 2 is missing");
    CHECK(strstr(lf_last_error(), "no complete table to report") != NULL);
    lf_sweep_report_destroy(&r);
    /* The truncated file and the one with the missing cell together: complete again. */
    paths[0] = c;
    paths[1] = b;
    n_report_notices = 0;
    CHECK_OK(lf_sweep_report_build(&r, paths, 2, report_notice, NULL));
    CHECK_EQ_I64(n_report_notices, 1);
    CHECK(strstr(last_notice, "the last line is truncated") != NULL);
    CHECK_EQ_I64(r.n_tables, 1);
    lf_sweep_report_destroy(&r);
    lf_sweep_records_free(recs, n);
    unlink(a);
    unlink(b);
    unlink(c);
    rmdir(dir);
}

static void test_one_cell(void)
{
    char dir[] = "/tmp/lf_test_one_cell_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char full[300], one[300];
    snprintf(full, sizeof full, "%s/full.jsonl", dir);
    snprintf(one, sizeof one, "%s/one.jsonl", dir);
    lf_sweep_grid g;
    lf_sweep_grid_init(&g);
    CHECK_OK(lf_sweep_grid_set(&g, "models", "squeezenet1_1"));
    CHECK_OK(lf_sweep_grid_set(&g, "buffers", "128KB"));
    CHECK_OK(lf_sweep_grid_set(&g, "searches", "ls,rs"));
    CHECK_OK(lf_sweep_grid_set(&g, "proposers", "none"));
    CHECK_OK(lf_sweep_grid_set(&g, "seeds", "1"));
    g.budget = 20;
    g.exact = 0;
    g.threads = 1;
    /* The cell list: index, tab, key. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        lf_sweep_print_cells(f, &g);
        fclose(f);
    }
    CHECK_STR(text, "0\tsqueezenet1_1/lbdf/131072/local/none/1\n1\tsqueezenet1_1/lbdf/131072/random/none/1\n");
    free(text);
    /* Cell 1 alone: the line the whole sweep writes for it, up to the wall time. */
    lf_sweep_options o = {full, 0, NULL, NULL, NULL};
    CHECK_OK(lf_sweep_run(&g, &o));
    lf_sweep_record *all = NULL, *rec = NULL;
    int64_t n_all = 0, n = 0, truncated = 0;
    CHECK_OK(lf_sweep_records_load(full, &all, &n_all, &truncated));
    char *line = NULL;
    int failed = -1, already = -1;
    CHECK_OK(lf_sweep_run_one(&g, 1, NULL, 0, &line, &failed, &already));
    CHECK(line != NULL && failed == 0 && already == 0);
    CHECK(line && strstr(line, "\"search\": \"random\"") != NULL);
    free(line);
    CHECK_OK(lf_sweep_run_one(&g, 1, one, 0, &line, &failed, &already));
    free(line);
    CHECK_OK(lf_sweep_records_load(one, &rec, &n, &truncated));
    CHECK_EQ_I64(n, 1);
    if (n == 1 && n_all == 2) {
        CHECK_EQ_I64(rec[0].cell, 1);
        CHECK_EQ_I64(rec[0].dram_fusable, all[1].dram_fusable);
        CHECK_EQ_I64(rec[0].groups, all[1].groups);
    }
    lf_sweep_records_free(rec, n);
    /* With resume the cell in the file is not run again. */
    CHECK_OK(lf_sweep_run_one(&g, 1, one, 1, &line, &failed, &already));
    CHECK(already == 1 && line == NULL);
    CHECK_EQ_I64(lf_sweep_run_one(&g, 2, NULL, 0, &line, &failed, &already), LF_EINVAL);
    /* The progress line. */
    f = open_memstream(&text, &len);
    if (f) {
        lf_sweep_progress_print(f, 3, "k/x", 1500000, 0.25, NULL, 2, 4);
        lf_sweep_progress_print(f, 4, "k/y", -1, 0.5, "boom", 3, 4);
        fclose(f);
    }
    CHECK_STR(text, "sweep: [2/4] cell 3 k/x: 1.500 MB in 0.25 s\nsweep: [3/4] cell 4 k/y: FAILED: boom\n");
    free(text);
    lf_sweep_records_free(all, n_all);
    lf_sweep_grid_destroy(&g);
    unlink(full);
    unlink(one);
    rmdir(dir);
}

static void test_compare_grid(void)
{
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build("squeezenet1_1", NULL, &g));
    lf_hw hw;
    lf_hw_default(&hw);
    const char *searches[] = {"ls"}, *proposers[] = {"none", "attrib"}, *schemes[] = {"lbdf", "brr"};
    const char *models[] = {"squeezenet1_1"};
    const lf_graph *graphs[] = {g};
    int64_t betas[] = {131072, 262144};
    lf_cmp_config c = {searches, proposers, 1, 2, 3, 1, 10, 1, 0, 1, &hw, 0};
    lf_cmp_grid grid = {graphs, models, 1, schemes, 2, betas, 2, 4, 2, 30};
    CHECK_OK(lf_cmp_grid_check(&c, &grid));
    lf_cmp_table *tables = NULL;
    int32_t n = 0;
    CHECK_OK(lf_cmp_run_grid(&c, &grid, &tables, &n, NULL, NULL));
    CHECK_EQ_I64(n, 4);
    /* scheme-major within the network, buffers fastest */
    CHECK_STR(tables[1].scheme, "lbdf");
    CHECK_EQ_I64(tables[1].beta, 262144);
    CHECK_STR(tables[2].scheme, "brr");
    CHECK_EQ_I64(tables[3].seeds[1], 5);
    /* The last table as lf_cmp_run_table makes it alone. */
    uint64_t seeds[] = {4, 5};
    lf_cmp_table t;
    memset(&t, 0, sizeof t);
    t.model = "squeezenet1_1";
    t.scheme = "brr";
    t.beta = 262144;
    t.seeds = seeds;
    CHECK_OK(lf_cmp_table_alloc(&t, 2, 2, 30));
    hw.buffer_bytes = 262144;
    CHECK_OK(lf_cmp_run_table(&c, &t, g, NULL, NULL));
    if (n == 4) {
        for (int32_t r = 0; r < 2; r++)
            for (int32_t s = 0; s < 2; s++) {
                CHECK_EQ_I64(tables[3].rows[r].dram[s], t.rows[r].dram[s]);
                CHECK_EQ_I64(tables[3].rows[r].groups[s], t.rows[r].groups[s]);
            }
        CHECK(tables[3].has_exact && t.has_exact);
        CHECK_EQ_I64(tables[3].exact_dram, t.exact_dram);
        CHECK(tables[0].rows[0].dram[0] >= tables[0].exact_dram);
    }
    lf_cmp_table_free(&t);
    lf_cmp_tables_free(tables, n);
    /* Names are checked in the order schemes, searches, proposers. */
    schemes[1] = "xx";
    CHECK_EQ_I64(lf_cmp_grid_check(&c, &grid), LF_EINVAL);
    CHECK_STR(lf_last_error(), "unknown scheme 'xx' (use lbdf or brr)");
    schemes[1] = "brr";
    searches[0] = "foo";
    CHECK_EQ_I64(lf_cmp_grid_check(&c, &grid), LF_EINVAL);
    CHECK_STR(lf_last_error(), "unknown search 'foo' (use random (rs), local (ls) or nsga2 (nsga-ii, nsga))");
    searches[0] = "nsga-ii";
    proposers[1] = "bar";
    CHECK_EQ_I64(lf_cmp_grid_check(&c, &grid), LF_EINVAL);
    CHECK(strncmp(lf_last_error(), "unknown proposer 'bar' (use none,", 33) == 0);
    lf_graph_free(g);
}

int main(void)
{
    test_compare_grid();
    test_one_cell();
    test_sweep_report();
    test_buffer_sizes();
    test_network_lists();
    test_set_run();
    return lf_test_result();
}

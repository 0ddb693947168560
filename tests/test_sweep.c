/* Unit tests for search/sweep: grids and their cell order, grid files, one
 * cell against the search and the exact planner run directly, failing
 * cells, results files (scan, truncated last line, resume) and reading
 * lines back; a buffer sweep and a comparison table against the planners run
 * directly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "models/registry.h"
#include "planner/exact/exact.h"
#include "planner/util/fileio.h"
#include "search/partition/search.h"
#include "search/partition/simple.h"
#include "planner/app/pipeline.h"
#include "search/sweep/buffer_sweep.h"
#include "search/sweep/compare.h"
#include "search/sweep/sweep.h"
#include "splitter/proposer.h"
#include "splitter/tree.h"
#include "tests/fixtures.h"
#include "tests/graphs.h"
#include "tests/testlib.h"

static char lf_tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", lf_tmpdir, name);
    return buf[k];
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* The line without its wall times (its last two members). */
static void strip_wall(char *line)
{
    char *w = strstr(line, ", \"wall_s\": ");
    if (w)
        *w = '\0';
}

static void small_grid(lf_sweep_grid *g)
{
    lf_sweep_grid_init(g);
    CHECK_OK(lf_sweep_grid_set(g, "models", "mobilenet_v2"));
    CHECK_OK(lf_sweep_grid_set(g, "buffers", "128KB"));
    CHECK_OK(lf_sweep_grid_set(g, "searches", "ls,rs"));
    CHECK_OK(lf_sweep_grid_set(g, "proposers", "none,attrib"));
    CHECK_OK(lf_sweep_grid_set(g, "seeds", "4,5"));
    g->budget = 60;
}

static void test_grid_order(void)
{
    lf_sweep_grid g;
    lf_sweep_grid_init(&g);
    /* Defaults: mobilenet_v2, lbdf, the built-in buffer, 3 searches, 4 proposers, 3 seeds. */
    CHECK_EQ_I64(lf_sweep_n_cells(&g), 1 * 1 * 1 * 3 * 4 * 3);
    CHECK_EQ_I64(g.budget, 2000);
    CHECK_EQ_I64(g.threads, 1);
    CHECK_EQ_I64(g.exact, 1);
    CHECK_EQ_I64(g.split_gap, 0); /* off by default, as in compare */
    CHECK_OK(lf_sweep_grid_set(&g, "models", "resnet18,mobilenet_v2"));
    CHECK_OK(lf_sweep_grid_set(&g, "schemes", "lbdf,brr"));
    CHECK_OK(lf_sweep_grid_set(&g, "buffers", "128KB,256KB,1MiB"));
    CHECK_OK(lf_sweep_grid_set(&g, "searches", "rs,local"));
    CHECK_OK(lf_sweep_grid_set(&g, "proposers", "none,pg"));
    CHECK_OK(lf_sweep_grid_set(&g, "seeds", "7,1-3"));
    int64_t n = lf_sweep_n_cells(&g);
    CHECK_EQ_I64(n, 2 * 2 * 3 * 2 * 2 * 4);
    /* index = ((((m*S + s)*B + b)*Q + q)*P + p)*K + k, seeds in the given order. */
    lf_sweep_cell c;
    char key[512];
    int64_t i = ((((1 * 2 + 1) * 3 + 2) * 2 + 0) * 2 + 1) * 4 + 0;
    CHECK_OK(lf_sweep_cell_get(&g, i, &c));
    lf_sweep_cell_key(&c, key, sizeof key);
    CHECK_STR(key, "mobilenet_v2/brr/1048576/random/pg/7");
    CHECK_EQ_I64(c.index, i);
    CHECK_OK(lf_sweep_cell_get(&g, 0, &c));
    lf_sweep_cell_key(&c, key, sizeof key);
    CHECK_STR(key, "resnet18/lbdf/131072/random/none/7");
    CHECK_OK(lf_sweep_cell_get(&g, 1, &c));
    CHECK_EQ_I64(c.seed, 1);
    CHECK_OK(lf_sweep_cell_get(&g, n - 1, &c));
    lf_sweep_cell_key(&c, key, sizeof key);
    CHECK_STR(key, "mobilenet_v2/brr/1048576/local/pg/3");
    CHECK(lf_sweep_cell_get(&g, n, &c) == LF_EINVAL);
    CHECK(lf_sweep_cell_get(&g, -1, &c) == LF_EINVAL);
    /* Keys are unique. */
    char (*keys)[128] = malloc((size_t)n * sizeof *keys);
    int dup = 0;
    for (int64_t a = 0; keys && a < n; a++) {
        lf_sweep_cell_get(&g, a, &c);
        lf_sweep_cell_key(&c, keys[a], sizeof keys[a]);
        for (int64_t b = 0; b < a; b++)
            dup += !strcmp(keys[a], keys[b]);
    }
    CHECK_EQ_I64(dup, 0);
    free(keys);

    /* Bad names and lists, each naming the culprit. */
    CHECK(lf_sweep_grid_set(&g, "models", "resnet18,nonet") == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "nonet") != NULL);
    CHECK(lf_sweep_grid_set(&g, "schemes", "lbdf,xyz") == LF_EINVAL);
    CHECK(lf_sweep_grid_set(&g, "searches", "dfs") == LF_EINVAL);
    CHECK(lf_sweep_grid_set(&g, "proposers", "none,oracle") == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "oracle") != NULL);
    CHECK(lf_sweep_grid_set(&g, "seeds", "5-3") == LF_EINVAL);
    CHECK(lf_sweep_grid_set(&g, "seeds", "1,x") == LF_EINVAL);
    CHECK(lf_sweep_grid_set(&g, "seeds", "2,2") == LF_EINVAL);
    CHECK(lf_sweep_grid_set(&g, "buffers", "12XB") == LF_EINVAL);
    CHECK(lf_sweep_grid_set(&g, "searches", "ls,local") == LF_EINVAL); /* the same search twice */
    CHECK(lf_sweep_grid_set(&g, "models", "") == LF_EINVAL);
    CHECK(lf_sweep_grid_set(&g, "colours", "red") == LF_EINVAL);
    CHECK(lf_sweep_grid_set(&g, "seeds", "1-65") == LF_ELIMIT);
    lf_sweep_grid_destroy(&g);

    /* Curve points are compare's: at most 100, evenly spaced, the last at the budget. */
    int64_t pts[100];
    CHECK_EQ_I64(lf_sweep_curve_points(150, pts), 75);
    CHECK_EQ_I64(pts[0], 2);
    CHECK_EQ_I64(pts[74], 150);
    CHECK_EQ_I64(lf_sweep_curve_points(7, pts), 7);
    CHECK_EQ_I64(lf_sweep_curve_points(1000, pts), 100);
    CHECK_EQ_I64(pts[99], 1000);
    CHECK_EQ_I64(lf_sweep_curve_points(1001, pts), 91); /* step 11 */
    CHECK_EQ_I64(pts[90], 1001);
}

static void test_grid_file(void)
{
    lf_sweep_grid g;
    lf_sweep_grid_init(&g);
    const char *p = tmp_path("grid.json");
    write_text(p, "{\"models\": [\"resnet18\"], \"buffers\": [\"128KB\", 262144], \"searches\": [\"nsga2\"],\n"
                  " \"proposers\": [\"none\"], \"seeds\": {\"first\": 3, \"count\": 4}, \"budget\": 77,\n"
                  " \"k\": 2, \"population\": 6, \"threads\": 2, \"exact\": false, \"split_gap\": true}\n");
    CHECK_OK(lf_sweep_grid_load(&g, p));
    CHECK_EQ_I64(lf_sweep_n_cells(&g), 1 * 1 * 2 * 1 * 1 * 4);
    CHECK_EQ_I64(g.buffers[1], 262144);
    CHECK_EQ_I64(g.seeds[0], 3);
    CHECK_EQ_I64(g.seeds[3], 6);
    CHECK_EQ_I64(g.budget, 77);
    CHECK_EQ_I64(g.k, 2);
    CHECK_EQ_I64(g.population, 6);
    CHECK_EQ_I64(g.threads, 2);
    CHECK_EQ_I64(g.exact, 0);
    CHECK_EQ_I64(g.split_gap, 1);
    CHECK_STR(g.schemes[0], "lbdf"); /* not given: kept */

    /* A misspelt member is an error naming the file and the member. */
    write_text(p, "{\"model\": [\"resnet18\"]}");
    CHECK(lf_sweep_grid_load(&g, p) == LF_EPARSE);
    CHECK(strstr(lf_last_error(), "grid.json") && strstr(lf_last_error(), "\"model\""));
    write_text(p, "{\"models\": [\"resnet18\"],\n \"budget\": 0}");
    CHECK(lf_sweep_grid_load(&g, p) == LF_EPARSE);
    CHECK(strstr(lf_last_error(), "budget") != NULL);
    write_text(p, "{\"models\": [\"resnet18\"],\n \"budget\": }");
    CHECK(lf_sweep_grid_load(&g, p) == LF_EPARSE);
    CHECK(strstr(lf_last_error(), "grid.json:2") != NULL);
    write_text(p, "{\"models\": [\"nonet\"]}");
    CHECK(lf_sweep_grid_load(&g, p) == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "\"models\"[0]") && strstr(lf_last_error(), "nonet"));
    write_text(p, "{\"models\": [], \"budget\": 5}");
    CHECK(lf_sweep_grid_load(&g, p) == LF_EPARSE);
    write_text(p, "[1, 2]");
    CHECK(lf_sweep_grid_load(&g, p) == LF_EPARSE);
    write_text(p, "{\"budget\": 5, \"budget\": 6}");
    CHECK(lf_sweep_grid_load(&g, p) == LF_EPARSE);
    CHECK(lf_sweep_grid_load(&g, tmp_path("missing.json")) == LF_EIO);
    lf_sweep_grid_destroy(&g);

    /* ONNX files: after the built-in models; alone, they replace the default models. */
    lf_sweep_grid_init(&g);
    CHECK_OK(lf_sweep_grid_set(&g, "onnx", LF_SOURCE_DIR "/tests/data/onnx/tiny.onnx"));
    CHECK_EQ_I64(g.n_models, 0);
    CHECK_EQ_I64(lf_sweep_n_networks(&g), 1);
    CHECK_OK(lf_sweep_grid_set(&g, "models", "resnet18"));
    CHECK_OK(lf_sweep_grid_set(&g, "onnx", LF_SOURCE_DIR "/tests/data/onnx/tiny.onnx"));
    CHECK_EQ_I64(lf_sweep_n_networks(&g), 2);
    CHECK_OK(lf_sweep_grid_set(&g, "seeds", "1"));
    lf_sweep_cell oc;
    int64_t per = lf_sweep_n_cells(&g) / 2;
    CHECK_OK(lf_sweep_cell_get(&g, per, &oc));
    CHECK(oc.onnx == 1 && strstr(oc.model, "tiny.onnx"));
    CHECK_OK(lf_sweep_cell_get(&g, per - 1, &oc));
    CHECK(oc.onnx == 0 && !strcmp(oc.model, "resnet18"));
    CHECK(lf_sweep_grid_set(&g, "onnx", tmp_path("nosuch.onnx")) == LF_EIO);
    CHECK_OK(lf_sweep_grid_set_input_shape(&g, "x=1,3,16,16"));
    CHECK(lf_sweep_grid_set_input_shape(&g, "x=1,3,a") != LF_OK);
    CHECK_STR(g.input_shape, "x=1,3,16,16");
    lf_sweep_grid_destroy(&g);

    /* The buffers axis follows the hardware description until it is set. */
    lf_sweep_grid_init(&g);
    CHECK_EQ_I64(g.buffers[0], 256 * 1024);
    CHECK_OK(lf_sweep_grid_set_hw(&g, LF_SOURCE_DIR "/examples/hw/buffer-512k.xml"));
    CHECK_EQ_I64(g.n_buffers, 1);
    CHECK_EQ_I64(g.buffers[0], 512 * 1024);
    CHECK_OK(lf_sweep_grid_set(&g, "buffers", "64KB"));
    CHECK_OK(lf_sweep_grid_set_hw(&g, LF_SOURCE_DIR "/examples/hw/buffer-128k.xml"));
    CHECK_EQ_I64(g.buffers[0], 64 * 1024);
    CHECK(lf_sweep_grid_set_hw(&g, tmp_path("nosuch.xml")) != LF_OK);
    lf_sweep_grid_destroy(&g);
}

/* A cell's figures are those of the search and the exact planner run
 * directly with the same settings. */
static void test_cell_matches_direct_runs(void)
{
    lf_sweep_grid g;
    small_grid(&g);
    lf_sweep_runner *r = NULL;
    CHECK_OK(lf_sweep_runner_create(&r, &g));
    const char *p = tmp_path("cells.jsonl");
    unlink(p);
    int fd = -1;
    uint8_t done[8] = {0};
    CHECK_OK(lf_sweep_results_open(&g, p, LF_SWEEP_FRESH, done, &fd));
    char *lines[8] = {0};
    for (int64_t i = 0; i < 8; i++) {
        int failed = 1;
        CHECK_OK(lf_sweep_run_cell(r, i, &lines[i], &failed));
        CHECK_EQ_I64(failed, 0);
        CHECK(lines[i] && lines[i][strlen(lines[i]) - 1] == '\n');
        CHECK_OK(lf_sweep_results_append(fd, p, lines[i]));
    }
    close(fd);
    lf_sweep_record *rec = NULL;
    int64_t n = 0, truncated = 0;
    CHECK_OK(lf_sweep_records_load(p, &rec, &n, &truncated));
    CHECK_EQ_I64(n, 8);
    CHECK_EQ_I64(truncated, 0);

    lf_graph *gr = NULL;
    CHECK_OK(lf_model_build("mobilenet_v2", NULL, &gr));
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = 131072;
    lf_cost_model *cm = NULL;
    CHECK_OK(lf_cost_model_create(&cm, gr, &hw, "lbdf"));
    lf_plan ep;
    lf_plan_metrics em;
    CHECK_OK(lf_exact_plan(cm, NULL, &ep, NULL));
    CHECK_OK(lf_plan_metrics_compute(&ep, cm, &em));
    lf_plan_destroy(&ep);
    for (int64_t i = 0; i < n && n == 8; i++) {
        lf_sweep_record *c = &rec[i];
        CHECK_EQ_I64(c->cell, i);
        CHECK(c->error == NULL);
        CHECK_EQ_I64(c->budget, 60);
        CHECK_EQ_I64(c->n_curve, 60);
        CHECK(c->has_exact);
        CHECK_EQ_I64(c->exact_dram_fusable, em.dram_fusable);
        CHECK_EQ_I64(c->exact_dram_all, em.dram_all);
        CHECK(c->dram_fusable >= c->exact_dram_fusable);
        CHECK_EQ_I64(c->curve[c->n_curve - 1], c->dram_fusable);
        CHECK(c->graph_hash && strlen(c->graph_hash) == 16);
        /* The search without a splitter has no rectify rate. */
        CHECK(!strcmp(c->proposer, "none") == !!isnan(c->rectify_rate));
        if (!(i == 2 || i == 3 || i == 4 || i == 7))
            continue; /* direct runs of a few cells */
        lf_search_config cfg;
        lf_search_config_default(&cfg);
        cfg.algorithm = c->search;
        cfg.budget = 60;
        cfg.seed = c->seed;
        cfg.threads = 1;
        cfg.quiet = 1;
        lf_splitter *sp = NULL;
        const lf_proposer *prop = NULL;
        if (!strcmp(c->proposer, "attrib")) {
            lf_tree_options topt;
            lf_tree_options_default(&topt);
            CHECK_OK(lf_proposer_find("attrib", &prop));
            CHECK_OK(lf_splitter_tree_create(&sp, prop, 3, &topt));
        }
        cfg.splitter = sp;
        lf_search_result res;
        memset(&res, 0, sizeof res);
        CHECK_OK(lf_search_run(cm, &cfg, &res));
        CHECK_EQ_I64(c->dram_fusable, res.metrics.dram_fusable);
        CHECK_EQ_I64(c->dram_all, res.metrics.dram_all);
        CHECK_EQ_I64(c->mbu, res.metrics.mbu);
        CHECK_EQ_I64(c->groups, res.metrics.n_groups);
        CHECK_EQ_I64(c->invalid_groups, res.invalid_groups);
        lf_search_result_destroy(&res);
        lf_splitter_free(sp);
    }
    lf_cost_model_free(cm);
    lf_graph_free(gr);
    lf_sweep_records_free(rec, n);

    /* The same cell from a fresh runner (nothing cached) is the same line
     * up to the wall times. */
    lf_sweep_runner *r2 = NULL;
    CHECK_OK(lf_sweep_runner_create(&r2, &g));
    char *again = NULL;
    int failed = 0;
    CHECK_OK(lf_sweep_run_cell(r2, 6, &again, &failed));
    if (again && lines[6]) {
        strip_wall(again);
        char *copy = strdup(lines[6]);
        strip_wall(copy);
        CHECK_STR(again, copy);
        free(copy);
    }
    free(again);
    lf_sweep_runner_free(r2);

    /* A failing cell (a population the search rejects, set through the
     * library) still yields a line, with the error. */
    g.population = 0;
    CHECK_OK(lf_sweep_runner_create(&r2, &g));
    CHECK_OK(lf_sweep_run_cell(r2, 0, &again, &failed));
    CHECK_EQ_I64(failed, 1);
    CHECK(again && strstr(again, "\"error\": \"") && strstr(again, "\"cell\": 0, "));
    lf_sweep_runner_free(r2);
    if (again) {
        write_text(p, again);
        CHECK_OK(lf_sweep_records_load(p, &rec, &n, &truncated));
        CHECK_EQ_I64(n, 1);
        CHECK(n == 1 && rec[0].error != NULL);
        lf_sweep_records_free(rec, n);
    }
    free(again);
    CHECK(lf_sweep_run_cell(r, 8, &again, &failed) == LF_EINVAL);
    for (int i = 0; i < 8; i++)
        free(lines[i]);
    lf_sweep_runner_free(r);
    lf_sweep_grid_destroy(&g);
}

/* Results files: a full run, a truncated last line cut on resume and the
 * cell redone, refusals, and lines that do not belong to the grid. */
static void test_results_resume(void)
{
    lf_sweep_grid g;
    small_grid(&g);
    CHECK_OK(lf_sweep_grid_set(&g, "searches", "ls"));
    g.exact = 0;
    const char *p = tmp_path("run.jsonl");
    unlink(p);
    lf_sweep_options o = {p, 0, NULL, NULL, NULL};
    CHECK_OK(lf_sweep_run(&g, &o));
    char *full = NULL;
    long full_len = 0;
    CHECK_OK(lf_read_file(p, &full, &full_len));
    int nl = 0;
    for (long i = 0; full && i < full_len; i++)
        nl += full[i] == '\n';
    CHECK_EQ_I64(nl, 4);
    /* Again without --resume: refused, the file untouched. */
    CHECK(lf_sweep_run(&g, &o) == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "--resume") != NULL);
    CHECK_EQ_I64(file_size(p), full_len);

    /* Two complete lines and half of the third, as a kill while writing leaves. */
    const char *l3 = full;
    for (int k = 0; k < 2; k++)
        l3 = strchr(l3, '\n') + 1;
    long keep = (long)(l3 - full);
    const char *l4 = strchr(l3, '\n') + 1;
    FILE *f = fopen(p, "wb");
    fwrite(full, 1, (size_t)keep + (size_t)(l4 - l3) / 2, f);
    fclose(f);
    uint8_t done[4] = {0};
    int64_t valid = -1, lines = -1;
    CHECK_OK(lf_sweep_results_scan(&g, p, done, &valid, &lines));
    CHECK_EQ_I64(valid, keep);
    CHECK_EQ_I64(lines, 2);
    CHECK(done[0] && done[1] && !done[2] && !done[3]);
    /* Appending one --cell to it is refused (it would glue onto the half line). */
    int fd = -1;
    CHECK(lf_sweep_results_open(&g, p, LF_SWEEP_APPEND, done, &fd) == LF_EINVAL);
    /* Resume: the half line is cut, cells 2 and 3 are redone: the same
     * lines as the full run up to the wall times, no duplicate. */
    o.resume = 1;
    CHECK_OK(lf_sweep_run(&g, &o));
    char *resumed = NULL;
    long rlen = 0;
    CHECK_OK(lf_read_file(p, &resumed, &rlen));
    lf_sweep_record *a = NULL, *b = NULL;
    int64_t na = 0, nb = 0, ta = 0, tb = 0;
    write_text(tmp_path("full.jsonl"), full);
    CHECK_OK(lf_sweep_records_load(tmp_path("full.jsonl"), &a, &na, &ta));
    CHECK_OK(lf_sweep_records_load(p, &b, &nb, &tb));
    CHECK_EQ_I64(na, 4);
    CHECK_EQ_I64(nb, 4);
    for (int64_t i = 0; i < na && i < nb; i++) {
        CHECK_EQ_I64(b[i].cell, i);
        CHECK_EQ_I64(a[i].dram_fusable, b[i].dram_fusable);
        CHECK_STR(a[i].key, b[i].key);
    }
    lf_sweep_records_free(a, na);
    lf_sweep_records_free(b, nb);
    /* Resuming a complete file adds nothing. */
    CHECK_OK(lf_sweep_run(&g, &o));
    CHECK_EQ_I64(file_size(p), rlen);

    /* A line of another grid, or a malformed line before the last: errors
     * naming the file and line. */
    char *bad = malloc((size_t)rlen + 64);
    const char *second = strchr(resumed, '\n') + 1;
    snprintf(bad, (size_t)rlen + 64, "%.*s{\"cell\": 1, oops\n%s", (int)(second - resumed), resumed,
             strchr(second, '\n') + 1);
    write_text(p, bad);
    memset(done, 0, sizeof done);
    CHECK(lf_sweep_results_scan(&g, p, done, &valid, &lines) == LF_EPARSE);
    CHECK(strstr(lf_last_error(), "run.jsonl:2:") != NULL);
    lf_sweep_record *rec = NULL;
    int64_t n = 0, t = 0;
    CHECK(lf_sweep_records_load(p, &rec, &n, &t) == LF_EPARSE);
    CHECK(strstr(lf_last_error(), "run.jsonl:2:") != NULL);
    CHECK_OK(lf_sweep_grid_set(&g, "seeds", "4,6"));
    write_text(p, resumed);
    CHECK(lf_sweep_results_scan(&g, p, done, &valid, &lines) == LF_EPARSE);
    CHECK(strstr(lf_last_error(), "another grid") != NULL);
    /* A line without the figures is named by its member. */
    write_text(p, "{\"cell\": 0, \"key\": \"x\", \"model\": \"m\", \"scheme\": \"lbdf\", \"search\": "
                  "\"local\", \"proposer\": \"none\", \"version\": \"0\", \"buffer_bytes\": 1, \"budget\": 5, "
                  "\"seed\": 1, \"k\": 3, \"population\": 10, \"threads\": 1, \"wall_s\": 0.1}\n");
    CHECK(lf_sweep_records_load(p, &rec, &n, &t) == LF_EPARSE);
    CHECK(strstr(lf_last_error(), "\"ops\"") != NULL);
    free(bad);
    free(full);
    free(resumed);
    lf_sweep_grid_destroy(&g);
}

/* A buffer sweep against the planners run directly at each size: the exact
 * column from the staircase equals lf_exact_plan there, the layer column
 * lf_plan_layer, the search never beats the optimum, the valid share never
 * falls as the buffer grows, and fewer groups than asked is a notice. */
static int n_notices;
static void count_notice(void *user, lf_buffer_sweep_notice kind, const char *message)
{
    (void)user;
    CHECK(kind == LF_BUFFER_SWEEP_FEW_GROUPS);
    CHECK(strstr(message, "chain lbdf: only ") != NULL);
    n_notices++;
}

static void test_buffer_sweep(void)
{
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build("squeezenet1_1", NULL, &g));
    lf_buffer_sweep_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.search = "local";
    cfg.budget = 100;
    cfg.seed = 3;
    cfg.threads = 1;
    cfg.k = 3;
    cfg.samples = 300;
    cfg.do_exact = 1;
    cfg.nb = 3;
    cfg.betas[0] = 65536, cfg.betas[1] = 131072, cfg.betas[2] = 262144;
    lf_hw_default(&cfg.hw);
    lf_buffer_sweep sw;
    CHECK_OK(lf_buffer_sweep_run(g, "squeezenet1_1", "brr", &cfg, &sw, count_notice, NULL));
    CHECK_EQ_I64(n_notices, 0);
    CHECK_EQ_I64(sw.sampled, cfg.samples);
    for (int32_t b = 0; b < cfg.nb; b++) {
        const lf_buffer_sweep_point *p = &sw.pts[b];
        lf_hw hw = cfg.hw;
        hw.buffer_bytes = cfg.betas[b];
        lf_cost_model *cm = NULL;
        CHECK_OK(lf_cost_model_create(&cm, g, &hw, "brr"));
        lf_plan ep, lp;
        lf_plan_metrics em, lm;
        CHECK_OK(lf_exact_plan(cm, NULL, &ep, NULL));
        CHECK_OK(lf_plan_metrics_compute(&ep, cm, &em));
        CHECK_OK(lf_plan_layer(cm, &lp));
        CHECK_OK(lf_plan_metrics_compute(&lp, cm, &lm));
        CHECK_EQ_I64(p->beta, cfg.betas[b]);
        CHECK(p->has_exact && p->has_valid);
        CHECK_EQ_I64(p->exact_all, em.dram_all);
        CHECK_EQ_I64(p->layer_all, lm.dram_all);
        CHECK(p->m.dram_all >= p->exact_all);
        CHECK(p->exact_all <= p->layer_all);
        CHECK_EQ_I64(p->n_unfusable, lf_cost_unfusable_count(cm));
        CHECK(b == 0 || p->valid_pct >= sw.pts[b - 1].valid_pct);
        lf_plan_destroy(&ep);
        lf_plan_destroy(&lp);
        lf_cost_model_free(cm);
    }
    /* sizes out of order are refused */
    cfg.betas[1] = 65536;
    CHECK_EQ_I64(lf_buffer_sweep_run(g, "squeezenet1_1", "brr", &cfg, &sw, NULL, NULL), LF_EINVAL);
    lf_graph_free(g);

    /* A chain of three equal convs has two distinct groups of two or more
     * ops (c1-c2 and c2-c3 have the same content; then c1-c2-c3): asking
     * for 300 samples from its own graph finds both and says so. */
    lf_graph_builder *b = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "chain"));
    tg_input(b, "x", 8, 16, 16);
    tg_conv(b, "c1", "x", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "c2", "c1", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "c3", "c2", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    g = tf_build(b);
    cfg.betas[1] = 131072;
    cfg.sample_graph = 1;
    CHECK_OK(lf_buffer_sweep_run(g, "chain", "lbdf", &cfg, &sw, count_notice, NULL));
    CHECK_EQ_I64(n_notices, 1);
    CHECK_EQ_I64(sw.sampled, 2);
    lf_graph_free(g);
}

/* A comparison table against lf_plan_network run directly for each pair
 * and seed: the same DRAM, groups and curve end; the baseline row; the
 * optimum from lf_exact_plan; progress once per run and once for the
 * optimum; unknown names refused. */
static int n_progress;
static void count_progress(void *user, const lf_cmp_table *t, int32_t r, int32_t s, int ok)
{
    (void)user, (void)t;
    CHECK(ok);
    CHECK((r < 0) == (s < 0));
    n_progress++;
}

static void test_compare_table(void)
{
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build("squeezenet1_1", NULL, &g));
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = 131072;
    const char *searches[] = {"rs", "nsga2"}, *proposers[] = {"attrib", "none"};
    lf_cmp_config c = {searches, proposers, 2, 2, 3, 1, 10, 1, 0, 0, &hw, 0};
    uint64_t seeds[2] = {5, 6};
    lf_cmp_table t;
    memset(&t, 0, sizeof t);
    t.model = "squeezenet1_1";
    t.scheme = "lbdf";
    t.beta = hw.buffer_bytes;
    t.seeds = seeds;
    CHECK_OK(lf_cmp_table_alloc(&t, 4, 2, 120));
    CHECK_OK(lf_cmp_run_table(&c, &t, g, count_progress, NULL));
    CHECK_EQ_I64(n_progress, 4 * 2 + 1);
    CHECK_STR(t.rows[0].search, "random");
    CHECK_STR(t.rows[3].search, "nsga2");
    CHECK_EQ_I64(t.rows[0].baseline, 1);
    CHECK_EQ_I64(t.rows[1].baseline, -1);
    CHECK_EQ_I64(t.rows[2].baseline, 3);
    CHECK_EQ_I64(t.points[t.n_points - 1], 120);
    lf_cost_model *cm = NULL;
    CHECK_OK(lf_cost_model_create(&cm, g, &hw, "lbdf"));
    for (int32_t r = 0; r < 4; r++)
        for (int32_t s = 0; s < 2; s++) {
            lf_planner_config pc;
            lf_planner_config_default(&pc);
            pc.search = t.rows[r].search;
            pc.budget = 120;
            pc.seed = seeds[s];
            pc.threads = 1;
            pc.k = 3;
            if (r % 2 == 0) {
                pc.split = "tree";
                pc.proposer = "attrib";
            }
            lf_planned res;
            CHECK_OK(lf_plan_network(cm, &pc, &res));
            CHECK_EQ_I64(t.rows[r].dram[s], res.metrics.dram_fusable);
            CHECK_EQ_I64(t.rows[r].groups[s], res.metrics.n_groups);
            CHECK_EQ_I64((int64_t)t.rows[r].curve[(int64_t)s * t.n_points + t.n_points - 1],
                         res.metrics.dram_fusable);
            CHECK(r % 2 == 1 ? isnan(t.rows[r].rectify[s]) : !isnan(t.rows[r].rectify[s]));
            lf_planned_destroy(&res);
        }
    lf_plan ep;
    lf_plan_metrics em;
    CHECK_OK(lf_exact_plan(cm, NULL, &ep, NULL));
    CHECK_OK(lf_plan_metrics_compute(&ep, cm, &em));
    CHECK(t.has_exact);
    CHECK_EQ_I64(t.exact_dram, em.dram_fusable);
    CHECK_EQ_I64(t.exact_groups, em.n_groups);
    lf_plan_destroy(&ep);
    lf_cost_model_free(cm);
    const char *bad[] = {"annealing"};
    lf_cmp_config wrong = c;
    wrong.searches = bad;
    wrong.n_searches = 1;
    wrong.n_proposers = 4; /* rows still 4 */
    CHECK_EQ_I64(lf_cmp_run_table(&wrong, &t, g, NULL, NULL), LF_EINVAL);
    CHECK(strstr(lf_last_error(), "unknown search 'annealing'") != NULL);
    CHECK(!lf_cmp_proposer_known("gnnexplainer") && lf_cmp_proposer_known("none") &&
          lf_cmp_proposer_known("rg"));
    lf_cmp_table_free(&t);
    lf_graph_free(g);
}

/* Two runs on one results file: the second is refused before it reads or
 * writes anything while the first holds the lock (here held by a helper
 * process, handshaking through pipes, so nothing depends on timing); a
 * whole sweep excludes --cell appenders, which share the file among
 * themselves; a file where a cell appears twice is refused on resume. */
static void test_results_lock(void)
{
    lf_sweep_grid g;
    small_grid(&g);
    CHECK_OK(lf_sweep_grid_set(&g, "searches", "ls"));
    g.exact = 0;
    const char *p = tmp_path("lock.jsonl");
    unlink(p);
    lf_sweep_options o = {p, 0, NULL, NULL, NULL};
    CHECK_OK(lf_sweep_run(&g, &o));
    char *full = NULL;
    long full_len = 0;
    CHECK_OK(lf_read_file(p, &full, &full_len));
    /* Keep two of the four lines: a resume has cells to append. */
    const char *third = strchr(strchr(full, '\n') + 1, '\n') + 1;
    long two = (long)(third - full);
    FILE *f = fopen(p, "wb");
    fwrite(full, 1, (size_t)two, f);
    fclose(f);

    int ready[2], release[2];
    CHECK(pipe(ready) == 0 && pipe(release) == 0);
    pid_t child = fork();
    if (child == 0) { /* the helper: hold the lock as a running sweep does */
        close(release[1]); /* so that the parent's close is seen as end of file */
        uint8_t done[4] = {0};
        int fd = -1;
        char c = lf_sweep_results_open(&g, p, LF_SWEEP_RESUME, done, &fd) == LF_OK ? 'y' : 'n';
        if (write(ready[1], &c, 1) != 1 || read(release[0], &c, 1) < 0)
            _exit(2);
        _exit(0); /* exiting releases the lock */
    }
    char c = 0;
    CHECK(read(ready[0], &c, 1) == 1 && c == 'y');
    o.resume = 1;
    CHECK(lf_sweep_run(&g, &o) == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "lock.jsonl: another sweep is writing to it") != NULL);
    CHECK_EQ_I64(file_size(p), two);
    uint8_t done[4] = {0};
    int fd = -1, fd2 = -1;
    CHECK(lf_sweep_results_open(&g, p, LF_SWEEP_APPEND, done, &fd) == LF_EINVAL);
    CHECK_EQ_I64(fd, -1);
    close(release[1]);
    int status = -1;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(ready[0]), close(ready[1]), close(release[0]);
    /* Released: the resume completes the file, every cell once. */
    CHECK_OK(lf_sweep_run(&g, &o));
    int64_t valid = 0, lines = 0;
    CHECK_OK(lf_sweep_results_scan(&g, p, done, &valid, &lines));
    CHECK_EQ_I64(lines, 4);
    CHECK(done[0] && done[1] && done[2] && done[3]);

    /* --cell appenders share the file; a whole sweep waits for none of them. */
    CHECK_OK(lf_sweep_results_open(&g, p, LF_SWEEP_APPEND, done, &fd));
    CHECK_OK(lf_sweep_results_open(&g, p, LF_SWEEP_APPEND, done, &fd2));
    CHECK(lf_sweep_run(&g, &o) == LF_EINVAL);
    close(fd);
    close(fd2);

    /* Cell 0 twice (two unlocked runs appended it): refused, naming it. */
    char *twice = malloc((size_t)full_len + (size_t)two + 1);
    const char *second = strchr(full, '\n') + 1;
    snprintf(twice, (size_t)full_len + (size_t)two + 1, "%s%.*s", full, (int)(second - full), full);
    memset(done, 0, sizeof done);
    CHECK(lf_sweep_results_scan(&g, p, done, &valid, &lines) == LF_OK);
    write_text(p, twice);
    CHECK(lf_sweep_run(&g, &o) == LF_EPARSE);
    CHECK(strstr(lf_last_error(), "lock.jsonl:5: cell 0 '") != NULL);
    CHECK(strstr(lf_last_error(), "is also on line 1") != NULL);
    CHECK_EQ_I64(file_size(p), (long)strlen(twice));
    free(twice);
    free(full);
    unlink(p);
    lf_sweep_grid_destroy(&g);
}

int main(void)
{
    snprintf(lf_tmpdir, sizeof lf_tmpdir, "/tmp/lf_test_sweep_XXXXXX");
    if (!mkdtemp(lf_tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_grid_order();
    test_grid_file();
    test_cell_matches_direct_runs();
    test_results_resume();
    test_results_lock();
    test_buffer_sweep();
    test_compare_table();
    const char *names[] = {"grid.json", "cells.jsonl", "run.jsonl", "full.jsonl"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(tmp_path(names[i]));
    rmdir(lf_tmpdir);
    return lf_test_result();
}

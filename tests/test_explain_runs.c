/* The training runs behind `fusionplan dataset`, `train` and
 * `train-explainer` as library calls (explain/gnn_training.h,
 * explain/explainer_training.h, lf_dataset_report_write): a small dataset
 * (scale 0.02, seed 3: 221 groups at five buffer sizes, split 176 / 22 /
 * 23), its report's counts and fractions recomputed, the GNN trained from
 * the file giving the weights lf_gnn_train gives on the same samples, a
 * PGExplainer trained on five samples and saved, and schemes that do not
 * match refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain/dataset.h"
#include "explain/explainer_training.h"
#include "explain/gnn_training.h"
#include "explain/weights.h"
#include "testlib.h"

static char ds_path[128], gnn_path[128], pg_path[128];
static int lines;

static void count_line(void *user, const char *line)
{
    (void)user;
    lines++;
    CHECK(line[strlen(line) - 1] == '\n');
}

static char *report_of(const lf_dataset *ds)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        lf_dataset_report_write(f, ds);
        fclose(f);
    }
    return text;
}

static void test_dataset(void)
{
    lf_ds_config cfg;
    lf_ds_config_default(&cfg);
    cfg.scheme = "lbdf";
    cfg.seed = 3;
    cfg.scale = 0.02;
    lf_dataset ds;
    lf_dataset_init(&ds, "lbdf");
    CHECK_OK(lf_dataset_build(&ds, &cfg));
    CHECK_EQ_I64(ds.n_groups, 221);
    CHECK_OK(lf_dataset_save(&ds, ds_path));
    char *t = report_of(&ds);
    CHECK(t && strncmp(t, "split     train 176, validation 22, test 23 groups\n\nvalid fraction per network and "
                          "buffer size:\nnetwork                asked  groups   128KB   256KB   512KB  1024KB  2048KB\n",
                       170) == 0);
    int64_t valid = 0;
    for (int64_t i = 0; i < ds.n_groups; i++)
        valid += ds.groups[i].valid[0];
    char all[64];
    snprintf(all, sizeof all, "\n%-20s %7s %7d %7.3f ", "all", "", 221, (double)valid / 221);
    CHECK(t && strstr(t, all));
    free(t);
    lf_dataset_destroy(&ds);
}

static void test_gnn(void)
{
    lf_gnn_training_config cfg;
    lf_gnn_training_config_default(&cfg);
    cfg.dataset_path = ds_path;
    cfg.scheme = "brr";
    lf_gnn_training t;
    CHECK(lf_gnn_training_open(&t, &cfg) == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "holds lbdf labels, not brr") != NULL);
    lf_gnn_training_close(&t);
    cfg.scheme = "lbdf";
    cfg.train.epochs = 2;
    cfg.train.threads = 2;
    cfg.progress = count_line;
    CHECK_OK(lf_gnn_training_open(&t, &cfg));
    CHECK_EQ_I64(t.n[0], 880);
    CHECK_EQ_I64(t.n[1], 110);
    CHECK_EQ_I64(t.n[2], 115);
    CHECK_STR(t.gnn.scheme, "lbdf");
    lines = 0;
    CHECK_OK(lf_gnn_training_run(&t));
    CHECK_EQ_I64(lines, 2);
    CHECK(t.best_epoch >= 1 && t.best_epoch <= 2);
    CHECK_EQ_I64(t.test.n, 115);
    /* the same training by hand: the same weights */
    lf_gnn m = {0};
    lf_gnn_config gc;
    lf_gnn_config_default(&gc);
    CHECK_OK(lf_gnn_init(&m, &gc, 1));
    lf_dataset_fit_norm(&t.ds, &m.norm);
    lf_gnn_train_config tc;
    lf_gnn_train_config_default(&tc);
    tc.epochs = 2;
    tc.threads = 1;
    lf_gnn_sample *tr = NULL, *va = NULL;
    int64_t ntr = 0, nva = 0;
    CHECK_OK(lf_dataset_samples(&t.ds, LF_DS_TRAIN, &m.norm, &tr, &ntr));
    CHECK_OK(lf_dataset_samples(&t.ds, LF_DS_VAL, &m.norm, &va, &nva));
    CHECK_OK(lf_gnn_train(&m, tr, ntr, va, nva, &tc, NULL));
    CHECK(m.n_params == t.gnn.n_params && memcmp(m.params, t.gnn.params, sizeof(float) * (size_t)m.n_params) == 0);
    lf_dataset_samples_free(tr, ntr);
    lf_dataset_samples_free(va, nva);
    lf_gnn_destroy(&m);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        lf_gnn_training_write_header(f, &t);
        lf_gnn_training_write_result(f, &t);
        fclose(f);
        char want[400];
        snprintf(want, sizeof want, "train     %s: 880 train, 110 validation, 115 test samples; %lld parameters\n"
                                    "best      epoch %d (by validation accuracy); training took ",
                 ds_path, (long long)t.gnn.n_params, (int)t.best_epoch);
        CHECK(strncmp(text, want, strlen(want)) == 0);
        snprintf(want, sizeof want, "test      accuracy %.4f  F1(valid) %.4f", t.test.accuracy, t.test.f1);
        CHECK(strstr(text, want) && strstr(text, "(115 samples)\n"));
        free(text);
    }
    CHECK_OK(lf_gnn_save(&t.gnn, gnn_path));
    lf_gnn_training_close(&t);
}

static void test_pg(void)
{
    lf_explainer_training_config cfg;
    lf_explainer_training_config_default(&cfg, 0);
    CHECK_EQ_I64(cfg.pg.epochs, 25);
    lf_explainer_training_set(&cfg, 1, 1, 5);
    CHECK(cfg.rgx.rl_epochs == 1 && cfg.rgx.max_graphs == 5);
    cfg.gnn_path = gnn_path;
    cfg.dataset_path = ds_path;
    cfg.progress = count_line;
    lf_explainer_training t;
    CHECK_OK(lf_explainer_training_open(&t, &cfg));
    CHECK_EQ_I64(t.n_train, 880);
    CHECK_EQ_I64(t.n_used, 5);
    CHECK_EQ_I64(t.n_params, t.pg.n_params);
    lines = 0;
    CHECK_OK(lf_explainer_training_run(&t));
    CHECK_EQ_I64(lines, 1);
    CHECK_OK(lf_explainer_training_save(&t, pg_path));
    lf_pgx back = {0};
    CHECK_OK(lf_pgx_load(&back, pg_path));
    CHECK(back.n_params == t.pg.n_params &&
          memcmp(back.params, t.pg.params, sizeof(float) * (size_t)back.n_params) == 0);
    lf_pgx_destroy(&back);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        lf_explainer_training_write_header(f, &t);
        fclose(f);
        char want[300];
        snprintf(want, sizeof want, "train     PGExplainer on 5 invalid of 880 training samples (%s), %lld "
                                    "parameters, 1 epochs\n", ds_path, (long long)t.pg.n_params);
        CHECK_STR(text, want);
        free(text);
    }
    lf_explainer_training_close(&t);
    /* a GNN of another scheme */
    cfg.gnn_path = LF_SOURCE_DIR "/explain/weights/gnn-brr.bin";
    CHECK(lf_explainer_training_open(&t, &cfg) == LF_EINVAL);
    CHECK(strstr(lf_last_error(), "was trained for scheme brr") != NULL);
    lf_explainer_training_close(&t);
}

int main(void)
{
    snprintf(ds_path, sizeof ds_path, "/tmp/lf_test_explain_runs_%d.ds", (int)getpid());
    snprintf(gnn_path, sizeof gnn_path, "/tmp/lf_test_explain_runs_%d.gnn", (int)getpid());
    snprintf(pg_path, sizeof pg_path, "/tmp/lf_test_explain_runs_%d.pg", (int)getpid());
    test_dataset();
    test_gnn();
    test_pg();
    remove(ds_path);
    remove(gnn_path);
    remove(pg_path);
    return lf_test_result();
}

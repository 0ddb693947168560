/* The split report (splitter/split_report.h, `fusionplan split`): for
 * resnet18's ops 1-10 at 64 KB under the attribution proposer, the report
 * shows the group's figures, one block per candidate cut of the first level
 * as lf_tree_level_eval finds them, the tree splitter's parts and the
 * optimum from lf_exact_split; a valid group is not split; a graph input is
 * refused; the DOT file equals the stream writer's output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "splitter/proposer_named.h"
#include "models/registry.h"
#include "planner/exact/exact.h"
#include "planner/io/split_dot.h"
#include "planner/util/fileio.h"
#include "planner/util/format.h"
#include "splitter/split_report.h"
#include "splitter/tree.h"
#include "tests/testlib.h"

static int count(const char *s, const char *sub)
{
    int n = 0;
    for (const char *p = strstr(s, sub); p; p = strstr(p + strlen(sub), sub))
        n++;
    return n;
}

static void set_range(lf_bitset *b, int32_t lo, int32_t hi)
{
    lf_bitset_clear_all(b);
    for (int32_t v = lo; v <= hi; v++)
        lf_bitset_set(b, v);
}

int main(void)
{
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build("resnet18", NULL, &g));
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = 65536;
    lf_cost_model *cm = NULL;
    CHECK_OK(lf_cost_model_create(&cm, g, &hw, "lbdf"));
    lf_named_proposer cp = {0};
    CHECK_OK(lf_named_proposer_open(&cp, "attrib", cm, NULL, NULL, NULL));
    lf_bitset grp;
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    set_range(&grp, 1, 10);

    char *text = NULL;
    size_t len = 0;
    lf_split_result res = {0};
    FILE *f = open_memstream(&text, &len);
    CHECK_OK(lf_split_report(f, cm, cp.proposer, 3, &grp, 1, &res));
    fclose(f);
    CHECK(strncmp(text, "group     10 ops of resnet18 under lbdf, beta 65,536 B\n", 55) == 0);
    CHECK(strstr(text, "-> INVALID;") != NULL);
    /* One block per candidate cut, as the first level finds them. */
    lf_tree_level lv;
    CHECK_OK(lf_tree_level_eval(&lv, cm, cp.proposer, 3, &grp, lf_split_seed(1, &grp)));
    CHECK_EQ_I64(count(text, "        category "), lv.cuts.n_cuts);
    CHECK_EQ_I64(count(text, "<- chosen"), lv.chosen >= 0 ? 1 : 0);
    CHECK(strstr(text, "proposer  attrib, k 3: 3 edge(s)\n") != NULL);
    lf_tree_level_destroy(&lv);
    /* The split line and the optimum's. */
    CHECK(res.n_parts >= 2);
    int64_t tree_fd = 0;
    for (int32_t q = 0; q < res.n_parts; q++) {
        lf_group_cost c;
        CHECK_OK(lf_cost_eval(cm, &res.parts[q], &c));
        CHECK(c.valid);
        tree_fd += c.f_d;
    }
    char want[160], num[32];
    snprintf(want, sizeof want, "split     %d parts, F_D %s B (", (int)res.n_parts,
             lf_format_commas(tree_fd, num, sizeof num));
    CHECK(strstr(text, want) != NULL);
    lf_plan opt;
    int64_t best = 0;
    CHECK_OK(lf_exact_split(cm, &grp, NULL, &opt, &best, NULL));
    lf_plan_destroy(&opt);
    snprintf(want, sizeof want, "F_D %s B (lf_exact_split)\n", lf_format_commas(best, num, sizeof num));
    CHECK(strstr(text, want) != NULL);
    CHECK(best <= tree_fd);

    /* The picture written atomically equals the stream writer's. */
    char path[] = "/tmp/lf_test_split_report_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_OK(lf_split_save_dot(path, g, cm, res.parts, res.n_parts));
    char *dot = NULL, *file = NULL;
    size_t dot_len = 0;
    long file_len = 0;
    f = open_memstream(&dot, &dot_len);
    CHECK_OK(lf_split_write_dot(f, g, cm, res.parts, res.n_parts));
    fclose(f);
    CHECK_OK(lf_read_file(path, &file, &file_len));
    CHECK(file && dot && strcmp(file, dot) == 0);
    unlink(path);
    free(dot);
    free(file);
    free(text);
    lf_split_result_destroy(&res);

    /* A valid group: nothing to split, no parts. */
    set_range(&grp, 1, 2);
    lf_split_result none = {0};
    text = NULL;
    f = open_memstream(&text, &len);
    CHECK_OK(lf_split_report(f, cm, cp.proposer, 3, &grp, 1, &none));
    fclose(f);
    CHECK(strstr(text, "the group is valid: nothing to split\n") != NULL);
    CHECK_EQ_I64(none.n_parts, 0);
    free(text);
    /* A graph input cannot be split. */
    set_range(&grp, 0, 2);
    CHECK_EQ_I64(lf_split_group_check(cm, &grp), LF_EINVAL);
    CHECK_STR(lf_last_error(), "op 'input' cannot be split: it is a graph input");

    lf_bitset_destroy(&grp);
    lf_named_proposer_close(&cp);
    lf_cost_model_free(cm);
    lf_graph_free(g);
    return lf_test_result();
}

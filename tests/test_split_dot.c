/* Unit test for planner/io/split_dot (the `split --dot` picture) and
 * dot_text: a hand-built chain a -> b -> c -> d split into {a, b} and {c, d}
 * gives two clusters with their F_beta and F_D, one red cut edge b -> c, two
 * plain edges, and op names with quotes and backslashes escaped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/dot_text.h"
#include "planner/io/split_dot.h"
#include "tests/fixtures.h"
#include "tests/graphs.h"
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
    lf_graph_builder *b = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "chain"));
    tg_input(b, "x", 8, 16, 16);
    tg_conv(b, "a\"q", "x", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "b\\s", "a\"q", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "c", "b\\s", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "d", "c", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    lf_graph *g = tf_build(b);
    if (!g)
        return lf_test_result();
    lf_cost_model *cm = tf_model_default(g, 1 << 20, "lbdf");
    lf_bitset parts[2];
    CHECK_OK(lf_bitset_init(&parts[0], g->n_ops));
    CHECK_OK(lf_bitset_init(&parts[1], g->n_ops));
    lf_bitset_set(&parts[0], 1), lf_bitset_set(&parts[0], 2);
    lf_bitset_set(&parts[1], 3), lf_bitset_set(&parts[1], 4);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK_OK(lf_split_write_dot(f, g, cm, parts, 2));
    fclose(f);
    lf_group_cost c0, c1;
    CHECK_OK(lf_cost_eval(cm, &parts[0], &c0));
    CHECK_OK(lf_cost_eval(cm, &parts[1], &c1));
    char label[128];
    snprintf(label, sizeof label, "label=\"part 0: F_beta %lld B, F_D %lld B\"", (long long)c0.f_beta,
             (long long)c0.f_d);
    CHECK(strstr(text, label) != NULL);
    snprintf(label, sizeof label, "label=\"part 1: F_beta %lld B, F_D %lld B\"", (long long)c1.f_beta,
             (long long)c1.f_d);
    CHECK(strstr(text, label) != NULL);
    CHECK_EQ_I64(count(text, "subgraph cluster_"), 2);
    CHECK_EQ_I64(count(text, "color=red"), 1);
    CHECK(strstr(text, "  n2 -> n3 [color=red, penwidth=2.5];\n") != NULL);
    CHECK(strstr(text, "  n1 -> n2;\n") != NULL && strstr(text, "  n3 -> n4;\n") != NULL);
    CHECK(strstr(text, "n0") == NULL); /* the input is in no part */
    CHECK(strstr(text, "[label=\"1 a\\\"q\"]") != NULL);
    CHECK(strstr(text, "[label=\"2 b\\\\s\"]") != NULL);
    free(text);
    /* dot_text drops control characters */
    f = open_memstream(&text, &len);
    lf_dot_text(f, "x\ny\t\"z\\");
    fclose(f);
    CHECK_STR(text, "xy\\\"z\\\\");
    free(text);
    lf_bitset_destroy(&parts[0]);
    lf_bitset_destroy(&parts[1]);
    lf_cost_model_free(cm);
    lf_graph_free(g);
    return lf_test_result();
}

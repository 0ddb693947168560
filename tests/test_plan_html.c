/* The HTML page writer (planner/io/plan_html.c): names that would end a
 * <script> block or open a tag come through escaped, the page embeds the
 * plan's JSON export byte for byte, and a bad call says why. What the page
 * shows is checked in a real browser by tests/cli/plan_html.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "graphs.h"
#include "planner/io/plan_export.h"
#include "testlib.h"

static char *render(int json, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    CHECK_OK(json ? lf_plan_write_json(f, p, cm, meta) : lf_plan_write_html(f, p, cm, meta));
    fclose(f);
    return buf;
}

static int32_t count(const char *s, const char *what)
{
    int32_t n = 0;
    for (const char *q = s; (q = strstr(q, what)); q++)
        n++;
    return n;
}

static void test_hostile_names(void)
{
    lf_graph_builder *b;
    lf_graph_builder_create(&b, "g</script><b>x");
    tg_input(b, "in", 4, 4, 4);
    tg_unary(b, LF_OP_RELU, "a</script><img src=x>", "in");
    tg_unary(b, LF_OP_RELU, "b</SCRIPT", "a</script><img src=x>");
    lf_graph *g = tf_build(b);
    lf_cost_model *cm = tf_model_hand(g, 1024, "lbdf");
    lf_plan p;
    CHECK_OK(lf_plan_init(&p, 3));
    p.group_of[0] = -1;
    p.group_of[1] = p.group_of[2] = 0;
    p.n_groups = 1;
    lf_plan_meta meta = {.model = "m<&>", .budget = -1};
    char *page = render(0, &p, cm, &meta);
    char *json = render(1, &p, cm, &meta);
    /* Three script elements (graph, plan, the page's script), each closed
     * once: no name closes one early, in any case. */
    CHECK_EQ_I64(count(page, "<script"), 3);
    CHECK_EQ_I64(count(page, "</script"), 3);
    CHECK(strstr(page, "a<\\/script><img src=x>") != NULL);
    CHECK(strstr(page, "<title>m&lt;&amp;&gt; - fusionplan</title>") != NULL);
    /* The plan block is the JSON export with only "</" written "<\/". */
    const char *open = "<script type=\"application/json\" id=\"fp-plan-0\">";
    const char *at = strstr(page, open);
    CHECK(at != NULL);
    if (at) {
        at += strlen(open);
        const char *end = strstr(at, "</script>");
        size_t j = 0, n = end ? (size_t)(end - at) : 0;
        int same = end != NULL;
        for (size_t i = 0; same && i < n; i++) {
            if (at[i] == '\\' && i > 0 && at[i - 1] == '<' && i + 1 < n && at[i + 1] == '/')
                continue; /* the escape */
            same = json[j++] == at[i];
        }
        CHECK(same && j == strlen(json));
    }
    /* Same inputs, same bytes. */
    char *again = render(0, &p, cm, &meta);
    CHECK(strcmp(page, again) == 0);
    free(again);
    free(page);
    free(json);
    /* Bad calls say why and write nothing. */
    CHECK_EQ_I64(lf_plan_write_html(NULL, &p, cm, &meta), LF_EINVAL);
    CHECK(strstr(lf_last_error(), "lf_plan_write_html needs") != NULL);
    CHECK_EQ_I64(lf_html_write_report(stdout, "t", NULL), LF_EINVAL);
    lf_plan_destroy(&p);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

int main(void)
{
    test_hostile_names();
    return lf_test_result();
}

/* plan --onnx PLAN.onnx --from-annotations: the plan an annotated ONNX file
 * carries (planner/io/onnx_write_plan.c), read back and re-checked by the
 * validator against the graph imported from the same file, instead of a
 * search. Discrepancies are printed one a line on stderr and refuse the
 * plan. */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/io/plan_read.h"

static void lf__issue(void *user, const char *message)
{
    fprintf(stderr, "fusionplan: %s: %s\n", (const char *)user, message);
}

int lf_cli_plan_from_annotations(const lf_cli_command *cmd, lf_cli_session *s, lf_planned *out)
{
    const char *file = lf_cli_get(cmd, "onnx");
    lf_plan_doc doc;
    lf_status st = lf_plan_doc_read(&doc, file);
    int32_t n_issues = 0;
    if (st == LF_OK)
        st = lf_plan_validate(&doc, s->cm, lf__issue, (void *)file, &n_issues);
    if (st != LF_OK) {
        lf_plan_doc_destroy(&doc);
        return lf_cli_fail(st);
    }
    if (n_issues > 0) {
        fprintf(stderr, "fusionplan: %s: %d discrepanc%s between the annotations and the cost model "
                        "(the plan's scheme %s, %lld B)\n",
                file, (int)n_issues, n_issues == 1 ? "y" : "ies", doc.scheme, (long long)doc.beta);
        lf_plan_doc_destroy(&doc);
        return LF_EXIT_FAIL;
    }
    memset(out, 0, sizeof *out);
    out->search = "annotations";
    out->budget = -1;
    out->exact_dram = -1;
    out->exact_objective = -1;
    if ((st = lf_plan_copy(&out->plan, &doc.plan)) == LF_OK) {
        lf_plan_canonicalize(&out->plan);
        st = lf_plan_metrics_compute(&out->plan, s->cm, &out->metrics);
    }
    lf_plan_doc_destroy(&doc);
    return st == LF_OK ? 0 : lf_cli_fail(st);
}

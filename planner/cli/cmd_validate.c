/* fusionplan validate PLAN.json: reads a plan file back, finds its network
 * and re-checks it (lf_plan_doc_read, lf_plan_validate): OK, or one line per
 * discrepancy. Exit 0 when OK, 1 on discrepancies, 2 when the file cannot
 * be read or is for another graph. */
#include <stdio.h>

#include "planner/app/cli/cli.h"
#include "planner/io/plan_read.h"

static void lf__print_issue(void *user, const char *message)
{
    printf("%s: %s\n", (const char *)user, message);
}

int lf_cmd_validate(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"model", "NAME", "built-in network (default: the plan's model.name)", NULL},
        {"input-size", "N", "square input resolution (default: the network's own)", NULL},
        {"batch", "N", "batch size N of every tensor (default 1)", NULL},
        LF_CLI_SEQ_OPTS,
        {"hw", "FILE", "hardware description XML (default: the plan's hardware object)", NULL},
        {"buffer", "SIZE", "override the on-chip buffer size, e.g. 128KB", NULL},
        LF_CLI_ONNX_OPTS,
    };
    lf_cli_command cmd = {"validate", "Check a plan file against its network and the cost model.",
                          "validate PLAN.json|PLAN.xml|PLAN.onnx [--model NAME | --onnx FILE] [--hw FILE] [--buffer SIZE]",
                          "Reads the plan, loads its network (an annotated PLAN.onnx: the graph it "
                          "holds, its node\nannotations checked against its fusionplan.plan; "
                          "otherwise the plan's model name when it\nis a built-in network, "
                          "--model or --onnx), checks the graph hash, "
                          "re-checks the partition (every op in\nexactly one group, groups weakly "
                          "connected, acyclic quotient, unfusable ops alone, every\ngroup within the "
                          "buffer) and recomputes every F_beta, F_D and total with the cost model\n"
                          "(the plan's scheme, on its hardware unless --hw or --buffer is given). "
                          "Prints OK or one line\nper discrepancy. Exit 0: OK; 1: discrepancies; "
                          "2: unreadable file or a plan for another graph.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    const char *file;
    int rc = lf_cli_parse_file(&cmd, argc, argv, &file);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    if (!file)
        return lf_cli_usage_error(&cmd, "no plan file (fusionplan validate PLAN.json)");
    lf_model_source src;
    if ((rc = lf_cli_model_source(&cmd, &src)))
        return rc;
    lf_plan_doc doc;
    lf_status st = lf_plan_doc_read(&doc, file);
    if (st == LF_OK)
        st = lf_model_source_for_plan(&src, file, doc.model);
    /* the hardware the plan names, or --hw and --buffer over it */
    lf_hw hw = doc.hw;
    const char *hwfile = lf_cli_get(&cmd, "hw"), *buffer = lf_cli_get(&cmd, "buffer");
    if (st == LF_OK && hwfile) {
        lf_hw_default(&hw);
        st = lf_hw_load(&hw, hwfile);
    }
    if (st == LF_OK && buffer && lf_hw_parse_size(buffer, &hw.buffer_bytes) != LF_OK)
        rc = lf_cli_usage_error(&cmd, "--buffer: %s", lf_last_error());
    if (st == LF_OK && !rc && !lf_name_known(LF_NAMES_SCHEME, doc.scheme))
        st = lf_set_error(LF_EINVAL, "%s: scheme: unknown cost model '%s'", file, doc.scheme);
    lf_graph *g = NULL;
    lf_cost_model *cm = NULL;
    if (st != LF_OK || rc || (rc = lf_cli_load_graph(&cmd, &src, &g, NULL))) {
        lf_plan_doc_destroy(&doc);
        return rc ? rc : lf_cli_fail(st);
    }
    int32_t n_issues = 0;
    if ((st = lf_cost_model_create(&cm, g, &hw, doc.scheme)) == LF_OK)
        st = lf_plan_validate(&doc, cm, lf__print_issue, (void *)file, &n_issues);
    if (st != LF_OK) {
        fprintf(stderr, "fusionplan: %s\n", lf_last_error());
        rc = st == LF_EPLAN || st == LF_EPARSE || st == LF_EINVAL ? LF_EXIT_USAGE : LF_EXIT_FAIL;
    } else {
        lf_plan_verdict_write(stdout, file, &doc, n_issues);
        rc = n_issues > 0 ? LF_EXIT_FAIL : LF_EXIT_OK;
    }
    lf_cost_model_free(cm);
    lf_graph_free(g);
    lf_plan_doc_destroy(&doc);
    return rc;
}

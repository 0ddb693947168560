/* fusionplan validate PLAN.json: reads a plan file back, finds its network
 * and re-checks it (lf_plan_doc_read, lf_plan_validate): OK, or one line per
 * discrepancy. Exit 0 when OK, 1 on discrepancies, 2 when the file cannot
 * be read or is for another graph. */
#include <stdio.h>
#include <string.h>

#include "models/registry.h"
#include "planner/cli/cli.h"
#include "planner/io/plan_read.h"

typedef struct lf__printer {
    const char *origin;
} lf__printer;

static void lf__print_issue(void *user, const char *message)
{
    const lf__printer *p = user;
    printf("%s: %s\n", p->origin, message);
}

static int lf__built_in(const char *name)
{
    int32_t n = 0;
    const lf_model_entry *m = lf_models(&n);
    for (int32_t i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0)
            return 1;
    return 0;
}

int lf_cmd_validate(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"model", "NAME", "built-in network (default: the plan's model.name)", NULL},
        {"input-size", "N", "square input resolution (default: the network's own)", NULL},
        {"batch", "N", "batch size N of every tensor (default 1)", NULL},
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
    if (st != LF_OK) {
        lf_plan_doc_destroy(&doc);
        fprintf(stderr, "fusionplan: %s\n", lf_last_error());
        return LF_EXIT_USAGE;
    }
    size_t flen = strlen(file);
    if (!src.model && !src.onnx && flen > 5 && strcmp(file + flen - 5, ".onnx") == 0) {
        /* An annotated ONNX plan is checked against the graph it holds: the
         * hash check then proves that it re-imports to the planned graph. */
        src.onnx = file;
    } else if (!src.model && !src.onnx) {
        if (!lf__built_in(doc.model)) {
            char name[80];
            lf_text_line(name, sizeof name, doc.model);
            fprintf(stderr, "fusionplan: %s: model.name: '%s' is not a built-in network: give "
                            "--model or --onnx\n", file, name);
            lf_plan_doc_destroy(&doc);
            return LF_EXIT_USAGE;
        }
        src.model = doc.model;
    }
    lf_hw hw = doc.hw;
    const char *hwfile = lf_cli_get(&cmd, "hw"), *buffer = lf_cli_get(&cmd, "buffer");
    if (hwfile) {
        lf_hw_default(&hw);
        if ((st = lf_hw_load(&hw, hwfile)) != LF_OK) {
            lf_plan_doc_destroy(&doc);
            return lf_cli_fail(st);
        }
    }
    if (buffer && lf_hw_parse_size(buffer, &hw.buffer_bytes) != LF_OK) {
        lf_plan_doc_destroy(&doc);
        return lf_cli_usage_error(&cmd, "--buffer: %s", lf_last_error());
    }
    if (!lf_name_known(LF_NAMES_SCHEME, doc.scheme)) {
        fprintf(stderr, "fusionplan: %s: scheme: unknown cost model '%s'\n", file, doc.scheme);
        lf_plan_doc_destroy(&doc);
        return LF_EXIT_USAGE;
    }
    lf_graph *g = NULL;
    lf_cost_model *cm = NULL;
    if ((rc = lf_cli_load_graph(&cmd, &src, &g, NULL))) {
        lf_plan_doc_destroy(&doc);
        return rc;
    }
    int32_t n_issues = 0;
    lf__printer pr = {file};
    if ((st = lf_cost_model_create(&cm, g, &hw, doc.scheme)) == LF_OK)
        st = lf_plan_validate(&doc, cm, lf__print_issue, &pr, &n_issues);
    if (st != LF_OK) {
        fprintf(stderr, "fusionplan: %s\n", lf_last_error());
        rc = st == LF_EPLAN || st == LF_EPARSE || st == LF_EINVAL ? LF_EXIT_USAGE : LF_EXIT_FAIL;
    } else if (n_issues > 0) {
        printf("%s: %d discrepanc%s\n", file, (int)n_issues, n_issues == 1 ? "y" : "ies");
        rc = LF_EXIT_FAIL;
    } else {
        char model[80];
        lf_text_line(model, sizeof model, doc.model);
        printf("%s: OK (%s, %s %lld B, %d groups, %d unfusable, DRAM %lld B fusable ops)\n", file,
               model, doc.scheme, (long long)doc.beta, (int)doc.metrics.n_groups,
               (int)doc.metrics.n_unfusable, (long long)doc.metrics.dram_fusable);
        rc = LF_EXIT_OK;
    }
    lf_cost_model_free(cm);
    lf_graph_free(g);
    lf_plan_doc_destroy(&doc);
    return rc;
}

/* fusionplan conformance DIR...: ONNX's own test data through the importer
 * and the reference executor, pass / fail / unsupported per op type. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/io/onnx_conformance.h"

int lf_cmd_conformance(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"verbose", NULL, "print every case with its status and reason", NULL},
        {"failures", NULL, "print the failing cases with their reason", NULL},
    };
    lf_cli_command cmd = {"conformance", "Run ONNX conformance test data through import and the executor.",
                          "conformance DIR... [--verbose] [--failures]",
                          "Each DIR holds cases <name>/model.onnx with test_data_set_N/input_K.pb and "
                          "output_K.pb\n(Debian libonnx-testdata: /usr/share/libonnx-testdata/data/node, "
                          "pytorch-converted,\npytorch-operator, simple). A case passes when every output "
                          "matches at\nmax |a - b| <= 1e-4 * max(1, |b|); models the importer refuses are "
                          "unsupported.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int n_dirs = 0;
    while (n_dirs < argc && strncmp(argv[n_dirs], "--", 2) != 0)
        n_dirs++;
    int rc = lf_cli_parse(&cmd, argc - n_dirs, argv + n_dirs);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    if (!n_dirs)
        return lf_cli_usage_error(&cmd, "no folder given");
    lf_conf_result res = {0};
    for (int d = 0; d < n_dirs; d++) {
        lf_status st = lf_onnx_conformance(argv[d], &res);
        if (st != LF_OK) {
            lf_conf_result_free(&res);
            return lf_cli_fail(st);
        }
    }
    int verbose = lf_cli_get(&cmd, "verbose") != NULL, failures = lf_cli_get(&cmd, "failures") != NULL;
    int32_t tot[3] = {0, 0, 0};
    for (int32_t i = 0; i < res.n; i++) {
        tot[res.cases[i].status]++;
        if (verbose || (failures && res.cases[i].status == LF_CONF_FAIL))
            printf("%-6s %-50s %-20s %s\n",
                   res.cases[i].status == LF_CONF_PASS ? "pass" : res.cases[i].status == LF_CONF_FAIL ? "FAIL" : "unsup",
                   res.cases[i].name, res.cases[i].op, res.cases[i].why);
    }
    /* Per op type (label), in order of first appearance. */
    printf("%-34s %6s %6s %12s\n", "op type(s)", "pass", "fail", "unsupported");
    char *done = calloc((size_t)(res.n ? res.n : 1), 1);
    int32_t types = 0, types_full = 0;
    for (int32_t i = 0; done && i < res.n; i++) {
        if (done[i])
            continue;
        int32_t c[3] = {0, 0, 0};
        for (int32_t j = i; j < res.n; j++)
            if (!done[j] && strcmp(res.cases[j].op, res.cases[i].op) == 0) {
                done[j] = 1;
                c[res.cases[j].status]++;
            }
        printf("%-34s %6d %6d %12d\n", res.cases[i].op, (int)c[0], (int)c[1], (int)c[2]);
        if (c[0]) {
            types++;
            types_full += c[1] == 0 && c[2] == 0;
        }
    }
    free(done);
    printf("total: %d cases, %d pass, %d fail, %d unsupported; %d op-type labels with a pass, %d of them "
           "passing every case\n", (int)res.n, (int)tot[0], (int)tot[1], (int)tot[2], (int)types, (int)types_full);
    lf_conf_result_free(&res);
    return LF_EXIT_OK;
}

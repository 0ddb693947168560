/* fusionplan rules: the substitution rules (built in and TASO's rule file),
 * how often each matches a model, and their numeric verification. */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "search/subst/subst.h"


int lf_cmd_rules(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--generate") == 0)
            return lf_cmd_rules_generate(argc, argv);
    lf_cli_opt opts[] = {
        {"rules", "LIST", "rule sources, comma-separated: builtin, generated, generated=FILE, taso (needs --taso-file); default builtin", NULL},
        {"taso-file", "FILE", "TASO's rule collection (for the taso rule source)", NULL},
        {"verify", NULL, "verify every rule numerically; prints NAME ok or NAME FAIL reason", NULL},
        {"model", "NAME", "count each rule's matches in this built-in network (also alexnet, inception_e, inception_e13, sru)", NULL},
        {"input-size", "N", "square input resolution of --model (default: the network's own)", NULL},
        LF_CLI_ONNX_OPTS,
    };
    lf_cli_command cmd = {"rules", "List and verify the substitution rules.",
                          "rules [--rules builtin,generated,taso] [--taso-file FILE] [--verify] [--model NAME | --onnx FILE]\n"
                          "       fusionplan rules --generate [--max-ops K] [--types LIST] [--seed S] -o FILE",
                          "Lists every rule: its name, origin, source pattern and what it becomes, "
                          "the ops of its source\nand target, and with --model or --onnx how many "
                          "times it matches that network. --verify runs\nevery rule's source and "
                          "target on random tensors of three shapes meeting its constraints with\n"
                          "the reference executor and prints one line per rule, `NAME ok` or "
                          "`NAME FAIL reason`; a rule\nthat fails is disabled for `fusionplan optimize`.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    const char *taso = lf_cli_get(&cmd, "taso-file");
    lf_subst_ruleset rs;
    lf_status st = lf_subst_ruleset_open(&rs, lf_cli_get(&cmd, "rules"), taso);
    if (st)
        return lf_cli_fail(st);
    lf_graph *g = NULL;
    if ((rc = lf_cli_subst_graph(&cmd, NULL, &g, NULL))) {
        lf_subst_ruleset_close(&rs);
        return rc;
    }
    printf("%d rules: %d built in", (int)rs.n, (int)rs.n_builtin);
    if (rs.taso)
        printf(", %d of the %d in TASO's rule file (%d not mapped: %d use SPLIT, %d compute a conv "
               "weight in the source, %d other)",
               (int)rs.taso->mapped, (int)rs.taso->loaded, (int)(rs.taso->loaded - rs.taso->mapped),
               (int)rs.taso->unmapped_split, (int)rs.taso->unmapped_weight,
               (int)(rs.taso->unmapped_types + rs.taso->unmapped_act + rs.taso->unmapped_shape));
    if (rs.generated_)
        printf(", %d generated", (int)rs.n_generated);
    printf("\n%-18s %-9s %4s %4s %8s  %s\n", "name", "origin", "src", "tgt", "matches", "pattern");
    int64_t total = 0;
    for (int32_t i = 0; i < rs.n && !st; i++) {
        const lf_subst_rule *r = rs.rule[i];
        char matches[24] = "-";
        if (g) {
            lf_subst_matches ms = {0, 0, NULL};
            if (!(st = lf_subst_find(g, r, &ms))) {
                snprintf(matches, sizeof matches, "%d", (int)ms.n);
                total += ms.n;
            }
            lf_subst_matches_free(&ms);
        }
        printf("%-18s %-9s %4d %4d %8s  %s\n", r->name, r->origin, (int)r->n_nodes, (int)r->target_ops,
               matches, r->summary);
    }
    if (!st && g)
        printf("%lld matches in %s\n", (long long)total, g->name);
    int32_t failed = 0;
    if (!st && lf_cli_get(&cmd, "verify")) {
        st = lf_subst_ruleset_verify(&rs, &failed);
        for (int32_t i = 0; i < rs.n && !st; i++)
            printf(rs.enabled[i] ? "%s ok\n" : "%s FAIL %s\n", rs.rule[i]->name, rs.why[i]);
        if (!st) {
            printf("%d rules verified: %d ok, %d failed (disabled)", (int)rs.n, (int)(rs.n - failed),
                   (int)failed);
            for (int32_t i = 0, k = 0; i < rs.n; i++)
                if (!rs.enabled[i])
                    printf("%s%s", k++ ? ", " : ": ", rs.rule[i]->name);
            printf("\n");
        }
    }
    lf_graph_free(g);
    lf_subst_ruleset_close(&rs);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}

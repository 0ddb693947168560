/* fusionplan optimize: the substitution optimizer (DESIGN §11) on a built-in
 * network or an ONNX model: cost before and after in every dimension, the
 * applied sequence, search statistics, a numeric check of the result against
 * the input, and the optimized graph as JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "planner/cli/cli.h"
#include "planner/io/onnx.h"
#include "planner/io/json.h"
#include "planner/util/fileio.h"
#include "search/subst/subst.h"

static void lf__print_costs(const lf_subst_costs *b, const lf_subst_costs *a)
{
    printf("%-14s %16s %16s %9s\n", "", "before", "after", "change");
    const char *names[] = {"time (us)", "GFLOPs", "MB moved", "kernels", "DRAM (bytes)"};
    double x[] = {b->time_s * 1e6, b->flops / 1e9, b->bytes / 1e6, b->kernels, b->dram};
    double y[] = {a->time_s * 1e6, a->flops / 1e9, a->bytes / 1e6, a->kernels, a->dram};
    for (int i = 0; i < 5; i++) {
        if (i == 4 && b->dram < 0)
            continue;
        printf("%-14s %16.3f %16.3f %+8.2f%%\n", names[i], x[i], y[i], x[i] != 0 ? 100.0 * (y[i] - x[i]) / x[i] : 0.0);
    }
}

static void lf__json_costs(FILE *f, const char *key, const lf_subst_costs *k)
{
    fprintf(f, "  \"%s\": {\"time_s\": ", key);
    lf_json_double(f, k->time_s);
    fprintf(f, ", \"flops\": ");
    lf_json_double(f, k->flops);
    fprintf(f, ", \"bytes\": ");
    lf_json_double(f, k->bytes);
    fprintf(f, ", \"kernels\": ");
    lf_json_double(f, k->kernels);
    if (k->dram >= 0) {
        fprintf(f, ", \"dram\": ");
        lf_json_double(f, k->dram);
    }
    fprintf(f, "},\n");
}

static lf_status lf__write_json(const char *path, const char *model, const lf_subst_options *o,
                                const lf_subst_coster *c, const lf_subst_ruleset *rs, const lf_subst_result *r)
{
    lf_atomic_file af;
    lf_status st = lf_atomic_open(&af, path);
    if (st)
        return st;
    FILE *f = af.f;
    fprintf(f, "{\n  \"model\": ");
    lf_json_string(f, model);
    fprintf(f, ",\n  \"search\": \"%s\",\n  \"objective\": \"%s\",\n  \"alpha\": ", lf_subst_search_name(o->search),
            lf_subst_objective_name(c->objective));
    lf_json_double(f, o->alpha);
    fprintf(f, ",\n  \"budget\": %lld,\n  \"max_steps\": %d,\n", (long long)o->budget,
            (int)(o->search == LF_SEARCH_ENUM ? o->max_len : o->search >= LF_SEARCH_PRUNE ? o->max_steps
                                                                                           : o->bt_max_steps));
    if (o->rule_mask) {
        fprintf(f, "  \"rules_searched\": [");
        for (int32_t k = 0, j = 0; k < rs->n; k++)
            if (o->rule_mask[k]) {
                fprintf(f, "%s", j++ ? ", " : "");
                lf_json_string(f, rs->rule[k]->name);
            }
        fprintf(f, "],\n");
    }
    lf__json_costs(f, "before", &r->before);
    lf__json_costs(f, "after", &r->after);
    fprintf(f, "  \"steps\": [");
    for (int32_t i = 0; i < r->n_steps; i++) {
        fprintf(f, "%s\n    {\"rule\": ", i ? "," : "");
        lf_json_string(f, rs->rule[r->steps[i].rule]->name);
        fprintf(f, ", \"ops\": ");
        lf_json_string(f, r->steps[i].ops);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n  \"stats\": {\"expanded\": %lld, \"generated\": %lld, \"deduplicated\": %lld, "
               "\"rejected\": %lld, \"parts\": %d, \"peak_graphs\": %lld, \"sequences\": %lld, "
               "\"reused\": %lld, \"timed_out\": %s, \"search_s\": ",
            (long long)r->expanded, (long long)r->generated, (long long)r->deduplicated,
            (long long)r->rejected, (int)r->parts, (long long)r->peak_graphs, (long long)r->sequences,
            (long long)r->reused, r->timed_out ? "true" : "false"); /* measured memory, like
            wall times, varies from run to run: stdout has it, the JSON keeps to what is reproducible */
    lf_json_double(f, r->search_s);
    fprintf(f, ", \"wall_s\": ");
    lf_json_double(f, r->wall_s);
    fprintf(f, ", \"max_rel_error\": ");
    lf_json_double(f, r->max_err);
    fprintf(f, "},\n  \"graph\": ");
    st = lf_graph_write_json(r->graph, f);
    fprintf(f, "}\n");
    if (st) {
        lf_atomic_abort(&af);
        return st;
    }
    return lf_atomic_commit(&af);
}

int lf_cmd_optimize(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"search", "NAME", "backtrack (default), enum (exhaustive to --max-len), split (flow-based), or OCGGS's "
                           "prune, dpp (exact to --max-steps) and sample (sampling)", NULL},
        {"objective", "NAME", "time (default), flops, bytes, kernels or dram (exact fusion DRAM at --buffer)", NULL},
        {"alpha", "A", "backtrack: queue graphs cheaper than A x best (default 1.05)", NULL},
        {"budget", "N", "graphs expanded (default 1000; split: shared by the parts)", NULL},
        {"max-len", "K", "enum: longest sequence (default 3)", NULL},
        {"split-size", "N", "split: largest part in ops (default 30)", NULL},
        {"max-steps", "K", "prune, dpp, sample: longest sequence (default 10); enum: sets --max-len too; "
                           "backtrack, split: bounds their sequences (split: per part) when given", NULL},
        {"time-limit", "SECONDS", "cap on the search's wall time: prune, dpp and enum then report no result, "
                                  "the others the best found so far (default: none)", NULL},
        {"sample-size", "Q", "sample: sequences kept per level (default 20)", NULL},
        {"cpu-time", NULL, "--time-limit counts the process's CPU time, not the wall clock", NULL},
        {"blocks", "N", "resnet_blocks, inception_e, inception_e13, nasnet_a, bert, nasrnn: repeated blocks", NULL},
        {"rules", "LIST", "rule sources: builtin, taso (default builtin)", NULL},
        {"taso-file", "FILE", "TASO's rule collection (default " LF_CLI_TASO_DEFAULT ")", NULL},
        {"seed", "S", "values of generated weights and inputs for the numeric check (default 1)", NULL},
        {"threads", "T", "OpenMP threads over the candidates of an expansion (default 1); results do not depend on it", NULL},
        {"filter", "NAME", "GSO rule filter: gso (the per-rule GCNs), lr (the logistic-regression baseline) "
                           "or none (default): search only the rules predicted to match", NULL},
        {"gso-weights", "FILE", "--filter: the models (default: the shipped gso-gcn.bin / gso-lr.bin)", NULL},
        {"dram", NULL, "also report the exact fusion DRAM at --buffer before and after (any objective)", NULL},
        {"analytic", NULL, "time objective: roofline op times even when built with CUDA and a GPU is visible "
                           "(default there: measured cuDNN/cuBLAS times, cached; see fusionplan profile)", NULL},
        {"output", "FILE", "(or -o) write the optimized graph, sequence and costs as JSON, or (FILE.onnx) the graph as ONNX with its weights", NULL},
    };
    lf_cli_command cmd = {"optimize", "Rewrite a network with verified substitutions.",
                          "optimize [--model NAME | --onnx FILE] [--search backtrack|enum|split|prune|dpp|sample] "
                          "[--max-steps K] [--time-limit SECONDS] "
                          "[--objective time|flops|bytes|kernels|dram] [--filter gso|lr|none] [-o out.json|out.onnx]",
                          "Searches for a cheaper equivalent graph with the substitution rules "
                          "(every rule is verified\nnumerically first; failing rules are disabled). "
                          "Costs: analytic roofline time from the\nhardware's <gpu> section (or "
                          "defaults), FLOPs, bytes, kernel launches, or the exact fusion\nDRAM at the "
                          "buffer. Prints the cost before and after, the applied sequence and the "
                          "search\nstatistics, and checks the optimized graph against the original "
                          "with the reference executor\nbefore writing anything.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    lf_subst_options o;
    lf_subst_options_default(&o);
    int64_t budget = 0, max_len = 0, split_size = 0, seed = 0, threads = 0, max_steps = 0, sample_size = 0;
    if ((rc = lf_cli_int(&cmd, "budget", o.budget, 1, 100000000, &budget)) ||
        (rc = lf_cli_int(&cmd, "max-steps", o.max_steps, 1, 64, &max_steps)) ||
        (rc = lf_cli_int(&cmd, "sample-size", o.sample_size, 2, 100000, &sample_size)) ||
        (rc = lf_cli_double(&cmd, "time-limit", 0.0, 1e-3, 1e7, &o.time_limit_s)) ||
        (rc = lf_cli_int(&cmd, "max-len", o.max_len, 1, 64, &max_len)) ||
        (rc = lf_cli_int(&cmd, "split-size", o.split_size, 2, 100000, &split_size)) ||
        (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)) ||
        (rc = lf_cli_int(&cmd, "threads", 1, 1, 1024, &threads)) ||
        (rc = lf_cli_double(&cmd, "alpha", 1.05, 1.0, 100.0, &o.alpha)))
        return rc;
    o.budget = budget, o.max_len = (int32_t)max_len, o.split_size = (int32_t)split_size, o.seed = (uint64_t)seed;
    o.threads = (int32_t)threads;
    o.max_steps = (int32_t)max_steps, o.sample_size = (int32_t)sample_size;
    o.time_limit_cpu = lf_cli_get(&cmd, "cpu-time") != NULL;
    if (o.time_limit_cpu && o.time_limit_s <= 0)
        return lf_cli_usage_error(&cmd, "--cpu-time needs --time-limit SECONDS");
    if (lf_cli_get(&cmd, "max-steps") && !lf_cli_get(&cmd, "max-len"))
        o.max_len = o.max_steps;
    if (lf_cli_get(&cmd, "max-steps"))
        o.bt_max_steps = o.max_steps;
    const char *search = lf_cli_get(&cmd, "search"), *objective = lf_cli_get(&cmd, "objective");
    o.search = search ? lf_subst_search_from_name(search) : LF_SEARCH_BACKTRACK;
    if (o.search == LF_SEARCH_COUNT)
        return lf_cli_usage_error(&cmd, "unknown --search '%s' (backtrack, enum, split, prune, dpp, sample)", search);
    lf_subst_objective obj = objective ? lf_subst_objective_from_name(objective) : LF_OBJ_TIME;
    if (obj == LF_OBJ_COUNT)
        return lf_cli_usage_error(&cmd, "unknown --objective '%s' (time, flops, bytes, kernels, dram)", objective);
    const char *output = lf_cli_get(&cmd, "output");
    if ((rc = lf_cli_check_outputs(&output, 1)))
        return rc;
    lf_subst_ruleset rs;
    const char *taso = lf_cli_get(&cmd, "taso-file");
    lf_status st = lf_subst_ruleset_open(&rs, lf_cli_get(&cmd, "rules"), taso ? taso : LF_CLI_TASO_DEFAULT);
    if (st)
        return lf_cli_fail(st);
    lf_graph *g = NULL;
    lf_hw hw;
    if ((rc = lf_cli_subst_graph(&cmd, "resnet50", &g, &hw))) {
        lf_subst_ruleset_close(&rs);
        return rc;
    }
    const char *model = lf_cli_get(&cmd, "model") ? lf_cli_get(&cmd, "model") : g->name;
    int32_t failed = 0;
    st = lf_subst_ruleset_verify(&rs, &failed);
    uint8_t *mask = NULL;
    if (!st && (rc = lf_cli_gso_filter(&cmd, "filter", "gso-weights", g, &rs, &mask))) {
        lf_subst_ruleset_close(&rs);
        lf_graph_free(g);
        return rc;
    }
    o.rule_mask = mask;
    lf_subst_coster c;
    lf_subst_coster_init(&c, obj, &hw, lf_cli_get(&cmd, "scheme"));
    lf_cli_gpu_costs gc = {0};
    int measured = !lf_cli_get(&cmd, "analytic") && lf_cli_gpu_costs_begin(&gc, &c, &hw);
    lf_subst_result res;
    memset(&res, 0, sizeof res);
    if (!st)
        st = lf_subst_optimize(g, &rs, &c, &o, &res);
    /* the planner's view of both graphs, for any objective */
    if (!st && lf_cli_get(&cmd, "dram") && obj != LF_OBJ_DRAM) {
        st = lf_subst_cost(&c, g, 1, &res.before);
        if (!st)
            st = lf_subst_cost(&c, res.graph, 1, &res.after);
    }
    lf_cli_gpu_costs_end(&gc);
    if (st) {
        free(mask);
        lf_subst_result_destroy(&res);
        lf_subst_ruleset_close(&rs);
        lf_graph_free(g);
        return lf_cli_fail(st);
    }
    printf("model %s (%d ops), %d rules (%d disabled by verification", model, (int)lf_graph_compute_ops(g), (int)rs.n, (int)failed);
    for (int32_t i = 0, k = 0; i < rs.n; i++)
        if (!rs.enabled[i])
            printf("%s%s", k++ ? ", " : ": ", rs.rule[i]->name);
    printf("), search %s", lf_subst_search_name(o.search));
    if (o.search == LF_SEARCH_PRUNE || o.search == LF_SEARCH_DPP)
        printf(" (K %d)", (int)o.max_steps);
    else if (o.search == LF_SEARCH_SAMPLE)
        printf(" (K %d, Q %d, eta %d, seed %llu)", (int)o.max_steps, (int)o.sample_size, (int)o.eta,
               (unsigned long long)o.seed);
    else if (o.search != LF_SEARCH_ENUM && o.bt_max_steps > 0)
        printf(" (alpha %g, budget %lld, K %d)", o.alpha, (long long)o.budget, (int)o.bt_max_steps);
    else if (o.search != LF_SEARCH_ENUM)
        printf(" (alpha %g, budget %lld)", o.alpha, (long long)o.budget);
    else
        printf(" (K %d, budget %lld)", (int)o.max_len, (long long)o.budget);
    if (o.time_limit_s > 0)
        printf(", time limit %g s%s", o.time_limit_s, o.time_limit_cpu ? " of CPU time" : "");
    printf(", objective %s\n", lf_subst_objective_name(obj));
    printf("roofline: %.4g TFLOP/s, %.4g GB/s, %.3g us per kernel (%s)\n", c.peak_flops / 1e12,
           c.bandwidth / 1e9, c.launch_s * 1e6, hw.has_gpu ? hw.name : "defaults: no <gpu> section");
    if (measured)
        printf("op times: measured on the GPU where cuDNN or cuBLAS runs the op (cache %s), roofline elsewhere\n",
               gc.path);
    lf__print_costs(&res.before, &res.after);
    printf("applied sequence: %d steps\n", (int)res.n_steps);
    for (int32_t i = 0; i < res.n_steps; i++)
        printf("  %3d %-18s %s\n", (int)i + 1, rs.rule[res.steps[i].rule]->name, res.steps[i].ops);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (o.search == LF_SEARCH_PRUNE || o.search == LF_SEARCH_DPP || o.search == LF_SEARCH_SAMPLE) {
        printf("search: %lld sequences examined, %lld matches reused, %lld rejected; search %.3f s, with the check "
               "%.2f s; peak heap of the search %.1f MB (mallinfo2)%s; process peak RSS %.0f MB\n",
               (long long)res.sequences, (long long)res.reused, (long long)res.rejected, res.search_s, res.wall_s,
               res.peak_heap >= 0 ? (double)res.peak_heap / 1048576.0 : -1.0,
               res.peak_heap >= 0 ? "" : " (not measurable here)", (double)ru.ru_maxrss / 1024.0);
        if (res.timed_out)
            printf("time limit reached: the best sequence found so far\n");
    } else {
    printf("search: %lld graphs expanded, %lld generated, %lld deduplicated, %lld rejected", (long long)res.expanded,
           (long long)res.generated, (long long)res.deduplicated, (long long)res.rejected);
    if (o.search == LF_SEARCH_SPLIT)
        printf(", %d parts", (int)res.parts);
    printf("; %lld graphs held at most; search %.2f s (%.0f graphs/s), with the check %.2f s; peak heap of the "
           "search %.1f MB (mallinfo2); peak memory %.0f MB\n",
           (long long)res.peak_graphs, res.search_s, (double)res.expanded / (res.search_s > 0 ? res.search_s : 1e-9),
           res.wall_s, res.peak_heap >= 0 ? (double)res.peak_heap / 1048576.0 : -1.0, (double)ru.ru_maxrss / 1024.0);
    if (res.timed_out)
        printf("time limit reached: the best graph found so far\n");
    }
    int rcode = LF_EXIT_OK;
    size_t olen = output ? strlen(output) : 0;
    if (output && olen > 5 && strcmp(output + olen - 5, ".onnx") == 0) {
        /* the optimized graph (or the original when nothing applies) with the
         * weights the numeric check used */
        if (res.n_steps == 0)
            printf("nothing to do: no sequence of rewrites lowers the %s\n", lf_subst_objective_name(obj));
        else
            printf("check: the optimized graph's outputs equal the original's (max relative error %.2g, seed %llu)\n",
                   res.max_err, (unsigned long long)o.seed);
        if ((st = lf_onnx_write_graph(output, res.graph ? res.graph : g, o.seed)))
            rcode = lf_cli_fail(st);
        else
            printf("wrote %s\n", output);
    } else if (res.n_steps == 0) {
        printf("nothing to do: no sequence of rewrites lowers the %s\n", lf_subst_objective_name(obj));
    } else {
        printf("check: the optimized graph's outputs equal the original's (max relative error %.2g, seed %llu)\n",
               res.max_err, (unsigned long long)o.seed);
        if (output && (st = lf__write_json(output, model, &o, &c, &rs, &res)))
            rcode = lf_cli_fail(st);
        else if (output)
            printf("wrote %s\n", output);
    }
    free(mask);
    lf_subst_result_destroy(&res);
    lf_subst_ruleset_close(&rs);
    lf_graph_free(g);
    return rcode;
}

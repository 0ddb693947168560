/* fusionplan sweep-buffer: how DRAM traffic falls as the on-chip buffer
 * grows (the paper's Fig. 3, and the first question an architect asks).
 *
 * For every network, scheme and buffer size: the fusable and unfusable op
 * counts, the search's best plan (DRAM over all ops and over fusable ops,
 * groups, MBU), the exact optimum over all ops and the search's gap to it,
 * layer-by-layer DRAM over all ops and the reduction against it, and the
 * share of sampled fusion groups that fit the buffer. DESIGN §4: the
 * fusable-op set changes with the buffer, so the sweep's headline figure
 * is DRAM over all ops. The output depends only on the arguments, never on
 * --threads (no wall times in it; progress and timings go to stderr). */
#include <stdio.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/app/cli/sweep.h"
#include "planner/app/registry.h"
#include "planner/util/clock.h"

/* The library's notices on stderr: a missing exact optimum always, the
 * group count like the progress lines (not with --quiet). */
static void lf__notice(void *user, lf_buffer_sweep_notice kind, const char *message)
{
    const lf_sweep_out *out = user;
    if (kind == LF_BUFFER_SWEEP_NO_EXACT || !out->o->quiet)
        fprintf(stderr, "fusionplan sweep-buffer: %s\n", message);
}

/* A finished sweep: its timing on stderr, its table in the report. */
static void lf__done(void *user, const lf_sweep *sw, int32_t i, double seconds)
{
    const lf_sweep_out *out = user;
    int nb = (int)out->o->run.nb;
    if (!out->o->quiet)
        fprintf(stderr, "sweep-buffer: %s %s, %d buffer size%s: %.2f s\n", sw->model, sw->scheme,
                nb, nb == 1 ? "" : "s", seconds);
    lf_sweep_print(out->f, out->fmt, out->o, sw, (int)i);
}

int lf_cmd_sweep_buffer(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"models", "LIST", "built-in networks (default " LF_SWEEP_DEFAULT_MODELS ")", NULL},
        LF_CLI_ONNX_OPTS,
        {"scheme", "LIST", "cost models: lbdf (default), brr or lbdf,brr", NULL},
        {"from", "SIZE", "smallest buffer (default 128KB); doubles up to --to", NULL},
        {"to", "SIZE", "largest buffer (default 2048KB), --from times a power of two", NULL},
        {"buffers", "LIST", "explicit buffer sizes instead, ascending, at most 8", NULL},
        {"hw", "FILE", "hardware description XML (element sizes; the buffer is swept)", NULL},
        {"search", "NAME", "random, local (default) or nsga2", NULL},
        {"budget", "N", "plans proposed per point (default 1000)", NULL},
        {"seed", "S", "seed of the search and the group sample (default 1)", NULL},
        {"threads", "T", "OpenMP threads (default: all cores; the output does not depend on it)",
         NULL},
        {"split", "NAME", "repair of invalid groups: random (default) or tree", NULL},
        {"proposer", "NAME", "tree splitter's edge proposer: all (default), random, attrib, gnne, "
                             "pg, rg, saliency, occlusion; gnne:epochs=N:patience=N:top=N sets GNNExplainer's "
                             "iterations (100) and early stop", NULL},
        {"k", "N", "edges the proposer may return (default 3; 0: all)", NULL},
        {"no-exact", NULL, "skip the exact optimum (no exact and gap columns)", NULL},
        {"exact-limit", "N", "candidate sets the exact planner may visit per point (default "
                             "200000000); past it the point shows '-'", NULL},
        {"samples", "N", "groups sampled per network for the valid fraction (default 1000; 0: "
                         "no such column)", NULL},
        {"format", "FMT", "md (default), csv or json", NULL},
        {"output", "FILE", "(or -o) write the table to FILE instead of stdout", NULL},
        {"svg", "FILE", "also draw DRAM against buffer to FILE.svg and the valid fraction to "
                        "FILE-valid.svg", NULL},
        {"quiet", NULL, "no progress lines on stderr", NULL},
    };
    lf_cli_command cmd = {
        "sweep-buffer", "DRAM traffic and valid-group fraction as the buffer doubles (paper Fig. 3).",
        "sweep-buffer [--models LIST | --onnx FILE] [--scheme lbdf|brr] [--from SIZE] [--to SIZE] "
        "[--search NAME] [--budget N] [--format md|csv|json] [-o FILE] [--svg FILE]",
        "For every network, scheme and buffer size: fusable / unfusable ops; the search's best "
        "plan (DRAM\nover all ops and over fusable ops in MB of 10^6 bytes, groups, MBU in KB); "
        "the exact optimum over\nall ops and the search's gap to it (%); layer-by-layer DRAM over "
        "all ops and the reduction\nagainst it (%); and the share of --samples fusion groups, "
        "sampled once per network and scheme,\nthat fit the buffer (%). DRAM over all ops "
        "charges unfusable ops with their weights streamed\nper row tile; it is the figure "
        "to compare across buffers, since the fusable-op set changes with\nthe buffer. The "
        "output is identical for any --threads and contains no timings (progress and\ntimings "
        "go to stderr). See docs/experiments.md.",
        opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;

    lf_sweep_setup o;
    memset(&o, 0, sizeof o);
    lf_cli_search_values sv;
    if ((rc = lf_cli_search_opts(&cmd, &sv)))
        return rc;
    /* The sweep's own default budget, 1,000 plans per point (the figures of
     * docs/RESULTS.md use it); the other search options are the table's. */
    o.run.budget = lf_cli_get(&cmd, "budget") ? sv.budget : 1000;
    o.run.seed = sv.seed;
    o.run.threads = sv.threads;
    o.run.k = sv.k;
    if ((rc = lf_cli_int(&cmd, "samples", 1000, 0, 1000000, &o.run.samples)) ||
        (rc = lf_cli_int(&cmd, "exact-limit", 0, 1, INT64_MAX, &o.run.exact_limit)))
        return rc;
    static const lf_cli_rule rules[] = {
        {"proposer", "split", NULL, -1, "tree", "--proposer needs --split tree"},
        {"k", "split", NULL, -1, "tree", "--k needs --split tree"},
    };
    static const char *const splits[] = {"random", "tree", NULL}, *const formats[] = {"md", "csv", "json", NULL};
    lf_sweep_out out = {.o = &o};
    if ((rc = lf_cli_name(&cmd, "search", LF_NAMES_HEURISTIC, "local", &o.run.search)) ||
        (rc = lf_cli_check_rules(&cmd, rules, (int)(sizeof rules / sizeof rules[0]))) ||
        (rc = lf_cli_name(&cmd, "proposer", LF_NAMES_PROPOSER, "all", &o.run.proposer)) ||
        (rc = lf_cli_choice(&cmd, "split", splits, &o.split)) ||
        (rc = lf_cli_choice(&cmd, "format", formats, &out.fmt)))
        return rc;
    o.run.tree = strcmp(o.split, "tree") == 0;
    o.run.do_exact = !lf_cli_get(&cmd, "no-exact");
    if (!o.run.do_exact && lf_cli_get(&cmd, "exact-limit"))
        return lf_cli_usage_error(&cmd, "--exact-limit and --no-exact exclude each other");
    o.quiet = lf_cli_get(&cmd, "quiet") != NULL;
    if (lf_buffer_sweep_set_buffers(&o.run, lf_cli_get(&cmd, "buffers"), lf_cli_get(&cmd, "from"),
                                    lf_cli_get(&cmd, "to")) != LF_OK)
        return lf_cli_usage_error(&cmd, "%s", lf_last_error());
    const char *ml = lf_cli_get(&cmd, "models"), *sl = lf_cli_get(&cmd, "scheme");
    lf_model_source onnx = {0};
    if ((rc = lf_cli_model_source(&cmd, &onnx)))
        return rc;
    if (onnx.onnx && ml)
        return lf_cli_usage_error(&cmd, "give either --models or --onnx, not both");
    lf_buffer_sweep_set set;
    if (lf_buffer_sweep_set_init(&set, ml ? ml : LF_SWEEP_DEFAULT_MODELS, sl ? sl : "lbdf", &onnx))
        return lf_cli_usage_error(&cmd, "%s", lf_last_error());
    o.n_schemes = set.n_schemes;
    out.svg = lf_cli_get(&cmd, "svg");
    out.output = lf_cli_get(&cmd, "output");
    const char *outs[2] = {out.output, out.svg}; /* checked before the work (minutes), not after */
    if ((rc = lf_cli_check_outputs(outs, 2)))
        return rc;
    o.hw_file = lf_cli_get(&cmd, "hw");
    lf_hw_default(&o.run.hw);
    lf_status st;
    if (o.hw_file && (st = lf_hw_load(&o.run.hw, o.hw_file)) != LF_OK)
        return lf_cli_fail(st);

    if ((st = lf_sweep_out_open(&out)) != LF_OK)
        return lf_cli_fail(st);
    double t_all = lf_now_seconds();
    if (onnx.onnx && lf_model_source_check(&onnx) != LF_OK)
        rc = lf_cli_usage_error(&cmd, "%s", lf_last_error());
    else if ((st = lf_buffer_sweep_set_run(&set, &o.run, lf__done, lf__notice, &out)) != LF_OK)
        rc = lf_cli_fail(st);
    if ((st = lf_sweep_out_close(&out, !rc, set.sweeps, set.n_sweeps)) != LF_OK)
        rc = lf_cli_fail(st);
    if (!rc && out.output && !o.quiet)
        fprintf(stderr, "wrote %s\n", out.output);
    if (!rc && !o.quiet)
        fprintf(stderr, "sweep-buffer: total %.2f s\n", lf_now_seconds() - t_all);
    lf_buffer_sweep_set_destroy(&set);
    return rc;
}

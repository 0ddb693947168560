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
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/cli/cli.h"
#include "planner/cli/sweep.h"
#include "planner/registry.h"
#include "planner/util/fileio.h"
#include "planner/util/progress.h"

static int lf__known_model(const char *name)
{
    int32_t n;
    const lf_model_entry *m = lf_models(&n);
    for (int32_t i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0)
            return 1;
    return 0;
}

/* The library's notices on stderr: a missing exact optimum always, the
 * group count like the progress lines (not with --quiet). */
static void lf__notice(void *user, lf_buffer_sweep_notice kind, const char *message)
{
    const int *quiet = user;
    if (kind == LF_BUFFER_SWEEP_NO_EXACT || !*quiet)
        fprintf(stderr, "fusionplan sweep-buffer: %s\n", message);
}

/* ---- the command -------------------------------------------------------- */

/* Parses --buffers, or --from/--to doubling. Returns 0 or an exit status. */
static int lf__parse_buffers(const lf_cli_command *cmd, lf_sweep_setup *o)
{
    const char *list = lf_cli_get(cmd, "buffers");
    const char *from = lf_cli_get(cmd, "from"), *to = lf_cli_get(cmd, "to");
    if (list) {
        if (from || to)
            return lf_cli_usage_error(cmd, "--buffers cannot be combined with --from or --to");
        char buf[1024], *items[LF_SWEEP_MAX_BUFFERS];
        if (strlen(list) >= sizeof buf)
            return lf_cli_usage_error(cmd, "--buffers list too long");
        snprintf(buf, sizeof buf, "%s", list);
        int n = lf_cli_split_list(buf, items, LF_SWEEP_MAX_BUFFERS);
        if (n < 1)
            return lf_cli_usage_error(cmd, "--buffers names no size");
        if (n > LF_SWEEP_MAX_BUFFERS)
            return lf_cli_usage_error(cmd, "--buffers has %d sizes; at most %d", n,
                                      LF_SWEEP_MAX_BUFFERS);
        for (int i = 0; i < n; i++) {
            if (lf_hw_parse_size(items[i], &o->run.betas[i]) != LF_OK)
                return lf_cli_usage_error(cmd, "--buffers: %s", lf_last_error());
            if (i && o->run.betas[i] <= o->run.betas[i - 1])
                return lf_cli_usage_error(cmd, "--buffers must be strictly ascending ('%s' after "
                                               "'%s')",
                                          items[i], items[i - 1]);
        }
        o->run.nb = n;
        return 0;
    }
    int64_t lo = 128 * 1024, hi = 2048 * 1024;
    if (from && lf_hw_parse_size(from, &lo) != LF_OK)
        return lf_cli_usage_error(cmd, "--from: %s", lf_last_error());
    if (to && lf_hw_parse_size(to, &hi) != LF_OK)
        return lf_cli_usage_error(cmd, "--to: %s", lf_last_error());
    if (lo > hi)
        return lf_cli_usage_error(cmd, "--from (%s) is larger than --to (%s)", from ? from : "128KB",
                                  to ? to : "2048KB");
    int n = 0;
    for (int64_t b = lo; b <= hi && n <= LF_SWEEP_MAX_BUFFERS; b *= 2)
        if (n++ < LF_SWEEP_MAX_BUFFERS)
            o->run.betas[n - 1] = b;
    if (n > LF_SWEEP_MAX_BUFFERS)
        return lf_cli_usage_error(cmd, "--from %s --to %s doubles past %d sizes; narrow the range",
                                  from ? from : "128KB", to ? to : "2048KB", LF_SWEEP_MAX_BUFFERS);
    if (o->run.betas[n - 1] != hi)
        return lf_cli_usage_error(cmd, "--to (%s) must be --from (%s) times a power of two",
                                  to ? to : "2048KB", from ? from : "128KB");
    o->run.nb = n;
    return 0;
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
                             "pg, rg, saliency, occlusion", NULL},
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
    if ((rc = lf_cli_name(&cmd, "search", LF_NAMES_HEURISTIC, "local", &o.run.search)) ||
        (rc = lf_cli_check_rules(&cmd, rules, (int)(sizeof rules / sizeof rules[0]))) ||
        (rc = lf_cli_name(&cmd, "proposer", LF_NAMES_PROPOSER, "all", &o.run.proposer)))
        return rc;
    o.split = lf_cli_get(&cmd, "split");
    if (o.split && strcmp(o.split, "random") != 0 && strcmp(o.split, "tree") != 0)
        return lf_cli_usage_error(&cmd, "unknown --split '%s' (use random or tree)", o.split);
    o.run.tree = o.split && strcmp(o.split, "tree") == 0;
    const char *fmt = lf_cli_get(&cmd, "format");
    if (!fmt)
        fmt = "md";
    if (strcmp(fmt, "md") != 0 && strcmp(fmt, "csv") != 0 && strcmp(fmt, "json") != 0)
        return lf_cli_usage_error(&cmd, "unknown --format '%s' (use md, csv or json)", fmt);
    o.run.do_exact = !lf_cli_get(&cmd, "no-exact");
    if (!o.run.do_exact && lf_cli_get(&cmd, "exact-limit"))
        return lf_cli_usage_error(&cmd, "--exact-limit and --no-exact exclude each other");
    o.quiet = lf_cli_get(&cmd, "quiet") != NULL;
    if ((rc = lf__parse_buffers(&cmd, &o)))
        return rc;

    char models_buf[1024], schemes_buf[64], onnx_name[256] = "";
    const char *ml = lf_cli_get(&cmd, "models"), *sl = lf_cli_get(&cmd, "scheme");
    const char *onnx = lf_cli_get(&cmd, "onnx");
    if (onnx && ml)
        return lf_cli_usage_error(&cmd, "give either --models or --onnx, not both");
    if (ml && strlen(ml) >= sizeof models_buf)
        return lf_cli_usage_error(&cmd, "--models list too long");
    if (sl && strlen(sl) >= sizeof schemes_buf)
        return lf_cli_usage_error(&cmd, "unknown --scheme '%s' (use lbdf, brr or lbdf,brr)", sl);
    snprintf(models_buf, sizeof models_buf, "%s", ml ? ml : LF_SWEEP_DEFAULT_MODELS);
    snprintf(schemes_buf, sizeof schemes_buf, "%s", sl ? sl : "lbdf");
    char *models[LF_SWEEP_MAX_MODELS], *schemes[2];
    int nm = onnx ? 1 : lf_cli_split_list(models_buf, models, LF_SWEEP_MAX_MODELS);
    if (onnx)
        models[0] = (char *)onnx;
    int ns = lf_cli_split_list(schemes_buf, schemes, 2);
    if (nm < 1)
        return lf_cli_usage_error(&cmd, "--models names no network");
    if (nm > LF_SWEEP_MAX_MODELS)
        return lf_cli_usage_error(&cmd, "--models has %d networks; at most %d", nm,
                                  LF_SWEEP_MAX_MODELS);
    for (int i = 0; i < nm && !onnx; i++)
        if (!lf__known_model(models[i]))
            return lf_cli_usage_error(&cmd, "unknown model '%s'; 'fusionplan models' lists the "
                                            "built-in networks",
                                      models[i]);
    if (ns < 1 || ns > 2)
        return lf_cli_usage_error(&cmd, "unknown --scheme '%s' (use lbdf, brr or lbdf,brr)", sl);
    for (int i = 0; i < ns; i++)
        if (!lf_name_known(LF_NAMES_SCHEME, schemes[i]))
            return lf_cli_usage_error(&cmd, "unknown scheme '%s' (use lbdf or brr)", schemes[i]);
    if (ns == 2 && strcmp(schemes[0], schemes[1]) == 0)
        return lf_cli_usage_error(&cmd, "--scheme names %s twice", schemes[0]);
    o.n_schemes = ns;
    const char *svg = lf_cli_get(&cmd, "svg");
    const char *output = lf_cli_get(&cmd, "output");
    {
        /* Checked before the work (which can take minutes), not after. */
        char svg_path[1024] = "";
        if (svg)
            snprintf(svg_path, sizeof svg_path, "%s", svg);
        const char *outs[2] = {output, svg ? svg_path : NULL};
        if ((rc = lf_cli_check_outputs(outs, 2)))
            return rc;
    }
    o.hw_file = lf_cli_get(&cmd, "hw");
    lf_hw_default(&o.run.hw);
    lf_status st;
    if (o.hw_file && (st = lf_hw_load(&o.run.hw, o.hw_file)) != LF_OK)
        return lf_cli_fail(st);

    lf_sweep *sweeps = calloc((size_t)(nm * ns), sizeof *sweeps);
    if (!sweeps)
        return lf_cli_fail(lf_set_error(LF_ENOMEM, "out of memory"));
    lf_atomic_file af = {0};
    FILE *f = stdout;
    if (output) {
        if ((st = lf_atomic_open(&af, output)) != LF_OK) {
            free(sweeps);
            return lf_cli_fail(st);
        }
        f = af.f;
    }
    int csv = strcmp(fmt, "csv") == 0, json = strcmp(fmt, "json") == 0;
    if (csv)
        lf_sweep_print_csv_header(f);
    else if (json)
        lf_sweep_print_json_head(f, &o);
    int n_sw = 0;
    double t_all = lf_now_seconds();
    for (int mi = 0; mi < nm && !rc; mi++) {
        lf_graph *g = NULL;
        if ((rc = lf_cli_load_listed(&cmd, models[mi], &g)))
            break;
        if (onnx) {
            /* The tables name the network, and outlive its graph. */
            snprintf(onnx_name, sizeof onnx_name, "%s", g->name);
            models[mi] = onnx_name;
        }
        o.run.sample_graph = onnx != NULL; /* an --onnx network is sampled from its graph */
        for (int si = 0; si < ns && !rc; si++) {
            lf_sweep *sw = &sweeps[n_sw];
            double t0 = lf_now_seconds();
            st = lf_buffer_sweep_run(g, models[mi], schemes[si], &o.run, sw,
                                     lf__notice, &o.quiet);
            if (st != LF_OK) {
                rc = lf_cli_fail(st);
                break;
            }
            if (!o.quiet)
                fprintf(stderr, "sweep-buffer: %s %s, %d buffer size%s: %.2f s\n", models[mi],
                        schemes[si], (int)o.run.nb, o.run.nb == 1 ? "" : "s", lf_now_seconds() - t0);
            if (csv)
                lf_sweep_print_csv(f, &o, sw);
            else if (json)
                lf_sweep_print_json(f, &o, sw, n_sw == 0);
            else
                lf_sweep_print_md(f, &o, sw, n_sw == 0);
            fflush(f);
            n_sw++;
        }
        lf_graph_free(g);
    }
    if (!rc && json)
        fprintf(f, "\n  ]\n}\n");
    /* The table and the charts are committed together, or none of them. */
    lf_output_batch_begin();
    if (output) {
        if (rc)
            lf_atomic_abort(&af);
        else if ((st = lf_atomic_commit(&af)) != LF_OK)
            rc = lf_cli_fail(st);
    }
    if (!rc && svg && (st = lf_sweep_save_charts(&o, sweeps, n_sw, svg)) != LF_OK)
        rc = lf_cli_fail(st);
    if (!rc && (st = lf_output_batch_commit()) != LF_OK)
        rc = lf_cli_fail(st);
    lf_output_batch_abort(); /* no-op after a commit */
    if (!rc && output && !o.quiet)
        fprintf(stderr, "wrote %s\n", output);
    if (!rc && !o.quiet)
        fprintf(stderr, "sweep-buffer: total %.2f s\n", lf_now_seconds() - t_all);
    free(sweeps);
    return rc;
}

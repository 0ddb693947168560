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

#include "explain/dataset.h"
#include "models/registry.h"
#include "planner/cli/cli.h"
#include "planner/cli/sweep.h"
#include "planner/exact/curve.h"
#include "planner/exact/exact.h"
#include "planner/plan.h"
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

/* ---- one point --------------------------------------------------------- */

/* Fills everything but the valid fraction. Returns 0 or an exit status after
 * printing the error. */
static int lf__run_point(const lf_sweep_setup *o, const lf_graph *g,
                         const char *model, const char *scheme, int64_t beta,
                         const lf_curve *curve, lf_sweep_point *pt)
{
    memset(pt, 0, sizeof *pt);
    pt->beta = beta;
    lf_hw hw = o->hw;
    hw.buffer_bytes = beta;
    lf_cost_model *cm = NULL;
    lf_status st = lf_cost_model_create(&cm, g, &hw, scheme);
    if (st != LF_OK)
        return lf_cli_fail(st);
    int32_t compute = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        compute += g->ops[v].type != LF_OP_INPUT;
    pt->n_unfusable = lf_cost_unfusable_count(cm);
    pt->n_fusable = compute - pt->n_unfusable;

    /* Every plan of the point through the library pipeline: layer by layer
     * (the no-fusion reference), the exact optimum, the search. */
    lf_planner_config pc;
    lf_planner_config_default(&pc);
    pc.budget = o->budget;
    pc.seed = (uint64_t)o->seed;
    pc.threads = (int32_t)o->threads;
    pc.k = (int32_t)o->k;
    if (o->exact_limit > 0)
        pc.exact.max_candidates = o->exact_limit;
    lf_planned r;
    pc.search = "layer";
    if ((st = lf_plan_network(cm, &pc, &r)) == LF_OK)
        pt->layer_all = r.metrics.dram_all;
    lf_planned_destroy(&r);
    /* The exact optimum: from the staircase when there is one (the same
     * value, tests/test_curve.c), else alone; over its limits it is left
     * out ('-'). */
    if (st == LF_OK && o->do_exact && curve) {
        pt->has_exact = 1;
        pt->exact_all = lf_curve_dram_at(curve, beta);
    } else if (st == LF_OK && o->do_exact) {
        pc.search = "exact";
        st = lf_plan_network(cm, &pc, &r);
        if (st == LF_OK) {
            pt->has_exact = 1;
            pt->exact_all = r.metrics.dram_all;
        } else if (st == LF_ELIMIT) {
            char b[32];
            lf_hw_format_size(beta, b, sizeof b);
            fprintf(stderr, "fusionplan sweep-buffer: no exact optimum for %s %s at %s: %s\n",
                    model, scheme, b, lf_last_error());
            st = LF_OK;
        }
        lf_planned_destroy(&r);
    }
    /* The search, with the random split or the tree splitter. */
    if (st == LF_OK) {
        pc.search = o->search;
        pc.split = o->tree ? "tree" : "random";
        pc.proposer = o->proposer;
        if ((st = lf_plan_network(cm, &pc, &r)) == LF_OK)
            pt->m = r.metrics;
        lf_planned_destroy(&r);
    }
    lf_cost_model_free(cm);
    return st == LF_OK ? 0 : lf_cli_fail(st);
}

/* The valid fraction per buffer size over groups sampled once for the
 * network and scheme (the dataset sampler, labels at every buffer). */
static int lf__run_valid(const lf_sweep_setup *o, const char *model, const lf_graph *onnx_graph,
                         const char *scheme, lf_sweep *sw)
{
    sw->sampled = -1;
    if (o->samples <= 0)
        return 0;
    lf_ds_config dc;
    lf_ds_config_default(&dc);
    dc.scheme = scheme;
    dc.seed = (uint64_t)o->seed;
    dc.threads = (int32_t)o->threads;
    dc.hw = &o->hw;
    dc.only = model;
    dc.any_network = 1;
    dc.graph = onnx_graph; /* an --onnx network is sampled from its graph */
    dc.groups = (int32_t)o->samples;
    dc.n_betas = o->nb;
    for (int32_t b = 0; b < o->nb; b++)
        dc.betas[b] = o->betas[b];
    lf_dataset ds;
    lf_dataset_init(&ds, scheme);
    lf_status st = lf_dataset_build(&ds, &dc);
    if (st != LF_OK) {
        lf_dataset_destroy(&ds);
        return lf_cli_fail(st);
    }
    sw->sampled = ds.n_groups;
    for (int32_t b = 0; b < o->nb && ds.n_groups > 0; b++) {
        int64_t valid = 0;
        for (int64_t i = 0; i < ds.n_groups; i++)
            valid += ds.groups[i].valid[b];
        sw->pts[b].has_valid = 1;
        sw->pts[b].valid_pct = lf_sweep_pct(valid, ds.n_groups);
    }
    if (ds.n_groups < o->samples && !o->quiet)
        fprintf(stderr, "fusionplan sweep-buffer: %s %s: only %lld distinct groups found of %lld "
                        "asked\n",
                model, scheme, (long long)ds.n_groups, (long long)o->samples);
    lf_dataset_destroy(&ds);
    return 0;
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
            if (lf_hw_parse_size(items[i], &o->betas[i]) != LF_OK)
                return lf_cli_usage_error(cmd, "--buffers: %s", lf_last_error());
            if (i && o->betas[i] <= o->betas[i - 1])
                return lf_cli_usage_error(cmd, "--buffers must be strictly ascending ('%s' after "
                                               "'%s')",
                                          items[i], items[i - 1]);
        }
        o->nb = n;
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
            o->betas[n - 1] = b;
    if (n > LF_SWEEP_MAX_BUFFERS)
        return lf_cli_usage_error(cmd, "--from %s --to %s doubles past %d sizes; narrow the range",
                                  from ? from : "128KB", to ? to : "2048KB", LF_SWEEP_MAX_BUFFERS);
    if (o->betas[n - 1] != hi)
        return lf_cli_usage_error(cmd, "--to (%s) must be --from (%s) times a power of two",
                                  to ? to : "2048KB", from ? from : "128KB");
    o->nb = n;
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
    o.budget = lf_cli_get(&cmd, "budget") ? sv.budget : 1000;
    o.seed = sv.seed;
    o.threads = sv.threads;
    o.k = sv.k;
    if ((rc = lf_cli_int(&cmd, "samples", 1000, 0, 1000000, &o.samples)) ||
        (rc = lf_cli_int(&cmd, "exact-limit", 0, 1, INT64_MAX, &o.exact_limit)))
        return rc;
    static const lf_cli_rule rules[] = {
        {"proposer", "split", NULL, -1, "tree", "--proposer needs --split tree"},
        {"k", "split", NULL, -1, "tree", "--k needs --split tree"},
    };
    if ((rc = lf_cli_name(&cmd, "search", LF_NAMES_HEURISTIC, "local", &o.search)) ||
        (rc = lf_cli_check_rules(&cmd, rules, (int)(sizeof rules / sizeof rules[0]))) ||
        (rc = lf_cli_name(&cmd, "proposer", LF_NAMES_PROPOSER, "all", &o.proposer)))
        return rc;
    o.split = lf_cli_get(&cmd, "split");
    if (o.split && strcmp(o.split, "random") != 0 && strcmp(o.split, "tree") != 0)
        return lf_cli_usage_error(&cmd, "unknown --split '%s' (use random or tree)", o.split);
    o.tree = o.split && strcmp(o.split, "tree") == 0;
    const char *fmt = lf_cli_get(&cmd, "format");
    if (!fmt)
        fmt = "md";
    if (strcmp(fmt, "md") != 0 && strcmp(fmt, "csv") != 0 && strcmp(fmt, "json") != 0)
        return lf_cli_usage_error(&cmd, "unknown --format '%s' (use md, csv or json)", fmt);
    o.do_exact = !lf_cli_get(&cmd, "no-exact");
    if (!o.do_exact && lf_cli_get(&cmd, "exact-limit"))
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
    lf_hw_default(&o.hw);
    lf_status st;
    if (o.hw_file && (st = lf_hw_load(&o.hw, o.hw_file)) != LF_OK)
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
        for (int si = 0; si < ns && !rc; si++) {
            lf_sweep *sw = &sweeps[n_sw];
            sw->model = models[mi];
            sw->scheme = schemes[si];
            double t0 = lf_now_seconds();
            if ((rc = lf__run_valid(&o, models[mi], onnx ? g : NULL, schemes[si], sw)))
                break;
            /* The exact column of every point from one staircase; past a
             * limit, point by point as before. */
            lf_curve curve = {0};
            int have_curve = 0;
            if (o.do_exact) {
                lf_exact_config ec;
                lf_exact_config_default(&ec);
                if (o.exact_limit > 0)
                    ec.max_candidates = o.exact_limit;
                st = lf_curve_compute(g, &o.hw, schemes[si], o.betas[0], o.betas[o.nb - 1] + 1, &ec,
                                      &curve);
                have_curve = st == LF_OK;
                if (st != LF_OK && st != LF_ELIMIT) {
                    rc = lf_cli_fail(st);
                    break;
                }
            }
            for (int32_t b = 0; b < o.nb && !rc; b++) {
                int has_valid = sw->pts[b].has_valid;
                double valid = sw->pts[b].valid_pct;
                rc = lf__run_point(&o, g, models[mi], schemes[si], o.betas[b],
                                   have_curve ? &curve : NULL, &sw->pts[b]);
                sw->pts[b].has_valid = has_valid;
                sw->pts[b].valid_pct = valid;
            }
            if (have_curve)
                lf_curve_destroy(&curve);
            if (rc)
                break;
            if (!o.quiet)
                fprintf(stderr, "sweep-buffer: %s %s, %d buffer size%s: %.2f s\n", models[mi],
                        schemes[si], (int)o.nb, o.nb == 1 ? "" : "s", lf_now_seconds() - t0);
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

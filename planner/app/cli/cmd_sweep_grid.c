/* fusionplan sweep: a grid of (network, scheme, buffer, search, proposer,
 * seed) cells, each one JSON line appended to a results file; --list and
 * --cell I for other launchers (GNU parallel, Slurm arrays), --resume after
 * a kill, --mpi under mpirun. A thin wrapper over search/sweep/sweep.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/cost/objective.h"
#include "search/sweep/sweep.h"

/* Axes and settings from the flags (after the grid file, so flags win). */
static int lf__axes(const lf_cli_command *cmd, lf_sweep_grid *g)
{
    static const char *const axes[] = {"models", "onnx", "schemes", "buffers", "searches", "proposers"};
    for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++) {
        const char *v = lf_cli_get(cmd, axes[i]);
        if (v && lf_sweep_grid_set(g, axes[i], v) != LF_OK)
            return lf_cli_usage_error(cmd, "--%s: %s", axes[i], lf_last_error());
    }
    /* --seeds K with --seed S (as compare), or an explicit list "1,4,9" / range "1-10". */
    const char *seeds = lf_cli_get(cmd, "seeds"), *seed = lf_cli_get(cmd, "seed"), *shape;
    int is_list = seeds && strpbrk(seeds, ",-"), rc;
    char range[64];
    int64_t k, s, x[3] = {g->k, g->population, g->threads};
    if (is_list && seed)
        return lf_cli_usage_error(cmd, "--seed goes with a count --seeds K, not a list");
    if (!is_list && (seeds || seed)) {
        if ((rc = lf_cli_int(cmd, "seeds", 3, 1, LF_SWEEP_MAX_ITEMS, &k)) || (rc = lf_cli_search_opt(cmd, "seed", 1, &s)))
            return rc;
        snprintf(range, sizeof range, "%" PRId64 "-%" PRId64, s, s + k - 1);
        seeds = range;
    }
    if (seeds && lf_sweep_grid_set(g, "seeds", seeds) != LF_OK)
        return lf_cli_usage_error(cmd, "--seeds: %s", lf_last_error());
    if ((shape = lf_cli_get(cmd, "input-shape")) && lf_sweep_grid_set_input_shape(g, shape) != LF_OK)
        return lf_cli_usage_error(cmd, "--input-shape: %s", lf_last_error());
    if ((rc = lf_cli_search_opt(cmd, "budget", g->budget, &g->budget)) || (rc = lf_cli_search_opt(cmd, "k", x[0], &x[0])) ||
        (rc = lf_cli_search_opt(cmd, "population", x[1], &x[1])) || (rc = lf_cli_search_opt(cmd, "threads", x[2], &x[2])))
        return rc;
    g->k = (int32_t)x[0];
    g->population = (int32_t)x[1];
    g->threads = (int32_t)x[2];
    if (lf_cli_get(cmd, "split-gap") && lf_cli_get(cmd, "no-split-gap"))
        return lf_cli_usage_error(cmd, "--split-gap and --no-split-gap exclude each other");
    g->exact = g->exact && !lf_cli_get(cmd, "no-exact");
    g->split_gap = lf_cli_get(cmd, "split-gap") ? 1 : lf_cli_get(cmd, "no-split-gap") ? 0 : g->split_gap;
    const char *objective = lf_cli_get(cmd, "objective");
    if (objective) {
        lf_plan_objective o = lf_plan_objective_from_name(objective);
        if (o == LF_PLAN_OBJ_COUNT)
            return lf_cli_usage_error(cmd, "unknown --objective '%s' (use dram, energy or latency)", objective);
        g->objective = (int32_t)o;
    }
    return 0;
}

/* --cell I: one cell, its line to standard output or appended to -o. */
static int lf__one_cell(const lf_cli_command *cmd, const lf_sweep_grid *g, int64_t cell, const char *out,
                        int resume)
{
    char *line = NULL;
    int failed = 0, already = 0;
    lf_status st = lf_sweep_run_one(g, cell, out, resume, &line, &failed, &already);
    if (st == LF_OK && already && !lf_cli_get(cmd, "quiet"))
        fprintf(stderr, "sweep: cell %" PRId64 " is already in %s\n", cell, out);
    if (st == LF_OK && line && !out && (fputs(line, stdout) == EOF || fflush(stdout) != 0))
        st = lf_set_error(LF_EIO, "standard output: write failed");
    free(line);
    if (st != LF_OK)
        return lf_cli_fail(st);
    if (failed)
        fprintf(stderr, "fusionplan sweep: cell %" PRId64 " failed; its line carries the error\n", cell);
    return failed ? LF_EXIT_FAIL : LF_EXIT_OK;
}

/* The command once parsed: the grid, then one of --list, --cell, a run. */
static int lf__sweep(const lf_cli_command *cmd, lf_sweep_grid *g)
{
    const char *grid_file = lf_cli_get(cmd, "grid"), *hw = lf_cli_get(cmd, "hw");
    const char *out = lf_cli_get(cmd, "output"), *cell_arg = lf_cli_get(cmd, "cell");
    int list = lf_cli_get(cmd, "list") != NULL, mpi = lf_cli_get(cmd, "mpi") != NULL;
    int resume = lf_cli_get(cmd, "resume") != NULL, rc;
    lf_status st;
    if ((hw && (st = lf_sweep_grid_set_hw(g, hw)) != LF_OK) ||
        (grid_file && (st = lf_sweep_grid_load(g, grid_file)) != LF_OK))
        return lf_cli_fail(st);
    if ((rc = lf__axes(cmd, g)))
        return rc;
    if (list + (cell_arg != NULL) + mpi > 1)
        return lf_cli_usage_error(cmd, "--list, --cell and --mpi exclude each other");
    if (list) {
        lf_sweep_print_cells(stdout, g);
        return fflush(stdout) == 0 ? LF_EXIT_OK : lf_cli_fail(lf_set_error(LF_EIO, "standard output: write failed"));
    }
    int64_t cell, failed = 0;
    if (cell_arg && (rc = lf_cli_int(cmd, "cell", 0, 0, lf_sweep_n_cells(g) - 1, &cell)))
        return rc;
    if (cell_arg && resume && !out)
        return lf_cli_usage_error(cmd, "--resume with --cell needs -o FILE");
    if (cell_arg)
        return lf__one_cell(cmd, g, cell, out, resume);
    if (!out)
        return lf_cli_usage_error(cmd, "missing -o RESULTS.jsonl (or --list, --cell I)");
    /* Several processes of an mpirun without --mpi would each run every cell into one file. */
    const char *world = getenv("OMPI_COMM_WORLD_SIZE");
    if (!mpi && world && atoi(world) > 1)
        return lf_cli_usage_error(cmd, "started by mpirun with %d processes: add --mpi", atoi(world));
    lf_sweep_options o = {out, resume, lf_cli_get(cmd, "quiet") ? NULL : lf_sweep_progress_print, stderr,
                          &failed};
    int rank = 0;
    st = mpi ? lf_sweep_run_mpi(g, &o, &rank) : lf_sweep_run(g, &o);
    if (rank != 0)
        return st == LF_OK ? LF_EXIT_OK : LF_EXIT_FAIL;
    if (st != LF_OK)
        return lf_cli_fail(st);
    if (failed)
        fprintf(stderr, "fusionplan sweep: %" PRId64 " cell%s failed; their lines in %s carry the error\n",
                failed, failed == 1 ? "" : "s", out);
    return failed ? LF_EXIT_FAIL : LF_EXIT_OK;
}

int lf_cmd_sweep_grid(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"grid", "FILE", "grid file (JSON: the axes and settings below; flags given as well win)", NULL},
        {"models", "LIST", "built-in networks (default mobilenet_v2)", NULL},
        {"onnx", "LIST", "ONNX files, networks after the built-in ones (alone: only the files)", NULL},
        {"input-shape", "SPEC", "ONNX input shapes for every --onnx file, x=1,3,224,224 (';' between "
                                "inputs)", NULL},
        {"schemes", "LIST", "cost models: lbdf, brr (default lbdf)", NULL},
        {"buffers", "LIST", "on-chip buffer sizes, e.g. 128KB,256KB (default: the hardware's)", NULL},
        {"searches", "LIST", "{heuristic} or their short names ls, rs (default all three)", NULL},
        {"proposers", "LIST", "none (the random split), {proposer} (default none,gnne,pg,rg); "
                              "gnne:epochs=N:patience=N:top=N sets GNNExplainer's "
                              "iterations (100) and early stop", NULL},
        {"budget", "N", "plans proposed per search (default 2000)", NULL},
        {"seeds", "K|LIST", "K seeds from --seed (default 3), or a list 1,4,9 or range 1-10", NULL},
        {"seed", "S", "first seed with a count --seeds K (default 1)", NULL},
        {"k", "N", "edges a tree proposer may return (default 3)", NULL},
        {"population", "K", "LS top-K and NSGA-II population (default 10)", NULL},
        {"threads", "T", "OpenMP threads per cell (default 1: cells are what runs in parallel; 0: all "
                         "cores)", NULL},
        {"hw", "FILE", "hardware description XML (element sizes; the buffer is set per cell)", NULL},
        {"no-exact", NULL, "no exact optimum and gap per cell", NULL},
        {"split-gap", NULL, "measure the tree splitter's split gap (an exact split per distinct group, "
                            "after each search; off by default, as in compare)", NULL},
        {"no-split-gap", NULL, "no split gap (the default; overrides \"split_gap\": true of a grid file)",
         NULL},
        {"objective", "NAME", "what every cell's search and exact optimum minimise: dram (default, bytes), "
                              "energy or latency (lines then carry objective, objective_fusable and the "
                              "gap on it; docs/cost-models.md \"Objectives\")", NULL},
        {"output", "FILE", "(or -o) results file, one JSON line per cell (required unless --list or "
                           "--cell)", NULL},
        {"list", NULL, "print the cells (index and key), one per line, and exit", NULL},
        {"cell", "I", "run cell I only: its line to standard output, or appended to -o", NULL},
        {"resume", NULL, "skip the cells already in the results file (a truncated last line is redone)",
         NULL},
        {"mpi", NULL, "run under MPI (mpirun -np N): rank 0 hands out cells, writes the file in cell order",
         NULL},
        {"quiet", NULL, "no progress lines on standard error", NULL},
    };
    lf_cli_command cmd = {
        "sweep", "Run a grid of searches, one JSON line per cell, resumable, on one machine or many.",
        "sweep [--grid FILE] [--models LIST] [--buffers LIST] [--schemes LIST] [--searches LIST] "
        "[--proposers LIST] [--budget N] [--seeds K] (-o RESULTS.jsonl [--resume] [--mpi] | --list | "
        "--cell I [-o FILE])",
        "Cells are the grid's (network, scheme, buffer, search, proposer, seed) in that order, the\n"
        "seed fastest. Each cell runs one search with a fresh cost model and appends one JSON line:\n"
        "its settings, DRAM, MBU, groups, rectify rate, split gap, the exact optimum and gap, the\n"
        "budget curve, tool version and graph hash, and its wall time. The lines do not depend on\n"
        "how the cells were run (one process, --cell jobs, MPI), except the wall times. Turn the\n"
        "file into compare's tables with `fusionplan sweep-report`. See docs/experiments.md.",
        opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    lf_sweep_grid g;
    lf_sweep_grid_init(&g);
    rc = lf__sweep(&cmd, &g);
    lf_sweep_grid_destroy(&g);
    return rc;
}

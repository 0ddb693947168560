/* Sweeps: a grid of (network, scheme, buffer, search, proposer, seed) cells,
 * each a pure function of the grid and its index that yields one JSON line
 * (DESIGN §13). A results file is the concatenation of such lines; it can be
 * filled by one process, resumed after a kill, split over machines with
 * `--cell I` (GNU parallel, Slurm arrays) or run under MPI, and the lines of
 * every cell are the same bytes whichever way, except the wall times.
 *
 * The networks are the built-in models, then the ONNX files (imported with
 * the default options: every normalisation on, the file's own input shapes).
 *
 * Cell order (documented, stable): the cell index is a mixed-radix number
 * with the network as the most significant digit, then the scheme, the
 * buffer, the search, the proposer and the seed (fastest):
 *
 *   index = ((((model * S + scheme) * B + buffer) * Q + search) * P + proposer) * K + seed
 *
 * so the cells of one compare table (network, scheme, buffer) are
 * contiguous, in compare's row order. */
#ifndef LF_SEARCH_SWEEP_H
#define LF_SEARCH_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "hwdesc/hw.h"
#include "planner/status.h"

#define LF_SWEEP_MAX_ITEMS 64 /* entries per grid axis */

typedef struct lf_sweep_grid {
    char *models[LF_SWEEP_MAX_ITEMS];    /* built-in network names */
    char *onnx[LF_SWEEP_MAX_ITEMS];      /* ONNX files: networks after the built-in ones */
    char *schemes[LF_SWEEP_MAX_ITEMS];   /* "lbdf", "brr" */
    int64_t buffers[LF_SWEEP_MAX_ITEMS]; /* bytes */
    char *searches[LF_SWEEP_MAX_ITEMS];  /* canonical: "local", "random", "nsga2" */
    char *proposers[LF_SWEEP_MAX_ITEMS]; /* "none" (the random split) or a tree proposer */
    uint64_t seeds[LF_SWEEP_MAX_ITEMS];
    int32_t n_models, n_onnx, n_schemes, n_buffers, n_searches, n_proposers, n_seeds;
    int64_t budget;     /* plans per search (default 2000) */
    int32_t k;          /* edges a tree proposer may return (default 3) */
    int32_t population; /* LS top-K, NSGA-II population (default 10) */
    int32_t threads;    /* OpenMP threads per cell (default 1: cells are the parallel unit) */
    int32_t exact;      /* 1 (default): exact optimum and gap per cell */
    int32_t split_gap;  /* 1: measure the tree splitter's split gap (default 0, as compare) */
    int32_t objective;  /* what every cell's search and exact optimum minimise
                           (lf_plan_objective: dram (default), energy, latency) */
    char *hw_path;      /* hardware description (element sizes); NULL: built-in */
    char *input_shape;  /* ONNX input shapes, "x=1,3,224,224;y=..." for every ONNX network; NULL: the files' */
    lf_hw hw;           /* loaded from hw_path (or the default); buffer replaced per cell */
    int32_t buffer_from_hw; /* 1 while the buffers axis is the hardware's own buffer */
    int32_t models_default; /* 1 while the models axis is the default (dropped by an onnx axis) */
} lf_sweep_grid;

/* Defaults: mobilenet_v2, lbdf, the hardware's buffer, ls/rs/nsga2,
 * none/gnne/pg/rg, seeds 1-3, budget 2000, k 3, population 10, threads 1,
 * the exact optimum on, the split gap off. */
void lf_sweep_grid_init(lf_sweep_grid *g);
void lf_sweep_grid_destroy(lf_sweep_grid *g);

/* Set one axis from a comma-separated list (replacing what was there):
 * axis is "models", "onnx" (readable files; while the models axis is the
 * default, it is dropped: --onnx alone runs only the files), "schemes", "buffers" (sizes with units), "searches"
 * (ls, rs, nsga2 or local, random, nsga2), "proposers" or "seeds" (a list
 * of seeds, or ranges "1-10"). Names are checked here: an unknown model,
 * scheme, search or proposer is LF_EINVAL naming it. */
lf_status lf_sweep_grid_set(lf_sweep_grid *g, const char *axis, const char *list);
/* Sets the hardware description (loads it); the buffers axis follows its
 * buffer unless buffers were set. */
lf_status lf_sweep_grid_set_hw(lf_sweep_grid *g, const char *path);

/* Sets the ONNX input shapes (checked here). */
lf_status lf_sweep_grid_set_input_shape(lf_sweep_grid *g, const char *spec);

/* Reads a grid file: one JSON object whose members are the axes as arrays
 * ("models": ["resnet50"], "buffers": ["128KB", 262144], "seeds": [1, 2]
 * or "seeds": {"first": 1, "count": 10}; "onnx": ["net.onnx"]) and the scalars "budget", "k",
 * "population", "threads", "exact", "split_gap", "hw" and "input_shape". Members not given
 * keep their current values; unknown members are an error (a misspelt axis
 * must not silently run the default). Errors name the file and member. */
lf_status lf_sweep_grid_load(lf_sweep_grid *g, const char *path);

int64_t lf_sweep_n_cells(const lf_sweep_grid *g);
/* Built-in models plus ONNX files. */
int32_t lf_sweep_n_networks(const lf_sweep_grid *g);

/* The coordinates of cell i. */
typedef struct lf_sweep_cell {
    int64_t index;
    const char *model, *scheme, *search, *proposer; /* model: a built-in name or an ONNX path */
    int32_t onnx;                                   /* 1: model is an ONNX file */
    int64_t buffer;
    uint64_t seed;
} lf_sweep_cell;

lf_status lf_sweep_cell_get(const lf_sweep_grid *g, int64_t i, lf_sweep_cell *out);
/* "model/scheme/buffer_bytes/search/proposer/seed": unique within a grid. */
void lf_sweep_cell_key(const lf_sweep_cell *c, char *buf, size_t len);

/* Runs cells and caches what cells share (graphs, exact optima). Not shared
 * between threads: one runner per thread. */
typedef struct lf_sweep_runner lf_sweep_runner;

lf_status lf_sweep_runner_create(lf_sweep_runner **out, const lf_sweep_grid *g);
void lf_sweep_runner_free(lf_sweep_runner *r);

/* A rough relative cost of cell i (ops x budget x a factor for the
 * proposer and search), used to hand out the largest cells first. */
double lf_sweep_cell_cost(lf_sweep_runner *r, int64_t i);

/* Runs cell i and returns its JSON line (with the trailing newline) in
 * *line (malloc'd), and its wall time. A cell that fails still yields a
 * line, with an "error" member naming the failure; *cell_failed is set.
 * Only a failure to produce the line at all (out of memory, bad index) is
 * returned as a status. */
lf_status lf_sweep_run_cell(lf_sweep_runner *r, int64_t i, char **line, int *cell_failed);

/* What a results file holds for a grid: for every cell, whether it has a
 * complete line. A truncated last line (no newline, or not valid JSON at
 * the end of the file: a run killed while writing) is reported through
 * *valid_len, the length of the complete part, and not counted. A line
 * whose cell index or key does not match the grid, or an invalid line
 * before the last, is LF_EPARSE naming the file and line, and so is a cell
 * found on two lines (two runs appended it). A missing file is an empty one. */
lf_status lf_sweep_results_scan(const lf_sweep_grid *g, const char *path, uint8_t *done,
                                int64_t *valid_len, int64_t *n_lines);

/* How lf_sweep_results_open treats an existing file. */
typedef enum lf_sweep_open_mode {
    LF_SWEEP_FRESH = 0,  /* refuse a file that already holds results (LF_EINVAL: "use --resume") */
    LF_SWEEP_RESUME = 1, /* scan it, cut a truncated last line, mark the finished cells in done[] */
    LF_SWEEP_APPEND = 2  /* append (one --cell of many); refuse a file ending in a truncated line */
} lf_sweep_open_mode;

/* Opens `path` to append results; *fd is an O_APPEND descriptor. done has
 * lf_sweep_n_cells entries (only written with LF_SWEEP_RESUME). The file is
 * locked (flock) until *fd is closed: exclusively for LF_SWEEP_FRESH and
 * LF_SWEEP_RESUME, shared for LF_SWEEP_APPEND (several `--cell` jobs may
 * append together); a lock held by another run is LF_EINVAL, "another sweep
 * is writing to it", before anything is read or written. */
lf_status lf_sweep_results_open(const lf_sweep_grid *g, const char *path, lf_sweep_open_mode mode,
                                uint8_t *done, int *fd);
/* Appends one line with one write(2), so that concurrent appenders on one
 * local file never interleave within a line. */
lf_status lf_sweep_results_append(int fd, const char *path, const char *line);

/* The journal FILE.pending: a run that finishes cells out of cell order
 * (under MPI, cells go out largest first) appends each line there as it
 * comes in, so that a killed run loses only the cells being computed, not
 * every line waiting for an earlier cell. lf_sweep_journal_load puts into
 * lines[cell] (malloc'd, with the newline) every complete journal line of a
 * cell that done[] does not mark and lines[] does not hold yet, and counts
 * them in *loaded (a missing journal is empty; its truncated last line is
 * ignored; a line of another grid is LF_EPARSE). lf_sweep_journal_open
 * opens it for appending (emptied unless resume); lf_sweep_journal_remove
 * deletes it once the results file is complete. */
lf_status lf_sweep_journal_load(const lf_sweep_grid *g, const char *path, const uint8_t *done,
                                char **lines, int64_t *loaded);
lf_status lf_sweep_journal_open(const char *path, int resume, int *fd);
void lf_sweep_journal_remove(const char *path);

/* One cell (`sweep --cell I`, for launchers that run cells as separate
 * jobs): runs cell i and returns its line in *line (malloc'd; the caller
 * prints it when path is NULL), after appending it to path when given
 * (LF_SWEEP_APPEND, or LF_SWEEP_RESUME with resume: then a cell the file
 * already holds is not run, *already is set and *line is NULL).
 * *cell_failed: the cell ran but its line carries an error. */
lf_status lf_sweep_run_one(const lf_sweep_grid *g, int64_t i, const char *path, int resume,
                           char **line, int *cell_failed, int *already);

/* The cells of g, one line each: "INDEX<TAB>KEY". */
void lf_sweep_print_cells(FILE *f, const lf_sweep_grid *g);

/* Called after every cell with its index, key, DRAM over fusable ops of
 * the best plan, wall time and the error when it failed (NULL otherwise,
 * and dram -1). done counts the cells finished in this run out of todo. */
typedef void (*lf_sweep_progress_fn)(void *ctx, int64_t cell, const char *key, int64_t dram,
                                     double wall_s, const char *error, int64_t done, int64_t todo);

/* A progress function writing one line per cell to the FILE * given as
 * ctx: "sweep: [DONE/TODO] cell I KEY: D MB in W s", or ": FAILED: why". */
void lf_sweep_progress_print(void *stream, int64_t cell, const char *key, int64_t dram,
                             double wall_s, const char *error, int64_t done, int64_t todo);

typedef struct lf_sweep_options {
    const char *path;         /* results file (required) */
    int resume;               /* skip the cells already in the file */
    lf_sweep_progress_fn progress;
    void *progress_ctx;
    int64_t *n_failed;        /* optional: cells whose line carries an error */
} lf_sweep_options;

/* One process: every cell not done, in cell order, appended to the file. */
lf_status lf_sweep_run(const lf_sweep_grid *g, const lf_sweep_options *o);

/* Under MPI (mpirun -np N): every rank calls it with the same grid. Rank 0
 * reads the file, hands the cells out dynamically, largest first, to the
 * other ranks and to a computing thread of its own, and writes the lines in
 * cell order, so the file is the one lf_sweep_run writes, up to wall times.
 * Initializes MPI if the caller has not (and then finalizes it). *rank is
 * set for the caller (only rank 0 reports). Without MPI: LF_ENOSYS. */
lf_status lf_sweep_run_mpi(const lf_sweep_grid *g, const lf_sweep_options *o, int *rank);
/* 1 when built with MPI. */
int lf_sweep_mpi_built(void);

/* One line of a results file, parsed (sweep-report). Strings are owned. */
typedef struct lf_sweep_record {
    int64_t cell;
    char *key, *model, *scheme, *search, *proposer, *error, *graph_hash, *version;
    int64_t buffer, budget;
    uint64_t seed;
    int32_t k, population, threads, ops, unfusable, onnx;
    int64_t dram_fusable, dram_all, mbu, invalid_groups;
    int32_t groups;
    double rectify_rate, split_gap, wall_s; /* NaN for null */
    int32_t has_exact, exact_groups;
    int64_t exact_dram_fusable, exact_dram_all, exact_mbu;
    double exact_wall_s;
    int32_t n_curve;
    int64_t *curve; /* best DRAM at the compare curve points of the budget */
} lf_sweep_record;

/* Reads every line of a results file (jansson). A truncated last line is
 * skipped and counted in *truncated; a malformed line elsewhere is
 * LF_EPARSE naming the file and line. */
lf_status lf_sweep_records_load(const char *path, lf_sweep_record **out, int64_t *n, int64_t *truncated);
void lf_sweep_records_free(lf_sweep_record *r, int64_t n);

/* The budget-curve points of compare for a budget (at most 100, the last at
 * the budget); returns the count, fills points when not NULL. */
int32_t lf_sweep_curve_points(int64_t budget, int64_t *points);

#endif

/* fusionplan sweep-report: results files of `fusionplan sweep` (read with
 * jansson by the library) turned into compare's tables and budget curves.
 *
 * Cells group into one table per (network, scheme, buffer, budget, k,
 * population), in cell order; rows are the (search, proposer) pairs in the
 * order their cells come, columns the seeds, ascending. A cell found twice
 * (files from several launchers concatenated, a --cell job rerun) counts
 * once: its first line without an error. A table with a missing or failed
 * cell is left out with one line on stderr naming the cell, and the exit
 * status is 1 (the other tables are still written). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cli/cli.h"
#include "planner/cli/compare.h"
#include "search/sweep/sweep.h"

static int lf__by_cell(const void *a, const void *b)
{
    const lf_sweep_record *x = *(const lf_sweep_record *const *)a, *y = *(const lf_sweep_record *const *)b;
    return x->cell < y->cell ? -1 : x->cell > y->cell;
}

static int lf__same_table(const lf_sweep_record *a, const lf_sweep_record *b)
{
    return !strcmp(a->model, b->model) && !strcmp(a->scheme, b->scheme) && a->buffer == b->buffer &&
           a->budget == b->budget && a->k == b->k && a->population == b->population;
}

/* The record of (search, proposer, seed) within a table: its first line
 * without an error, else its first line, else NULL. */
static const lf_sweep_record *lf__find(lf_sweep_record **recs, int64_t n, const lf_sweep_record *t,
                                       const char *search, const char *proposer, uint64_t seed)
{
    const lf_sweep_record *any = NULL;
    for (int64_t i = 0; i < n; i++) {
        const lf_sweep_record *r = recs[i];
        if (lf__same_table(r, t) && !strcmp(r->search, search) && !strcmp(r->proposer, proposer) &&
            r->seed == seed) {
            if (!r->error)
                return r;
            if (!any)
                any = r;
        }
    }
    return any;
}

static int lf__cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Fills table t from the records of the table that record `first` opens.
 * Returns 1 when complete, 0 (after one line on stderr) when not, -1 when
 * out of memory. */
static int lf__build(lf_cmp_table *t, lf_sweep_record **recs, int64_t n, const lf_sweep_record *first)
{
    const char *searches[256], *proposers[256];
    int32_t n_rows = 0, n_seeds = 0;
    uint64_t *seeds = malloc((size_t)n * sizeof *seeds);
    if (!seeds)
        return -1;
    for (int64_t i = 0; i < n; i++) {
        const lf_sweep_record *r = recs[i];
        if (!lf__same_table(r, first))
            continue;
        int found = 0;
        for (int32_t k = 0; k < n_rows && !found; k++)
            found = !strcmp(searches[k], r->search) && !strcmp(proposers[k], r->proposer);
        if (!found && n_rows < 256) {
            searches[n_rows] = r->search;
            proposers[n_rows++] = r->proposer;
        }
        found = 0;
        for (int32_t k = 0; k < n_seeds && !found; k++)
            found = seeds[k] == r->seed;
        if (!found)
            seeds[n_seeds++] = r->seed;
    }
    qsort(seeds, (size_t)n_seeds, sizeof *seeds, lf__cmp_u64);
    t->model = first->model;
    t->scheme = first->scheme;
    t->beta = first->buffer;
    t->k = first->k;
    t->population = first->population;
    t->threads = first->threads;
    t->fresh_memo = 1;
    t->seeds = seeds;
    if (lf_cmp_table_alloc(t, n_rows, n_seeds, first->budget) != LF_OK)
        return -1;
    for (int32_t r = 0; r < n_rows; r++) {
        lf_cmp_row *row = &t->rows[r];
        row->search = searches[r];
        row->proposer = proposers[r];
        row->baseline = -1;
        for (int32_t b = 0; b < n_rows; b++)
            if (b != r && !strcmp(searches[b], searches[r]) && !strcmp(proposers[b], "none"))
                row->baseline = b;
        for (int32_t s = 0; s < n_seeds; s++) {
            const lf_sweep_record *c = lf__find(recs, n, first, searches[r], proposers[r], seeds[s]);
            if (!c || c->error) {
                fprintf(stderr, "fusionplan sweep-report: %s %s %" PRId64 " KB budget %" PRId64
                                ": table left out: %s + %s seed %" PRIu64 " %s%s\n",
                        t->model, t->scheme, t->beta / 1024, t->budget, searches[r], proposers[r],
                        seeds[s], c ? "failed: " : "is missing", c ? c->error : "");
                return 0;
            }
            row->dram[s] = c->dram_fusable;
            row->dram_all[s] = c->dram_all;
            row->mbu[s] = c->mbu;
            row->groups[s] = c->groups;
            row->rectify[s] = c->rectify_rate;
            row->split_gap[s] = c->split_gap;
            row->wall[s] = c->wall_s;
            row->invalid[s] = c->invalid_groups;
            for (int32_t p = 0; p < t->n_points && p < c->n_curve; p++)
                row->curve[(int64_t)s * t->n_points + p] = (double)c->curve[p];
            t->n_ops = c->ops;
            t->n_unfusable = c->unfusable;
            if (c->has_exact && !t->has_exact) {
                t->has_exact = 1;
                t->exact_dram = c->exact_dram_fusable;
                t->exact_dram_all = c->exact_dram_all;
                t->exact_mbu = c->exact_mbu;
                t->exact_groups = c->exact_groups;
                t->exact_wall = c->exact_wall_s;
            }
        }
    }
    return 1;
}

int lf_cmd_sweep_report(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"format", "FMT", "md (default), csv or json", NULL},
        {"output", "FILE", "(or -o) write the tables to FILE instead of standard output", NULL},
        {"csv", "FILE", "also write the tables as CSV to FILE", NULL},
        {"json", "FILE", "also write the tables as JSON (with per-seed figures) to FILE", NULL},
        {"curves", "PREFIX", "write budget curves to PREFIX.csv and PREFIX.svg (one SVG per table: "
                             "PREFIX-<model>-<scheme>-<buffer>.svg when there are several)", NULL},
    };
    lf_cli_command cmd = {
        "sweep-report", "Turn sweep results into compare's tables and budget-curve charts.",
        "sweep-report RESULTS.jsonl [MORE.jsonl ...] [--format md|csv|json] [-o FILE] [--curves PREFIX]",
        "Reads one or more results files of `fusionplan sweep` (concatenated in any order; a cell\n"
        "found twice counts once) and prints compare's table for every network, scheme and buffer:\n"
        "DRAM mean and sd over the seeds, best, worst, change against the random split, gap to the\n"
        "exact optimum, MBU, groups, rectify rate, split gap and wall time (cells run with a fresh\n"
        "cost memo each). A table with a missing or failed cell is left out (exit status 1).",
        opts, (int)(sizeof opts / sizeof opts[0])};
    int n_files = 0;
    while (n_files < argc && argv[n_files][0] != '-')
        n_files++;
    int rc = lf_cli_parse(&cmd, argc - n_files, argv + n_files);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    if (n_files == 0)
        return lf_cli_usage_error(&cmd, "missing RESULTS.jsonl (the results files come first)");
    lf_cmp_out o = {lf_cli_get(&cmd, "format"), lf_cli_get(&cmd, "output"), lf_cli_get(&cmd, "csv"),
                    lf_cli_get(&cmd, "json"), lf_cli_get(&cmd, "curves")};
    if (!o.format)
        o.format = "md";
    if (strcmp(o.format, "md") && strcmp(o.format, "csv") && strcmp(o.format, "json"))
        return lf_cli_usage_error(&cmd, "unknown --format '%s' (use md, csv or json)", o.format);

    lf_sweep_record **files = calloc((size_t)n_files, sizeof *files);
    int64_t *counts = calloc((size_t)n_files, sizeof *counts), total = 0;
    lf_sweep_record **recs = NULL;
    lf_cmp_table *tables = NULL;
    int32_t n_tables = 0;
    int incomplete = 0;
    lf_status st = LF_OK;
    if (!files || !counts) {
        rc = lf_cli_fail(lf_set_error(LF_ENOMEM, "out of memory"));
        goto done;
    }
    for (int i = 0; i < n_files; i++) {
        int64_t truncated = 0;
        if ((st = lf_sweep_records_load(argv[i], &files[i], &counts[i], &truncated)) != LF_OK) {
            rc = lf_cli_fail(st);
            goto done;
        }
        if (truncated)
            fprintf(stderr, "fusionplan sweep-report: %s: the last line is truncated (a killed run; "
                            "`sweep --resume` redoes it); skipped\n", argv[i]);
        total += counts[i];
    }
    recs = malloc((size_t)(total ? total : 1) * sizeof *recs);
    tables = calloc((size_t)(total ? total : 1), sizeof *tables);
    if (!recs || !tables) {
        rc = lf_cli_fail(lf_set_error(LF_ENOMEM, "out of memory"));
        goto done;
    }
    for (int i = 0, k = 0; i < n_files; i++)
        for (int64_t j = 0; j < counts[i]; j++)
            recs[k++] = &files[i][j];
    /* qsort is not stable: equal cells keep file order through the index. */
    for (int64_t i = 0; i < total; i++)
        recs[i]->cell = recs[i]->cell * (total + 1) + i;
    qsort(recs, (size_t)total, sizeof *recs, lf__by_cell);
    for (int64_t i = 0; i < total; i++)
        recs[i]->cell /= total + 1;
    for (int64_t i = 0; i < total; i++) {
        int seen = 0;
        for (int64_t j = 0; j < i && !seen; j++)
            seen = lf__same_table(recs[j], recs[i]);
        if (seen)
            continue;
        int ok = lf__build(&tables[n_tables], recs, total, recs[i]);
        if (ok < 0) {
            rc = lf_cli_fail(lf_set_error(LF_ENOMEM, "out of memory"));
            n_tables++;
            goto done;
        }
        if (ok)
            n_tables++;
        else {
            incomplete++;
            free(tables[n_tables].seeds);
            lf_cmp_table_free(&tables[n_tables]);
            memset(&tables[n_tables], 0, sizeof tables[n_tables]);
        }
    }
    if (n_tables == 0) {
        rc = lf_cli_fail(lf_set_error(LF_EINVAL, "%s: no complete table to report", argv[0]));
        goto done;
    }
    if ((st = lf_cmp_emit(&o, tables, n_tables)) != LF_OK)
        rc = lf_cli_fail(st);
    else
        rc = incomplete ? LF_EXIT_FAIL : LF_EXIT_OK;
done:
    for (int32_t i = 0; tables && i < n_tables; i++) {
        free(tables[i].seeds);
        lf_cmp_table_free(&tables[i]);
    }
    free(tables);
    free(recs);
    for (int i = 0; files && i < n_files; i++)
        lf_sweep_records_free(files[i], counts[i]);
    free(files);
    free(counts);
    return rc;
}

/* sweep-report's tables: records of every file sorted by cell (file order
 * kept among equal cells), one compare table per (network, scheme, buffer,
 * budget, k, population), each cell of a table taken once. */
#include "search/sweep/report.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void lf__notice(lf_sweep_report_notice_fn notice, void *user, const char *fmt, ...)
{
    if (!notice)
        return;
    char msg[LF_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    notice(user, msg);
}

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

/* One seed of one row from its cell's record. */
static void lf__fill(lf_cmp_table *t, lf_cmp_row *row, int32_t s, const lf_sweep_record *c)
{
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

/* Fills table t from the records of the table that record `first` opens.
 * Returns 1 when complete, 0 (after a notice) when not, -1 when out of
 * memory. */
static int lf__build(lf_cmp_table *t, lf_sweep_record **recs, int64_t n, const lf_sweep_record *first,
                     lf_sweep_report_notice_fn notice, void *user)
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
                lf__notice(notice, user, "%s %s %" PRId64 " KB budget %" PRId64
                                         ": table left out: %s + %s seed %" PRIu64 " %s%s",
                           t->model, t->scheme, t->beta / 1024, t->budget, searches[r], proposers[r],
                           seeds[s], c ? "failed: " : "is missing", c ? c->error : "");
                return 0;
            }
            lf__fill(t, row, s, c);
        }
    }
    return 1;
}

/* The records of every file, sorted by cell; equal cells keep file order. */
static lf_sweep_record **lf__sorted(lf_sweep_report *r, int64_t *total)
{
    *total = 0;
    for (int32_t i = 0; i < r->n_files; i++)
        *total += r->counts[i];
    int64_t n = *total;
    lf_sweep_record **recs = malloc((size_t)(n ? n : 1) * sizeof *recs);
    if (!recs)
        return NULL;
    for (int32_t i = 0, k = 0; i < r->n_files; i++)
        for (int64_t j = 0; j < r->counts[i]; j++)
            recs[k++] = &r->files[i][j];
    /* qsort is not stable: equal cells keep file order through the index. */
    for (int64_t i = 0; i < n; i++)
        recs[i]->cell = recs[i]->cell * (n + 1) + i;
    qsort(recs, (size_t)n, sizeof *recs, lf__by_cell);
    for (int64_t i = 0; i < n; i++)
        recs[i]->cell /= n + 1;
    return recs;
}

lf_status lf_sweep_report_build(lf_sweep_report *r, const char *const *paths, int32_t n,
                                lf_sweep_report_notice_fn notice, void *user)
{
    memset(r, 0, sizeof *r);
    r->files = calloc((size_t)(n > 0 ? n : 1), sizeof *r->files);
    r->counts = calloc((size_t)(n > 0 ? n : 1), sizeof *r->counts);
    if (!r->files || !r->counts)
        return lf_set_error(LF_ENOMEM, "out of memory");
    r->n_files = n;
    lf_status st;
    for (int32_t i = 0; i < n; i++) {
        int64_t truncated = 0;
        if ((st = lf_sweep_records_load(paths[i], &r->files[i], &r->counts[i], &truncated)) != LF_OK)
            return st;
        if (truncated)
            lf__notice(notice, user, "%s: the last line is truncated (a killed run; `sweep --resume` "
                                     "redoes it); skipped", paths[i]);
    }
    int64_t total;
    lf_sweep_record **recs = lf__sorted(r, &total);
    r->tables = calloc((size_t)(total ? total : 1), sizeof *r->tables);
    if (!recs || !r->tables) {
        free(recs);
        return lf_set_error(LF_ENOMEM, "out of memory");
    }
    st = LF_OK;
    for (int64_t i = 0; i < total && st == LF_OK; i++) {
        int seen = 0;
        for (int64_t j = 0; j < i && !seen; j++)
            seen = lf__same_table(recs[j], recs[i]);
        if (seen)
            continue;
        lf_cmp_table *t = &r->tables[r->n_tables];
        int ok = lf__build(t, recs, total, recs[i], notice, user);
        if (ok > 0) {
            r->n_tables++;
            continue;
        }
        free(t->seeds);
        lf_cmp_table_free(t);
        memset(t, 0, sizeof *t);
        if (ok < 0)
            st = lf_set_error(LF_ENOMEM, "out of memory");
        else
            r->n_incomplete++;
    }
    free(recs);
    if (st == LF_OK && r->n_tables == 0)
        st = lf_set_error(LF_EINVAL, "%s: no complete table to report", n > 0 ? paths[0] : "(none)");
    return st;
}

void lf_sweep_report_destroy(lf_sweep_report *r)
{
    for (int32_t i = 0; r->tables && i < r->n_tables; i++) {
        free(r->tables[i].seeds);
        lf_cmp_table_free(&r->tables[i]);
    }
    free(r->tables);
    for (int32_t i = 0; r->files && i < r->n_files; i++)
        lf_sweep_records_free(r->files[i], r->counts[i]);
    free(r->files);
    free(r->counts);
    memset(r, 0, sizeof *r);
}

/* A sweep under MPI (mpirun -np N fusionplan sweep --mpi ...).
 *
 * Rank 0 reads the results file (resume), orders the cells still to do by
 * their estimated cost, largest first, and hands them out one at a time to
 * whichever rank asks: the other ranks, and a computing thread of its own
 * (so -np N computes N cells at once; the hand-out itself only polls, with
 * a millisecond sleep between polls, instead of spinning in MPI). Lines come
 * back to rank 0, which appends them in cell order as soon as every earlier
 * cell is in, so the file has the same lines in the same order as
 * lf_sweep_run writes; only the wall times differ. A cell that fails is a
 * line with its error, like any other; only a failure to produce a line at
 * all (out of memory) or to write the file stops the hand-out, after which
 * the ranks still finish the cells they hold and are told to stop.
 *
 * Messages: a rank sends a header {cell, length, status, cell failed} (cell -1: the first
 * request) followed, for a result, by the line; rank 0 answers with the next
 * cell or -1 (stop). Only rank 0's main thread calls MPI (MPI_THREAD_FUNNELED). */
#include <inttypes.h>
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "planner/util/mutex.h"
#include "search/sweep/sweep_internal.h"

enum { LF__TAG_HDR = 1, LF__TAG_LINE = 2, LF__TAG_WORK = 3 };

int lf_sweep_mpi_built(void)
{
    return 1;
}

/* State shared by rank 0's dispatcher and its computing thread. */
typedef struct lf__master {
    const lf_sweep_grid *g;
    lf_mutex mu;
    int64_t *order, n_order, next;  /* cells to do, largest first; next to hand out */
    char **lines;                   /* per cell, once in */
    int64_t *arrived, n_arrived;    /* cells in, in arrival order (for progress) */
    int64_t n_failed;               /* lines that carry a cell's error */
    int journal;                    /* FILE.pending: every line as it comes in (-1: none) */
    const char *path;
    int stop;                       /* hand out nothing more */
    int local_done;
    lf_status st;                   /* first fatal error */
    char error[512];
} lf__master;

typedef struct lf__cost {
    int64_t cell;
    double cost;
} lf__cost;

static int lf__by_cost(const void *a, const void *b)
{
    const lf__cost *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    return x->cell < y->cell ? -1 : x->cell > y->cell;
}

/* Next cell to hand out, or -1. */
static int64_t lf__take(lf__master *m)
{
    lf_mutex_lock(&m->mu);
    int64_t c = !m->stop && m->next < m->n_order ? m->order[m->next++] : -1;
    lf_mutex_unlock(&m->mu);
    return c;
}

static void lf__fatal(lf__master *m, lf_status st, const char *msg)
{
    if (m->st == LF_OK) {
        m->st = st;
        snprintf(m->error, sizeof m->error, "%s", msg);
    }
    m->stop = 1;
}

/* Stores a line that came in (takes ownership) and journals it: it may wait
 * long for an earlier cell, and a kill must not lose it. */
static void lf__store(lf__master *m, int64_t cell, char *line, int failed)
{
    lf_mutex_lock(&m->mu);
    m->n_failed += failed != 0;
    m->lines[cell] = line;
    m->arrived[m->n_arrived++] = cell;
    if (m->journal >= 0 && m->st == LF_OK) {
        lf_status st = lf_sweep_results_append(m->journal, m->path, line);
        if (st != LF_OK)
            lf__fatal(m, st, lf_last_error());
    }
    lf_mutex_unlock(&m->mu);
}

static void *lf__local(void *arg)
{
    lf__master *m = arg;
    lf_sweep_runner *r = NULL;
    lf_status st = lf_sweep_runner_create(&r, m->g);
    for (int64_t c; st == LF_OK && (c = lf__take(m)) >= 0;) {
        char *line = NULL;
        int failed = 0;
        if ((st = lf_sweep_run_cell(r, c, &line, &failed)) == LF_OK)
            lf__store(m, c, line, failed);
    }
    lf_mutex_lock(&m->mu);
    if (st != LF_OK)
        lf__fatal(m, st, lf_last_error());
    m->local_done = 1;
    lf_mutex_unlock(&m->mu);
    lf_sweep_runner_free(r);
    return NULL;
}

/* Appends every line whose predecessors are all in; reports progress. */
static void lf__flush(lf__master *m, const lf_sweep_options *o, int fd, const uint8_t *done,
                      int64_t *write_pos, int64_t *reported, int64_t todo)
{
    int64_t n = lf_sweep_n_cells(m->g);
    lf_mutex_lock(&m->mu);
    while (*reported < m->n_arrived) {
        int64_t c = m->arrived[(*reported)++];
        const char *line = m->lines[c];
        lf_mutex_unlock(&m->mu);
        lf__sweep_report_progress(o, m->g, c, line, *reported, todo);
        lf_mutex_lock(&m->mu);
    }
    while (*write_pos < n && (done[*write_pos] || m->lines[*write_pos])) {
        char *line = m->lines[*write_pos];
        if (line && m->st == LF_OK) {
            lf_status st = lf_sweep_results_append(fd, o->path, line);
            if (st != LF_OK)
                lf__fatal(m, st, lf_last_error());
        }
        free(line);
        m->lines[*write_pos] = NULL;
        (*write_pos)++;
    }
    lf_mutex_unlock(&m->mu);
}

static void lf__send_cell(int64_t cell, int dest)
{
    MPI_Send(&cell, 1, MPI_INT64_T, dest, LF__TAG_WORK, MPI_COMM_WORLD);
}

static lf_status lf__master_run(const lf_sweep_grid *g, const lf_sweep_options *o, int size)
{
    int64_t n = lf_sweep_n_cells(g);
    lf__master m;
    memset(&m, 0, sizeof m);
    m.g = g;
    m.journal = -1;
    m.path = o->path;
    /* A default mutex cannot fail to initialise on the platforms MPI runs
     * on, and failing here would leave the other ranks waiting. */
    (void)lf_mutex_init(&m.mu, "the MPI sweep's dispatcher");
    uint8_t *done = calloc((size_t)(n ? n : 1), 1);
    m.order = malloc((size_t)(n ? n : 1) * sizeof *m.order);
    m.lines = calloc((size_t)(n ? n : 1), sizeof *m.lines);
    m.arrived = malloc((size_t)(n ? n : 1) * sizeof *m.arrived);
    lf__cost *costs = malloc((size_t)(n ? n : 1) * sizeof *costs);
    int fd = -1;
    lf_status st = LF_OK;
    if (!done || !m.order || !m.lines || !m.arrived || !costs)
        st = lf_set_error(LF_ENOMEM, "out of memory");
    if (st == LF_OK)
        st = lf_sweep_results_open(g, o->path, o->resume ? LF_SWEEP_RESUME : LF_SWEEP_FRESH, done, &fd);
    /* Lines an earlier run finished but could not write yet are not redone. */
    int64_t loaded = 0;
    if (st == LF_OK && o->resume)
        st = lf_sweep_journal_load(g, o->path, done, m.lines, &loaded);
    if (st == LF_OK)
        st = lf_sweep_journal_open(o->path, o->resume, &m.journal);
    lf_sweep_runner *est = NULL;
    if (st == LF_OK && (st = lf_sweep_runner_create(&est, g)) == LF_OK) {
        for (int64_t i = 0; i < n; i++)
            if (!done[i] && !m.lines[i])
                costs[m.n_order++] = (lf__cost){i, lf_sweep_cell_cost(est, i)};
        qsort(costs, (size_t)m.n_order, sizeof *costs, lf__by_cost);
        for (int64_t i = 0; i < m.n_order; i++)
            m.order[i] = costs[i].cell;
        lf_sweep_runner_free(est);
    }
    if (st != LF_OK)
        lf__fatal(&m, st, lf_last_error());
    pthread_t th;
    int have_thread = st == LF_OK && pthread_create(&th, NULL, lf__local, &m) == 0;
    if (!have_thread) {
        m.local_done = 1;
        if (st == LF_OK && size == 1)
            lf__fatal(&m, LF_ENOMEM, "sweep: cannot start a computing thread on rank 0");
    }
    int active = size - 1;
    int64_t write_pos = 0, reported = 0;
    for (;;) {
        int flag = 0;
        MPI_Status ms;
        MPI_Iprobe(MPI_ANY_SOURCE, LF__TAG_HDR, MPI_COMM_WORLD, &flag, &ms);
        if (flag) {
            int64_t hdr[4];
            MPI_Recv(hdr, 4, MPI_INT64_T, ms.MPI_SOURCE, LF__TAG_HDR, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (hdr[0] >= 0) {
                char *line = malloc((size_t)hdr[1] + 1);
                MPI_Recv(line ? line : (char[1]){0}, line ? (int)hdr[1] : 0, MPI_CHAR, ms.MPI_SOURCE,
                         LF__TAG_LINE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                lf_mutex_lock(&m.mu);
                if (!line)
                    lf__fatal(&m, LF_ENOMEM, "out of memory receiving a sweep line");
                else if (hdr[2] != 0) {
                    line[hdr[1]] = '\0';
                    lf__fatal(&m, (lf_status)hdr[2], line);
                    free(line);
                    line = NULL;
                }
                lf_mutex_unlock(&m.mu);
                if (line) {
                    line[hdr[1]] = '\0';
                    lf__store(&m, hdr[0], line, (int)hdr[3]);
                }
            }
            int64_t next = lf__take(&m);
            lf__send_cell(next, ms.MPI_SOURCE);
            active -= next < 0;
            continue;
        }
        lf__flush(&m, o, fd, done, &write_pos, &reported, m.n_order);
        lf_mutex_lock(&m.mu);
        int local_done = m.local_done;
        lf_mutex_unlock(&m.mu);
        if (active == 0 && local_done)
            break;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    if (have_thread)
        pthread_join(th, NULL);
    lf__flush(&m, o, fd, done, &write_pos, &reported, m.n_order);
    for (int64_t i = 0; i < n; i++)
        free(m.lines[i]);
    if (fd >= 0 && close(fd) != 0 && m.st == LF_OK)
        lf__fatal(&m, LF_EIO, "close failed");
    if (m.journal >= 0)
        close(m.journal);
    if (m.st == LF_OK && write_pos == n)
        lf_sweep_journal_remove(o->path); /* every line is in the results file */
    if (o->n_failed)
        *o->n_failed = m.n_failed;
    st = m.st;
    if (st != LF_OK)
        lf_set_error(st, "%s", m.error);
    lf_mutex_destroy(&m.mu);
    free(done);
    free(m.order);
    free(m.lines);
    free(m.arrived);
    free(costs);
    return st;
}

static lf_status lf__worker_run(const lf_sweep_grid *g)
{
    lf_sweep_runner *r = NULL;
    lf_status st = lf_sweep_runner_create(&r, g);
    int64_t hdr[4] = {-1, 0, 0, 0};
    MPI_Send(hdr, 4, MPI_INT64_T, 0, LF__TAG_HDR, MPI_COMM_WORLD);
    for (;;) {
        int64_t cell;
        MPI_Recv(&cell, 1, MPI_INT64_T, 0, LF__TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (cell < 0)
            break;
        char *line = NULL;
        int failed = 0;
        lf_status cs = r ? lf_sweep_run_cell(r, cell, &line, &failed) : st;
        const char *text = cs == LF_OK ? line : lf_last_error();
        int64_t out[4] = {cell, (int64_t)strlen(text), cs, failed};
        MPI_Send(out, 4, MPI_INT64_T, 0, LF__TAG_HDR, MPI_COMM_WORLD);
        MPI_Send(text, (int)out[1], MPI_CHAR, 0, LF__TAG_LINE, MPI_COMM_WORLD);
        free(line);
    }
    lf_sweep_runner_free(r);
    return LF_OK;
}

lf_status lf_sweep_run_mpi(const lf_sweep_grid *g, const lf_sweep_options *o, int *rank)
{
    int inited = 0, provided = 0, size = 1;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return lf_set_error(LF_EIO, "sweep: MPI_Init_thread failed");
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    lf_status st = *rank == 0 ? lf__master_run(g, o, size) : lf__worker_run(g);
    if (!inited)
        MPI_Finalize();
    return st;
}

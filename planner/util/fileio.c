#include "planner/util/fileio.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { LF__OUT_REPLACE, LF__OUT_THROUGH, LF__OUT_FD };

/* Distinguishes temporaries of one process (several outputs, several threads);
 * the pid distinguishes processes writing into the same folder. */
static atomic_uint lf__tmp_counter;

static char *lf__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* strerror, lower-cased for use inside a sentence ("no space left on device"). */
static const char *lf__reason(int err, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", strerror(err));
    if (buf[0] && isupper((unsigned char)buf[0]) && !isupper((unsigned char)buf[1]))
        buf[0] = (char)tolower((unsigned char)buf[0]);
    return buf;
}

static lf_status lf__write_error(const char *path, int err)
{
    char why[128];
    return lf_set_error(err == ENOMEM ? LF_ENOMEM : LF_EIO, "cannot write %s: %s", path,
                        lf__reason(err, why, sizeof why));
}

/* The folder part of a path ("." for a bare name). */
static char *lf__dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return lf__strdup(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

/* ---------------------------------------------------------------------- */
/* Where an output goes                                                    */

typedef struct lf__dest {
    char *target; /* malloc'd; symbolic links followed */
    int kind, fd, exists;
    struct stat st;
} lf__dest;

/* Names that mean an open descriptor: written to, never replaced (replacing
 * /dev/stdout's target would swap the file a shell redirected to). */
static int lf__fd_name(const char *path)
{
    if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0)
        return 1;
    if (strcmp(path, "/dev/stderr") == 0)
        return 2;
    const char *n = NULL;
    if (strncmp(path, "/dev/fd/", 8) == 0)
        n = path + 8;
    else if (strncmp(path, "/proc/self/fd/", 14) == 0)
        n = path + 14;
    if (!n || !*n)
        return -1;
    char *end;
    long fd = strtol(n, &end, 10);
    return *end == '\0' && fd >= 0 && fd < INT_MAX ? (int)fd : -1;
}

static lf_status lf__resolve(const char *path, lf__dest *d)
{
    char why[128];
    memset(d, 0, sizeof *d);
    if (!path || !path[0])
        return lf_set_error(LF_EINVAL, "cannot write a file with an empty name");
    int fd = lf__fd_name(path);
    if (fd >= 0) {
        if (fcntl(fd, F_GETFL) < 0)
            return lf_set_error(LF_EIO, "cannot write %s: descriptor %d is not open", path, fd);
        d->kind = LF__OUT_FD;
        d->fd = fd;
        return (d->target = lf__strdup(path)) ? LF_OK : lf__write_error(path, ENOMEM);
    }

    /* Follow symbolic links to the file they name (40 hops, as the kernel). */
    char *cur = lf__strdup(path);
    if (!cur)
        return lf__write_error(path, ENOMEM);
    for (int hop = 0;; hop++) {
        if (lstat(cur, &d->st) != 0) {
            if (errno != ENOENT) {
                int err = errno;
                free(cur);
                return lf__write_error(path, err);
            }
            break; /* a new file (or a dangling link's target, created like `>` does) */
        }
        if (!S_ISLNK(d->st.st_mode)) {
            d->exists = 1;
            break;
        }
        if (hop == 40) {
            free(cur);
            return lf__write_error(path, ELOOP);
        }
        char link[PATH_MAX];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) {
            int err = errno;
            free(cur);
            return lf__write_error(path, err);
        }
        link[n] = '\0';
        char *next;
        if (link[0] == '/') {
            next = lf__strdup(link);
        } else {
            char *dir = lf__dirname(cur);
            next = dir ? malloc(strlen(dir) + strlen(link) + 2) : NULL;
            if (next)
                sprintf(next, "%s/%s", dir, link);
            free(dir);
        }
        free(cur);
        if (!(cur = next))
            return lf__write_error(path, ENOMEM);
    }
    d->target = cur;

    if (d->exists && S_ISDIR(d->st.st_mode)) {
        return lf_set_error(LF_EIO, "cannot write %s: it is a folder", path);
    } else if (d->exists && !S_ISREG(d->st.st_mode)) {
        d->kind = LF__OUT_THROUGH; /* device, FIFO, socket: write into it */
        if (access(cur, W_OK) != 0)
            return lf__write_error(path, errno);
        return LF_OK;
    }
    d->kind = LF__OUT_REPLACE;
    char *dir = lf__dirname(cur);
    if (!dir)
        return lf__write_error(path, ENOMEM);
    struct stat ds;
    lf_status st = LF_OK;
    if (stat(dir, &ds) != 0)
        st = errno == ENOENT
                 ? lf_set_error(LF_EIO, "cannot write %s: folder %s does not exist", path, dir)
                 : lf_set_error(LF_EIO, "cannot write %s: folder %s: %s", path, dir,
                                lf__reason(errno, why, sizeof why));
    else if (!S_ISDIR(ds.st_mode))
        st = lf_set_error(LF_EIO, "cannot write %s: %s is not a folder", path, dir);
    else if (access(dir, W_OK | X_OK) != 0)
        st = lf_set_error(LF_EIO, "cannot write %s: folder %s: %s", path, dir,
                          lf__reason(errno, why, sizeof why));
    else if (d->exists && access(cur, W_OK) != 0)
        st = lf__write_error(path, errno);
    free(dir);
    return st;
}

lf_status lf_output_check(const char *path)
{
    lf__dest d;
    lf_status st = lf__resolve(path, &d);
    free(d.target);
    return st;
}

/* ---------------------------------------------------------------------- */
/* Writing                                                                 */

static int lf__write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (w == 0)
            return EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Removes "BASE.tmp.PID.N" files in the target's folder whose process no
 * longer exists: what a run killed before its rename left behind. */
static void lf__remove_stale(const char *target)
{
    char *dir = lf__dirname(target);
    const char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    DIR *dp = dir ? opendir(dir) : NULL;
    size_t bl = strlen(base);
    if (!dp) {
        free(dir);
        return;
    }
    for (struct dirent *e; (e = readdir(dp)) != NULL;) {
        if (strncmp(e->d_name, base, bl) != 0 || strncmp(e->d_name + bl, ".tmp.", 5) != 0)
            continue;
        char *end;
        long pid = strtol(e->d_name + bl + 5, &end, 10);
        if (*end != '.' || pid <= 0 || pid == (long)getpid())
            continue;
        const char *n = end + 1;
        if (!*n || strspn(n, "0123456789") != strlen(n))
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive, or not ours to judge */
        char *full = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (!full)
            break;
        sprintf(full, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(full, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
            unlink(full);
        free(full);
    }
    closedir(dp);
    free(dir);
}

/* Writes buf into a new temporary next to the target, with the replaced
 * file's mode, synced; *tmp_out gets its name. */
static lf_status lf__stage_replace(const lf_atomic_file *af, char **tmp_out)
{
    *tmp_out = NULL;
    lf__remove_stale(af->target);
    size_t cap = strlen(af->target) + 64;
    char *tmp = malloc(cap);
    if (!tmp)
        return lf__write_error(af->final_path, ENOMEM);
    /* O_EXCL: a clash with a concurrent temporary tries the next counter. */
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        unsigned n = atomic_fetch_add(&lf__tmp_counter, 1u);
        snprintf(tmp, cap, "%s.tmp.%ld.%u", af->target, (long)getpid(), n);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int err = errno;
        free(tmp);
        return lf__write_error(af->final_path, err);
    }
    int err = 0;
    if (af->keep_mode) {
        /* A replaced file keeps its permissions, and (when we may) owner. */
        if (fchmod(fd, af->mode & 07777) != 0)
            err = errno;
        if (!err && (af->uid != geteuid() || af->gid != getegid()) && fchown(fd, af->uid, af->gid) != 0)
            (void)0; /* not permitted for other users: the mode still holds */
    }
    if (!err)
        err = lf__write_all(fd, af->buf, af->len);
    /* fsync so that a crash after the rename cannot expose an empty file. */
    if (!err && fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP)
        err = errno;
    if (close(fd) != 0 && !err && errno != EINTR)
        err = errno;
    if (err) {
        unlink(tmp);
        free(tmp);
        return lf__write_error(af->final_path, err);
    }
    *tmp_out = tmp;
    return LF_OK;
}

static lf_status lf__write_through(const lf_atomic_file *af)
{
    int err;
    if (af->kind == LF__OUT_FD) {
        fflush(af->fd == 1 ? stdout : af->fd == 2 ? stderr : NULL);
        err = lf__write_all(af->fd, af->buf, af->len);
    } else {
        int fd = open(af->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
            return lf__write_error(af->final_path, errno);
        err = lf__write_all(fd, af->buf, af->len);
        if (close(fd) != 0 && !err && errno != EINTR)
            err = errno;
    }
    return err ? lf__write_error(af->final_path, err) : LF_OK;
}

static void lf__clear(lf_atomic_file *af)
{
    free(af->final_path);
    free(af->target);
    free(af->buf);
    memset(af, 0, sizeof *af);
}

lf_status lf_atomic_open(lf_atomic_file *af, const char *path)
{
    memset(af, 0, sizeof *af);
    lf__dest d;
    lf_status st = lf__resolve(path, &d);
    if (st != LF_OK) {
        free(d.target);
        return st;
    }
    af->target = d.target;
    af->kind = d.kind;
    af->fd = d.fd;
    if (d.exists && d.kind == LF__OUT_REPLACE) {
        af->keep_mode = 1;
        af->mode = d.st.st_mode;
        af->uid = d.st.st_uid;
        af->gid = d.st.st_gid;
    }
    af->final_path = lf__strdup(path);
    af->f = af->final_path ? open_memstream(&af->buf, &af->len) : NULL;
    if (!af->f) {
        lf__clear(af);
        return lf__write_error(path, ENOMEM);
    }
    return LF_OK;
}

/* ---------------------------------------------------------------------- */
/* Batches                                                                 */

typedef struct lf__staged {
    lf_atomic_file af; /* buffer and destination */
    char *tmp;         /* for LF__OUT_REPLACE: written and synced, not renamed */
} lf__staged;

static _Thread_local struct {
    int active, n, cap;
    lf__staged *items;
} lf__batch;

void lf_output_batch_begin(void)
{
    lf_output_batch_abort();
    lf__batch.active = 1;
}

static void lf__batch_end(void)
{
    for (int i = 0; i < lf__batch.n; i++) {
        if (lf__batch.items[i].tmp) {
            unlink(lf__batch.items[i].tmp);
            free(lf__batch.items[i].tmp);
        }
        lf__clear(&lf__batch.items[i].af);
    }
    free(lf__batch.items);
    memset(&lf__batch, 0, sizeof lf__batch);
}

void lf_output_batch_abort(void) { lf__batch_end(); }

lf_status lf_output_batch_commit(void)
{
    lf_status st = LF_OK;
    /* Written-through outputs first: they cannot be taken back, and a failure
     * there (a full /dev/full, a closed pipe) must still stop the renames. */
    for (int i = 0; i < lf__batch.n && st == LF_OK; i++)
        if (lf__batch.items[i].af.kind != LF__OUT_REPLACE)
            st = lf__write_through(&lf__batch.items[i].af);
    for (int i = 0; i < lf__batch.n && st == LF_OK; i++) {
        lf__staged *s = &lf__batch.items[i];
        if (s->af.kind != LF__OUT_REPLACE)
            continue;
        if (rename(s->tmp, s->af.target) != 0)
            st = lf__write_error(s->af.final_path, errno);
        else {
            free(s->tmp);
            s->tmp = NULL;
        }
    }
    lf__batch_end(); /* removes the temporaries not renamed */
    return st;
}

/* ---------------------------------------------------------------------- */

lf_status lf_atomic_commit(lf_atomic_file *af)
{
    if (!af->f || !af->final_path)
        return lf_set_error(LF_EINVAL, "commit of a file that is not open");
    /* fclose fixes buf and len; a memory stream fails only for memory. */
    int bad = ferror(af->f) != 0;
    if (fclose(af->f) != 0 || bad || !af->buf) {
        af->f = NULL;
        lf_status st = lf__write_error(af->final_path, ENOMEM);
        lf__clear(af);
        return st;
    }
    af->f = NULL;

    char *tmp = NULL;
    lf_status st = af->kind == LF__OUT_REPLACE ? lf__stage_replace(af, &tmp) : LF_OK;
    if (st == LF_OK && lf__batch.active) {
        if (lf__batch.n == lf__batch.cap) {
            int cap = lf__batch.cap ? 2 * lf__batch.cap : 8;
            lf__staged *p = realloc(lf__batch.items, sizeof *p * (size_t)cap);
            if (!p) {
                if (tmp)
                    unlink(tmp);
                free(tmp);
                st = lf__write_error(af->final_path, ENOMEM);
                lf__clear(af);
                return st;
            }
            lf__batch.items = p;
            lf__batch.cap = cap;
        }
        lf__batch.items[lf__batch.n].af = *af; /* the batch owns the buffers now */
        lf__batch.items[lf__batch.n].tmp = tmp;
        lf__batch.n++;
        memset(af, 0, sizeof *af);
        return LF_OK;
    }
    if (st == LF_OK) {
        if (af->kind == LF__OUT_REPLACE) {
            if (rename(tmp, af->target) != 0) {
                st = lf__write_error(af->final_path, errno);
                unlink(tmp);
            }
        } else {
            st = lf__write_through(af);
        }
    }
    free(tmp);
    lf__clear(af);
    return st;
}

void lf_atomic_abort(lf_atomic_file *af)
{
    if (af->f)
        fclose(af->f);
    af->f = NULL;
    lf__clear(af);
}

lf_status lf_atomic_write(const char *path, lf_atomic_writer write, const void *user)
{
    lf_atomic_file af;
    lf_status st = lf_atomic_open(&af, path);
    if (st)
        return st;
    if ((st = write(af.f, user))) {
        lf_atomic_abort(&af);
        return st;
    }
    return lf_atomic_commit(&af);
}

/* ---------------------------------------------------------------------- */
/* Reading                                                                 */

static lf_status lf__read(const char *path, int64_t max, const char *what, lf_read_probe probe, char **data,
                          long *len)
{
    char why[128];
    *data = NULL;
    if (len)
        *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return lf_set_error(LF_EIO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return lf_set_error(LF_EIO, "%s: is a folder, not a file", path);
    }
    if (max >= 0 && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > max) {
        fclose(f);
        return lf_set_error(LF_ERANGE, "%s: %lld bytes, larger than the %lld MiB a %s may have", path,
                            (long long)st.st_size, (long long)(max >> 20), what);
    }

    /* Read in growing chunks rather than trusting the size, so pipes and
     * /dev/stdin work; with a cap, at most max + 1 bytes are ever read. A
     * pipe or device's first chunk goes to the probe, so an endless stream
     * of the wrong kind is refused after one chunk, not at the cap. */
    int probed = !probe || (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return lf_set_error(LF_ENOMEM, "out of memory reading %s", path);
    }
    for (;;) {
        if (max >= 0 && (int64_t)n > max) {
            free(buf);
            fclose(f);
            return lf_set_error(LF_ERANGE, "%s: larger than the %lld MiB a %s may have", path,
                                (long long)(max >> 20), what);
        }
        if (cap - n < 2) {
            if (cap > (size_t)LONG_MAX / 2) {
                free(buf);
                fclose(f);
                return lf_set_error(LF_ERANGE, "%s: file is too large", path);
            }
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                fclose(f);
                return lf_set_error(LF_ENOMEM, "out of memory reading %s", path);
            }
            buf = bigger;
            cap *= 2;
        }
        size_t want = cap - n - 1; /* keep room for the NUL */
        if (max >= 0 && (int64_t)want > max + 1 - (int64_t)n)
            want = (size_t)(max + 1 - (int64_t)n);
        size_t got = fread(buf + n, 1, want, f);
        n += got;
        if (!probed && (got < want || n >= (size_t)1 << 15)) {
            probed = 1;
            lf_status pst = probe(buf, n, path, what);
            if (pst != LF_OK) {
                free(buf);
                fclose(f);
                return pst;
            }
        }
        if (got == 0) {
            if (ferror(f)) {
                int err = errno ? errno : EIO;
                free(buf);
                fclose(f);
                return lf_set_error(LF_EIO, "%s: %s", path, lf__reason(err, why, sizeof why));
            }
            break; /* end of file */
        }
    }
    fclose(f);
    buf[n] = '\0';
    *data = buf;
    if (len)
        *len = (long)n;
    return LF_OK;
}

lf_status lf_read_file(const char *path, char **data, long *len)
{
    return lf__read(path, -1, "file", NULL, data, len);
}

lf_status lf_read_file_capped(const char *path, int64_t max_bytes, const char *what, char **data,
                              long *len)
{
    return lf__read(path, max_bytes < 0 ? 0 : max_bytes, what ? what : "file", NULL, data, len);
}

lf_status lf_read_file_probed(const char *path, int64_t max_bytes, const char *what, lf_read_probe probe,
                              char **data, long *len)
{
    return lf__read(path, max_bytes < 0 ? 0 : max_bytes, what ? what : "file", probe, data, len);
}

lf_status lf_check_file_magic(const char *path, const void *magic, size_t n, const char *what)
{
    char why[128], head[64];
    if (n > sizeof head)
        n = sizeof head;
    struct stat st;
    if (stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        return LF_OK; /* reading would consume what the real read needs */
    FILE *f = fopen(path, "rb");
    if (!f)
        return lf_set_error(LF_EIO, "%s: %s", path, strerror(errno));
    size_t got = fread(head, 1, n, f);
    int err = ferror(f) ? errno : 0;
    fclose(f);
    if (err)
        return lf_set_error(LF_EIO, "%s: %s", path, lf__reason(err, why, sizeof why));
    if (got < n || memcmp(head, magic, n) != 0)
        return lf_set_error(LF_EPARSE, "%s: not a fusionplan %s (bad magic)", path, what);
    return LF_OK;
}

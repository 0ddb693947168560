/* Writing output files all or nothing, and reading input files with a cap.
 *
 * An output is written to memory first and goes to its destination only on
 * commit, so a failure while producing it leaves nothing behind:
 *  - a regular file (or a new one) is replaced atomically: the bytes go to a
 *    temporary file next to it ("FILE.tmp.PID.N"), which is synced and
 *    renamed over it; the replaced file's permission bits (and, for root,
 *    owner) are kept; hard links to the old file keep the old content;
 *  - a symbolic link is followed and its target replaced the same way;
 *  - a character device or FIFO (/dev/null, a named pipe) and "-" or
 *    /dev/stdout, /dev/stderr, /dev/fd/N are written through, never replaced;
 *  - a temporary left by a process that was killed before its rename is
 *    removed by the next write to the same destination.
 * Errors name the path as given and the reason ("no space left on device").
 *
 * A command that writes several files commits them together: between
 * lf_output_batch_begin and lf_output_batch_commit, lf_atomic_commit stages
 * each file (written and synced under its temporary name) and the batch
 * commit renames them all, or on any failure removes them all. */
#ifndef LF_FILEIO_H
#define LF_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "planner/status.h"

typedef struct lf_atomic_file {
    FILE *f;          /* write here (an in-memory stream) */
    char *final_path; /* the path as given */
    char *tmp_path;   /* unused since outputs are staged in memory; kept NULL */
    /* internal */
    char *buf;
    size_t len;
    char *target; /* symbolic links followed */
    int kind;     /* LF__OUT_REPLACE, _THROUGH or _FD */
    int fd;       /* for LF__OUT_FD */
    int keep_mode;
    mode_t mode;
    uid_t uid;
    gid_t gid;
} lf_atomic_file;

/* Checks that path can be written (its folder exists and is writable, it is
 * not a folder) without creating anything: commands call it for every
 * output before they start working. */
lf_status lf_output_check(const char *path);

lf_status lf_atomic_open(lf_atomic_file *af, const char *path);
/* Writes the content to its destination (or stages it inside a batch). */
lf_status lf_atomic_commit(lf_atomic_file *af);
/* Abandons the file; safe after a failed open or a commit, and twice. */
void lf_atomic_abort(lf_atomic_file *af);
/* Open, write (a failure of write abandons the file) and commit in one:
 * write fills f with user's content. */
typedef lf_status (*lf_atomic_writer)(FILE *f, const void *user);
lf_status lf_atomic_write(const char *path, lf_atomic_writer write, const void *user);

/* Output batches, per thread; see above. Commit and abort end the batch. */
void lf_output_batch_begin(void);
lf_status lf_output_batch_commit(void);
void lf_output_batch_abort(void);

/* Reads a whole file into a NUL-terminated malloc'd buffer, with no limit
 * on its size (for inputs whose readers need the whole file anyway). */
lf_status lf_read_file(const char *path, char **data, long *len);

/* The same, refusing a file larger than max_bytes before reading it (or,
 * for a pipe or device, as soon as more arrives): `what` names the kind of
 * file in the message ("GNN weight file"). */
lf_status lf_read_file_capped(const char *path, int64_t max_bytes, const char *what, char **data,
                              long *len);

/* The same for a file whose kind its first bytes show: when path is a pipe
 * or device, probe sees the first chunk read (up to 32 KiB, or all of a
 * shorter stream) and refuses it with an lf_set_error status, so an endless
 * stream of the wrong kind (/dev/zero) costs one chunk, not the cap. A
 * regular file is only size-checked (its readers report what is wrong). */
typedef lf_status (*lf_read_probe)(const char *head, size_t n, const char *path, const char *what);
lf_status lf_read_file_probed(const char *path, int64_t max_bytes, const char *what, lf_read_probe probe,
                              char **data, long *len);

/* Reads the first n bytes of path and compares them with magic: a file of
 * the wrong kind (or an endless device) is refused before a large capped
 * read. LF_EPARSE "PATH: not a WHAT" on a mismatch or a shorter file. */
lf_status lf_check_file_magic(const char *path, const void *magic, size_t n, const char *what);

#endif

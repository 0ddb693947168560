/* Writing output files atomically: content goes to a temporary file in the
 * same folder, which is renamed over the destination only once it is complete,
 * so a failure never leaves a half-written file behind. */
#ifndef LF_FILEIO_H
#define LF_FILEIO_H

#include <stdio.h>

#include "planner/status.h"

typedef struct lf_atomic_file {
    FILE *f;          /* write here */
    char *final_path;
    char *tmp_path;
} lf_atomic_file;

lf_status lf_atomic_open(lf_atomic_file *af, const char *path);
/* Flushes, closes and renames; on any error removes the temporary file. */
lf_status lf_atomic_commit(lf_atomic_file *af);
/* Abandons the file (removes the temporary); safe after a failed open or a commit. */
void lf_atomic_abort(lf_atomic_file *af);

/* Reads a whole file into a NUL-terminated malloc'd buffer. */
lf_status lf_read_file(const char *path, char **data, long *len);

#endif

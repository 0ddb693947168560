#include "planner/util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void lf__atomic_clear(lf_atomic_file *af)
{
    free(af->final_path);
    free(af->tmp_path);
    af->f = NULL;
    af->final_path = NULL;
    af->tmp_path = NULL;
}

lf_status lf_atomic_open(lf_atomic_file *af, const char *path)
{
    af->f = NULL;
    af->final_path = NULL;
    af->tmp_path = NULL;
    if (!path || !path[0])
        return lf_set_error(LF_EINVAL, "cannot write a file with an empty name");

    af->final_path = lf__strdup(path);
    /* "<path>.tmp.<pid>.<counter>": two decimal numbers of at most 20 digits. */
    size_t cap = strlen(path) + 64;
    af->tmp_path = malloc(cap);
    if (!af->final_path || !af->tmp_path) {
        lf__atomic_clear(af);
        return lf_set_error(LF_ENOMEM, "out of memory opening %s", path);
    }

    /* The temporary sits next to the destination so that the final rename
     * stays within one file system and is atomic. O_EXCL makes a clash with a
     * leftover or concurrent temporary fail instead of sharing it; then the
     * next counter value is tried. open() rather than mkstemp() so that the
     * file gets the usual 0666 & ~umask permissions, not 0600. */
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        unsigned n = atomic_fetch_add(&lf__tmp_counter, 1u);
        snprintf(af->tmp_path, cap, "%s.tmp.%ld.%u", path, (long)getpid(), n);
        fd = open(af->tmp_path, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int err = errno;
        lf__atomic_clear(af);
        return lf_set_error(LF_EIO, "cannot write %s: %s", path, strerror(err));
    }
    af->f = fdopen(fd, "wb");
    if (!af->f) {
        int err = errno;
        close(fd);
        remove(af->tmp_path);
        lf__atomic_clear(af);
        return lf_set_error(LF_EIO, "cannot write %s: %s", path, strerror(err));
    }
    return LF_OK;
}

lf_status lf_atomic_commit(lf_atomic_file *af)
{
    if (!af->f || !af->tmp_path || !af->final_path)
        return lf_set_error(LF_EINVAL, "commit of a file that is not open");

    /* Write errors surface late with stdio (a full disk is reported by the
     * flush, or by an earlier fwrite that only set the error flag), so every
     * step is checked and the first errno kept. EIO stands in when the flag
     * was set by an earlier call whose errno is gone. */
    int err = 0;
    errno = 0;
    if (fflush(af->f) != 0 || ferror(af->f))
        err = errno ? errno : EIO;
    /* fsync so that a crash after the rename cannot expose an empty file under
     * the final name; EINVAL/ENOTSUP mean the file cannot be synced at all
     * (special files), which is no reason to fail. */
    if (!err && fsync(fileno(af->f)) != 0 && errno != EINVAL && errno != ENOTSUP)
        err = errno;
    errno = 0;
    if (fclose(af->f) != 0 && !err)
        err = errno ? errno : EIO;
    af->f = NULL;
    if (!err && rename(af->tmp_path, af->final_path) != 0)
        err = errno;

    if (err) {
        remove(af->tmp_path);
        lf_set_error(LF_EIO, "cannot write %s: %s", af->final_path, strerror(err));
        lf__atomic_clear(af);
        return LF_EIO;
    }
    lf__atomic_clear(af);
    return LF_OK;
}

void lf_atomic_abort(lf_atomic_file *af)
{
    if (af->f)
        fclose(af->f);
    if (af->tmp_path)
        remove(af->tmp_path);
    lf__atomic_clear(af);
}

lf_status lf_read_file(const char *path, char **data, long *len)
{
    *data = NULL;
    if (len)
        *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return lf_set_error(LF_EIO, "%s: %s", path, strerror(errno));

    /* Read in growing chunks rather than trusting fseek/ftell, so pipes and
     * /dev/stdin work and a file that grows while being read is not cut. */
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return lf_set_error(LF_ENOMEM, "out of memory reading %s", path);
    }
    for (;;) {
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
        size_t got = fread(buf + n, 1, cap - n - 1, f); /* keep room for the NUL */
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                int err = errno ? errno : EIO;
                free(buf);
                fclose(f);
                return lf_set_error(LF_EIO, "%s: %s", path, strerror(err));
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

/* Opening and reading the importer's files from disk: model and tensor
 * files, and external data.
 *
 * Model and tensor files: a regular file's size is checked (fstat) before a
 * byte is read; a pipe or device is read with the cap, and its first 64 KiB
 * must look like protobuf (onnx_wire.c), so /dev/zero is refused after one
 * read rather than after 2 GiB.
 *
 * The model itself is mapped rather than read when it is a regular file
 * (lf__ox_map_capped): reading 100 MB cost more kernel time than parsing it,
 * and the read buffer was one more copy of every weight. The file stays open
 * while it is mapped: the weights themselves are read from it with pread
 * (onnx_weights.c), only the records around them through the map. The map is private
 * and read-only; the wire check (nesting, lengths) runs over it before
 * protobuf-c unpacks it, as over a read buffer. One risk the read did not
 * have: another process that truncates the file while it is being unpacked
 * makes the pages past the new end fault (SIGBUS), as in every runtime that
 * maps its models.
 *
 * External data (the class of onnx's CVE-2024-27318): the location is a
 * relative path without "..", and its real path (symbolic links resolved)
 * must lie inside the model folder's real path; only a regular file is
 * opened, non-blocking and without following a link swapped in since, so a
 * link to /etc/passwd, a linked folder, a FIFO (which would block forever)
 * or a device is refused before anything is read. */
#define _XOPEN_SOURCE 700 /* realpath */
#define _DEFAULT_SOURCE   /* madvise */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "planner/io/onnx_proto.h"

#define LF__PROBE_BYTES ((size_t)64 << 10)

static const char *lf__kind(mode_t m)
{
    return S_ISDIR(m) ? "a folder" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : S_ISLNK(m) ? "a symbolic link"
         : "not a regular file";
}

/* Fills buf[*n, want) from fd; stops early only at end of file. */
static int lf__fill(int fd, uint8_t *buf, size_t *n, size_t want)
{
    while (*n < want) {
        ssize_t got = read(fd, buf + *n, want - *n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        if (got == 0)
            return 0;
        *n += (size_t)got;
    }
    return 0;
}

lf_status lf__ox_read_capped(const char *path, int64_t cap, const ProtobufCMessageDescriptor *desc,
                             const char *what, uint8_t **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return lf_set_error(LF_EIO, "%s: %s", path, strerror(errno));
    struct stat sb;
    int bad = fstat(fd, &sb) != 0 ? errno : S_ISDIR(sb.st_mode) ? EISDIR : 0;
    if (bad) {
        close(fd);
        return lf_set_error(LF_EIO, "%s: %s", path, bad == EISDIR ? "is a directory" : strerror(bad));
    }
    int regular = S_ISREG(sb.st_mode);
    if (regular && sb.st_size > cap) {
        close(fd);
        return lf_set_error(LF_ERANGE, "%s: file of %lld bytes is larger than the limit of %lld bytes", path,
                            (long long)sb.st_size, (long long)cap);
    }
    /* A regular file is read in one buffer of its size (+1 to see it grow);
     * anything else in doubling chunks, never past cap + 1 bytes. */
    size_t size = regular ? (size_t)sb.st_size + 1 : LF__PROBE_BYTES, n = 0;
    uint8_t *buf = malloc(size);
    lf_status st = buf ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory reading %s", path);
    int probed = regular;
    while (st == LF_OK) {
        if (lf__fill(fd, buf, &n, size) != 0) {
            st = lf_set_error(LF_EIO, "%s: %s", path, strerror(errno));
            break;
        }
        if ((int64_t)n > cap) {
            st = lf_set_error(LF_ERANGE, "%s: file is larger than the limit of %lld bytes", path, (long long)cap);
            break;
        }
        if (!probed) {
            lf__ox_wire_info info;
            probed = 1;
            if (lf__ox_wire_scan(buf, n, (uint64_t)cap, desc, &info) != LF__OX_WIRE_OK) {
                st = lf_set_error(LF_EPARSE, "%s: not a valid %s (not protobuf data at byte %zu)", path, what,
                                  info.offset);
                break;
            }
        }
        if (n < size)
            break; /* end of file */
        size_t want = (int64_t)(2 * size) > cap ? (size_t)cap + 1 : 2 * size;
        uint8_t *bigger = realloc(buf, want);
        if (!bigger) {
            st = lf_set_error(LF_ENOMEM, "out of memory reading %s", path);
            break;
        }
        buf = bigger;
        size = want;
    }
    close(fd);
    if (st != LF_OK) {
        free(buf);
        return st;
    }
    *data = buf;
    *len = n;
    return LF_OK;
}

lf_status lf__ox_map_capped(const char *path, int64_t cap, const ProtobufCMessageDescriptor *desc,
                            const char *what, uint8_t **data, size_t *len, int *mapped, int *fd_out)
{
    *data = NULL;
    *len = 0;
    *mapped = 0;
    *fd_out = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return lf_set_error(LF_EIO, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        if (sb.st_size > cap) {
            close(fd);
            return lf_set_error(LF_ERANGE, "%s: file of %lld bytes is larger than the limit of %lld bytes",
                                path, (long long)sb.st_size, (long long)cap);
        }
        void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            /* No read-ahead hint: the map is read only around the records'
             * headers; the weights between them come by pread (onnx_weights.c). */
            *data = m;
            *len = (size_t)sb.st_size;
            *mapped = 1;
            *fd_out = fd;
            return LF_OK;
        }
        close(fd);
    } else {
        close(fd);
    }
    /* A pipe, a device, an empty file or a map the system refused: read it. */
    return lf__ox_read_capped(path, cap, desc, what, data, len);
}

void lf__ox_file_release(uint8_t *data, size_t len, int mapped, int fd)
{
    if (mapped && data)
        munmap(data, len);
    else
        free(data);
    if (fd >= 0)
        close(fd);
}

void lf__ox_file_drop_pages(const void *data, size_t len)
{
    /* A private read-only file map: the pages go back to the page cache and
     * would be read again from the file if touched. */
    if (!data || !len)
        return;
    /* Whole pages around the range: those it shares with its neighbours
     * are only read, so they come back from the file if touched again. */
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)data & ~(page - 1), hi = ((uintptr_t)data + len + page - 1) & ~(page - 1);
    madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* Refuses a location that is empty, absolute or has a ".." component. */
static int lf__plain_relative(const char *loc)
{
    if (!*loc || loc[0] == '/')
        return 0;
    for (const char *p = loc; *p;) {
        size_t k = strcspn(p, "/");
        if (k == 2 && p[0] == '.' && p[1] == '.')
            return 0;
        p += k;
        if (*p == '/')
            p++;
    }
    return 1;
}

lf_status lf__ox_open_external(const lf__ox_graph *g, const char *base_dir, const char *location,
                               const char *what, int *fd_out, int64_t *size)
{
    *fd_out = -1;
    if (!lf__plain_relative(location))
        return lf__ox_fail(g, -1, LF_EPARSE, "tensor '%s': external data location '%s' must be a relative path "
                           "inside the model's folder", what, location);
    char path[4096], root[PATH_MAX], real[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", base_dir, location) >= (int)sizeof path)
        return lf__ox_fail(g, -1, LF_EINVAL, "tensor '%s': external data path too long", what);
    if (!realpath(base_dir, root))
        return lf__ox_fail(g, -1, LF_EIO, "tensor '%s': the model's folder %s: %s", what, base_dir,
                           strerror(errno));
    if (!realpath(path, real))
        return lf__ox_fail(g, -1, LF_EIO, "tensor '%s': external data file %s: %s", what, path, strerror(errno));
    size_t rl = strlen(root);
    int inside = strcmp(root, "/") == 0 ? real[0] == '/' : strncmp(real, root, rl) == 0 && real[rl] == '/';
    if (!inside)
        return lf__ox_fail(g, -1, LF_EPARSE, "tensor '%s': external data location '%s' resolves outside the "
                           "model's folder (a symbolic link out of it)", what, location);
    struct stat sb;
    if (stat(real, &sb) != 0)
        return lf__ox_fail(g, -1, LF_EIO, "tensor '%s': external data file %s: %s", what, path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return lf__ox_fail(g, -1, LF_EPARSE, "tensor '%s': external data file %s is %s, not a regular file",
                           what, path, lf__kind(sb.st_mode));
    /* Non-blocking and not following links: what was checked above may have
     * been swapped for a FIFO or a link since; fstat decides. */
    int fd = open(real, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return lf__ox_fail(g, -1, LF_EIO, "tensor '%s': external data file %s: %s", what, path, strerror(errno));
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return lf__ox_fail(g, -1, LF_EPARSE, "tensor '%s': external data file %s is not a regular file", what,
                           path);
    }
    *fd_out = fd;
    *size = (int64_t)sb.st_size;
    return LF_OK;
}

void lf__ox_prefault(const void *data, size_t len, int write)
{
#if defined(MADV_POPULATE_READ) && defined(MADV_POPULATE_WRITE)
    /* The pages strictly inside the range (a malloc'd block shares its
     * first and last page with the heap's bookkeeping). A hint: older
     * kernels answer EINVAL and the copy faults the pages in itself. */
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)data + page - 1) & ~(page - 1), hi = ((uintptr_t)data + len) & ~(page - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
#else
    (void)data;
    (void)len;
    (void)write;
#endif
}

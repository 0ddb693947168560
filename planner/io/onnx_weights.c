/* Where a mapped model's weights go, and how they get there.
 *
 * Measured on the 2-core virtual machine (docs/results/import.md): copying
 * resnet50's 98 MB of weights out of the file map into malloc'd buffers cost
 * 0.3 s of CPU, nearly all of it in 4 KiB page faults (about 12 us each
 * there: 25,000 of the map's and 25,000 of the destination's), while the
 * copy itself takes 20 ms. Two changes remove them:
 *
 * - a constant of 2 MiB or more is allocated 2 MiB-aligned and its whole
 *   2 MiB blocks are hinted MADV_HUGEPAGE (transparent huge pages, "madvise"
 *   mode), so the kernel backs it with one fault per 2 MiB; the tail under
 *   2 MiB stays in small pages, so no page is resident past the data;
 * - the weights are read with pread from the model's file straight into
 *   that buffer: the kernel copies from its page cache without mapping a
 *   page of the file into the process.
 *
 * The buffer is still one malloc-family block that free() releases, so the
 * constants' ownership (the importer's, then the lowered graph's) is
 * unchanged. Both are hints: where huge pages are off or refused, the
 * kernel gives small pages and the result is the same bytes. */
#define _DEFAULT_SOURCE /* madvise */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "planner/io/onnx_internal.h"

#define LF__HUGE ((size_t)2 << 20) /* a PMD page on x86-64 and arm64 (4 KiB pages) */

void *lf__ox_weights_alloc(size_t bytes)
{
    if (bytes < LF__HUGE)
        return malloc(bytes ? bytes : 1);
    void *p = NULL;
    if (posix_memalign(&p, LF__HUGE, bytes) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    /* Only whole 2 MiB blocks: a huge page over the tail would be resident
     * past the data. A hint; an error changes nothing. */
    madvise(p, bytes & ~(LF__HUGE - 1), MADV_HUGEPAGE);
#endif
    return p;
}

int lf__ox_weights_pread(int fd, uint64_t offset, void *dst, size_t len)
{
    uint8_t *d = dst;
    size_t got = 0;
    while (got < len) {
        /* At most 1 GiB a call: Linux reads at most 0x7ffff000 bytes in one. */
        size_t want = len - got > ((size_t)1 << 30) ? (size_t)1 << 30 : len - got;
        ssize_t r = pread(fd, d + got, want, (off_t)(offset + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

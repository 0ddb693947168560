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
#include <stdint.h>
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

/* One block for all the weights, rather than a buffer each: resnet50's
 * 67 initializers left 24 MB in small pages (the tensors under 2 MiB and
 * every tensor's tail), 6,000 faults and as many first touches. Packed in
 * one 2 MiB-aligned block, every page but the last is a huge one. */
void *lf__ox_block_take(lf__ox_graph *g, size_t bytes)
{
    if (!g->block) {
        /* The float32 raw_data lie apart in the file, so they fit in its
         * length; the slack is the 64-byte alignment of each. Only pages
         * written become resident. */
        size_t cap = g->file_len + ((size_t)1 << 20);
        void *p = NULL;
        if (g->file_len > SIZE_MAX / 2 || posix_memalign(&p, LF__HUGE, cap) != 0)
            return NULL;
#ifdef MADV_HUGEPAGE
        madvise(p, cap & ~(LF__HUGE - 1), MADV_HUGEPAGE);
#endif
        g->block = p;
        g->block_cap = cap;
        g->block_used = 0;
    }
    size_t at = (g->block_used + 63) & ~(size_t)63;
    if (at > g->block_cap || bytes > g->block_cap - at)
        return NULL;
    g->block_used = at + bytes;
    return g->block + at;
}

void lf__ox_block_forget(void *data, size_t bytes)
{
    /* Whole pages only: the first and last may hold a neighbour's values. */
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)data + page - 1) & ~(page - 1), hi = ((uintptr_t)data + bytes) & ~(page - 1);
    if (data && hi > lo)
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

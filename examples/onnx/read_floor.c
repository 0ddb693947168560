/* The floor under an ONNX import's time: a file's bytes brought into a
 * process's memory three ways, with nothing else done, so that the
 * importer's own figure can be read against it (docs/results/executor.md,
 * issue 44). Not part of the build:
 *
 *   cc -O2 -o read_floor examples/onnx/read_floor.c
 *   ./read_floor FILE map-copy|pread|pread-huge
 *
 * map-copy:   mmap the file, memcpy it into a malloc'd buffer (small pages);
 *             what the importer did before it read with pread
 * pread:      pread it into a malloc'd buffer (small pages)
 * pread-huge: pread it into a 2 MiB-aligned buffer hinted MADV_HUGEPAGE
 *             (what the importer does now)
 *
 * Each then reads one byte of every 4 KiB page of the buffer, as the
 * importer's consumers do; the figure is the process's user and system CPU
 * (getrusage) and wall time for all of it. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double secs(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec * 1e-6; }

static int read_all(int fd, char *dst, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, dst + got, n - got > (1u << 30) ? (1u << 30) : n - got, (off_t)got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: read_floor FILE map-copy|pread|pread-huge\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size <= 0) {
        perror(argv[1]);
        return 1;
    }
    size_t n = (size_t)sb.st_size, huge = (size_t)2 << 20;
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    char *dst = NULL;
    int st = 0;
    if (strcmp(argv[2], "pread-huge") == 0) {
        if (posix_memalign((void **)&dst, huge, n) != 0)
            return 1;
        madvise(dst, n & ~(huge - 1), MADV_HUGEPAGE);
        st = read_all(fd, dst, n);
    } else if (strcmp(argv[2], "pread") == 0) {
        if (!(dst = malloc(n)))
            return 1;
        st = read_all(fd, dst, n);
    } else if (strcmp(argv[2], "map-copy") == 0) {
        char *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED || !(dst = malloc(n)))
            return 1;
        memcpy(dst, m, n);
        munmap(m, n);
    } else {
        fprintf(stderr, "read_floor: unknown mode '%s'\n", argv[2]);
        return 2;
    }
    if (st != 0) {
        fprintf(stderr, "read_floor: %s: short read\n", argv[1]);
        return 1;
    }
    unsigned long sum = 0;
    for (size_t k = 0; k < n; k += 4096)
        sum += (unsigned char)dst[k];
    clock_gettime(CLOCK_MONOTONIC, &w1);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%s %s: %zu bytes, user %.3f s, sys %.3f s, wall %.3f s, max RSS %ld KB (sum %lu)\n", argv[2],
           argv[1], n, secs(ru.ru_utime), secs(ru.ru_stime),
           (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) * 1e-9, ru.ru_maxrss, sum & 1);
    free(dst);
    close(fd);
    return 0;
}

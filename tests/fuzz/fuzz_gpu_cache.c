/* libFuzzer harness: the GPU op-time cache reader (planner/gpu/cache.c) on
 * arbitrary bytes. A refusal is one printable line naming the origin and
 * leaves the cache empty; an accepted file writes back to text that reads
 * again and writes back byte for byte the same (the format round-trips). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz_check.h"
#include "planner/gpu/cache.h"

static char *lf__write(const lf_gpu_cache *c, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    LF_FUZZ_REQUIRE(f != NULL);
    LF_FUZZ_REQUIRE(lf_gpu_cache_write(c, f) == LF_OK);
    LF_FUZZ_REQUIRE(fclose(f) == 0);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1 << 16))
        return 0;
    lf_gpu_cache *c = NULL, *again = NULL;
    LF_FUZZ_REQUIRE(lf_gpu_cache_create(&c) == LF_OK);
    lf_status st = lf_gpu_cache_load_text(c, (const char *)data, size, "fuzz");
    if (st != LF_OK) {
        LF_FUZZ_REQUIRE(st == LF_EPARSE || st == LF_ENOMEM);
        lf_fuzz_check_message("fuzz:");
        LF_FUZZ_REQUIRE(lf_gpu_cache_n_devices(c) == 0);
        lf_gpu_cache_free(c);
        return 0;
    }
    for (int32_t i = 0; i < lf_gpu_cache_n_devices(c); i++) {
        LF_FUZZ_REQUIRE(lf_gpu_cache_n_entries(c, i) >= 0);
        LF_FUZZ_REQUIRE(lf_gpu_cache_device(c, i)->name[0] != '\0');
    }
    size_t n1 = 0, n2 = 0;
    char *t1 = lf__write(c, &n1);
    LF_FUZZ_REQUIRE(lf_gpu_cache_create(&again) == LF_OK);
    LF_FUZZ_REQUIRE(lf_gpu_cache_load_text(again, t1, n1, "fuzz-again") == LF_OK);
    LF_FUZZ_REQUIRE(lf_gpu_cache_n_devices(again) == lf_gpu_cache_n_devices(c));
    char *t2 = lf__write(again, &n2);
    LF_FUZZ_REQUIRE(n1 == n2 && memcmp(t1, t2, n1) == 0);
    if (lf_gpu_cache_n_devices(c) > 0) { /* lookups answer for the bound device only */
        LF_FUZZ_REQUIRE(lf_gpu_cache_use(c, lf_gpu_cache_device(again, 0)) == LF_OK);
        LF_FUZZ_REQUIRE(lf_gpu_cache_bound_entries(c) == lf_gpu_cache_n_entries(again, 0));
    }
    free(t1);
    free(t2);
    lf_gpu_cache_free(again);
    lf_gpu_cache_free(c);
    return 0;
}

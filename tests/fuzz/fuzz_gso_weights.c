/* libFuzzer harness: the GSO filter's weight-file reader on arbitrary bytes.
 * With the first byte odd, the rest gets a valid trailing checksum first, so
 * the reader's header and per-model parsing is reached past the checksum
 * test. A refusal is one printable line naming the origin and leaves an
 * empty set; an accepted file has well-formed models. */
#include <stddef.h>
#include <stdint.h>

#include "planner/util/binfile.h"
#include "fuzz_check.h"
#include "search/subst/gso/gso.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20))
        return 0;
    lf__wbuf b = {0};
    lf__w_bytes(&b, data + 1, size - 1);
    if (data[0] & 1)
        lf__w_checksum(&b);
    if (b.oom) {
        lf__w_free(&b);
        return 0;
    }
    lf_gso_set s;
    lf_status st = lf_gso_load_memory(&s, b.p, b.len, "fuzz");
    if (st != LF_OK) {
        lf_fuzz_check_message("fuzz: ");
        LF_FUZZ_REQUIRE(s.n == 0 && s.names == NULL && s.params == NULL);
    } else {
        LF_FUZZ_REQUIRE(s.kind == LF_GSO_GCN || s.kind == LF_GSO_LR);
        LF_FUZZ_REQUIRE((size_t)s.n * 9 <= b.len);
        for (int32_t i = 0; i < s.n; i++) {
            LF_FUZZ_REQUIRE(s.names[i] && s.names[i][0]);
            LF_FUZZ_REQUIRE(lf_gso_set_find(&s, s.names[i]) <= i);
            LF_FUZZ_REQUIRE(s.positives[i] >= 0);
        }
        lf_gso_set_destroy(&s);
    }
    lf__w_free(&b);
    return 0;
}

/* libFuzzer harness: the unit parsers (sizes, bandwidths, energies, rates,
 * times, data types, device indices) on arbitrary text. The first byte picks
 * the parser. Accepted values lie in the documented ranges; a refusal is one
 * printable line and leaves the output alone. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "hwdesc/hw.h"
#include "hwdesc/hw_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0'; /* the parsers take C strings: stop at a NUL */
    lf_status st;
    int64_t i64 = -7;
    int32_t i32 = -7;
    double d = -7.0;
    switch (data[0] % 8) {
    case 0:
        st = lf_hw_parse_size(text, &i64);
        LF_FUZZ_REQUIRE(st != LF_OK || (i64 > 0 && i64 <= LF__HW_MAX_SIZE));
        LF_FUZZ_REQUIRE(st == LF_OK || i64 == -7);
        break;
    case 1:
        st = lf_hw_parse_bandwidth(text, &d);
        LF_FUZZ_REQUIRE(st != LF_OK || (isfinite(d) && d > 0 && d <= LF__HW_MAX_BANDWIDTH));
        break;
    case 2:
        st = lf__hw_parse_energy(text, &d);
        LF_FUZZ_REQUIRE(st != LF_OK || (isfinite(d) && d >= 0 && d <= LF__HW_MAX_PJ_PER_BYTE));
        break;
    case 3:
        st = lf__hw_parse_mac_rate(text, &d);
        LF_FUZZ_REQUIRE(st != LF_OK || (isfinite(d) && d > 0 && d <= LF__HW_MAX_RATE));
        break;
    case 4:
        st = lf__hw_parse_flop_rate(text, &d);
        LF_FUZZ_REQUIRE(st != LF_OK || (isfinite(d) && d > 0 && d <= LF__HW_MAX_RATE));
        break;
    case 5:
        st = lf__hw_parse_time(text, &d);
        LF_FUZZ_REQUIRE(st != LF_OK || (isfinite(d) && d >= 0 && d <= LF__HW_MAX_TIME));
        break;
    case 6:
        st = lf__hw_parse_datatype(text, &i32);
        LF_FUZZ_REQUIRE(st != LF_OK || (i32 >= 1 && i32 <= 8));
        break;
    default:
        st = lf__hw_parse_device(text, &i32);
        LF_FUZZ_REQUIRE(st != LF_OK || (i32 >= 0 && i32 <= LF__HW_MAX_DEVICE));
        break;
    }
    if (st != LF_OK) {
        LF_FUZZ_REQUIRE(st < 0 && st >= LF_STATUS_MIN);
        lf_fuzz_check_message("");
    }
    if (st != LF_OK && (data[0] % 8) != 0 && (data[0] % 8) < 6)
        LF_FUZZ_REQUIRE(d == -7.0);
    free(text);
    return 0;
}

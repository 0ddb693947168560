/* libFuzzer harness: the hardware description reader on arbitrary bytes.
 * Checks more than memory safety: an accepted description has every value
 * in its documented range; a refused one leaves the result untouched and
 * says why in one line that starts with the origin. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "hwdesc/hw.h"
#include "hwdesc/hw_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lf_hw hw, before;
    memset(&hw, 0xa5, sizeof hw);
    before = hw;
    lf_status st = lf_hw_load_memory(&hw, (const char *)data, (int64_t)size, "fuzz.xml");
    if (st != LF_OK) {
        LF_FUZZ_REQUIRE(st < 0 && st >= LF_STATUS_MIN);
        LF_FUZZ_REQUIRE(memcmp(&hw, &before, sizeof hw) == 0);
        lf_fuzz_check_message("fuzz.xml");
        return 0;
    }
    LF_FUZZ_REQUIRE(hw.buffer_bytes > 0 && hw.buffer_bytes <= LF__HW_MAX_SIZE);
    LF_FUZZ_REQUIRE(hw.act_bytes >= 1 && hw.act_bytes <= 8);
    LF_FUZZ_REQUIRE(hw.weight_bytes >= 1 && hw.weight_bytes <= 8);
    LF_FUZZ_REQUIRE(isfinite(hw.dram_bandwidth) && hw.dram_bandwidth > 0 &&
                    hw.dram_bandwidth <= LF__HW_MAX_BANDWIDTH);
    LF_FUZZ_REQUIRE(hw.dram_pj_per_byte >= 0 && hw.dram_pj_per_byte <= LF__HW_MAX_PJ_PER_BYTE);
    LF_FUZZ_REQUIRE(hw.peak_macs >= 0 && hw.peak_macs <= LF__HW_MAX_RATE);
    LF_FUZZ_REQUIRE(memchr(hw.name, 0, sizeof hw.name) != NULL && hw.name[0]);
    LF_FUZZ_REQUIRE(strcmp(hw.source, "fuzz.xml") == 0);
    LF_FUZZ_REQUIRE(hw.gpu.device_index >= -1 && hw.gpu.device_index <= LF__HW_MAX_DEVICE);
    return 0;
}

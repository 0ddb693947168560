/* The description used when no hardware file is given: the mid-range point of
 * the source paper's buffer sweep (128 KB ... 2048 KB) with int8 tensors and
 * an LPDDR4-class 25.6 GB/s DRAM, the same figures as
 * examples/hw/buffer-256k.xml except that no energy figure is assumed. */
#include "hwdesc/hw.h"

#include <string.h>

void lf_hw_default(lf_hw *hw)
{
    if (!hw)
        return;
    memset(hw, 0, sizeof *hw);
    strcpy(hw->name, "default-256k");
    strcpy(hw->source, "built-in default");
    hw->buffer_bytes = 256 * 1024;
    hw->act_bytes = 1;
    hw->weight_bytes = 1;
    hw->dram_bandwidth = 25.6e9;
    hw->dram_pj_per_byte = 0.0;
    hw->peak_macs = 0.0;
    hw->has_gpu = 0;
    hw->gpu.device_index = -1;
    strcpy(hw->act_type, "int8");
    strcpy(hw->weight_type, "int8");
}

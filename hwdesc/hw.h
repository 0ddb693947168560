/* Hardware description: what fusionplan needs to know about an accelerator.
 *
 * Loaded from an XML file validated against hwdesc/hwdesc.xsd (see
 * docs/hardware-format.md) or taken from the built-in default. Sizes are in
 * bytes (KB and KiB both mean 1024 bytes), bandwidths in bytes per second
 * (GB/s and TB/s are decimal). */
#ifndef LF_HW_H
#define LF_HW_H

#include <stdint.h>

#include "hwdesc/status.h"

#define LF_HW_NAME_MAX 64
#define LF_HW_SOURCE_MAX 256

typedef struct lf_hw_gpu {
    char name[LF_HW_NAME_MAX]; /* device name to match, "" when only an index is given */
    int32_t device_index;      /* CUDA device index, -1 when not given */
    double peak_flops;         /* FLOP/s, 0 when unknown */
    double bandwidth;          /* bytes/s, 0 when unknown */
    double launch_overhead_s;  /* seconds per kernel launch, 0 when unknown */
} lf_hw_gpu;

typedef struct lf_hw {
    char name[LF_HW_NAME_MAX];
    char source[LF_HW_SOURCE_MAX]; /* file the description came from, or "built-in default" */
    int64_t buffer_bytes;          /* on-chip buffer size beta */
    int32_t act_bytes;             /* bytes per activation element */
    int32_t weight_bytes;          /* bytes per weight element */
    int32_t no_attention;          /* 1: price a product of two activations with both operands
                                      whole (DESIGN §5), not as attention groups (§16): the
                                      comparison "without attention groups" */
    double dram_bandwidth;         /* bytes/s */
    double dram_pj_per_byte;       /* energy per DRAM byte in pJ, 0 when not given */
    double peak_macs;              /* multiply-accumulates per second, 0 when not given */
    int32_t has_gpu;
    lf_hw_gpu gpu;
} lf_hw;

/* The built-in default: 256 KB buffer, 1-byte activations and weights,
 * 25.6 GB/s DRAM, no energy figure, no GPU. */
void lf_hw_default(lf_hw *hw);

/* Loads and validates an XML description. On failure *hw is left unchanged and
 * the message names the file, line and element. */
lf_status lf_hw_load(lf_hw *hw, const char *path);

/* Same, from a string already in memory; `origin` names it in messages. */
lf_status lf_hw_load_memory(lf_hw *hw, const char *xml, int64_t len, const char *origin);

/* Parses a size with a unit: "256KB", "256 KiB", "1MB", "2048B" (no unit is an
 * error; negative, zero, fractional bytes or sizes above 1 TiB are errors). */
lf_status lf_hw_parse_size(const char *text, int64_t *bytes);

/* Parses a bandwidth: "25.6GB/s", "1.2 TB/s" (decimal units), into bytes/s. */
lf_status lf_hw_parse_bandwidth(const char *text, double *bytes_per_s);

/* Formats a byte count the way the CLI shows buffer sizes ("256 KB", "1.5 MB", "100 B"). */
void lf_hw_format_size(int64_t bytes, char *buf, int buflen);

#endif

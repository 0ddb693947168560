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
    /* Energy and compute details (DESIGN §19, docs/hardware-format.md). */
    int32_t has_energy;      /* an <energy> element was given */
    char dram_preset[16];    /* <energy dram="LPDDR4">: the preset named, "" otherwise */
    double sram_pj_per_byte; /* buffer energy per byte read or written, 0: the size model */
    double mac_pj;           /* energy per multiply-accumulate, 0: the data-type table */
    double macs_per_cycle;   /* <compute macs-per-cycle>, 0 when not given */
    double clock_hz;         /* <compute clock>, 0 when not given */
    char act_type[8];        /* data type names ("int8"); "" means the one of act_bytes */
    char weight_type[8];
} lf_hw;

/* Energy figures with the defaults filled in and where each came from
 * (hwdesc/energy.c). */
typedef struct lf_hw_energy {
    double dram_pj_per_byte, sram_pj_per_byte, mac_pj;
    const char *dram_source, *sram_source, *mac_source; /* static text */
} lf_hw_energy;

/* 1 when the description gives energy figures (a <dram energy>, or an
 * <energy> element): plans then report energy. */
int lf_hw_has_energy(const lf_hw *hw);

/* The energy model of hw: given figures, else defaults (DRAM: Accelergy's
 * LPDDR4, 8 pJ/bit; SRAM: the size model; MAC: Horowitz's 45 nm table for the
 * wider data type). */
void lf_hw_energy_model(const lf_hw *hw, lf_hw_energy *e);

/* Horowitz (ISSCC 2014, 45 nm) SRAM access energy per byte for a buffer of
 * `bytes`, log-log interpolated through his 8 KB, 32 KB and 1 MB figures. */
double lf_hw_sram_pj_model(int64_t bytes);

/* Horowitz (ISSCC 2014, 45 nm) multiply plus add, in pJ, for a data type
 * name ("int8", "fp16", ...); 0 for an unknown name. */
double lf_hw_mac_pj_model(const char *type);

/* Accelergy's DRAM table: pJ per bit of a preset name ("LPDDR4", "HBM2");
 * LF_ENOTFOUND for other names. lf_hw_dram_preset_names: NULL-terminated. */
lf_status lf_hw_dram_preset(const char *name, double *pj_per_bit);
const char *const *lf_hw_dram_preset_names(void);

/* The built-in default: 256 KB buffer, int8 activations and weights,
 * 25.6 GB/s DRAM, no energy figure, no compute peak, no GPU. */
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

/* Internal to hwdesc/: the value parsers behind the XML attributes that
 * hw.h does not export, and the limits they enforce.
 *
 * Every parser accepts "<number><optional white space><unit>" with optional
 * surrounding white space, where <number> is a plain decimal ("25.6", no sign,
 * no exponent, at most 18 significant digits), and units are case-sensitive.
 * On failure it returns LF_EPARSE (no number, no unit, unknown unit) or
 * LF_ERANGE (negative, zero, out of range) and records a message about the
 * value alone, such as `"256" has no unit (use B, KB, KiB, MB or MiB)`; the
 * XML loader prefixes it with the file, line, element and attribute. */
#ifndef LF_HW_INTERNAL_H
#define LF_HW_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hwdesc/hw.h"

/* Upper limits beyond which a figure is taken for a typing mistake. */
#define LF__HW_MAX_SIZE ((int64_t)1 << 40)  /* 1 TiB */
#define LF__HW_MAX_BANDWIDTH 1e15           /* 1 PB/s */
#define LF__HW_MAX_PJ_PER_BYTE 1e4          /* 10 nJ per byte */
#define LF__HW_MAX_RATE 1e18                /* MAC/s or FLOP/s */
#define LF__HW_MAX_TIME 1.0                 /* seconds per kernel launch */
#define LF__HW_MAX_DEVICE 255
#define LF__HW_MAX_PJ_PER_MAC 1e4           /* 10 nJ per multiply-accumulate */
#define LF__HW_MAX_CLOCK 1e11               /* 100 GHz */
#define LF__HW_MAX_MACS_PER_CYCLE 1073741824.0 /* 2^30 */

/* "20pJ/B" -> 20 (picojoules per byte). */
lf_status lf__hw_parse_energy(const char *text, double *pj_per_byte);
/* "8pJ/bit" -> 8 (picojoules per bit; the caller converts to bytes). */
lf_status lf__hw_parse_bit_energy(const char *text, double *pj_per_bit);
/* "0.23pJ" -> 0.23 (picojoules per multiply-accumulate); units pJ, fJ. */
lf_status lf__hw_parse_mac_energy(const char *text, double *pj);
/* "1GHz" -> 1e9; units Hz, kHz, MHz, GHz. */
lf_status lf__hw_parse_clock(const char *text, double *hz);
/* "1024" -> 1024: a whole, unitless count, 1 .. 2^30. */
lf_status lf__hw_parse_macs_per_cycle(const char *text, double *count);
/* A DRAM energy as <energy dram=...> writes it: a preset name of
 * lf_hw_dram_presets, "<x>pJ/bit" or "<x>pJ/B"; into picojoules per byte, and
 * the preset's name (or "") into preset. */
lf_status lf__hw_parse_dram_energy(const char *text, double *pj_per_byte, char preset[16]);
/* "auto" -> 0 (the size model), else "<x>pJ/B". */
lf_status lf__hw_parse_sram_energy(const char *text, double *pj_per_byte);

/* "2TMAC/s" -> 2e12; units MAC/s, MMAC/s, GMAC/s, TMAC/s. */
lf_status lf__hw_parse_mac_rate(const char *text, double *macs);
/* "989TFLOP/s" -> 9.89e14; units FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s. */
lf_status lf__hw_parse_flop_rate(const char *text, double *flops);
/* "5us" -> 5e-6 seconds; units s, ms, us, ns. */
lf_status lf__hw_parse_time(const char *text, double *seconds);
/* "int8" -> 1 byte per element; int8 uint8 int16 fp16 bf16 int32 fp32. */
lf_status lf__hw_parse_datatype(const char *text, int32_t *bytes);
/* "0" -> 0; a CUDA device index, 0 .. LF__HW_MAX_DEVICE. */
lf_status lf__hw_parse_device(const char *text, int32_t *index);

/* Before libxml2 sees the bytes: refuses other encodings, NUL bytes, text
 * that is not XML, and element, attribute, depth or length counts past
 * fixed bounds, in one linear pass (hwdesc/precheck.c). */
lf_status lf__hw_precheck(const char *xml, size_t len, const char *origin);

/* The schema compiled into the library from hwdesc/hwdesc.xsd. */
extern const char lf_hwdesc_xsd[];
extern const long lf_hwdesc_xsd_len;

#endif

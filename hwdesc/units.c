/* Numbers with units for hardware descriptions: sizes, bandwidths, energies,
 * compute rates, times, data types and device indexes, plus the formatting of
 * byte counts for display.
 *
 * Numbers are read digit by digit into an integer mantissa and a decimal scale
 * instead of with strtod: strtod follows LC_NUMERIC (a decimal comma in many
 * locales), and the integer form lets sizes be checked for a whole number of
 * bytes exactly ("1.5MB" is 1572864 B, "0.3KB" is not whole). */
#include "hwdesc/hw_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define LF__HW_MAX_DIGITS 18 /* keeps the mantissa and 10^scale inside int64 */

/* A scanned "<number> <unit>": value = mant / 10^scale, unit [unit, unit + unit_len). */
typedef struct quantity {
    int64_t mant;
    int scale;
    const char *unit;
    size_t unit_len;
} quantity;

/* A unit whose multiplier is a power of ten (rates, energy, time) or of two (sizes). */
typedef struct unit_def {
    const char *name;
    int exp; /* multiplier 10^exp for decimal kinds, 2^exp for sizes */
} unit_def;

/* What a kind of quantity accepts, for parsing and for messages. */
typedef struct quantity_kind {
    const char *example;   /* shown when the number is missing */
    const char *unit_list; /* shown when the unit is missing or unknown */
    const unit_def *units;
    int nunits;
    double max;            /* in base units; sizes use LF__HW_MAX_SIZE */
    const char *max_text;
} quantity_kind;

static const unit_def size_units[] = {
    {"B", 0}, {"KB", 10}, {"KiB", 10}, {"MB", 20}, {"MiB", 20},
};
static const unit_def bandwidth_units[] = {{"MB/s", 6}, {"GB/s", 9}, {"TB/s", 12}};
static const unit_def energy_units[] = {{"pJ/B", 0}};
static const unit_def mac_units[] = {{"MAC/s", 0}, {"MMAC/s", 6}, {"GMAC/s", 9}, {"TMAC/s", 12}};
static const unit_def flop_units[] = {
    {"FLOP/s", 0}, {"GFLOP/s", 9}, {"TFLOP/s", 12}, {"PFLOP/s", 15},
};
static const unit_def time_units[] = {{"s", 0}, {"ms", -3}, {"us", -6}, {"ns", -9}};
static const unit_def bit_energy_units[] = {{"pJ/bit", 0}};
static const unit_def mac_energy_units[] = {{"pJ", 0}, {"fJ", -3}};
static const unit_def freq_units[] = {{"Hz", 0}, {"kHz", 3}, {"MHz", 6}, {"GHz", 9}};
static const unit_def count_units[] = {{"", 0}};

#define LF__N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const quantity_kind size_kind = {
    "256KB", "B, KB, KiB, MB or MiB", size_units, LF__N(size_units), 0, "1 TiB"};
static const quantity_kind bandwidth_kind = {
    "25.6GB/s", "MB/s, GB/s or TB/s", bandwidth_units, LF__N(bandwidth_units),
    LF__HW_MAX_BANDWIDTH, "1 PB/s"};
static const quantity_kind energy_kind = {
    "20pJ/B", "pJ/B", energy_units, LF__N(energy_units), LF__HW_MAX_PJ_PER_BYTE, "10000 pJ/B"};
static const quantity_kind mac_kind = {
    "2TMAC/s", "MAC/s, MMAC/s, GMAC/s or TMAC/s", mac_units, LF__N(mac_units),
    LF__HW_MAX_RATE, "1000000 TMAC/s"};
static const quantity_kind flop_kind = {
    "989TFLOP/s", "FLOP/s, GFLOP/s, TFLOP/s or PFLOP/s", flop_units, LF__N(flop_units),
    LF__HW_MAX_RATE, "1000 PFLOP/s"};
static const quantity_kind time_kind = {
    "5us", "s, ms, us or ns", time_units, LF__N(time_units), LF__HW_MAX_TIME, "1 s"};

static const quantity_kind bit_energy_kind = {
    "8pJ/bit", "pJ/bit", bit_energy_units, LF__N(bit_energy_units), LF__HW_MAX_PJ_PER_BYTE / 8,
    "1250 pJ/bit"};
static const quantity_kind mac_energy_kind = {
    "0.23pJ", "pJ or fJ", mac_energy_units, LF__N(mac_energy_units), LF__HW_MAX_PJ_PER_MAC,
    "10000 pJ"};
static const quantity_kind freq_kind = {
    "1GHz", "Hz, kHz, MHz or GHz", freq_units, LF__N(freq_units), LF__HW_MAX_CLOCK, "100 GHz"};
static const quantity_kind count_kind = {
    "1024", "no unit", count_units, LF__N(count_units), LF__HW_MAX_MACS_PER_CYCLE, "2^30"};

static int lf__is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int lf__is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static char lf__lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* The value as it should appear in a message: quoted, and cut short so that a
 * pasted paragraph cannot swamp the one-line message. */
static const char *lf__shown(const char *text, char *buf, size_t buflen)
{
    size_t n = strlen(text);
    if (n + 3 <= buflen)
        snprintf(buf, buflen, "\"%s\"", text);
    else
        snprintf(buf, buflen, "\"%.*s...\"", (int)(buflen - 6), text);
    return buf;
}

#define SHOWN(text) lf__shown((text), shown_buf, sizeof shown_buf)

/* Appends digits [begin, end) to the mantissa, counting significant digits and
 * leaving the mantissa alone once there are too many (the caller reports it). */
static void lf__accumulate(const char *begin, const char *end, quantity *q, int *significant)
{
    for (const char *d = begin; d < end; d++) {
        if (q->mant > 0 || *d != '0')
            (*significant)++;
        if (*significant <= LF__HW_MAX_DIGITS)
            q->mant = q->mant * 10 + (*d - '0');
    }
}

/* Splits text into a number and a unit; checks only the lexical form. */
static lf_status lf__scan_quantity(const char *text, const quantity_kind *kind, quantity *q)
{
    char shown_buf[48];
    const char *p = text;
    const char *int_begin, *int_end, *frac_begin = NULL, *frac_end = NULL, *end;
    int significant = 0;

    if (!text)
        return lf_set_error(LF_EINVAL, "no value given");
    while (lf__is_space(*p))
        p++;
    if (*p == '\0')
        return lf_set_error(LF_EPARSE, "empty value (expected a number and a unit, e.g. %s)",
                            kind->example);
    if (*p == '-' && (lf__is_digit(p[1]) || p[1] == '.'))
        return lf_set_error(LF_ERANGE, "%s is negative", SHOWN(text));
    if (!lf__is_digit(*p))
        return lf_set_error(LF_EPARSE, "%s does not start with a number (expected e.g. %s)",
                            SHOWN(text), kind->example);

    int_begin = p;
    while (lf__is_digit(*p))
        p++;
    int_end = p;
    if (*p == '.') {
        frac_begin = ++p;
        while (lf__is_digit(*p))
            p++;
        frac_end = p;
        if (frac_end == frac_begin)
            return lf_set_error(LF_EPARSE, "%s has a malformed number (no digit after the point)",
                                SHOWN(text));
    }
    if (*p == '.' || *p == ',')
        return lf_set_error(LF_EPARSE,
                            "%s has a malformed number (use one point as the decimal separator)",
                            SHOWN(text));

    /* Trailing zeros after the point carry no information; dropping them
     * keeps "25.600GB/s" within the digit limit and the scale small. */
    if (frac_begin)
        while (frac_end > frac_begin && frac_end[-1] == '0')
            frac_end--;

    q->mant = 0;
    q->scale = frac_begin ? (int)(frac_end - frac_begin) : 0;
    lf__accumulate(int_begin, int_end, q, &significant);
    if (frac_begin)
        lf__accumulate(frac_begin, frac_end, q, &significant);
    if (significant > LF__HW_MAX_DIGITS || q->scale > LF__HW_MAX_DIGITS)
        return lf_set_error(LF_EPARSE,
                            "%s has too many digits (at most %d significant digits and %d "
                            "after the point)",
                            SHOWN(text), LF__HW_MAX_DIGITS, LF__HW_MAX_DIGITS);

    while (lf__is_space(*p))
        p++;
    end = p + strlen(p);
    while (end > p && lf__is_space(end[-1]))
        end--;
    if (end == p && kind->units[0].name[0] != '\0') /* a plain count takes no unit */
        return lf_set_error(LF_EPARSE, "%s has no unit (use %s)", SHOWN(text), kind->unit_list);
    q->unit = p;
    q->unit_len = (size_t)(end - p);
    return LF_OK;
}

/* The unit's multiplier exponent, or an error naming the unit and the choices. */
static lf_status lf__find_unit(const char *text, const quantity *q, const quantity_kind *kind,
                               int *exp)
{
    char shown_buf[48];
    int case_only = 0;

    for (int i = 0; i < kind->nunits; i++) {
        const char *name = kind->units[i].name;
        if (strlen(name) != q->unit_len)
            continue;
        if (memcmp(name, q->unit, q->unit_len) == 0) {
            *exp = kind->units[i].exp;
            return LF_OK;
        }
        int same = 1;
        for (size_t k = 0; k < q->unit_len; k++)
            same &= lf__lower(name[k]) == lf__lower(q->unit[k]);
        case_only |= same;
    }
    /* "kb" or "gb/s" differ from a known unit only in case; say so, since
     * b/B (bits/bytes) is a real distinction and is not guessed at. */
    return lf_set_error(LF_EPARSE, "%s has an unknown unit \"%.*s\" (use %s%s)", SHOWN(text),
                        (int)(q->unit_len > 20 ? 20 : q->unit_len), q->unit, kind->unit_list,
                        case_only ? "; units are case-sensitive" : "");
}

/* 10^n as a double; exact for n <= 22, which covers every correctly rounded case below. */
static double lf__pow10_int(int n)
{
    double r = 1.0;
    while (n-- > 0)
        r *= 10.0;
    return r;
}

/* mant * 10^exp as a double with one rounding where possible: mant and 10^k are
 * exact doubles for the ranges used here, so "25.6GB/s" is exactly 2.56e10. */
static double lf__scaled(int64_t mant, int exp)
{
    if (exp >= 0)
        return (double)mant * lf__pow10_int(exp);
    if (exp >= -22)
        return (double)mant / lf__pow10_int(-exp);
    return (double)mant / lf__pow10_int(22) / lf__pow10_int(-exp - 22);
}

/* Parses a positive decimal quantity of the given kind into base units. */
static lf_status lf__parse_decimal(const char *text, const quantity_kind *kind, double *out)
{
    char shown_buf[48];
    quantity q;
    int exp = 0;
    lf_status s;
    double v;

    if (!out)
        return lf_set_error(LF_EINVAL, "no place to store the value");
    if ((s = lf__scan_quantity(text, kind, &q)) != LF_OK)
        return s;
    if ((s = lf__find_unit(text, &q, kind, &exp)) != LF_OK)
        return s;
    if (q.mant == 0)
        return lf_set_error(LF_ERANGE, "%s is zero (must be positive)", SHOWN(text));
    v = lf__scaled(q.mant, exp - q.scale);
    if (v > kind->max)
        return lf_set_error(LF_ERANGE, "%s is above the limit of %s", SHOWN(text),
                            kind->max_text);
    *out = v;
    return LF_OK;
}

lf_status lf_hw_parse_size(const char *text, int64_t *bytes)
{
    char shown_buf[48];
    quantity q;
    int shift = 0, twos;
    int64_t denom, whole;
    lf_status s;

    if (!bytes)
        return lf_set_error(LF_EINVAL, "no place to store the size");
    if ((s = lf__scan_quantity(text, &size_kind, &q)) != LF_OK)
        return s;
    if ((s = lf__find_unit(text, &q, &size_kind, &shift)) != LF_OK)
        return s;
    if (q.mant == 0)
        return lf_set_error(LF_ERANGE, "%s is zero (a size must be at least 1 B)", SHOWN(text));

    /* bytes = mant * 2^shift / 10^scale. 10^scale = 2^scale * 5^scale, so the
     * common powers of two cancel and what is left of the denominator must
     * divide the mantissa for the result to be a whole number of bytes. */
    denom = 1;
    for (int i = 0; i < q.scale; i++)
        denom *= 10;
    twos = q.scale < shift ? q.scale : shift;
    denom >>= twos;
    shift -= twos;
    if (q.mant % denom != 0)
        return lf_set_error(LF_ERANGE, "%s is not a whole number of bytes", SHOWN(text));
    whole = q.mant / denom;
    if (whole > (LF__HW_MAX_SIZE >> shift))
        return lf_set_error(LF_ERANGE, "%s is above the limit of %s", SHOWN(text),
                            size_kind.max_text);
    *bytes = whole << shift;
    return LF_OK;
}

lf_status lf_hw_parse_bandwidth(const char *text, double *bytes_per_s)
{
    return lf__parse_decimal(text, &bandwidth_kind, bytes_per_s);
}

lf_status lf__hw_parse_energy(const char *text, double *pj_per_byte)
{
    return lf__parse_decimal(text, &energy_kind, pj_per_byte);
}

lf_status lf__hw_parse_bit_energy(const char *text, double *pj_per_bit)
{
    return lf__parse_decimal(text, &bit_energy_kind, pj_per_bit);
}

lf_status lf__hw_parse_mac_energy(const char *text, double *pj)
{
    return lf__parse_decimal(text, &mac_energy_kind, pj);
}

lf_status lf__hw_parse_clock(const char *text, double *hz)
{
    return lf__parse_decimal(text, &freq_kind, hz);
}

lf_status lf__hw_parse_macs_per_cycle(const char *text, double *count)
{
    char shown_buf[48];
    lf_status s = lf__parse_decimal(text, &count_kind, count);
    if (s == LF_OK && *count != (double)(int64_t)*count)
        return lf_set_error(LF_ERANGE, "%s is not a whole number of MACs", SHOWN(text));
    return s;
}

lf_status lf__hw_parse_mac_rate(const char *text, double *macs)
{
    return lf__parse_decimal(text, &mac_kind, macs);
}

lf_status lf__hw_parse_flop_rate(const char *text, double *flops)
{
    return lf__parse_decimal(text, &flop_kind, flops);
}

lf_status lf__hw_parse_time(const char *text, double *seconds)
{
    return lf__parse_decimal(text, &time_kind, seconds);
}

/* Copies text without surrounding white space into buf; 0 when it does not fit. */
static int lf__trimmed(const char *text, char *buf, size_t buflen)
{
    const char *end;
    while (lf__is_space(*text))
        text++;
    end = text + strlen(text);
    while (end > text && lf__is_space(end[-1]))
        end--;
    if ((size_t)(end - text) >= buflen)
        return 0;
    memcpy(buf, text, (size_t)(end - text));
    buf[end - text] = '\0';
    return 1;
}

lf_status lf__hw_parse_datatype(const char *text, int32_t *bytes)
{
    static const struct {
        const char *name;
        int32_t bytes;
    } types[] = {
        {"int8", 1}, {"uint8", 1}, {"int16", 2}, {"fp16", 2},
        {"bf16", 2}, {"int32", 4}, {"fp32", 4},
    };
    char shown_buf[48], word[16];

    if (!text || !bytes)
        return lf_set_error(LF_EINVAL, "no data type given");
    if (lf__trimmed(text, word, sizeof word))
        for (int i = 0; i < LF__N(types); i++)
            if (strcmp(word, types[i].name) == 0) {
                *bytes = types[i].bytes;
                return LF_OK;
            }
    return lf_set_error(LF_EPARSE,
                        "%s is not a known data type (use int8, uint8, int16, fp16, bf16, int32 "
                        "or fp32)",
                        SHOWN(text));
}

lf_status lf__hw_parse_device(const char *text, int32_t *index)
{
    char shown_buf[48], word[24];
    const char *p;
    int32_t v = 0;

    if (!text || !index)
        return lf_set_error(LF_EINVAL, "no device index given");
    if (!lf__trimmed(text, word, sizeof word) || word[0] == '\0')
        return lf_set_error(LF_EPARSE, "%s is not a device index (expected e.g. 0)",
                            SHOWN(text));
    if (word[0] == '-' && lf__is_digit(word[1]))
        return lf_set_error(LF_ERANGE, "%s is negative (device indexes start at 0)",
                            SHOWN(text));
    for (p = word; *p; p++) {
        if (!lf__is_digit(*p))
            return lf_set_error(LF_EPARSE, "%s is not a device index (expected e.g. 0)",
                                SHOWN(text));
        if (v <= LF__HW_MAX_DEVICE) /* stop growing once out of range: no overflow */
            v = v * 10 + (*p - '0');
    }
    if (v > LF__HW_MAX_DEVICE)
        return lf_set_error(LF_ERANGE, "%s is above the largest device index %d", SHOWN(text),
                            LF__HW_MAX_DEVICE);
    *index = v;
    return LF_OK;
}

/* Picks the largest binary unit in which the count has at most two decimals
 * exactly, so that the text never rounds: 1536 -> "1.5 KB", 262144 ->
 * "256 KB", 1025 -> "1025 B". KB and MB mean 1024 and 1048576 as on input. */
void lf_hw_format_size(int64_t bytes, char *buf, int buflen)
{
    static const char *const names[] = {"B", "KB", "MB", "GB", "TB"};
    int unit = 0;

    if (!buf || buflen <= 0)
        return;
    if (bytes > 0) {
        for (int u = 4; u > 0; u--) {
            int64_t div = (int64_t)1 << (10 * u);
            /* rem < 2^40, so rem * 100 cannot overflow. */
            if (bytes >= div && ((bytes % div) * 100) % div == 0) {
                unit = u;
                break;
            }
        }
    }
    if (unit == 0) {
        snprintf(buf, (size_t)buflen, "%lld B", (long long)bytes);
        return;
    }
    int64_t div = (int64_t)1 << (10 * unit);
    long long whole = (long long)(bytes / div);
    long long hundredths = (long long)((bytes % div) * 100 / div);
    if (hundredths == 0)
        snprintf(buf, (size_t)buflen, "%lld %s", whole, names[unit]);
    else if (hundredths % 10 == 0)
        snprintf(buf, (size_t)buflen, "%lld.%lld %s", whole, hundredths / 10, names[unit]);
    else
        snprintf(buf, (size_t)buflen, "%lld.%02lld %s", whole, hundredths, names[unit]);
}

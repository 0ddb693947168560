/* Energy figures of a hardware description and their defaults (DESIGN §19).
 *
 * Sources, also in docs/hardware-format.md:
 * - DRAM: Accelergy's DRAM table (accelergy-cacti-plug-in, cacti_wrapper.py,
 *   DRAM_estimate_energy: energy = pJ/bit x width): LPDDR4 8 ("public
 *   data"), LPDDR 40 and DDR3 70 (Malladi et al., ISCA'12), GDDR5 14
 *   (Chatterjee et al., MICRO'17), HBM2 3.9; HMC 4.2 as DESIGN §19 lists it.
 * - SRAM and MAC: M. Horowitz, "Computing's energy problem (and what we can
 *   do about it)", ISSCC 2014, 45 nm at 0.9 V: 64-bit reads of 10 pJ (8 KB),
 *   20 pJ (32 KB) and 100 pJ (1 MB); adds of 0.03 pJ (int8), 0.05 (int16),
 *   0.1 (int32), 0.4 (fp16), 0.9 (fp32); multiplies of 0.2 pJ (int8), 3.1
 *   (int32), 1.1 (fp16), 3.7 (fp32). */
#include "hwdesc/hw_internal.h"

#include <math.h>
#include <string.h>

static const struct {
    const char *name;
    double pj_per_bit;
} dram_presets[] = {
    {"LPDDR4", 8.0}, {"LPDDR", 40.0}, {"DDR3", 70.0}, {"GDDR5", 14.0}, {"HBM2", 3.9}, {"HMC", 4.2},
};

#define LF__NPRESETS ((int)(sizeof dram_presets / sizeof dram_presets[0]))

const char *const *lf_hw_dram_preset_names(void)
{
    static const char *const names[] = {"LPDDR4", "LPDDR", "DDR3", "GDDR5", "HBM2", "HMC", NULL};
    return names;
}

lf_status lf_hw_dram_preset(const char *name, double *pj_per_bit)
{
    for (int i = 0; name && i < LF__NPRESETS; i++)
        if (strcmp(name, dram_presets[i].name) == 0) {
            if (pj_per_bit)
                *pj_per_bit = dram_presets[i].pj_per_bit;
            return LF_OK;
        }
    return lf_set_error(LF_ENOTFOUND, "\"%.20s\" is not a DRAM preset (use LPDDR4, LPDDR, DDR3, "
                                      "GDDR5, HBM2 or HMC, or a figure such as 8pJ/bit)",
                        name ? name : "");
}

/* White space around the value is ignored, as for every other attribute. */
static void lf__trim(const char *text, char *buf, size_t cap)
{
    size_t n;
    while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r')
        text++;
    n = strlen(text);
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\n' ||
                     text[n - 1] == '\r'))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
}

lf_status lf__hw_parse_dram_energy(const char *text, double *pj_per_byte, char preset[16])
{
    char word[24];
    double v;
    lf_status s;
    if (!text || !pj_per_byte)
        return lf_set_error(LF_EINVAL, "no DRAM energy given");
    lf__trim(text, word, sizeof word);
    if (word[0] >= 'A' && word[0] <= 'Z') { /* a preset name, never a number */
        if ((s = lf_hw_dram_preset(word, &v)) != LF_OK)
            return lf_set_error(LF_EPARSE, "\"%.20s\" is not a DRAM preset (use LPDDR4, LPDDR, DDR3, "
                                           "GDDR5, HBM2 or HMC, or a figure such as 8pJ/bit)",
                                word);
        *pj_per_byte = 8.0 * v;
        if (preset)
            strcpy(preset, word);
        return LF_OK;
    }
    size_t n = strlen(word);
    if (n >= 2 && strcmp(word + n - 2, "/B") == 0)
        s = lf__hw_parse_energy(text, &v);
    else if ((s = lf__hw_parse_bit_energy(text, &v)) == LF_OK)
        v *= 8.0;
    if (s != LF_OK)
        return s;
    *pj_per_byte = v;
    if (preset)
        preset[0] = '\0';
    return LF_OK;
}

lf_status lf__hw_parse_sram_energy(const char *text, double *pj_per_byte)
{
    char word[8];
    if (!text || !pj_per_byte)
        return lf_set_error(LF_EINVAL, "no SRAM energy given");
    lf__trim(text, word, sizeof word);
    if (strcmp(word, "auto") == 0) {
        *pj_per_byte = 0.0;
        return LF_OK;
    }
    return lf__hw_parse_energy(text, pj_per_byte);
}

double lf_hw_sram_pj_model(int64_t bytes)
{
    /* (bytes, pJ per byte): Horowitz's 64-bit reads divided by 8. Between
     * two points and beyond the ends the model is a power law (a straight
     * line in log-log), so it is continuous and grows with the size. */
    static const double size[3] = {8192.0, 32768.0, 1048576.0};
    static const double pj[3] = {10.0 / 8, 20.0 / 8, 100.0 / 8};
    double x = bytes > 0 ? (double)bytes : 1.0;
    int i = x <= size[1] ? 0 : 1;
    double slope = log(pj[i + 1] / pj[i]) / log(size[i + 1] / size[i]);
    return pj[i] * pow(x / size[i], slope);
}

double lf_hw_mac_pj_model(const char *type)
{
    /* Multiply plus add of the same type. int16's multiply is not in the
     * table: the geometric mean of the 8- and 32-bit figures (multiplier
     * energy grows about as the square of the width), 0.8 pJ. bf16 is
     * priced as fp16. */
    static const struct {
        const char *name;
        double mul, add;
    } t[] = {
        {"int8", 0.2, 0.03}, {"uint8", 0.2, 0.03}, {"int16", 0.8, 0.05}, {"fp16", 1.1, 0.4},
        {"bf16", 1.1, 0.4},  {"int32", 3.1, 0.1},  {"fp32", 3.7, 0.9},
    };
    for (size_t i = 0; type && i < sizeof t / sizeof t[0]; i++)
        if (strcmp(type, t[i].name) == 0)
            return t[i].mul + t[i].add;
    return 0.0;
}

/* The type of an element: its kept name when that name has the element's
 * size, else (a description built in code, or bytes overridden after
 * loading) int8, fp16 or fp32 by size. */
static const char *lf__type_of(const char *name, int32_t bytes)
{
    int32_t named = 0;
    if (name && name[0] && lf__hw_parse_datatype(name, &named) == LF_OK && named == bytes)
        return name;
    return bytes >= 4 ? "fp32" : bytes == 2 ? "fp16" : "int8";
}

int lf_hw_has_energy(const lf_hw *hw)
{
    return hw && (hw->has_energy || hw->dram_pj_per_byte > 0);
}

void lf_hw_energy_model(const lf_hw *hw, lf_hw_energy *e)
{
    if (!hw || !e)
        return;
    if (hw->dram_pj_per_byte > 0) {
        e->dram_pj_per_byte = hw->dram_pj_per_byte;
        e->dram_source = hw->dram_preset[0] ? "preset (Accelergy's DRAM table)" : "given";
    } else {
        e->dram_pj_per_byte = 8.0 * 8.0;
        e->dram_source = "default: LPDDR4, 8 pJ/bit (Accelergy's DRAM table)";
    }
    if (hw->sram_pj_per_byte > 0) {
        e->sram_pj_per_byte = hw->sram_pj_per_byte;
        e->sram_source = "given";
    } else {
        e->sram_pj_per_byte = lf_hw_sram_pj_model(hw->buffer_bytes);
        e->sram_source = "size model (Horowitz ISSCC 2014, 45 nm)";
    }
    if (hw->mac_pj > 0) {
        e->mac_pj = hw->mac_pj;
        e->mac_source = "given";
    } else {
        /* The wider of the two operands sets the multiplier; on a tie the
         * activation's type (int8 x int8, fp16 x fp16 in practice). */
        const char *a = lf__type_of(hw->act_type, hw->act_bytes);
        const char *w = lf__type_of(hw->weight_type, hw->weight_bytes);
        e->mac_pj = lf_hw_mac_pj_model(hw->weight_bytes > hw->act_bytes ? w : a);
        e->mac_source = "data-type table (Horowitz ISSCC 2014, 45 nm)";
    }
}

/* The energy and compute parts of hardware descriptions (DESIGN §19,
 * docs/hardware-format.md): presets, the default models with the figures of
 * their sources, the shipped examples, and bad values named by file, line
 * and attribute. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "testlib.h"

#define HW_DIR LF_SOURCE_DIR "/examples/hw/"
#define BAD_DIR LF_SOURCE_DIR "/tests/data/hw/"

/* Accelergy's DRAM table in pJ/bit, and the byte figure a preset stores. */
static void test_presets(void)
{
    static const struct {
        const char *name;
        double pj_per_bit;
    } t[] = {{"LPDDR4", 8}, {"LPDDR", 40}, {"DDR3", 70}, {"GDDR5", 14}, {"HBM2", 3.9}, {"HMC", 4.2}};
    const char *const *names = lf_hw_dram_preset_names();
    int n = 0;
    while (names[n])
        n++;
    CHECK_EQ_I64(n, 6);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        double v = 0;
        char doc[256];
        lf_hw hw;
        CHECK_OK(lf_hw_dram_preset(t[i].name, &v));
        CHECK_NEAR(v, t[i].pj_per_bit, 0);
        snprintf(doc, sizeof doc,
                 "<hardware name=\"p\"><buffer size=\"64KB\"/><dram bandwidth=\"1GB/s\"/>"
                 "<energy dram=\" %s \"/></hardware>",
                 t[i].name);
        CHECK_OK(lf_hw_load_memory(&hw, doc, -1, "p.xml"));
        CHECK_NEAR(hw.dram_pj_per_byte, 8 * t[i].pj_per_bit, 1e-12);
        CHECK_STR(hw.dram_preset, t[i].name);
        CHECK(lf_hw_has_energy(&hw));
    }
    CHECK_EQ_I64(lf_hw_dram_preset("lpddr4", NULL), LF_ENOTFOUND); /* names are exact */
    CHECK_EQ_I64(lf_hw_dram_preset(NULL, NULL), LF_ENOTFOUND);
}

/* Horowitz's 45 nm figures: 64-bit reads of 10, 20 and 100 pJ at 8 KB,
 * 32 KB and 1 MB are 1.25, 2.5 and 12.5 pJ per byte; between and beyond
 * them a power law. */
static void test_sram_model(void)
{
    CHECK_NEAR(lf_hw_sram_pj_model(8192), 1.25, 1e-12);
    CHECK_NEAR(lf_hw_sram_pj_model(32768), 2.5, 1e-12);
    CHECK_NEAR(lf_hw_sram_pj_model(1048576), 12.5, 1e-12);
    /* 16 KB: half-way (in log) between 8 KB and 32 KB: sqrt(1.25 * 2.5). */
    CHECK_NEAR(lf_hw_sram_pj_model(16384), sqrt(1.25 * 2.5), 1e-12);
    /* 256 KB: 2.5 * 8^(log 5 / log 32) = 6.5663... */
    CHECK_NEAR(lf_hw_sram_pj_model(262144), 2.5 * pow(8.0, log(5.0) / log(32.0)), 1e-12);
    CHECK_NEAR(lf_hw_sram_pj_model(262144), 6.5663, 1e-4);
    /* 2 MB extrapolates the upper slope: 12.5 * 2^0.4644 = 17.2466 */
    CHECK_NEAR(lf_hw_sram_pj_model(2097152), 17.2466, 1e-4);
    /* 2 KB extrapolates the lower slope (0.5): 1.25 / 2 */
    CHECK_NEAR(lf_hw_sram_pj_model(2048), 0.625, 1e-12);
    for (int64_t b = 1024; b < ((int64_t)1 << 30); b *= 2)
        CHECK(lf_hw_sram_pj_model(2 * b) > lf_hw_sram_pj_model(b));
}

static void test_mac_model(void)
{
    CHECK_NEAR(lf_hw_mac_pj_model("int8"), 0.23, 1e-12);
    CHECK_NEAR(lf_hw_mac_pj_model("uint8"), 0.23, 1e-12);
    CHECK_NEAR(lf_hw_mac_pj_model("int16"), 0.85, 1e-12);
    CHECK_NEAR(lf_hw_mac_pj_model("fp16"), 1.5, 1e-12);
    CHECK_NEAR(lf_hw_mac_pj_model("bf16"), 1.5, 1e-12);
    CHECK_NEAR(lf_hw_mac_pj_model("int32"), 3.2, 1e-12);
    CHECK_NEAR(lf_hw_mac_pj_model("fp32"), 4.6, 1e-12);
    CHECK_NEAR(lf_hw_mac_pj_model("int4"), 0, 0);

    /* The wider operand picks the row; the model fills what is not given. */
    lf_hw hw;
    lf_hw_energy e;
    lf_hw_default(&hw);
    CHECK(!lf_hw_has_energy(&hw));
    lf_hw_energy_model(&hw, &e);
    CHECK_NEAR(e.dram_pj_per_byte, 64, 0); /* LPDDR4 8 pJ/bit */
    CHECK_NEAR(e.sram_pj_per_byte, lf_hw_sram_pj_model(256 * 1024), 0);
    CHECK_NEAR(e.mac_pj, 0.23, 1e-12);
    CHECK_OK(lf_hw_load_memory(&hw,
                               "<hardware name=\"m\"><buffer size=\"64KB\"/><dram bandwidth=\"1GB/s\" "
                               "energy=\"20pJ/B\"/><datatypes activation=\"int8\" weight=\"fp16\"/>"
                               "</hardware>",
                               -1, "m.xml"));
    CHECK(lf_hw_has_energy(&hw)); /* the old attribute alone turns energy on */
    lf_hw_energy_model(&hw, &e);
    CHECK_NEAR(e.dram_pj_per_byte, 20, 0);
    CHECK_NEAR(e.mac_pj, 1.5, 1e-12);
    /* Bytes alone (a description built in code) map to int8, fp16, fp32. */
    lf_hw_default(&hw);
    hw.act_type[0] = hw.weight_type[0] = '\0';
    hw.act_bytes = hw.weight_bytes = 4;
    lf_hw_energy_model(&hw, &e);
    CHECK_NEAR(e.mac_pj, 4.6, 1e-12);
    /* A kept name that no longer matches the size (bytes overridden) gives way. */
    lf_hw_default(&hw);
    hw.act_bytes = 2;
    lf_hw_energy_model(&hw, &e);
    CHECK_NEAR(e.mac_pj, 1.5, 1e-12);
}

static void test_examples(void)
{
    lf_hw hw;
    lf_hw_energy e;
    CHECK_OK(lf_hw_load(&hw, HW_DIR "npu-edge-lpddr4.xml"));
    CHECK_STR(hw.name, "npu-edge-lpddr4");
    CHECK_EQ_I64(hw.buffer_bytes, 512 * 1024);
    CHECK_NEAR(hw.macs_per_cycle, 1024, 0);
    CHECK_NEAR(hw.clock_hz, 1e9, 0);
    CHECK_NEAR(hw.peak_macs, 1.024e12, 0);
    CHECK(hw.has_energy);
    lf_hw_energy_model(&hw, &e);
    CHECK_NEAR(e.dram_pj_per_byte, 64, 0);
    CHECK_NEAR(e.sram_pj_per_byte, 9.0597, 1e-4);
    CHECK_NEAR(e.mac_pj, 0.23, 1e-12);

    CHECK_OK(lf_hw_load(&hw, HW_DIR "dc-hbm2.xml"));
    CHECK_EQ_I64(hw.buffer_bytes, 16 * 1024 * 1024);
    CHECK_NEAR(hw.peak_macs, 16384 * 1.4e9, 1);
    CHECK_EQ_I64(hw.act_bytes, 2);
    CHECK_STR(hw.act_type, "bf16");
    lf_hw_energy_model(&hw, &e);
    CHECK_NEAR(e.dram_pj_per_byte, 31.2, 1e-12);
    CHECK_NEAR(e.sram_pj_per_byte, 45.30, 1e-2);
    CHECK_NEAR(e.mac_pj, 1.5, 1e-12);

    /* Given figures win over the models; fJ and pJ/bit convert. */
    CHECK_OK(lf_hw_load_memory(&hw,
                               "<hardware name=\"g\"><buffer size=\"64KB\"/><dram bandwidth=\"1GB/s\"/>"
                               "<energy dram=\"2.5pJ/bit\" sram=\"1.5pJ/B\" mac=\"150fJ\"/>"
                               "<compute peak=\"2TMAC/s\"/></hardware>",
                               -1, "g.xml"));
    lf_hw_energy_model(&hw, &e);
    CHECK_NEAR(e.dram_pj_per_byte, 20, 1e-12);
    CHECK_STR(hw.dram_preset, "");
    CHECK_NEAR(e.sram_pj_per_byte, 1.5, 0);
    CHECK_NEAR(e.mac_pj, 0.15, 1e-15);
    CHECK_NEAR(hw.peak_macs, 2e12, 0);
    CHECK_NEAR(hw.macs_per_cycle, 0, 0);
    CHECK_OK(lf_hw_load_memory(&hw,
                               "<hardware name=\"g\"><buffer size=\"64KB\"/><dram bandwidth=\"1GB/s\"/>"
                               "<energy dram=\"40pJ/B\"/></hardware>",
                               -1, "g.xml"));
    CHECK_NEAR(hw.dram_pj_per_byte, 40, 0);
}

static const struct {
    const char *file;
    lf_status status;
    int line;
    const char *detail;
} bad[] = {
    {"energy-bad-preset.xml", LF_EPARSE, 6, "<energy> attribute dram: \"DDR5\" is not a DRAM preset (use LPDDR4"},
    {"energy-twice.xml", LF_EPARSE, 6, "already given by <dram energy=...> on line 5"},
    {"energy-negative-mac.xml", LF_ERANGE, 6, "<energy> attribute mac: \"-0.2pJ\" is negative"},
    {"energy-sram-unit.xml", LF_EPARSE, 6, "<energy> attribute sram: \"1pJ/bit\" has an unknown unit"},
    {"compute-no-clock.xml", LF_EPARSE, 6, "<compute> needs peak"},
    {"compute-both.xml", LF_EPARSE, 6, "<compute> gives peak and macs-per-cycle"},
    {"compute-fractional.xml", LF_ERANGE, 6, "<compute> attribute macs-per-cycle: \"10.5\" is not a whole number"},
};

static void test_bad(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[512], where[600];
        lf_hw hw, before;
        snprintf(path, sizeof path, "%s%s", BAD_DIR, bad[i].file);
        snprintf(where, sizeof where, "%s:%d: ", path, bad[i].line);
        memset(&hw, 0x5a, sizeof hw);
        before = hw;
        lf_status s = lf_hw_load(&hw, path);
        const char *msg = lf_last_error();
        if (s != bad[i].status || !strstr(msg, bad[i].detail) || strncmp(msg, where, strlen(where)))
            fprintf(stderr, "%s: status %d: %s\n", bad[i].file, (int)s, msg);
        CHECK_EQ_I64(s, bad[i].status);
        CHECK(strncmp(msg, where, strlen(where)) == 0);
        CHECK(strstr(msg, bad[i].detail) != NULL);
        CHECK(strchr(msg, '\n') == NULL);
        CHECK(memcmp(&hw, &before, sizeof hw) == 0);
    }
}

int main(void)
{
    test_presets();
    test_sram_model();
    test_mac_model();
    test_examples();
    test_bad();
    return lf_test_result();
}

/* Hardware descriptions: unit parsing, the built-in default, the example
 * files, every bad fixture under tests/data/hw/ (status, message naming file,
 * line and element, *hw untouched), loading from memory, silence on stderr
 * and concurrent loads from several threads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwdesc/hw.h"
#include "hwdesc/hw_internal.h"
#include "testlib.h"

#define HW_DIR LF_SOURCE_DIR "/examples/hw/"
#define BAD_DIR LF_SOURCE_DIR "/tests/data/hw/"

#define CHECK_CONTAINS(haystack, needle)                                                \
    do {                                                                                \
        const char *lf_h_ = (haystack), *lf_n_ = (needle);                              \
        lf_test_checks++;                                                               \
        if (!strstr(lf_h_, lf_n_)) {                                                    \
            lf_test_failures++;                                                         \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__,        \
                    __LINE__, lf_h_, lf_n_);                                            \
        }                                                                               \
    } while (0)

/* ---------------------------------------------------------------------- */
/* Units                                                                   */

enum kind { SIZE, BANDWIDTH, ENERGY, MACS, FLOPS, TIME, DTYPE, DEVICE };

typedef struct unit_case {
    enum kind kind;
    const char *text;
    lf_status status;
    double value; /* expected when status is LF_OK */
    const char *message; /* substring expected in the message on failure, or NULL */
} unit_case;

static const unit_case unit_cases[] = {
    /* sizes: KB and KiB both 1024, MB and MiB both 1048576 */
    {SIZE, "256KB", LF_OK, 262144, NULL},
    {SIZE, "256 KiB", LF_OK, 262144, NULL},
    {SIZE, "256  KB", LF_OK, 262144, NULL},
    {SIZE, " 128KB\t", LF_OK, 131072, NULL},
    {SIZE, "1MB", LF_OK, 1048576, NULL},
    {SIZE, "1 MiB", LF_OK, 1048576, NULL},
    {SIZE, "2048B", LF_OK, 2048, NULL},
    {SIZE, "1B", LF_OK, 1, NULL},
    {SIZE, "1.5MB", LF_OK, 1572864, NULL},
    {SIZE, "0.5KB", LF_OK, 512, NULL},
    {SIZE, "0.25KiB", LF_OK, 256, NULL},
    {SIZE, "000000000000000000000256KB", LF_OK, 262144, NULL},
    {SIZE, "256.000000000000000000000KB", LF_OK, 262144, NULL},
    {SIZE, "1048576MB", LF_OK, 1099511627776.0, NULL},
    {SIZE, "1099511627776B", LF_OK, 1099511627776.0, NULL},
    {SIZE, "1099511627777B", LF_ERANGE, 0, "above the limit of 1 TiB"},
    {SIZE, "2097152MB", LF_ERANGE, 0, "above the limit of 1 TiB"},
    {SIZE, "99999999999999999MiB", LF_ERANGE, 0, "above the limit"},
    {SIZE, "256", LF_EPARSE, 0, "\"256\" has no unit (use B, KB, KiB, MB or MiB)"},
    {SIZE, "256 ", LF_EPARSE, 0, "has no unit"},
    {SIZE, "", LF_EPARSE, 0, "empty value"},
    {SIZE, "  ", LF_EPARSE, 0, "empty value"},
    {SIZE, "-256KB", LF_ERANGE, 0, "\"-256KB\" is negative"},
    {SIZE, "-0.5KB", LF_ERANGE, 0, "is negative"},
    {SIZE, "0KB", LF_ERANGE, 0, "is zero"},
    {SIZE, "0.000KB", LF_ERANGE, 0, "is zero"},
    {SIZE, "1.5B", LF_ERANGE, 0, "not a whole number of bytes"},
    {SIZE, "0.3KB", LF_ERANGE, 0, "not a whole number of bytes"},
    {SIZE, "256kB", LF_EPARSE, 0, "unknown unit \"kB\" (use B, KB, KiB, MB or MiB; units are case-sensitive)"},
    {SIZE, "256kb", LF_EPARSE, 0, "case-sensitive"},
    {SIZE, "256 GB", LF_EPARSE, 0, "unknown unit \"GB\" (use B, KB, KiB, MB or MiB)"},
    {SIZE, "256KB/s", LF_EPARSE, 0, "unknown unit \"KB/s\""},
    {SIZE, "256 KB x", LF_EPARSE, 0, "unknown unit"},
    {SIZE, "1e3KB", LF_EPARSE, 0, "unknown unit \"e3KB\""},
    {SIZE, "KB", LF_EPARSE, 0, "does not start with a number"},
    {SIZE, "+256KB", LF_EPARSE, 0, "does not start with a number"},
    {SIZE, ".5KB", LF_EPARSE, 0, "does not start with a number"},
    {SIZE, "1.KB", LF_EPARSE, 0, "malformed number"},
    {SIZE, "1,5KB", LF_EPARSE, 0, "malformed number"},
    {SIZE, "1.2.3KB", LF_EPARSE, 0, "malformed number"},
    {SIZE, "1234567890123456789KB", LF_EPARSE, 0, "too many digits"},
    {SIZE, "0.0000000000000000001KB", LF_EPARSE, 0, "too many digits"},
    /* bandwidths: decimal */
    {BANDWIDTH, "25.6GB/s", LF_OK, 25.6e9, NULL},
    {BANDWIDTH, "1.2 TB/s", LF_OK, 1.2e12, NULL},
    {BANDWIDTH, "3.35TB/s", LF_OK, 3.35e12, NULL},
    {BANDWIDTH, "800MB/s", LF_OK, 800e6, NULL},
    {BANDWIDTH, "1000TB/s", LF_OK, 1e15, NULL},
    {BANDWIDTH, "1001TB/s", LF_ERANGE, 0, "above the limit of 1 PB/s"},
    {BANDWIDTH, "25.6GB", LF_EPARSE, 0, "unknown unit \"GB\" (use MB/s, GB/s or TB/s)"},
    {BANDWIDTH, "25.6 Gb/s", LF_EPARSE, 0, "unknown unit"},
    {BANDWIDTH, "25.6GiB/s", LF_EPARSE, 0, "unknown unit"},
    {BANDWIDTH, "25.6", LF_EPARSE, 0, "has no unit (use MB/s, GB/s or TB/s)"},
    {BANDWIDTH, "0GB/s", LF_ERANGE, 0, "is zero"},
    {BANDWIDTH, "-1GB/s", LF_ERANGE, 0, "is negative"},
    {BANDWIDTH, "fast", LF_EPARSE, 0, "does not start with a number"},
    /* energy, compute rates, times */
    {ENERGY, "20pJ/B", LF_OK, 20, NULL},
    {ENERGY, "3.5 pJ/B", LF_OK, 3.5, NULL},
    {ENERGY, "20pJ/b", LF_EPARSE, 0, "unknown unit"},
    {ENERGY, "20", LF_EPARSE, 0, "has no unit (use pJ/B)"},
    {ENERGY, "20000pJ/B", LF_ERANGE, 0, "above the limit"},
    {MACS, "2TMAC/s", LF_OK, 2e12, NULL},
    {MACS, "512GMAC/s", LF_OK, 512e9, NULL},
    {MACS, "100 MMAC/s", LF_OK, 100e6, NULL},
    {MACS, "1000MAC/s", LF_OK, 1000, NULL},
    {MACS, "2TOPS", LF_EPARSE, 0, "unknown unit"},
    {FLOPS, "989TFLOP/s", LF_OK, 989e12, NULL},
    {FLOPS, "67 TFLOP/s", LF_OK, 67e12, NULL},
    {FLOPS, "1.5PFLOP/s", LF_OK, 1.5e15, NULL},
    {FLOPS, "19.5GFLOP/s", LF_OK, 19.5e9, NULL},
    {FLOPS, "989TFLOPS", LF_EPARSE, 0, "unknown unit"},
    {TIME, "5us", LF_OK, 5e-6, NULL},
    {TIME, "0.5 ms", LF_OK, 5e-4, NULL},
    {TIME, "800ns", LF_OK, 800e-9, NULL},
    {TIME, "1s", LF_OK, 1, NULL},
    {TIME, "2s", LF_ERANGE, 0, "above the limit of 1 s"},
    {TIME, "5 sec", LF_EPARSE, 0, "unknown unit \"sec\" (use s, ms, us or ns)"},
    {TIME, "5µs", LF_EPARSE, 0, "unknown unit"},
    /* data types and device indexes */
    {DTYPE, "int8", LF_OK, 1, NULL},
    {DTYPE, "uint8", LF_OK, 1, NULL},
    {DTYPE, "int16", LF_OK, 2, NULL},
    {DTYPE, "fp16", LF_OK, 2, NULL},
    {DTYPE, "bf16", LF_OK, 2, NULL},
    {DTYPE, " int32 ", LF_OK, 4, NULL},
    {DTYPE, "fp32", LF_OK, 4, NULL},
    {DTYPE, "int4", LF_EPARSE, 0, "\"int4\" is not a known data type"},
    {DTYPE, "FP32", LF_EPARSE, 0, "not a known data type"},
    {DTYPE, "", LF_EPARSE, 0, "not a known data type"},
    {DEVICE, "0", LF_OK, 0, NULL},
    {DEVICE, " 7 ", LF_OK, 7, NULL},
    {DEVICE, "255", LF_OK, 255, NULL},
    {DEVICE, "256", LF_ERANGE, 0, "above the largest device index 255"},
    {DEVICE, "99999999999999999999", LF_ERANGE, 0, "above the largest"},
    {DEVICE, "-1", LF_ERANGE, 0, "is negative"},
    {DEVICE, "gpu0", LF_EPARSE, 0, "not a device index"},
    {DEVICE, "", LF_EPARSE, 0, "not a device index"},
};

static lf_status parse_any(enum kind kind, const char *text, double *value)
{
    lf_status s = LF_EINVAL;
    int64_t i64 = 0;
    int32_t i32 = 0;
    switch (kind) {
    case SIZE:
        if ((s = lf_hw_parse_size(text, &i64)) == LF_OK)
            *value = (double)i64;
        break;
    case BANDWIDTH: s = lf_hw_parse_bandwidth(text, value); break;
    case ENERGY: s = lf__hw_parse_energy(text, value); break;
    case MACS: s = lf__hw_parse_mac_rate(text, value); break;
    case FLOPS: s = lf__hw_parse_flop_rate(text, value); break;
    case TIME: s = lf__hw_parse_time(text, value); break;
    case DTYPE:
        if ((s = lf__hw_parse_datatype(text, &i32)) == LF_OK)
            *value = i32;
        break;
    case DEVICE:
        if ((s = lf__hw_parse_device(text, &i32)) == LF_OK)
            *value = i32;
        break;
    }
    return s;
}

static void test_units(void)
{
    for (size_t i = 0; i < sizeof unit_cases / sizeof unit_cases[0]; i++) {
        const unit_case *c = &unit_cases[i];
        double value = -12345.0;
        lf_clear_error();
        lf_status s = parse_any(c->kind, c->text, &value);
        if (s != c->status)
            fprintf(stderr, "unit case \"%s\": status %d (%s), expected %d\n", c->text, (int)s,
                    lf_last_error(), (int)c->status);
        CHECK_EQ_I64(s, c->status);
        if (c->status == LF_OK) {
            /* Decimal figures are computed with one rounding, so they equal
             * the C literal exactly or within one ulp. */
            CHECK_NEAR(value, c->value, c->value * 1e-15);
        } else {
            CHECK(value == -12345.0); /* output untouched on failure */
            if (c->message)
                CHECK_CONTAINS(lf_last_error(), c->message);
        }
    }

    /* Outputs are left alone on failure. */
    int64_t bytes = 77;
    CHECK_EQ_I64(lf_hw_parse_size("256", &bytes), LF_EPARSE);
    CHECK_EQ_I64(bytes, 77);
    CHECK_EQ_I64(lf_hw_parse_size("-1KB", &bytes), LF_ERANGE);
    CHECK_EQ_I64(bytes, 77);

    /* Bad arguments are reported, not crashed on. */
    CHECK_EQ_I64(lf_hw_parse_size(NULL, &bytes), LF_EINVAL);
    CHECK_EQ_I64(lf_hw_parse_size("1KB", NULL), LF_EINVAL);
    CHECK_EQ_I64(lf_hw_parse_bandwidth(NULL, NULL), LF_EINVAL);

    /* A long value is cut short in the message, which stays one short line. */
    char longtext[300];
    memset(longtext, '7', sizeof longtext - 1);
    longtext[sizeof longtext - 1] = '\0';
    CHECK(lf_hw_parse_size(longtext, &bytes) != LF_OK);
    CHECK(strlen(lf_last_error()) < 160);
    CHECK(strchr(lf_last_error(), '\n') == NULL);
}

/* The schema's value patterns and the C parsers must agree: every unit case
 * above, put into a document, loads (or fails) exactly as the parser alone
 * says, so a value is never accepted by one and refused by the other. */
static void test_units_in_documents(void)
{
    for (size_t i = 0; i < sizeof unit_cases / sizeof unit_cases[0]; i++) {
        const unit_case *c = &unit_cases[i];
        const char *buffer = "1KB", *dram = "1GB/s", *energy = NULL, *compute = NULL;
        const char *dtype = NULL, *device = NULL, *peak = NULL, *launch = NULL;
        char doc[1024], extra[512] = "";
        lf_hw hw;
        double got = 0;

        switch (c->kind) {
        case SIZE: buffer = c->text; break;
        case BANDWIDTH: dram = c->text; break;
        case ENERGY: energy = c->text; break;
        case MACS: compute = c->text; break;
        case FLOPS: device = "0"; peak = c->text; break;
        case TIME: device = "0"; launch = c->text; break;
        case DTYPE: dtype = c->text; break;
        case DEVICE: device = c->text; break;
        }
        if (compute)
            snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
                     "<compute peak=\"%s\"/>", compute);
        if (dtype)
            snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
                     "<datatypes activation=\"%s\"/>", dtype);
        if (device)
            snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
                     "<gpu device=\"%s\"%s%s%s%s%s%s/>", device, peak ? " peak=\"" : "",
                     peak ? peak : "", peak ? "\"" : "", launch ? " launch-overhead=\"" : "",
                     launch ? launch : "", launch ? "\"" : "");
        snprintf(doc, sizeof doc,
                 "<hardware name=\"units\">\n<buffer size=\"%s\"/>\n<dram bandwidth=\"%s\"%s%s%s/>"
                 "\n%s\n</hardware>\n",
                 buffer, dram, energy ? " energy=\"" : "", energy ? energy : "",
                 energy ? "\"" : "", extra);

        lf_status s = lf_hw_load_memory(&hw, doc, -1, "units.xml");
        if (s != c->status)
            fprintf(stderr, "unit case \"%s\" in a document: status %d, expected %d: %s\n",
                    c->text, (int)s, (int)c->status, lf_last_error());
        CHECK_EQ_I64(s, c->status);
        if (s != LF_OK) {
            if (c->message)
                CHECK_CONTAINS(lf_last_error(), c->message);
            CHECK_CONTAINS(lf_last_error(), "units.xml:");
            continue;
        }
        switch (c->kind) {
        case SIZE: got = (double)hw.buffer_bytes; break;
        case BANDWIDTH: got = hw.dram_bandwidth; break;
        case ENERGY: got = hw.dram_pj_per_byte; break;
        case MACS: got = hw.peak_macs; break;
        case FLOPS: got = hw.gpu.peak_flops; break;
        case TIME: got = hw.gpu.launch_overhead_s; break;
        case DTYPE: got = hw.act_bytes; break;
        case DEVICE: got = hw.gpu.device_index; break;
        }
        CHECK_NEAR(got, c->value, c->value * 1e-15);
    }
}

/* The schema compiled into the library is the one in the source tree. */
static void test_embedded_schema(void)
{
    FILE *f = fopen(LF_SOURCE_DIR "/hwdesc/hwdesc.xsd", "rb");
    static char text[1 << 16];
    size_t n;
    CHECK(f != NULL);
    if (!f)
        return;
    n = fread(text, 1, sizeof text, f);
    fclose(f);
    CHECK_EQ_I64((long)n, lf_hwdesc_xsd_len);
    CHECK(n == (size_t)lf_hwdesc_xsd_len && memcmp(text, lf_hwdesc_xsd, n) == 0);
}

static void test_format_size(void)
{
    static const struct {
        int64_t bytes;
        const char *text;
    } cases[] = {
        {0, "0 B"},
        {100, "100 B"},
        {1023, "1023 B"},
        {1024, "1 KB"},
        {1025, "1025 B"}, /* 1.0009765625 KB: never rounded */
        {1536, "1.5 KB"},
        {131072, "128 KB"},
        {262144, "256 KB"},
        {524288, "512 KB"},
        {1048576, "1 MB"},
        {1310720, "1.25 MB"},
        {1572864, "1.5 MB"},
        {2097152, "2 MB"},
        {2097152 + 1024, "2049 KB"},
        {(int64_t)1 << 30, "1 GB"},
        {(int64_t)1 << 40, "1 TB"},
        {-5, "-5 B"},
    };
    char buf[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lf_hw_format_size(cases[i].bytes, buf, (int)sizeof buf);
        CHECK_STR(buf, cases[i].text);
    }
    /* Truncates to the buffer and always terminates. */
    char small[8];
    memset(small, 'x', sizeof small);
    lf_hw_format_size(262144, small, 4);
    CHECK_STR(small, "256");
    CHECK(small[4] == 'x');
    lf_hw_format_size(262144, NULL, 10); /* no crash */
    lf_hw_format_size(262144, small, 0);
}

/* ---------------------------------------------------------------------- */
/* Default and examples                                                    */

static void test_default(void)
{
    lf_hw hw;
    memset(&hw, 0x5a, sizeof hw);
    lf_hw_default(&hw);
    CHECK_STR(hw.name, "default-256k");
    CHECK_STR(hw.source, "built-in default");
    CHECK_EQ_I64(hw.buffer_bytes, 256 * 1024);
    CHECK_EQ_I64(hw.act_bytes, 1);
    CHECK_EQ_I64(hw.weight_bytes, 1);
    CHECK_NEAR(hw.dram_bandwidth, 25.6e9, 0);
    CHECK_NEAR(hw.dram_pj_per_byte, 0, 0);
    CHECK_NEAR(hw.peak_macs, 0, 0);
    CHECK_EQ_I64(hw.has_gpu, 0);
    CHECK_EQ_I64(hw.gpu.device_index, -1);
    CHECK_STR(hw.gpu.name, "");
    lf_hw_default(NULL); /* no crash */
}

static void test_buffer_examples(void)
{
    static const struct {
        const char *file;
        const char *name;
        int64_t bytes;
    } cases[] = {
        {"buffer-128k.xml", "edge-128k", 128 * 1024},
        {"buffer-256k.xml", "edge-256k", 256 * 1024},
        {"buffer-512k.xml", "edge-512k", 512 * 1024},
        {"buffer-1024k.xml", "edge-1024k", 1024 * 1024},
        {"buffer-2048k.xml", "edge-2048k", 2048 * 1024},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        lf_hw hw;
        snprintf(path, sizeof path, "%s%s", HW_DIR, cases[i].file);
        lf_hw_default(&hw);
        CHECK_OK(lf_hw_load(&hw, path));
        CHECK_STR(hw.name, cases[i].name);
        CHECK_STR(hw.source, path);
        CHECK_EQ_I64(hw.buffer_bytes, cases[i].bytes);
        CHECK_EQ_I64(hw.act_bytes, 1);
        CHECK_EQ_I64(hw.weight_bytes, 1);
        CHECK_NEAR(hw.dram_bandwidth, 25.6e9, 0);
        CHECK_NEAR(hw.dram_pj_per_byte, 20, 0);
        CHECK_NEAR(hw.peak_macs, 0, 0);
        CHECK_EQ_I64(hw.has_gpu, 0);
        CHECK_EQ_I64(hw.gpu.device_index, -1);
    }
}

static void test_gpu_example(void)
{
    lf_hw hw;
    lf_hw_default(&hw);
    CHECK_OK(lf_hw_load(&hw, HW_DIR "gpu-h100.xml"));
    CHECK_STR(hw.name, "nvidia-h100-sxm");
    CHECK_EQ_I64(hw.buffer_bytes, 50 * 1024 * 1024);
    CHECK_EQ_I64(hw.act_bytes, 4);
    CHECK_EQ_I64(hw.weight_bytes, 4);
    CHECK_NEAR(hw.dram_bandwidth, 3.35e12, 0);
    CHECK_NEAR(hw.dram_pj_per_byte, 0, 0);
    CHECK_NEAR(hw.peak_macs, 247.5e12, 0);
    CHECK_EQ_I64(hw.has_gpu, 1);
    CHECK_STR(hw.gpu.name, "NVIDIA H100 80GB HBM3");
    CHECK_EQ_I64(hw.gpu.device_index, 0);
    CHECK_NEAR(hw.gpu.peak_flops, 495e12, 0);
    CHECK_NEAR(hw.gpu.bandwidth, 3.35e12, 0);
    CHECK_NEAR(hw.gpu.launch_overhead_s, 5e-6, 1e-20);
}

/* ---------------------------------------------------------------------- */
/* Bad inputs                                                              */

typedef struct bad_case {
    const char *file;
    lf_status status;
    int line;
    const char *element; /* as it appears in the message */
    const char *detail;
} bad_case;

static const bad_case bad_cases[] = {
    {"not-well-formed.xml", LF_EPARSE, 6, "<buffer>", "not well-formed XML: <buffer> opened on line 4 is closed by </hardware>"},
    {"wrong-root.xml", LF_EPARSE, 3, "<accelerator>", "root element is <accelerator>, expected <hardware>"},
    {"missing-buffer.xml", LF_EPARSE, 3, "<hardware>", "<hardware> has no <buffer> element (required"},
    {"missing-dram.xml", LF_EPARSE, 3, "<hardware>", "has no <dram> element"},
    {"negative-size.xml", LF_ERANGE, 5, "<buffer>", "<buffer> attribute size: \"-256KB\" is negative"},
    {"unitless-size.xml", LF_EPARSE, 5, "<buffer>", "<buffer> attribute size: \"256\" has no unit (use B, KB, KiB, MB or MiB)"},
    {"unknown-unit.xml", LF_EPARSE, 5, "<buffer>", "has an unknown unit \"kB\""},
    {"zero-size.xml", LF_ERANGE, 5, "<buffer>", "\"0KB\" is zero"},
    {"huge-size.xml", LF_ERANGE, 5, "<buffer>", "above the limit of 1 TiB"},
    {"fractional-size.xml", LF_ERANGE, 5, "<buffer>", "not a whole number of bytes"},
    {"duplicate-buffer.xml", LF_EPARSE, 6, "<buffer>", "appears more than once in <hardware> (first on line 4)"},
    {"unknown-element.xml", LF_EPARSE, 5, "<cache>", "is not a hardware description element"},
    {"missing-attribute.xml", LF_EPARSE, 4, "<buffer>", "has no size attribute (required, e.g. size=\"256KB\")"},
    {"unknown-attribute.xml", LF_EPARSE, 4, "<buffer>", "has no attribute \"banks\" (allowed: size)"},
    {"missing-name.xml", LF_EPARSE, 3, "<hardware>", "has no name attribute"},
    {"bad-datatype.xml", LF_EPARSE, 6, "<datatypes>", "attribute activation: \"int4\" is not a known data type"},
    {"bandwidth-no-per-second.xml", LF_EPARSE, 5, "<dram>", "attribute bandwidth: \"25.6GB\" has an unknown unit \"GB\""},
    {"huge-bandwidth.xml", LF_ERANGE, 5, "<dram>", "above the limit of 1 PB/s"},
    {"gpu-unnamed.xml", LF_EPARSE, 6, "<gpu>", "needs a name or a device attribute"},
    {"negative-device.xml", LF_ERANGE, 6, "<gpu>", "attribute device: \"-1\" is negative"},
    {"slow-launch.xml", LF_ERANGE, 6, "<gpu>", "attribute launch-overhead: \"2s\" is above the limit of 1 s"},
    {"text-content.xml", LF_EPARSE, 5, "<hardware>", "contains text \"fast\""},
    {"namespaced.xml", LF_EPARSE, 3, "<hardware>", "is in namespace \"urn:example:hw\""},
    {"doctype.xml", LF_EPARSE, 3, "hardware", "<!DOCTYPE hardware> is not allowed"},
    {"empty.xml", LF_EPARSE, 1, "<hardware>", "empty document"},
};

/* Fills hw with a recognisable pattern, so that any write shows. */
static void poison(lf_hw *hw)
{
    memset(hw, 0xa5, sizeof *hw);
}

static void test_bad_files(void)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        char path[512], where[600];
        lf_hw hw, before;
        snprintf(path, sizeof path, "%s%s", BAD_DIR, c->file);
        snprintf(where, sizeof where, "%s:%d: ", path, c->line);
        poison(&hw);
        before = hw;
        lf_clear_error();
        lf_status s = lf_hw_load(&hw, path);
        if (s != c->status)
            fprintf(stderr, "%s: status %d, expected %d: %s\n", c->file, (int)s, (int)c->status,
                    lf_last_error());
        CHECK_EQ_I64(s, c->status);
        const char *msg = lf_last_error();
        CHECK(strncmp(msg, where, strlen(where)) == 0); /* file and line first */
        if (strncmp(msg, where, strlen(where)) != 0)
            fprintf(stderr, "  message \"%s\" does not start with \"%s\"\n", msg, where);
        CHECK_CONTAINS(msg, c->element);
        CHECK_CONTAINS(msg, c->detail);
        CHECK(strchr(msg, '\n') == NULL);
        CHECK(memcmp(&hw, &before, sizeof hw) == 0);
    }
}

static void test_missing_files(void)
{
    lf_hw hw, before;
    poison(&hw);
    before = hw;
    CHECK_EQ_I64(lf_hw_load(&hw, BAD_DIR "no-such-file.xml"), LF_EIO);
    CHECK_CONTAINS(lf_last_error(), "no-such-file.xml");
    CHECK_CONTAINS(lf_last_error(), "cannot open");
    CHECK_EQ_I64(lf_hw_load(&hw, BAD_DIR), LF_EIO); /* a directory */
    CHECK_CONTAINS(lf_last_error(), "tests/data/hw");
    CHECK(memcmp(&hw, &before, sizeof hw) == 0);
    CHECK_EQ_I64(lf_hw_load(NULL, HW_DIR "buffer-256k.xml"), LF_EINVAL);
    CHECK_EQ_I64(lf_hw_load(&hw, NULL), LF_EINVAL);
}

/* ---------------------------------------------------------------------- */
/* From memory                                                             */

static void test_memory(void)
{
    static const char good[] =
        "<hardware name=\"  lab   board \">\n"
        "  <!-- order of children is free -->\n"
        "  <compute peak=\"512 GMAC/s\"/>\n"
        "  <dram bandwidth=\"51.2GB/s\" energy=\"4.5pJ/B\"/>\n"
        "  <datatypes activation=\"fp16\"/>\n"
        "  <buffer size=\"1.5 MiB\"/>\n"
        "  <gpu device=\"1\"/>\n"
        "</hardware>\n";
    lf_hw hw, before;

    lf_hw_default(&hw);
    CHECK_OK(lf_hw_load_memory(&hw, good, (int64_t)strlen(good), "lab.xml"));
    CHECK_STR(hw.name, "lab board"); /* white space collapsed as xs:token does */
    CHECK_STR(hw.source, "lab.xml");
    CHECK_EQ_I64(hw.buffer_bytes, 1572864);
    CHECK_EQ_I64(hw.act_bytes, 2);
    CHECK_EQ_I64(hw.weight_bytes, 1); /* default int8 */
    CHECK_NEAR(hw.dram_bandwidth, 51.2e9, 0);
    CHECK_NEAR(hw.dram_pj_per_byte, 4.5, 0);
    CHECK_NEAR(hw.peak_macs, 512e9, 0);
    CHECK_EQ_I64(hw.has_gpu, 1);
    CHECK_STR(hw.gpu.name, "");
    CHECK_EQ_I64(hw.gpu.device_index, 1);
    CHECK_NEAR(hw.gpu.peak_flops, 0, 0);

    /* Minimal document, NUL-terminated (len < 0), no origin. */
    lf_hw_default(&hw);
    CHECK_OK(lf_hw_load_memory(&hw, "<hardware name=\"m\"><buffer size=\"64KB\"/>"
                                    "<dram bandwidth=\"1TB/s\"/></hardware>", -1, NULL));
    CHECK_STR(hw.name, "m");
    CHECK_STR(hw.source, "<memory>");
    CHECK_EQ_I64(hw.buffer_bytes, 65536);
    CHECK_EQ_I64(hw.act_bytes, 1);
    CHECK_EQ_I64(hw.has_gpu, 0);
    CHECK_EQ_I64(hw.gpu.device_index, -1);

    /* Only len bytes are read: the valid prefix loads, a cut one fails. */
    static const char doc[] = "<hardware name=\"p\"><buffer size=\"1KB\"/>"
                              "<dram bandwidth=\"1GB/s\"/></hardware>GARBAGE";
    CHECK_OK(lf_hw_load_memory(&hw, doc, (int64_t)(strlen(doc) - 7), "prefix"));
    poison(&hw);
    before = hw;
    CHECK_EQ_I64(lf_hw_load_memory(&hw, doc, 20, "cut"), LF_EPARSE);
    CHECK_CONTAINS(lf_last_error(), "cut:1: not well-formed XML");
    CHECK(memcmp(&hw, &before, sizeof hw) == 0);

    /* Messages name the origin. */
    CHECK_EQ_I64(lf_hw_load_memory(&hw, "<hardware name=\"x\">\n<buffer size=\"12\"/>\n"
                                        "<dram bandwidth=\"1GB/s\"/></hardware>", -1, "inline"),
                 LF_EPARSE);
    CHECK_CONTAINS(lf_last_error(), "inline:2: <buffer> attribute size: \"12\" has no unit");
    CHECK(memcmp(&hw, &before, sizeof hw) == 0);

    /* Names are limited to 63 bytes: in characters (schema) and in UTF-8 bytes (C). */
    char buf[512], name[200];
    memset(name, 'n', 63);
    name[63] = '\0';
    snprintf(buf, sizeof buf, "<hardware name=\"%s\"><buffer size=\"1KB\"/>"
             "<dram bandwidth=\"1GB/s\"/></hardware>", name);
    CHECK_OK(lf_hw_load_memory(&hw, buf, -1, "name63"));
    CHECK_EQ_I64(strlen(hw.name), 63);
    name[63] = 'n';
    name[64] = '\0';
    snprintf(buf, sizeof buf, "<hardware name=\"%s\"><buffer size=\"1KB\"/>"
             "<dram bandwidth=\"1GB/s\"/></hardware>", name);
    CHECK_EQ_I64(lf_hw_load_memory(&hw, buf, -1, "name64"), LF_ERANGE);
    CHECK_CONTAINS(lf_last_error(), "name64:1: <hardware> attribute name:");
    name[0] = '\0';
    for (int i = 0; i < 32; i++)
        strcat(name, "\xc3\xa9"); /* 32 characters, 64 bytes */
    snprintf(buf, sizeof buf, "<hardware name=\"%s\"><buffer size=\"1KB\"/>"
             "<dram bandwidth=\"1GB/s\"/></hardware>", name);
    CHECK_EQ_I64(lf_hw_load_memory(&hw, buf, -1, "utf8"), LF_ERANGE);
    CHECK_CONTAINS(lf_last_error(), "longer than 63 bytes");

    /* Character references are fine; undefined entities are not expanded. */
    CHECK_OK(lf_hw_load_memory(&hw, "<hardware name=\"a&amp;b\"><buffer size=\"&#50;56KB\"/>"
                                    "<dram bandwidth=\"1GB/s\"/></hardware>", -1, "refs"));
    CHECK_STR(hw.name, "a&b");
    CHECK_EQ_I64(hw.buffer_bytes, 262144);
    CHECK_EQ_I64(lf_hw_load_memory(&hw, "<hardware name=\"&x;\"><buffer size=\"1KB\"/>"
                                        "<dram bandwidth=\"1GB/s\"/></hardware>", -1, "ent"),
                 LF_EPARSE);
    CHECK_CONTAINS(lf_last_error(), "ent:1: not well-formed XML");

    /* An external entity is refused before anything is fetched. */
    CHECK_EQ_I64(lf_hw_load_memory(&hw, "<!DOCTYPE hardware SYSTEM \"/etc/passwd\">\n"
                                        "<hardware name=\"x\"/>", -1, "xxe"),
                 LF_EPARSE);
    CHECK_CONTAINS(lf_last_error(), "xxe:1: <!DOCTYPE hardware> is not allowed");

    /* Elements inside a leaf element, and text inside one. */
    CHECK_EQ_I64(lf_hw_load_memory(&hw, "<hardware name=\"x\"><buffer size=\"1KB\">\n<bank/>"
                                        "</buffer><dram bandwidth=\"1GB/s\"/></hardware>", -1,
                                   "leaf"),
                 LF_EPARSE);
    CHECK_CONTAINS(lf_last_error(), "leaf:2: <buffer> must be empty, but contains <bank>");
    CHECK_EQ_I64(lf_hw_load_memory(&hw, "<hardware name=\"x\"><buffer size=\"1KB\">big"
                                        "</buffer><dram bandwidth=\"1GB/s\"/></hardware>", -1,
                                   "leaftext"),
                 LF_EPARSE);
    CHECK_CONTAINS(lf_last_error(), "leaftext:1: <buffer> must be empty, but contains text \"big\"");

    /* Empty elements hold nothing, not even white space (as in XSD); comments
     * and processing instructions are fine anywhere. */
    CHECK_EQ_I64(lf_hw_load_memory(&hw, "<hardware name=\"x\">\n<buffer size=\"1KB\">\n"
                                        "</buffer><dram bandwidth=\"1GB/s\"/></hardware>", -1,
                                   "blankleaf"),
                 LF_EPARSE);
    CHECK_CONTAINS(lf_last_error(), "blankleaf:2: <buffer> must be empty, but contains white space");
    CHECK_OK(lf_hw_load_memory(&hw, "<hardware name=\"x\"><!-- c --><buffer size=\"1KB\">"
                                    "<!-- c --><?pi x?></buffer><dram bandwidth=\"1GB/s\"/>"
                                    "</hardware>", -1, "comments"));

    /* Argument checks. */
    CHECK_EQ_I64(lf_hw_load_memory(NULL, good, -1, "x"), LF_EINVAL);
    CHECK_EQ_I64(lf_hw_load_memory(&hw, NULL, 0, "x"), LF_EINVAL);
    CHECK_EQ_I64(lf_hw_load_memory(&hw, "", 0, "zero"), LF_EPARSE);
    CHECK_CONTAINS(lf_last_error(), "zero:1: empty document");
    CHECK_EQ_I64(lf_hw_load_memory(&hw, "   \n  ", -1, "blank"), LF_EPARSE);
    CHECK_CONTAINS(lf_last_error(), "blank:");
}

/* ---------------------------------------------------------------------- */
/* Silence and threads                                                     */

/* The library must print nothing, even while failing: run every bad fixture
 * with stdout and stderr redirected to a file and check it stays empty. */
static void test_silent(void)
{
    FILE *sink = tmpfile();
    int saved_out, saved_err;
    long size;
    if (!sink) {
        CHECK(sink != NULL);
        return;
    }
    fflush(stdout);
    fflush(stderr);
    saved_out = dup(1);
    saved_err = dup(2);
    dup2(fileno(sink), 1);
    dup2(fileno(sink), 2);
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        char path[512];
        lf_hw hw;
        snprintf(path, sizeof path, "%s%s", BAD_DIR, bad_cases[i].file);
        (void)lf_hw_load(&hw, path);
    }
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    fseek(sink, 0, SEEK_END);
    size = ftell(sink);
    CHECK_EQ_I64(size, 0);
    fclose(sink);
}

typedef struct thread_job {
    int index;
    int failures;
} thread_job;

/* Each thread alternates good and bad loads; its messages must be its own
 * (thread-local) and every result must be right. */
static void *load_many(void *arg)
{
    thread_job *job = arg;
    for (int round = 0; round < 40; round++) {
        lf_hw hw;
        const bad_case *c = &bad_cases[(size_t)(round + job->index) %
                                       (sizeof bad_cases / sizeof bad_cases[0])];
        char path[512];
        if (lf_hw_load(&hw, HW_DIR "buffer-512k.xml") != LF_OK || hw.buffer_bytes != 524288) {
            fprintf(stderr, "thread %d: good load failed: %s\n", job->index, lf_last_error());
            job->failures++;
        }
        snprintf(path, sizeof path, "%s%s", BAD_DIR, c->file);
        if (lf_hw_load(&hw, path) != c->status || !strstr(lf_last_error(), c->file) ||
            !strstr(lf_last_error(), c->detail)) {
            fprintf(stderr, "thread %d: %s: %s\n", job->index, c->file, lf_last_error());
            job->failures++;
        }
    }
    return NULL;
}

static void test_threads(void)
{
    enum { N = 4 };
    pthread_t threads[N];
    thread_job jobs[N];
    for (int i = 0; i < N; i++) {
        jobs[i].index = i * 5;
        jobs[i].failures = 0;
        CHECK(pthread_create(&threads[i], NULL, load_many, &jobs[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(threads[i], NULL);
        CHECK_EQ_I64(jobs[i].failures, 0);
    }
}

/* ---------------------------------------------------------------------- */
/* Bounds and precise reasons (issue 18)                                   */

static const char valid_doc[] = "<hardware name=\"x\"><buffer size=\"256KB\"/>"
                                "<dram bandwidth=\"25.6GB/s\"/></hardware>";

/* Loads len bytes and checks the status, that the message is one line that
 * starts with "origin:" and contains `detail`, and that hw is untouched. */
static void expect_refused(const char *doc, size_t len, lf_status want, const char *detail)
{
    lf_hw hw, before;
    poison(&hw);
    before = hw;
    lf_status s = lf_hw_load_memory(&hw, doc, (int64_t)len, "m.xml");
    CHECK_EQ_I64(s, want);
    const char *msg = lf_last_error();
    CHECK(strncmp(msg, "m.xml:", 6) == 0);
    CHECK_CONTAINS(msg, detail);
    CHECK(strchr(msg, '\n') == NULL && strchr(msg, '\r') == NULL);
    CHECK(memcmp(&hw, &before, sizeof hw) == 0);
}

/* A root with n attributes: 100,000 took libxml2 26 s before the
 * pre-check; now the count is refused before libxml2 sees the bytes. */
static void test_attribute_bomb(void)
{
    const int n = 100000;
    size_t cap = (size_t)n * 16 + 256, o = 0;
    char *doc = malloc(cap);
    CHECK(doc != NULL);
    if (!doc)
        return;
    o += (size_t)snprintf(doc + o, cap - o, "<hardware name=\"x\"");
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(doc + o, cap - o, " a%d=\"1\"", i);
    o += (size_t)snprintf(doc + o, cap - o, "><buffer size=\"1KB\"/></hardware>");
    expect_refused(doc, o, LF_ERANGE, "more than 32 attributes");
    free(doc);

    /* Nesting, element counts and comment counts have bounds too. */
    char *deep = malloc(8192);
    o = (size_t)snprintf(deep, 8192, "<hardware name=\"x\">");
    for (int i = 0; i < 200; i++)
        o += (size_t)snprintf(deep + o, 8192 - o, "<a>");
    expect_refused(deep, o, LF_ERANGE, "nest more than 16 deep");
    free(deep);
    size_t many = 20000 * 8 + 64;
    char *c = malloc(many);
    o = (size_t)snprintf(c, many, "<hardware name=\"x\">");
    for (int i = 0; i < 20000; i++)
        o += (size_t)snprintf(c + o, many - o, "<!--x-->");
    expect_refused(c, o, LF_ERANGE, "more than 10000 tags, comments");
    free(c);
}

/* Text that is not a UTF-8 XML document gets a reason, not "empty document". */
static void test_precise_reasons(void)
{
    expect_refused("hello world\n", 12, LF_EPARSE, "not XML: the text starts with \"hello world\"");
    expect_refused("{\"hardware\": 1}", 15, LF_EPARSE, "looks like JSON");
    expect_refused("root:x:0:0:root:/root:/bin/bash\n", 32, LF_EPARSE, "not XML");
    expect_refused("\x00\x00\xfe\xff\x00\x00\x00<", 8, LF_EPARSE, "UTF-32");
    expect_refused("\xff\xfe<\x00h\x00", 6, LF_EPARSE, "UTF-16");
    expect_refused("", 0, LF_EPARSE, "empty document");
    expect_refused("  \n ", 4, LF_EPARSE, "empty document");
    /* Content after a NUL used to be ignored: the document is refused. */
    char nul[sizeof valid_doc + 16];
    memcpy(nul, valid_doc, sizeof valid_doc - 1);
    memcpy(nul + sizeof valid_doc - 1, "\0garbage", 8);
    expect_refused(nul, sizeof valid_doc - 1 + 8, LF_EPARSE, "NUL byte");
    /* libxml2's continuation lines (the bytes of an encoding error, the
     * text of a bad comment) and its option names stay out. */
    expect_refused("<hardware name=\"x\"><!-- a -- b --></hardware>", 44, LF_EPARSE,
                   "not well-formed XML");
    CHECK(strstr(lf_last_error(), "<!--") == NULL);
    expect_refused("<hardware name=\"\xff\xfe\"/>", 21, LF_EPARSE, "m.xml:1:");
    CHECK(strstr(lf_last_error(), "Bytes:") == NULL);
}

/* User text in a message cannot forge a line or reach the terminal raw. */
static void test_escaped_values(void)
{
    static const char forge[] = "<hardware name=\"x\"><buffer size=\"lots&#10;fusionplan: "
                                "everything is fine\"/><dram bandwidth=\"1GB/s\"/></hardware>";
    expect_refused(forge, sizeof forge - 1, LF_EPARSE, "lots\\nfusionplan: everything");
    /* XML cannot carry an escape character, an option value can. */
    int64_t bytes;
    CHECK_EQ_I64(lf_hw_parse_size("1\x1b[31mKB", &bytes), LF_EPARSE);
    CHECK(strchr(lf_last_error(), 0x1b) == NULL);
    CHECK_CONTAINS(lf_last_error(), "\\x1b");
    /* A long value is cut in the middle: the reason at the end survives. */
    char path[3000];
    memset(path, 'd', sizeof path);
    for (size_t i = 0; i < sizeof path; i += 100)
        path[i] = '/';
    strcpy(path + sizeof path - 10, "/x.xml");
    lf_hw hw;
    CHECK_EQ_I64(lf_hw_load(&hw, path), LF_EIO);
    CHECK(strlen(lf_last_error()) < LF_MESSAGE_MAX);
    CHECK_CONTAINS(lf_last_error(), " ... ");
    CHECK_CONTAINS(lf_last_error(), "No such file or directory");
}

/* A file of exactly the documented cap (16 MiB) is read; one byte more is not. */
static void test_size_cap(void)
{
    const size_t cap = (size_t)16 << 20;
    char path[] = "/tmp/lf_test_hw_cap_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
    fputs(valid_doc, f);
    for (size_t i = sizeof valid_doc - 1; i < cap; i++)
        fputc(i % 64 == 63 ? '\n' : ' ', f);
    fclose(f);
    lf_hw hw;
    CHECK_OK(lf_hw_load(&hw, path));
    CHECK_EQ_I64(hw.buffer_bytes, 256 * 1024);
    f = fopen(path, "a");
    fputc(' ', f);
    fclose(f);
    CHECK_EQ_I64(lf_hw_load(&hw, path), LF_ERANGE);
    CHECK_CONTAINS(lf_last_error(), "larger than 16 MiB");
    remove(path);
    /* An endless input stops at the cap instead of exhausting memory. */
    CHECK_EQ_I64(lf_hw_load(&hw, "/dev/zero"), LF_ERANGE);
}

int main(void)
{
    test_units();
    test_units_in_documents();
    test_embedded_schema();
    test_format_size();
    test_default();
    test_buffer_examples();
    test_gpu_example();
    test_bad_files();
    test_missing_files();
    test_memory();
    test_silent();
    test_threads();
    test_attribute_bomb();
    test_precise_reasons();
    test_escaped_values();
    test_size_cap();
    return lf_test_result();
}

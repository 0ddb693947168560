/* Option objects of the binding API: one JSON object per call, every member
 * checked by name and kind so that a binding's typo is an error naming the
 * member, never a silently ignored option. And the streams the library's
 * writers write into memory through. */
#define _GNU_SOURCE /* fopencookie (glibc, musl) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/app/api/api_internal.h"

void lf_api_free(void *p) { free(p); }

const char *lf_api_version(void) { return LF_VERSION; }

lf_status lf__api_object(const char *text, const char *what, const char *const *allowed, json_t **out)
{
    *out = NULL;
    json_error_t err;
    json_t *o = text && *text ? json_loads(text, JSON_REJECT_DUPLICATES, &err) : json_object();
    if (!o)
        return lf_set_error(LF_EINVAL, "%s: not JSON (%s at column %d)", what, err.text, err.column);
    if (!json_is_object(o)) {
        json_decref(o);
        return lf_set_error(LF_EINVAL, "%s: expected a JSON object", what);
    }
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        int known = 0;
        for (const char *const *a = allowed; *a && !known; a++)
            known = strcmp(*a, key) == 0;
        if (!known) {
            char list[512] = "";
            size_t len = 0;
            for (const char *const *a = allowed; *a && len + 1 < sizeof list; a++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", a == allowed ? "" : ", ", *a);
            lf_status st = lf_set_error(LF_EINVAL, "%s: unknown option '%s' (use %s)", what, key, list);
            json_decref(o);
            return st;
        }
    }
    *out = o;
    return LF_OK;
}

static const json_t *lf__member(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v) ? v : NULL;
}

lf_status lf__api_str(const json_t *o, const char *what, const char *key, const char **out)
{
    const json_t *v = lf__member(o, key);
    if (!v)
        return LF_OK;
    if (!json_is_string(v))
        return lf_set_error(LF_EINVAL, "%s: %s: expected a string", what, key);
    *out = json_string_value(v);
    return LF_OK;
}

lf_status lf__api_int(const json_t *o, const char *what, const char *key, int64_t lo, int64_t hi,
                      int64_t *out)
{
    const json_t *v = lf__member(o, key);
    if (!v)
        return LF_OK;
    if (!json_is_integer(v))
        return lf_set_error(LF_EINVAL, "%s: %s: expected an integer", what, key);
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi)
        return lf_set_error(LF_EINVAL, "%s: %s: %lld is outside %lld..%lld", what, key, (long long)x,
                            (long long)lo, (long long)hi);
    *out = (int64_t)x;
    return LF_OK;
}

lf_status lf__api_i32(const json_t *o, const char *what, const char *key, int32_t lo, int32_t hi,
                      int32_t *out)
{
    int64_t x = *out;
    lf_status st = lf__api_int(o, what, key, lo, hi, &x);
    *out = (int32_t)x;
    return st;
}

lf_status lf__api_num(const json_t *o, const char *what, const char *key, double lo, double hi,
                      double *out)
{
    const json_t *v = lf__member(o, key);
    if (!v)
        return LF_OK;
    if (!json_is_number(v))
        return lf_set_error(LF_EINVAL, "%s: %s: expected a number", what, key);
    double x = json_number_value(v);
    if (!isfinite(x) || x < lo || x > hi)
        return lf_set_error(LF_EINVAL, "%s: %s: %g is outside %g..%g", what, key, x, lo, hi);
    *out = x;
    return LF_OK;
}

lf_status lf__api_flag(const json_t *o, const char *what, const char *key, int32_t *out)
{
    const json_t *v = lf__member(o, key);
    if (!v)
        return LF_OK;
    if (!json_is_boolean(v))
        return lf_set_error(LF_EINVAL, "%s: %s: expected true or false", what, key);
    *out = json_is_true(v);
    return LF_OK;
}

lf_status lf__api_size(const json_t *o, const char *what, const char *key, int64_t *out)
{
    const json_t *v = lf__member(o, key);
    if (!v)
        return LF_OK;
    if (json_is_string(v)) {
        if (lf_hw_parse_size(json_string_value(v), out) != LF_OK)
            return lf_set_error(LF_EINVAL, "%s: %s: %s", what, key, lf_last_error());
        return LF_OK;
    }
    return lf__api_int(o, what, key, 1, (int64_t)1 << 40, out);
}

lf_status lf__api_hw(const char *hw_json, lf_hw *hw)
{
    static const char *const allowed[] = {"xml", "buffer", "bandwidth", "act_bytes", "weight_bytes",
                                          "dram_pj_per_byte", "peak_macs", "dram", "sram_pj_per_byte",
                                          "mac_pj", "attention", NULL};
    json_t *o;
    lf_status st = lf__api_object(hw_json, "hardware", allowed, &o);
    if (st != LF_OK)
        return st;
    lf_hw_default(hw);
    const char *xml = NULL;
    st = lf__api_str(o, "hardware", "xml", &xml);
    if (st == LF_OK && xml)
        st = lf_hw_load(hw, xml);
    const json_t *bw = lf__member(o, "bandwidth");
    if (st == LF_OK && bw && json_is_string(bw)) {
        if (lf_hw_parse_bandwidth(json_string_value(bw), &hw->dram_bandwidth) != LF_OK)
            st = lf_set_error(LF_EINVAL, "hardware: bandwidth: %s", lf_last_error());
    } else if (st == LF_OK && bw) {
        st = lf__api_num(o, "hardware", "bandwidth", 1.0, 1e18, &hw->dram_bandwidth);
    }
    if (st == LF_OK)
        st = lf__api_size(o, "hardware", "buffer", &hw->buffer_bytes);
    if (st == LF_OK)
        st = lf__api_i32(o, "hardware", "act_bytes", 1, 16, &hw->act_bytes);
    if (st == LF_OK)
        st = lf__api_i32(o, "hardware", "weight_bytes", 1, 16, &hw->weight_bytes);
    if (st == LF_OK)
        st = lf__api_num(o, "hardware", "dram_pj_per_byte", 0.0, 1e9, &hw->dram_pj_per_byte);
    if (st == LF_OK)
        st = lf__api_num(o, "hardware", "peak_macs", 0.0, 1e24, &hw->peak_macs);
    /* Energy (DESIGN §19): a DRAM preset of Accelergy's table, SRAM and MAC
     * figures; any of them turns energy reporting on. */
    const char *preset = NULL;
    if (st == LF_OK)
        st = lf__api_str(o, "hardware", "dram", &preset);
    if (st == LF_OK && preset) {
        double pj_bit = 0;
        if (lf_hw_dram_preset(preset, &pj_bit) != LF_OK)
            st = lf_set_error(LF_EINVAL, "hardware: dram: %s", lf_last_error());
        else {
            hw->dram_pj_per_byte = 8.0 * pj_bit;
            snprintf(hw->dram_preset, sizeof hw->dram_preset, "%s", preset);
            hw->has_energy = 1;
        }
    }
    if (st == LF_OK && lf__member(o, "sram_pj_per_byte"))
        st = lf__api_num(o, "hardware", "sram_pj_per_byte", 0.0, 1e4, &hw->sram_pj_per_byte);
    if (st == LF_OK && lf__member(o, "mac_pj"))
        st = lf__api_num(o, "hardware", "mac_pj", 0.0, 1e4, &hw->mac_pj);
    if (st == LF_OK && (lf__member(o, "sram_pj_per_byte") || lf__member(o, "mac_pj")))
        hw->has_energy = 1;
    const json_t *att = lf__member(o, "attention");
    if (st == LF_OK && att && !json_is_boolean(att))
        st = lf_set_error(LF_EINVAL, "hardware: attention: expected true or false");
    if (st == LF_OK && att)
        hw->no_attention = json_is_false(att);
    json_decref(o);
    return st;
}

/* The stream's writes: appended to a buffer that doubles (glibc's
 * open_memstream grows in small steps and zero-fills; a 130 KB plan file
 * took 5.6 ms through it against 1.6 ms here). */
static ssize_t lf__mem_write(void *cookie, const char *data, size_t n)
{
    lf__api_mem *m = cookie;
    if (m->len + n + 1 > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->len + n + 1)
            cap *= 2;
        char *p = realloc(m->buf, cap);
        if (!p)
            return -1;
        m->buf = p;
        m->cap = cap;
    }
    memcpy(m->buf + m->len, data, n);
    m->len += n;
    m->buf[m->len] = '\0';
    return (ssize_t)n;
}

lf_status lf__api_mem_open(lf__api_mem *m)
{
    memset(m, 0, sizeof *m);
    cookie_io_functions_t io = {NULL, lf__mem_write, NULL, NULL};
    m->f = fopencookie(m, "w", io);
    return m->f ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory");
}

lf_status lf__api_mem_close(lf__api_mem *m, char **out, size_t *len)
{
    int bad = fclose(m->f) != 0;
    m->f = NULL;
    if (!bad && !m->buf)
        bad = (m->buf = calloc(1, 1)) == NULL;
    if (bad) {
        free(m->buf);
        memset(m, 0, sizeof *m);
        return lf_set_error(LF_ENOMEM, "out of memory");
    }
    *out = m->buf;
    if (len)
        *len = m->len;
    memset(m, 0, sizeof *m);
    return LF_OK;
}

void lf__api_mem_abort(lf__api_mem *m)
{
    if (m->f)
        fclose(m->f);
    free(m->buf);
    memset(m, 0, sizeof *m);
}

lf_status lf__api_dump(json_t *v, char **out)
{
    *out = v ? json_dumps(v, JSON_COMPACT) : NULL;
    json_decref(v);
    return *out ? LF_OK : lf_set_error(LF_ENOMEM, "out of memory");
}

lf_status lf_api_hw_json(const char *hw_json, char **out)
{
    *out = NULL;
    lf_hw hw;
    lf_status st = lf__api_hw(hw_json, &hw);
    if (st != LF_OK)
        return st;
    json_t *v = json_pack("{s:s, s:s, s:I, s:i, s:i, s:f, s:o, s:o}", "name", hw.name, "source",
                          hw.source, "buffer_bytes", (json_int_t)hw.buffer_bytes, "act_bytes",
                          (int)hw.act_bytes, "weight_bytes", (int)hw.weight_bytes, "dram_bandwidth",
                          hw.dram_bandwidth, "dram_pj_per_byte",
                          hw.dram_pj_per_byte > 0 ? json_real(hw.dram_pj_per_byte) : json_null(),
                          "peak_macs", hw.peak_macs > 0 ? json_real(hw.peak_macs) : json_null());
    if (v) { /* the energy model with its defaults filled in, where energy is on */
        lf_hw_energy e;
        lf_hw_energy_model(&hw, &e);
        int on = lf_hw_has_energy(&hw);
        json_object_set_new(v, "sram_pj_per_byte", on ? json_real(e.sram_pj_per_byte) : json_null());
        json_object_set_new(v, "mac_pj", on ? json_real(e.mac_pj) : json_null());
        json_object_set_new(v, "energy_dram_pj_per_byte", on ? json_real(e.dram_pj_per_byte) : json_null());
    }
    if (v && json_object_set_new(v, "attention", json_boolean(!hw.no_attention)) != 0) {
        json_decref(v);
        v = NULL;
    }
    return v ? lf__api_dump(v, out) : lf_set_error(LF_ENOMEM, "out of memory");
}

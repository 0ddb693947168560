/* TensorProto -> float32 or int64 values: the typed fields (float_data,
 * int32_data, int64_data, double_data, uint64_data), raw_data (fixed-width
 * little-endian) and external data files relative to the model's folder.
 * Every size is checked before anything is allocated or copied. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planner/io/onnx_proto.h"

/* Bytes per element in raw_data; 0 for types fusionplan does not read. */
static int lf__elem_size(int32_t type)
{
    switch (type) {
    case LF__OX_FLOAT: case LF__OX_INT32: return 4;
    case LF__OX_INT64: case LF__OX_DOUBLE: case 13 /* UINT64 */: return 8;
    case LF__OX_UINT8: case LF__OX_INT8: case LF__OX_BOOL: return 1;
    case 4 /* UINT16 */: case 5 /* INT16 */: case LF__OX_FLOAT16: return 2;
    case 12 /* UINT32 */: return 4;
    default: return 0;
    }
}

static int lf__is_float_type(int32_t t)
{
    return t == LF__OX_FLOAT || t == LF__OX_DOUBLE || t == LF__OX_FLOAT16;
}

static float lf__half_to_float(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
    float v;
    if (exp == 0)
        v = ldexpf((float)mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexpf((float)(mant | 1024), exp - 25);
    return sign ? -v : v;
}

/* Element k of raw little-endian bytes of type t, as double / int64. */
static void lf__raw_elem(const uint8_t *p, int32_t t, double *fv, int64_t *iv)
{
    switch (t) {
    case LF__OX_FLOAT: { float x; memcpy(&x, p, 4); *fv = x; return; }
    case LF__OX_DOUBLE: { double x; memcpy(&x, p, 8); *fv = x; return; }
    case LF__OX_FLOAT16: { uint16_t x; memcpy(&x, p, 2); *fv = lf__half_to_float(x); return; }
    case LF__OX_INT64: case 13: { int64_t x; memcpy(&x, p, 8); *iv = x; return; }
    case LF__OX_INT32: { int32_t x; memcpy(&x, p, 4); *iv = x; return; }
    case 12: { uint32_t x; memcpy(&x, p, 4); *iv = x; return; }
    case 5: { int16_t x; memcpy(&x, p, 2); *iv = x; return; }
    case 4: { uint16_t x; memcpy(&x, p, 2); *iv = x; return; }
    case LF__OX_INT8: *iv = (int8_t)*p; return;
    default: *iv = *p; return;
    }
}

/* Reads [offset, offset+len) of an external data file into a malloc'd buffer. */
static lf_status lf__read_external(lf__ox_graph *g, const Onnx__TensorProto *t, const char *base_dir,
                                   const char *what, int64_t want, uint8_t **buf)
{
    const char *location = NULL;
    int64_t offset = 0, length = -1;
    for (size_t k = 0; k < t->n_external_data; k++) {
        const Onnx__StringStringEntryProto *e = t->external_data[k];
        if (!e->key || !e->value)
            continue;
        char *end;
        if (strcmp(e->key, "location") == 0)
            location = e->value;
        else if (strcmp(e->key, "offset") == 0 || strcmp(e->key, "length") == 0) {
            errno = 0;
            long long v = strtoll(e->value, &end, 10);
            if (errno || *end || v < 0)
                return lf__ox_fail(g, -1, LF_EPARSE, "tensor '%s': external data %s '%s' is not a byte count",
                                   what, e->key, e->value);
            *(e->key[0] == 'o' ? &offset : &length) = v;
        }
    }
    if (!base_dir)
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "tensor '%s': external data needs a model file", what);
    if (length >= 0 && length != want)
        return lf__ox_fail(g, -1, LF_EPARSE, "tensor '%s': external data length %lld, expected %lld bytes",
                           what, (long long)length, (long long)want);
    int fd;
    int64_t size;
    lf_status st = lf__ox_open_external(g, base_dir, location ? location : "", what, &fd, &size);
    if (st != LF_OK)
        return st;
    /* The size is known before anything is allocated or read. */
    if (offset > size || want > size - offset) {
        close(fd);
        return lf__ox_fail(g, -1, LF_EIO, "tensor '%s': external data file %s/%s is shorter than offset %lld + "
                           "%lld bytes", what, base_dir, location, (long long)offset, (long long)want);
    }
    *buf = malloc((size_t)(want > 0 ? want : 1));
    if (!*buf)
        st = lf_set_error(LF_ENOMEM, "out of memory reading %s/%s", base_dir, location);
    for (int64_t done = 0; st == LF_OK && done < want;) {
        ssize_t got = pread(fd, *buf + done, (size_t)(want - done), (off_t)(offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            st = lf__ox_fail(g, -1, LF_EIO, "tensor '%s': external data file %s/%s: %s", what, base_dir, location,
                             got < 0 ? strerror(errno) : "shorter than its size");
        else
            done += got;
    }
    close(fd);
    if (st != LF_OK) {
        free(*buf);
        *buf = NULL;
    }
    return st;
}

lf_status lf__ox_tensor_read(lf__ox_graph *g, const Onnx__TensorProto *t, const char *base_dir,
                             lf__ox_data *out)
{
    const char *what = t->name ? t->name : "";
    memset(out, 0, sizeof *out);
    int32_t type = t->has_data_type ? t->data_type : 0;
    int esz = lf__elem_size(type);
    if (!esz)
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "tensor '%s': data type %d is not supported "
                           "(float, double, float16 and integer types are)", what, (int)type);
    if (t->segment)
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "tensor '%s': segmented tensors are not supported", what);
    if (t->n_dims > LF__OX_MAX_RANK)
        return lf__ox_fail(g, -1, LF_EUNSUPPORTED, "tensor '%s' has rank %zu (at most %d)", what,
                           t->n_dims, LF__OX_MAX_RANK);
    for (size_t k = 0; k < t->n_dims; k++)
        if (t->dims[k] < 0)
            return lf__ox_fail(g, -1, LF_EPARSE, "tensor '%s': negative dimension %lld", what,
                               (long long)t->dims[k]);
    int is_int = !lf__is_float_type(type);
    /* float32 raw_data inside the mapped file: into the weight block, read
     * by the kernel rather than through the map (onnx_weights.c). */
    uintptr_t at = t->has_raw_data ? (uintptr_t)t->raw_data.data : 0, base = (uintptr_t)g->file_bytes;
    int in_file = g->file_fd >= 0 && type == LF__OX_FLOAT && at >= base && at - base <= g->file_len &&
                  t->raw_data.len <= g->file_len - (at - base) &&
                  !(t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
    lf_status st = lf__ox_data_alloc_filled(g, out, is_int, (int32_t)t->n_dims, t->dims, in_file);
    if (st != LF_OK) {
        /* The reason already starts with the file's name: say it once. */
        const char *why = lf_last_error();
        size_t pl = strlen(g->path);
        if (strncmp(why, g->path, pl) == 0 && strncmp(why + pl, ": ", 2) == 0)
            why += pl + 2;
        return lf__ox_fail(g, -1, st, "tensor '%s': %s", what, why);
    }
    int64_t n = out->count;

    const uint8_t *raw = NULL;
    uint8_t *ext = NULL;
    int64_t raw_len = 0;
    if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        if ((st = lf__read_external(g, t, base_dir, what, n * esz, &ext)) != LF_OK)
            goto fail;
        raw = ext;
        raw_len = n * esz;
    } else if (t->has_raw_data) {
        raw = t->raw_data.data;
        raw_len = (int64_t)t->raw_data.len;
    }
    if (raw) {
        if (raw_len != n * esz) {
            st = lf__ox_fail(g, -1, LF_EPARSE, "tensor '%s': raw_data holds %lld bytes, %lld elements "
                             "need %lld", what, (long long)raw_len, (long long)n, (long long)(n * esz));
            goto fail;
        }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* float32 weights, the bulk of a model: raw_data is already our layout */
        if (type == LF__OX_FLOAT && !is_int) {
            size_t bytes = (size_t)n * sizeof *out->f;
            if (in_file && bytes >= 4096) {
                if (lf__ox_weights_pread(g->file_fd, (uint64_t)(at - base), out->f, bytes) != 0) {
                    st = lf__ox_fail(g, -1, LF_EIO, "tensor '%s': the file changed or failed while it was "
                                     "read (%zu bytes at byte %zu)", what, bytes, (size_t)(at - base));
                    goto fail;
                }
                return LF_OK;
            }
            if (n >= 65536) {
                lf__ox_prefault(raw, (size_t)n * sizeof *out->f, 0);
                lf__ox_prefault(out->f, (size_t)n * sizeof *out->f, 1);
            }
            if (n > 0)
                memcpy(out->f, raw, (size_t)n * sizeof *out->f);
            free(ext);
            return LF_OK;
        }
#endif
        for (int64_t k = 0; k < n; k++) {
            double fv = 0;
            int64_t iv = 0;
            lf__raw_elem(raw + k * esz, type, &fv, &iv);
            if (is_int)
                out->i[k] = iv;
            else
                out->f[k] = (float)fv;
        }
        free(ext);
        return LF_OK;
    }
    /* Typed fields: exactly n values of the field that belongs to the type. */
    size_t have;
    if (type == LF__OX_FLOAT)
        have = t->n_float_data;
    else if (type == LF__OX_DOUBLE)
        have = t->n_double_data;
    else if (type == LF__OX_INT64)
        have = t->n_int64_data;
    else if (type == 12 || type == 13)
        have = t->n_uint64_data;
    else
        have = t->n_int32_data;
    if ((int64_t)have != n) {
        st = lf__ox_fail(g, -1, LF_EPARSE, "tensor '%s' has %zu values for %lld elements", what, have,
                         (long long)n);
        goto fail;
    }
    for (int64_t k = 0; k < n; k++) {
        switch (type) {
        case LF__OX_FLOAT: out->f[k] = t->float_data[k]; break;
        case LF__OX_DOUBLE: out->f[k] = (float)t->double_data[k]; break;
        case LF__OX_FLOAT16: out->f[k] = lf__half_to_float((uint16_t)t->int32_data[k]); break;
        case LF__OX_INT64: out->i[k] = t->int64_data[k]; break;
        case 12: case 13: out->i[k] = (int64_t)t->uint64_data[k]; break;
        default: out->i[k] = t->int32_data[k]; break;
        }
    }
    return LF_OK;
fail:
    free(ext);
    g->const_bytes -= out->count * (is_int ? 8 : 4);
    lf__ox_data_free(out);
    return st;
}

lf_status lf_onnx_read_tensor(const char *path, lf_onnx_tensor *t)
{
    memset(t, 0, sizeof *t);
    lf__ox_graph g;
    lf_status st = lf__ox_init(&g, path, NULL);
    if (st != LF_OK)
        return st;
    uint8_t *bytes = NULL;
    size_t len = 0;
    if ((st = lf__ox_read_capped(path, g.opt.max_file_bytes, &onnx__tensor_proto__descriptor, "TensorProto file",
                                 &bytes, &len)) != LF_OK ||
        (st = lf__ox_wire_check(bytes, len, &onnx__tensor_proto__descriptor, path, "TensorProto file")) != LF_OK) {
        free(bytes);
        lf__ox_destroy(&g);
        return st;
    }
    lf__ox_alloc al;
    lf__ox_alloc_init(&al, (int64_t)256 << 20 > 16 * (int64_t)len ? (int64_t)256 << 20 : 16 * (int64_t)len);
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(&al.base, len, bytes);
    free(bytes);
    if (!tp) {
        lf__ox_destroy(&g);
        return lf_set_error(LF_EPARSE, "%s: not a valid TensorProto (truncated or corrupt protobuf)", path);
    }
    lf__ox_data d;
    char dir[4096];
    lf__ox_dirname(path, dir, sizeof dir);
    st = lf__ox_tensor_read(&g, tp, dir, &d);
    if (st == LF_OK) {
        snprintf(t->name, sizeof t->name, "%s", tp->name ? tp->name : "");
        t->rank = d.rank;
        memcpy(t->dims, d.dims, sizeof t->dims);
        t->count = d.count;
        if (d.f) {
            t->data = d.f;
            d.f = NULL;
        } else {
            t->data = malloc((size_t)(d.count > 0 ? d.count : 1) * sizeof *t->data);
            if (!t->data)
                st = lf_set_error(LF_ENOMEM, "out of memory reading %s", path);
            for (int64_t k = 0; t->data && k < d.count; k++)
                t->data[k] = (float)d.i[k];
        }
        lf__ox_data_free(&d);
    }
    onnx__tensor_proto__free_unpacked(tp, &al.base);
    lf__ox_destroy(&g);
    return st;
}

void lf_onnx_tensor_free(lf_onnx_tensor *t)
{
    free(t->data);
    t->data = NULL;
}

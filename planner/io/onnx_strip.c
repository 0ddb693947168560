/* Importing a model without copying its weights twice.
 *
 * protobuf-c copies every bytes field it unpacks: a 100 MB model's
 * initializers' raw_data would be copied out of the file once by the unpack
 * and once more into the importer's constants. Instead the model is unpacked
 * from a copy of its bytes with the graph's initializers left out (a few
 * hundred KB: nodes, names, shapes), and each initializer is unpacked on its
 * own without its raw_data, whose payload is then read where it lies in the
 * file (onnx_load.c converts it from there and gives the file's pages back).
 *
 * The bytes have passed lf__ox_wire_check (every length inside its message,
 * nesting bounded) before this runs; each offset is still checked here. */
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_proto.h"

/* Reads a varint at *pos (< end); 0 when it runs past end or past 10 bytes. */
static int lf__rd(const uint8_t *p, size_t end, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (*pos >= end)
            return 0;
        uint8_t b = p[(*pos)++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 1;
        }
    }
    return 0;
}

static size_t lf__put(uint8_t *o, uint64_t v)
{
    size_t n = 0;
    do {
        o[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}

/* One field record at *pos (< end): its number, wire type and, for a
 * length-delimited one, where its payload lies. *pos moves past it.
 * 0 when the record is cut short or of an unknown wire type. */
static int lf__record(const uint8_t *p, size_t end, size_t *pos, uint64_t *field, unsigned *wt,
                      size_t *val, size_t *val_len)
{
    uint64_t tag, v;
    if (!lf__rd(p, end, pos, &tag))
        return 0;
    *field = tag >> 3;
    *wt = (unsigned)(tag & 7);
    switch (*wt) {
    case 0:
        return lf__rd(p, end, pos, &v);
    case 1:
    case 5: {
        size_t w = *wt == 1 ? 8 : 4;
        if (end - *pos < w)
            return 0;
        *pos += w;
        return 1;
    }
    case 2:
        if (!lf__rd(p, end, pos, &v) || v > end - *pos)
            return 0;
        *val = *pos;
        *val_len = (size_t)v;
        *pos += (size_t)v;
        return 1;
    default:
        return 0;
    }
}

static unsigned lf__field_id(const ProtobufCMessageDescriptor *d, const char *name)
{
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(d, name);
    return f ? f->id : 0;
}

lf_status lf__ox_strip_initializers(const uint8_t *p, size_t len, uint8_t **out, size_t *out_len,
                                    lf__ox_span **inits, size_t *n_inits)
{
    unsigned graph_id = lf__field_id(&onnx__model_proto__descriptor, "graph");
    unsigned init_id = lf__field_id(&onnx__graph_proto__descriptor, "initializer");
    *out = NULL;
    *out_len = 0;
    *inits = NULL;
    *n_inits = 0;
    /* The copy is never longer than the input plus one length's reserve
     * (lengths are written again, minimally); its pages past what is
     * written are never touched. */
    uint8_t *o = malloc(len + 16);
    size_t cap = 0, n = 0, w = 0, pos = 0;
    lf__ox_span *sp = NULL;
    if (!o)
        return lf_set_error(LF_ENOMEM, "out of memory unpacking an ONNX model of %zu bytes", len);
    while (pos < len) {
        size_t start = pos, val = 0, vlen = 0;
        uint64_t field;
        unsigned wt;
        if (!lf__record(p, len, &pos, &field, &wt, &val, &vlen))
            goto corrupt;
        if (field != graph_id || wt != 2) {
            memcpy(o + w, p + start, pos - start);
            w += pos - start;
            continue;
        }
        /* The graph: its records but the initializers, behind a new length. */
        size_t tag_len = lf__put(o + w, ((uint64_t)graph_id << 3) | 2), body = w + tag_len + 10, b = body;
        for (size_t q = val; q < val + vlen;) {
            size_t rs = q, iv = 0, il = 0;
            uint64_t f;
            unsigned t;
            if (!lf__record(p, val + vlen, &q, &f, &t, &iv, &il))
                goto corrupt;
            if (f == init_id && t == 2) {
                if (n == cap) {
                    size_t nc = cap ? 2 * cap : 64;
                    lf__ox_span *bigger = realloc(sp, nc * sizeof *sp);
                    if (!bigger) {
                        free(sp);
                        free(o);
                        return lf_set_error(LF_ENOMEM, "out of memory unpacking an ONNX model");
                    }
                    sp = bigger;
                    cap = nc;
                }
                sp[n].off = iv;
                sp[n++].len = il;
            } else {
                memcpy(o + b, p + rs, q - rs);
                b += q - rs;
            }
        }
        size_t len_len = lf__put(o + w + tag_len, b - body);
        memmove(o + w + tag_len + len_len, o + body, b - body);
        w += tag_len + len_len + (b - body);
    }
    *out = o;
    *out_len = w;
    *inits = sp;
    *n_inits = n;
    return LF_OK;
corrupt:
    free(sp);
    free(o);
    return lf_set_error(LF_EPARSE, "not a valid ONNX model (truncated or corrupt protobuf)");
}

Onnx__TensorProto *lf__ox_tensor_unpack_lazy(ProtobufCAllocator *al, const uint8_t *p, size_t len)
{
    unsigned raw_id = lf__field_id(&onnx__tensor_proto__descriptor, "raw_data");
    size_t keep = 0, raw = 0, raw_len = 0, pos = 0;
    int has_raw = 0;
    /* Pass 1: the size without raw_data (protobuf keeps the last one). */
    while (pos < len) {
        size_t start = pos, val = 0, vlen = 0;
        uint64_t f;
        unsigned wt;
        if (!lf__record(p, len, &pos, &f, &wt, &val, &vlen))
            return NULL;
        if (f == raw_id && wt == 2) {
            has_raw = 1;
            raw = val;
            raw_len = vlen;
        } else {
            keep += pos - start;
        }
    }
    uint8_t *buf = malloc(keep ? keep : 1);
    if (!buf)
        return NULL;
    size_t w = 0;
    for (pos = 0; pos < len;) {
        size_t start = pos, val = 0, vlen = 0;
        uint64_t f = 0;
        unsigned wt = 0;
        (void)lf__record(p, len, &pos, &f, &wt, &val, &vlen); /* read whole in pass 1 */
        if (!(f == raw_id && wt == 2)) {
            memcpy(buf + w, p + start, pos - start);
            w += pos - start;
        }
    }
    Onnx__TensorProto *t = onnx__tensor_proto__unpack(al, w, buf);
    free(buf);
    if (t && has_raw) {
        t->has_raw_data = 1;
        t->raw_data.data = (uint8_t *)(uintptr_t)(p + raw);
        t->raw_data.len = raw_len;
    }
    return t;
}

void lf__ox_tensor_free_lazy(ProtobufCAllocator *al, Onnx__TensorProto *t)
{
    if (!t)
        return;
    /* raw_data points into the file: not protobuf-c's to free. */
    t->raw_data.data = NULL;
    t->raw_data.len = 0;
    t->has_raw_data = 0;
    onnx__tensor_proto__free_unpacked(t, al);
}

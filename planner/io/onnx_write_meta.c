/* metadata_props on nodes and on the model. A node's metadata_props (field 9
 * of NodeProto since IR 10) is not in Debian's onnx.proto (IR 8), so it
 * travels as a protobuf-c unknown field: tag 9, length-delimited, the data
 * being the length varint followed by a packed StringStringEntryProto (what
 * protobuf-c keeps on unpacking and writes back on packing). */
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_write_internal.h"

static size_t lf__varint(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    do {
        uint8_t b = (uint8_t)(v & 0x7f);
        v >>= 7;
        out[n++] = (uint8_t)(b | (v ? 0x80 : 0));
    } while (v);
    return n;
}

lf_status lf__ox_node_meta_add(lf_arena *arena, Onnx__NodeProto *n, const lf__ox_prop *props,
                               int32_t n_props)
{
    if (n_props <= 0)
        return LF_OK;
    size_t old = n->base.n_unknown_fields;
    ProtobufCMessageUnknownField *u = lf_arena_alloc(arena, (old + (size_t)n_props) * sizeof *u);
    if (!u)
        return lf_set_error(LF_ENOMEM, "out of memory writing ONNX metadata");
    if (old)
        memcpy(u, n->base.unknown_fields, old * sizeof *u);
    for (int32_t k = 0; k < n_props; k++) {
        Onnx__StringStringEntryProto e = ONNX__STRING_STRING_ENTRY_PROTO__INIT;
        e.key = (char *)props[k].key;
        e.value = (char *)props[k].value;
        size_t len = onnx__string_string_entry_proto__get_packed_size(&e);
        uint8_t *data = lf_arena_alloc(arena, len + 10);
        if (!data)
            return lf_set_error(LF_ENOMEM, "out of memory writing ONNX metadata");
        size_t pre = lf__varint(data, len);
        onnx__string_string_entry_proto__pack(&e, data + pre);
        ProtobufCMessageUnknownField *f = &u[old + (size_t)k];
        f->tag = LF__OW_NODE_METADATA_FIELD;
        f->wire_type = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
        f->len = pre + len;
        f->data = data;
    }
    n->base.unknown_fields = u;
    n->base.n_unknown_fields = old + (size_t)n_props;
    return LF_OK;
}

char *lf__ox_node_meta_get(const Onnx__NodeProto *n, const char *key, lf_status *st)
{
    for (size_t k = 0; k < n->base.n_unknown_fields; k++) {
        const ProtobufCMessageUnknownField *f = &n->base.unknown_fields[k];
        if (f->tag != LF__OW_NODE_METADATA_FIELD)
            continue;
        /* Skip the length varint; it must cover the rest exactly. */
        size_t pre = 0;
        uint64_t len = 0;
        int shift = 0;
        while (pre < f->len && pre < 10) {
            uint8_t b = f->data[pre++];
            len |= (uint64_t)(b & 0x7f) << shift;
            shift += 7;
            if (!(b & 0x80))
                break;
        }
        Onnx__StringStringEntryProto *e = NULL;
        if (f->wire_type == PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED && len == f->len - pre)
            e = onnx__string_string_entry_proto__unpack(NULL, (size_t)len, f->data + pre);
        if (!e) {
            if (st)
                *st = lf_set_error(LF_EPARSE, "metadata_props entry #%zu is not a key/value pair", k);
            return NULL;
        }
        char *v = NULL;
        if (e->key && strcmp(e->key, key) == 0) {
            const char *s = e->value ? e->value : "";
            size_t m = strlen(s) + 1;
            if ((v = malloc(m)) != NULL)
                memcpy(v, s, m);
        }
        onnx__string_string_entry_proto__free_unpacked(e, NULL);
        if (v)
            return v;
    }
    return NULL;
}

lf_status lf__ox_model_meta_add(lf_arena *arena, Onnx__ModelProto *m, const lf__ox_prop *props,
                                int32_t n_props)
{
    if (n_props <= 0)
        return LF_OK;
    size_t old = m->n_metadata_props;
    Onnx__StringStringEntryProto **p = lf_arena_alloc(arena, (old + (size_t)n_props) * sizeof *p);
    if (!p)
        return lf_set_error(LF_ENOMEM, "out of memory writing ONNX metadata");
    if (old)
        memcpy(p, m->metadata_props, old * sizeof *p);
    for (int32_t k = 0; k < n_props; k++) {
        Onnx__StringStringEntryProto *e = lf_arena_alloc(arena, sizeof *e);
        if (!e)
            return lf_set_error(LF_ENOMEM, "out of memory writing ONNX metadata");
        onnx__string_string_entry_proto__init(e);
        e->key = (char *)props[k].key;
        e->value = (char *)props[k].value;
        p[old + (size_t)k] = e;
    }
    m->metadata_props = p;
    m->n_metadata_props = old + (size_t)n_props;
    return LF_OK;
}

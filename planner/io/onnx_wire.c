/* One pass over protobuf wire format before protobuf-c unpacks it.
 *
 * protobuf-c unpacks a sub-message by calling itself, with no depth limit:
 * a small file that nests a few thousand If subgraphs (GraphProto inside
 * AttributeProto inside NodeProto inside GraphProto ...) overflows the
 * stack. This pass walks the bytes with an explicit stack instead, following
 * the message's descriptor, so it knows which length-delimited fields are
 * sub-messages (graph, node, attribute, g, graphs, type, elem_type ...),
 * and refuses nesting past LF__OX_MAX_NESTING before anything is unpacked.
 * Each byte is looked at once. It also refuses what is not protobuf at all
 * (field number 0, group or unknown wire types, lengths past the end), which
 * lets the file reader refuse /dev/zero after its first bytes. */
#include <string.h>

#include "planner/io/onnx_proto.h"

/* Reads a varint at *pos; 0 when it runs past len or is longer than 10 bytes. */
static int lf__varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (*pos >= len)
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

lf__ox_wire_result lf__ox_wire_scan(const uint8_t *p, size_t len, uint64_t limit,
                                    const ProtobufCMessageDescriptor *top, lf__ox_wire_info *info)
{
    const ProtobufCMessageDescriptor *desc[LF__OX_MAX_NESTING + 1];
    uint64_t end[LF__OX_MAX_NESTING + 1];
    int prefix = limit > len, depth = 0;
    size_t pos = 0;
    memset(info, 0, sizeof *info);
    desc[0] = top;
    end[0] = prefix ? limit : len;
    for (;;) {
        while (depth > 0 && pos == end[depth])
            depth--;
        if (pos == end[0] || (prefix && pos >= len))
            return LF__OX_WIRE_OK; /* the whole message, or all of the prefix read so far */
        info->offset = pos;
        uint64_t tag, v;
        if (!lf__varint(p, len, &pos, &tag))
            return prefix && pos >= len ? LF__OX_WIRE_OK : LF__OX_WIRE_CORRUPT;
        uint64_t field = tag >> 3;
        if (field == 0 || field > 536870911u || pos > end[depth])
            return LF__OX_WIRE_CORRUPT;
        switch (tag & 7) {
        case 0:
            if (!lf__varint(p, len, &pos, &v))
                return prefix && pos >= len ? LF__OX_WIRE_OK : LF__OX_WIRE_CORRUPT;
            break;
        case 1:
            pos += 8;
            break;
        case 5:
            pos += 4;
            break;
        case 2: {
            if (!lf__varint(p, len, &pos, &v))
                return prefix && pos >= len ? LF__OX_WIRE_OK : LF__OX_WIRE_CORRUPT;
            if (pos > end[depth] || v > end[depth] - pos)
                return LF__OX_WIRE_CORRUPT;
            const ProtobufCFieldDescriptor *fd =
                desc[depth] ? protobuf_c_message_descriptor_get_field(desc[depth], (unsigned)field) : NULL;
            if (fd && fd->type == PROTOBUF_C_TYPE_MESSAGE) {
                if (depth == LF__OX_MAX_NESTING) {
                    info->field = fd->name;
                    info->message = desc[depth]->short_name;
                    return LF__OX_WIRE_TOO_DEEP;
                }
                depth++;
                desc[depth] = fd->descriptor;
                end[depth] = pos + v;
            } else {
                pos += (size_t)v;
            }
            break;
        }
        default: /* groups (3, 4) are not in proto3 and protobuf-c refuses them */
            return LF__OX_WIRE_CORRUPT;
        }
        if (pos > end[depth])
            return LF__OX_WIRE_CORRUPT;
    }
}

lf_status lf__ox_wire_check(const uint8_t *p, size_t len, const ProtobufCMessageDescriptor *top,
                            const char *path, const char *what)
{
    lf__ox_wire_info info;
    lf__ox_wire_result r = lf__ox_wire_scan(p, len, len, top, &info);
    if (r == LF__OX_WIRE_TOO_DEEP)
        return lf_set_error(LF_ERANGE, "%s: field '%s' of %s at byte %zu nests messages more than %d levels "
                            "deep", path, info.field, info.message, info.offset, LF__OX_MAX_NESTING);
    if (r == LF__OX_WIRE_CORRUPT)
        return lf_set_error(LF_EPARSE, "%s: not a valid %s (truncated or corrupt protobuf at byte %zu)", path,
                            what, info.offset);
    return LF_OK;
}

/* The weight and dataset files' container and packing (see binfile.h). */
#include "planner/util/binfile.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "planner/util/fileio.h"
#include "planner/util/hashmap.h"

void lf__w_bytes(lf__wbuf *b, const void *data, size_t n)
{
    if (b->oom || n == 0) /* nothing to copy (and b->p may still be NULL) */
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

void lf__w_u8(lf__wbuf *b, uint8_t v) { lf__w_bytes(b, &v, 1); }

void lf__w_u32(lf__wbuf *b, uint32_t v)
{
    unsigned char t[4];
    for (int i = 0; i < 4; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    lf__w_bytes(b, t, 4);
}

void lf__w_u64(lf__wbuf *b, uint64_t v)
{
    unsigned char t[8];
    for (int i = 0; i < 8; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    lf__w_bytes(b, t, 8);
}

void lf__w_f32(lf__wbuf *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4); /* IEEE-754 bits, written little-endian whatever the host order */
    lf__w_u32(b, u);
}

void lf__w_free(lf__wbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void lf__w_checksum(lf__wbuf *b)
{
    uint64_t h = b->oom ? 0 : lf_hash_bytes(b->p, b->len, 0x6c66676e6e636b73ULL);
    lf__w_u64(b, h);
}

lf_status lf__w_commit(lf__wbuf *b, const char *path)
{
    if (b->oom)
        return lf_set_error(LF_ENOMEM, "out of memory while encoding %s", path);
    lf_atomic_file af;
    lf_status st = lf_atomic_open(&af, path);
    if (st != LF_OK)
        return st;
    if (b->len && fwrite(b->p, 1, b->len, af.f) != b->len) {
        lf_atomic_abort(&af);
        return lf_set_error(LF_ENOMEM, "cannot write %s: out of memory", path);
    }
    return lf_atomic_commit(&af);
}

void lf__r_bytes(lf__rbuf *b, void *out, size_t n)
{
    if (b->short_ || b->len - b->pos < n) {
        b->short_ = 1;
        memset(out, 0, n);
        return;
    }
    memcpy(out, b->p + b->pos, n);
    b->pos += n;
}

uint8_t lf__r_u8(lf__rbuf *b)
{
    uint8_t v;
    lf__r_bytes(b, &v, 1);
    return v;
}

uint32_t lf__r_u32(lf__rbuf *b)
{
    unsigned char t[4];
    lf__r_bytes(b, t, 4);
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | t[i];
    return v;
}

uint64_t lf__r_u64(lf__rbuf *b)
{
    unsigned char t[8];
    lf__r_bytes(b, t, 8);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | t[i];
    return v;
}

float lf__r_f32(lf__rbuf *b)
{
    uint32_t u = lf__r_u32(b);
    float v;
    memcpy(&v, &u, 4);
    return v;
}

int lf__r_checksum_ok(const unsigned char *data, size_t len)
{
    if (len < 8)
        return 0;
    lf__rbuf r = {data, len, len - 8, 0};
    uint64_t want = lf__r_u64(&r);
    return want == lf_hash_bytes(data, len - 8, 0x6c66676e6e636b73ULL);
}

/* ---- the container ----------------------------------------------------- */

void lf__bin_begin(lf__wbuf *b, const lf__binfile *f)
{
    lf__w_bytes(b, f->magic, 8);
    lf__w_u32(b, f->version);
    lf__w_u64(b, f->schema);
}

lf_status lf__bin_commit(lf__wbuf *b, const char *path)
{
    lf__w_checksum(b);
    lf_status st = lf__w_commit(b, path);
    lf__w_free(b);
    return st;
}

lf_status lf__bin_open(const lf__binfile *f, const void *data, size_t len, const char *origin,
                       lf__rbuf *body)
{
    lf__rbuf r = {data, len, 0, 0};
    memset(body, 0, sizeof *body);
    char magic[8];
    lf__r_bytes(&r, magic, 8);
    if (r.short_ || memcmp(magic, f->magic, 8) != 0)
        return lf_set_error(LF_EPARSE, "%s: not a fusionplan %s (bad magic)", origin, f->what);
    uint32_t version = lf__r_u32(&r);
    uint64_t schema = lf__r_u64(&r);
    if (r.short_ || len < LF__BIN_HEADER + LF__BIN_TRAILER)
        return lf_set_error(LF_EPARSE, "%s: truncated %s (header)", origin, f->what);
    if (version != f->version)
        return lf_set_error(LF_EUNSUPPORTED, "%s: %s format version %" PRIu32
                                             ", this build reads version %" PRIu32,
                            origin, f->what, version, f->version);
    if (schema != f->schema)
        return lf_set_error(LF_EINVAL, "%s: %s made for feature schema %016" PRIx64
                                       ", this build's is %016" PRIx64 " (%s)",
                            origin, f->what, schema, f->schema, f->remedy);
    if (!lf__r_checksum_ok(data, len))
        return lf_set_error(LF_EPARSE, "%s: %s truncated or corrupted (checksum mismatch)", origin, f->what);
    *body = (lf__rbuf){data, len - LF__BIN_TRAILER, LF__BIN_HEADER, 0};
    return LF_OK;
}

lf_status lf__bin_read(const lf__binfile *f, const char *path, int64_t cap, char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    lf_status st = lf_check_file_magic(path, f->magic, 8, f->what);
    long n = 0;
    if (st == LF_OK)
        st = lf_read_file_capped(path, cap, f->what, data, &n);
    *len = (size_t)n;
    return st;
}

lf_status lf__bin_rest(const lf__binfile *f, const lf__rbuf *body, uint64_t rest, const char *origin)
{
    uint64_t left = body->short_ ? 0 : (uint64_t)(body->len - body->pos);
    if (!body->short_ && left == rest)
        return LF_OK;
    uint64_t have = (uint64_t)body->len + LF__BIN_TRAILER, want = (uint64_t)body->pos + LF__BIN_TRAILER;
    want = rest > UINT64_MAX - want ? UINT64_MAX : want + rest;
    return lf_set_error(LF_EPARSE, "%s: %s %s (%" PRIu64 " bytes, expected %" PRIu64 ")", origin,
                        left < rest ? "truncated" : "oversized", f->what, have, want);
}

lf_status lf__bin_done(const lf__binfile *f, const lf__rbuf *body, const char *origin, const char *field)
{
    if (body->short_)
        return lf_set_error(LF_EPARSE, "%s: truncated %s (%s)", origin, f->what, field);
    if (body->pos != body->len)
        return lf_set_error(LF_EPARSE, "%s: %zu bytes after %s", origin, body->len - body->pos, field);
    return LF_OK;
}

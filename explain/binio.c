/* Little-endian packing helpers for explain/ file formats (see binio.h). */
#include "explain/binio.h"

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
